// Issue 19, items 1 and 8: the repository cannot run a program through git, nor blind the clean-tree
// guard. Each repository here is built to do one of those; the git client must neither run its program
// nor report the tree clean.
import { afterAll, describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { buildGitEnv, checkCleanTree, createGitClient } from '../src/runner/git.js';
import { discoverFiles } from '../src/runner/discover.js';
import { makeHarness, makeTree, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'core.fsmonitor=false', '-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'protocol.file.allow=always', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
  });

async function commitTree(files: Record<string, string>): Promise<string> {
  const root = await makeTree(files);
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'init');
  return root;
}

describe('a filter driver whose name holds "=" (item 1)', () => {
  it('runs during no git call of the tool', async () => {
    const marker = join(await makeTree({}), 'PWNED');
    const root = await commitTree({ 'src/server.js': `${SERVER_HINT}// MIGRATE_ME\n`, '.gitattributes': '*.js filter=a=b\n' });
    // `-c filter.a=b.clean=` would set `filter.a` to `b.clean=`: the driver would stay as configured.
    git(root, 'config', 'filter.a=b.clean', `touch ${marker}; cat`);
    git(root, 'config', 'filter.a=b.process', `touch ${marker}`);
    // a new mtime with the same bytes: git re-reads the file (racily clean), the moment a clean filter runs
    const later = new Date(Date.now() + 5_000);
    await utimes(join(root, 'src/server.js'), later, later);
    const client = createGitClient();
    expect(await client.dirtyFiles(root)).toEqual([]);
    expect(await client.changedFiles(root, 'HEAD')).toEqual({ kind: 'ok', files: [] });
    expect((await discoverFiles(['.'], root)).files).toEqual([join(root, 'src/server.js')]);
    expect(await main(['--yes', '--no-verify'], makeHarness(root, { git: client }).deps)).toBe(0);
    await expect(readdir(join(marker, '..'))).resolves.toEqual([]);
  });

  it('keeps key and value apart in the environment, after the caller\'s own entries', () => {
    const env = buildGitEnv([['filter.a=b.clean', '']], { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'user.name', GIT_CONFIG_VALUE_0: 'me', GIT_DIR: '/elsewhere' });
    expect(env.GIT_CONFIG_COUNT).toBe('2');
    expect([env.GIT_CONFIG_KEY_0, env.GIT_CONFIG_VALUE_0]).toEqual(['user.name', 'me']);
    expect([env.GIT_CONFIG_KEY_1, env.GIT_CONFIG_VALUE_1]).toEqual(['filter.a=b.clean', '']);
    expect(env.GIT_DIR).toBeUndefined();
  });
});

describe('the clean-tree guard cannot be blinded (item 8)', () => {
  it('sees an untracked server under status.showUntrackedFiles=no', async () => {
    const root = await commitTree({ 'README.md': 'x\n' });
    git(root, 'config', 'status.showUntrackedFiles', 'no');
    await writeFile(join(root, 'server.js'), `${SERVER_HINT}// MIGRATE_ME\n`);
    expect((await checkCleanTree(createGitClient(), [root])).dirty).toEqual([join(root, 'server.js')]);
    const h = makeHarness(root, { git: createGitClient() });
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(2);
    expect(h.stderr()).toContain('server.js');
  });

  it('sees a file marked assume-unchanged or skip-worktree that was changed', async () => {
    const root = await commitTree({ 'a.js': 'a\n', 'b.js': 'b\n', 'c.js': 'c\n' });
    git(root, 'update-index', '--assume-unchanged', 'a.js');
    git(root, 'update-index', '--skip-worktree', 'b.js');
    git(root, 'update-index', '--assume-unchanged', 'c.js');
    await writeFile(join(root, 'a.js'), 'changed\n');
    await writeFile(join(root, 'b.js'), 'changed\n');
    expect(git(root, 'status', '--porcelain')).toBe(''); // what the old guard saw
    expect((await checkCleanTree(createGitClient(), [root])).dirty).toEqual([join(root, 'a.js'), join(root, 'b.js')]);
  });

  it('looks into a submodule whatever .gitmodules says', async () => {
    const sub = await commitTree({ 'server.js': 'x\n' });
    const root = await commitTree({ 'README.md': 'x\n' });
    git(root, 'submodule', 'add', '-q', sub, 'sub');
    git(root, 'config', '-f', '.gitmodules', 'submodule.sub.ignore', 'all');
    git(root, 'commit', '-q', '-am', 'sub');
    await writeFile(join(root, 'sub/server.js'), `${SERVER_HINT}// MIGRATE_ME\n`);
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect((await checkCleanTree(createGitClient(), [root])).dirty).toEqual([join(root, 'sub/server.js')]);
  });

  it('refuses a tree whose .git git will not open, unless --force', async () => {
    const root = await makeTree({ 'server.js': `${SERVER_HINT}// MIGRATE_ME\n`, '.git': 'gitdir: /nonexistent/elsewhere\n' });
    const check = await checkCleanTree(createGitClient(), [root]);
    expect(check.refused).toHaveLength(1);
    expect(check.refused[0]).toContain('/nonexistent/elsewhere');
    const h = makeHarness(root, { git: createGitClient() });
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(2);
    expect(h.stderr()).toContain('git will not vouch for the work tree');
    expect(h.stderr()).toContain('--force');
    expect(await main(['--yes', '--no-verify', '--force'], makeHarness(root, { git: createGitClient() }).deps)).toBe(0);
  });
});
