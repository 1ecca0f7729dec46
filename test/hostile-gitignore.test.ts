// Issue 19, item 13: .gitignore globs (outside git) are matched in time linear in the path. The old
// backtracking regex took 70 s for `*a*a*a*a*a*a*a*a*b` against a 60-character name. The matcher is
// also checked against git itself (`git check-ignore --no-index`) on a spread of patterns and paths.
import { afterAll, describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compileGlob, isIgnored, matchGlob, parseGitignore } from '../src/runner/gitignore.js';
import { makeTree, removeTrees } from './fixtures/cli/harness.js';

afterAll(removeTrees);

describe('gitignore globs in linear time', () => {
  it('a pathological pattern against long names answers at once', () => {
    const rules = parseGitignore(`${'*a'.repeat(12)}*b\n`, '');
    const started = performance.now();
    for (let i = 0; i < 50; i++) expect(isIgnored(rules, 'a'.repeat(60 + i), false)).toBe(false);
    expect(isIgnored(rules, `${'a'.repeat(60)}b`, false)).toBe(true);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('stars, globstars, classes and escapes', () => {
    expect(matchGlob(compileGlob('*.js'), 'a.js')).toBe(true);
    expect(matchGlob(compileGlob('*.js'), 'a/b.js')).toBe(false);
    expect(matchGlob(compileGlob('a/**/b'), 'a/b')).toBe(true);
    expect(matchGlob(compileGlob('a/**/b'), 'a/x/y/b')).toBe(true);
    expect(matchGlob(compileGlob('a/**/b'), 'a/xb')).toBe(false);
    expect(matchGlob(compileGlob('x/**'), 'x/y/z')).toBe(true);
    expect(matchGlob(compileGlob('[a-c]?[!0-9]'), 'bzz')).toBe(true);
    expect(matchGlob(compileGlob('[a-c]?[!0-9]'), 'bz1')).toBe(false);
    expect(matchGlob(compileGlob('\\*x'), '*x')).toBe(true);
    expect(matchGlob(compileGlob('\\*x'), 'ax')).toBe(false);
  });

  it('agrees with git check-ignore', async () => {
    const patterns = ['*.log', 'build', '/dist', 'a/**/b', '**/tmp', 'x/**', 'foo*bar', '*a*a*b', '[a-c]*.js', '?.txt', 'doc/*.md', '!keep.log', '\\#hash', 'sp ace', 'deep/**/x/*.js', '**/c/**/d', 'a?b/c'];
    const paths = ['x.log', 'a/x.log', 'build', 'src/build', 'dist', 'src/dist', 'a/b', 'a/q/r/b', 'a/qb', 'tmp', 'q/tmp', 'q/tmp/z', 'x/y', 'x', 'foobar', 'foo-x-bar', 'fooba', 'aab', 'abab', 'ba', 'a.js', 'c.js', 'd.js', 'q/b.js', 'z.txt', 'zz.txt', 'doc/r.md', 'doc/s/r.md', 'keep.log', '#hash', 'sp ace', 'deep/x/y.js', 'deep/1/2/x/y.js', 'deep/x/y/z.js', 'c/d', 'q/c/r/d', 'acb/c', 'a/b/c'];
    const root = await makeTree({});
    execFileSync('git', ['init', '-q', root]);
    for (const pattern of patterns) {
      await writeFile(join(root, '.gitignore'), `${pattern}\n`);
      let out = '';
      try {
        out = execFileSync('git', ['-C', root, 'check-ignore', '--no-index', '--stdin', '-z'], { input: paths.join('\0') + '\0', encoding: 'utf8' });
      } catch (err) {
        out = (err as { stdout?: string }).stdout ?? ''; // exit 1: none ignored
      }
      const byGit = new Set(out.split('\0').filter((p) => p !== ''));
      const rules = parseGitignore(`${pattern}\n`, '');
      for (const path of paths) {
        const parts = path.split('/');
        // git ignores a path below an ignored directory; discovery never enters one
        const ours = parts.some((_, i) => isIgnored(rules, parts.slice(0, i + 1).join('/'), i < parts.length - 1));
        expect([pattern, path, ours]).toEqual([pattern, path, byGit.has(path)]);
      }
    }
  });
});
