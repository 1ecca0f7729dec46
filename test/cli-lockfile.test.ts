// After a run writes a package.json, its lockfile is brought up to date by the package manager that owns
// it (without installing), so `npm ci` passes on the pull request; where that fails, the run says which
// command to run. `--no-lockfile` leaves it; a package with no lockfile has nothing to update.
import { readFileSync, realpathSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { getLockfileUpdate } from '../src/runner/manifest.js';
import { findMissingInLockfile } from '../src/runner/lockfile-state.js';
import { makeHarness, makeTree, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const PKG = '{\n  "name": "srv",\n  "version": "1.0.0"\n}\n';
// (the fake pipeline moves a file that says MIGRATE_ME onto the SDK)
const SERVER = `${SERVER_HINT}// MIGRATE_ME\n`;

describe('the lockfile of a written package.json', () => {
  it('npm: `npm install --package-lock-only` runs once in the lockfile\'s folder after the write, and the run says so', async () => {
    const root = await makeTree({ 'package.json': PKG, 'package-lock.json': '{}\n', 'server.js': SERVER });
    const calls: { command: readonly string[]; dir: string; manifest: string }[] = [];
    const h = makeHarness(root, {
      // what the package manager sees when it runs: the package.json already written
      lockfile: async (command, dir) => {
        calls.push({ command, dir, manifest: readFileSync(join(dir, 'package.json'), 'utf8') });
        return { ok: true };
      },
    });
    expect(await main(['--yes', '--no-verify'], h.deps), h.stdout() + h.stderr()).toBe(0);
    expect(calls.map((c) => [c.command.join(' '), realpathSync(c.dir)])).toEqual([['npm install --package-lock-only --ignore-scripts --no-audit --no-fund', realpathSync(root)]]);
    expect(calls[0]!.manifest).toContain('@modelcontextprotocol/');
    expect(h.stdout()).toContain('Updated the lockfile in . (`npm install --package-lock-only --ignore-scripts --no-audit --no-fund`).');
  });

  it('a failed update is a warning that names the command to run; --no-lockfile runs nothing; no lockfile, nothing to update', async () => {
    const failing = await makeTree({ 'package.json': PKG, 'package-lock.json': '{}\n', 'server.js': SERVER });
    const h = makeHarness(failing, { lockfile: async () => ({ ok: false, reason: 'npm error code ENOTFOUND' }) });
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(0);
    expect(h.stderr()).toContain('warning: the lockfile in . was not updated (`npm install --package-lock-only --ignore-scripts --no-audit --no-fund`: npm error code ENOTFOUND); run `npm install` there before `npm ci`');

    for (const [files, args] of [
      [{ 'package.json': PKG, 'package-lock.json': '{}\n', 'server.js': SERVER }, ['--yes', '--no-verify', '--no-lockfile']],
      [{ 'package.json': PKG, 'server.js': SERVER }, ['--yes', '--no-verify']],
    ] as const) {
      const root = await makeTree(files);
      let ran = 0;
      const quiet = makeHarness(root, { lockfile: async () => ((ran += 1), { ok: true }) });
      expect(await main([...args], quiet.deps)).toBe(0);
      expect(ran).toBe(0);
      expect(quiet.stdout()).not.toContain('Updated the lockfile');
    }
  });

  it('--check fails while a lockfile lacks the SDK its package.json declares, and says which command to run; then passes', async () => {
    const root = await makeTree({ 'package.json': PKG, 'package-lock.json': '{\n  "lockfileVersion": 3,\n  "packages": { "": { "name": "srv" } }\n}\n', 'server.js': SERVER });
    const failed = makeHarness(root, { lockfile: async () => ({ ok: false, reason: 'offline' }) });
    expect(await main(['--yes', '--no-verify'], failed.deps)).toBe(0);
    const check = makeHarness(root);
    expect(await main(['--check'], check.deps), check.stdout()).toBe(1);
    expect(check.stdout()).toMatch(/lockfile out of date: package-lock\.json lacks @modelcontextprotocol\/server, zod, which package\.json declares \(`npm ci` fails there\); run `npm install --package-lock-only --ignore-scripts --no-audit --no-fund` in \./);
    // what the package manager would have written
    const lock = { lockfileVersion: 3, packages: { '': { name: 'srv', dependencies: { '@modelcontextprotocol/server': '^2.4.0', zod: '^4.2.0' } } } };
    await writeFile(join(root, 'package-lock.json'), JSON.stringify(lock));
    const again = makeHarness(root);
    expect(await main(['--check'], again.deps), again.stdout()).toBe(0);
    expect(again.stdout()).not.toContain('lockfile out of date');
  });

  it('a peer dependency is the consumer\'s to install: a lockfile without it is not out of date', async () => {
    const lock = '{\n  "lockfileVersion": 3,\n  "packages": { "": { "name": "lib" } }\n}\n';
    const declared = (field: string) => JSON.stringify({ name: 'lib', [field]: { '@modelcontextprotocol/server': '^2.4.0' } });
    // the same package.json with the SDK as a dependency: out of date
    for (const [field, stale] of [['peerDependencies', false], ['dependencies', true]] as const) {
      const root = await makeTree({ 'package.json': declared(field), 'package-lock.json': lock, 'server.js': `${SERVER_HINT}// nothing to migrate\n` });
      const check = makeHarness(root);
      await main(['--check'], check.deps);
      expect(check.stdout().includes('lockfile out of date: package-lock.json lacks @modelcontextprotocol/server'), `${field}: ${check.stdout()}`).toBe(stale);
    }
  });

  it('reads npm (v1, v3 workspaces), pnpm (importers) and yarn lockfiles for a package\'s declared dependencies', async () => {
    const names = ['@modelcontextprotocol/server', 'zod'];
    const root = await makeTree({
      'npm/package-lock.json': JSON.stringify({ lockfileVersion: 3, packages: { '': {}, 'packages/a': { dependencies: { zod: '^4.2.0' } } } }),
      'npm1/package-lock.json': JSON.stringify({ lockfileVersion: 1, dependencies: { zod: { version: '4.2.0' }, '@modelcontextprotocol/server': { version: '2.4.0' } } }),
      'pnpm/pnpm-lock.yaml': "lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies: {}\n  packages/a:\n    dependencies:\n      '@modelcontextprotocol/server':\n        specifier: ^2.4.0\n        version: 2.4.0\n",
      'yarn/yarn.lock': '"@modelcontextprotocol/server@^2.4.0":\n  version "2.4.0"\n',
      'bad/package-lock.json': '{ not json',
    });
    expect(await findMissingInLockfile(join(root, 'npm/package-lock.json'), join(root, 'npm/packages/a'), names)).toEqual(['@modelcontextprotocol/server']);
    expect(await findMissingInLockfile(join(root, 'npm/package-lock.json'), join(root, 'npm/packages/b'), names)).toEqual(names);
    expect(await findMissingInLockfile(join(root, 'npm1/package-lock.json'), join(root, 'npm1'), names)).toEqual([]);
    expect(await findMissingInLockfile(join(root, 'pnpm/pnpm-lock.yaml'), join(root, 'pnpm/packages/a'), names)).toEqual(['zod']);
    expect(await findMissingInLockfile(join(root, 'pnpm/pnpm-lock.yaml'), join(root, 'pnpm'), names)).toEqual(names);
    expect(await findMissingInLockfile(join(root, 'yarn/yarn.lock'), join(root, 'yarn'), names)).toEqual(['zod']);
    // a lockfile the tool cannot read says nothing
    expect(await findMissingInLockfile(join(root, 'bad/package-lock.json'), join(root, 'bad'), names)).toBeNull();
  });

  it('names the lock-only command of each package manager that has one', () => {
    expect(getLockfileUpdate('pnpm')).toEqual(['pnpm', 'install', '--lockfile-only', '--ignore-scripts']);
    expect(getLockfileUpdate('yarn@berry')).toEqual(['yarn', 'install', '--mode=update-lockfile']);
    expect(getLockfileUpdate('yarn')).toBeNull();
    expect(getLockfileUpdate('bun')).toBeNull();
  });
});

describe('a dry run says its proposals are not proven yet', () => {
  it('--dry-run and --check without --verify say that --yes proves first; a run that writes does not', async () => {
    for (const mode of ['--dry-run', '--check']) {
      const root = await makeTree({ 'package.json': PKG, 'server.js': SERVER });
      const h = makeHarness(root);
      await main([mode], h.deps);
      expect(h.stdout()).toContain('These proposals are not proven yet: `--yes` runs each migrated server next to its original first');
    }
    const root = await makeTree({ 'package.json': PKG, 'server.js': SERVER });
    const h = makeHarness(root);
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(0);
    expect(h.stdout()).not.toContain('not proven yet');
  });
});
