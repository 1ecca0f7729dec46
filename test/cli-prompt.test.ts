import { describe, it, expect } from 'vitest';
import { PassThrough } from 'node:stream';
import { createTerminalPrompt } from '../src/cli/prompt.js';

function terminal(): { input: PassThrough; output: PassThrough; text: () => string } {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { input, output, text: () => text };
}

describe('createTerminalPrompt', () => {
  it.each([
    ['y', 'apply'],
    ['n', 'skip'],
    ['a', 'all'],
    ['q', 'quit'],
  ])('maps the key %s to %s', async (key, answer) => {
    const t = terminal();
    const prompt = createTerminalPrompt(t.output, t.input);
    const pending = prompt({ path: 'src/server.js', index: 2, total: 5 });
    // answer once the question is on screen
    while (!t.text().includes('Apply this change')) await new Promise((r) => setTimeout(r, 10));
    t.input.write(`${key}\n`);
    expect(await pending).toBe(answer);
    expect(t.text()).toContain('Apply this change to src/server.js? (2/5)');
  });
});
