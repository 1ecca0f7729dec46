// A server process spoken to by a raw JSON-RPC client: starts it, frames what is sent, decodes and
// keeps everything it writes (in order), and stops it — always, even when the probes throw.
// It deliberately knows nothing about MCP or about which replies are right: that is ./probe.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { createDecoder, frameBody, type Framing } from './framing.js';

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

/** How much of the server's stderr is kept (the tail is what explains a crash). */
const STDERR_KEEP = 8_192;
/** After stdin is closed, how long the server gets to exit on its own before it is signalled. */
const EXIT_GRACE_MS = 500;
/** After SIGTERM, how long before SIGKILL. */
const TERM_GRACE_MS = 1_000;

export interface StartOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  framing: Framing;
}

export class ServerConnection {
  /** Every JSON object the server wrote, in order. */
  readonly messages: JsonObject[] = [];
  /** Everything on stdout that is not a JSON object: text lines, stray text between frames, JSON
   *  scalars and arrays. */
  readonly strayOutput: string[] = [];
  /** Set when the process could not be started (e.g. `spawn foo ENOENT`). */
  startError: NodeJS.ErrnoException | null = null;
  exited: ExitInfo | null = null;
  private stderrText = '';
  private readonly wakeups = new Set<() => void>();
  private readonly closed: Promise<void>;
  private readonly child: ChildProcess;

  constructor(private readonly options: StartOptions) {
    // POSIX: the server gets its own process group, so that stopping it also stops what it started
    // (`npx tsx server.ts` is three processes; the one we spawn is not the one that serves).
    const group = process.platform !== 'win32';
    this.child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: group,
      windowsHide: true,
    });
    const decoder = createDecoder(options.framing, (decoded) => {
      if (decoded.kind === 'stray') this.strayOutput.push(decoded.text);
      else this.onBody(decoded.text);
      this.wake();
    });
    this.child.stdout?.on('data', (chunk: Buffer) => decoder.push(chunk));
    this.child.stdout?.on('end', () => decoder.end());
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrText = (this.stderrText + chunk.toString('utf8')).slice(-STDERR_KEEP);
    });
    // EPIPE after the server died: the exit is what gets reported.
    this.child.stdin?.on('error', () => undefined);
    this.closed = new Promise((resolve) => {
      this.child.on('error', (err) => {
        // Only a failed spawn has no pid; errors of a running child (a failed kill) are not fatal.
        if (this.child.pid === undefined) this.startError = err;
        this.wake();
      });
      // 'close' comes after 'exit' and after stdout/stderr ended, or after 'error' for a failed spawn.
      this.child.on('close', (code, signal) => {
        this.exited = { code, signal };
        this.wake();
        resolve();
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The last lines of what the server wrote to stderr. */
  getStderrTail(lines = 20): string {
    return this.stderrText.trimEnd().split(/\r?\n/).slice(-lines).join('\n');
  }

  isGone(): boolean {
    return this.exited !== null || this.startError !== null;
  }

  send(message: JsonObject): void {
    this.sendBody(JSON.stringify(message));
  }

  /** Sends a body as it is (framed), e.g. one that is not valid JSON. */
  sendBody(body: string): void {
    if (this.isGone()) return;
    this.child.stdin?.write(frameBody(this.options.framing, body));
  }

  /** The first message at index >= `from` that matches, or null after `timeoutMs` or when the server is gone. */
  async waitFor(from: number, matches: (message: JsonObject) => boolean, timeoutMs: number, signal?: AbortSignal): Promise<JsonObject | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.slice(from).find(matches);
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0 || this.isGone() || signal?.aborted === true) return null;
      await this.sleep(left, signal);
    }
  }

  /** Waits `ms` whatever arrives (to see whether something that should not come comes). */
  async settle(ms: number, signal?: AbortSignal): Promise<void> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline && signal?.aborted !== true) await this.sleep(deadline - Date.now(), signal);
  }

  /**
   * Stops the server: closes its stdin (a well-behaved server exits on end of input), then SIGTERM,
   * then SIGKILL, to the whole process group. Resolves once the process is gone.
   */
  async close(): Promise<void> {
    if (this.startError !== null && this.child.pid === undefined) return;
    if (this.exited === null) this.child.stdin?.end();
    const term = setTimeout(() => this.kill('SIGTERM'), EXIT_GRACE_MS);
    const kill = setTimeout(() => this.kill('SIGKILL'), EXIT_GRACE_MS + TERM_GRACE_MS);
    try {
      await this.closed;
    } finally {
      clearTimeout(term);
      clearTimeout(kill);
    }
    // The server is gone; anything it started in its group that is still there goes too.
    this.kill('SIGKILL');
  }

  private kill(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      if (process.platform === 'win32') {
        if (this.exited === null) this.child.kill(signal);
      } else {
        process.kill(-pid, signal);
      }
    } catch {
      // ESRCH: already gone.
    }
  }

  private onBody(text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.strayOutput.push(text);
      return;
    }
    if (isJsonObject(parsed)) this.messages.push(parsed);
    else this.strayOutput.push(text);
  }

  private sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeups.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeups.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private wake(): void {
    for (const wakeup of [...this.wakeups]) wakeup();
  }
}
