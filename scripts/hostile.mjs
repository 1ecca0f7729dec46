#!/usr/bin/env node
// `npm run hostile`: a measurement, not a test (it is not part of `npm test`).
//
// Builds each hostile repository of issue 19 in a temp folder, runs the built CLI on it as a user would
// (`node bin/mcp-migrate.js ...`, a process of its own, with a hard time limit), and checks the outcome:
// nothing written outside the tree, no repository program run, no half migration, no hang, no raw
// control character in what is printed, verify bounded in memory and time. Prints one PASS/FAIL line per
// check and a final `N passed, N failed` line; exits 1 on any failure.
//
//   node scripts/hostile.mjs [--only <substring>] [--keep] [--verbose]
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { homedir, hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(REPO, 'bin', 'mcp-migrate.js');
const MAIN = join(REPO, 'dist', 'src', 'cli', 'main.js');

const options = { only: null, keep: false, verbose: false };
for (let i = 2; i < process.argv.length; i++) {
  const arg = process.argv[i];
  if (arg === '--only') options.only = process.argv[++i];
  else if (arg === '--keep') options.keep = true;
  else if (arg === '--verbose') options.verbose = true;
  else {
    process.stderr.write('usage: npm run hostile -- [--only <substring>] [--keep] [--verbose]\n');
    process.exit(2);
  }
}

const TEMP = mkdtempSync(join(tmpdir(), 'mcp-migrate-hostile-'));
let passed = 0;
let failed = 0;

// --- fixtures ------------------------------------------------------------------------------------------

/** A hand-rolled server whose rewrite changes two files: the loop here, the dispatcher in `dispatch`. */
const ENTRY = (dispatch = './lib/dispatch.js') => `const readline = require('node:readline');
const { dispatch } = require('${dispatch}');

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  dispatch(msg);
});
`;
const DISPATCH = `// the dispatcher of the demo server
function send(msg) {
  process.stdout.write(JSON.stringify(msg) + '\\n');
}

function dispatch(msg) {
  if (msg.method === 'initialize') {
    send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'demo', version: '1.0.0' } } });
  } else if (msg.method === 'tools/list') {
    send({ jsonrpc: '2.0', id: msg.id, result: { tools: [{ name: 'echo', description: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }] } });
  } else if (msg.id !== undefined) {
    send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
  }
}

module.exports = { dispatch };
`;
/** A one-file hand-rolled server. */
const SERVER = `const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
rl.on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'one', version: '1.0.0' } } });
  else if (msg.method === 'tools/list') send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
  else if (msg.id !== undefined) send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
});
`;
const PKG = '{\n  "name": "demo",\n  "version": "1.0.0"\n}\n';

let counter = 0;
/** A fresh folder under the temp root holding `files` (path -> text or Buffer). */
function tree(files = {}) {
  const root = join(TEMP, `t${++counter}`);
  mkdirSync(root, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };
function git(cwd, ...args) {
  return execFileSync('git', ['-c', 'core.fsmonitor=false', '-c', 'protocol.file.allow=always', ...args], { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}
function commitAll(root) {
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'init');
}

/** Runs `command args` with a hard limit; never hangs the harness. */
function run(command, args, { cwd, env = {}, timeoutMs = 60_000, stdin = 'ignore', user = {} } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: [stdin, 'pipe', 'pipe'], detached: true, ...user });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout.length < 4_000_000 ? (stdout += d) : undefined));
    child.stderr.on('data', (d) => (stderr.length < 4_000_000 ? (stderr += d) : undefined));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started, timedOut });
    });
  });
}
const cli = (args, opts) => run(process.execPath, [CLI, ...args], opts);

/** The CLI in a process that reports its own peak RSS (not the server's) on its last stderr line. */
function cliMeasured(args, opts) {
  const script = join(TEMP, 'measure.mjs');
  writeFileSync(
    script,
    `const { main } = await import(${JSON.stringify(MAIN)});\nconst code = await main(process.argv.slice(2));\nprocess.stderr.write('\\nMAXRSS ' + Math.round(process.resourceUsage().maxRSS / 1024) + '\\n');\nprocess.exit(code);\n`,
  );
  return run(process.execPath, [script, ...args], opts);
}
const maxRssOf = (result) => Number(/MAXRSS (\d+)/.exec(result.stderr)?.[1] ?? NaN);

const read = (path) => readFileSync(path, 'utf8');
const bytes = (path) => readFileSync(path);

