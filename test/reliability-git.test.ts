// Issue 10, item 6: the scanned repository's own git config runs nothing. A `core.fsmonitor` command, a
// hook and a clean-filter driver in .git/config are each set to leave a marker file; the git client's
// calls (the dirty-tree check of --yes, --changed-since) must leave none.
import { afterAll, describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmod, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { createGitClient, getDirtyFiles } from '../src/runner/git.js';
import { makeHarness, makeTree, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'core.fsmonitor=false', '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** A repository whose .git/config runs `touch <marker>` from fsmonitor, every hook and a clean filter on *.js. */
async function makeHostileRepo(): Promise<{ root: string; markers: string }> {
  const root = await makeTree({ 'src/server.js': `${SERVER_HINT}// MIGRATE_ME\n`, '.gitattributes': '*.js filter=evil\n' });
  // The programs live outside the work tree, so that they are not untracked files of it.
  const outside = await makeTree({ 'markers/.keep': '' });
  const markers = join(outside, 'markers');
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'init');
  const script = async (name: string, body: string): Promise<string> => {
    const path = join(outside, name);
    await writeFile(path, `#!/bin/sh\ntouch "${markers}/ran-${name}"\n${body}`);
    await chmod(path, 0o755);
    return path;
  };
  git(root, 'config', 'core.fsmonitor', await script('fsmonitor', 'exit 1\n'));
  git(root, 'config', 'filter.evil.clean', await script('clean', 'cat\n'));
  git(root, 'config', 'filter.evil.smudge', await script('smudge', 'cat\n'));
  git(root, 'config', 'filter.evil.required', 'true');
  git(root, 'config', 'core.hooksPath', outside);
  for (const name of ['post-index-change', 'reference-transaction', 'post-checkout']) await script(name, 'exit 0\n');
  // A new mtime with the same content: git must re-read the file (racily clean), the moment a clean filter would run.
  const later = new Date(Date.now() + 5_000);
  await utimes(join(root, 'src/server.js'), later, later);
  await writeFile(join(root, 'untracked.js'), 'x');
  return { root, markers };
}

const ran = async (markers: string): Promise<string[]> => (await readdir(markers)).filter((name) => name !== '.keep');

describe('git calls ignore the repository\'s fsmonitor, hooks and filter drivers', () => {
  it('the dirty-tree check and --changed-since', async () => {
    const { root, markers } = await makeHostileRepo();
    const client = createGitClient();
    expect(await client.isRepo(root)).toBe(true);
    expect(await getDirtyFiles(client, [root])).toEqual([join(root, 'untracked.js')]);
    expect(await client.changedFiles(root, 'HEAD')).toEqual({ kind: 'ok', files: [join(root, 'untracked.js')] });
    expect(await ran(markers)).toEqual([]);
  });

  it('a --changed-since run, and the dirty-tree check of a --yes run', async () => {
    const { root, markers } = await makeHostileRepo();
    const h = makeHarness(root, { git: createGitClient() });
    expect(await main(['--changed-since', 'HEAD', '--dry-run'], h.deps)).toBe(0);
    const h2 = makeHarness(root, { git: createGitClient() });
    expect(await main(['--yes', '--no-verify'], h2.deps)).toBe(2); // dirty: untracked.js
    expect(await ran(markers)).toEqual([]);
  });
});
