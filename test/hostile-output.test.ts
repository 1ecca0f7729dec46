// Issue 19, item 6: file names are data of the repository's choosing. A directory named
// `x\n::error title=forged::INJECTED` must not forge a GitHub workflow command, an ESC must not reach
// the terminal, and a path in a suggested command must be one shell word that is not a flag.
import { afterAll, describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { escapeCodeLine, escapeText, quoteShellPath } from '../src/cli/escape.js';
import { createPaint, renderDiff, renderNumberedHunks } from '../src/cli/render.js';
import { main } from '../src/cli/main.js';
import { makeHarness, makeTree, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

describe('escapeText', () => {
  it('keeps one printed line one line, and no control character raw', () => {
    expect(escapeText('a\n::error::x')).toBe('a\\n::error::x');
    expect(escapeText('\u001b[31mred\r\t\u0007\u009b\u2028')).toBe('\\x1b[31mred\\r\\t\\x07\\x9b\\u2028');
    expect(escapeText('plain/naïve name.js')).toBe('plain/naïve name.js');
  });
});

describe('file contents in the diff', () => {
  it('an ESC, a bell or a carriage return inside a line is shown escaped; tabs stay', () => {
    expect(escapeCodeLine('\tconst s = "\u001b]0;owned\u0007";\r')).toBe('\tconst s = "\\x1b]0;owned\\x07";\\r');
    const diff = renderDiff('a.js', 'log("\u001b[2J")\n', 'log("\u001b[2J", 1)\n', createPaint(false));
    expect(diff).not.toContain('\u001b');
    expect(diff).toContain('-log("\\x1b[2J")\n+log("\\x1b[2J", 1)');
  });

  it('the review hunks escape the code too, with and without word highlights', () => {
    const hunk = { oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: [
      { kind: 'removed' as const, text: 'a("\u001b[2J")\n', oldLine: 1, newLine: null },
      { kind: 'added' as const, text: 'a("\u001b[2J", 2)\n', oldLine: null, newLine: 1 },
    ] };
    for (const paint of [createPaint(false), createPaint(true)]) {
      const text = renderNumberedHunks([hunk as never], paint);
      expect(text.replace(/\u001b\[[0-9;]*m/g, '')).not.toContain('\u001b');
      expect(text).toContain('\\x1b[2J');
    }
  });
});

describe('quoteShellPath', () => {
  it('quotes what a shell would expand or split, and a leading dash gets ./', () => {
    expect(quoteShellPath('src/server.js')).toBe('src/server.js');
    expect(quoteShellPath('$(touch PWNED)/server.js')).toBe("'$(touch PWNED)/server.js'");
    expect(quoteShellPath("it's here.js")).toBe("'it'\\''s here.js'");
    expect(quoteShellPath('-rf/server.js')).toBe('./-rf/server.js');
    expect(quoteShellPath('a\nb.js')).toBe("$'a\\nb.js'");
  });

  it('reads back, through a real shell, as the same name', () => {
    for (const name of ['$(touch PWNED)/s.js', "q'uote`tick`.js", 'a\nb\u001b.js', '-rf/x.js', 'sp ace;&|.js']) {
      const echoed = execFileSync('bash', ['-c', `printf %s ${quoteShellPath(name)}`]).toString('utf8');
      expect(echoed).toBe(name.startsWith('-') ? `./${name}` : name);
    }
  });
});

describe('a run over hostile names', () => {
  it('forges no workflow command and prints no raw ESC or newline inside a name', async () => {
    const root = await makeTree({});
    const dirs = ['x\n::error title=forged::INJECTED', 'esc\u001b[2Jname', '$(touch PWNED)', '-rf'];
    for (const dir of dirs) {
      await mkdir(join(root, dir));
      await writeFile(join(root, dir, 'server.js'), `${SERVER_HINT}// MIGRATE_ME\n`);
    }
    const h = makeHarness(root, { env: { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: root } });
    expect(await main(['--check'], h.deps)).toBe(1);
    const printed = h.stdout() + h.stderr();
    expect(printed.split('\n').filter((line) => line.startsWith('::error title=forged'))).toEqual([]);
    expect(printed).not.toContain('\u001b[2J');
    expect(printed).toContain('x\\n::error title=forged::INJECTED/server.js');
    // the suggested command of each notice: one shell word, never a flag
    expect(printed).toContain("mcp-migrate '$(touch PWNED)/server.js'");
    expect(printed).toContain('mcp-migrate ./-rf/server.js');
  });
});
