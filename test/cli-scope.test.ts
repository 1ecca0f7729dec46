// --ignore / --include, and the nested trees a run does not enter (a git checkout inside the scanned
// directory, a package that is not a member of the scanned workspace): through main, with the fake pipeline.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { matchesPath, parsePatterns } from '../src/runner/scope.js';
import { makeHarness, makeTree, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const MIGRATE = `${SERVER_HINT}// MIGRATE_ME\n`;

describe('scope globs', () => {
  it('match in gitignore syntax, a directory matching covers what is below it', () => {
    const rules = parsePatterns(['test/**', 'fixtures/', '*.spec.js', '!keep.spec.js']);
    expect(matchesPath(rules, 'test/a.js')).toBe(true);
    expect(matchesPath(rules, 'src/test/a.js')).toBe(false); // `test/**` is anchored: it has a slash
    expect(matchesPath(rules, 'pkg/fixtures/deep/server.js')).toBe(true); // `fixtures/` matches at any depth
    expect(matchesPath(rules, 'src/a.spec.js')).toBe(true);
    expect(matchesPath(rules, 'src/keep.spec.js')).toBe(false);
    expect(matchesPath(rules, 'src/server.js')).toBe(false);
  });
});

describe('main: --ignore and --include', () => {
  const tree = { 'src/server.js': MIGRATE, 'test/fixtures/fake-server.js': MIGRATE, 'examples/demo/server.js': MIGRATE };

  it("--ignore 'test/**' leaves the fixtures alone (repeatable)", async () => {
    const root = await makeTree(tree);
    const h = makeHarness(root);
    expect(await main(['--check', '--ignore', 'test/**', '--ignore=examples/', '.'], h.deps)).toBe(1);
    expect(h.stdout()).toContain('--- a/src/server.js');
    expect(h.stdout()).not.toContain('fake-server.js');
    expect(h.stdout()).not.toContain('examples/demo');
    expect(h.stdout()).toContain('left out by --ignore/--include: 2 files');
  });

  it('is relative to the scanned directory', async () => {
    const root = await makeTree({ 'pkg/src/server.js': MIGRATE, 'pkg/test/x.js': MIGRATE });
    const h = makeHarness(root);
    await main(['--check', '--ignore', 'test/**', 'pkg'], h.deps);
    expect(h.stdout()).toContain('--- a/pkg/src/server.js');
    expect(h.stdout()).not.toContain('pkg/test/x.js');
  });

  it('--include keeps only what matches', async () => {
    const root = await makeTree(tree);
    const h = makeHarness(root);
    await main(['--dry-run', '--include', 'src/**'], h.deps);
    expect(h.stdout()).toContain('--- a/src/server.js');
    expect(h.stdout()).not.toContain('fake-server.js');
    expect(h.stdout()).not.toContain('examples/demo');
  });

  it('an empty glob is a usage error', async () => {
    const h = makeHarness(await makeTree(tree));
    expect(await main(['--check', '--ignore', ''], h.deps)).toBe(2);
    expect(h.stderr()).toContain('--ignore needs a glob');
  });
});

describe('main: trees that are not part of the scanned project', () => {
  it('skips a nested git checkout and names it in the summary; naming it scans it', async () => {
    const root = await makeTree({ 'src/server.js': MIGRATE, 'mcp-migrate/test/fixtures/a.js': MIGRATE, 'mcp-migrate/package.json': '{}\n' });
    await mkdir(join(root, 'mcp-migrate', '.git'));
    const h = makeHarness(root);
    await main(['--check', '.'], h.deps);
    expect(h.stdout()).toContain('--- a/src/server.js');
    expect(h.stdout()).not.toContain('--- a/mcp-migrate/');
    expect(h.stdout()).toContain('not scanned, not part of this project: mcp-migrate/ (nested git checkout)');
    const named = makeHarness(root);
    await main(['--check', 'mcp-migrate'], named.deps);
    expect(named.stdout()).toContain('--- a/mcp-migrate/test/fixtures/a.js');
  });

  it('in a workspace, skips a package that is not a member; --include reaches it', async () => {
    const root = await makeTree({
      'package.json': JSON.stringify({ name: 'mono', private: true, workspaces: ['packages/*'] }),
      'packages/a/package.json': '{ "name": "a" }\n',
      'packages/a/server.js': MIGRATE,
      'packages/a/test/fixture-pkg/package.json': '{ "name": "fixture" }\n',
      'packages/a/test/fixture-pkg/server.js': MIGRATE,
      'tools/gen/package.json': '{ "name": "gen" }\n',
      'tools/gen/server.js': MIGRATE,
    });
    const h = makeHarness(root);
    await main(['--check', '.'], h.deps);
    expect(h.stdout()).toContain('--- a/packages/a/server.js');
    expect(h.stdout()).not.toContain('fixture-pkg/server.js\n');
    expect(h.stdout()).not.toContain('--- a/tools/gen/server.js');
    expect(h.stdout()).toContain('packages/a/test/fixture-pkg/ (package, not a workspace member), tools/gen/ (package, not a workspace member)');
    const included = makeHarness(root);
    await main(['--check', '--include', 'tools/**', '.'], included.deps);
    expect(included.stdout()).toContain('--- a/tools/gen/server.js');
  });

  it('without a workspace, nested packages are scanned as before', async () => {
    const root = await makeTree({ 'a/package.json': '{}\n', 'a/server.js': MIGRATE, 'b/package.json': '{}\n', 'b/server.js': MIGRATE });
    const h = makeHarness(root);
    await main(['--check', '.'], h.deps);
    expect(h.stdout()).toContain('--- a/a/server.js');
    expect(h.stdout()).toContain('--- a/b/server.js');
  });
});
