// The interactive review's questions, answered with one key (no Enter), as `git add -p` and
// `ast-grep --interactive` do. The terminal is put in raw mode only while a key is awaited, so the pager
// and Ctrl-C behave normally in between. Ctrl-C at a question is the answer "interrupt" (the caller exits
// 130); the end of input (the terminal closed, Ctrl-D) is "quit".
import { assertNever } from '../model/assert-never.js';
import type { ReviewAnswer, ReviewPrompt, ReviewQuestion } from './review-types.js';

/** A terminal input: a TTY read stream, or any readable (tests, pipes) read one character at a time. */
export interface KeyInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

interface KeyChoice {
  key: string;
  answer: ReviewAnswer;
  help: string;
}

/** Keys of a hunk question (`git add -p`'s y/n/a/d/q, plus A for every remaining file). */
export const HUNK_KEYS: readonly KeyChoice[] = [
  { key: 'y', answer: 'apply', help: 'apply this hunk' },
  { key: 'n', answer: 'skip', help: 'do not apply this hunk' },
  { key: 'a', answer: 'rest', help: 'apply this hunk and the rest of this file' },
  { key: 'd', answer: 'none', help: 'do not apply this hunk nor the rest of this file' },
  { key: 'A', answer: 'all', help: 'apply this hunk, the rest of this file and every remaining file' },
  { key: 'e', answer: 'edit', help: 'edit the whole proposed file in $VISUAL / $EDITOR; it is checked again, then asked about as a whole' },
  { key: 'q', answer: 'quit', help: 'quit: what was accepted so far is applied, nothing else' },
];

/** Keys of a file question: the same letters mean the same (a: all of this file, d: none of it). */
export const FILE_KEYS: readonly KeyChoice[] = [
  { key: 'y', answer: 'apply', help: 'apply this file' },
  { key: 'n', answer: 'skip', help: 'do not apply this file' },
  { key: 'a', answer: 'apply', help: 'apply this file (same as y)' },
  { key: 'd', answer: 'skip', help: 'do not apply this file (same as n)' },
  { key: 'A', answer: 'all', help: 'apply this file and every remaining file' },
  { key: 'e', answer: 'edit', help: 'edit the proposed file in $VISUAL / $EDITOR; it is checked again, then offered again' },
  { key: 'q', answer: 'quit', help: 'quit: what was accepted so far is applied, nothing else' },
];

/** The keys shown for a question, which are the keys that answer it (a/d only for a hunk; `e` only with an editor). */
export function getShownKeys(question: ReviewQuestion): readonly KeyChoice[] {
  const choices = question.kind === 'hunk' ? HUNK_KEYS : FILE_KEYS;
  return choices.filter((c) => (question.kind === 'hunk' || (c.key !== 'a' && c.key !== 'd')) && (c.key !== 'e' || question.editable === true));
}

const CTRL_C = '\x03';
const CTRL_D = '\x04';

/** Asks on the given terminal streams, one key per answer. */
export function createTerminalPrompt(output: NodeJS.WritableStream, input: KeyInput): ReviewPrompt {
  const keys = createKeyReader(input);
  return async (question) => {
    // the keys shown are the keys that answer: nothing hidden (a and d do not answer a file question)
    const choices = getShownKeys(question);
    const ask = `${describeQuestion(question)} [${choices.map((c) => c.key).join(',')},?] `;
    // Raw mode before the question is on screen: a Ctrl-C typed as soon as it shows is a key, not a signal.
    const raw = input.isTTY === true && typeof input.setRawMode === 'function';
    if (raw) input.setRawMode?.(true);
    try {
      output.write(ask);
      for (;;) {
        const key = await keys.next();
        if (key === null || key === CTRL_D) {
          output.write('q\n');
          return 'quit';
        }
        if (key === CTRL_C) {
          output.write('^C\n');
          return 'interrupt';
        }
        // Enter, space and escape sequences (arrow keys) are not answers; a typed "y<Enter>" answers once.
        if (key === '\r' || key === '\n' || key === ' ' || key.startsWith('\x1b')) continue;
        const choice = choices.find((c) => c.key === key);
        if (choice !== undefined) {
          output.write(`${key}\n`);
          return choice.answer;
        }
        if (key !== '?') output.write(`\n"${printable(key)}" is not an answer here.`);
        output.write(`\n${choices.map((c) => `  ${c.key} - ${c.help}`).join('\n')}\n  ? - print this help\n  Ctrl-C - stop now: nothing more is written\n${ask}`);
      }
    } finally {
      if (raw) input.setRawMode?.(false);
    }
  };
}

export function describeQuestion(question: ReviewQuestion): string {
  switch (question.kind) {
    case 'file':
      return `Apply ${question.edited === true ? 'your edited version of' : 'this change to'} ${question.path}? (file ${question.index}/${question.total})`;
    case 'hunk':
      return `Apply ${question.groupSize > 1 ? `these ${question.groupSize} hunks (they go together)` : 'this hunk'} to ${question.path}? (part ${question.group}/${question.groups}, file ${question.index}/${question.total})`;
    default:
      return assertNever(question);
  }
}

function printable(key: string): string {
  return key.replace(/[\x00-\x1f\x7f]/g, (c) => `^${String.fromCharCode(c.charCodeAt(0) ^ 0x40)}`);
}

/** Characters from `input` one at a time: a raw-mode keypress is one chunk, a pipe may hold many. */
function createKeyReader(input: KeyInput): { next(): Promise<string | null> } {
  const queue: string[] = [];
  let ended = false;
  return {
    next() {
      const queued = queue.shift();
      if (queued !== undefined) return Promise.resolve(queued);
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => {
        const done = (key: string | null): void => {
          input.off('data', onData);
          input.off('end', onEnd);
          // Paused between questions, so a pager started in between gets every key.
          input.pause();
          resolve(key);
        };
        const onData = (chunk: Buffer | string): void => {
          const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
          // An escape sequence (an arrow key) is one key; otherwise each character is.
          const [first, ...rest] = text.startsWith('\x1b') ? [text] : [...text];
          if (first === undefined) return;
          queue.push(...rest);
          done(first);
        };
        const onEnd = (): void => {
          ended = true;
          done(null);
        };
        input.on('data', onData);
        input.once('end', onEnd);
        input.resume();
      });
    },
  };
}
