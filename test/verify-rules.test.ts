// The rules issue 9 added to `mcp-migrate verify`, each on a server that breaks it: tool calls that fail
// on an unbound name, an initialize result without protocolVersion, `id || null` on errors, bad JSON
// judged by the negotiated protocol version, a request before initialize, a server that crashes
// mid-way (started again so that the rest is measured), and --baseline.
import { afterAll, describe, it, expect } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../src/cli/main.js';
import type { VerifyReport } from '../src/cli/verify.js';
import { applyBaseline, parseBaseline } from '../src/verify/baseline.js';
import { judgeParseError } from '../src/verify/probe.js';
import { VERIFY_RULE_IDS } from '../src/verify/rules.js';
import { makeHarness } from './fixtures/cli/harness.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/verify/', import.meta.url));
const TIMEOUT = '1000';

const scratch: string[] = [];
afterAll(async () => {
  await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function makeScratch(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-migrate-verify-rules-'));
  scratch.push(dir);
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
  return dir;
}

async function verifyJson(args: string[], cwd = FIXTURES): Promise<{ code: number; report: VerifyReport; failed: string[]; detail: (rule: string) => string; stderr: string }> {
  const h = makeHarness(cwd);
  const code = await main(['verify', '--report', 'json', '--timeout', TIMEOUT, ...args], h.deps);
  const report = JSON.parse(h.stdout()) as VerifyReport;
  return {
    code,
    report,
    failed: report.results.filter((r) => !r.ok).map((r) => r.rule),
    detail: (rule) => report.results.find((r) => r.rule === rule)?.detail ?? '',
    stderr: h.stderr(),
  };
}

/**
 * A hand-rolled server compliant in everything but what `quirks` changes (CommonJS, in a scratch dir):
 * `before(msg)` may answer or crash first; `parseError` is what a bad line gets.
 */
function server(quirks: { protocolVersion?: string; before?: string; parseError?: string; tools?: string } = {}): string {
  return `
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
let initialized = false;
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { ${quirks.parseError ?? "return send({ id: null, error: { code: -32700, message: 'Parse error' } });"} }
  if (msg.id === undefined) return;
  ${quirks.before ?? ''}
  if (msg.method === 'initialize') {
    initialized = true;
    return send({ id: msg.id, result: { protocolVersion: '${quirks.protocolVersion ?? '2025-06-18'}', capabilities: { tools: {} }, serverInfo: { name: 't', version: '1' } } });
  }
  if (msg.method === 'ping') return send({ id: msg.id, result: {} });
  if (msg.method === 'tools/list') return send({ id: msg.id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }] } });
  if (msg.method === 'tools/call') {
    ${quirks.tools ?? ''}
    if (msg.params.name !== 'echo') return send({ id: msg.id, error: { code: -32602, message: 'Unknown tool' } });
    return send({ id: msg.id, result: { content: [{ type: 'text', text: String(msg.params.arguments.text) }] } });
  }
  send({ id: msg.id, error: { code: -32601, message: 'Method not found' } });
});
`;
}

describe.concurrent('verify rules on servers that break them', () => {
  it('fails a server whose every tool call throws ReferenceError (-32603 "params is not defined")', async () => {
    const { code, failed, detail } = await verifyJson(['node', 'broken-migrated.cjs']);
    expect(code).toBe(1);
    expect(failed).toEqual(['tool-call-crashed']);
    expect(detail('tool-call-crashed')).toBe('tools/call add answered error -32603 "params is not defined"; tools/call greet answered error -32603 "params is not defined"');
  });

  it('passes the honest migration of the same server', async () => {
    const { code, failed } = await verifyJson(['node', 'honest-migrated.cjs']);
    expect(failed).toEqual([]);
    expect(code).toBe(0);
  });

  it('fails an initialize result without protocolVersion', async () => {
    const { failed, detail } = await verifyJson(['node', 'honest.cjs', '--no-protocol-version']);
    expect(failed).toContain('initialize-failed');
    expect(detail('initialize-failed')).toMatch(/^the initialize result lacks protocolVersion: \{"capabilities"/);
  });

  it('checks ids on errors too: `id || null` answers id 0 with null', async () => {
    const { failed, detail } = await verifyJson(['node', 'honest.cjs', '--id-or-null']);
    expect(failed).toContain('wrong-id');
    expect(detail('wrong-id')).toBe('mcp-migrate/no-such-method (id 0) answered with id null');
    // the same server without the flag echoes every id
    const honest = await verifyJson(['node', 'honest.cjs']);
    expect(honest.failed).not.toContain('wrong-id');
    expect(honest.detail('wrong-id')).toBe('id 0 echoed on an error; id 0 echoed; id "mcp-migrate-verify-7" echoed; id "0" echoed; id 9007199254740991 echoed');
  });

  it('flags a tool call answered isError with a ReferenceError text', async () => {
    const dir = await makeScratch({ 's.js': server({ tools: "return send({ id: msg.id, result: { content: [{ type: 'text', text: 'ReferenceError: args is not defined' }], isError: true } });" }) });
    const { failed, detail } = await verifyJson(['node', 's.js'], dir);
    expect(failed).toEqual(['tool-call-crashed']);
    expect(detail('tool-call-crashed')).toBe('tools/call echo answered isError result "ReferenceError: args is not defined"');
  });

  it('-32700 without an id: allowed when 2025-11-25 is negotiated, not before', async () => {
    const noId = "return send({ error: { code: -32700, message: 'Parse error' } });";
    const [newer, older] = await Promise.all([
      makeScratch({ 's.js': server({ protocolVersion: '2025-11-25', parseError: noId }) }).then((dir) => verifyJson(['node', 's.js'], dir)),
      makeScratch({ 's.js': server({ parseError: noId }) }).then((dir) => verifyJson(['node', 's.js'], dir)),
    ]);
    expect(newer.failed).toEqual([]);
    expect(newer.detail('parse-error-unanswered')).toBe('bad JSON answered -32700 without an id (allowed from protocol 2025-11-25; 2025-11-25 negotiated)');
    expect(older.failed).toEqual(['parse-error-unanswered']);
    expect(older.detail('parse-error-unanswered')).toContain('allowed only from protocol 2025-11-25, and 2025-06-18 was negotiated');
  });

  it('a request answered twice fails duplicate-reply (a half envelope answering ping, then the server\'s own -32601)', async () => {
    const dir = await makeScratch({ 's.js': server({ before: "if (msg.method === 'ping') send({ id: msg.id, result: {} });" }).replace("if (msg.method === 'ping') return send", "if (msg.method === 'ping-never') return send") });
    const { failed, detail } = await verifyJson(['node', 's.js'], dir);
    expect(failed).toEqual(['duplicate-reply']);
    expect(detail('duplicate-reply')).toMatch(/^1 request id\(s\) answered more often than asked, e\.g\. id \S+: 1 request\(s\), 2 replies$/);
    const honest = await verifyJson(['node', 's.js'], await makeScratch({ 's.js': server() }));
    expect(honest.failed).toEqual([]);
    expect(honest.detail('duplicate-reply')).toMatch(/^\d+ request id\(s\), none answered more often than asked$/);
  });

  it('-32700: a server that dies on bad JSON fails', async () => {
    const dir = await makeScratch({ 's.js': server({ parseError: 'process.exit(2);' }) });
    const { failed, detail } = await verifyJson(['node', 's.js'], dir);
    expect(failed).toEqual(['no-reply', 'parse-error-unanswered']);
    expect(detail('parse-error-unanswered')).toBe('bad JSON line: no reply, and the server exited with code 2');
  });

  it('a request before initialize must be answered; a server that dies on it is still measured (started again without it)', async () => {
    const [silent, dying] = await Promise.all([
      makeScratch({ 's.js': server({ before: "if (!initialized && msg.method !== 'initialize') return;" }) }).then((dir) => verifyJson(['node', 's.js'], dir)),
      makeScratch({ 's.js': server({ before: "if (!initialized && msg.method !== 'initialize') process.exit(5);" }) }).then((dir) => verifyJson(['node', 's.js'], dir)),
    ]);
    expect(silent.failed).toEqual(['pre-initialize-unanswered']);
    expect(silent.detail('pre-initialize-unanswered')).toBe('server/discover sent before initialize: no reply');
    expect(dying.code).toBe(1);
    expect(dying.failed).toEqual(['pre-initialize-unanswered']);
    expect(dying.detail('pre-initialize-unanswered')).toBe('server/discover sent before initialize: the server exited with code 5 (without it, initialize is answered)');
  });

  it('a server that crashes on a tool call is started again, and the probes after it still run', async () => {
    const dir = await makeScratch({ 's.js': server({ tools: "if (msg.params.arguments.text === undefined) process.exit(3);" }) });
    const h = makeHarness(dir);
    const code = await main(['verify', '--timeout', TIMEOUT, 'node', 's.js'], h.deps);
    expect(code).toBe(1);
    expect(h.stdout()).toMatch(/^FAIL no-reply +tools\/call echo \(invalid: without required text\): no reply \(the server exited with code 3\)/m);
    expect(h.stdout()).toContain('note: the server exited with code 3 before ping; started it again');
    expect(h.stdout()).toMatch(/^PASS no ping-unanswered +ping answered \{\}/m);
  });

  it('every result names its spec', async () => {
    const { report } = await verifyJson(['node', 'honest-migrated.cjs']);
    expect(report.results.map((r) => r.rule)).toEqual(VERIFY_RULE_IDS);
    for (const r of report.results) expect(r.spec).toMatch(/^https:\/\//);
  });
});

describe.concurrent('verify --baseline', () => {
  it('expected failures pass the run; they are marked XFAIL', async () => {
    const dir = await makeScratch({ 'baseline.yml': '# honest.cjs predates ping\n- ping-unanswered\n- reply-to-notification\n' });
    const h = makeHarness(dir);
    const code = await main(['verify', '--timeout', TIMEOUT, '--baseline', 'baseline.yml', '--', 'node', join(FIXTURES, 'honest.cjs')], h.deps);
    expect(code, h.stdout()).toBe(0);
    expect(h.stdout()).toMatch(/^XFAIL ping-unanswered /m);
    expect(h.stdout()).toContain('2 expected failure(s) listed in baseline.yml: reply-to-notification, ping-unanswered');
    expect(h.stdout()).toContain('All 13 rules pass, or fail as the baseline expects.');
  });

  it('a listed rule that passes is stale, and fails the run; so does a failure not listed', async () => {
    const dir = await makeScratch({ 'baseline.yml': 'expected-failures:\n  - ping-unanswered\n  - stdout-pollution\n' });
    const { code, report } = await verifyJson(['--baseline', 'baseline.yml', '--', 'node', join(FIXTURES, 'honest.cjs')], dir);
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(report.baseline).toEqual({ file: 'baseline.yml', expectedFailures: ['ping-unanswered'], unexpectedFailures: ['reply-to-notification'], stale: ['stdout-pollution'] });
    expect(report.results.find((r) => r.rule === 'ping-unanswered')).toMatchObject({ ok: false, expected: true });
  });

  it('a baseline that is not a list of rule ids is a usage error', async () => {
    const dir = await makeScratch({ 'bad.yml': '- ping-unanswered\n- no-such-rule\n' });
    const h = makeHarness(dir);
    expect(await main(['verify', '--baseline', 'bad.yml', '--', 'node', 'x.js'], h.deps)).toBe(2);
    expect(h.stderr()).toContain('--baseline bad.yml "no-such-rule" is not a verify rule');
    const missing = makeHarness(dir);
    expect(await main(['verify', '--baseline', 'none.yml', '--', 'node', 'x.js'], missing.deps)).toBe(2);
    expect(missing.stderr()).toContain('--baseline none.yml cannot be read (ENOENT)');
  });
});

describe('baseline and parse-error verdicts (pure)', () => {
  it('parses a list, a keyed list, or nothing', () => {
    expect(parseBaseline('- wrong-id\n- wrong-id\n')).toEqual({ ok: true, rules: ['wrong-id'] });
    expect(parseBaseline('expected-failures: [ping-unanswered]')).toEqual({ ok: true, rules: ['ping-unanswered'] });
    expect(parseBaseline('')).toEqual({ ok: true, rules: [] });
    expect(parseBaseline('a: [')).toMatchObject({ ok: false, message: expect.stringContaining('is not valid YAML') });
    expect(parseBaseline('expected-failures: wrong-id')).toMatchObject({ ok: false });
  });

  it('a skipped rule neither fails a listed entry nor makes it stale', () => {
    const results = [
      { rule: 'wrong-id' as const, ok: false, detail: 'not checked', skipped: true as const },
      { rule: 'ping-unanswered' as const, ok: true, detail: 'ok' },
    ];
    expect(applyBaseline(results, ['wrong-id'])).toEqual({ expected: [], unexpected: [], stale: [], ok: true });
    expect(applyBaseline(results, [])).toEqual({ expected: [], unexpected: ['wrong-id'], stale: [], ok: false });
  });

  it.each([
    [null, '2025-06-18', null, true, true, 'bad JSON line dropped; the server kept serving (what the SDK transports do)'],
    [null, '2025-06-18', null, false, false, 'bad JSON line: no reply, and the server stopped answering'],
    [{ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }, '2024-11-05', null, true, true, 'bad JSON answered -32700 with id null'],
    [{ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } }, '2026-07-28', null, true, true, 'bad JSON answered -32700 without an id (allowed from protocol 2025-11-25; 2026-07-28 negotiated)'],
    [{ jsonrpc: '2.0', id: 0, error: { code: -32700, message: 'Parse error' } }, '2025-06-18', null, true, false, 'bad JSON answered -32700 with id 0 (expected id null, or no reply)'],
    [{ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid' } }, '2025-06-18', null, true, false, 'bad JSON answered error -32600 "Invalid" with id null'],
  ] as const)('%j at %s', (reply, version, exited, serving, ok, detail) => {
    expect(judgeParseError(reply === null ? null : { ...reply }, version, exited, serving)).toEqual({ ok, detail });
  });
});

describe('a reply written over several lines', () => {
  // a hand-rolled server that pretty-prints its replies: no NDJSON client reads them, but they are what
  // it answered, so verify reads each back whole (the comparison of a migration needs them) and counts
  // the lines as stdout pollution
  const PRETTY = [
    "const rl = require('node:readline').createInterface({ input: process.stdin });",
    "const send = (msg) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...msg }, null, 2) + '\\n');",
    "rl.on('line', (line) => {",
    '  let msg;',
    '  try { msg = JSON.parse(line); } catch { return; }',
    '  if (msg.id === undefined) return;',
    "  if (msg.method === 'initialize') send({ id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'pretty', version: '1.0.0' } } });",
    "  else if (msg.method === 'tools/list') send({ id: msg.id, result: { tools: [] } });",
    "  else send({ id: msg.id, error: { code: -32601, message: 'Method not found' } });",
    '});',
    '',
  ].join('\n');

  it('is read back as one message, and its lines are stdout pollution', async () => {
    const dir = await makeScratch({ 'pretty.cjs': PRETTY });
    const run = await verifyJson(['--', 'node', 'pretty.cjs'], dir);
    expect(run.detail('initialize-failed')).toBe('initialize answered by pretty 1.0.0 (protocol "2025-06-18")');
    expect(run.failed).toContain('stdout-pollution');
    expect(run.detail('stdout-pollution')).toMatch(/line\(s\) on stdout that are not JSON-RPC, the first: \[a JSON message written over \d+ lines: \{ "jsonrpc": "2\.0", "id": /);
    expect(run.failed).not.toContain('unknown-method-unanswered');
  });

  it('a line that opens an object and never closes it does not swallow the replies after it for ever', async () => {
    const opener = "process.stdout.write('{ \"log\": \"unterminated\\n');\n";
    const dir = await makeScratch({ 'opener.cjs': opener + PRETTY.replace('null, 2', 'null, 0') });
    const run = await verifyJson(['--', 'node', 'opener.cjs'], dir);
    // a reply on a line of its own ends what the unterminated line began: it is stray text, the reply is read
    expect(run.detail('initialize-failed')).toBe('initialize answered by pretty 1.0.0 (protocol "2025-06-18")');
    expect(run.detail('stdout-pollution')).toContain('the first: { "log": "unterminated');
  });
});
