#!/usr/bin/env node
// npm run fidelity -- [--seed S] [--count N] [--profile default|field|styles] [--jobs J] [--out DIR] [--keep] [CASE_DIR...]
//
// Measures the tool on servers it has never seen: generates N runnable servers with
// ../shared/tools/gen-servers.mjs (a fresh seed unless --seed is given; the seed is printed so a run can
// be repeated), adds any CASE_DIR given (e.g. test/fixtures/shapes/*), and judges each migration by
// behaviour with ../shared/tools/fidelity.mjs (this repository's CLI; the SDK Client replays every call
// against the original's answers). Prints the pass rate, the SDK share (cases generated as `sdk` that
// got the SDK: at the dispatcher or at the boundary), the share of each form over every MCP case (SDK at
// the dispatcher / SDK at the boundary / envelope / left alone), the non-MCP files touched, and every
// failure. Needs ../shared (not part of
// `npm test`); `bash ../shared/tools/setup-deps.sh` installs what the judge needs.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const TOOLS = resolve(ROOT, '..', 'shared', 'tools');

function parseArgs(argv) {
  const options = { seed: null, count: 200, profile: 'default', jobs: 2, out: null, keep: false, cases: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === '--seed') options.seed = value();
    else if (arg === '--count') options.count = Number(value());
    else if (arg === '--jobs') options.jobs = Number(value());
    else if (arg === '--profile') options.profile = value();
    else if (arg === '--out') options.out = value();
    else if (arg === '--keep') options.keep = true;
    else if (arg.startsWith('-')) throw new Error(`unknown option ${arg}`);
    else options.cases.push(resolve(arg));
  }
  if (!Number.isInteger(options.count) || options.count < 0) throw new Error('--count needs a whole number');
  if (!Number.isInteger(options.jobs) || options.jobs < 1) throw new Error('--jobs needs a whole number of at least 1');
  return options;
}

function run(command, args, options = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'], ...options });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      // one line per judged case: show progress while the run goes on
      for (const line of chunk.toString().split('\n')) if (line.startsWith('{')) process.stderr.write('.');
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolvePromise(stdout) : reject(new Error(`${command} ${args[0]} exited ${code}`))));
  });
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (!existsSync(join(TOOLS, 'fidelity.mjs'))) {
    console.error(`fidelity: ${TOOLS} not found; this measurement needs the shared tools next to the repository`);
    process.exit(2);
  }
  const seed = options.seed ?? String(Date.now() % 1_000_000);
  const out = options.out ?? mkdtempSync(join(tmpdir(), `mcp-migrate-fidelity-${seed}-`));
  const cases = [...options.cases];
  if (options.count > 0) {
    const generated = spawnSync(process.execPath, [join(TOOLS, 'gen-servers.mjs'), '--seed', seed, '--count', String(options.count), '--profile', options.profile, '--out', out], { encoding: 'utf8' });
    if (generated.status !== 0) throw new Error(`gen-servers failed: ${generated.stderr}`);
    cases.push(...readdirSync(out).map((name) => join(out, name)).sort());
  }
  console.error(`fidelity: seed ${seed}, profile ${options.profile}, ${cases.length} cases (${out})`);
  const text = await run(process.execPath, [join(TOOLS, 'fidelity.mjs'), '--json', '--jobs', String(options.jobs), ...cases], {
    cwd: ROOT,
    env: { ...process.env, MCP_MIGRATE_REPO: ROOT },
  });
  process.stderr.write('\n');
  const results = text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
  const passed = results.filter((r) => r.pass);
  const sdkCases = results.filter((r) => r.expect === 'sdk');
  const sdkRewrites = sdkCases.filter((r) => r.path === 'sdk');
  const nonMcp = results.filter((r) => r.expect === 'unchanged');
  const touched = nonMcp.filter((r) => !r.pass);
  const percent = (a, b) => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(1)} %`);
  // which form each MCP case ended in: the boundary is the SDK path whose changed files hold the boundary module
  const formOf = (r) => (r.path === 'sdk' ? (r.notes.some((n) => /\bmcp-boundary\./.test(n)) ? 'boundary' : 'sdk') : r.path === 'envelope' ? 'envelope' : 'left alone');
  const mcp = results.filter((r) => r.expect !== 'unchanged');
  const forms = { sdk: 0, boundary: 0, envelope: 0, 'left alone': 0 };
  for (const r of mcp) forms[formOf(r)]++;
  for (const r of results.filter((x) => !x.pass)) console.log(`FAIL ${r.case} — ${r.reasons.join('; ')}`);
  console.log(`seed ${seed}: ${passed.length}/${results.length} pass (${percent(passed.length, results.length)})`);
  console.log(`SDK share: ${sdkRewrites.length}/${sdkCases.length} of the cases generated as sdk got the SDK (${percent(sdkRewrites.length, sdkCases.length)})`);
  console.log(`forms over ${mcp.length} MCP cases: ${Object.entries(forms).map(([form, n]) => `${form} ${n} (${percent(n, mcp.length)})`).join(', ')}`);
  console.log(`non-MCP files touched: ${touched.length} of ${nonMcp.length}`);
  if (!options.keep && options.out === null) rmSync(out, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(`fidelity: ${error.message}`);
  process.exit(3);
});
