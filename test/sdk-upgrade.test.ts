// The era upgrade of a server already on @modelcontextprotocol/server (v2) wired the 2025 way: each
// way authors wire the stdio transport, what the upgrade writes, and each reason it is not made.
// Written from what each source shows: `connect(transport)` becomes `serveStdio(() => server)`.
import { describe, expect, it } from 'vitest';
import { processSource } from '../src/pipeline.js';
import type { FileResult } from '../src/model/types.js';
import { findCodemod } from '../src/runner/codemod.js';
import { NEW_ERA_NOTE } from '../src/model/wire-changes.js';

const V2 = `import { McpServer } from '@modelcontextprotocol/server';\n`;

function upgrade(source: string, path = '/pkg/server.mjs', upgradeSdk = true): FileResult {
  return processSource(path, source, { sdk: 'v2', style: 'server', upgradeSdk }, () => null);
}

describe('the era upgrade', () => {
  it('inline `connect(new StdioServerTransport())`: the connect becomes serveStdio and the import names it instead', () => {
    const result = upgrade(`${V2}import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';\nconst server = new McpServer({ name: 'a', version: '1' });\nawait server.connect(new StdioServerTransport());\n`);
    expect(result.decision).toMatchObject({ kind: 'sdk', sdk: 'v2', already: 'era' });
    // what a 2026-07-28 client meets is said (the header and the reports carry the notes)
    expect((result.decision as { notes: string[] }).notes).toContain(NEW_ERA_NOTE);
    expect(NEW_ERA_NOTE).toMatch(/`ping` and `logging\/setLevel` are not methods, a missing resource is -32602, and list and read results carry `resultType`, `ttlMs` and `cacheScope`/);
    expect(result.after).toBe(`${V2}import { serveStdio } from '@modelcontextprotocol/server/stdio';\nconst server = new McpServer({ name: 'a', version: '1' });\nawait serveStdio(() => server);\n`);
  });

  it('a promise chain on connect keeps a promise; the class stays imported where a type names it', () => {
    const result = upgrade(
      `${V2}import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';\nconst server = new McpServer({ name: 'a', version: '1' });\nlet last: StdioServerTransport | null = null;\nserver.connect(new StdioServerTransport()).then(() => console.error('up'));\n`,
      '/pkg/server.ts',
    );
    expect(result.after).toContain(`import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';`);
    expect(result.after).toContain(`Promise.resolve(serveStdio(() => server)).then(() => console.error('up'));`);
  });

  it('a transport built with arguments is handed to serveStdio; compiled output names serveStdio on the module object', () => {
    const result = upgrade(
      `"use strict";\nconst server_1 = require("@modelcontextprotocol/server");\nconst stdio_js_1 = require("@modelcontextprotocol/server/stdio");\nconst server = new server_1.McpServer({ name: 'a', version: '1' });\nasync function main() {\n    const transport = new stdio_js_1.StdioServerTransport(process.stdin, process.stdout);\n    await server.connect(transport);\n}\nmain();\n`,
      '/pkg/dist/index.js',
    );
    expect(result.after).toContain('    const transport = new stdio_js_1.StdioServerTransport(process.stdin, process.stdout);\n    await stdio_js_1.serveStdio(() => server, { transport: transport });\n');
    expect(result.after).toContain('const stdio_js_1 = require("@modelcontextprotocol/server/stdio");');
  });

  it('an unused holder goes, with its line', () => {
    const result = upgrade(`${V2}import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';\nconst server = new McpServer({ name: 'a', version: '1' });\nconst transport = new StdioServerTransport();\nawait server.connect(transport);\n`);
    expect(result.after).toBe(`${V2}import { serveStdio } from '@modelcontextprotocol/server/stdio';\nconst server = new McpServer({ name: 'a', version: '1' });\nawait serveStdio(() => server);\n`);
  });

  it('is not made where the code sets a callback serveStdio would replace, or names serveStdio itself', () => {
    const callbacks = upgrade(`${V2}import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';\nconst server = new McpServer({ name: 'a', version: '1' });\nconst transport = new StdioServerTransport();\ntransport.onclose = () => process.exit(0);\nawait server.connect(transport);\n`);
    expect(callbacks.after).toBeUndefined();
    expect(callbacks.decision).toMatchObject({ kind: 'leave', reason: 'TRANSPORT_CALLBACKS_SET', line: 4 });
    const clash = upgrade(`${V2}import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';\nconst serveStdio = 1;\nconst server = new McpServer({ name: 'a', version: '1' });\nawait server.connect(new StdioServerTransport());\n`);
    expect(clash.after).toBeUndefined();
    expect(clash.decision).toMatchObject({ kind: 'leave', reason: 'STDIO_WIRING_UNREAD' });
    expect(clash.diagnostics[0]!.message).toContain('`serveStdio` already names something else');
  });

  it('a transport connected in another place than it is made is named, not guessed', () => {
    const result = upgrade(`${V2}import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';\nconst server = new McpServer({ name: 'a', version: '1' });\nconst transports = [new StdioServerTransport()];\nawait server.connect(transports[0]);\n`);
    expect(result.decision).toMatchObject({ kind: 'leave', reason: 'STDIO_WIRING_UNREAD', line: 4 });
  });

  it('a server already on serveStdio, a v1 server and a run that keeps the SDK as it is: no upgrade', () => {
    expect(upgrade(`${V2}import { serveStdio } from '@modelcontextprotocol/server/stdio';\nserveStdio(() => new McpServer({ name: 'a', version: '1' }));\n`).decision.kind).toBe('none');
    // (one on serveStdio that writes to stdout itself breaks its transport as any: those writes move)
    const noisy = upgrade(`${V2}import { serveStdio } from '@modelcontextprotocol/server/stdio';\nserveStdio(() => new McpServer({ name: 'a', version: '1' }));\nconsole.log('ready');\n`);
    expect(noisy.decision).toMatchObject({ kind: 'sdk', already: 'stdout' });
    expect(noisy.after).toContain("console.error('ready');");
    expect(noisy.findings.map((f) => f.rule)).toEqual(['sdk-transport-bypassed']);
    const v1 = upgrade(`import { Server } from '@modelcontextprotocol/sdk/server/index.js';\nimport { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';\nconst server = new Server({ name: 'a', version: '1' }, { capabilities: {} });\nawait server.connect(new StdioServerTransport());\n`);
    expect(v1.decision).toMatchObject({ kind: 'leave', reason: 'SDK_V1_WIRING' });
    const kept = upgrade(`${V2}import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';\nconst server = new McpServer({ name: 'a', version: '1' });\nawait server.connect(new StdioServerTransport());\n`, '/pkg/server.mjs', false);
    expect(kept.decision).toMatchObject({ kind: 'leave', reason: 'ALREADY_ON_SDK' });
  });
});

