// Detection: what each fixture server is, checked against what reading the file shows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectServer } from '../src/detect/server-model.js';
import { toModelSnapshot } from '../src/model/server-model.js';
import { parseSource } from '../src/parse.js';
import { processSource } from '../src/pipeline.js';
import { getFixtureCase } from './fixtures/fixture-cases.js';

const DIR = join(import.meta.dirname, '..', '__testfixtures__', 'mcp-migrate');

function detect(name: string) {
  const { input } = getFixtureCase(DIR, name);
  return detectServer(parseSource(input, readFileSync(input, 'utf8')));
}

function model(name: string): Record<string, unknown> {
  const detection = detect(name);
  if (detection.kind !== 'server') throw new Error(`${name}: ${JSON.stringify(detection)}`);
  return toModelSnapshot(detection.model);
}

describe('detectServer', () => {
  it.each([
    // file, input loop, dispatch, protocol, methods in dispatch order, fallback code
    ['readline-bare-ifs', 'readline-line', 'if-chain', 'write', ['initialize', 'tools/list', 'tools/call'], null],
    ['data-chunks-switch', 'stdin-data', 'switch', 'write', ['initialize', 'tools/list', 'tools/call'], -32601],
    ['handler-map-esm', 'readline-line', 'handler-map', 'return-result', ['initialize', 'tools/list', 'tools/call'], -32000],
    ['ts-class-then-dispatch', 'readline-line', 'switch', 'return-result', ['initialize', 'ping', 'tools/list', 'tools/call'], null],
    ['ts-cjs-assigned-response', 'readline-line', 'if-chain', 'assign-envelope', ['initialize', 'tools/list', 'tools/call'], -32601],
    ['console-log-writer', 'readline-line', 'if-chain', 'write', ['initialize', 'tools/list', 'tools/call'], -32601],
    ['for-await-returned-replies', 'readline-for-await', 'switch', 'return-envelope', ['initialize', 'notifications/initialized', 'ping', 'tools/list', 'tools/call'], -32601],
    ['custom-method-fallback', 'readline-line', 'if-chain', 'write', ['initialize', 'tools/list', 'tools/call', 'db/stats'], -32601],
    ['nested-registry-framework', 'readline-line', 'if-chain', 'write', ['initialize', 'tools/list', 'tools/call'], -32601],
    ['resources-prompts-switch', 'readline-line', 'switch', 'write', ['initialize', 'resources/list', 'resources/read', 'prompts/list', 'prompts/get', 'tools/list', 'tools/call'], -32601],
  ])('%s: %s loop, %s dispatch, %s replies', (file, input, dispatch, protocol, methods, fallback) => {
    const snapshot = model(file) as {
      input: { kind: string };
      dispatch: { kind: string; protocol: { kind: string } };
      methods: { method: string }[];
      fallback: { code: number | null } | null;
    };
    expect(snapshot.input.kind).toBe(input);
    expect(snapshot.dispatch.kind).toBe(dispatch);
    expect(snapshot.dispatch.protocol.kind).toBe(protocol);
    expect(snapshot.methods.map((m) => m.method)).toEqual(methods);
    expect(snapshot.fallback?.code ?? null).toBe(fallback);
  });

  it('records where each reply is and what it is', () => {
    const snapshot = model('readline-bare-ifs') as { methods: { method: string; replies: string[] }[]; initialize: Record<string, string | null> };
    // tools/call: the catch answers -32602 at line 128, the result is sent at line 132
    expect(snapshot.methods.find((m) => m.method === 'tools/call')!.replies).toEqual(['error@128', 'result@132']);
    expect(snapshot.initialize).toMatchObject({ serverInfo: 'line 58', capabilities: 'line 57', instructions: null });
  });

  it('knows the handler map answers errors with -32000 and the class maps RpcError codes itself', () => {
    expect((model('handler-map-esm').dispatch as { protocol: unknown }).protocol).toEqual({ kind: 'return-result', errorCode: -32000 });
    expect((model('ts-class-then-dispatch').dispatch as { protocol: unknown }).protocol).toEqual({ kind: 'return-result', errorCode: null });
  });

  it('sees notifications/initialized answered in the for-await server', () => {
    expect(model('for-await-returned-replies').notificationReplies).toEqual(['notifications/initialized']);
  });

  it('tells servers already on the SDK and non-MCP workers apart from hand-rolled servers', () => {
    expect(detect('already-on-sdk').kind).toBe('sdk-server');
    expect(detect('not-mcp-json-worker').kind).toBe('none');
  });

  it('reports a reply written from a callback instead of guessing', () => {
    const source = `
const readline = require('readline');
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'tools/list') {
    setTimeout(() => send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } }), 10);
  }
});`;
    const detection = detectServer(parseSource('late.js', source));
    expect(detection).toMatchObject({ kind: 'unsupported', reason: 'REPLY_IN_CALLBACK', line: 7 });
  });

  it('reports loop side effects instead of dropping them', () => {
    const source = `
const readline = require('readline');
let seen = 0;
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  seen += 1;
  if (msg.method === 'tools/list') send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
});`;
    expect(detectServer(parseSource('count.js', source))).toMatchObject({ kind: 'unsupported', reason: 'LOOP_SIDE_EFFECTS', line: 7 });
  });

  it('honours a mcp-migrate-ignore comment', () => {
    const source = `// mcp-migrate-ignore
const readline = require('readline');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'tools/list') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } }) + '\\n');
});`;
    expect(detectServer(parseSource('ignored.js', source))).toMatchObject({ kind: 'unsupported', reason: 'IGNORED' });
  });
});

describe('conservative matching', () => {
  it('does not trust a writer helper that is reassigned elsewhere', () => {
    const source = `
const readline = require('readline');
let send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
if (process.env.QUIET) send = () => {};
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'tools/list') send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
});`;
    const detection = detectServer(parseSource('reassigned.js', source));
    // send is not a proven writer, so tools/list has no reply the rewrite could turn into a return
    expect(detection.kind === 'server' ? detection.model.methods[0]!.replies : 'not a server').toEqual([]);
    expect(detection.kind === 'server' ? detection.model.writerNames : []).not.toContain('send');
    // and the pipeline leaves the file alone rather than half-migrating it
    const result = processSource('reassigned.js', source, { sdk: 'v1', style: 'server' });
    expect(result.after).toBeUndefined();
    expect(result.decision).toMatchObject({ kind: 'leave', reason: 'UNRESOLVED_WRITER', line: 3 });
  });
});
