// The hand-written expected outputs of __testfixtures__/envelope are programs too: each standalone
// one is started next to its helper and must answer initialize and ping, compliant, in its framing.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { buildHelperSource } from '../../src/rewrite/envelope/helper-source.js';
import { expectCompliant } from './harness.js';
import { RawClient, type Framing } from './raw-client.js';

const FIXTURES = resolve('__testfixtures__/envelope');
const scratch = mkdtempSync(join(tmpdir(), 'envelope-fixtures-run-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const clients: RawClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
});

const RUNNABLE: { file: string; framing: Framing; startup?: unknown }[] = [
  { file: 'content-length-switch.output.js', framing: 'content-length' },
  { file: 'content-length-unproven-reader.output.js', framing: 'content-length' },
  { file: 'keeps-comments-crlf.output.js', framing: 'ndjson' },
  { file: 'console-log-inline-writes.output.js', framing: 'ndjson' },
  { file: 'parse-without-try.output.js', framing: 'ndjson' },
  { file: 'for-await-async-handle.output.js', framing: 'ndjson' },
  { file: 'ignore-comment-no-marker.output.mjs', framing: 'ndjson' },
  {
    file: 'writer-declared-last.output.js',
    framing: 'ndjson',
    startup: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'starting' } },
  },
];

describe.each(RUNNABLE)('$file runs', ({ file, framing, startup }) => {
  it('answers initialize and ping, and nothing else', async () => {
    const dir = mkdtempSync(join(scratch, 'run-'));
    const server = join(dir, file.replace('.output', ''));
    copyFileSync(join(FIXTURES, file), server);
    if (file.endsWith('.mjs')) writeFileSync(join(dir, 'mcp-envelope.mjs'), buildHelperSource('esm'));
    else writeFileSync(join(dir, 'mcp-envelope.js'), buildHelperSource('cjs'));
    const client = new RawClient(['node', server], dir, framing);
    clients.push(client);
    const init = await client.request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    expect((init.result as { protocolVersion?: string }).protocolVersion).toMatch(/^\d{4}-\d\d-\d\d$/);
    client.notify('notifications/initialized');
    expect(await client.request(2, 'ping')).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    const expected = startup === undefined ? [init, { jsonrpc: '2.0', id: 2, result: {} }] : [startup, init, { jsonrpc: '2.0', id: 2, result: {} }];
    expect(client.messages).toEqual(expected);
    client.messages.filter((m) => 'id' in m).forEach(expectCompliant);
    expect(client.noise).toEqual([]);
  });
});