describe('code the official codemod could not finish', () => {
  it('is left alone with its marker line, even where the rest is v2 wired the 2025 way', () => {
    const result = upgrade(`${V2}import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';\nconst server = new McpServer({ name: 'a', version: '1' });\n// @mcp-codemod-error: setRequestHandler with a custom schema\nawait server.connect(new StdioServerTransport());\n`);
    expect(result.after).toBeUndefined();
    expect(result.decision).toMatchObject({ kind: 'leave', reason: 'CODEMOD_MARKERS', line: 4 });
  });

  it('a v1 server that writes to stdout still gets its writes moved, and the reason it is not upgraded as a note', () => {
    const result = upgrade(`import { Server } from '@modelcontextprotocol/sdk/server/index.js';\nimport { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';\nconst server = new Server({ name: 'a', version: '1' }, { capabilities: {} });\nawait server.connect(new StdioServerTransport());\nconsole.log('ready');\n`);
    expect(result.decision).toMatchObject({ kind: 'sdk', already: 'stdout' });
    expect(result.after).toContain("console.error('ready');");
    expect((result.decision as { notes: string[] }).notes[0]).toMatch(/^not upgraded to the 2026-07-28 era: SDK_V1_WIRING — .*npx @modelcontextprotocol\/codemod@latest v1-to-v2/);
  });
});

