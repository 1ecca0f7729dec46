#!/usr/bin/env node
// `npm run faults -- --kills N`: a measurement, not a test (it is not part of `npm test`).
//
// Does a killed run leave anything half-written? Builds a tree of a few hundred server copies (the
// corpus cases, each a package of its own) in a temp directory, records what one clean
// `mcp-migrate --yes --no-verify --jobs 2` run makes of it, then N times: copies the pristine tree, starts the same
// command on it, `kill -9`s it at a random point (mostly in the write phase: after a random number of
// "applied" lines plus a few milliseconds; sometimes during the scan), and checks
//   torn files       a file that is neither its original nor its complete output (a companion file:
//                    absent or complete), or a file nobody should have written
// then runs the command again to completion on the same tree and checks
//   stale temp files a temp file (`.<name>.mcp-migrate-<pid>-<hex>.tmp`) still there
//   stale locks      the write lock still there
//   not converged    a file that differs from what the clean run made of it
//   failed reruns    the second run's exit code differs from the clean run's
// Prints one summary line; exits 1 when any of those counts is not zero.
//
//   node scripts/faults.mjs [--kills 30] [--copies 300] [--seed 1] [--dir <temp dir>] [--keep] [--verbose]
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(REPO, 'bin', 'mcp-migrate.js');
const CORPUS = join(REPO, 'test', 'fixtures', 'corpus');
const TEMP_FILE = /^\.(.+)\.mcp-migrate-(\d+)-[0-9a-f]{8}\.tmp$/s;
/** The journal of a rewrite of several files (and its own temp file while it is written): left by a kill, finished by the next run. */
const JOURNAL_FILE = /^\.mcp-migrate-journal-\d+-[0-9a-f]{8}\.json(\.tmp)?$/;
const LOCK_FILES = ['.mcp-migrate.lock', 'mcp-migrate.lock'];
// --no-verify: what is measured is the write phase. The proof (on by default) runs each server next to
// its original before anything is written; with it, one run over 300 copies takes minutes and the kills
// would mostly land in the proof, where nothing is written yet.
const ARGS = ['--yes', '--no-verify', '--jobs', '2', '.'];

