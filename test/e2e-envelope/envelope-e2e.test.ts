// End to end for the envelope fallback on corpus cases 11 (Content-Length framing) and 12 (computed
// dispatch): the original and the migrated server are started as processes and replayed with a raw
// client in their own framing; the migrated one must answer every call as before, then pass the
// JSON-RPC envelope probes (ping, exact ids, -32601, silent notifications, -32700 and recovery).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseSource } from '../../src/parse.js';
import { rewriteEnvelope } from '../../src/rewrite/envelope/index.js';
import { expectCompliant, FIXTURES, getOutcome, migrateCase, readCase, type Migrated } from './harness.js';
import { RawClient, replayCase, type CaseFile, type Exchange } from './raw-client.js';

const scratch = mkdtempSync(join(tmpdir(), 'envelope-e2e-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const clients: RawClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
});

function start(dir: string, spec: CaseFile): RawClient {
  const client = new RawClient(spec.run, dir, spec.framing, spec.env);
  clients.push(client);
  return client;
}

const CASES = [
  { name: '11-content-length-framing', reason: 'CONTENT_LENGTH_FRAMING' },
  { name: '12-computed-dispatch', reason: 'COMPUTED_DISPATCH' },
] as const;

describe.each(CASES)('envelope end to end: $name', ({ name, reason }) => {
  const spec = readCase(name);
  let migrated: Migrated;
  let original: Exchange[];

  beforeAll(async () => {
    migrated = migrateCase(name, scratch, spec.run[1]!);
    const client = new RawClient(spec.run, join(FIXTURES, name), spec.framing, spec.env);
    try {
      original = await replayCase(client, spec);
    } finally {
      await client.stop();
    }
  });

  it(`is rewritten as ${reason}, keeping its framing, with the marker once`, () => {
    expect(migrated.detected).toBe(reason);
    expect(migrated.after.match(/mcp-migrate: envelope \(/g)).toHaveLength(1);
    expect(migrated.after).toContain(`// mcp-migrate: envelope (${reason}) -- `);
    expect(migrated.after).toMatch(/require\('\.\/mcp-envelope\.js'\)/);
    if (spec.framing === 'content-length') expect(migrated.after).toContain('process.stdout.write(`Content-Length: ${Buffer.byteLength(body, \'utf8\')}\\r\\n\\r\\n${body}`)');
  });

  it('answers every replayed call as the original did, and nothing else', async () => {
    const client = start(migrated.dir, spec);
    const exchanges = await replayCase(client, spec);
    expect(exchanges.map((e) => e.method)).toEqual(original.map((e) => e.method));
    exchanges.forEach((exchange, i) => {
      expect(exchange.response.id).toBe(i + 1);
      expect(getOutcome(exchange.response), `${exchange.method} #${i + 1}`).toEqual(getOutcome(original[i]!.response));
      expectCompliant(exchange.response);
    });
    // every call had an answer, at least one of them an error (the corpus guarantees it)
    expect(exchanges.some((e) => 'error' in e.response || (e.response.result as { isError?: boolean }).isError === true)).toBe(true);
    // no reply to notifications/initialized, no log lines
    const ping = await client.request('last', 'ping');
    expect(client.messages.filter((m) => m !== ping)).toHaveLength(exchanges.length);
    expect(client.noise).toEqual([]);
  });

  it('answers ping, echoes id 0 and string ids exactly, and answers unknown methods with -32601', async () => {
    const client = start(migrated.dir, spec);
    expect(await client.request(1, 'ping')).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const zero = await client.request(0, 'tools/list');
    expect(zero.id).toBe(0);
    expect(zero).toEqual({ ...original.find((e) => e.method === 'tools/list')!.response, id: 0 });
    const text = await client.request('req-ü-7', 'tools/list');
    expect(text.id).toBe('req-ü-7');
    const unknown = await client.request(2, 'does/not/exist');
    expect(unknown).toMatchObject({ jsonrpc: '2.0', id: 2, error: { code: -32601 } });
    expectCompliant(unknown);
  });

  it('never answers a notification', async () => {
    const client = start(migrated.dir, spec);
    await client.request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } });
    client.notify('notifications/initialized');
    client.notify('notifications/cancelled', { requestId: 1, reason: 'probe' });
    client.notify('tools/list');
    // the server handles messages in order: anything sent for the notifications comes before this answer
    const ping = await client.request(2, 'ping');
    expect(client.messages.map((m) => m.id)).toEqual([1, 2]);
    expect(ping.result).toEqual({});
  });

  it('answers bad JSON with -32700 and id null, then keeps serving', async () => {
    const client = start(migrated.dir, spec);
    client.sendRaw('{"jsonrpc": "2.0", "id": 5, "method": ');
    const next = await client.request(6, 'tools/list');
    expect(client.messages).toHaveLength(2);
    expect(client.messages[0]).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    expect(next.id).toBe(6);
    expect(client.alive).toBe(true);
  });

  if (spec.framing === 'content-length') {
    const call = { name: 'sum', arguments: { numbers: [1, 2] }, _meta: { note: 'café – ünïcödé ✓' } };

    it('counts a non-ASCII body in bytes, like the header does (the original counted UTF-16 characters)', async () => {
      const client = start(migrated.dir, spec);
      const answer = await client.request(1, 'tools/call', call);
      expect(answer).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '3' }] } });
      expect((await client.request(2, 'ping')).result).toEqual({});
      // a reply with non-ASCII text: the client reads bodies by byte count, so a wrong length would not parse
      const unknownTool = await client.request(3, 'tools/call', { name: 'café', arguments: {} });
      expect(unknownTool.error).toEqual({ code: -32602, message: 'Unknown tool: café' });
      expect(client.noise).toEqual([]);
    });

    it('(the original desynchronises on that body: the fix is the rewrite, not the test)', async () => {
      const client = start(join(FIXTURES, name), spec);
      client.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: call });
      client.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
      await expect(client.waitFor((m) => m.id === 1, 1500)).rejects.toThrow(/no matching message/);
    });
  }

  if (spec.framing === 'ndjson') {
    it('works with the official SDK Client, without protocol errors', async () => {
      const transport = new StdioClientTransport({ command: spec.run[0]!, args: spec.run.slice(1), cwd: migrated.dir, env: { ...spec.env, PATH: process.env.PATH ?? '' }, stderr: 'pipe' });
      const sdk = new Client({ name: 'envelope-e2e', version: '1.0.0' });
      const errors: Error[] = [];
      sdk.onerror = (err) => errors.push(err);
      await sdk.connect(transport);
      try {
        const { tools } = await sdk.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual([...new Set(spec.calls.map((c) => c.tool))].sort());
        for (const [i, c] of spec.calls.entries()) {
          const result = await sdk.callTool({ name: c.tool, arguments: c.arguments });
          const before = original.find((e, j) => e.method === 'tools/call' && j === i + 2)!;
          expect(result).toEqual(before.response.result);
        }
        await sdk.ping();
        await expect(sdk.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({ code: -32602 });
      } finally {
        await sdk.close();
      }
      expect(errors).toEqual([]);
    });
  }
});

describe('envelope end to end: the migrated files', () => {
  it('are rewritten once: a second run changes nothing', () => {
    for (const { name } of CASES) {
      const spec = readCase(name);
      const { file, after } = migrateCase(name, scratch, spec.run[1]!);
      const again = rewriteEnvelope(parseSource(file, after), after, file, 'CONTENT_LENGTH_FRAMING');
      expect(again).toEqual({ after, companions: [], fixes: [] });
      expect(readFileSync(join(dirname(file), 'mcp-envelope.js'), 'utf8')).toContain('function createEnvelope(write)');
    }
  });
});
