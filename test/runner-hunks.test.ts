import { describe, it, expect } from 'vitest';
import { structuredPatch } from 'diff';
import { createPaint, renderNumberedHunks } from '../src/cli/render.js';
import { applyHunks, groupHunks, splitChange, type PartialChecker } from '../src/runner/hunks.js';

const lines = (n: number, eol = '\n'): string => Array.from({ length: n }, (_, i) => `line ${i + 1}${eol}`).join('');

describe('splitChange / applyHunks', () => {
  it('splits far-apart changes into hunks and applies any subset byte for byte', () => {
    const before = lines(30);
    const after = before.replace('line 2\n', 'LINE 2\n').replace('line 15\n', 'LINE 15\nextra\n').replace('line 29\n', '');
    const split = splitChange(before, after);
    expect(split.hunks.map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines])).toEqual([
      [1, 5, 1, 5],
      [12, 7, 12, 8],
      [26, 5, 27, 4],
    ]);
    expect(applyHunks(split, new Set([0, 1, 2]))).toBe(after);
    expect(applyHunks(split, new Set())).toBe(before);
    expect(applyHunks(split, new Set([1]))).toBe(before.replace('line 15\n', 'LINE 15\nextra\n'));
    expect(applyHunks(split, new Set([0, 2]))).toBe(before.replace('line 2\n', 'LINE 2\n').replace('line 29\n', ''));
  });

  it('merges changes whose context would overlap into one hunk', () => {
    const before = lines(20);
    const after = before.replace('line 5\n', 'five\n').replace('line 11\n', 'eleven\n');
    expect(splitChange(before, after).hunks).toHaveLength(1);
    expect(splitChange(before, before.replace('line 5\n', 'five\n').replace('line 13\n', 'thirteen\n')).hunks).toHaveLength(2);
  });

  it('gives the hunks `diff -u` gives (random edits)', () => {
    let seed = 7;
    const random = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 200; round++) {
      const before = lines(5 + random(40));
      const out: string[] = [];
      for (const line of before.split(/(?<=\n)/)) {
        const roll = random(10);
        if (roll === 0) continue;
        if (roll === 1) out.push(`changed ${line}`);
        else out.push(line);
        if (roll === 2) out.push('inserted\n');
      }
      const after = out.join('');
      const split = splitChange(before, after);
      const expected = structuredPatch('a', 'b', before, after, '', '', { context: 3 }).hunks;
      expect(split.hunks.map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines])).toEqual(
        expected.map((h) => [h.oldLines === 0 ? h.oldStart - 1 : h.oldStart, h.oldLines, h.newLines === 0 ? h.newStart - 1 : h.newStart, h.newLines]),
      );
      const all = new Set(split.hunks.map((h) => h.index));
      expect(applyHunks(split, all)).toBe(after);
    }
  });

  it('keeps CRLF, a BOM and a missing final newline', () => {
    const before = `\uFEFF${lines(20, '\r\n')}last`;
    const after = before.replace('line 1\r\n', 'first\r\n').replace('last', 'LAST');
    const split = splitChange(before, after);
    expect(split.hunks).toHaveLength(2);
    expect(applyHunks(split, new Set([0]))).toBe(before.replace('line 1\r\n', 'first\r\n'));
    expect(applyHunks(split, new Set([1]))).toBe(before.replace('last', 'LAST'));
    expect(applyHunks(split, new Set([0, 1]))).toBe(after);
  });
});

describe('groupHunks', () => {
  const before = lines(40);
  const after = before.replace('line 2\n', 'A\n').replace('line 15\n', 'B\n').replace('line 28\n', 'C\n').replace('line 39\n', 'D\n');
  const split = splitChange(before, after);
  /** A checker that refuses texts where `needs` holds. */
  const checker = (refuse: (has: (mark: string) => boolean) => boolean): PartialChecker & { calls: number } => {
    const c = {
      calls: 0,
      check(text: string) {
        c.calls++;
        const has = (mark: string): boolean => text.includes(`${mark}\n`);
        return refuse(has) ? { kind: 'invalid' as const, reason: 'no' } : { kind: 'original' as const };
      },
    };
    return c;
  };

  it('keeps independent hunks apart', () => {
    const c = checker(() => false);
    expect(groupHunks(split, c)).toEqual([[0], [1], [2], [3]]);
    expect(c.calls).toBeLessThanOrEqual(2 * 4 + 1);
  });

  it('puts a hunk that cannot go alone with the hunk it needs', () => {
    // B needs D (B without D is refused); the others are free
    expect(groupHunks(split, checker((has) => has('B') && !has('D')))).toEqual([[0], [1, 3], [2]]);
  });

  it('one group when the core cannot be applied without the rest', () => {
    // every proper non-empty subset is refused
    expect(groupHunks(split, checker((has) => ['A', 'B', 'C', 'D'].some((m) => !has(m))))).toEqual([[0, 1, 2, 3]]);
  });
});

describe('renderNumberedHunks', () => {
  it('numbers old and new lines and, in color, highlights only the changed words', () => {
    const before = 'const a = 1;\nconsole.log(JSON.stringify(reply));\nconst b = 2;\n';
    const after = 'const a = 1;\nconsole.error(JSON.stringify(reply));\nconst b = 2;\n';
    const split = splitChange(before, after);
    expect(renderNumberedHunks(split.hunks, createPaint(false))).toBe(
      [
        '@@ -1,3 +1,3 @@',
        '1 1 │ const a = 1;',
        '2   │-console.log(JSON.stringify(reply));',
        '  2 │+console.error(JSON.stringify(reply));',
        '3 3 │ const b = 2;',
        '',
      ].join('\n'),
    );
    const colored = renderNumberedHunks(split.hunks, createPaint(true));
    expect(colored).toContain('\x1b[31m-\x1b[7mconsole.log(JSON.stringify(reply));\x1b[27m\x1b[39m'.replace('\x1b[7mconsole.log(JSON.stringify(reply));\x1b[27m', 'console.\x1b[7mlog\x1b[27m(JSON.stringify(reply));'));
    expect(colored).toContain('\x1b[32m+console.\x1b[7merror\x1b[27m(JSON.stringify(reply));\x1b[39m');
  });

  it('does not highlight words in a line that was rewritten, not edited', () => {
    const split = splitChange('x\nrl.on("line", handle);\ny\n', 'x\nawait server.connect(transport);\ny\n');
    expect(renderNumberedHunks(split.hunks, createPaint(true))).not.toContain('\x1b[7m');
  });
});
