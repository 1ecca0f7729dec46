// The envelope helper module itself (the companion file mcp-envelope.*), in all three module systems:
// the same behaviour suite runs against the CJS, ESM and TypeScript text (each loaded from a temp dir;
// vitest strips the TypeScript types), and the TypeScript text must type-check under strict settings
// in ESM and CommonJS projects. One test per promise of the HEADER contract in helper-source.ts.
//
// Output is captured through the helper's `output` / `errorOutput` options (a separate envelope per
// test); the default sinks and the one-per-process singleton are checked with process.stdout.write /
// process.stderr.write replaced for the test. Messages reach the envelope as they reach a server:
// lines from a stdin stand-in read by readline, each chunk in its own callback, so parse() opens its
// request scopes in the same async contexts a real server gives it.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { buildHelperSource, getHelperModule, type HelperKind } from '../src/rewrite/envelope/helper-source.js';

type Framing = 'ndjson' | 'content-length';
type Message = { [key: string]: unknown };
interface Envelope {
  parse(text: string | Buffer): Message;
  receive(text: string | Buffer): Message | undefined;
  send(message: unknown): void;
  write(chunk: string | Uint8Array, encoding?: unknown, callback?: unknown): boolean;
  log(...args: unknown[]): void;
}
interface EnvelopeOptions {
  framing?: Framing;
  methods?: string[];
  output?: (text: string) => unknown;
  errorOutput?: (text: string) => unknown;
}
type CreateEnvelope = (options?: EnvelopeOptions) => Envelope;

const STATE = Symbol.for('mcp-migrate.envelope');
const dir = mkdtempSync(join(tmpdir(), 'envelope-helper-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// the singleton lives on globalThis: no test sees the one another test made
afterEach(() => {
  delete (globalThis as { [STATE]?: unknown })[STATE];
});

const FILES: Record<HelperKind, string> = { cjs: 'mcp-envelope.cjs', esm: 'mcp-envelope.mjs', ts: 'mcp-envelope.ts' };
const loaded = new Map<HelperKind, Promise<CreateEnvelope>>();

function loadHelper(kind: HelperKind): Promise<CreateEnvelope> {
  let helper = loaded.get(kind);
  if (helper === undefined) {
    const file = join(dir, FILES[kind]);
    writeFileSync(file, buildHelperSource(kind));
    helper =
      kind === 'cjs'
        ? Promise.resolve((createRequire(import.meta.url)(file) as { createEnvelope: CreateEnvelope }).createEnvelope)
        : import(pathToFileURL(file).href).then((m: { createEnvelope: CreateEnvelope }) => m.createEnvelope);
    loaded.set(kind, helper);
  }
  return helper;
}

/** The messages in what the envelope wrote, checking the framing: one line each, or a byte-counted Content-Length frame each. */
function readFrames(chunks: string[], framing: Framing): Message[] {
  const messages: Message[] = [];
  for (const chunk of chunks) {
    if (framing === 'ndjson') {
      expect(chunk).toMatch(/^[^\n]+\n$/);
      messages.push(JSON.parse(chunk) as Message);
      continue;
    }
    const frame = /^Content-Length: (\d+)\r\n\r\n/.exec(chunk);
    expect(frame, chunk).not.toBeNull();
    const body = Buffer.from(chunk.slice(frame![0].length), 'utf8');
    expect(body.length).toBe(Number(frame![1]));
    messages.push(JSON.parse(body.toString('utf8')) as Message);
  }
  return messages;
}

interface Harness {
  envelope: Envelope;
  /** Every message written to "stdout", in order. */
  messages(): Message[];
  /** Everything written to "stderr". */
  stderr(): string;
  out: string[];
}

async function setup(kind: HelperKind, options: Omit<EnvelopeOptions, 'output' | 'errorOutput'> = {}): Promise<Harness> {
  const createEnvelope = await loadHelper(kind);
  const out: string[] = [];
  const err: string[] = [];
  const envelope = createEnvelope({ ...options, output: (text) => out.push(text), errorOutput: (text) => err.push(text) });
  return { envelope, out, messages: () => readFrames(out, options.framing ?? 'ndjson'), stderr: () => err.join('') };
}

/**
 * A stdin stand-in read by readline, the way most servers read: `onLine` is the server's 'line'
 * listener. `input(...)` sends lines as one chunk from a callback of its own (readline then emits them
 * one after the other in that callback), never from the test's own async context.
 */
function serve(onLine: (line: string) => void): (...lines: unknown[]) => Promise<void> {
  const stdin = new PassThrough();
  const rl = createInterface({ input: stdin });
  rl.on('line', onLine);
  cleanups.push(() => rl.close());
  return (...lines) =>
    new Promise((done) =>
      setImmediate(() => {
        stdin.write(lines.map((l) => `${typeof l === 'string' ? l : JSON.stringify(l)}\n`).join(''));
        setImmediate(done);
      }),
    );
}
const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const request = (id: unknown, method: string, params?: unknown): Message => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });

