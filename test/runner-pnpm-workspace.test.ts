// pnpm-workspace.yaml read as YAML (every valid way of writing the `packages:` list), and the install
// command from package-manager-detector (lockfiles and package.json fields beyond the four classic ones).
import { afterAll, describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { getInstallCommand, resolveInstallPlan } from '../src/runner/manifest.js';
import { readPnpmWorkspace, resolveWorkspace } from '../src/runner/workspaces.js';
import { makeTree, removeTrees } from './fixtures/cli/harness.js';

afterAll(removeTrees);

describe('pnpm-workspace.yaml', () => {
  it.each([
    ['a block list', 'packages:\n  - apps/*\n  - libs/*\n'],
    ['a block list at the key\'s indentation', 'packages:\n- apps/*\n- libs/*\n'],
    ['a one-line flow list', 'packages: [apps/*, libs/*]\n'],
    ['a flow list over several lines', 'packages: [\n  "apps/*",\n  "libs/*",\n]\n'],
    ['quoted items with comments', "# the workspace\npackages:   # all of it\n  - 'apps/*'   # apps\n  - \"libs/*\"\n"],
    ['a document marker', '---\npackages:\n  - apps/*\n  - libs/*\n...\n'],
    ['CRLF and a BOM', '\uFEFFpackages:\r\n  - apps/*\r\n  - libs/*\r\n'],
    ['an alias', 'x-shared: &dirs\n  - apps/*\n  - libs/*\npackages: *dirs\n'],
    ['a quoted key after other settings', 'catalog:\n  zod: ^4\nonlyBuiltDependencies:\n  - esbuild\n"packages":\n  - apps/*\n  - libs/*\n'],
    ['block scalar items', 'packages:\n  - >-\n    apps/*\n  - |-\n    libs/*\n'],
    ['an explicit tag', 'packages: !!seq\n  - apps/*\n  - libs/*\n'],
  ])('reads %s', (_label, text) => {
    expect(readPnpmWorkspace(text)).toEqual({ patterns: ['apps/*', 'libs/*'], problem: null });
  });

  it('a file without packages (pnpm 9 settings only) is valid and empty', () => {
    expect(readPnpmWorkspace('catalog:\n  zod: ^4\n')).toEqual({ patterns: [], problem: null });
    expect(readPnpmWorkspace('')).toEqual({ patterns: [], problem: null });
  });

  it.each([
    ['invalid YAML', 'packages:\n  - apps/*\n  bad: [\n', /^not valid YAML \(line \d+\): .*; its workspace packages are not known$/],
    ['packages as a string', 'packages: apps/*\n', /^`packages` is not a list/],
    ['a top level that is a list', '- apps/*\n', /^the top level is not a mapping/],
  ])('says what is wrong with %s instead of reading it as empty', (_label, text, problem) => {
    const read = readPnpmWorkspace(text);
    expect(read.patterns).toEqual([]);
    expect(read.problem).toMatch(problem);
  });

  it('keeps the string entries of a list with other values, and says so', () => {
    expect(readPnpmWorkspace('packages:\n  - apps/*\n  - 42\n')).toEqual({ patterns: ['apps/*'], problem: '1 `packages` entry is not a string; ignored' });
  });

  it('puts the problem in the workspace warnings', async () => {
    const root = await makeTree({ 'pnpm-workspace.yaml': 'packages: [apps/*\n', 'apps/a/package.json': '{"name": "a"}' });
    const ws = await resolveWorkspace(join(root, 'apps/a'), root);
    expect(ws?.manager).toBe('pnpm');
    expect(ws?.warnings).toHaveLength(1);
    expect(ws?.warnings[0]).toMatch(new RegExp(`^${join(root, 'pnpm-workspace.yaml').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: not valid YAML`));
  });
});

// the lock-only update of each lockfile (yarn.lock here is yarn 4: berry)
const LOCK_UPDATES: Record<string, string[]> = { 'package-lock.json': ['npm', 'install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], 'npm-shrinkwrap.json': ['npm', 'install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], 'pnpm-lock.yaml': ['pnpm', 'install', '--lockfile-only', '--ignore-scripts'], 'yarn.lock': ['yarn', 'install', '--mode=update-lockfile'] };

describe('install command (package-manager-detector)', () => {
  it.each([
    ['deno.lock', {}, 'deno install'],
    ['yarn.lock', { packageManager: 'yarn@4.5.0' }, 'yarn install'],
    ['pnpm-lock.yaml', {}, 'pnpm install'],
    ['package-lock.json', {}, 'npm install'],
    ['npm-shrinkwrap.json', {}, 'npm install'],
    ['bun.lock', {}, 'bun install'],
  ])('%s (%j) -> %s, run where the lockfile is', async (lockfile, pkg, command) => {
    const root = await makeTree({ [lockfile]: '', 'package.json': JSON.stringify(pkg), 'packages/a/package.json': '{}' });
    const update = LOCK_UPDATES[lockfile];
    expect(await resolveInstallPlan(join(root, 'packages/a'), root)).toEqual({ command, dir: root, ...(update === undefined ? {} : { lockfile: update }) });
  });

  it('a pnpm workspace without a lockfile yet installs with pnpm at its root', async () => {
    const root = await makeTree({ 'pnpm-workspace.yaml': 'packages: [packages/*]\n', 'packages/a/package.json': '{}' });
    expect(await resolveInstallPlan(join(root, 'packages/a'), root)).toEqual({ command: 'pnpm install', dir: root });
  });

  it('reads devEngines.packageManager when there is no lockfile', async () => {
    const root = await makeTree({ 'package.json': '{"devEngines": {"packageManager": {"name": "pnpm", "version": "^10.0.0"}}}' });
    expect(await resolveInstallPlan(root, root)).toEqual({ command: 'pnpm install', dir: root });
  });

  it('spells every agent\'s install out', () => {
    expect(['npm', 'pnpm', 'pnpm@6', 'yarn', 'yarn@berry', 'bun', 'deno'].map((a) => getInstallCommand(a as Parameters<typeof getInstallCommand>[0]))).toEqual([
      'npm install',
      'pnpm install',
      'pnpm install',
      'yarn install',
      'yarn install',
      'bun install',
      'deno install',
    ]);
  });
});
