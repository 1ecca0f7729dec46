import { describe, it, expect } from 'vitest';
import { isIgnored, matchGlob, parseGitignore } from '../src/runner/gitignore.js';

function ignores(text: string, path: string, isDirectory = false, base = ''): boolean {
  return isIgnored(parseGitignore(text, base), path, isDirectory);
}

describe('gitignore matching', () => {
  it.each([
    // [pattern file, path, isDirectory, expected]
    ['*.log', 'a.log', false, true],
    ['*.log', 'deep/dir/a.log', false, true],
    ['*.log', 'a.log.js', false, false],
    ['build-out/', 'build-out', true, true],
    ['build-out/', 'build-out', false, false],
    ['/top.js', 'top.js', false, true],
    ['/top.js', 'sub/top.js', false, false],
    ['src/gen.js', 'src/gen.js', false, true],
    ['src/gen.js', 'other/src/gen.js', false, false],
    ['**/fixtures', 'a/b/fixtures', true, true],
    ['**/fixtures', 'fixtures', true, true],
    ['a/**/z.js', 'a/z.js', false, true],
    ['a/**/z.js', 'a/b/c/z.js', false, true],
    ['out/**', 'out/x/y.js', false, true],
    ['s?rver.js', 'server.js', false, true],
    ['s?rver.js', 'sxxrver.js', false, false],
    ['[ab].js', 'a.js', false, true],
    ['[!ab].js', 'a.js', false, false],
    ['[!ab].js', 'c.js', false, true],
    ['# comment\n\n', 'comment', false, false],
    ['\\#hash.js', '#hash.js', false, true],
    ['trailing.js   ', 'trailing.js', false, true],
    ['*.js\n!keep.js', 'keep.js', false, false],
    ['*.js\n!keep.js', 'drop.js', false, true],
    ['!keep.js\n*.js', 'keep.js', false, true],
    ['a.b', 'aXb', false, false],
  ])('%j vs %s (dir=%s) -> %s', (text, path, isDirectory, expected) => {
    expect(ignores(text, path, isDirectory)).toBe(expected);
  });

  it('scopes a nested .gitignore to its directory', () => {
    const rules = [...parseGitignore('*.tmp.js\n', ''), ...parseGitignore('/local.js\n!keep.tmp.js\n', 'pkg')];
    expect(isIgnored(rules, 'pkg/local.js', false)).toBe(true);
    expect(isIgnored(rules, 'local.js', false)).toBe(false);
    expect(isIgnored(rules, 'pkg/sub/local.js', false)).toBe(false);
    expect(isIgnored(rules, 'pkg/keep.tmp.js', false)).toBe(false);
    expect(isIgnored(rules, 'other/keep.tmp.js', false)).toBe(true);
  });

  it('matches a pattern without a slash against the last name only, with the answer of the whole-path glob', () => {
    const patterns = ['*.log', 'node_modules', '*', '**', 's?rver.js', '[!ab]*.js', '*.spec.*', 'a*b*c', '.env', '\\*x'];
    const paths = ['a.log', 'x/a.log', 'a.log/b', 'node_modules', 'p/node_modules', 'node_modules/x', 'server.js', 'x/y/sarver.js', 'c.js', 'a/c.test.js', 'b.spec.ts', 'a/b.spec.js', 'axbyc', 'q/axbyc', 'a/b/c', '.env', 'x/.env', '*x', 'y/*x', 'ax'];
    for (const pattern of patterns) {
      const [rule] = parseGitignore(`${pattern}\n`, '');
      expect(rule!.name).not.toBeNull();
      for (const path of paths) expect(isIgnored([rule!], path, false), `${pattern} vs ${path}`).toBe(matchGlob(rule!.glob, path));
    }
    // a pattern with a slash is matched whole
    expect(parseGitignore('src/*.log\n', '')[0]!.name).toBeNull();
  });

  it('reads CRLF files', () => {
    expect(ignores('a.js\r\nb.js\r\n', 'b.js')).toBe(true);
  });
});
