// Issue 10, item 3: `verify` against servers that misbehave at the process and stream level. Every wait
// is bounded (a grandchild holding the server's stdout used to make it wait forever), the whole process
// tree is stopped (a grandchild in a session of its own survived the process-group kill), stdout is
// decoded in linear time (a valid 50 MB reply used to become "no reply"), and what is kept of a flood is
// bounded.
import { afterAll, describe, it, expect } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ServerConnection, splitJsonObjects } from '../src/verify/connection.js';
import { createDecoder, type Decoded } from '../src/verify/framing.js';
import { verifyServer, type VerifyResult } from '../src/verify/probe.js';
import { isGone, makeTree, removeTrees, waitUntilGone } from './fixtures/cli/harness.js';

afterAll(removeTrees);

/** A temp folder holding `server.js`. */
const makeServer = (source: string): Promise<string> => makeTree({ 'server.js': source });

/** A compliant NDJSON server; `extra` runs at start-up (with `spawn` and `writePids` in scope). */
function server(extra: string, initializeResult = "{ protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 't', version: '1' } }"): string {
  return `
const { spawn } = require('node:child_process');
const writePids = (pids) => require('node:fs').writeFileSync('pids.json', JSON.stringify(pids));
${extra}
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return send({ id: null, error: { code: -32700, message: 'Parse error' } }); }
  if (msg.id === undefined) return;
  if (msg.method === 'initialize') return send({ id: msg.id, result: ${initializeResult} });
  if (msg.method === 'ping') return send({ id: msg.id, result: {} });
  send({ id: msg.id, error: { code: -32601, message: 'Method not found' } });
});
`;
}



/** verifyServer, but never longer than `ms`: a hang is a test failure, not a test timeout. */
async function verifyWithin(dir: string, ms: number, timeoutMs = 500): Promise<VerifyResult | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), ms)));
  const run = verifyServer({ command: process.execPath, args: ['server.js'], cwd: dir, env: process.env, framing: 'ndjson', timeoutMs, clientInfo: { name: 'test', version: '0' } });
  try {
    return await Promise.race([run, hung]);
  } finally {
    clearTimeout(timer);
  }
}

const linux = process.platform === 'linux';

describe.concurrent('verify stops in bounded time, and stops everything the server started', () => {
  it.runIf(linux)('a grandchild in its own session keeps stdout open after the server exits', async () => {
    // detached: the grandchild calls setsid(); it inherits stdout and stderr and lives on.
    const dir = await makeServer(
      server(`const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] });
writePids({ server: process.pid, grandchild: g.pid });
process.stdin.on('end', () => process.exit(0));`),
    );
    const started = Date.now();
    const result = await verifyWithin(dir, 20_000);
    expect(result).not.toBe('hung');
    expect((result as VerifyResult).kind).toBe('checked');
    expect(Date.now() - started).toBeLessThan(15_000);
    const pids = JSON.parse(await readFile(join(dir, 'pids.json'), 'utf8')) as { server: number; grandchild: number };
    expect(await waitUntilGone(pids.server)).toBe(true);
    expect(await waitUntilGone(pids.grandchild)).toBe(true);
  });

  it.runIf(linux)('a grandchild in its own session with no stdio, under a server that ignores SIGTERM', async () => {
    const dir = await makeServer(
      server(`const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
writePids({ server: process.pid, grandchild: g.pid });
process.on('SIGTERM', () => {});
setInterval(() => {}, 1000);`),
    );
    const result = await verifyWithin(dir, 20_000);
    expect(result).not.toBe('hung');
    const pids = JSON.parse(await readFile(join(dir, 'pids.json'), 'utf8')) as { server: number; grandchild: number };
    expect(await waitUntilGone(pids.server)).toBe(true);
    expect(await waitUntilGone(pids.grandchild)).toBe(true);
  });
});

