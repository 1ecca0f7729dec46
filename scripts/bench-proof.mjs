#!/usr/bin/env node
// `npm run bench:proof`: what the proof costs per server, against the cost of starting that server.
//
//   node scripts/bench-proof.mjs [--reps 3] [CASE_DIR...]
//
// CASE_DIR: a folder holding a server and its case.json (`run`, `env`), as in ../shared/acceptance/ (the
// default when it exists) or test/fixtures/corpus/ (the default otherwise). For each case:
// 1. the baseline, measured in this run: the original server started as case.json says, until it answers
//    `initialize` (the median of --reps starts);
// 2. the proof: `mcp-migrate --dry-run --verify --report json` in a git copy of the case; each rewritten
//    server's own proof time comes from the report (`files[].proof.seconds`);
// 3. one line per server: its proof time, the baseline and their ratio.
// Then the medians for JavaScript and TypeScript servers and the longest, against the targets (issue 35:
// median <= 1 s per JavaScript server, <= 2 s per TypeScript server, none over 20 s). MISSED is printed;
// the exit code is non-zero only when a run failed. The servers' dependencies come from FIDELITY_DEPS
// (default /tmp/fidelity-deps, which ../shared/tools/setup-deps.sh installs), linked as node_modules.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './bench/measure.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(REPO, 'bin', 'mcp-migrate.js');
const DEPS_NM = join(resolve(process.env.FIDELITY_DEPS || '/tmp/fidelity-deps'), 'node_modules');
const TARGETS = { js: 1, ts: 2, max: 20 };
const START_LIMIT_MS = 30_000;

const args = process.argv.slice(2);
let reps = 3;
const dirs = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--reps') reps = Math.max(1, Number(args[++i]) || 1);
  else if (args[i] === '-h' || args[i] === '--help') {
    process.stdout.write(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1, 17).map((l) => l.replace(/^\/\/ ?/, '')).join('\n') + '\n');
    process.exit(0);
  } else dirs.push(resolve(args[i]));
}
if (dirs.length === 0) {
  const shared = join(REPO, '..', 'shared', 'acceptance');
  const base = existsSync(shared) ? shared : join(REPO, 'test', 'fixtures', 'corpus');
  for (const name of readdirSync(base).sort()) if (existsSync(join(base, name, 'case.json'))) dirs.push(join(base, name));
}
if (!existsSync(DEPS_NM)) {
  process.stderr.write(`bench-proof: ${DEPS_NM} is missing: run bash ../shared/tools/setup-deps.sh (or set FIDELITY_DEPS)\n`);
  process.exit(2);
}
if (!existsSync(join(REPO, 'dist'))) {
  process.stderr.write('bench-proof: dist/ is missing: npm run build first\n');
  process.exit(2);
}

/** A git copy of the case (its case.json left out), with the dependencies linked. */
function makeCopy(dir) {
  const work = mkdtempSync(join(tmpdir(), 'mcp-migrate-bench-proof-'));
  cpSync(dir, work, { recursive: true, filter: (src) => !src.endsWith('case.json') && !src.includes('node_modules') });
  symlinkSync(DEPS_NM, join(work, 'node_modules'), 'dir');
  const git = (...a) => spawnSync('git', ['-C', work, '-c', 'user.email=b@b', '-c', 'user.name=bench', '-c', 'commit.gpgsign=false', ...a], { stdio: 'ignore' });
  git('init', '-q');
  appendFileSync(join(work, '.git', 'info', 'exclude'), 'node_modules\n');
  git('add', '-A');
  git('commit', '-qm', 'case');
  return work;
}

/** Milliseconds from spawning the server to its first line on stdout after `initialize`; null when it did not answer. */
function timeStart(work, run, env) {
  const [command, ...rest] = run;
  const bin = command === 'node' ? process.execPath : existsSync(join(DEPS_NM, '.bin', command)) ? join(DEPS_NM, '.bin', command) : command;
  return new Promise((done) => {
    const started = performance.now();
    const child = spawn(bin, rest, { cwd: work, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'ignore'] });
    let settled = false;
    const finish = (ms) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      done(ms);
    };
    const timer = setTimeout(() => finish(null), START_LIMIT_MS);
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n') && /"id"\s*:\s*1\b/.test(out)) finish(performance.now() - started);
    });
    child.on('error', () => finish(null));
    child.on('exit', () => finish(null));
    child.stdin.on('error', () => undefined);
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } } }) + '\n');
  });
}

