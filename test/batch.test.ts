// The non-interactive contract batch engines rely on (docs/ci-and-batch.md), through the real
// bin/mcp-migrate.js (which imports dist/, built before the tests run), and examples/batch/run-many.sh
// over local repositories.
import { afterAll, describe, it, expect } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTree, read, removeTrees } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const ROOT = join(__dirname, '..');
const BIN = join(ROOT, 'bin', 'mcp-migrate.js');
const RUN_MANY = join(ROOT, 'examples', 'batch', 'run-many.sh');
const CORPUS = join(ROOT, 'test', 'fixtures', 'corpus');
const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', GIT_CONFIG_NOSYSTEM: '1' };

/** A git repository holding a copy of one corpus case, committed. */
async function makeRepo(corpusCase: string): Promise<string> {
  const root = await makeTree({});
  await cp(join(CORPUS, corpusCase), root, { recursive: true });
  const git = (...args: string[]): string => execFileSync('git', ['-C', root, '-c', 'commit.gpgsign=false', ...args], { encoding: 'utf8', env: { ...process.env, ...GIT_ENV } });
  git('init', '-q');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  return root;
}

/** bin/mcp-migrate.js with stdin and stdout pipes: no terminal anywhere, as in a batch job. */
function runBin(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', input: '', env: { ...process.env, NO_COLOR: '1', GITHUB_ACTIONS: '' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the non-interactive contract', () => {
  it('refuses to prompt without a terminal, naming the flags, and writes nothing', async () => {
    const repo = await makeRepo('01-cjs-readline-bare-ifs');
    const before = await read(repo, 'server.js');
    const run = runBin(['.'], repo);
    expect(run.status).toBe(2);
    for (const flag of ['--yes', '--dry-run', '--check']) expect(run.stderr).toContain(flag);
    expect(run.stdout).toBe('');
    expect(await read(repo, 'server.js')).toBe(before);
  });

  it('--yes --report json: one JSON document on stdout, exit 0, files written', async () => {
    const repo = await makeRepo('01-cjs-readline-bare-ifs');
    const before = await read(repo, 'server.js');
    const run = runBin(['--yes', '--no-verify', '--report', 'json'], repo);
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as { exitCode: number; mode: string; totals: { written: number }; files: { path: string; status: string }[] };
    expect(report).toMatchObject({ exitCode: 0, mode: 'apply', totals: { written: 1 } });
    expect(report.files.map((f) => [f.path, f.status])).toEqual([['server.js', 'written']]);
    // The human text (diffs, summary) went to stderr.
    expect(run.stderr).toContain('Next, run `npm install`');
    expect(await read(repo, 'server.js')).not.toBe(before);
    expect(await read(repo, 'package.json')).toContain('"@modelcontextprotocol/server"');

    // Again on the (now dirty) tree: refused without --force; with it, nothing left to do.
    const dirty = runBin(['--yes', '--no-verify', '--report', 'json'], repo);
    expect(dirty.status).toBe(2);
    expect(dirty.stderr).toContain('--force');
    expect(dirty.stdout).toBe('');
    const again = runBin(['--yes', '--no-verify', '--force', '--report', 'json'], repo);
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ totals: { written: 0, pending: 0 } });
  });
});

