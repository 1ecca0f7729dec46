import { afterAll, describe, it, expect } from 'vitest';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTerminalPager, getPagerCommand, isTallerThan } from '../src/cli/pager.js';
import { makeTree, removeTrees } from './fixtures/cli/harness.js';

afterAll(removeTrees);

describe('pager', () => {
  it('is $PAGER, else less -R', () => {
    expect(getPagerCommand({})).toBe('less -R');
    expect(getPagerCommand({ PAGER: '  ' })).toBe('less -R');
    expect(getPagerCommand({ PAGER: 'most' })).toBe('most');
  });

  it('pages what does not fit above the question: lines, wrapped lines, escape codes not counted', () => {
    const lines = (n: number): string => 'x\n'.repeat(n);
    expect(isTallerThan(lines(23), 24, 80)).toBe(false);
    expect(isTallerThan(lines(24), 24, 80)).toBe(true);
    expect(isTallerThan(`${'y'.repeat(200)}\n`, 3, 80)).toBe(true);
    expect(isTallerThan(`\x1b[31m${'y'.repeat(79)}\x1b[39m\n`, 2, 80)).toBe(false);
    expect(isTallerThan(lines(1000), null, 80)).toBe(false);
  });

  it('knows the terminal size only for a TTY', () => {
    expect(createTerminalPager({ isTTY: true, rows: 40, columns: 100 }, {}).rows()).toBe(40);
    expect(createTerminalPager({ isTTY: false, rows: 40 }, {}).rows()).toBeNull();
    expect(createTerminalPager({ isTTY: true, rows: 0 }, {}).rows()).toBeNull();
  });

  it('runs $PAGER with the text on its stdin and LESS=FRX, and says when it cannot run', async () => {
    const dir = await makeTree({});
    const out = join(dir, 'out.txt');
    const fd = openSync(out, 'w');
    try {
      const pager = createTerminalPager({ fd, isTTY: true, rows: 5, columns: 80 }, { PATH: process.env.PATH, PAGER: 'cat; echo "LESS=$LESS"' });
      expect(await pager.show('one\ntwo\n')).toBe(true);
      const missing = createTerminalPager({ fd, isTTY: true, rows: 5 }, { PATH: process.env.PATH, PAGER: 'no-such-pager-command-here' });
      expect(await missing.show('three\n')).toBe(false);
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(out, 'utf8')).toBe('one\ntwo\nLESS=FRX\n');
  });
});
