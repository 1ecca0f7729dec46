/**
 * The SDK boundary module at run time: small servers written here use it the way a rewritten server
 * does (their stdin is `boundary.stdin`, their writes `boundary.write()`), each is started as a process
 * and spoken to with the official SDK `Client`. What is checked is what the module promises: every
 * reply reaches the request it answers, whatever id the server wrote and in whatever order; errors keep
 * their code, message and data; the server's own notifications reach the client; what is not a message
 * goes to stderr; the server's own initialize answer is what the SDK announces; both protocol eras
 * with v2.
 */
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildBoundarySource } from '../../src/rewrite/boundary/helper-source.js';
import type { SdkTarget } from '../../src/model/types.js';
import { getFailedRules, PROJECT_NODE_MODULES, probeRaw, type CaseSpec } from './harness.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A temp folder with the server, the boundary module for `sdk` and the project's node_modules. */
async function makeServer(server: string, sdk: SdkTarget = 'v1'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-migrate-boundary-e2e-'));
  dirs.push(dir);
  await symlink(PROJECT_NODE_MODULES, join(dir, 'node_modules'), 'dir');
  await writeFile(join(dir, 'mcp-boundary.cjs'), buildBoundarySource('cjs', sdk));
  await writeFile(join(dir, 'server.js'), server);
  return dir;
}

