import { afterAll, describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { expandWorkspacePatterns, resolveWorkspace, parsePnpmWorkspacePackages, WorkspaceCache } from '../src/runner/workspaces.js';
import { scanFiles } from '../src/runner/scan.js';
import { createFakePipeline, makeTree, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

describe('workspaces', () => {
  it('reads an npm/yarn workspaces array, with globs and negation', async () => {
    const root = await makeTree({
      'package.json': '{"name": "root", "workspaces": ["packages/*", "tools/cli", "!packages/private"]}',
      'packages/a/package.json': '{"name": "@acme/a"}',
      'packages/b/package.json': '{"name": "@acme/b"}',
      'packages/private/package.json': '{"name": "@acme/private"}',
      'packages/not-a-package/readme.md': '',
      'tools/cli/package.json': '{}',
    });
    const ws = await resolveWorkspace(join(root, 'packages/a'), root);
    expect(ws?.root).toBe(root);
    expect(ws?.manager).toBe('npm');
    expect(ws?.packages).toEqual([
      { name: '@acme/a', dir: join(root, 'packages/a') },
      { name: '@acme/b', dir: join(root, 'packages/b') },
      { name: null, dir: join(root, 'tools/cli') },
    ]);
    expect(ws?.warnings).toEqual([]);
  });

  it('expands a workspace once per run: a member and the root ask the one cache about the same packages', async () => {
    const root = await makeTree({
      'package.json': '{"workspaces": ["packages/*"]}',
      'packages/a/package.json': '{"name": "a"}',
      'packages/b/package.json': '{"name": "b"}',
    });
    const cache = new WorkspaceCache();
    const fromMember = await cache.resolve(join(root, 'packages/a'), null);
    expect(fromMember?.packages.map((p) => p.name)).toEqual(['a', 'b']);
    // the members are not read again (gone now, they are still the run's); the root's own file is
    await rm(join(root, 'packages/b'), { recursive: true });
    expect((await cache.resolve(root, root))?.packages.map((p) => p.name)).toEqual(['a', 'b']);
    expect((await resolveWorkspace(root, root))?.packages.map((p) => p.name)).toEqual(['a']);
  });

  it('reads the { packages: [] } form and warns about a pattern that matches nothing', async () => {
    const root = await makeTree({
      'package.json': '{"workspaces": {"packages": ["apps/**", "libs/*"]}}',
      'apps/web/package.json': '{"name": "web"}',
      'apps/group/api/package.json': '{"name": "api"}',
    });
    const ws = await resolveWorkspace(root, root);
    expect(ws?.packages.map((p) => p.name)).toEqual(['api', 'web']);
    expect(ws?.warnings).toEqual([`workspace pattern "libs/*" in ${root} matches no package`]);
  });

  it('reads pnpm-workspace.yaml', async () => {
    expect(parsePnpmWorkspacePackages("packages:\n  - 'packages/*'\n  - \"apps/*\" # apps\n  - '!**/test/**'\ncatalog:\n  zod: ^4\n")).toEqual([
      'packages/*',
      'apps/*',
      '!**/test/**',
    ]);
    expect(parsePnpmWorkspacePackages('packages: [a/*, "b"]\n')).toEqual(['a/*', 'b']);
    const root = await makeTree({ 'pnpm-workspace.yaml': 'packages:\n  - packages/*\n', 'packages/x/package.json': '{"name": "x"}' });
    const ws = await resolveWorkspace(join(root, 'packages/x'), root);
    expect(ws?.manager).toBe('pnpm');
    expect(ws?.packages).toEqual([{ name: 'x', dir: join(root, 'packages/x') }]);
  });

  it('returns null outside a workspace', async () => {
    const root = await makeTree({ 'package.json': '{"name": "single"}' });
    expect(await resolveWorkspace(root, root)).toBeNull();
  });

  it('groups a monorepo scan per package with one install command at the root', async () => {
    const server = `${SERVER_HINT}// MIGRATE_ME\n`;
    const root = await makeTree({
      '.git/HEAD': '',
      'pnpm-lock.yaml': '',
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\n  - missing/*\n',
      'package.json': '{"name": "root", "private": true}\n',
      'packages/a/package.json': '{\n  "name": "@acme/a"\n}\n',
      'packages/a/src/server.js': server,
      'packages/b/package.json': '{\n  "name": "@acme/b"\n}\n',
      'packages/b/server.ts': server,
      'packages/b/other.ts': `${SERVER_HINT}// LEAVE_ME\n`,
    });
    const scan = await scanFiles({ paths: ['.'], cwd: root, sdk: 'auto', style: 'server', process: createFakePipeline().process });
    expect(scan.packages.map((p) => [p.name, p.files.length])).toEqual([
      ['@acme/a', 1],
      ['@acme/b', 2],
    ]);
    expect(scan.manifests.map((m) => [m.change.path, m.change.installCommand, m.installDir])).toEqual([
      [join(root, 'packages/a/package.json'), 'pnpm install', root],
      [join(root, 'packages/b/package.json'), 'pnpm install', root],
    ]);
    expect(scan.warnings).toEqual([`workspace pattern "missing/*" in ${root} matches no package`]);
  });

  it('matches a glob of many stars and an exclusion in time linear in the name (no backtracking): 12 stars over a 40-character folder', async () => {
    const name = 'a'.repeat(40);
    const root = await makeTree({ [`packages/${name}/package.json`]: '{"name": "long"}', 'packages/ab/package.json': '{"name": "ab"}' });
    const stars = `packages/${'*a'.repeat(12)}*b`;
    // (a regular expression backtracked for over 120 s on this: the test's own timeout is the guard)
    const { packages } = await expandWorkspacePatterns(root, [stars, 'packages/*', `!packages/${'*a'.repeat(12)}*c`]);
    expect(packages.map((p) => p.name).sort()).toEqual(['ab', 'long']);
    const excluded = await expandWorkspacePatterns(root, ['packages/*', '!packages/**/a*a']);
    expect(excluded.packages.map((p) => p.name)).toEqual(['ab']);
  }, 10_000);
});