describe('what the server writes', () => {
  it('a valid 50 MB initialize reply is read as the reply', async () => {
    const dir = await makeServer(server('', "{ protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'big', version: '1' }, instructions: 'x'.repeat(50_000_000) }"));
    const result = await verifyWithin(dir, 45_000, 3_000);
    expect(result).not.toBe('hung');
    const checked = result as Extract<VerifyResult, { kind: 'checked' }>;
    expect(checked.kind).toBe('checked');
    expect(checked.serverInfo).toEqual({ name: 'big', version: '1' });
    expect(checked.results.find((r) => r.rule === 'initialize-failed')).toMatchObject({ ok: true });
  }, 60_000);

  it('a flood of lines is counted, not stored, and the connection still closes in bounded time', async () => {
    const dir = await makeServer("const line = 'log '.repeat(250) + '\\n'; const flood = () => { while (process.stdout.write(line)) {} process.stdout.once('drain', flood); }; flood();\n");
    const connection = new ServerConnection({ command: process.execPath, args: ['server.js'], cwd: dir, env: process.env, framing: 'ndjson' });
    await connection.settle(1_500);
    const started = Date.now();
    await connection.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(connection.strayCount).toBeGreaterThan(1_000);
    expect(connection.strayOutput.length).toBeLessThanOrEqual(100);
  });

  it('a flood of JSON objects is bounded too', async () => {
    const dir = await makeServer("const line = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }) + '\\n'; const flood = () => { while (process.stdout.write(line)) {} process.stdout.once('drain', flood); }; flood();\n");
    const connection = new ServerConnection({ command: process.execPath, args: ['server.js'], cwd: dir, env: process.env, framing: 'ndjson' });
    await connection.settle(2_500);
    await connection.close();
    expect(connection.messages.length).toBeLessThanOrEqual(10_000);
    expect(connection.messages.length + connection.droppedMessages).toBeGreaterThan(10_000);
  });
});

describe('a late answer to an earlier request', () => {
  it('is not taken for a reply to the notification sent after it (ping answered first, as the SDK does while a queued handler runs)', async () => {
    // every request but initialize and ping is answered only when the next notification comes (a queue
    // that a slow handler holds up): the answers arrive after the probe stopped waiting for them
    const source = server('')
      .replace('  if (msg.id === undefined) return;', '  if (msg.id === undefined) { for (const m of held.splice(0)) send(m); return; }')
      .replace("  send({ id: msg.id, error: { code: -32601, message: 'Method not found' } });", "  held.push({ id: msg.id, error: { code: -32601, message: 'Method not found' } });")
      .replace('const send =', 'const held = [];\nconst send =');
    const dir = await makeServer(source);
    const result = await verifyWithin(dir, 60_000);
    expect(result).not.toBe('hung');
    const checked = result as Extract<VerifyResult, { kind: 'checked' }>;
    expect(checked.kind).toBe('checked');
    expect(checked.results.find((r) => r.rule === 'reply-to-notification')).toMatchObject({ ok: true });
  }, 90_000);
});

