// Issue 10, items 4 and 5: the write phase under a lock (a second run waits, then refuses with exit 3
// naming the lock), and temp files a killed run left are removed (and said so).
import { afterAll, describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { lstat, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { acquireWriteLock, findStaleTempFiles, LockBusyError, resolveLockPath, STALE_TEMP_AGE_MS } from '../src/runner/commit.js';
import { makeHarness, makeTree, read, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const PKG = '{\n  "name": "demo",\n  "version": "1.0.0"\n}\n';
const MIGRATE = `${SERVER_HINT}// MIGRATE_ME\n`;

/** The pid of a process that has exited (so no run of that pid can be going on). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('the write lock', () => {
  it('a second holder waits, then gets LockBusyError naming the lock and its owner', async () => {
    const root = await makeTree({ 'a.js': '' });
    const path = await resolveLockPath([root]);
    const first = await acquireWriteLock(path);
    try {
      const started = Date.now();
      const err = await acquireWriteLock(path, { waitMs: 300 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LockBusyError);
      expect((err as LockBusyError).lockPath).toBe(path);
      expect((err as Error).message).toContain(`pid ${process.pid}`);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    } finally {
      await first.release();
    }
    const again = await acquireWriteLock(path, { waitMs: 0 });
    await again.release();
  });

  it('is taken as soon as the holder releases it', async () => {
    const root = await makeTree({ 'a.js': '' });
    const path = await resolveLockPath([root]);
    const first = await acquireWriteLock(path);
    setTimeout(() => void first.release(), 150);
    const second = await acquireWriteLock(path, { waitMs: 5_000, pollMs: 20 });
    expect(second.path).toBe(path);
    await second.release();
  });

  it('a lock left by a killed run (its pid is gone) is taken over', async () => {
    const root = await makeTree({ 'a.js': '' });
    const path = await resolveLockPath([root]);
    const { hostname } = await import('node:os');
    await writeFile(path, JSON.stringify({ tool: 'mcp-migrate', pid: deadPid(), host: hostname(), since: '2020-01-01T00:00:00Z', nonce: 'x' }));
    const lock = await acquireWriteLock(path, { waitMs: 0 });
    await lock.release();
    await expect(lstat(path)).rejects.toThrow();
  });

  it('lives in the git directory of a work tree (never committed), else beside the files', async () => {
    const repo = await makeTree({ '.git/HEAD': 'ref: refs/heads/main\n', 'pkg/a.js': '', 'pkg/b/c.js': '' });
    expect(await resolveLockPath([join(repo, 'pkg'), join(repo, 'pkg/b')])).toBe(join(repo, '.git', 'mcp-migrate.lock'));
    const plain = await makeTree({ 'pkg/a.js': '', 'pkg/b/c.js': '' });
    expect(await resolveLockPath([join(plain, 'pkg'), join(plain, 'pkg/b')])).toBe(join(plain, 'pkg', '.mcp-migrate.lock'));
  });

  it('main --yes while another run holds the lock: waits briefly, then exit 3 naming the lock, nothing written', async () => {
    const root = await makeTree({ 'package.json': PKG, 'src/server.js': MIGRATE });
    const lockPath = await resolveLockPath([join(root, 'src'), root]);
    const other = await acquireWriteLock(lockPath);
    try {
      const h = makeHarness(root, { lockWaitMs: 200 });
      expect(await main(['--yes', '--no-verify'], h.deps)).toBe(3);
      expect(h.stderr()).toContain('another run is writing in this tree');
      expect(h.stderr()).toContain(lockPath);
      expect(await read(root, 'src/server.js')).toBe(MIGRATE);
      expect(await read(root, 'package.json')).toBe(PKG);
    } finally {
      await other.release();
    }
    // Once it is free, the same run goes through and leaves no lock behind.
    const h = makeHarness(root);
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(0);
    expect(await read(root, 'src/server.js')).toContain('MIGRATED_v2_server');
    await expect(lstat(lockPath)).rejects.toThrow();
  });

  it('the next --yes run takes over (or, with nothing to write, removes) a lock a killed run left, and says so', async () => {
    const { hostname } = await import('node:os');
    const dead = JSON.stringify({ tool: 'mcp-migrate', pid: deadPid(), host: hostname(), since: '2020-01-01T00:00:00Z', nonce: 'x' });
    // No package.json: the only directory the run looks at is src/, where its lock lives.
    const pending = await makeTree({ 'src/server.js': MIGRATE, 'src/.mcp-migrate.lock': dead });
    const h = makeHarness(pending);
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(0);
    expect(h.stdout()).toContain('Took over the write lock');
    expect(await readdir(join(pending, 'src'))).toEqual(['server.js']);
    const done = await makeTree({ 'src/server.js': `${SERVER_HINT}// nothing to do\n`, 'src/.mcp-migrate.lock': dead });
    const h2 = makeHarness(done);
    expect(await main(['--yes', '--no-verify'], h2.deps)).toBe(0);
    expect(h2.stdout()).toContain('Removed the write lock');
    expect(await readdir(join(done, 'src'))).toEqual(['server.js']);
  });

  it('two runs started together: one writes, the other is refused or finds the files changed; never both', async () => {
    const root = await makeTree({ 'package.json': PKG, 'src/server.js': MIGRATE });
    const a = makeHarness(root, { lockWaitMs: 2_000 });
    const b = makeHarness(root, { lockWaitMs: 2_000 });
    const codes = (await Promise.all([main(['--yes', '--no-verify'], a.deps), main(['--yes', '--no-verify'], b.deps)])).sort();
    expect(codes).toEqual([0, 3]);
    expect(await read(root, 'src/server.js')).toBe(MIGRATE.replace('MIGRATE_ME', 'MIGRATED_v2_server'));
    expect((await read(root, 'package.json')).match(/@modelcontextprotocol\/server/g)).toHaveLength(1);
  });
});

describe('temp files left by a killed run', () => {
  const stale = (name: string): string => `.${name}.mcp-migrate-${deadPid()}-deadbeef.tmp`;

  it('are removed at the start of the write phase, and the run says so', async () => {
    const temp = stale('server.js');
    const manifestTemp = stale('package.json');
    const root = await makeTree({ 'package.json': PKG, 'src/server.js': MIGRATE, [`src/${temp}`]: 'half a serv', [manifestTemp]: '{"na' });
    const h = makeHarness(root);
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(0);
    expect(await readdir(join(root, 'src'))).toEqual(['server.js']);
    expect((await readdir(root)).sort()).toEqual(['package.json', 'src']);
    expect(h.stdout()).toMatch(/Removed 2 temp file\(s\) left by an interrupted run: .*src\/\.server\.js\.mcp-migrate-/);
  });

  it('are removed even when nothing is left to migrate', async () => {
    const temp = stale('server.js');
    const root = await makeTree({ 'src/server.js': `${SERVER_HINT}// already done\n`, [`src/${temp}`]: 'x' });
    const h = makeHarness(root);
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(0);
    expect(await readdir(join(root, 'src'))).toEqual(['server.js']);
  });

  it('a dry run names them and leaves them', async () => {
    const temp = stale('server.js');
    const root = await makeTree({ 'src/server.js': MIGRATE, [`src/${temp}`]: 'x' });
    const h = makeHarness(root);
    expect(await main(['--dry-run'], h.deps)).toBe(0);
    expect(h.stderr()).toContain(`temp file(s) left by an interrupted run`);
    expect(h.stderr()).toContain(`src/${temp}`);
    expect((await readdir(join(root, 'src'))).sort()).toEqual([temp, 'server.js'].sort());
  });

  it("a live run's fresh temp file is not stale; an old one is, whoever wrote it", async () => {
    const live = `.a.js.mcp-migrate-${process.pid}-0badf00d.tmp`;
    const root = await makeTree({ 'a.js': '', [live]: 'x', 'other.tmp': 'x', '.a.js.mcp-migrate-1-zz.tmp': 'not ours' });
    expect(await findStaleTempFiles([root])).toEqual([]);
    const old = new Date(Date.now() - STALE_TEMP_AGE_MS - 60_000);
    await utimes(join(root, live), old, old);
    expect(await findStaleTempFiles([root])).toEqual([join(root, live)]);
  });
});
