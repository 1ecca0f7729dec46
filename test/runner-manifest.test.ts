import { afterAll, describe, it, expect } from 'vitest';
import { join } from 'node:path';
import {
  addDependencies,
  detectIndent,
  getMissingDependencies,
  ManifestCache,
  InstallProbes,
  resolveInstallPlan,
  resolveSdkTarget,
  SDK_DEPENDENCIES,
} from '../src/runner/manifest.js';
import { makeTree, removeTrees } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const V1 = SDK_DEPENDENCIES.v1;

describe('addDependencies', () => {
  it('keeps 2-space indentation and adds a dependencies object at the end', () => {
    const before = '{\n  "name": "x",\n  "version": "1.0.0"\n}\n';
    expect(addDependencies(before, V1)).toBe(
      '{\n  "name": "x",\n  "version": "1.0.0",\n  "dependencies": {\n    "@modelcontextprotocol/sdk": "^1.32.2",\n    "zod": "^4.1.0"\n  }\n}\n',
    );
  });

  it('keeps 4-space indentation and inserts in alphabetical place in a sorted object', () => {
    const before = '{\n    "name": "x",\n    "dependencies": {\n        "express": "^4.0.0",\n        "yargs": "^17.0.0"\n    }\n}\n';
    expect(addDependencies(before, V1)).toBe(
      '{\n    "name": "x",\n    "dependencies": {\n        "@modelcontextprotocol/sdk": "^1.32.2",\n        "express": "^4.0.0",\n        "yargs": "^17.0.0",\n        "zod": "^4.1.0"\n    }\n}\n',
    );
  });

  it('keeps tabs, CRLF and a missing final newline', () => {
    const before = '{\r\n\t"name": "x",\r\n\t"devDependencies": {\r\n\t\t"vitest": "^4.0.0"\r\n\t}\r\n}';
    expect(addDependencies(before, SDK_DEPENDENCIES.v2)).toBe(
      '{\r\n\t"name": "x",\r\n\t"dependencies": {\r\n\t\t"@modelcontextprotocol/server": "^2.4.0",\r\n\t\t"zod": "^4.2.0"\r\n\t},\r\n\t"devDependencies": {\r\n\t\t"vitest": "^4.0.0"\r\n\t}\r\n}',
    );
  });

  it('appends to an unsorted object instead of reordering it', () => {
    const before = '{\n  "dependencies": {\n    "zeta": "1",\n    "alpha": "1"\n  }\n}\n';
    expect(addDependencies(before, { zod: '^4.1.0' })).toBe('{\n  "dependencies": {\n    "zeta": "1",\n    "alpha": "1",\n    "zod": "^4.1.0"\n  }\n}\n');
  });

  it('fills an empty dependencies object and a one-line one', () => {
    expect(addDependencies('{\n  "dependencies": {}\n}\n', { zod: '^4.1.0' })).toBe('{\n  "dependencies": {\n    "zod": "^4.1.0"\n  }\n}\n');
    // a compact one-line object is joined the way it joins its own members
    expect(addDependencies('{"name":"x","dependencies":{"a":"1"}}', { zod: '^4.1.0' })).toBe('{"name":"x","dependencies":{"a":"1","zod":"^4.1.0"}}');
  });

  it('keeps a one-line package.json on one line, in its own spacing', () => {
    const add = { '@modelcontextprotocol/sdk': '^1.32.2', zod: '^4.1.0' };
    expect(addDependencies('{ "name": "calc", "version": "1.0.0" }\n', add)).toBe('{ "name": "calc", "version": "1.0.0", "dependencies": { "@modelcontextprotocol/sdk": "^1.32.2", "zod": "^4.1.0" } }\n');
    expect(addDependencies('{"name":"calc","devDependencies":{"x":"1"}}', add)).toBe('{"name":"calc","dependencies":{"@modelcontextprotocol/sdk":"^1.32.2","zod":"^4.1.0"},"devDependencies":{"x":"1"}}');
    expect(addDependencies('{ "name": "calc", "dependencies": {} }\n', { zod: '^4.1.0' })).toBe('{ "name": "calc", "dependencies": { "zod": "^4.1.0" } }\n');
    expect(addDependencies('{ "name": "c", "dependencies": { "a": "1", "z": "2" } }', { m: '3' })).toBe('{ "name": "c", "dependencies": { "a": "1", "m": "3", "z": "2" } }');
  });

  it('leaves every other byte alone (compact arrays, key order, BOM)', () => {
    const before = '\uFEFF{\n  "files": ["bin", "dist"],\n  "name": "x",\n  "scripts": {"b": "tsc"}\n}\n';
    const after = addDependencies(before, { zod: '^4.1.0' });
    expect(after).toBe('\uFEFF{\n  "files": ["bin", "dist"],\n  "name": "x",\n  "scripts": {"b": "tsc"},\n  "dependencies": {\n    "zod": "^4.1.0"\n  }\n}\n');
  });

  it('throws when dependencies is not an object', () => {
    expect(() => addDependencies('{"dependencies": []}', { zod: '1' })).toThrow(/not an object/);
  });
});

