// Issue 19, item 11: `verify` against servers built to exhaust it. An exploration has an overall limit
// (a server that never answers its 100 tools cost 100 waits, 605 s), a per-reply timeout too large for
// Node's timers is clamped instead of firing at once in a loop, and a daemon that double-forks out of
// the server's session and closes its stdio is stopped with the server.
import { afterAll, describe, it, expect } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { detach } from '../src/verify/connection.js';
import { compareServers } from '../src/verify/compare.js';
import { verifyServer, type VerifyResult } from '../src/verify/probe.js';
import { clampReplyTimeout, MAX_REPLY_TIMEOUT_MS } from '../src/verify/timeouts.js';
import { isGone, makeTree, removeTrees } from './fixtures/cli/harness.js';

afterAll(removeTrees);

/** A temp folder holding `server.js`. */
const makeServer = (source: string): Promise<string> => makeTree({ 'server.js': source });

/** Answers initialize (with tools) and tools/list (100 tools, each with a required argument); nothing else, ever. */
const SILENT_TOOLS = `
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
const tools = Array.from({ length: 1000 }, (_, i) => ({ name: 't' + i, inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } }));
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  let msg; try { msg = JSON.parse(line); } catch { return; }
  if (msg.method === 'initialize') return send({ id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } });
  if (msg.method === 'tools/list') return send({ id: msg.id, result: { tools } });
});
`;


const base = { command: process.execPath, args: ['server.js'], env: process.env, framing: 'ndjson' as const, clientInfo: { name: 'test', version: '0' } };