function parseOptions(argv) {
  const o = { kills: 30, copies: 300, seed: 1, dir: null, keep: false, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const int = () => {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${arg} needs a positive whole number`);
      return n;
    };
    if (arg === '--kills') o.kills = int();
    else if (arg === '--copies') o.copies = int();
    else if (arg === '--seed') o.seed = int();
    else if (arg === '--dir') o.dir = argv[++i];
    else if (arg === '--keep') o.keep = true;
    else if (arg === '--verbose') o.verbose = true;
    else if (arg === '-h' || arg === '--help') {
      process.stdout.write('usage: npm run faults -- [--kills N] [--copies N] [--seed S] [--dir DIR] [--keep] [--verbose]\n');
      process.exit(0);
    } else throw new Error(`unknown option ${arg}`);
  }
  return o;
}

function createRandom(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n) => Math.floor(next() * n), chance: (p) => next() < p };
}

/** Every file under `dir`, relative path -> content (Buffer). */
function snapshot(dir) {
  const files = new Map();
  const walk = (current) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.set(relative(dir, full), readFileSync(full));
    }
  };
  walk(dir);
  return files;
}

function buildPristine(dir, copies) {
  const cases = readdirSync(CORPUS, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  for (let i = 0; i < copies; i++) {
    const name = cases[i % cases.length];
    cpSync(join(CORPUS, name), join(dir, `c${String(i).padStart(3, '0')}-${name}`), {
      recursive: true,
      filter: (source) => !source.endsWith('case.json') && !source.includes('node_modules'),
    });
  }
}

/**
 * Runs the CLI in `cwd`. `killAt`: null to run to completion; else { applied, delayMs } (kill -9
 * `delayMs` after the `applied`-th "applied" line; 0 lines: `delayMs` after the start).
 */
function runCli(cwd, killAt) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [CLI, ...ARGS], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let applied = 0;
    let out = '';
    let killed = false;
    let firstApplied = null;
    const kill = () => {
      if (killed) return;
      killed = true;
      child.kill('SIGKILL');
    };
    if (killAt !== null && killAt.applied === 0) setTimeout(kill, killAt.delayMs);
    child.stdout.on('data', (chunk) => {
      const text = chunk.toString('utf8');
      out += text;
      const lines = text.match(/^ {3}applied /gm)?.length ?? 0;
      if (lines > 0 && firstApplied === null) firstApplied = Date.now() - started;
      const before = applied;
      applied += lines;
      if (killAt !== null && killAt.applied > 0 && before < killAt.applied && applied >= killAt.applied) setTimeout(kill, killAt.delayMs);
    });
    child.stderr.on('data', (chunk) => (out += chunk.toString('utf8')));
    child.on('close', (code, signal) => resolve({ code, signal, killed, applied, out, ms: Date.now() - started, firstApplied }));
  });
}

function isTempFile(rel) {
  const name = rel.split('/').pop();
  return TEMP_FILE.test(name) || JOURNAL_FILE.test(name);
}

function isLockFile(rel) {
  return LOCK_FILES.includes(rel);
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  if (!existsSync(join(REPO, 'dist', 'src', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const base = options.dir ?? mkdtempSync(join(tmpdir(), 'mcp-migrate-faults-'));
  mkdirSync(base, { recursive: true });
  const r = createRandom(options.seed);
  const counts = { kills: 0, inWrites: 0, torn: 0, leftTemps: 0, leftLocks: 0, staleTemps: 0, staleLocks: 0, notConverged: 0, failedReruns: 0, removedReported: 0 };
  try {
    // 1. The pristine tree and what a clean run makes of it.
    const pristineDir = join(base, 'pristine');
    buildPristine(pristineDir, options.copies);
    const pristine = snapshot(pristineDir);
    const referenceDir = join(base, 'reference');
    cpSync(pristineDir, referenceDir, { recursive: true });
    const reference = await runCli(referenceDir, null);
    const expected = snapshot(referenceDir);
    rmSync(referenceDir, { recursive: true, force: true });
    const changed = [...expected.keys()].filter((rel) => !pristine.get(rel)?.equals(expected.get(rel)));
    process.stderr.write(
      `faults: ${options.copies} copies, ${pristine.size} files; a clean run (exit ${reference.code}) writes ${changed.length} of them in ${reference.ms} ms, the first after ${reference.firstApplied} ms\n`,
    );
    if (reference.applied === 0) throw new Error(`the clean run applied nothing:\n${reference.out.slice(-2000)}`);

    // 2. Kill, check, run again, check.
    for (let k = 0; k < options.kills; k++) {
      const dir = join(base, `run-${k}`);
      cpSync(pristineDir, dir, { recursive: true });
      const duringScan = r.chance(0.15);
      const killAt = duringScan
        ? { applied: 0, delayMs: 1 + r.int(Math.max(1, reference.firstApplied ?? reference.ms)) }
        : { applied: 1 + r.int(reference.applied), delayMs: r.int(12) };
      const run = await runCli(dir, killAt);
      counts.kills++;
      if (run.killed && run.applied > 0) counts.inWrites++;
      const problems = [];

      // After the kill: each file is its original or its complete output; nothing else is new but temp files and the lock.
      const after = snapshot(dir);
      for (const [rel, content] of after) {
        if (isTempFile(rel)) {
          counts.leftTemps++;
          continue;
        }
        if (isLockFile(rel)) {
          counts.leftLocks++;
          continue;
        }
        const original = pristine.get(rel);
        const complete = expected.get(rel);
        if ((original !== undefined && content.equals(original)) || (complete !== undefined && content.equals(complete))) continue;
        counts.torn++;
        problems.push(`torn: ${rel}`);
      }
      for (const rel of pristine.keys()) {
        if (!after.has(rel)) {
          counts.torn++;
          problems.push(`missing: ${rel}`);
        }
      }

      // The next run finishes the job and leaves nothing behind.
      const rerun = await runCli(dir, null);
      if (/Removed \d+ temp file\(s\) left by an interrupted run/.test(rerun.out)) counts.removedReported++;
      if (rerun.code !== reference.code) {
        counts.failedReruns++;
        problems.push(`rerun exit ${rerun.code} (clean run: ${reference.code}): ${rerun.out.split('\n').filter((l) => /error|warning/.test(l)).slice(0, 3).join(' | ')}`);
      }
      const final = snapshot(dir);
      for (const [rel, content] of final) {
        if (isTempFile(rel)) {
          counts.staleTemps++;
          problems.push(`stale temp file: ${rel}`);
        } else if (isLockFile(rel)) {
          counts.staleLocks++;
          problems.push(`stale lock: ${rel}`);
        } else if (!expected.get(rel)?.equals(content)) {
          counts.notConverged++;
          problems.push(`differs from the clean run: ${rel}`);
        }
      }
      for (const rel of expected.keys()) {
        if (!final.has(rel)) {
          counts.notConverged++;
          problems.push(`missing after the rerun: ${rel}`);
        }
      }
      const where = duringScan ? `during the scan (${killAt.delayMs} ms)` : `after ${run.applied} applied (+${killAt.delayMs} ms)`;
      if (options.verbose || problems.length > 0) {
        process.stderr.write(`kill ${k + 1}: ${run.killed ? 'killed' : `finished before the kill (exit ${run.code})`} ${where}${problems.length > 0 ? `\n  ${problems.slice(0, 10).join('\n  ')}` : ''}\n`);
      }
      if (problems.length === 0 && !options.keep) rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    if (!options.keep && options.dir === null) rmSync(base, { recursive: true, force: true });
  }
  const bad = counts.torn + counts.staleTemps + counts.staleLocks + counts.notConverged + counts.failedReruns;
  process.stdout.write(
    `faults: ${counts.kills} kills (${counts.inWrites} in the write phase; ${counts.leftTemps} temp files and ${counts.leftLocks} locks left by the kills, ` +
      `removal reported by ${counts.removedReported} next runs): ${counts.torn} torn files, ${counts.staleTemps} stale temp files after the next run, ` +
      `${counts.staleLocks} stale locks after the next run, ${counts.notConverged} files not converged, ${counts.failedReruns} failed next runs\n`,
  );
  process.exitCode = bad > 0 ? 1 : 0;
}

main().catch((err) => {
  process.stderr.write(`faults: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 2;
});
