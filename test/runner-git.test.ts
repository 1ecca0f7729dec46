import { afterAll, describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createGitClient, getDirtyFiles, parsePorcelainZ } from '../src/runner/git.js';
import { makeTree, removeTrees } from './fixtures/cli/harness.js';

afterAll(removeTrees);

describe('git', () => {
  it('parses porcelain -z output, renames included', () => {
    expect(parsePorcelainZ(' M src/a.js\0?? new file.js\0R  to.js\0from.js\0')).toEqual(['src/a.js', 'new file.js', 'to.js']);
    expect(parsePorcelainZ('')).toEqual([]);
  });

  it('lists the dirty files of a real repository as absolute paths', async () => {
    const root = await makeTree({ 'a.js': '1', 'sub/b.js': '1' });
    const git = (...args: string[]): string => execFileSync('git', ['-C', root, '-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { encoding: 'utf8' });
    const client = createGitClient();
    expect(await client.isRepo(root)).toBe(false);
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'init');
    expect(await client.isRepo(join(root, 'sub'))).toBe(true);
    expect(await client.dirtyFiles(join(root, 'sub'))).toEqual([]);
    await writeFile(join(root, 'sub/b.js'), '2');
    await writeFile(join(root, 'c.js'), 'new');
    expect((await client.dirtyFiles(join(root, 'sub'))).sort()).toEqual([join(root, 'c.js'), join(root, 'sub/b.js')]);
    const outside = join(await makeTree({}), 'plain');
    await mkdir(outside);
    expect(await getDirtyFiles(client, [outside, join(root, 'sub'), root])).toEqual([join(root, 'c.js'), join(root, 'sub/b.js')]);
  });
});
