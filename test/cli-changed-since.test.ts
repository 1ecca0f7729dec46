// --changed-since against real git repositories: committed, uncommitted and untracked changes since a
// ref are looked at, nothing else; a bad ref or a missing repository is a usage error (exit 2).
import { afterAll, describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { USAGE } from '../src/cli/args.js';
import { resolveChangedScope } from '../src/runner/changed.js';
import { createGitClient } from '../src/runner/git.js';
import { createFakePipeline, makeHarness, makeTree, read, removeTrees, SERVER_HINT, writeTree } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const MIGRATE = `${SERVER_HINT}// MIGRATE_ME\n`;
const pkg = (name: string): string => `{\n  "name": "${name}",\n  "version": "1.0.0"\n}\n`;

function gitIn(root: string): (...args: string[]) => string {
  return (...args) => execFileSync('git', ['-C', root, '-c', 'user.email=t@t', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], { encoding: 'utf8' });
}

/**
 * A repository tagged `base`, then: d changed in a commit, f renamed to g in a commit, e deleted,
 * a changed in the work tree, c added untracked, an ignored untracked server; b never changes.
 */
async function makeRepo(): Promise<string> {
  const root = await makeTree({
    '.gitignore': 'scratch/\n',
    'packages/a/package.json': pkg('a'),
    'packages/a/server.js': MIGRATE,
    'packages/b/package.json': pkg('b'),
    'packages/b/server.js': MIGRATE,
    'packages/c/package.json': pkg('c'),
    'packages/d/server.js': MIGRATE,
    'packages/e/server.js': MIGRATE,
    'packages/f/server.js': `${MIGRATE}// f\n`,
  });
  const git = gitIn(root);
  git('init', '-q');
  git('add', '.');
  git('commit', '-q', '-m', 'base');
  git('tag', 'base');
  await writeFile(join(root, 'packages/d/server.js'), `${MIGRATE}// committed change\n`);
  await rename(join(root, 'packages/f/server.js'), join(root, 'packages/f/renamed.js'));
  await rm(join(root, 'packages/e/server.js'));
  git('add', '-A');
  git('commit', '-q', '-m', 'pr work');
  await writeFile(join(root, 'packages/a/server.js'), `${MIGRATE}// uncommitted change\n`);
  await writeFile(join(root, 'packages/c/server.js'), MIGRATE);
  await writeFile(join(root, 'scratch.js'), 'not a server\n');
  await writeTree(root, { 'scratch/server.js': MIGRATE });
  return root;
}

describe('--changed-since', () => {
  it('is documented in --help', () => {
    expect(USAGE).toContain('--changed-since REF');
  });

  it('lists committed, uncommitted and untracked changes, not deletions or ignored files', async () => {
    const root = await makeRepo();
    const scope = await resolveChangedScope(createGitClient(), ['.'], root, 'base');
    expect(scope.kind).toBe('ok');
    if (scope.kind !== 'ok') return;
    expect([...scope.files].sort()).toEqual(
      ['packages/a/server.js', 'packages/c/server.js', 'packages/d/server.js', 'packages/f/renamed.js', 'scratch.js'].map((p) => join(root, p)),
    );
  });

  it('processes only the changed servers, and they still get their package.json change', async () => {
    const root = await makeRepo();
    const fake = createFakePipeline();
    const h = makeHarness(root, { git: createGitClient(), process: fake.process });
    expect(await main(['--check', '--changed-since', 'base', '.'], h.deps)).toBe(1);
    // Which files, not in which order: files are processed concurrently (results are sorted afterwards).
    expect(fake.calls.map((c) => c.path).sort()).toEqual(['packages/a/server.js', 'packages/c/server.js', 'packages/d/server.js', 'packages/f/renamed.js'].map((p) => join(root, p)));
    expect(h.stdout()).toContain('Looking only at files changed since base');
    expect(h.stdout()).toContain('+    "@modelcontextprotocol/server"');
    expect(h.stdout()).not.toContain('packages/b/server.js');

    // A real run (the tree is dirty: that is what is being migrated, hence --force).
    const apply = makeHarness(root, { git: createGitClient(), process: createFakePipeline().process });
    expect(await main(['--yes', '--no-verify', '--force', '--changed-since', 'base'], apply.deps)).toBe(0);
    expect(await read(root, 'packages/a/server.js')).toContain('MIGRATED_v2_server');
    expect(await read(root, 'packages/c/server.js')).toContain('MIGRATED_v2_server');
    expect(await read(root, 'packages/a/package.json')).toContain('"@modelcontextprotocol/server": "^2.4.0"');
    expect(await read(root, 'packages/c/package.json')).toContain('"zod"');
    expect(await read(root, 'packages/b/server.js')).toBe(MIGRATE);
    expect(await read(root, 'packages/b/package.json')).toBe(pkg('b'));
    expect(await read(root, 'scratch/server.js')).toBe(MIGRATE);
  });

  it('intersects with the paths given', async () => {
    const root = await makeRepo();
    const fake = createFakePipeline();
    const h = makeHarness(root, { git: createGitClient(), process: fake.process });
    expect(await main(['--dry-run', '--changed-since', 'base', 'packages/a', 'packages/b'], h.deps)).toBe(0);
    expect(fake.calls.map((c) => c.path)).toEqual([join(root, 'packages/a/server.js')]);

    // Run from a subdirectory: paths are still right.
    const sub = makeHarness(join(root, 'packages'), { git: createGitClient(), process: createFakePipeline().process });
    expect(await main(['--dry-run', '--changed-since', 'base'], sub.deps)).toBe(0);
    expect(sub.stdout()).toContain('--- a/d/server.js');
    expect(sub.stdout()).not.toContain('b/server.js');
  });

  it('looks at nothing when nothing changed', async () => {
    const root = await makeTree({ 'package.json': pkg('x'), 'server.js': MIGRATE });
    const git = gitIn(root);
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'base');
    const fake = createFakePipeline();
    const h = makeHarness(root, { git: createGitClient(), process: fake.process });
    expect(await main(['--check', '--changed-since', 'HEAD'], h.deps)).toBe(0);
    expect(fake.calls).toEqual([]);
    expect(h.stdout()).toContain('Nothing to migrate.');
  });

  it('exits 2 naming an unknown ref', async () => {
    const root = await makeRepo();
    const fake = createFakePipeline();
    const h = makeHarness(root, { git: createGitClient(), process: fake.process });
    expect(await main(['--check', '--changed-since', 'origin/no-such-branch'], h.deps)).toBe(2);
    expect(h.stderr()).toContain('unknown git ref "origin/no-such-branch"');
    expect(h.stderr()).toContain('fetch-depth: 0');
    expect(fake.calls).toEqual([]);
  });

  it('exits 2 outside a git repository', async () => {
    const root = await makeTree({ 'server.js': MIGRATE });
    const fake = createFakePipeline();
    const h = makeHarness(root, { git: createGitClient(), process: fake.process });
    expect(await main(['--check', '--changed-since', 'main'], h.deps)).toBe(2);
    expect(h.stderr()).toContain('--changed-since needs a git work tree');
    expect(fake.calls).toEqual([]);
  });
});