describe('examples/batch/run-many.sh', () => {
  function runMany(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
    const result = spawnSync('bash', [RUN_MANY, ...args], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, ...GIT_ENV, NO_COLOR: '1', MCP_MIGRATE: `${process.execPath} ${BIN}` },
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it('migrates each repository in its own copy and prints a table of exit codes and totals', async () => {
    const repos = [await makeRepo('01-cjs-readline-bare-ifs'), await makeRepo('13-already-sdk-mcpserver'), await makeRepo('14-jsonl-worker-not-mcp')];
    const originals = await Promise.all(repos.map((r) => read(r, 'package.json')));
    const work = await makeTree({ 'repos.txt': `# the repositories\n${repos[0]}\n\n${repos[1]}   # already on the SDK\n` });

    const run = runMany(['-o', 'out', '-b', 'mcp-migrate/sdk', '-f', 'repos.txt', repos[2]], work);
    expect(run.stderr).toContain('[3/3]');
    expect(run.status).toBe(0);
    const table = run.stdout.trimEnd().split('\n').map((line) => line.split(/\s{2,}/));
    expect(table).toEqual([
      ['REPO', 'EXIT', 'WRITTEN', 'SDK', 'ENVELOPE', 'LEFT', 'ERRORS', 'REPORT'],
      [repos[0], '0', '1', '1', '0', '0', '0', '001-' + repos[0].split('/').pop() + '.json'],
      // already on the SDK: left alone, and counted as such
      [repos[1], '0', '0', '0', '0', '1', '0', '002-' + repos[1].split('/').pop() + '.json'],
      [repos[2], '0', '0', '0', '0', '0', '0', '003-' + repos[2].split('/').pop() + '.json'],
    ]);

    // Per repository: the JSON report, and the migrated copy (committed on the branch); the originals are untouched.
    const id = `001-${repos[0].split('/').pop()}`;
    expect(JSON.parse(await readFile(join(work, 'out', `${id}.json`), 'utf8'))).toMatchObject({ exitCode: 0, totals: { written: 1 } });
    expect(await read(join(work, 'out', id), 'package.json')).toContain('"@modelcontextprotocol/server"');
    const git = (...args: string[]): string => execFileSync('git', ['-C', join(work, 'out', id), ...args], { encoding: 'utf8' }).trim();
    expect(git('rev-parse', '--abbrev-ref', 'HEAD')).toBe('mcp-migrate/sdk');
    expect(git('status', '--porcelain')).toBe('');
    expect(git('log', '--format=%s', '-1')).toContain('mcp-migrate');
    expect(await Promise.all(repos.map((r) => read(r, 'package.json')))).toEqual(originals);
    const copy = (n: number): string => join(work, 'out', `00${n + 1}-${repos[n].split('/').pop()}`);
    expect(await read(copy(1), 'server.js')).toBe(await read(join(CORPUS, '13-already-sdk-mcpserver'), 'server.js'));
    expect(await read(copy(2), 'worker.js')).toBe(await read(join(CORPUS, '14-jsonl-worker-not-mcp'), 'worker.js'));
    expect((await readFile(join(work, 'out', 'summary.tsv'), 'utf8')).split('\n')[1]).toBe(`${repos[0]}\t0\t1\t1\t0\t0\t0\t${id}.json`);
  });

  it('records repositories that cannot be fetched or fail, and exits 1', async () => {
    const good = await makeRepo('01-cjs-readline-bare-ifs');
    // A server under a package.json that is not valid JSON cannot get its dependency: exit 3.
    const broken = await makeRepo('01-cjs-readline-bare-ifs');
    await writeFile(join(broken, 'package.json'), '{ "name": "broken", }\n');
    execFileSync('git', ['-C', broken, 'add', '.'], { env: { ...process.env, ...GIT_ENV } });
    execFileSync('git', ['-C', broken, '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'broken'], { env: { ...process.env, ...GIT_ENV } });
    const work = await makeTree({});
    const missing = join(work, 'no-such-repo');

    const run = runMany(['-o', 'out', good, missing, broken], work);
    expect(run.status).toBe(1);
    const rows = run.stdout.trimEnd().split('\n').map((line) => line.split(/\s{2,}/).slice(0, 2));
    expect(rows).toEqual([
      ['REPO', 'EXIT'],
      [good, '0'],
      [missing, 'fetch failed'],
      [broken, '3'],
    ]);
    expect(await readFile(join(work, 'out', `003-${broken.split('/').pop()}.log`), 'utf8')).toContain('is not valid JSON');
  });

  it('refuses to reuse an output directory', async () => {
    const work = await makeTree({ 'out/x': '' });
    const run = runMany(['-o', 'out', 'whatever'], work);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('already exists');
  });
});

describe.concurrent('examples/batch/runner-step.sh, in a campaign runner\'s place (multi-gitter, turbolift)', () => {
  const STEP = join(ROOT, 'examples', 'batch', 'runner-step.sh');
  const gitIn = (dir: string, ...args: string[]): string => execFileSync('git', ['-C', dir, '-c', 'commit.gpgsign=false', ...args], { encoding: 'utf8', env: { ...process.env, ...GIT_ENV } }).trim();

  /** A bare repository (the "remote") holding one corpus case, and files changed or added on top. */
  async function makeRemote(corpusCase: string, files: Record<string, string> = {}): Promise<string> {
    const repo = await makeRepo(corpusCase);
    for (const [name, text] of Object.entries(files)) await writeFile(join(repo, name), text);
    gitIn(repo, 'add', '.');
    gitIn(repo, 'commit', '-q', '--allow-empty', '-m', 'more');
    // (in a temp tree of its own, removed with the others)
    const bare = join(await makeTree({}), 'remote.git');
    execFileSync('git', ['clone', '-q', '--bare', repo, bare]);
    return bare;
  }

  /**
   * What multi-gitter does per repository: clone, run the step, and when it exits 0 with changes, commit
   * them on a branch and push it (the pull request); any other exit skips the repository.
   */
  async function playRunner(remote: string): Promise<{ status: number | null; stderr: string; pushed: string[]; report: string }> {
    const work = await makeTree({});
    const checkout = join(work, 'repo');
    execFileSync('git', ['clone', '-q', remote, checkout]);
    const report = join(work, 'report.md');
    const step = spawnSync('bash', [STEP], { cwd: checkout, encoding: 'utf8', env: { ...process.env, ...GIT_ENV, NO_COLOR: '1', MCP_MIGRATE: `${process.execPath} ${BIN}`, MCP_MIGRATE_REPORT: report } });
    if (step.status === 0 && gitIn(checkout, 'status', '--porcelain') !== '') {
      gitIn(checkout, 'checkout', '-q', '-b', 'mcp-migrate/sdk');
      gitIn(checkout, 'add', '-A');
      gitIn(checkout, 'commit', '-q', '-m', 'Move the MCP server onto the SDK (mcp-migrate)');
      gitIn(checkout, 'push', '-q', 'origin', 'mcp-migrate/sdk');
    }
    const pushed = gitIn(remote, 'branch', '--list', 'mcp-migrate/sdk') === '' ? [] : gitIn(remote, 'diff', '--name-only', 'HEAD', 'mcp-migrate/sdk').split('\n');
    return { status: step.status, stderr: step.stderr, pushed, report: await readFile(report, 'utf8').catch(() => '') };
  }

  it('a server: exit 0, the migration pushed on a branch, the markdown report outside the repository for the pull request', async () => {
    const run = await playRunner(await makeRemote('01-cjs-readline-bare-ifs'));
    expect(run.status, run.stderr).toBe(0);
    expect(run.pushed).toEqual(['package.json', 'server.js']);
    expect(run.report).toContain('server.js');
  });

  it('a server and a file that does not parse: mcp-migrate exits 3, the step exits 0 and what was written is pushed', async () => {
    const run = await playRunner(await makeRemote('01-cjs-readline-bare-ifs', { 'broken.js': "process.stdin.on('data', (d) => { JSON.parse(d) // jsonrpc\n" }));
    expect(run.stderr).toContain('mcp-migrate exited 3');
    expect(run.status).toBe(0);
    expect(run.pushed).toEqual(['package.json', 'server.js']);
  });

  it('nothing written but files that could not be processed: the step exits 3 and the runner skips the repository', async () => {
    const run = await playRunner(await makeRemote('14-jsonl-worker-not-mcp', { 'broken.js': "process.stdin.on('data', (d) => { JSON.parse(d) // jsonrpc\n" }));
    expect(run.status).toBe(3);
    expect(run.pushed).toEqual([]);
  });

  it('nothing to migrate: exit 0 and no change, so no pull request', async () => {
    const run = await playRunner(await makeRemote('14-jsonl-worker-not-mcp'));
    expect(run.status).toBe(0);
    expect(run.pushed).toEqual([]);
  });
});