describe('verify is bounded', () => {
  it('an exploration stops at its overall limit and says so', async () => {
    const cwd = await makeServer(SILENT_TOOLS);
    const started = Date.now();
    const result = (await verifyServer({ ...base, cwd, timeoutMs: 400, totalMs: 3_000, calls: 'safe' })) as Extract<VerifyResult, { kind: 'checked' }>;
    expect(result.kind).toBe('checked');
    expect(Date.now() - started).toBeLessThan(12_000);
    expect(result.contract.cutShort).toMatch(/stopped after 3 s/);
  }, 30_000);

  // Hangs on the first tools/call: from then on it reads its input and answers nothing, ever (a handler
  // that awaits a promise that never settles and holds a lock every later message waits for).
  const HANGS = `
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
const tools = [{ name: 'lookup', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }];
let stuck = false;
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  let msg; try { msg = JSON.parse(line); } catch { return; }
  if (stuck || msg.id === undefined) return;
  if (msg.method === 'initialize') return send({ id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {}, resources: {}, prompts: {} }, serverInfo: { name: 'h', version: '1' } } });
  if (msg.method === 'tools/list') return send({ id: msg.id, result: { tools } });
  if (msg.method === 'tools/call') { stuck = true; return; }
  send({ id: msg.id, error: { code: -32601, message: 'Method not found' } });
});
`;

  it('a server that stops answering is started again for the steps after it (as after a crash), and two servers stuck at the same request answer alike', async () => {
    const cwd = await makeServer(HANGS);
    const result = (await verifyServer({ ...base, cwd, timeoutMs: 300, calls: 'safe' })) as Extract<VerifyResult, { kind: 'checked' }>;
    expect(result.kind).toBe('checked');
    expect(result.contract.cutShort).toBeUndefined();
    // hung by the call with its argument left out; ping went unanswered too, and so did prompts/list, which
    // it had answered before: the process is replaced by a new one for the probes after ping, which answers them
    expect(result.contract.stalled).toBe('the server stopped answering at ping (nor did it answer prompts/list again): it was started again for the steps after it');
    expect(result.contract.restarts).toEqual(['the server stopped answering at ping before mcp-migrate/no-such-method; started it again']);
    const detail = (rule: string): string => result.results.filter((r) => r.rule === rule).map((r) => r.detail).join('; ');
    expect(detail('ping-unanswered')).toBe('ping: no reply within 300 ms');
    expect(detail('unknown-method-unanswered')).toBe('unknown method answered error -32601 "Method not found"');
    expect(result.contract.exchanges.map((e) => `${e.key} ${e.outcome.kind}`)).toEqual(['tools/list result', 'resources/list error', 'prompts/list error', 'tools/call lookup (invalid: without required q) no-reply']);

    const other = await makeServer(HANGS);
    const compared = await compareServers({ original: { ...base, cwd, timeoutMs: 300, calls: 'safe' }, migrated: { ...base, cwd: other, timeoutMs: 300, calls: 'safe' } });
    expect(compared).toMatchObject({ kind: 'compared', equal: true });
    expect(compared.kind === 'compared' ? compared.notes.filter((n) => n.includes('stopped answering')) : []).toHaveLength(2);
  }, 30_000);

  it('a migrated server that gets stuck in a tool body the original was never asked (its listing came back under a wrong id) answers the steps after it like the original', async () => {
    // the original answers tools/list with the id as a string: the probe never learns its tools, calls none,
    // and it never gets stuck; the migration fixes the id, so the migrated one is called and hangs
    const original = await makeServer(HANGS.replace("return send({ id: msg.id, result: { tools } })", "return send({ id: String(msg.id), result: { tools } })"));
    const migrated = await makeServer(HANGS);
    const compared = await compareServers({ original: { ...base, cwd: original, timeoutMs: 300, calls: 'safe' }, migrated: { ...base, cwd: migrated, timeoutMs: 300, calls: 'safe' } });
    // (neither answers ping with a result: the original's -32601 and the stuck server's silence both break that rule)
    expect(compared).toMatchObject({ kind: 'compared', equal: true });
    expect(compared.kind === 'compared' ? compared.migrated.contract.restarts : null).toEqual(['the server stopped answering at ping before mcp-migrate/no-such-method; started it again']);
    expect(compared.kind === 'compared' ? compared.original.contract.restarts : null).toEqual([]);
  }, 30_000);

  it('with syncUnanswered (the proof), a request still unanswered when a listing sent after it comes back is not waited for; without it (verify, a measurement taken again) a slow answer is still seen', async () => {
    // ping answered after 700 ms, everything else at once
    const cwd = await makeServer(`
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  let msg; try { msg = JSON.parse(line); } catch { return; }
  if (msg.id === undefined) return;
  if (msg.method === 'initialize') return send({ id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'p', version: '1' } } });
  if (msg.method === 'tools/list') return send({ id: msg.id, result: { tools: [] } });
  if (msg.method === 'ping') return setTimeout(() => send({ id: msg.id, result: {} }), 700);
  send({ id: msg.id, error: { code: -32601, message: 'Method not found' } });
});
`);
    const detail = (result: VerifyResult): string => (result.kind === 'checked' ? result.results.filter((r) => r.rule === 'ping-unanswered').map((r) => `${r.ok} ${r.detail}`).join('; ') : result.kind);
    const quick = await verifyServer({ ...base, cwd, timeoutMs: 2_000, calls: 'safe', syncUnanswered: true });
    expect(detail(quick)).toBe('false ping: no reply (a request sent after it was answered first)');
    const waiting = await verifyServer({ ...base, cwd, timeoutMs: 2_000, calls: 'safe' });
    expect(detail(waiting)).toMatch(/^true /);
  }, 30_000);

  it('a per-reply timeout beyond what timers hold is clamped, not fired at once', async () => {
    expect(clampReplyTimeout(1_000_000_000)).toBe(MAX_REPLY_TIMEOUT_MS);
    expect(clampReplyTimeout(Number.NaN)).toBe(1);
    const cwd = await makeServer(SILENT_TOOLS);
    const started = Date.now();
    const result = (await verifyServer({ ...base, cwd, timeoutMs: 1_000_000_000, totalMs: 2_000, calls: 'safe' })) as Extract<VerifyResult, { kind: 'checked' }>;
    // the first unanswered request waits out the overall limit (a timer that overflowed would return at once)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(result.contract.cutShort).toBeDefined();
  }, 30_000);

  it.runIf(process.platform === 'linux')('a daemon that double-forks into a session of its own, stdio closed, is stopped too', async () => {
    const cwd = await makeServer(`
const { spawn } = require('node:child_process');
// fork 1 (detached: setsid) forks the daemon (detached again: a session of its own), then exits
const daemon = "require('node:fs').writeFileSync('daemon.pid', String(process.pid)); setInterval(() => {}, 1000);";
const middle = "const c = require('node:child_process').spawn(process.execPath, ['-e', " + JSON.stringify(daemon) + "], { detached: true, stdio: 'ignore' }); c.unref(); process.exit(0);";
spawn(process.execPath, ['-e', middle], { detached: true, stdio: 'ignore' }).unref();
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  let msg; try { msg = JSON.parse(line); } catch { return; }
  if (msg.id === undefined) return;
  if (msg.method === 'initialize') return setTimeout(() => send({ id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'd', version: '1' } } }), 500);
  send({ id: msg.id, error: { code: -32601, message: 'Method not found' } });
});
process.stdin.on('end', () => process.exit(0));
`);
    const result = await verifyServer({ ...base, cwd, timeoutMs: 1_000 });
    expect(result.kind).toBe('checked');
    const pid = Number(await readFile(join(cwd, 'daemon.pid'), 'utf8'));
    const deadline = Date.now() + 3_000;
    while (!isGone(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const gone = isGone(pid);
    if (!gone) process.kill(pid, 'SIGKILL');
    expect(gone).toBe(true);
  }, 30_000);

  it('stray text is kept as a copy, not a slice of the whole line', () => {
    const copy = detach('abc'.repeat(10).slice(0, 5));
    expect(copy).toBe('abcab');
  });
});
