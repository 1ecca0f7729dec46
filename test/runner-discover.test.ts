import { afterAll, describe, it, expect } from 'vitest';
import { chmod, mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { discoverFiles, getReadOrder } from '../src/runner/discover.js';
import { makeTree, removeTrees } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const rel = (root: string, files: string[]): string[] => files.map((f) => f.slice(root.length + 1));

describe('discoverFiles', () => {
  it('finds candidate extensions and skips dependency, build and VCS directories', async () => {
    const root = await makeTree({
      'a.js': '', 'b.mjs': '', 'c.cjs': '', 'd.ts': '', 'e.mts': '', 'f.cts': '', 'g.tsx': '', 'h.jsx': '',
      'readme.md': '', 'data.json': '', 'types.d.ts': '',
      'node_modules/x/index.js': '', 'dist/index.js': '', 'build/index.js': '', '.git/hooks/x.js': '', 'coverage/x.js': '',
      'src/nested/node_modules/y.js': '', 'src/deep/ok.ts': '',
    });
    const found = await discoverFiles(['.'], root);
    expect(rel(root, found.files)).toEqual(['a.js', 'b.mjs', 'c.cjs', 'd.ts', 'e.mts', 'f.cts', 'g.tsx', 'h.jsx', 'src/deep/ok.ts']); // declaration files hold no code: skipped (reliability-discover)
    expect(found.problems).toEqual([]);
  });

  it("hands each directory's files on as it reads it, shallow directories first, each depth in the tree's order", async () => {
    const root = await makeTree({
      'top.js': '', 'z.ts': '',
      'a/index.js': '', 'a/b/util.js': '', 'a/b/c/lib.js': '', 'a/b/c/d/deep.js': '',
      'b/server.js': '', 'b/deep/x.js': '', 'b/docs/readme.md': '',
      'node_modules/dep/index.js': '', 'a/.gitignore': 'gen/\n', 'a/gen/out.js': '',
    });
    const batches: string[][] = [];
    const walkedWhenHanded: boolean[] = [];
    const found = await discoverFiles(['.'], root, (files, walked) => {
      batches.push(rel(root, [...files]));
      // every directory above a file handed on has been read (scope.ts asks about them)
      walkedWhenHanded.push(files.every((file) => walked.has(join(file, '..'))));
    });
    expect(batches).toEqual([['top.js', 'z.ts'], ['a/index.js'], ['b/server.js'], ['a/b/util.js'], ['b/deep/x.js'], ['a/b/c/lib.js'], ['a/b/c/d/deep.js']]);
    expect(walkedWhenHanded.every(Boolean)).toBe(true);
    // the result lists them all, sorted, as before
    expect(rel(root, found.files)).toEqual(['a/b/c/d/deep.js', 'a/b/c/lib.js', 'a/b/util.js', 'a/index.js', 'b/deep/x.js', 'b/server.js', 'top.js', 'z.ts']);
  });

  it('hands a file on once when two named paths overlap, and a named file as a batch of its own', async () => {
    const root = await makeTree({ 'src/a.js': '', 'src/lib/b.js': '', 'other.ts': '' });
    const batches: string[][] = [];
    const found = await discoverFiles(['src', 'src/lib', 'other.ts', 'src/a.js'], root, (files) => {
      batches.push(rel(root, [...files]));
    });
    expect(batches).toEqual([['src/a.js'], ['src/lib/b.js'], ['other.ts']]);
    expect(rel(root, found.files)).toEqual(['other.ts', 'src/a.js', 'src/lib/b.js']);
  });

  it('never follows symbolic links', async () => {
    const root = await makeTree({ 'real/a.js': '', 'outside/b.js': '' });
    await symlink(join(root, 'outside'), join(root, 'real/linked-dir'));
    await symlink(join(root, 'real/a.js'), join(root, 'real/linked.js'));
    const found = await discoverFiles(['real'], root);
    expect(rel(root, found.files)).toEqual(['real/a.js']);
    const given = await discoverFiles(['real/linked.js'], root);
    expect(given.files).toEqual([]);
    expect(given.warnings[0]).toContain('symbolic link');
  });

  it('respects root and nested .gitignore files, negation and anchoring', async () => {
    const root = await makeTree({
      '.gitignore': 'gen/\n*.bundle.js\n/only-root.js\n',
      'gen/a.js': '', 'src/gen/b.js': '', 'x.bundle.js': '', 'only-root.js': '', 'src/only-root.js': '',
      'pkg/.gitignore': '*.local.js\n!keep.local.js\n',
      'pkg/a.local.js': '', 'pkg/keep.local.js': '', 'pkg/main.js': '', 'other/a.local.js': '',
    });
    const found = await discoverFiles(['.'], root);
    expect(rel(root, found.files)).toEqual(['other/a.local.js', 'pkg/keep.local.js', 'pkg/main.js', 'src/only-root.js']);
  });

  it('applies the .gitignore files above a scanned subdirectory (up to the git root)', async () => {
    const root = await makeTree({ '.git/HEAD': '', '.gitignore': 'src/generated/\n', 'src/generated/a.js': '', 'src/b.js': '' });
    const found = await discoverFiles(['src'], root);
    expect(rel(root, found.files)).toEqual(['src/b.js']);
  });

  it('reports a path that does not exist and still walks the others', async () => {
    const root = await makeTree({ 'src/a.js': '' });
    const found = await discoverFiles(['missing', 'src'], root);
    expect(rel(root, found.files)).toEqual(['src/a.js']);
    expect(found.problems).toEqual([{ path: join(root, 'missing'), message: 'no such file or directory' }]);
  });

  it('takes an explicitly named file and deduplicates overlapping paths', async () => {
    const root = await makeTree({ 'src/a.js': '', 'notes.txt': '' });
    const found = await discoverFiles(['src/a.js', 'src', '.'], root);
    expect(rel(root, found.files)).toEqual(['src/a.js']);
    const txt = await discoverFiles(['notes.txt'], root);
    expect(txt.problems[0].message).toContain('not a JavaScript or TypeScript file');
  });

  it.skipIf(process.getuid?.() === 0)('reports an unreadable directory and continues', async () => {
    const root = await makeTree({ 'ok/a.js': '' });
    await mkdir(join(root, 'locked'));
    await chmod(join(root, 'locked'), 0o000);
    try {
      const found = await discoverFiles(['.'], root);
      expect(rel(root, found.files)).toEqual(['ok/a.js']);
      expect(found.problems[0].path).toBe(join(root, 'locked'));
      expect(found.problems[0].message).toContain('cannot read directory');
    } finally {
      await chmod(join(root, 'locked'), 0o755);
    }
  });
});

describe('getReadOrder', () => {
  it('reads shallow files first, each depth in the order given', () => {
    const files = ['/r/a/b/c/lib.js', '/r/a/index.js', '/r/b/deep/x.js', '/r/b/server.js', '/r/top.js', '/r/a/b/util.js'];
    expect(getReadOrder(files)).toEqual(['/r/top.js', '/r/a/index.js', '/r/b/server.js', '/r/b/deep/x.js', '/r/a/b/util.js', '/r/a/b/c/lib.js']);
    // Windows paths count their own separator
    expect(getReadOrder(['C:\\r\\a\\b\\x.js', 'C:\\r\\y.js'])).toEqual(['C:\\r\\y.js', 'C:\\r\\a\\b\\x.js']);
  });
});