async function check(name, body) {
  if (options.only !== null && !name.includes(options.only)) return;
  let detail;
  try {
    detail = await body();
  } catch (err) {
    detail = `threw: ${err instanceof Error ? err.message : String(err)}`;
  }
  const ok = detail === true || (typeof detail === 'string' && detail.startsWith('ok'));
  if (ok) passed++;
  else failed++;
  const note = typeof detail === 'string' && detail !== 'ok' ? ` (${detail.replace(/^ok:?\s*/, '')})` : '';
  process.stdout.write(`${ok ? 'PASS' : 'FAIL'} ${name}${note}\n`);
}

/** `ok` when every condition holds, else the first failed one's label (and the run's output with --verbose). */
function expectAll(result, conditions) {
  for (const [label, holds] of conditions) {
    if (!holds) {
      if (options.verbose) process.stdout.write(`---- exit ${result?.code} in ${result?.ms} ms\n${result?.stdout}\n---- stderr\n${result?.stderr}\n----\n`);
      return `${label}; exit ${result?.code}${result?.timedOut ? ' (killed: hung)' : ''}`;
    }
  }
  return `ok: exit ${result?.code}, ${result?.ms} ms`;
}

// --- 1. repository programs --------------------------------------------------------------------------

await check('1 a clean filter named "a=b" runs during no git call', async () => {
  const marker = join(tree(), 'PWNED');
  const root = tree({ 'package.json': PKG, 'server.js': SERVER, '.gitattributes': '*.js filter=a=b\n' });
  commitAll(root);
  git(root, 'config', 'filter.a=b.clean', `touch ${marker}; cat`);
  git(root, 'config', 'filter.a=b.process', `touch ${marker}`);
  git(root, 'config', 'core.fsmonitor', `touch ${marker}; false`);
  const later = new Date(Date.now() + 5_000);
  execFileSync('touch', ['-d', later.toISOString(), join(root, 'server.js')]);
  const r = await cli(['--yes', '--no-verify'], { cwd: root });
  return expectAll(r, [['the filter ran', !existsSync(marker)], ['exit 0', r.code === 0], ['migrated', read(join(root, 'server.js')).includes('@modelcontextprotocol/')]]);
});

// --- 2. writes outside the tree ----------------------------------------------------------------------

await check('2a a module reached through a symlinked directory (lib -> ../outside-lib) is not rewritten', async () => {
  const base = tree({ 'outside-lib/dispatch.js': DISPATCH, 'repo/server.js': ENTRY(), 'repo/package.json': PKG });
  symlinkSync('../outside-lib', join(base, 'repo/lib'));
  const r = await cli(['--yes', '--no-verify'], { cwd: join(base, 'repo') });
  return expectAll(r, [['outside module changed', read(join(base, 'outside-lib/dispatch.js')) === DISPATCH], ['entry changed alone', read(join(base, 'repo/server.js')) === ENTRY()], ['exit 3', r.code === 3], ['reason given', r.stderr.includes('outside the scanned folder')]]);
});

await check('2b a module that is a symlinked file out of the tree is not rewritten', async () => {
  const base = tree({ 'outside/dispatch.js': DISPATCH, 'repo/server.js': ENTRY(), 'repo/package.json': PKG });
  mkdirSync(join(base, 'repo/lib'));
  symlinkSync(join(base, 'outside/dispatch.js'), join(base, 'repo/lib/dispatch.js'));
  const r = await cli(['--yes', '--no-verify'], { cwd: join(base, 'repo') });
  return expectAll(r, [['outside module changed', read(join(base, 'outside/dispatch.js')) === DISPATCH], ['entry changed alone', read(join(base, 'repo/server.js')) === ENTRY()], ['exit 3', r.code === 3]]);
});

await check('2c a ../ import that leaves the scanned root is not rewritten', async () => {
  const base = tree({ 'lib/dispatch.js': DISPATCH, 'app/server.js': ENTRY('../lib/dispatch.js'), 'app/package.json': PKG });
  const r = await cli(['--yes', '--no-verify'], { cwd: join(base, 'app') });
  return expectAll(r, [['module outside the root changed', read(join(base, 'lib/dispatch.js')) === DISPATCH], ['entry changed alone', read(join(base, 'app/server.js')) === ENTRY('../lib/dispatch.js')], ['exit 3', r.code === 3]]);
});

