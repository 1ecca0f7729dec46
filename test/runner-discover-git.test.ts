// Discovery inside a git work tree: `git ls-files` (tracked, plus untracked that git does not ignore)
// decides, so committed files under build/, dist/ or coverage/ are found; only node_modules is skipped by
// rule there, and every directory skipped by rule is reported. Outside a work tree the walker still skips
// build output by name, and says so.
import { afterAll, describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { discoverFiles } from '../src/runner/discover.js';
import { main } from '../src/cli/main.js';
import { makeHarness, makeTree, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const rel = (root: string, files: string[]): string[] => files.map((f) => f.slice(root.length + 1));
const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent' };

function git(root: string, ...args: string[]): void {
  execFileSync('git', ['-C', root, '-c', 'commit.gpgsign=false', ...args], { env: { ...process.env, ...GIT_ENV }, stdio: 'ignore' });
}

async function makeRepo(files: Record<string, string>, commit: string[]): Promise<string> {
  const root = await makeTree(files);
  git(root, 'init', '-q');
  git(root, 'add', '--force', '--', ...commit);
  git(root, 'commit', '-q', '-m', 'init');
  return root;
}

describe('discoverFiles in a git work tree', () => {
  it('finds committed files under build/, dist/ and coverage/, and untracked files git does not ignore', async () => {
    const root = await makeRepo(
      {
        '.gitignore': 'dist/\n*.log.js\n',
        'build/server.js': '', 'dist/committed.js': '', 'coverage/tool.js': '', 'src/a.ts': '',
        'dist/generated.js': '', 'scratch.js': '', 'debug.log.js': '', 'types.d.ts': '',
      },
      ['.gitignore', 'build/server.js', 'dist/committed.js', 'coverage/tool.js', 'src/a.ts'],
    );
    const found = await discoverFiles(['.'], root);
    // dist/committed.js is tracked (git does not ignore tracked files); dist/generated.js is ignored
    expect(rel(root, found.files)).toEqual(['build/server.js', 'coverage/tool.js', 'dist/committed.js', 'scratch.js', 'src/a.ts']);
    expect(found.excluded).toEqual([]);
    expect(found.problems).toEqual([]);
  });

  it('hands the listing on as one batch, shallow files first, each depth in path order', async () => {
    const root = await makeRepo({ 'a/b/c/lib.js': '', 'a/index.js': '', 'b/deep/x.js': '', 'b/server.js': '', 'top.js': '' }, ['.']);
    const batches: string[][] = [];
    await discoverFiles(['.'], root, (files) => {
      batches.push(rel(root, [...files]));
    });
    expect(batches).toEqual([['top.js', 'a/index.js', 'b/server.js', 'b/deep/x.js', 'a/b/c/lib.js']]);
  });

  it('still skips node_modules by rule, and reports it', async () => {
    const root = await makeRepo({ 'node_modules/dep/index.js': '', 'packages/a/node_modules/x.js': '', 'packages/a/index.js': '' }, ['.']);
    const found = await discoverFiles(['.'], root);
    expect(rel(root, found.files)).toEqual(['packages/a/index.js']);
    expect(found.excluded.map((e) => [e.path.slice(root.length + 1), e.rule])).toEqual([
      ['node_modules', 'node_modules'],
      ['packages/a/node_modules', 'node_modules'],
    ]);
  });

  it('lists only under a subdirectory, skips deleted and symlinked files, and enters a nested repository', async () => {
    const root = await makeRepo({ 'src/a.js': '', 'src/gone.js': '', 'other/b.js': '' }, ['.']);
    await rm(join(root, 'src/gone.js'));
    await symlink(join(root, 'other/b.js'), join(root, 'src/link.js'));
    const nested = await makeRepo({ 'x.js': '' }, ['.']);
    execFileSync('cp', ['-R', nested, join(root, 'src/vendor-repo')]);
    const found = await discoverFiles(['src'], root);
    expect(rel(root, found.files)).toEqual(['src/a.js', 'src/vendor-repo/x.js']);
  });

  it('a named directory that .gitignore ignores is still scanned (with a warning)', async () => {
    const root = await makeRepo({ '.gitignore': 'gen/\n', 'gen/a.js': '' }, ['.gitignore']);
    const found = await discoverFiles(['gen'], root);
    expect(rel(root, found.files)).toEqual(['gen/a.js']);
    expect(found.warnings).toEqual(['gen: is ignored by .gitignore; scanned anyway because it was named']);
  });
});

describe('discoverFiles outside a git work tree', () => {
  it('skips build output and dependencies by name, and reports each directory', async () => {
    const root = await makeTree({ 'build/server.js': '', 'dist/x.js': '', 'node_modules/d/i.js': '', 'coverage/c.js': '', 'src/a.js': '', 'src/build/b.js': '' });
    const found = await discoverFiles(['.'], root);
    expect(rel(root, found.files)).toEqual(['src/a.js']);
    expect(found.excluded.map((e) => [e.path.slice(root.length + 1), e.rule])).toEqual([
      ['build', 'build'],
      ['coverage', 'coverage'],
      ['dist', 'dist'],
      ['node_modules', 'node_modules'],
      ['src/build', 'build'],
    ]);
  });
});

describe('a committed build/server.js is migrated', () => {
  it('is found and offered by a real run', async () => {
    const root = await makeRepo({ 'package.json': '{"name": "x"}\n', 'build/server.js': `${SERVER_HINT}// MIGRATE_ME\n` }, ['.']);
    const h = makeHarness(root);
    expect(await main(['--check'], h.deps)).toBe(1);
    expect(h.stdout()).toContain('--- a/build/server.js');
  });
});

describe('the summary names what was skipped by rule', () => {
  it('lists a few directories, counts many, and says why build folders were skipped', async () => {
    const { describeExcluded, renderSummary } = await import('../src/cli/summary.js');
    const { createPaint } = await import('../src/cli/render.js');
    const display = (path: string): string => path.replace('/r/', '');
    expect(describeExcluded([{ path: '/r/node_modules', rule: 'node_modules' }], display)).toBe('node_modules/ (dependencies)');
    expect(describeExcluded([{ path: '/r/dist', rule: 'dist' }, { path: '/r/web/node_modules', rule: 'node_modules' }], display)).toBe(
      'dist/ (build output), web/node_modules/ (dependencies); not in a git work tree, so build folders are skipped by name (in one, committed files there are scanned)',
    );
    const many = ['a', 'b', 'c', 'd'].map((d) => ({ path: `/r/${d}/node_modules`, rule: 'node_modules' }));
    expect(describeExcluded(many, display)).toBe('4 node_modules/ (dependencies)');
    const root = await makeTree({ 'node_modules/d/i.js': '', 'src/a.js': '' });
    const { scanFiles } = await import('../src/runner/scan.js');
    const scan = await scanFiles({ paths: ['.'], cwd: root, sdk: 'v1', style: 'server' });
    const { discoverFiles: discover } = await import('../src/runner/discover.js');
    // what scan.ts will forward (`excluded: discovery.excluded`)
    const withExcluded = { ...scan, excluded: (await discover(['.'], root)).excluded };
    const text = renderSummary({ scan: withExcluded, mode: 'dry-run', outcome: null, errors: [], display: (p) => p.slice(root.length + 1) || '.', paint: createPaint(false) });
    expect(text).toContain('  not scanned, by rule: node_modules/ (dependencies)\n');
  });
});
