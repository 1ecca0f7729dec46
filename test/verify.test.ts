// `mcp-migrate verify` against real server processes: corpus originals (copied to a temp dir next to
// a node_modules link, as the e2e harness does), a migrated server, and small purpose-made servers
// for start-up failures and for servers that will not stop.
import { afterAll, beforeAll, describe, it, expect } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import type { VerifyReport } from '../src/cli/verify.js';
import { verifyServer } from '../src/verify/probe.js';
import { VERIFY_RULE_IDS } from '../src/verify/rules.js';
import { isGone, makeHarness, waitUntilGone } from './fixtures/cli/harness.js';
import { copyCase, removeAllCases } from './e2e/harness.js';

/** Short enough to keep the file quick (case 01 leaves four requests unanswered), long enough for a busy machine. */
const TIMEOUT = '2000';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function verify(args: string[], cwd: string): Promise<Run> {
  const h = makeHarness(cwd);
  const code = await main(['verify', ...args], h.deps);
  return { code, stdout: h.stdout(), stderr: h.stderr() };
}

/** Runs verify with --report json and returns the exit code, the report and the failing rules. */
async function verifyJson(args: string[], cwd: string): Promise<{ code: number; report: VerifyReport; failed: string[]; run: Run }> {
  const run = await verify(['--report', 'json', '--timeout', TIMEOUT, ...args], cwd);
  const report = JSON.parse(run.stdout) as VerifyReport;
  return { code: run.code, report, failed: report.results.filter((r) => !r.ok).map((r) => r.rule), run };
}

function detailOf(report: VerifyReport, rule: string): string {
  return report.results.find((r) => r.rule === rule)?.detail ?? '';
}



const scratch: string[] = [];
async function makeScratch(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mcp-migrate-verify-'));
  scratch.push(dir);
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
  return dir;
}