await check('3 a package.json that is a symlink out of the repository is not edited', async () => {
  const base = tree({ 'home/package.json': PKG, 'repo/server.js': SERVER });
  symlinkSync(join(base, 'home/package.json'), join(base, 'repo/package.json'));
  commitAll(join(base, 'repo'));
  const r = await cli(['--yes', '--no-verify'], { cwd: join(base, 'repo') });
  return expectAll(r, [['the outside package.json changed', read(join(base, 'home/package.json')) === PKG], ['exit 3', r.code === 3], ['reason given', r.stderr.includes('outside the repository')]]);
});

await check('4 the package.json search stops at the git root', async () => {
  const base = tree({ 'package.json': PKG, 'repo/src/server.js': SERVER });
  commitAll(join(base, 'repo'));
  const r = await cli(['--yes', '--no-verify'], { cwd: join(base, 'repo') });
  return expectAll(r, [['the package.json above the repository changed', read(join(base, 'package.json')) === PKG], ['exit 0', r.code === 0], ['no install above the repository suggested', !r.stdout.includes('../')], ['said there is no package.json', r.stdout.includes('no package.json above this file')]]);
});

await check('5 workspace globs that climb out of the root are not walked', async () => {
  const root = tree({ 'package.json': '{\n  "name": "ws",\n  "workspaces": ["../../../../../../../**"]\n}\n', 'server.js': SERVER });
  const r = await cli(['--dry-run'], { cwd: root, timeoutMs: 30_000 });
  return expectAll(r, [['did not finish in 30 s', !r.timedOut], ['exit 0', r.code === 0], ['warned', r.stderr.includes('leaves the workspace root')], ['fast', r.ms < 15_000]]);
});

// --- 6. printed names --------------------------------------------------------------------------------

await check('6 hostile file names forge no workflow command, reach the terminal escaped and are quoted in commands', async () => {
  const root = tree({ 'package.json': PKG });
  for (const dir of ['x\n::error title=forged::INJECTED', 'esc\u001b[2J\u001b]0;title\u0007', '$(touch PWNED)', '-rf']) {
    mkdirSync(join(root, dir));
    writeFileSync(join(root, dir, 'server.js'), SERVER);
  }
  const r = await cli(['--check'], { cwd: root, env: { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: root } });
  const printed = r.stdout + r.stderr;
  return expectAll(r, [
    ['exit 1', r.code === 1],
    ['a forged workflow command', !printed.split('\n').some((line) => line.startsWith('::error title=forged'))],
    ['a raw ESC or BEL', !/[\u001b\u0007]/.test(printed)],
    ['$(...) unquoted in a command', printed.includes("mcp-migrate '$(touch PWNED)/server.js'")],
    ['a path read as a flag', printed.includes('mcp-migrate ./-rf/server.js') && !printed.includes('mcp-migrate -rf')],
    ['PWNED created', !existsSync(join(root, 'PWNED'))],
  ]);
});

// --- 7. invalid UTF-8 --------------------------------------------------------------------------------

await check('7 invalid UTF-8 in a module the rewrite changes: refused, bytes kept', async () => {
  const bad = Buffer.concat([Buffer.from('// caf'), Buffer.from([0xe9]), Buffer.from('\n'), Buffer.from(DISPATCH)]);
  const root = tree({ 'package.json': PKG, 'server.js': ENTRY(), 'lib/dispatch.js': bad });
  const r = await cli(['--yes', '--no-verify'], { cwd: root });
  return expectAll(r, [['module bytes changed', bytes(join(root, 'lib/dispatch.js')).equals(bad)], ['entry changed', read(join(root, 'server.js')) === ENTRY()], ['exit 3', r.code === 3], ['reason given', r.stderr.includes('not valid UTF-8')]]);
});

// --- 8. the clean-tree guard -------------------------------------------------------------------------

await check('8a an untracked server under status.showUntrackedFiles=no: the run refuses', async () => {
  const root = tree({ 'package.json': PKG, 'README.md': 'x\n' });
  commitAll(root);
  git(root, 'config', 'status.showUntrackedFiles', 'no');
  writeFileSync(join(root, 'server.js'), SERVER);
  const r = await cli(['--yes', '--no-verify'], { cwd: root });
  return expectAll(r, [['exit 2', r.code === 2], ['untouched', read(join(root, 'server.js')) === SERVER]]);
});

