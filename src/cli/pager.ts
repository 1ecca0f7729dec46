// The pager for a diff taller than the terminal: `$PAGER`, else `less -R` (with LESS=FRX when LESS is
// unset, as git does, so colors show and the text stays on screen after quitting). The review keeps
// asking on the terminal afterwards. Ctrl-C inside the pager belongs to the pager, not to this process.
import { spawn } from 'node:child_process';

export interface Pager {
  /** Lines the terminal shows, or null when unknown (then nothing is paged). */
  rows(): number | null;
  /** Columns, for counting wrapped lines; null when unknown. */
  columns(): number | null;
  /** Shows `text` in the pager and resolves once it exits; false when no pager could run (print it instead). */
  show(text: string): Promise<boolean>;
}

/** A pager that never pages (no terminal, or tests that do not care). */
export const NO_PAGER: Pager = { rows: () => null, columns: () => null, show: async () => false };

export interface TerminalStream {
  fd?: number;
  isTTY?: boolean;
  rows?: number;
  columns?: number;
}

export function createTerminalPager(output: TerminalStream, env: Readonly<Record<string, string | undefined>>): Pager {
  return {
    rows: () => (output.isTTY === true && typeof output.rows === 'number' && output.rows > 0 ? output.rows : null),
    columns: () => (output.isTTY === true && typeof output.columns === 'number' && output.columns > 0 ? output.columns : null),
    show: (text) => runPager(getPagerCommand(env), text, output.fd ?? 1, env),
  };
}

export function getPagerCommand(env: Readonly<Record<string, string | undefined>>): string {
  const configured = env.PAGER?.trim();
  return configured !== undefined && configured !== '' ? configured : 'less -R';
}

/** Whether `text` (with its escape codes) takes more lines than fit above a one-line question. */
export function isTallerThan(text: string, rows: number | null, columns: number | null): boolean {
  if (rows === null) return false;
  let lines = 0;
  for (const line of text.replace(/\n$/, '').split('\n')) {
    const width = line.replace(/\x1b\[[0-9;]*m/g, '').length;
    lines += columns === null || width === 0 ? 1 : Math.ceil(width / columns);
    if (lines > rows - 1) return true;
  }
  return false;
}

function runPager(command: string, text: string, fd: number, env: Readonly<Record<string, string | undefined>>): Promise<boolean> {
  return new Promise((resolve) => {
    const ignore = (): void => undefined;
    // 1. While the pager runs, Ctrl-C is the pager's (less uses it to stop a search); this process must not die.
    process.on('SIGINT', ignore);
    let child;
    try {
      child = spawn(command, { shell: true, stdio: ['pipe', fd, 'inherit'], env: { ...env, LESS: env.LESS ?? 'FRX' } });
    } catch {
      process.off('SIGINT', ignore);
      resolve(false);
      return;
    }
    let failed = false;
    child.on('error', () => {
      failed = true;
    });
    // 2. Quitting the pager before the end closes its input: not an error.
    child.stdin?.on('error', ignore);
    child.stdin?.end(text);
    child.on('close', (code) => {
      process.off('SIGINT', ignore);
      // 127: the shell did not find the command; 126: found but not runnable.
      resolve(!failed && code !== 127 && code !== 126);
    });
  });
}