async function connect(dir: string, options: { pin?: string } = {}) {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const client = new Client({ name: 'boundary-e2e', version: '1.0.0' }, { capabilities: {}, ...(options.pin ? { versionNegotiation: { mode: { pin: options.pin } } } : {}) });
  const transport = new StdioClientTransport({ command: process.execPath, args: ['server.js'], cwd: dir, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

const text = (result: unknown): string => ((result as { content: { text: string }[] }).content[0]!.text);

// A server with the concurrency bugs real ones have: one `currentId` for every request in flight (a later
// request overwrites it before an earlier one answers), handlers that answer after different delays, a
// hard-coded id on one path; an initialize that warms a cache, a log notification of its own, a debug line
// on stdout, and replies to notifications.
const CONCURRENT = `'use strict';
const readline = require('readline');
const { createBoundary } = require('./mcp-boundary.cjs');
const boundary = createBoundary({ methods: ['tools/list', 'tools/call'] });
console.log = console.info = console.debug = boundary.log; // (the line the rewrite adds)
let currentId = null;
let warmed = 'cold';
const send = (m) => boundary.write(JSON.stringify(m) + '\\n');
readline.createInterface({ input: boundary.stdin }).on('line', async (line) => {
  const msg = JSON.parse(line);
  currentId = msg.id;
  console.log('debug: got', msg.method);
  if (msg.method === 'initialize') {
    warmed = 'warm for ' + msg.params.clientInfo.name;
    return send({ jsonrpc: '2.0', id: currentId, result: { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {}, logging: {} }, serverInfo: { name: 'clock-shop', version: '3.1.4' }, instructions: 'Ask for the time.' } });
  }
  if (msg.method === 'notifications/initialized') return send({ jsonrpc: '2.0', result: {} });
  if (msg.method === 'tools/list') return send({ jsonrpc: '2.0', id: currentId, result: { tools: [{ name: 'wait', inputSchema: { type: 'object' } }, { name: 'state', inputSchema: { type: 'object' } }] } });
  if (msg.method === 'tools/call') {
    const args = msg.params.arguments || {};
    if (msg.params.name === 'state') return send({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: warmed }] } });
    if (msg.params.name === 'fail') return send({ jsonrpc: '2.0', id: currentId, error: { code: -32602, message: 'no such tool: fail', data: { tool: 'fail' } } });
    if (msg.params.name === 'shout') return send({ jsonrpc: '2.0', id: currentId, error: 'something broke' });
    if (msg.params.name !== 'wait') return send({ jsonrpc: '2.0', id: currentId, error: { code: -32602, message: 'Unknown tool: ' + msg.params.name } });
    await new Promise((resolve) => setTimeout(resolve, args.ms));
    send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'waited ' + args.ms } });
    return send({ jsonrpc: '2.0', id: currentId, result: { content: [{ type: 'text', text: 'waited ' + args.ms }] } });
  }
  send({ jsonrpc: '2.0', id: currentId, error: { code: -32601, message: 'Method not found: ' + msg.method } });
});
`;

describe('the SDK boundary at run time', () => {
  it('routes interleaved concurrent replies to their requests, whatever id the server wrote, in whatever order', async () => {
    const dir = await makeServer(CONCURRENT);
    const { client, stderr } = await connect(dir);
    try {
      // the server's own answer to initialize, obtained at start-up, is what the SDK announced
      expect(client.getServerVersion()).toEqual({ name: 'clock-shop', version: '3.1.4' });
      expect(client.getInstructions()).toBe('Ask for the time.');
      expect(client.getServerCapabilities()).toMatchObject({ tools: {}, logging: {} });
      const logged: string[] = [];
      client.setNotificationHandler('notifications/message', (n) => {
        logged.push(String(n.params.data));
      });
      // six calls in flight at once, answered in another order than they were sent, all with the id of
      // the request that came last
      const delays = [240, 30, 160, 5, 90, 60];
      const results = await Promise.all(delays.map((ms) => client.callTool({ name: 'wait', arguments: { ms } })));
      expect(results.map(text)).toEqual(delays.map((ms) => `waited ${ms}`));
      // the server's own notifications reached the client, one per call
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(logged.sort()).toEqual(delays.map((ms) => `waited ${ms}`).sort());
      // a hard-coded id: the reply still answers its request; initialize ran at start-up
      expect(text(await client.callTool({ name: 'state', arguments: {} }))).toBe('warm for mcp-migrate-boundary');
      // an error keeps its code, message and data; a bare string error is -32603 with that message
      await expect(client.callTool({ name: 'fail', arguments: {} })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('no such tool: fail'), data: { tool: 'fail' } });
      await expect(client.callTool({ name: 'shout', arguments: {} })).rejects.toMatchObject({ code: -32603, message: expect.stringContaining('something broke') });
      // the server's own answer to an unknown method: -32601
      await expect(client.request({ method: 'nope/x', params: {} }, z.object({}))).rejects.toMatchObject({ code: -32601 });
      await client.ping();
      // the debug lines went to stderr, not to the protocol
      expect(stderr()).toContain('debug: got tools/call');
    } finally {
      await client.close();
    }
  }, 60_000);

  it.each(['v1', 'v2'] as const)('holds every JSON-RPC rule with a raw client (id 0 and string ids, notifications unanswered, bad JSON, clean stdout): %s', async (sdk) => {
    const dir = await makeServer(CONCURRENT, sdk);
    const kase: CaseSpec = { description: '', run: ['node', 'server.js'], env: {}, framing: 'ndjson', expect: 'sdk', calls: [], resources: [], prompts: [], requests: [] };
    expect(getFailedRules(await probeRaw(dir, kase))).toEqual([]);
  }, 60_000);

  it('what the server throws out of its input listener is thrown again, uncaught: the server dies of it as it did, not answering from a broken input stream', async () => {
    // a Transform that parses lines and emits messages; the dispatch runs inside its push(), so a throw
    // there unwinds through the stream (it breaks the pipe) and out of the 'data' listener
    const dir = await makeServer(`'use strict';
const { Transform } = require('node:stream');
const { createBoundary } = require('./mcp-boundary.cjs');
const boundary = createBoundary({ methods: ['tools/list', 'tools/call'] });
const send = (m) => boundary.write(JSON.stringify(m) + '\\n');
class Lines extends Transform {
  constructor() { super({ readableObjectMode: true }); this.rest = ''; }
  _transform(chunk, _enc, done) {
    const parts = (this.rest + chunk).split('\\n');
    this.rest = parts.pop();
    for (const part of parts) if (part.trim()) this.push(JSON.parse(part));
    done();
  }
}
boundary.stdin.pipe(new Lines()).on('data', (msg) => {
  if (msg.method === 'initialize') return send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'thrower', version: '1' } } });
  if (msg.method === 'tools/list') return send({ jsonrpc: '2.0', id: msg.id, result: { tools: [{ name: 'boom', inputSchema: { type: 'object' } }] } });
  if (msg.method === 'tools/call') throw new Error('boom: no such thing');
});
`);
    const { client, stderr } = await connect(dir);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['boom']);
    // the process exits with the server's own error: the client's request fails, no answer is made up
    const closed = new Promise<void>((resolve) => (client.onclose = () => resolve()));
    await expect(client.callTool({ name: 'boom', arguments: {} })).rejects.toThrow();
    await closed;
    expect(stderr()).toContain('Error: boom: no such thing');
  }, 60_000);

  it('follows a for await loop by the ids of its requests (no context reaches the loop body), and answers what the server never does with -32601 when it knows every method', async () => {
    // the loop hands each message to an async handler without waiting: replies come back out of order,
    // from code whose async context is the loop's, not the request's; unknown methods are dropped
    const dir = await makeServer(`import('node:readline').then(async ({ createInterface }) => {
  const { createBoundary } = require('./mcp-boundary.cjs');
  const boundary = createBoundary({ known: ['initialize', 'tools/list', 'tools/call'] });
  const send = (m) => boundary.write(JSON.stringify(m) + '\\n');
  const handle = async (msg) => {
    if (msg.method === 'initialize') return send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'loop', version: '1.0.0' } } });
    if (msg.method === 'tools/list') return send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
    if (msg.method === 'tools/call') {
      await new Promise((resolve) => setTimeout(resolve, msg.params.arguments.ms));
      return send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: String(msg.params.arguments.ms) }] } });
    }
  };
  for await (const line of createInterface({ input: boundary.stdin })) handle(JSON.parse(line));
});
`);
    const { client } = await connect(dir);
    try {
      const delays = [120, 10, 60];
      expect((await Promise.all(delays.map((ms) => client.callTool({ name: 'wait', arguments: { ms } })))).map(text)).toEqual(['120', '10', '60']);
      await expect(client.request({ method: 'resources/list', params: {} })).rejects.toMatchObject({ code: -32601 });
    } finally {
      await client.close();
    }
  }, 60_000);

  it('takes the wire only in a program that reads its stdin: another program importing the same module writes as it did', async () => {
    // a protocol module of the server, rewritten onto the boundary, is also imported by a CLI command
    // that prints a tool list for a person and never reads stdin
    const dir = await makeServer(`'use strict';
require('./protocol.js').serve();
`);
    await writeFile(
      join(dir, 'protocol.js'),
      `'use strict';
const readline = require('readline');
const { createBoundary } = require('./mcp-boundary.cjs');
const boundary = createBoundary({ guardConsole: true });
const TOOLS = [{ name: 'hello', inputSchema: { type: 'object' } }];
exports.print = (value) => boundary.write(JSON.stringify(value) + '\\n');
exports.TOOLS = TOOLS;
exports.serve = () => readline.createInterface({ input: boundary.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') return exports.print({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'shared', version: '1.0.0' } } });
  if (msg.method === 'tools/list') return exports.print({ jsonrpc: '2.0', id: msg.id, result: { tools: TOOLS } });
  if (msg.id !== undefined) exports.print({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
});
`,
    );
    await writeFile(join(dir, 'list.js'), `'use strict';
const { print, TOOLS } = require('./protocol.js');
console.log('tools:');
print(TOOLS.map((t) => t.name));
`);
    // the CLI: its own output on stdout, unchanged, and it exits (no SDK listening on its stdin)
    const { execFile } = await import('node:child_process');
    const cli = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(process.execPath, ['list.js'], { cwd: dir, timeout: 10_000 }, (error, stdout) => resolve({ code: error ? (error as { code?: number }).code ?? 1 : 0, stdout }));
      child.stdin?.end();
    });
    expect(cli).toEqual({ code: 0, stdout: 'tools:\n["hello"]\n' });
    // the server, which reads its stdin, is on the SDK
    const { client } = await connect(dir);
    try {
      expect(client.getServerVersion()).toEqual({ name: 'shared', version: '1.0.0' });
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['hello']);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('v2: serves a 2026-07-28 client (server/discover, per-request _meta the server never sees) and a 2025-era one', async () => {
    const dir = await makeServer(
      CONCURRENT.replace("if (msg.method === 'tools/call') {", "if (msg.method === 'tools/call' && msg.params._meta !== undefined) return send({ jsonrpc: '2.0', id: currentId, error: { code: -32602, message: 'unexpected _meta' } });\n  if (msg.method === 'tools/call') {"),
      'v2',
    );
    const modern = await connect(dir, { pin: '2026-07-28' });
    try {
      expect(modern.client.getServerVersion()).toMatchObject({ name: 'clock-shop', version: '3.1.4' });
      const results = await Promise.all([80, 20].map((ms) => modern.client.callTool({ name: 'wait', arguments: { ms } })));
      expect(results.map(text)).toEqual(['waited 80', 'waited 20']);
    } finally {
      await modern.client.close();
    }
    const legacy = await connect(dir);
    try {
      expect(text(await legacy.client.callTool({ name: 'wait', arguments: { ms: 5 } }))).toBe('waited 5');
    } finally {
      await legacy.client.close();
    }
  }, 60_000);

  it('namespaced: a method outside MCP\'s namespaces the server never names nor reaches through built names is answered -32601; the others reach it', async () => {
    const dir = await makeServer(
      `'use strict';
const { createBoundary } = require('./mcp-boundary.cjs');
const boundary = createBoundary({ namespaced: ['notes/add'], stems: ['initialize', 'toolslist', 'statsget'] });
const send = (m) => boundary.write(JSON.stringify(m) + '\\n');
const handlers = {
  on_initialize: () => ({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'quiet', version: '1.0.0' } }),
  on_tools_list: () => ({ tools: [] }),
  on_stats_get: () => ({ count: 3 }),
};
require('readline').createInterface({ input: boundary.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'notes/add') return send({ jsonrpc: '2.0', id: msg.id, result: { added: true } });
  const handler = handlers['on_' + msg.method.replace('/', '_')];
  if (handler && msg.id !== undefined) send({ jsonrpc: '2.0', id: msg.id, result: handler(msg.params) });
  // silent on anything else
});
`,
    );
    const { client } = await connect(dir);
    try {
      expect((await client.listTools()).tools).toEqual([]);
      // named by the program; reached through a built name (stem statsget); neither
      expect(await client.request({ method: 'notes/add', params: {} }, z.object({ added: z.boolean() }))).toEqual({ added: true });
      expect(await client.request({ method: 'stats/get', params: {} }, z.object({ count: z.number() }))).toEqual({ count: 3 });
      await expect(client.request({ method: 'mcp-migrate/no-such-method', params: {} }, z.object({}), { timeout: 5000 })).rejects.toMatchObject({ code: -32601 });
      await expect(client.request({ method: 'stats/put', params: {} }, z.object({}), { timeout: 5000 })).rejects.toMatchObject({ code: -32601 });
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a cancelled request reaches the server as notifications/cancelled under the id it saw; so does one for a request not in flight', async () => {
    const dir = await makeServer(
      `'use strict';
const { createBoundary } = require('./mcp-boundary.cjs');
const boundary = createBoundary();
const send = (m) => boundary.write(JSON.stringify(m) + '\\n');
const seen = new Map();
require('readline').createInterface({ input: boundary.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') return send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'slow', version: '1.0.0' } } });
  if (msg.method === 'tools/list') return send({ jsonrpc: '2.0', id: msg.id, result: { tools: [{ name: 'slow', inputSchema: { type: 'object' } }] } });
  if (msg.method === 'tools/call') return seen.set(msg.id, setTimeout(() => send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: 'late' }] } }), 5000));
  if (msg.method === 'notifications/cancelled') {
    console.error('cancelled ' + msg.params.requestId + (seen.has(msg.params.requestId) ? ' (mine)' : ' (unknown)') + ' because ' + msg.params.reason);
    clearTimeout(seen.get(msg.params.requestId));
  }
});
`,
    );
    const { client, stderr } = await connect(dir);
    try {
      const controller = new AbortController();
      const call = client.callTool({ name: 'slow', arguments: {} }, { signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 300));
      controller.abort('no longer needed');
      await expect(call).rejects.toThrow();
      await client.notification({ method: 'notifications/cancelled', params: { requestId: 999, reason: 'stale' } });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(stderr()).toMatch(/cancelled \d+ \(mine\) because no longer needed/);
      expect(stderr()).toContain('cancelled 999 (unknown) because stale');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('v2: a missing resource the server answers -32002 keeps that code for a 2025-era client, and is -32602 for a 2026-07-28 one', async () => {
    const dir = await makeServer(
      `'use strict';
const { createBoundary } = require('./mcp-boundary.cjs');
const boundary = createBoundary();
const send = (m) => boundary.write(JSON.stringify(m) + '\\n');
require('readline').createInterface({ input: boundary.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') return send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { resources: {} }, serverInfo: { name: 'docs', version: '1.0.0' } } });
  if (msg.method === 'resources/read' && msg.params.uri === 'docs://a') return send({ jsonrpc: '2.0', id: msg.id, result: { contents: [{ uri: 'docs://a', text: 'A' }] } });
  if (msg.method === 'resources/read') return send({ jsonrpc: '2.0', id: msg.id, error: { code: -32002, message: 'Resource not found: ' + msg.params.uri } });
  if (msg.id !== undefined) send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
});
`,
      'v2',
    );
    const legacy = await connect(dir);
    try {
      expect((await legacy.client.readResource({ uri: 'docs://a' })).contents).toEqual([{ uri: 'docs://a', text: 'A' }]);
      await expect(legacy.client.readResource({ uri: 'docs://b' })).rejects.toMatchObject({ code: -32002, message: expect.stringContaining('Resource not found: docs://b') });
    } finally {
      await legacy.client.close();
    }
    const modern = await connect(dir, { pin: '2026-07-28' });
    try {
      await expect(modern.client.readResource({ uri: 'docs://b' })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Resource not found: docs://b') });
    } finally {
      await modern.client.close();
    }
  }, 60_000);
});