await check('8b a dirty submodule under .gitmodules ignore=dirty: the run refuses', async () => {
  const sub = tree({ 'server.js': '// placeholder\n' });
  commitAll(sub);
  const root = tree({ 'package.json': PKG });
  commitAll(root);
  git(root, 'submodule', 'add', '-q', sub, 'sub');
  git(root, 'config', '-f', '.gitmodules', 'submodule.sub.ignore', 'dirty');
  git(root, 'commit', '-q', '-am', 'sub');
  writeFileSync(join(root, 'sub/server.js'), SERVER);
  const r = await cli(['--yes', '--no-verify'], { cwd: root });
  return expectAll(r, [['exit 2', r.code === 2], ['untouched', read(join(root, 'sub/server.js')) === SERVER]]);
});

await check('8c a changed file marked assume-unchanged: the run refuses', async () => {
  const root = tree({ 'package.json': PKG, 'server.js': SERVER });
  commitAll(root);
  git(root, 'update-index', '--assume-unchanged', 'server.js');
  writeFileSync(join(root, 'server.js'), `${SERVER}// local edit\n`);
  const r = await cli(['--yes', '--no-verify'], { cwd: root });
  return expectAll(r, [['exit 2', r.code === 2], ['untouched', read(join(root, 'server.js')) === `${SERVER}// local edit\n`]]);
});

await check('8d a .git file naming a directory git refuses: the run refuses, and --force keeps the lock home', async () => {
  const elsewhere = tree({ keep: '' });
  const root = tree({ 'package.json': PKG, 'server.js': SERVER, '.git': `gitdir: ${elsewhere}\n` });
  const r = await cli(['--yes', '--no-verify'], { cwd: root });
  const forced = await cli(['--yes', '--no-verify', '--force'], { cwd: root });
  return expectAll(r, [['exit 2', r.code === 2], ['said why', r.stderr.includes('git will not vouch')], ['--force: exit 0', forced.code === 0], ['lock or journal written elsewhere', !existsSync(join(elsewhere, 'mcp-migrate.lock'))]]);
});

await check('8e a repository git finds of dubious ownership: the run refuses', async () => {
  if (process.getuid?.() !== 0) return 'ok: skipped (needs root to hand the repository to another user)';
  const root = tree({ 'package.json': PKG, 'server.js': SERVER });
  commitAll(root);
  execFileSync('chown', ['-R', '12345:12345', root]);
  const r = await cli(['--yes', '--no-verify'], { cwd: root, env: { HOME: tree() } });
  return expectAll(r, [['exit 2', r.code === 2], ['said why', r.stderr.includes('dubious ownership')], ['untouched', read(join(root, 'server.js')) === SERVER]]);
});

// --- 9. no half migration ----------------------------------------------------------------------------

await check('9 a rewrite of two files: one change, written whole or not at all', async () => {
  const root = tree({ 'package.json': PKG, 'server.js': ENTRY(), 'lib/dispatch.js': DISPATCH });
  const dry = await cli(['--dry-run'], { cwd: root });
  // the module cannot be replaced: the entry must not be written either (a read-only file is one only for
  // a user who may not write it: as root, the run goes as nobody)
  chmodSync(join(root, 'lib/dispatch.js'), 0o444);
  const asNobody = process.getuid?.() === 0;
  if (asNobody) {
    execFileSync('chown', ['-R', '65534:65534', root]);
    chmodSync(TEMP, 0o711);
  }
  const r = await cli(['--yes', '--no-verify'], { cwd: root, env: { HOME: root }, user: asNobody ? { uid: 65534, gid: 65534 } : {} });
  const half = read(join(root, 'server.js')) !== ENTRY();
  chmodSync(join(root, 'lib/dispatch.js'), 0o644);
  const again = await cli(['--yes', '--no-verify'], { cwd: root });
  return expectAll(r, [
    ['shown as one change', dry.stdout.includes('server.js is migrated together with lib/dispatch.js')],
    ['exit 3', r.code === 3],
    ['entry written without its module', !half],
    ['then both written', again.code === 0 && read(join(root, 'server.js')).includes('@modelcontextprotocol/') && read(join(root, 'lib/dispatch.js')) !== DISPATCH],
  ]);
});

// --- 10. owners and locks ----------------------------------------------------------------------------