afterAll(async () => {
  await removeAllCases();
  await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe.concurrent('verify on corpus originals', () => {
  it('01: server/discover, ping, an unknown method and an unknown tool get no reply; bad JSON is dropped (allowed)', async () => {
    const dir = await copyCase('01-cjs-readline-bare-ifs');
    const { code, report, failed } = await verifyJson(['--', 'node', 'server.js'], dir);
    expect(code).toBe(1);
    expect(failed).toEqual(['pre-initialize-unanswered', 'ping-unanswered', 'unknown-method-unanswered', 'no-reply']);
    expect(detailOf(report, 'pre-initialize-unanswered')).toBe('server/discover sent before initialize: no reply');
    expect(detailOf(report, 'parse-error-unanswered')).toBe('bad JSON line dropped; the server kept serving (what the SDK transports do)');
    expect(detailOf(report, 'tool-call-crashed')).toBe('3 tool call(s) with valid arguments, none failed on an unbound name');
    expect(detailOf(report, 'ping-unanswered')).toBe(`ping: no reply within ${TIMEOUT} ms`);
    expect(detailOf(report, 'no-reply')).toContain('tools/call mcp_migrate_no_such_tool: no reply');
    expect(report).toMatchObject({ schemaVersion: 1, command: ['node', 'server.js'], framing: 'ndjson', ok: false, server: { name: 'unit-converter', version: '0.3.1' } });
    expect(report.results.map((r) => r.rule)).toEqual(VERIFY_RULE_IDS);
  });

  it('06: log lines on stdout, id 0 answered with null, a non-standard error, notifications answered', async () => {
    const dir = await copyCase('06-console-log-noise');
    const { code, report, failed } = await verifyJson(['node', 'server.js'], dir);
    expect(code).toBe(1);
    expect(failed).toEqual(['reply-to-notification', 'ping-unanswered', 'wrong-id', 'nonstandard-error', 'stdout-pollution']);
    // on an error (`id || null`) and on a result alike
    expect(detailOf(report, 'wrong-id')).toBe('mcp-migrate/no-such-method (id 0) answered with id null; tools/list (id 0) answered with id null');
    expect(detailOf(report, 'stdout-pollution')).toContain('the first: inventory-mcp starting, 6 SKUs loaded');
    expect(detailOf(report, 'nonstandard-error')).toContain('"Unknown tool"');
  });

  it('08: no "jsonrpc" on any reply, and replies to notifications', async () => {
    const dir = await copyCase('08-no-jsonrpc-field');
    const { code, report, failed } = await verifyJson(['node', 'main.js'], dir);
    expect(code).toBe(1);
    expect(failed).toEqual(['reply-to-notification', 'missing-jsonrpc']);
    expect(detailOf(report, 'missing-jsonrpc')).toMatch(/^(\d+) of \1 message\(s\) without "jsonrpc": "2.0"/);
  });

  it('11: initialize is answered only in its own framing (Content-Length)', async () => {
    const dir = await copyCase('11-content-length-framing');
    const ndjson = await verifyJson(['--timeout', '500', 'node', 'server.js'], dir);
    expect(ndjson.code).toBe(1);
    expect(ndjson.report.results.find((r) => r.rule === 'initialize-failed')).toEqual({
      rule: 'initialize-failed',
      ok: false,
      detail: 'initialize: no reply within 1500 ms (wrong --framing?)',
      spec: 'https://modelcontextprotocol.io/specification/2025-06-18/basic/lifecycle#initialization',
    });
    // Nothing past initialize can be measured; what the server wrote still is (nothing).
    expect(ndjson.report.results.filter((r) => r.skipped).map((r) => r.rule)).toEqual([
      'pre-initialize-unanswered',
      'reply-to-notification',
      'ping-unanswered',
      'wrong-id',
      'unknown-method-unanswered',
      'no-reply',
      'tool-call-crashed',
      'parse-error-unanswered',
    ]);

    const framed = await verifyJson(['--framing', 'content-length', 'node', 'server.js'], dir);
    expect(framed.code).toBe(1);
    expect(framed.failed).toEqual(['reply-to-notification', 'ping-unanswered']);
    expect(framed.report.framing).toBe('content-length');
  });

  it('13 (already on the SDK): passes; the bad JSON line it drops is what the protocol allows', async () => {
    const dir = await copyCase('13-already-sdk-mcpserver');
    const { failed, report } = await verifyJson(['node', 'server.js'], dir);
    expect(failed).toEqual([]);
    expect(detailOf(report, 'parse-error-unanswered')).toBe('bad JSON line dropped; the server kept serving (what the SDK transports do)');
    expect(detailOf(report, 'no-reply')).toContain('still serving after bad JSON');
  });

  it('prints one PASS/FAIL line per rule, with a hint under each failure, without color off a terminal', async () => {
    const dir = await copyCase('08-no-jsonrpc-field');
    const run = await verify(['--timeout', TIMEOUT, 'node', 'main.js'], dir);
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`Checked node main.js (ndjson, ${TIMEOUT} ms per reply): palette 0.2.0`);
    for (const rule of VERIFY_RULE_IDS) expect(lines.filter((line) => new RegExp(`^(PASS no|FAIL) ${rule} `).test(line))).toHaveLength(1);
    expect(run.stdout).toMatch(/^PASS no initialize-failed +initialize answered/m);
    expect(run.stdout).toMatch(/^FAIL missing-jsonrpc +(\d+) of \1 message\(s\)/m);
    expect(run.stdout).toContain('     hint: Put `jsonrpc: "2.0"` in every message the server writes.');
    expect(run.stdout).toContain('     spec: https://www.jsonrpc.org/specification#response_object');
    expect(run.stdout).toContain(`2 of ${VERIFY_RULE_IDS.length} rules fail: reply-to-notification, missing-jsonrpc\n`);
    expect(run.stdout).not.toContain('\x1b[');
    expect(run.stderr).toBe('');
  });

  it('colors the status on a terminal unless NO_COLOR is set', async () => {
    const dir = await copyCase('08-no-jsonrpc-field');
    const tty = (env: Record<string, string>): Promise<number> => {
      const h = makeHarness(dir, { env, stdout: { write: (text: string) => (out[JSON.stringify(env)] = (out[JSON.stringify(env)] ?? '') + text), isTTY: true } });
      return main(['verify', '--timeout', TIMEOUT, 'node', 'main.js'], h.deps);
    };
    const out: Record<string, string> = {};
    await Promise.all([tty({}), tty({ NO_COLOR: '1' })]);
    expect(out['{}']).toContain('\x1b[31mFAIL\x1b[39m missing-jsonrpc');
    expect(out['{"NO_COLOR":"1"}']).not.toContain('\x1b[');
  });
});

describe('verify on a migrated server', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await copyCase('01-cjs-readline-bare-ifs');
    // The real pipeline (no injected `process`), as `node bin/mcp-migrate.js --yes <dir>` would run it.
    const h = makeHarness(dir, { process: undefined });
    expect(await main(['--yes', dir], h.deps), h.stderr()).toBe(0);
    expect(await readFile(join(dir, 'server.js'), 'utf8')).toContain('serveStdio');
  });

  it('passes every probe (exit 0)', async () => {
    const { code, report, run } = await verifyJson(['--', 'node', 'server.js'], dir);
    expect(failedDetails(report), run.stderr).toEqual([]);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.results).toHaveLength(VERIFY_RULE_IDS.length);
  });

  it('says so in text', async () => {
    const run = await verify(['--timeout', TIMEOUT, 'node', 'server.js'], dir);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`All ${VERIFY_RULE_IDS.length} rules pass.\n`);
    expect(run.stdout).not.toMatch(/^FAIL/m);
  });
});

function failedDetails(report: VerifyReport): string[] {
  return report.results.filter((r) => !r.ok).map((r) => `${r.rule}: ${r.detail}`);
}