describe('dependency lookup', () => {
  it('skips what is already in dependencies, devDependencies or peerDependencies', () => {
    expect(getMissingDependencies({ devDependencies: { zod: '^3' } }, V1)).toEqual({ '@modelcontextprotocol/sdk': '^1.32.2' });
    expect(getMissingDependencies({ peerDependencies: { '@modelcontextprotocol/sdk': '*' }, dependencies: { zod: '4' } }, V1)).toEqual({});
  });

  it('detects the indentation unit', () => {
    expect(detectIndent('{\n  "a": 1\n}')).toBe('  ');
    expect(detectIndent('{\n    "a": 1\n}')).toBe('    ');
    expect(detectIndent('{\n\t"a": 1\n}')).toBe('\t');
    expect(detectIndent('{"a": 1}')).toBe('  ');
  });

  it('picks v1 only when the package depends on @modelcontextprotocol/sdk and not on v2; else the current generation, v2', async () => {
    const root = await makeTree({
      'v2/package.json': '{"dependencies": {"@modelcontextprotocol/server": "^2"}}',
      'v2/src/deep/x.js': '',
      'v1/package.json': '{"dependencies": {"@modelcontextprotocol/sdk": "^1"}}',
      'dev/package.json': '{"devDependencies": {"@modelcontextprotocol/sdk": "^1"}}',
      'both/package.json': '{"dependencies": {"@modelcontextprotocol/sdk": "^1", "@modelcontextprotocol/server": "^2"}}',
      'none/package.json': '{"dependencies": {"express": "^4"}}',
    });
    const cache = new ManifestCache();
    expect(resolveSdkTarget(await cache.getNearest(join(root, 'v2/src/deep')))).toBe('v2');
    expect(resolveSdkTarget(await cache.getNearest(join(root, 'v1')))).toBe('v1');
    expect(resolveSdkTarget(await cache.getNearest(join(root, 'dev')))).toBe('v1');
    expect(resolveSdkTarget(await cache.getNearest(join(root, 'both')))).toBe('v2');
    expect(resolveSdkTarget(await cache.getNearest(join(root, 'none')))).toBe('v2');
    expect(resolveSdkTarget(null)).toBe('v2');
    expect((await cache.getNearest(join(root, 'v2/src/deep')))?.path).toBe(join(root, 'v2/package.json'));
  });
});

const LOCK_UPDATES: Record<string, string[]> = { 'package-lock.json': ['npm', 'install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], 'npm-shrinkwrap.json': ['npm', 'install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], 'pnpm-lock.yaml': ['pnpm', 'install', '--lockfile-only', '--ignore-scripts'] };