await check('10a a replaced file keeps its owner, group and mode', async () => {
  if (process.getuid?.() !== 0) return 'ok: skipped (needs root)';
  const root = tree({ 'package.json': PKG, 'server.js': SERVER });
  chownSync(join(root, 'server.js'), 1234, 2345);
  chmodSync(join(root, 'server.js'), 0o640);
  const r = await cli(['--yes', '--no-verify'], { cwd: root });
  const s = statSync(join(root, 'server.js'));
  return expectAll(r, [['exit 0', r.code === 0], ['migrated', read(join(root, 'server.js')).includes('@modelcontextprotocol/')], ['owner kept', s.uid === 1234 && s.gid === 2345], ['mode kept', (s.mode & 0o777) === 0o640]]);
});

await check('10b outside git, a run on a subtree does not write while a run holds the tree', async () => {
  const root = tree({ 'a/package.json': PKG, 'a/server.js': SERVER, 'b/server.js': SERVER });
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  writeFileSync(join(root, '.mcp-migrate.lock'), JSON.stringify({ tool: 'mcp-migrate', pid: holder.pid, host: hostname(), since: new Date().toISOString(), nonce: 'x' }));
  const r = await cli(['--yes', '--no-verify'], { cwd: join(root, 'a') });
  holder.kill('SIGKILL');
  return expectAll(r, [['exit 3', r.code === 3], ['named the lock', r.stderr.includes(join(root, '.mcp-migrate.lock'))], ['wrote anyway', read(join(root, 'a/server.js')) === SERVER]]);
});

// --- 11. verify: memory and time ---------------------------------------------------------------------

await check('11a verify against a flood (60 lines of 100 MB, then replies): bounded memory', async () => {
  const root = tree({
    'flood.js': `const line = 'x'.repeat(100 * 1024 * 1024) + '\\n';
let left = 60;
const flood = () => { while (left > 0) { left--; if (!process.stdout.write(line)) return process.stdout.once('drain', flood); } serve(); };
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
function serve() {
  require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => {
    const msg = JSON.parse(l);
    if (msg.id === undefined) return;
    if (msg.method === 'initialize') return send({ id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'flood', version: '1' } } });
    if (msg.method === 'ping') return send({ id: msg.id, result: {} });
    send({ id: msg.id, error: { code: -32601, message: 'Method not found' } });
  });
}
flood();
`,
  });
  const r = await cliMeasured(['verify', '--timeout', '20000', '--', process.execPath, 'flood.js'], { cwd: root, timeoutMs: 300_000 });
  const rss = maxRssOf(r);
  return expectAll(r, [['finished', !r.timedOut], ['no crash (exit 0 or 1)', r.code === 0 || r.code === 1], ['under 512 MB', rss < 512]]) + `, peak ${rss} MB`;
});

await check('11b verify against 1,000 tools that never answer, with --timeout 1000000000: bounded wall time', async () => {
  const root = tree({
    'silent.js': `const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
const tools = Array.from({ length: 1000 }, (_, i) => ({ name: 't' + i, inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } }));
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') return send({ id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } });
  if (msg.method === 'tools/list') return send({ id: msg.id, result: { tools } });
});
`,
  });
  const r = await cliMeasured(['verify', '--timeout', '1000000000', '--', process.execPath, 'silent.js'], { cwd: root, timeoutMs: 200_000 });
  const rss = maxRssOf(r);
  return expectAll(r, [['finished', !r.timedOut], ['exit 1', r.code === 1], ['said it stopped', r.stdout.includes('stopped after 60 s')], ['under 90 s', r.ms < 90_000], ['under 512 MB', rss < 512]]) + `, peak ${rss} MB`;
});

await check('11c a daemon that double-forks out of the server\'s session is stopped with it', async () => {
  const root = tree({
    'daemon.js': `const { spawn } = require('node:child_process');
const daemon = "require('node:fs').writeFileSync('daemon.pid', String(process.pid)); setInterval(() => {}, 1000);";
const middle = "require('node:child_process').spawn(process.execPath, ['-e', " + JSON.stringify(daemon) + "], { detached: true, stdio: 'ignore' }).unref(); process.exit(0);";
spawn(process.execPath, ['-e', middle], { detached: true, stdio: 'ignore' }).unref();
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  // answered once the daemon is up (its pid written), so that it is there to be stopped
  const answer = () => (require('node:fs').existsSync('daemon.pid') ? send({ id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'd', version: '1' } } }) : setTimeout(answer, 50));
  if (msg.method === 'initialize') return answer();
  send({ id: msg.id, error: { code: -32601, message: 'Method not found' } });
});
`,
  });
  const r = await cli(['verify', '--timeout', '10000', '--', process.execPath, 'daemon.js'], { cwd: root });
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const pid = Number(read(join(root, 'daemon.pid')));
  let alive = true;
  try {
    process.kill(pid, 0);
    alive = !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    alive = false;
  }
  if (alive) process.kill(pid, 'SIGKILL');
  return expectAll(r, [['finished', !r.timedOut], ['the daemon survived', !alive]]);
});