/** The median, or null for none. */
const medianOf = (values) => (values.length === 0 ? null : median(values));
const fmt = (seconds) => (seconds === null ? '—' : `${seconds.toFixed(2)} s`);

process.stdout.write(`bench-proof: ${dirs.length} case(s), ${reps} start(s) each for the baseline; load ${loadavg()[0].toFixed(2)}\n`);
process.stdout.write(`${'case / server'.padEnd(58)} ${'lang'.padEnd(4)} ${'start'.padStart(8)} ${'proof'.padStart(8)} ${'ratio'.padStart(7)}  verdict\n`);
const rows = [];
let failed = 0;
for (const dir of dirs) {
  const name = dir.split('/').pop();
  let spec;
  try {
    spec = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8'));
  } catch (err) {
    process.stdout.write(`${name}: no readable case.json (${err.message})\n`);
    failed++;
    continue;
  }
  const work = makeCopy(dir);
  try {
    const starts = [];
    for (let i = 0; i < reps; i++) starts.push(await timeStart(work, spec.run, spec.env ?? {}));
    const answered = starts.filter((ms) => ms !== null);
    const start = answered.length === 0 ? null : median(answered) / 1000;
    const proof = spawnSync(process.execPath, [CLI, '--dry-run', '--verify', '--report', 'json', '.'], { cwd: work, encoding: 'utf8', env: { ...process.env, ...(spec.env ?? {}), NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 });
    let report;
    try {
      report = JSON.parse(proof.stdout);
    } catch {
      process.stdout.write(`${name}: mcp-migrate exited ${proof.status} without a JSON report\n`);
      failed++;
      continue;
    }
    // (a module another entry's rewrite changes carries that entry's proof: one server, counted once)
    const seen = new Set();
    const proven = report.files.filter((f) => {
      if (f.proof === null || f.proof.seconds === null || f.proof.status === 'not-run') return false;
      const key = JSON.stringify(f.proof);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    if (proven.length === 0) process.stdout.write(`${`${name}`.padEnd(58)} ${''.padEnd(4)} ${fmt(start).padStart(8)} ${'—'.padStart(8)} ${'—'.padStart(7)}  nothing proven (${report.files.map((f) => f.decision.kind).join(', ') || 'no file'})\n`);
    for (const file of proven) {
      const lang = /\.[cm]?tsx?$/.test(file.path) ? 'ts' : 'js';
      const ratio = start === null || start === 0 ? null : file.proof.seconds / start;
      rows.push({ name: `${name}/${file.path}`, lang, start, proof: file.proof.seconds, ratio, status: file.proof.status });
      process.stdout.write(`${`${name}/${file.path}`.slice(0, 58).padEnd(58)} ${lang.padEnd(4)} ${fmt(start).padStart(8)} ${fmt(file.proof.seconds).padStart(8)} ${(ratio === null ? '—' : `${ratio.toFixed(1)}x`).padStart(7)}  ${file.proof.status}\n`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const of = (lang) => rows.filter((r) => r.lang === lang).map((r) => r.proof);
const longest = rows.reduce((a, r) => (a === null || r.proof > a.proof ? r : a), null);
const ratios = rows.map((r) => r.ratio).filter((r) => r !== null);
const line = (label, value, target) => `${label.padEnd(40)} ${fmt(value).padStart(8)}   target <= ${target} s   ${value === null ? 'n/a' : value <= target ? 'met' : 'MISSED'}\n`;
process.stdout.write('\n');
process.stdout.write(line(`median proof, JavaScript (${of('js').length})`, medianOf(of('js')), TARGETS.js));
process.stdout.write(line(`median proof, TypeScript (${of('ts').length})`, medianOf(of('ts')), TARGETS.ts));
process.stdout.write(line(`longest proof${longest === null ? '' : ` (${longest.name.slice(0, 24)})`}`, longest?.proof ?? null, TARGETS.max));
process.stdout.write(`${'median ratio proof / one start'.padEnd(40)} ${(medianOf(ratios) === null ? '—' : `${medianOf(ratios).toFixed(1)}x`).padStart(8)}   (the proof runs two servers and ~20 requests each; the start is the same server's, in this run)\n`);
process.exit(failed > 0 ? 1 : 0);