describe('resolveInstallPlan', () => {
  it.each([
    ['pnpm-lock.yaml', 'pnpm install'],
    ['yarn.lock', 'yarn install'],
    ['package-lock.json', 'npm install'],
    ['bun.lockb', 'bun install'],
    ['bun.lock', 'bun install'],
    ['npm-shrinkwrap.json', 'npm install'],
    ['pnpm-workspace.yaml', 'pnpm install'],
    ['deno.lock', 'deno install'],
    ['rush.json', 'rush-pnpm install'],
  ])('finds %s in an ancestor up to the stop directory', async (lockfile, command) => {
    const root = await makeTree({ [lockfile]: '', 'packages/a/package.json': '{}' });
    // npm's and pnpm's lockfiles are updated by their package manager after a write (yarn classic and the others: said)
    const update = LOCK_UPDATES[lockfile];
    expect(await resolveInstallPlan(join(root, 'packages/a'), root)).toEqual({ command, dir: root, ...(update === undefined ? {} : { lockfile: update }) });
  });

  it('does not look above the stop directory and falls back to npm', async () => {
    const root = await makeTree({ 'yarn.lock': '', 'repo/pkg/package.json': '{}' });
    expect(await resolveInstallPlan(join(root, 'repo/pkg'), join(root, 'repo'))).toEqual({ command: 'npm install', dir: join(root, 'repo/pkg') });
  });

  it('asks each shared ancestor once for the packages of one run, with the plan each would get alone', async () => {
    const root = await makeTree({ 'yarn.lock': '', 'packages/a/package.json': '{}', 'packages/b/package.json': '{}', 'packages/c/package.json': '{"packageManager": "pnpm@9.1.0"}' });
    const probes = new InstallProbes();
    const plans = await Promise.all(['a', 'b', 'c'].map((name) => resolveInstallPlan(join(root, 'packages', name), root, root, probes)));
    expect(plans).toEqual(await Promise.all(['a', 'b', 'c'].map((name) => resolveInstallPlan(join(root, 'packages', name), root, root))));
    expect(plans.map((p) => p.dir)).toEqual([root, root, root]);
    // the root's lockfile probe is the one every package's plan awaited
    expect(probes.detect(root, 'lockfile')).toBe(probes.detect(root, 'lockfile'));
    expect(probes.detect(join(root, 'packages'), 'lockfile')).not.toBe(probes.detect(root, 'lockfile'));
  });

  it('uses the packageManager field when there is no lockfile', async () => {
    const root = await makeTree({ 'package.json': '{"packageManager": "pnpm@9.1.0"}' });
    expect(await resolveInstallPlan(root, root)).toEqual({ command: 'pnpm install', dir: root });
  });
});

describe('where the install command runs', () => {
  it('installs in the package itself when the lockfile above it belongs to an unrelated project', async () => {
    const { main } = await import('../src/cli/main.js');
    const { makeHarness } = await import('./fixtures/cli/harness.js');
    const { processSource } = await import('../src/pipeline.js');
    const { readFileSync } = await import('node:fs');
    const server = readFileSync(join(import.meta.dirname, 'fixtures/corpus/01-cjs-readline-bare-ifs/server.js'), 'utf8');
    const root = await makeTree({
      'package.json': '{ "name": "host-app" }\n',
      'package-lock.json': '{}\n',
      'tools/mcp/package.json': '{ "name": "unit-converter" }\n',
      'tools/mcp/server.js': server,
    });
    // The bug this guards against needs a git work tree: the lockfile search used to climb to its top.
    const { execFileSync } = await import('node:child_process');
    execFileSync('git', ['init', '-q', root]);
    const h = makeHarness(root, { process: processSource });
    expect(await main(['--dry-run', '.'], h.deps)).toBe(0);
    expect(h.stdout()).toContain('run `npm install` in tools/mcp to install @modelcontextprotocol/server, zod.');
  });
});