describe.each(['cjs', 'esm', 'ts'] as const)('envelope helper (%s)', (kind) => {
  it('adds jsonrpc and answers with the id of the request, whatever id the server wrote', async () => {
    const { envelope, messages } = await setup(kind);
    // the usual bugs: `id || null` (id 0), a stale or wrong id, no id, no jsonrpc
    const input = serve((line) => {
      const msg = envelope.parse(line);
      const written = { 0: msg.id || null, abc: 'wrong', 7: undefined, 'x-1': 'x-1' }[String(msg.id)];
      envelope.write(`${JSON.stringify({ id: written, result: { for: msg.id } })}\n`);
    });
    await input(request(0, 'tools/list'), request('abc', 'tools/list'), request(7, 'tools/list'), request('x-1', 'tools/list'));
    expect(messages()).toEqual([
      { jsonrpc: '2.0', id: 0, result: { for: 0 } },
      { jsonrpc: '2.0', id: 'abc', result: { for: 'abc' } },
      { jsonrpc: '2.0', id: 7, result: { for: 7 } },
      { jsonrpc: '2.0', id: 'x-1', result: { for: 'x-1' } },
    ]);
  });

  it('keeps the ids of async requests in flight apart, even when the server tracks "the current id" in a variable', async () => {
    const { envelope, messages } = await setup(kind);
    let currentId: unknown;
    const input = serve((line) => {
      const msg = envelope.parse(line);
      currentId = msg.id;
      const delay = (msg.params as { ms: number }).ms;
      void (async () => {
        await sleep(delay);
        await Promise.resolve();
        // the bug: the id of the last request read, which is still waiting for its own answer
        envelope.write(`${JSON.stringify({ jsonrpc: '2.0', id: currentId, result: { slept: delay } })}\n`);
      })();
    });
    // one chunk: the three lines are parsed in the same callback
    await input(request(1, 'tools/call', { ms: 40 }), request(2, 'tools/call', { ms: 5 }), request(4, 'tools/call', { ms: 80 }));
    // and one in a later chunk, answered from a timer callback rather than a promise
    const later = serve((line) => {
      const msg = envelope.parse(line);
      setTimeout(() => envelope.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'stale', result: { timer: msg.id } })}\n`), 15);
    });
    await later(request(3, 'tools/call'));
    await vi.waitFor(() => expect(messages()).toHaveLength(4));
    await sleep(5);
    const byId = (a: Message, b: Message): number => String(a.id).localeCompare(String(b.id));
    expect(messages().sort(byId)).toEqual([
      { jsonrpc: '2.0', id: 1, result: { slept: 40 } },
      { jsonrpc: '2.0', id: 2, result: { slept: 5 } },
      { jsonrpc: '2.0', id: 3, result: { timer: 3 } },
      { jsonrpc: '2.0', id: 4, result: { slept: 80 } },
    ]);
  });

  it('answers a queued request by its id when the queue is drained from the callbacks of the first one', async () => {
    const { envelope, messages } = await setup(kind);
    const queue: Message[] = [];
    let busy = false;
    const drain = async (): Promise<void> => {
      busy = true;
      for (let msg = queue.shift(); msg !== undefined; msg = queue.shift()) {
        await sleep(5);
        envelope.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { method: msg.method } })}\n`);
      }
      busy = false;
    };
    const input = serve((line) => {
      queue.push(envelope.parse(line));
      if (!busy) void drain();
    });
    await input(request(1, 'a'), request(2, 'b'));
    await input(request(3, 'c'));
    await vi.waitFor(() => expect(messages()).toHaveLength(3));
    expect(messages()).toEqual([
      { jsonrpc: '2.0', id: 1, result: { method: 'a' } },
      { jsonrpc: '2.0', id: 2, result: { method: 'b' } },
      { jsonrpc: '2.0', id: 3, result: { method: 'c' } },
    ]);
  });

  it('never answers a notification, whatever the server writes for it', async () => {
    const { envelope, messages } = await setup(kind);
    const input = serve((line) => {
      const msg = envelope.parse(line);
      if (msg.method === 'ping') return; // the envelope answers ping
      // the common bug: every message gets a reply, notifications with id null or no id
      envelope.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id ?? null, result: {} })}\n`);
      envelope.write(`${JSON.stringify({ jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' } })}\n`);
      setTimeout(() => envelope.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, result: { late: true } })}\n`), 1);
    });
    await input({ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    await sleep(10);
    await input(request(9, 'ping'));
    expect(messages()).toEqual([{ jsonrpc: '2.0', id: 9, result: {} }]);
  });

  it('answers a request once: a second reply is dropped, a reply without result gets {}', async () => {
    const { envelope, messages } = await setup(kind);
    const input = serve((line) => {
      const msg = envelope.parse(line);
      if (msg.id === 1) {
        envelope.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { first: true } })}\n`);
        envelope.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'second' } })}\n`);
        setTimeout(() => envelope.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { third: true } })}\n`), 1);
      } else {
        envelope.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2 })}\n`);
      }
    });
    await input(request(1, 'tools/call'), request(2, 'tools/call'));
    await sleep(10);
    expect(messages()).toEqual([
      { jsonrpc: '2.0', id: 1, result: { first: true } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
  });

  it("lets the server's own notifications and requests through with jsonrpc, and never answers a client response", async () => {
    const { envelope, messages } = await setup(kind);
    const input = serve((line) => {
      const msg = envelope.parse(line);
      if (!('method' in msg)) return; // the client's answer to roots/list
      envelope.write(`${JSON.stringify({ method: 'notifications/progress', params: { progress: 1 } })}\n`);
      envelope.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'srv-1', method: 'roots/list' })}\n`);
      envelope.write(`${JSON.stringify({ id: msg.id, result: { done: true } })}\n`);
    });
    await input(request(4, 'tools/call'));
    await input({ jsonrpc: '2.0', id: 'srv-1', result: { roots: [] } });
    // a reply that echoes the method is still a reply
    const echo = serve((line) => {
      const msg = envelope.parse(line);
      envelope.write(`${JSON.stringify({ id: null, method: msg.method, result: { tools: [] } })}\n`);
    });
    await echo(request(5, 'tools/list'));
    expect(messages()).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } },
      { jsonrpc: '2.0', id: 'srv-1', method: 'roots/list' },
      { jsonrpc: '2.0', id: 4, result: { done: true } },
      { jsonrpc: '2.0', id: 5, result: { tools: [] } },
    ]);
  });

  it('keeps a reply written outside the handling of any message, made compliant', async () => {
    const { envelope, messages } = await setup(kind);
    envelope.send({ id: 4, error: 'late failure' });
    envelope.write(`${JSON.stringify({ jsonrpc: '1.0', id: 'x', result: 1 })}\n`);
    expect(messages()).toEqual([
      { jsonrpc: '2.0', id: 4, error: { code: -32603, message: 'late failure' } },
      { jsonrpc: '2.0', id: 'x', result: 1 },
    ]);
  });

  it('makes every error { code: integer, message: string }', async () => {
    const { envelope, messages } = await setup(kind);
    const errors: unknown[] = [
      'boom',
      { code: 'ENOENT', message: 'no file' },
      { code: 1.5 },
      { code: -32602 },
      { code: 12, message: 'custom', data: { a: 1 } },
      { code: -32000, message: 42 },
      { code: -32000, message: 'Database locked' },
      { code: -32602, message: 'Unknown tool: nope' },
      { code: -32603, message: 'Unknown tool: nope' },
    ];
    const input = serve((line) => {
      const msg = envelope.parse(line);
      envelope.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: errors[msg.id as number] })}\n`);
    });
    await input(...errors.map((_, i) => request(i, 'tools/call')));
    // an Error object handed to send() (the envelope's own API)
    const thrown = serve((line) => {
      envelope.parse(line);
      envelope.send({ error: new Error('thrown') });
    });
    await thrown(request('e', 'tools/call'));
    expect(messages().map((m) => m.error)).toEqual([
      { code: -32603, message: 'boom' },
      { code: -32603, message: 'no file' },
      { code: -32603, message: 'Internal error' },
      { code: -32602, message: 'Invalid params' },
      { code: 12, message: 'custom', data: { a: 1 } },
      { code: -32000, message: '42' },
      { code: -32000, message: 'Database locked' },
      { code: -32602, message: 'Unknown tool: nope' },
      // an unknown tool is not an unknown method: only the method wording changes the code
      { code: -32603, message: 'Unknown tool: nope' },
      { code: -32603, message: 'thrown' },
    ]);
  });

  it('turns a generic code on a message that says the method is unknown into -32601', async () => {
    const { envelope, messages } = await setup(kind);
    const errors: unknown[] = [
      { code: -32603, message: 'Method not found' },
      { code: -32000, message: 'Unknown method: x/y' },
      { code: -32600, message: 'Method x/y not found' },
      { code: -32099, message: "method 'x/y' is not supported" },
      'Unsupported method x/y',
      // not a generic code, or not about the method: kept
      { code: -32602, message: 'Unknown method: x/y' },
      { code: 1, message: 'Method not found' },
      { code: -32000, message: 'Method tools/call failed' },
    ];
    const input = serve((line) => {
      const msg = envelope.parse(line);
      envelope.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: errors[msg.id as number] })}\n`);
    });
    await input(...errors.map((_, i) => request(i, 'x/y')));
    expect(messages().map((m) => (m.error as { code: number }).code)).toEqual([-32601, -32601, -32601, -32601, -32601, -32602, 1, -32000]);
  });

  it('answers bad JSON with -32700 and id null, rethrows like JSON.parse, and drops the server answer to it', async () => {
    const { envelope, messages } = await setup(kind);
    const caught: unknown[] = [];
    const input = serve((line) => {
      let msg: Message;
      try {
        msg = envelope.parse(line);
      } catch (err) {
        caught.push(err);
        // the server's own parse-error reply, with the usual wrong id: the envelope already answered
        envelope.write(`${JSON.stringify({ jsonrpc: '2.0', id: 0, error: { code: -32700, message: 'bad' } })}\n`);
        return;
      }
      envelope.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: {} })}\n`);
    });
    await input('{"jsonrpc": "2.0", "id": 1, "method"', request(2, 'tools/list'));
    expect(messages()).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    expect(caught).toHaveLength(1);
    expect(caught[0]).toBeInstanceOf(SyntaxError);
    // the very error JSON.parse throws, so a server's catch that reads it still works
    expect((caught[0] as Error).message).toBe((() => {
      try {
        JSON.parse('{"jsonrpc": "2.0", "id": 1, "method"');
      } catch (err) {
        return (err as Error).message;
      }
      return '';
    })());
  });

  it('receive() answers bad input like parse() and returns undefined instead of throwing', async () => {
    const { envelope, messages } = await setup(kind);
    const received: unknown[] = [];
    const input = serve((line) => received.push(envelope.receive(line)));
    await input('not json', request(1, 'tools/list'), '[1,2]');
    expect(received).toEqual([undefined, request(1, 'tools/list'), undefined]);
    expect(messages()).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } },
    ]);
  });

  it('answers JSON that is not a request with -32600, keeping its id when it has a valid one', async () => {
    const { envelope, messages } = await setup(kind);
    const bad = ['null', '42', '"x"', '[]', '{"jsonrpc":"2.0","id":3,"method":5}', '{"jsonrpc":"2.0","id":{"a":1},"method":"x"}'];
    const input = serve((line) => expect(() => envelope.parse(line)).toThrow(SyntaxError));
    await input(...bad);
    expect(messages()).toEqual(bad.map((_, i) => ({ jsonrpc: '2.0', id: i === 4 ? 3 : null, error: { code: -32600, message: 'Invalid Request' } })));
  });

  it('answers ping with {} itself, before the server, and drops what the server writes for it', async () => {
    const { envelope, messages } = await setup(kind);
    const input = serve((line) => {
      const msg = envelope.parse(line);
      envelope.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `Unknown method: ${String(msg.method)}` } })}\n`);
    });
    await input(request('p', 'ping'), request(0, 'ping'));
    expect(messages()).toEqual([
      { jsonrpc: '2.0', id: 'p', result: {} },
      { jsonrpc: '2.0', id: 0, result: {} },
    ]);
  });

  it('answers an unknown method with -32601 when the methods are given, and only then', async () => {
    const unknown = async (methods?: string[]): Promise<Message[]> => {
      const { envelope, messages } = await setup(kind, methods === undefined ? {} : { methods });
      const input = serve((line) => {
        const msg = envelope.parse(line);
        // a server that answers everything, unknown methods with an empty result
        envelope.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { method: msg.method } })}\n`);
      });
      await input(request(1, 'tools/list'), request(2, 'does/not/exist'), { jsonrpc: '2.0', method: 'notifications/nope' });
      return messages();
    };
    expect(await unknown(['initialize', 'tools/list'])).toEqual([
      { jsonrpc: '2.0', id: 1, result: { method: 'tools/list' } },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
    ]);
    expect(await unknown()).toEqual([
      { jsonrpc: '2.0', id: 1, result: { method: 'tools/list' } },
      { jsonrpc: '2.0', id: 2, result: { method: 'does/not/exist' } },
    ]);
  });

  it('answers where the rewrite adds send() at the end of an unanswered request, once', async () => {
    const { envelope, messages } = await setup(kind);
    const input = serve((line) => {
      const msg = envelope.parse(line);
      if (msg.method === 'tools/list') envelope.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } })}\n`);
      envelope.send({ error: { code: -32601, message: 'Method not found' } });
    });
    await input(request(1, 'tools/list'), request(2, 'nope'), { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(messages()).toEqual([
      { jsonrpc: '2.0', id: 1, result: { tools: [] } },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
    ]);
  });

  it('reframes Content-Length by bytes, whatever the server counted, and reads frames split or joined across writes', async () => {
    const { envelope, out, messages } = await setup(kind, { framing: 'content-length' });
    const frame = (body: string): string => `Content-Length: ${body.length}\r\n\r\n${body}`; // the bug: UTF-16 units
    const input = serve((line) => {
      const msg = envelope.parse(line);
      const body = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: 'café ✓ 𝄞' }] } });
      if (msg.id === 1) envelope.write(frame(body));
      if (msg.id === 2) {
        // header and body in separate writes, the body cut inside a string
        envelope.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`);
        envelope.write(body.slice(0, 40));
        envelope.write(body.slice(40));
      }
      if (msg.id === 3) {
        // a notification and the reply in one write, as Buffers
        envelope.write(Buffer.from(frame('{"method":"notifications/message","params":{"data":"ü"}}') + frame(body)));
      }
    });
    await input(request(1, 'tools/call'), request(2, 'tools/call'), request(3, 'tools/call'));
    const result = { content: [{ type: 'text', text: 'café ✓ 𝄞' }] };
    expect(messages()).toEqual([
      { jsonrpc: '2.0', id: 1, result },
      { jsonrpc: '2.0', id: 2, result },
      { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'ü' } },
      { jsonrpc: '2.0', id: 3, result },
    ]);
    // readFrames checked each length against the bytes; the server's character count was shorter
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, result });
    expect(out[0]).toBe(`Content-Length: ${Buffer.byteLength(body, 'utf8')}\r\n\r\n${body}`);
    expect(Buffer.byteLength(body, 'utf8')).toBeGreaterThan(body.length);
  });

  it('a Content-Length server that answers a line-framed client without headers keeps answering it in lines', async () => {
    const { envelope, out } = await setup(kind, { framing: 'content-length' });
    // the server mirrors each client's framing: its reply to a line-framed request has no header
    const input = serve((line) => {
      const msg = envelope.parse(line);
      const body = JSON.stringify({ id: msg.id, result: { ok: msg.id } });
      envelope.write(msg.id === 1 ? `Content-Length: ${body.length}\r\n\r\n${body}` : `${body}\n`);
    });
    await input(request(1, 'tools/list'), request(2, 'tools/list'));
    expect(out.filter((t) => t !== '')).toEqual([
      `Content-Length: ${Buffer.byteLength('{"jsonrpc":"2.0","id":1,"result":{"ok":1}}')}\r\n\r\n{"jsonrpc":"2.0","id":1,"result":{"ok":1}}`,
      '{"jsonrpc":"2.0","id":2,"result":{"ok":2}}\n',
    ]);
  });

  it('sends text that is not a message to stderr, in both framings, and keeps the protocol clean', async () => {
    for (const framing of ['ndjson', 'content-length'] as const) {
      const { envelope, messages, stderr } = await setup(kind, { framing });
      envelope.write('Server started on stdio\n');
      envelope.write(`${JSON.stringify({ status: 'ready', tools: 3 })}\n`); // JSON, but no JSON-RPC message
      envelope.log('loaded', 3, 'tools');
      const input = serve((line) => {
        const msg = envelope.parse(line);
        envelope.write(`handling ${String(msg.method)}\n`);
        const body = JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: {} });
        envelope.write(framing === 'ndjson' ? `${body}\n` : `Content-Length: ${body.length}\r\n\r\n${body}`);
      });
      await input(request(1, 'tools/list'));
      expect(messages(), framing).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
      expect(stderr(), framing).toBe('Server started on stdio\n{"status":"ready","tools":3}\nloaded 3 tools\nhandling tools/list\n');
    }
  });

  it('sends a reply serialised over several lines (pretty-printed) as one message on one line', async () => {
    const { envelope, messages, out, stderr } = await setup(kind);
    const input = serve((line) => {
      const msg = envelope.parse(line);
      const reply = { jsonrpc: '2.0', id: msg.id, result: { text: 'a }\n{ "b": [1]', items: [1, { deep: true }] } };
      if (msg.id === 1) envelope.write(`${JSON.stringify(reply, null, 2)}\n`);
      if (msg.id === 2) {
        envelope.write(JSON.stringify(reply, null, 4)); // the newline in a write of its own
        envelope.write('\n');
      }
      if (msg.id === 3) envelope.log(JSON.stringify(reply, null, '\t'));
    });
    await input(request(1, 'tools/list'), request(2, 'tools/list'), request(3, 'tools/list'));
    const result = { text: 'a }\n{ "b": [1]', items: [1, { deep: true }] };
    expect(messages()).toEqual([1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, result })));
    expect(out.every((chunk) => chunk.indexOf('\n') === chunk.length - 1)).toBe(true);
    expect(stderr()).toBe('');
  });

  it('still reads line by line what is no complete JSON value: a log line that opens a brace, text after a value', async () => {
    const { envelope, messages, stderr } = await setup(kind);
    const input = serve((line) => {
      const msg = envelope.parse(line);
      envelope.write('{ unbalanced log line\n');
      envelope.write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: {} }, null, 2)}\n`);
      envelope.write('{"a":1} and then text\n');
    });
    await input(request(5, 'tools/list'));
    expect(messages()).toEqual([{ jsonrpc: '2.0', id: 5, result: {} }]);
    expect(stderr()).toBe('{ unbalanced log line\n{"a":1} and then text\n');
  });

  it('log() prints what console.log would, as a message when it is one, and never throws', async () => {
    const { envelope, messages, stderr } = await setup(kind);
    const note = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } };
    envelope.log(JSON.stringify(note));
    envelope.log(note); // console.log(object) printed util.inspect text no client can read
    envelope.log('%s', JSON.stringify({ ...note, params: { data: 'formatted' } }));
    const cyclic: Record<string, unknown> = { name: 'cfg' };
    cyclic.self = cyclic;
    expect(() => envelope.log(cyclic)).not.toThrow();
    envelope.log('failed:', new Error('boom'));
    envelope.log('%d items', 3);
    expect(messages()).toEqual([note, note, { ...note, params: { data: 'formatted' } }]);
    const lines = stderr();
    expect(lines).toContain("{ name: 'cfg', self: [Circular *1] }");
    expect(lines).toContain('failed: Error: boom');
    expect(lines).toContain('3 items\n');
  });

  it('write() sends a message written without its newline at once, decodes characters split across Buffer chunks, and calls back after returning', async () => {
    const { envelope, messages, stderr } = await setup(kind);
    envelope.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/a' }));
    expect(messages()).toEqual([{ jsonrpc: '2.0', method: 'notifications/a' }]);
    envelope.write('\n'); // the newline that follows adds nothing
    const bytes = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/b', params: { text: 'é✓' } })}\n`);
    const cut = bytes.indexOf(Buffer.from('✓')) + 1;
    envelope.write(bytes.subarray(0, cut));
    envelope.write(bytes.subarray(cut));
    // a message cut in two plain writes is held until its line is complete
    envelope.write('{"jsonrpc":"2.0","method":');
    expect(messages()).toHaveLength(2);
    const order: string[] = [];
    const returned = envelope.write('"notifications/c"}\n', 'utf8', () => order.push('callback'));
    order.push('returned');
    expect(returned).toBe(true);
    await new Promise<void>((done) => envelope.write('', () => done()));
    expect(order).toEqual(['returned', 'callback']);
    expect(messages()).toEqual([
      { jsonrpc: '2.0', method: 'notifications/a' },
      { jsonrpc: '2.0', method: 'notifications/b', params: { text: 'é✓' } },
      { jsonrpc: '2.0', method: 'notifications/c' },
    ]);
    expect(stderr()).toBe('');
  });

  it('parse() reads a Buffer as UTF-8', async () => {
    const { envelope } = await setup(kind);
    const input = serve(() => undefined);
    await input();
    const msg = envelope.parse(Buffer.from(JSON.stringify(request(1, 'tools/call', { name: 'café' }))));
    expect((msg.params as { name: string }).name).toBe('café');
  });

  it('is one envelope per process, writing to process.stdout and process.stderr', async () => {
    const createEnvelope = await loadHelper(kind);
    const out: string[] = [];
    const err: string[] = [];
    const { write: stdoutWrite } = process.stdout;
    const { write: stderrWrite } = process.stderr;
    const capture =
      (into: string[]) =>
      (chunk: string | Uint8Array, encoding?: unknown, callback?: unknown): boolean => {
        into.push(String(chunk));
        const done = typeof encoding === 'function' ? encoding : callback;
        if (typeof done === 'function') process.nextTick(done as () => void);
        return true;
      };
    process.stdout.write = capture(out) as typeof process.stdout.write;
    process.stderr.write = capture(err) as typeof process.stderr.write;
    try {
      const first = createEnvelope({ framing: 'content-length', methods: ['tools/list'] });
      // a second module of the server: same envelope, the first options stay
      const second = createEnvelope({ framing: 'ndjson' });
      expect(second).toBe(first);
      second.write('not a message\n');
      const input = serve((line) => {
        const msg = second.parse(line);
        first.send({ id: msg.id, result: { tools: [] } });
      });
      await input(request(1, 'tools/list'), request(2, 'other'));
      await new Promise<void>((done) => first.write('', () => done()));
    } finally {
      process.stdout.write = stdoutWrite;
      process.stderr.write = stderrWrite;
    }
    expect(readFrames(out.filter((t) => t !== ''), 'content-length')).toEqual([
      { jsonrpc: '2.0', id: 1, result: { tools: [] } },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
    ]);
    expect(err.join('')).toBe('not a message\n');
  });
});