await check('11d --verify does not copy a package holding a 1 GB file', async () => {
  const root = tree({ 'package.json': PKG, 'server.js': SERVER, 'data.bin': '' });
  truncateSync(join(root, 'data.bin'), 1024 * 1024 * 1024);
  const r = await cli(['--dry-run', '--verify'], { cwd: root, timeoutMs: 60_000 });
  return expectAll(r, [['finished', !r.timedOut], ['NOT_VERIFIED with the reason', (r.stdout + r.stderr).includes('MB to copy')], ['fast', r.ms < 30_000]]);
});

// --- 12. files that block or blow up -----------------------------------------------------------------

await check('12a a package.json that is a FIFO does not block the run', async () => {
  const root = tree({ 'server.js': SERVER });
  execFileSync('mkfifo', [join(root, 'package.json')]);
  const r = await cli(['--dry-run'], { cwd: root, timeoutMs: 20_000 });
  return expectAll(r, [['hung', !r.timedOut], ['said why', (r.stdout + r.stderr).includes('not a regular file')]]);
});

await check('12b a committed package.json symlink to /dev/stdin does not block the run', async () => {
  const root = tree({ 'server.js': SERVER });
  symlinkSync('/dev/stdin', join(root, 'package.json'));
  commitAll(root);
  const r = await cli(['--dry-run'], { cwd: root, timeoutMs: 20_000, stdin: 'pipe' });
  return expectAll(r, [['hung', !r.timedOut]]);
});

await check('12c a FIFO the workspace walk reaches does not block the run', async () => {
  const root = tree({ 'package.json': '{\n  "name": "ws",\n  "workspaces": ["**"]\n}\n', 'a/package.json': PKG, 'a/server.js': SERVER });
  mkdirSync(join(root, 'b'));
  execFileSync('mkfifo', [join(root, 'b/package.json')]);
  execFileSync('mkfifo', [join(root, 'b/.gitignore')]);
  const r = await cli(['--dry-run'], { cwd: root, timeoutMs: 20_000 });
  return expectAll(r, [['hung', !r.timedOut], ['exit 0', r.code === 0]]);
});

await check('12d a package.json nested 200,000 levels deep: no stack overflow', async () => {
  const root = tree({ 'server.js': SERVER, 'package.json': `{"name":"deep","x":${'['.repeat(200_000)}${']'.repeat(200_000)}}` });
  const r = await cli(['--yes', '--no-verify'], { cwd: root });
  return expectAll(r, [['exit 0', r.code === 0], ['no stack overflow', !(r.stdout + r.stderr).includes('Maximum call stack')], ['dependency added', read(join(root, 'package.json')).includes('@modelcontextprotocol/server')]]);
});

await check('12e a 179 MB package.json is not read', async () => {
  const root = tree({ 'server.js': SERVER });
  writeFileSync(join(root, 'package.json'), `{"name":"big","x":"${'a'.repeat(179 * 1024 * 1024)}"}`);
  const r = await cliMeasured(['--dry-run'], { cwd: root });
  const rss = maxRssOf(r);
  return expectAll(r, [['finished', !r.timedOut], ['said why', (r.stdout + r.stderr).includes('limit')], ['under 20 s', r.ms < 20_000], ['under 512 MB', rss < 512]]) + `, peak ${rss} MB`;
});

// --- 13. gitignore in linear time --------------------------------------------------------------------

await check('13 a backtracking .gitignore glob against a long name answers at once', async () => {
  const root = tree({ '.gitignore': `${'*a'.repeat(12)}*b\n`, [`${'a'.repeat(60)}.js`]: '1\n', 'server.js': SERVER });
  const r = await cli(['--dry-run'], { cwd: root, timeoutMs: 30_000 });
  return expectAll(r, [['hung', !r.timedOut], ['exit 0', r.code === 0], ['under 20 s', r.ms < 20_000]]);
});