describe('verify: usage errors (exit 2)', () => {
  it.each([
    [['verify']],
    [['verify', '--']],
    [['verify', '--framing', 'xml', 'node', 'server.js']],
    [['verify', '--timeout', 'soon', '--', 'node', 'server.js']],
    [['verify', '--dry-run', 'node', 'server.js']],
  ])('%j', async (argv) => {
    const h = makeHarness(tmpdir());
    expect(await main(argv, h.deps)).toBe(2);
    expect(h.stderr()).toContain('Run "mcp-migrate verify --help" for usage.');
    expect(h.stdout()).toBe('');
  });

  it('verify --help prints the verify usage', async () => {
    const h = makeHarness(tmpdir());
    expect(await main(['verify', '--help'], h.deps)).toBe(0);
    expect(h.stdout()).toContain('Usage: mcp-migrate verify [options] -- <command> [args...]');
    expect(h.stdout()).toContain('--framing ndjson|content-length');
  });
});

describe('verify: the server cannot be started (exit 3)', () => {
  it('a command that does not exist', async () => {
    const run = await verify(['--', 'mcp-migrate-no-such-command-xyz', 'server.js'], tmpdir());
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('mcp-migrate verify: could not start mcp-migrate-no-such-command-xyz: no such command');
    expect(run.stdout).toBe('');
  });

  it('a server that exits before answering initialize, with the tail of its stderr', async () => {
    const dir = await makeScratch({ 'crash.js': "console.error('loading config');\nconsole.error('Error: missing API_KEY');\nprocess.exit(4);\n" });
    const run = await verify(['node', 'crash.js'], dir);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('the server exited with code 4 before answering initialize');
    expect(run.stderr).toContain('Its stderr ended with:\n  loading config\n  Error: missing API_KEY\n');
  });

  it('--report json still prints a report, with the error', async () => {
    const run = await verify(['--report', 'json', 'mcp-migrate-no-such-command-xyz'], tmpdir());
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({ schemaVersion: 1, ok: false, results: [], error: { message: expect.stringContaining('ENOENT') } });
  });
});

// Ignores the end of its stdin and SIGTERM, and starts a child of its own: only a SIGKILL to the
// whole process group stops it all. Writes both pids to the file named by argv[2].
const STUBBORN_SERVER = `
const { spawn } = require('node:child_process');
const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
require('node:fs').writeFileSync(process.argv[2], JSON.stringify({ server: process.pid, child: child.pid }));
process.on('SIGTERM', () => {});
setInterval(() => {}, 1000);
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  if (msg.id === undefined) return;
  const result = msg.method === 'initialize'
    ? { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'stubborn', version: '1.0.0' } }
    : {};
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }) + '\\n');
});
`;

describe.concurrent('verify leaves no process behind', () => {
  it('stops a corpus server once the probes are done', async () => {
    const dir = await copyCase('01-cjs-readline-bare-ifs');
    const result = await verifyServer({
      command: process.execPath,
      args: ['server.js'],
      cwd: dir,
      env: process.env,
      framing: 'ndjson',
      timeoutMs: 300,
      clientInfo: { name: 'test', version: '0' },
    });
    expect(result.kind).toBe('checked');
    expect(result.pid).toBeTypeOf('number');
    expect(isGone(result.pid as number)).toBe(true);
  });

  it('kills a server that ignores end of input and SIGTERM, and what it started', async () => {
    const dir = await makeScratch({ 'stubborn.js': STUBBORN_SERVER });
    const run = await verify(['--timeout', '300', 'node', 'stubborn.js', 'pids.json'], dir);
    expect(run.code).toBe(1); // answers every request with {}: -32601 and -32700 are missing
    const pids = JSON.parse(await readFile(join(dir, 'pids.json'), 'utf8')) as { server: number; child: number };
    expect(isGone(pids.server)).toBe(true);
    expect(await waitUntilGone(pids.child)).toBe(true);
  });

  it('stops the server when the run is interrupted', async () => {
    const dir = await makeScratch({ 'stubborn.js': STUBBORN_SERVER });
    const controller = new AbortController();
    const { runVerify } = await import('../src/cli/verify.js');
    let err = '';
    const started = Date.now();
    setTimeout(() => controller.abort(), 700);
    const code = await runVerify(
      { command: ['node', 'stubborn.js', 'pids.json'], framing: 'ndjson', timeoutMs: 60_000, report: null, compare: null, methods: [], baseline: null },
      { stdout: { write: () => true }, stderr: { write: (text: string) => (err += text) }, env: {}, cwd: dir, signal: controller.signal },
    );
    expect(code).toBe(130);
    expect(err).toContain('interrupted');
    expect(Date.now() - started).toBeLessThan(10_000);
    const pids = JSON.parse(await readFile(join(dir, 'pids.json'), 'utf8')) as { server: number; child: number };
    expect(isGone(pids.server)).toBe(true);
    expect(await waitUntilGone(pids.child)).toBe(true);
  });
});

describe('verify on something that is not an MCP server', () => {
  it('`verify -- cat` says it checked cat and that cat did not answer initialize, never that it was verified', async () => {
    const run = await verify(['--timeout', '200', '--', 'cat'], tmpdir());
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n')[0]).toBe('Checked cat (ndjson, 200 ms per reply)');
    expect(run.stdout).not.toContain('Verified');
    expect(run.stdout).toMatch(/^FAIL initialize-failed +initialize: no reply within 600 ms/m);
    expect(run.stdout).toContain('cat did not answer initialize as an MCP server: 2 of ');
  });
});
