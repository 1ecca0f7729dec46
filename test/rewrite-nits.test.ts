// Small things the SDK rewrite's output must not leave behind: a `break;` it made unreachable, and an
// untyped (`any`) message where the original said what type the message is.
import { describe, expect, it } from 'vitest';
import { processSource } from '../src/pipeline.js';
import { removeUnreachableBreaks } from '../src/rewrite/unreachable.js';
import { readModuleSync } from '../src/runner/read-module.js';

const HEAD = [
  "const readline = require('readline');",
  "const TOOLS = [{ name: 'add', description: 'Add', inputSchema: { type: 'object', properties: {} } }];",
  "function send(msg) { process.stdout.write(JSON.stringify(msg) + '\\n'); }",
  'function handle(msg) {',
  '  switch (msg.method) {',
  "    case 'initialize':",
  "      send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'calc', version: '1.0.0' } } });",
  '      break;',
  "    case 'tools/list':",
  "      send({ jsonrpc: '2.0', id: msg.id, result: { tools: TOOLS } });",
  '      break;',
].join('\n');
const TAIL = [
  '    default:',
  "      send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });",
  '  }',
  '}',
  "readline.createInterface({ input: process.stdin }).on('line', (line) => handle(JSON.parse(line)));",
  '',
].join('\n');

function migrate(path: string, source: string): string {
  const result = processSource(path, source, { sdk: 'v1', style: 'server', moduleKind: 'commonjs' }, readModuleSync);
  expect(result.decision.kind, JSON.stringify(result.decision)).toBe('sdk');
  return result.after!;
}

describe('unreachable break', () => {
  it('goes after an if / else whose branches both became a return or a throw', () => {
    const call = [
      "    case 'tools/call':",
      "      if (msg.params.name !== 'add') {",
      "        send({ jsonrpc: '2.0', id: msg.id, error: { code: -32602, message: 'Unknown tool' } });",
      '      } else {',
      "        send({ jsonrpc: '2.0', id: msg.id, result: { content: [] } });",
      '      }',
      '      break;',
      '',
    ].join('\n');
    const after = migrate('server.js', `${HEAD}\n${call}${TAIL}`);
    expect(after).toContain("      } else {\n        return { content: [] };\n      }\n    default:");
    expect(after).not.toMatch(/\}\n\s*break;/);
    // and the output is stable: a second run changes nothing
    expect(processSource('server.js', after, { sdk: 'v1', style: 'server', moduleKind: 'commonjs' }, readModuleSync).after).toBeUndefined();
  });

  it("keeps a user's own unreachable break (code the rewrite did not touch), and a reachable one", () => {
    const before = "switch (x) {\n  case 1:\n    return 1;\n    break;\n  case 2:\n    if (y) { return 2; }\n    break;\n}\n";
    const after = "switch (x) {\n  case 1:\n    return 1;\n    break;\n  case 2:\n    if (y) { return 3; }\n    break;\n}\n";
    expect(removeUnreachableBreaks('a.js', before, after)).toBe(after);
    const changed = "switch (x) {\n  case 1:\n    if (y) { return 1; } else { throw e; }\n    break;\n}\n";
    expect(removeUnreachableBreaks('a.js', 'switch (x) {\n  case 1:\n    if (y) { a(); } else { b(); }\n    break;\n}\n', changed)).toBe('switch (x) {\n  case 1:\n    if (y) { return 1; } else { throw e; }\n}\n');
  });
});

describe('the message type in TypeScript output', () => {
  const server = (parse: string): string =>
    [
      "import * as readline from 'node:readline';",
      'interface RpcRequest { jsonrpc: string; id?: number | string; method: string; params?: Record<string, unknown> }',
      "const TOOLS = [{ name: 'add', description: 'Add', inputSchema: { type: 'object', properties: {} } }];",
      "function send(msg: object): void { process.stdout.write(JSON.stringify(msg) + '\\n'); }",
      "readline.createInterface({ input: process.stdin }).on('line', (line: string) => {",
      `  const msg = ${parse};`,
      "  if (msg.method === 'initialize') send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'calc', version: '1.0.0' } } });",
      "  else if (msg.method === 'tools/list') send({ jsonrpc: '2.0', id: msg.id, result: { tools: TOOLS } });",
      "  else if (msg.id !== undefined) send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });",
      '});',
      '',
    ].join('\n');

  it('is the type the original cast the parsed message to', () => {
    expect(migrate('server.ts', server('JSON.parse(line) as RpcRequest'))).toContain('handleMessage = async (msg: RpcRequest) =>');
    expect(migrate('server.ts', server('<RpcRequest>JSON.parse(line)'))).toContain('handleMessage = async (msg: RpcRequest) =>');
  });

  it('stays any where the original had none (or cast to unknown)', () => {
    expect(migrate('server.ts', server('JSON.parse(line)'))).toContain('handleMessage = async (msg: any) =>');
    expect(migrate('server.ts', server('JSON.parse(line) as unknown'))).toContain('handleMessage = async (msg: any) =>');
  });
});

describe('the SDK requires in a module of one line', () => {
  // (a minifier's output: every statement on line 1; "the line after the requires" is past all the code)
  const oneLine = (source: string) => source.split('\n').join(' ');
  const requireAt = (text: string) => text.indexOf("require('@modelcontextprotocol/sdk/server/index.js')");

  it('go right after the module\'s own requires, on a line of their own, before the code that uses them', () => {
    // (`readline` goes too: the loop was its only user)
    const after = migrate('server.js', oneLine(HEAD + '\n' + TAIL) + '\n');
    expect(after.startsWith("const { Server } = require(")).toBe(true);
    expect(requireAt(after)).toBeLessThan(after.indexOf('const TOOLS'));
    expect(requireAt(after)).toBeLessThan(after.indexOf('new Server('));
  });

  it('go right after the directive when code follows it on the same line', () => {
    // the tool table first: no require opens the module
    const [first, second, ...rest] = HEAD.split('\n');
    const after = migrate('server.js', `'use strict'; ${oneLine([second, first, ...rest].join('\n') + '\n' + TAIL)}\n`);
    expect(after.startsWith("'use strict';\nconst { Server } = require(")).toBe(true);
    expect(requireAt(after)).toBeLessThan(after.indexOf('const TOOLS'));
  });
});