describe('replies written without their newline', () => {
  // answers each request line with `write(JSON.stringify(reply))` (no newline), or with the newline in a
  // second write a moment later
  const answering = (tail: string, indent = ''): string => `
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const msg = JSON.parse(line);
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { echoed: msg.method } }${indent}));
  ${tail}
});
`;

  /** Asks `first`, then `second`, each once the answer before came; returns the connection, closed. */
  async function askTwice(dir: string): Promise<ServerConnection> {
    const connection = new ServerConnection({ command: process.execPath, args: ['server.js'], cwd: dir, env: process.env, framing: 'ndjson' });
    connection.send({ jsonrpc: '2.0', id: 1, method: 'first' });
    const first = await connection.waitFor(0, (m) => m.id === 1, 5_000);
    connection.send({ jsonrpc: '2.0', id: 2, method: 'second' });
    const second = await connection.waitFor(0, (m) => m.id === 2, 5_000);
    await connection.close();
    expect(first).toMatchObject({ result: { echoed: 'first' } });
    expect(second).toMatchObject({ result: { echoed: 'second' } });
    return connection;
  }

  it('are read after a quiet moment, each counted as stdout a client cannot read', async () => {
    const connection = await askTwice(await makeServer(answering('')));
    expect(connection.strayCount).toBe(2);
    expect(connection.strayOutput[0]).toMatch(/^\[a JSON message without its newline: \{"jsonrpc"/);
  });

  it('a message written over several lines without a newline after it (`JSON.stringify(reply, null, 2)`) is read whole after a quiet moment', async () => {
    const connection = await askTwice(await makeServer(answering('', ', null, 2')));
    // each message's lines are stdout a client cannot read
    expect(connection.strayOutput.filter((line) => line.startsWith('[a JSON message written over'))).toHaveLength(2);
  });

  it('a newline written right after the message is a normal line: nothing counted', async () => {
    const dir = await makeServer(answering("setTimeout(() => process.stdout.write('\\n'), 20);"));
    const connection = new ServerConnection({ command: process.execPath, args: ['server.js'], cwd: dir, env: process.env, framing: 'ndjson' });
    connection.send({ jsonrpc: '2.0', id: 1, method: 'first' });
    const first = await connection.waitFor(0, (m) => m.id === 1, 5_000);
    await connection.settle(400);
    await connection.close();
    expect(first).toMatchObject({ result: { echoed: 'first' } });
    expect(connection.strayCount).toBe(0);
    expect(connection.messages).toHaveLength(1);
  });

  it('splitJsonObjects takes back-to-back objects and nothing else', () => {
    expect(splitJsonObjects('{"a":1}{"b":"}{"} \t{"c":[{}]}')).toEqual(['{"a":1}', '{"b":"}{"}', '{"c":[{}]}']);
    expect(splitJsonObjects('{"a":1')).toBeNull(); // more may come
    expect(splitJsonObjects('{"a":1} log')).toBeNull();
    expect(splitJsonObjects('[1]')).toBeNull();
    expect(splitJsonObjects('{"a":1}}')).toBeNull();
  });
});

describe('the stdout decoder', () => {
  function decodeAll(framing: 'ndjson' | 'content-length', chunks: Buffer[], maxBodyBytes?: number): Decoded[] {
    const out: Decoded[] = [];
    const decoder = createDecoder(framing, (d) => out.push(d), { maxBodyBytes });
    for (const chunk of chunks) decoder.push(chunk);
    decoder.end();
    return out;
  }

  it('is linear: a 20 MB line in 16 kB chunks decodes in well under a second', () => {
    const chunk = Buffer.alloc(16 * 1024, 'a');
    const chunks: Buffer[] = Array.from({ length: 1280 }, () => chunk);
    const started = Date.now();
    const out = decodeAll('ndjson', [...chunks, Buffer.from('\n')]);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(out).toHaveLength(1);
    expect(out[0]!.text.length).toBe(1280 * 16 * 1024);
    const frame = Buffer.from(`Content-Length: ${1280 * 16 * 1024}\r\n\r\n`);
    const framed = decodeAll('content-length', [frame, ...chunks]);
    expect(framed).toEqual([{ kind: 'body', text: out[0]!.text }]);
  });

  it('a line or frame over the limit is skipped as it streams past (reported as stray), and what follows is read', () => {
    const chunks = [...Array.from({ length: 10 }, () => Buffer.alloc(1024, 'z')), Buffer.from('\n{"ok":1}\n')];
    expect(decodeAll('ndjson', chunks, 4096)).toEqual([
      { kind: 'stray', text: '[a line of 10240 bytes, over the 4096-byte limit; not read]' },
      { kind: 'body', text: '{"ok":1}' },
    ]);
    const framed = [Buffer.from('Content-Length: 10240\r\n\r\n'), ...chunks.slice(0, 10), Buffer.from('Content-Length: 8\r\n\r\n{"ok":1}')];
    expect(decodeAll('content-length', framed, 4096)).toEqual([
      { kind: 'stray', text: '[a frame of 10240 bytes, over the 4096-byte limit; not read]' },
      { kind: 'body', text: '{"ok":1}' },
    ]);
  });

  it('content-length: many frames in one chunk, and text outside frames that never ends, stay bounded', () => {
    const frames = Array.from({ length: 5_000 }, (_, i) => `Content-Length: ${String(i).length}\r\n\r\n${i}`).join('');
    expect(decodeAll('content-length', [Buffer.from(frames)]).map((d) => d.text)).toEqual(Array.from({ length: 5_000 }, (_, i) => String(i)));
    const noise = Array.from({ length: 100 }, () => Buffer.from(`${'log line '.repeat(100)}\n`));
    const out = decodeAll('content-length', [...noise, Buffer.from('Content-Length: 2\r\n\r\n{}')]);
    expect(out.filter((d) => d.kind === 'stray').length).toBeGreaterThan(0);
    expect(out.at(-1)).toEqual({ kind: 'body', text: '{}' });
    // A header split across chunks right where the noise is passed on is still a header.
    const split = decodeAll('content-length', [Buffer.from(`${'n'.repeat(70_000)}\nContent-Length: 2\r\n\r`), Buffer.from('\n{}')]);
    expect(split.at(-1)).toEqual({ kind: 'body', text: '{}' });
  });
});
