import { describe, it, expect } from 'vitest';
import { PassThrough } from 'node:stream';
import { createTerminalPrompt, type KeyInput } from '../src/cli/prompt.js';
import type { ReviewQuestion } from '../src/cli/review-types.js';

function terminal(): { input: PassThrough & KeyInput; output: PassThrough; text: () => string; raw: boolean[] } {
  const input = new PassThrough() as PassThrough & KeyInput;
  const output = new PassThrough();
  const raw: boolean[] = [];
  let text = '';
  output.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { input, output, text: () => text, raw };
}

const FILE: ReviewQuestion = { kind: 'file', path: 'src/server.js', index: 2, total: 5 };
const HUNK: ReviewQuestion = { kind: 'hunk', path: 'src/server.js', index: 2, total: 5, group: 1, groups: 3, groupSize: 1 };

describe('createTerminalPrompt: one key per answer, no Enter', () => {
  it.each([
    ['y', 'apply'],
    ['n', 'skip'],
    ['a', 'rest'],
    ['d', 'none'],
    ['A', 'all'],
    ['q', 'quit'],
  ] as const)('hunk question: %s is %s', async (key, answer) => {
    const t = terminal();
    const pending = createTerminalPrompt(t.output, t.input)(HUNK);
    t.input.write(key);
    expect(await pending).toBe(answer);
    expect(t.text()).toBe(`Apply this hunk to src/server.js? (part 1/3, file 2/5) [y,n,a,d,A,q,?] ${key}\n`);
  });

  it.each([
    ['y', 'apply'],
    ['n', 'skip'],
    ['A', 'all'],
    ['q', 'quit'],
  ] as const)('file question: %s is %s', async (key, answer) => {
    const t = terminal();
    const pending = createTerminalPrompt(t.output, t.input)(FILE);
    t.input.write(key);
    expect(await pending).toBe(answer);
    expect(t.text()).toContain('Apply this change to src/server.js? (file 2/5) [y,n,A,q,?]');
  });

  it('file question: a key it does not show (a, d) is no answer there', async () => {
    const t = terminal();
    const pending = createTerminalPrompt(t.output, t.input)(FILE);
    t.input.write('ay');
    expect(await pending).toBe('apply');
    expect(t.text()).toContain('"a" is not an answer here.');
  });

  it('Ctrl-C is "interrupt", the end of input is "quit"', async () => {
    const t = terminal();
    const prompt = createTerminalPrompt(t.output, t.input);
    const first = prompt(HUNK);
    t.input.write('\x03');
    expect(await first).toBe('interrupt');
    const second = prompt(HUNK);
    t.input.end();
    expect(await second).toBe('quit');
  });

  it('? prints the help and asks again; an unknown key says so; Enter after a key is not a second answer', async () => {
    const t = terminal();
    const prompt = createTerminalPrompt(t.output, t.input);
    const first = prompt(HUNK);
    t.input.write('?x\ny\n');
    expect(await first).toBe('apply');
    expect(t.text()).toContain('a - apply this hunk and the rest of this file');
    expect(t.text()).toContain('d - do not apply this hunk nor the rest of this file');
    expect(t.text()).toContain('"x" is not an answer here.');
    // the "\n" typed after "y" is skipped: the next question waits for its own key
    const second = prompt(HUNK);
    t.input.write('n');
    expect(await second).toBe('skip');
  });

  it('puts a TTY in raw mode only while waiting for a key', async () => {
    const t = terminal();
    t.input.isTTY = true;
    t.input.setRawMode = (mode: boolean) => t.raw.push(mode);
    const pending = createTerminalPrompt(t.output, t.input)(FILE);
    t.input.write('y');
    expect(await pending).toBe('apply');
    expect(t.raw).toEqual([true, false]);
  });

  it('names how many hunks go together', async () => {
    const t = terminal();
    const pending = createTerminalPrompt(t.output, t.input)({ ...HUNK, groupSize: 3 });
    t.input.write('n');
    await pending;
    expect(t.text()).toContain('Apply these 3 hunks (they go together) to src/server.js?');
  });
});