// With the official codemod installed (a devDependency here; an optional peer for users), a server on
// v1 is moved by it, in memory, and then upgraded like any server on v2. What the codemod writes is its
// own (double quotes, imports merged); the tests read what it is known to do and what the upgrade adds.
describe('a server on SDK v1, with the official codemod installed', () => {
  const codemod = findCodemod(process.cwd());
  const V1 = `import { Server } from '@modelcontextprotocol/sdk/server/index.js';\nimport { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';\n`;
  const move = (source: string, read: (path: string) => string | null = () => null): FileResult =>
    processSource('/pkg/server.mjs', source, { sdk: 'v2', style: 'server', upgradeSdk: true, codemod: codemod! }, read);

  it('is found where mcp-migrate is installed', () => {
    expect(codemod).toMatch(/@modelcontextprotocol[\\/]codemod[\\/]/);
  });

  it('moves to v2 by the codemod, then to serveStdio; what v2 answers otherwise is listed', () => {
    const result = move(`${V1}import { ListToolsRequestSchema, McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';\nconst server = new Server({ name: 'a', version: '1' }, { capabilities: { tools: {} } });\nserver.setRequestHandler(ListToolsRequestSchema, async () => { throw new McpError(ErrorCode.InternalError, 'no'); });\nawait server.connect(new StdioServerTransport());\nconsole.log('ready');\n`);
    expect(result.decision).toMatchObject({ kind: 'sdk', sdk: 'v2', already: 'v1', wireChanges: ['V1_ERROR_PREFIX', 'BAD_JSON_IGNORED'] });
    expect((result.decision as { notes: string[] }).notes[0]).toMatch(/^moved from SDK v1 to v2 by @modelcontextprotocol\/codemod@\d+\.\d+\.\d+ \(v1-to-v2\), in memory$/);
    expect(result.after).not.toContain('@modelcontextprotocol/sdk');
    expect(result.after).toContain("server.setRequestHandler('tools/list', async () => { throw new ProtocolError(ProtocolErrorCode.InternalError, 'no'); });");
    expect(result.after).toContain('await serveStdio(() => server);');
    expect(result.after).toContain("console.error('ready');");
  });

  it('a module of the program that imports v1 moves with it', () => {
    const tools = `import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';\nexport const fail = () => { throw new McpError(ErrorCode.InvalidParams, 'bad'); };\n`;
    const result = move(`${V1}import { fail } from './tools.mjs';\nconst server = new Server({ name: 'a', version: '1' }, { capabilities: {} });\nserver.fallbackRequestHandler = async () => fail();\nawait server.connect(new StdioServerTransport());\n`, (path) => (path === '/pkg/tools.mjs' ? tools : null));
    expect(result.decision).toMatchObject({ kind: 'sdk', already: 'v1' });
    expect(result.related).toHaveLength(1);
    expect(result.related![0]).toMatchObject({ path: '/pkg/tools.mjs', before: tools });
    expect(result.related![0]!.after).toContain('throw new ProtocolError(ProtocolErrorCode.InvalidParams, \'bad\')');
  });

  it('a module the codemod cannot complete (it would mark it @mcp-codemod-error) stays on v1, with the codemod\'s reason and line', () => {
    const result = move(`${V1}import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';\nconst server = new Server({ name: 'a', version: '1' }, { capabilities: { tools: {} } });\nserver.setRequestHandler(ListToolsRequestSchema, async (request, { signal }) => ({ tools: signal.aborted ? [] : [] }));\nawait server.connect(new StdioServerTransport());\n`);
    expect(result.after).toBeUndefined();
    expect(result.decision).toMatchObject({ kind: 'leave', reason: 'SDK_V1_WIRING', line: 5 });
    expect(result.diagnostics[0]!.message).toMatch(/^server\.mjs: the codemod could not rewrite it: Destructuring of context parameter in signature/);
  });

  it('code the codemod moves but leaves unbound (an import it removes) fails the re-check of the moved server: stays on v1', () => {
    const result = move(`${V1}import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';\nconst server = new Server({ name: 'a', version: '1' }, { capabilities: {} });\nawait server.connect(new StdioServerTransport());\nexport { WebSocketClientTransport };\n`);
    expect(result.after).toBeUndefined();
    expect(result.decision).toMatchObject({ kind: 'leave', reason: 'SDK_V1_WIRING' });
    expect(result.diagnostics[0]!.message).toMatch(/^moved to v2 by @modelcontextprotocol\/codemod@[\d.]+, the server could not be upgraded to the 2026-07-28 era: does not parse: Export 'WebSocketClientTransport' is not defined/);
  });

  it('a codemod that cannot be loaded leaves the server on v1 and says why', () => {
    const result = processSource('/pkg/server.mjs', `${V1}const server = new Server({ name: 'a', version: '1' }, { capabilities: {} });\nawait server.connect(new StdioServerTransport());\n`, { sdk: 'v2', style: 'server', upgradeSdk: true, codemod: '/nowhere/codemod/index.cjs' }, () => null);
    expect(result.decision).toMatchObject({ kind: 'leave', reason: 'SDK_V1_WIRING' });
    expect(result.diagnostics[0]!.message).toMatch(/^@modelcontextprotocol\/codemod is installed but it could not be loaded: /);
  });
});
