// Issue 19, items 8 and 10 (locks): outside git, a run on a tree and a run on a folder inside it must
// not write at once; a `.git` file naming a directory git refuses must not put the lock there; a FIFO
// planted under the lock's name must not hang the run.
import { afterAll, describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { acquireWriteLock, resolveLockPath } from '../src/runner/commit.js';
import { makeHarness, makeTree, read, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const MIGRATE = `${SERVER_HINT}// MIGRATE_ME\n`;

describe('one tree, one writer (item 10)', () => {
  it('a run on a subtree waits for a run holding the tree, and gives up naming its lock', async () => {
    const root = await makeTree({ 'a/server.js': MIGRATE, 'b/server.js': MIGRATE });
    const held = await acquireWriteLock(await resolveLockPath([root]), { scope: [root] });
    try {
      const h = makeHarness(join(root, 'a'), { lockWaitMs: 300 });
      expect(await main(['--yes', '--no-verify'], h.deps)).toBe(3);
      expect(h.stderr()).toContain(join(root, '.mcp-migrate.lock'));
      expect(await read(root, 'a/server.js')).toBe(MIGRATE);
    } finally {
      await held.release();
    }
  });

  it('a run on the tree waits for a run holding a subtree', async () => {
    const root = await makeTree({ 'a/server.js': MIGRATE, 'b/server.js': MIGRATE });
    const held = await acquireWriteLock(await resolveLockPath([join(root, 'a')]), { scope: [join(root, 'a')] });
    try {
      const h = makeHarness(root, { lockWaitMs: 300 });
      expect(await main(['--yes', '--no-verify'], h.deps)).toBe(3);
      expect(h.stderr()).toContain(join(root, 'a', '.mcp-migrate.lock'));
      expect(await read(root, 'b/server.js')).toBe(MIGRATE);
    } finally {
      await held.release();
    }
    expect(await main(['--yes', '--no-verify'], makeHarness(root).deps)).toBe(0);
  });
});

describe('a lock no run holds', () => {
  const otherHost = (since: string): string => JSON.stringify({ tool: 'mcp-migrate', pid: 1, host: 'build-agent-7', since, nonce: 'x' }) + '\n';

  it('a lock committed to git is not a lock: the run writes', async () => {
    const root = await makeTree({ 'server.js': MIGRATE, '.mcp-migrate.lock': otherHost(new Date().toISOString()) });
    const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: root }).toString();
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'the lock committed by mistake');
    const h = makeHarness(root, { lockWaitMs: 300 });
    expect(await main(['--yes', '--no-verify', '--force'], h.deps), h.stderr()).toBe(0);
    expect(await read(root, 'server.js')).not.toBe(MIGRATE);
  });

  it('a lock from another host is a lock for 6 hours, then left over; the message says so', async () => {
    const fresh = await makeTree({ 'server.js': MIGRATE, '.mcp-migrate.lock': otherHost(new Date().toISOString()) });
    const busy = makeHarness(fresh, { lockWaitMs: 300 });
    expect(await main(['--yes', '--no-verify'], busy.deps)).toBe(3);
    expect(busy.stderr()).toContain('a lock from another host counts as left over after 6 hours');
    const old = await makeTree({ 'server.js': MIGRATE, '.mcp-migrate.lock': otherHost(new Date(Date.now() - 7 * 3600_000).toISOString()) });
    expect(await main(['--yes', '--no-verify'], makeHarness(old, { lockWaitMs: 300 }).deps)).toBe(0);
    expect(await read(old, 'server.js')).not.toBe(MIGRATE);
  });
});

describe('where the lock lives (item 8)', () => {
  it('not in the directory a .git file names when git refuses it', async () => {
    const elsewhere = await makeTree({ 'keep': '' });
    const root = await makeTree({ 'server.js': MIGRATE, '.git': `gitdir: ${elsewhere}\n` });
    expect(await resolveLockPath([root])).toBe(join(root, '.mcp-migrate.lock'));
    expect(await main(['--yes', '--no-verify', '--force'], makeHarness(root).deps)).toBe(0);
    expect(await readdir(elsewhere)).toEqual(['keep']);
  });

  it('a FIFO planted under the lock\'s name does not hang the run', async () => {
    const root = await makeTree({ 'src/server.js': MIGRATE });
    await mkdir(join(root, 'x'));
    execFileSync('mkfifo', [join(root, '.mcp-migrate.lock')]);
    const h = makeHarness(root, { lockWaitMs: 200 });
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(3);
    expect(h.stderr()).toContain('another run is writing');
  }, 10_000);
});