describe('envelope helper module', () => {
  it('is one envelope per process across module copies (CJS and ESM text of the same helper)', async () => {
    const [cjs, esm] = await Promise.all([loadHelper('cjs'), loadHelper('esm')]);
    const out: string[] = [];
    const { write } = process.stdout;
    process.stdout.write = ((chunk: string) => out.push(chunk) > 0) as typeof process.stdout.write;
    try {
      expect(esm()).toBe(cjs());
    } finally {
      process.stdout.write = write;
    }
  });

  it('is the same text for every server of a module system, and named after the server extension', () => {
    expect(getHelperModule('/p/src/server.js', 'cjs')).toEqual({ kind: 'cjs', path: '/p/src/mcp-envelope.js', specifier: './mcp-envelope.js' });
    expect(getHelperModule('/p/index.js', 'esm')).toEqual({ kind: 'esm', path: '/p/mcp-envelope.js', specifier: './mcp-envelope.js' });
    expect(getHelperModule('/p/a.mjs', 'cjs')).toEqual({ kind: 'esm', path: '/p/mcp-envelope.mjs', specifier: './mcp-envelope.mjs' });
    expect(getHelperModule('/p/a.cjs', 'esm')).toEqual({ kind: 'cjs', path: '/p/mcp-envelope.cjs', specifier: './mcp-envelope.cjs' });
    expect(getHelperModule('/p/src/index.ts', 'esm')).toEqual({ kind: 'ts', path: '/p/src/mcp-envelope.ts', specifier: './mcp-envelope.js' });
    expect(getHelperModule('/p/a.mts', 'esm')).toEqual({ kind: 'ts', path: '/p/mcp-envelope.mts', specifier: './mcp-envelope.mjs' });
    expect(getHelperModule('/p/a.cts', 'cjs')).toEqual({ kind: 'ts', path: '/p/mcp-envelope.cts', specifier: './mcp-envelope.cjs' });
    expect(buildHelperSource('cjs')).toBe(buildHelperSource('cjs'));
    expect(buildHelperSource('cjs')).toMatch(/\nmodule\.exports = \{ createEnvelope \};\n$/);
    expect(buildHelperSource('esm')).toContain('\nexport function createEnvelope(options = {}) {');
    expect(buildHelperSource('ts')).toContain('\nexport function createEnvelope(options: EnvelopeOptions = {}): Envelope {');
    for (const kind of ['cjs', 'esm', 'ts'] as const) expect(buildHelperSource(kind).startsWith('// mcp-envelope: written by mcp-migrate')).toBe(true);
  });

  // What the rewrite writes into a server: every call shape must type-check against the helper.
  const SERVER = [
    "import * as fs from 'node:fs';",
    "import { createEnvelope } from './mcp-envelope.js';",
    "const envelope = createEnvelope({ framing: 'content-length', methods: ['initialize', 'tools/list'] });",
    'interface Reply { jsonrpc: "2.0"; id: number | string | null; result?: unknown }',
    'function send(message: Reply): void { envelope.write(JSON.stringify(message) + "\\n"); }',
    'export function onLine(line: string): void {',
    '  let msg;',
    '  try {',
    '    msg = envelope.parse(line);',
    '  } catch {',
    '    return;',
    '  }',
    '  const other = envelope.receive(Buffer.from(line));',
    '  if (other === undefined) return;',
    '  send({ jsonrpc: "2.0", id: msg.id, result: other.params });',
    '  envelope.write(Buffer.from("x"), "utf8", () => undefined);',
    '  envelope.write("y", () => undefined);',
    '  fs.writeSync(2, "kept on stderr");',
    "  envelope.log('handled', msg.method);",
    "  envelope.send({ error: { code: -32601, message: 'Method not found' } });",
    '}',
    '',
  ].join('\n');
  const tsc = resolve('node_modules/.bin/tsc');
  const typeRoots = resolve('node_modules/@types');
  it.each([
    ['ESM (NodeNext, "type": "module")', 'ts', { module: 'NodeNext', moduleResolution: 'NodeNext' }, { type: 'module' }],
    ['CommonJS (Node16, no "type")', 'ts', { module: 'Node16', moduleResolution: 'Node16' }, {}],
    ['.mts next to a CommonJS package (NodeNext)', 'mts', { module: 'NodeNext', moduleResolution: 'NodeNext' }, {}],
    ['.cts next to an ESM package (NodeNext)', 'cts', { module: 'NodeNext', moduleResolution: 'NodeNext' }, { type: 'module' }],
  ])('the TypeScript text type-checks under strict settings: %s', async (_name, ext, moduleOptions, pkg) => {
    const project = mkdtempSync(join(dir, 'ts-'));
    const specifier = { ts: './mcp-envelope.js', mts: './mcp-envelope.mjs', cts: './mcp-envelope.cjs' }[ext]!;
    writeFileSync(join(project, 'package.json'), JSON.stringify(pkg));
    writeFileSync(join(project, `mcp-envelope.${ext}`), buildHelperSource('ts'));
    writeFileSync(join(project, `server.${ext}`), SERVER.replace("'./mcp-envelope.js'", `'${specifier}'`));
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          ...moduleOptions,
          target: 'ES2022',
          strict: true,
          noEmit: true,
          noUnusedLocals: true,
          noUnusedParameters: true,
          noImplicitReturns: true,
          noImplicitOverride: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          noPropertyAccessFromIndexSignature: true,
          useUnknownInCatchVariables: true,
          isolatedModules: true,
          typeRoots: [typeRoots],
          types: ['node'],
        },
        files: [`server.${ext}`, `mcp-envelope.${ext}`],
      }),
    );
    const result = await promisify(execFile)(tsc, ['-p', project], { encoding: 'utf8' }).catch((err: { stdout: string }) => ({ stdout: err.stdout, failed: true }));
    expect(result.stdout).toBe('');
  });
});
