// The envelope rewrite on every other shape of the corpus (01-10). Detection sends these servers to
// the SDK rewrite, so this test forces the envelope on them: it proves the rewrite on readline,
// 'data' and for-await loops, writer functions, methods, inline and console.log writes, ESM, CJS
// and TypeScript. Each migrated server must answer the replay as its original did (except for the
// compliance bugs the envelope fixes), pass the envelope probes and work with the SDK Client.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { copyCase, expectCompliant, getOutcome, migrateCase, readCase, type Migrated } from './harness.js';
import { RawClient, replayCase, type CaseFile, type Exchange } from './raw-client.js';

interface Shape {
  name: string;
  server: string;
  /** A bug the envelope cannot fix because the server drops the message before writing anything. */
  limits?: { unknownMethod?: string; idZero?: string };
  /** Replayed answers the envelope changes on purpose: exchange -> what the migrated server answers. */
  changed?: (exchange: Exchange) => unknown;
  typecheck?: boolean;
}

const SHAPES: Shape[] = [
  { name: '01-cjs-readline-bare-ifs', server: 'server.js', limits: { unknownMethod: 'no branch matches an unknown method, so nothing is written to fix' } },
  { name: '02-esm-data-buffer-switch', server: 'index.mjs' },
  { name: '03-esm-handler-map', server: 'server.js' },
  { name: '04-ts-esm-class-dispatch', server: 'src/index.ts', typecheck: true },
  { name: '05-ts-cjs-ifelse', server: 'src/server.ts', typecheck: true, limits: { idZero: '`if (!msg.id) return` drops id 0 before anything is written' } },
  {
    name: '06-console-log-noise',
    server: 'server.js',
    // `{ error: "Unknown tool" }` becomes a standard error object that keeps the message
    changed: (e) => ((e.params as { name?: string } | undefined)?.name === 'reorder_item' ? { error: { code: -32602, message: 'Unknown tool' } } : undefined),
  },
  { name: '07-resources-prompts', server: 'src/index.js' },
  { name: '08-no-jsonrpc-field', server: 'main.js' },
  { name: '09-register-tool-registry', server: 'lib/mcp-lite.js' },
  { name: '10-custom-method-db-stats', server: 'bin/shopdb-mcp.mjs' },
];

const scratch = mkdtempSync(join(tmpdir(), 'envelope-corpus-'));
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

describe.each(SHAPES)('envelope forced on $name', (shape) => {
  const spec = readCase(shape.name);
  let migrated: Migrated;
  let original: Exchange[];

  beforeAll(async () => {
    migrated = migrateCase(shape.name, scratch, shape.server, 'COMPUTED_DISPATCH');
    const client = new RawClient(spec.run, copyCase(shape.name, scratch), spec.framing, spec.env);
    try {
      original = await replayCase(client, spec);
    } finally {
      await client.stop();
    }
  });

  it('is not an envelope case for detection (the SDK rewrite takes it)', () => {
    expect(migrated.detected).toBeNull();
  });

  it('answers the replay as the original did', async () => {
    const client = start(migrated.dir, spec);
    const exchanges = await replayCase(client, spec);
    exchanges.forEach((exchange, i) => {
      const expected = shape.changed?.(exchange) ?? getOutcome(original[i]!.response);
      expect(exchange.response.id).toBe(i + 1);
      expect(getOutcome(exchange.response), `${exchange.method} ${JSON.stringify(exchange.params)}`).toEqual(expected);
      expectCompliant(exchange.response);
    });
    const last = await client.request('last', 'ping');
    expect(client.messages.filter((m) => m !== last)).toHaveLength(exchanges.length);
    expect(client.noise).toEqual([]);
  });

  it('passes the envelope probes', async () => {
    const client = start(migrated.dir, spec);
    expect(await client.request(1, 'ping')).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect((await client.request('s-1', 'tools/list')).id).toBe('s-1');
    if (shape.limits?.idZero === undefined) expect((await client.request(0, 'tools/list')).id).toBe(0);
    if (shape.limits?.unknownMethod === undefined) {
      expect(await client.request(2, 'no/such/method')).toMatchObject({ jsonrpc: '2.0', id: 2, error: { code: -32601 } });
    }
    const before = client.messages.length;
    client.notify('notifications/initialized');
    client.notify('notifications/cancelled', { requestId: 1, reason: 'probe' });
    client.sendRaw('{not json');
    const after = await client.request(3, 'tools/list');
    expect(client.messages.slice(before)).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }, after]);
    expect(client.noise).toEqual([]);
    expect(client.alive).toBe(true);
  });

  it('works with the official SDK Client', async () => {
    if (shape.limits?.idZero !== undefined) return; // the SDK Client initializes with id 0
    const transport = new StdioClientTransport({
      command: spec.run[0]!,
      args: spec.run.slice(1),
      cwd: migrated.dir,
      env: { ...spec.env, PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    const sdk = new Client({ name: 'envelope-corpus', version: '1.0.0' });
    const errors: Error[] = [];
    sdk.onerror = (err) => errors.push(err);
    await sdk.connect(transport);
    try {
      const listed = original.find((e) => e.method === 'tools/list')!.response.result as { tools: unknown[] };
      expect((await sdk.listTools()).tools).toHaveLength(listed.tools.length);
      await sdk.ping();
    } finally {
      await sdk.close();
    }
    expect(errors).toEqual([]);
  });

  if (shape.typecheck) {
    it('still type-checks with its own tsconfig', () => {
      execFileSync(resolve('node_modules/.bin/tsc'), ['-p', migrated.dir, '--noEmit'], { encoding: 'utf8' });
    });
  }
});