// --- 14. the proof runs in a sandbox (issue 34) -------------------------------------------------------

await check('14a the proof: start-up code and a tool body that write to the real package, the home, through a link out and node_modules leave them as they were', async () => {
  const outside = tree({ 'keep.txt': 'kept\n' });
  const homeFile = join(homedir(), `.mcp-migrate-hostile-${process.pid}.txt`);
  const root = tree({ 'package.json': PKG, 'node_modules/.cache/.keep': '' });
  symlinkSync(outside, join(root, 'shared'));
  const escape = `const fs = require('node:fs');
function escape(when) {
  for (const target of [${JSON.stringify(join(root, 'escaped.txt'))}, ${JSON.stringify(homeFile)}, require('node:path').join(__dirname, 'shared', when), require('node:path').join(__dirname, 'node_modules', '.cache', when)]) {
    try { fs.writeFileSync(target, when); } catch {}
  }
}
escape('startup');
`;
  writeFileSync(join(root, 'server.js'), escape + SERVER.replace("else if (msg.method === 'tools/list')", "else if (msg.method === 'tools/call') { escape('tool'); send({ jsonrpc: '2.0', id: msg.id, result: { content: [] } }); }\n  else if (msg.method === 'tools/list')"));
  const r = await cli(['--yes', '--force'], { cwd: root });
  const leaked = [existsSync(join(root, 'escaped.txt')), existsSync(homeFile), existsSync(join(outside, 'startup')), existsSync(join(root, 'node_modules/.cache/startup'))];
  rmSync(homeFile, { force: true });
  return expectAll(r, [['exit 0', r.code === 0], ['proven', r.stdout.includes('answers like the original')], ['nothing written outside the trial', leaked.every((x) => !x)]]);
});

await check('14b a workspace glob of 12 stars against a 40-character folder answers at once', async () => {
  const root = tree({ 'package.json': `{"name":"ws","workspaces":["packages/${'*a'.repeat(12)}*b"]}`, [`packages/${'a'.repeat(40)}/package.json`]: '{"name":"x"}', 'server.js': SERVER });
  const r = await cli(['--dry-run'], { cwd: root, timeoutMs: 30_000 });
  return expectAll(r, [['hung', !r.timedOut], ['exit 0', r.code === 0], ['under 5 s', r.ms < 5_000]]);
});

await check('14d a member chain of 100,000 links (200 KB) in a server is migrated in linear time', async () => {
  const root = tree({ 'package.json': PKG, 'server.js': `${SERVER}\nconst chain = () => globalThis${'.b'.repeat(100_000)};\n` });
  const r = await cli(['--dry-run', '--summary'], { cwd: root, timeoutMs: 120_000 });
  return expectAll(r, [['hung', !r.timedOut], ['exit 0', r.code === 0], ['proposed', r.stdout.includes('would move')], ['under 20 s', r.ms < 20_000]]);
});

await check('14e a flat 1 + 1 + ... of 200,000 terms parses and is migrated, not "nested too deeply"', async () => {
  const root = tree({ 'package.json': PKG, 'server.js': `${SERVER}\nconst sum = () => ${Array.from({ length: 200_000 }, () => '1').join('+')};\n` });
  const r = await cli(['--dry-run', '--summary'], { cwd: root, timeoutMs: 180_000 });
  return expectAll(r, [['hung', !r.timedOut], ['exit 0', r.code === 0], ['parsed', !(r.stdout + r.stderr).includes('nested too deeply')], ['proposed', r.stdout.includes('would move')], ['under 60 s', r.ms < 60_000]]);
});

await check('14c a lock file committed to the repository is no lock', async () => {
  const root = tree({ 'package.json': PKG, 'server.js': SERVER, '.mcp-migrate.lock': JSON.stringify({ tool: 'mcp-migrate', pid: 1, host: 'elsewhere', since: new Date().toISOString(), nonce: 'x' }) });
  const git = (...args) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: root, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'a lock committed by mistake');
  const r = await cli(['--yes', '--no-verify'], { cwd: root });
  return expectAll(r, [['exit 0', r.code === 0], ['migrated', read(join(root, 'server.js')).includes('@modelcontextprotocol/')]]);
});

process.stdout.write(`${passed} passed, ${failed} failed\n`);
if (!options.keep) rmSync(TEMP, { recursive: true, force: true });
process.exit(failed > 0 ? 1 : 0);
