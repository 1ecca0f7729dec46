// `--style mcp-server`: where the tool split is not proven, the server style is written, with the
// typed reason and what stopped it. One small server, varied in its tool table and tools/call branch.
import { describe, expect, it } from 'vitest';
import { processSource } from '../src/pipeline.js';
import type { Decision } from '../src/model/types.js';

const TOOL = `{ name: 'echo', description: 'Echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }`;

function server(call: string, table = `[${TOOL}]`): string {
  return `const readline = require('readline');
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
function log(text) { process.stderr.write(text + '\\n'); }
function handle(msg) {
  const { id, method, params } = msg;
  switch (method) {
    case 'initialize':
      return send({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1.0.0' } } });
    case 'tools/list':
      return send({ jsonrpc: '2.0', id, result: { tools: ${table} } });
    case 'tools/call': {
${call}
    }
    default:
      if (id !== undefined) send({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
  }
}
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }); }
  handle(msg);
});
`;
}

const decide = (source: string): Decision => processSource('server.js', source, { sdk: 'v1', style: 'mcp-server' }).decision;
const note = (decision: Decision): string => (decision.kind === 'sdk' ? decision.notes[0] ?? '' : '');

describe('--style mcp-server: the split must be proven', () => {
  it('takes a branch that only reads the tool arguments', () => {
    const decision = decide(server(`      if (params.name === 'echo') return send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: params.arguments.text }] } });
      return send({ jsonrpc: '2.0', id, error: { code: -32602, message: 'Unknown tool' } });`));
    expect(decision).toMatchObject({ kind: 'sdk', style: 'mcp-server' });
  });

  it('refuses a branch that reads the request id, or runs code before it picks the tool', () => {
    const id = decide(server(`      if (params.name === 'echo') return send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: String(id) }] } });
      return send({ jsonrpc: '2.0', id, error: { code: -32602, message: 'Unknown tool' } });`));
    expect(id).toMatchObject({ kind: 'sdk', style: 'server', styleReason: 'MCP_SERVER_NO_TOOL_SPLIT' });
    expect(note(id)).toContain('uses `id` of the dispatcher');
    const logged = decide(server(`      log(params.name);
      if (params.name === 'echo') return send({ jsonrpc: '2.0', id, result: { content: [] } });
      return send({ jsonrpc: '2.0', id, error: { code: -32602, message: 'Unknown tool' } });`));
    expect(logged).toMatchObject({ style: 'server', styleReason: 'MCP_SERVER_NO_TOOL_SPLIT' });
  });

  it('refuses a branch that runs on into code the tools share, and a listed tool without a branch', () => {
    const shared = decide(server(`      let text = '';
      if (params.name === 'echo') text = params.arguments.text;
      return send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });`));
    expect(shared).toMatchObject({ style: 'server', styleReason: 'MCP_SERVER_NO_TOOL_SPLIT' });
    expect(note(shared)).toContain('the branch of tool echo runs on into code other tools share');
    const missing = decide(server(`      if (params.name === 'echo') return send({ jsonrpc: '2.0', id, result: { content: [] } });
      return send({ jsonrpc: '2.0', id, error: { code: -32602, message: 'Unknown tool' } });`, `[${TOOL}, { name: 'other', inputSchema: { type: 'object' } }]`));
    expect(note(missing)).toContain('tool other has no branch of its own in tools/call');
  });

  it('refuses a table registerTool would publish differently: an outputSchema, an entry built at run time', () => {
    const call = `      if (params.name === 'echo') return send({ jsonrpc: '2.0', id, result: { content: [] } });
      return send({ jsonrpc: '2.0', id, error: { code: -32602, message: 'Unknown tool' } });`;
    const output = decide(server(call, `[{ name: 'echo', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } }]`));
    expect(output).toMatchObject({ style: 'server', styleReason: 'MCP_SERVER_TOOL_TABLE' });
    expect(note(output)).toContain('"outputSchema" field');
    const computed = decide(server(call, `[{ name: 'echo', description: 'at ' + Date.now(), inputSchema: { type: 'object' } }]`));
    expect(computed).toMatchObject({ style: 'server', styleReason: 'MCP_SERVER_TOOL_TABLE' });
  });
});
