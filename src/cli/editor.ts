// The review's `e`: the proposed file in the user's editor ($VISUAL, else $EDITOR, else vi, as git
// does), on the review's terminal. The text goes into a temp file named like the real one (so the
// editor picks its syntax), the editor runs through the shell (`EDITOR="code --wait"` works), and what
// it saved comes back. The real file is never touched here: the review re-checks the text and writes it
// only when the user accepts it. Ctrl-C while the editor runs belongs to the editor.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Editor } from './review.js';

export function getEditorCommand(env: Readonly<Record<string, string | undefined>>): string {
  for (const name of ['VISUAL', 'EDITOR'] as const) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== '') return value;
  }
  return 'vi';
}

export function createTerminalEditor(env: Readonly<Record<string, string | undefined>>): Editor {
  return {
    async edit(path, text) {
      const dir = await mkdtemp(join(tmpdir(), 'mcp-migrate-edit-'));
      const file = join(dir, basename(path));
      try {
        await writeFile(file, text);
        const command = getEditorCommand(env);
        const code = await runEditor(command, file, env);
        if (code !== 0) return { error: `${command} exited with ${code === null ? 'a signal' : `code ${code}`}` };
        return { text: await readFile(file, 'utf8') };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

function runEditor(command: string, file: string, env: Readonly<Record<string, string | undefined>>): Promise<number | null> {
  return new Promise((resolve) => {
    const ignore = (): void => undefined;
    process.on('SIGINT', ignore);
    // the file name as one shell word, whatever it holds
    const quoted = `'${file.replace(/'/g, `'\\''`)}'`;
    const child = spawn(`${command} ${quoted}`, { shell: true, stdio: 'inherit', env: { ...env } });
    child.on('error', () => {
      process.off('SIGINT', ignore);
      resolve(127);
    });
    child.on('close', (code) => {
      process.off('SIGINT', ignore);
      resolve(code);
    });
  });
}
