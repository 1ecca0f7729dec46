// The published shape of the package (slow: builds, packs and installs). The project is copied to a temp
// dir first, so `npm pack` (whose prepack cleans and rebuilds dist/) never touches the working tree other
// tests run from. The tarball is then installed into an empty project the way a user would install it
// from the registry; dependencies come from the npm cache when present (--prefer-offline).
import { afterAll, describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { FIXTURE_CORPUS, PROJECT_NODE_MODULES, PROJECT_ROOT } from './harness.js';

const temps: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function makeTemp(label: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `mcp-migrate-${label}-`));
  temps.push(dir);
  return dir;
}

function npm(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the npm package', () => {
  it('packs only what runs, installs without jscodeshift, and `npx mcp-migrate` works from the install', async () => {
    // 1. A copy of what `npm pack` reads, with the dev dependencies linked in for the prepack build.
    const stage = await makeTemp('stage');
    for (const file of ['package.json', 'tsconfig.json', 'README.md']) await copyFile(join(PROJECT_ROOT, file), join(stage, file));
    // (scripts/build: the build bundles the worker after tsc)
    for (const dir of ['bin', 'src', 'transforms', 'scripts/build']) await cp(join(PROJECT_ROOT, dir), join(stage, dir), { recursive: true });
    await symlink(PROJECT_NODE_MODULES, join(stage, 'node_modules'), 'dir');
    const out = await makeTemp('tarball');
    const pack = npm(['pack', '--json', '--pack-destination', out], stage);
    expect(pack.status, pack.stderr).toBe(0);
    const [packed] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    const files = packed!.files.map((f) => f.path);
    expect(files).toContain('bin/mcp-migrate.js');
    expect(files).toContain('dist/src/cli/main.js');
    expect(files).toContain('dist/src/runner/worker.cjs');
    expect(files).toContain('dist/transforms/mcp-migrate.js');
    expect(files).toContain('README.md');
    expect(files.filter((f) => f.endsWith('.ts') || f.startsWith('src/') || f.startsWith('test/') || f.startsWith('scripts/'))).toEqual([]);

    // 2. Installed into an empty project, as from the registry.
    const user = await makeTemp('install');
    await writeFile(join(user, 'package.json'), '{\n  "name": "user-project",\n  "version": "1.0.0",\n  "private": true\n}\n');
    const install = npm(['install', '--prefer-offline', '--no-audit', '--no-fund', join(out, packed!.filename)], user);
    expect(install.status, install.stderr).toBe(0);
    expect(existsSync(join(user, 'node_modules', 'mcp-migrate', 'bin', 'mcp-migrate.js'))).toBe(true);
    // jscodeshift is only an optional peer: an install does not pull it (nor the prompt library the review no longer needs)
    expect(existsSync(join(user, 'node_modules', 'jscodeshift'))).toBe(false);
    expect(existsSync(join(user, 'node_modules', '@inquirer'))).toBe(false);
    const manifest = JSON.parse(await readFile(join(user, 'node_modules', 'mcp-migrate', 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ bin: { 'mcp-migrate': 'bin/mcp-migrate.js' }, peerDependenciesMeta: { jscodeshift: { optional: true } } });
    expect(manifest['engines']).toBeDefined();

    // 3. The installed command.
    const help = spawnSync('npx', ['--no-install', 'mcp-migrate', '--help'], { cwd: user, encoding: 'utf8' });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: mcp-migrate');
    await copyFile(join(FIXTURE_CORPUS, '01-cjs-readline-bare-ifs', 'server.js'), join(user, 'server.js'));
    const dry = spawnSync('npx', ['--no-install', 'mcp-migrate', '--dry-run', 'server.js'], { cwd: user, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('would move to the SDK (1): server.js');
    // the installed pool runs the bundled worker (npm gives every packed file one time: not older than worker.js)
    const pool = pathToFileURL(join(user, 'node_modules', 'mcp-migrate', 'dist', 'src', 'runner', 'pool.js')).href;
    const picked = spawnSync(process.execPath, ['--input-type=module', '-e', `console.log((await import(${JSON.stringify(pool)})).getWorkerUrl().href)`], { cwd: user, encoding: 'utf8' });
    expect(picked.status, picked.stderr).toBe(0);
    expect(picked.stdout.trim()).toMatch(/\/dist\/src\/runner\/worker\.cjs$/);
  }, 300_000);
});
