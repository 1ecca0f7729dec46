// A server process spoken to by a raw JSON-RPC client: starts it, frames what is sent, decodes and
// keeps what it writes (in order, within bounds), and stops it and everything it started — always,
// even when the probes throw, and within a bounded time whatever the server does.
// It deliberately knows nothing about MCP or about which replies are right: that is ./probe.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createDecoder, frameBody, type Decoder, type Framing } from './framing.js';
import { findByMarker, findDescendants, findPipeHolders, getStdioPipes, signalProcesses, type ProcessRef } from './process-tree.js';

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
/** After SIGKILL, how long to wait for the exit to be reported (SIGKILL cannot be caught; this is a bound, not a grace). */
const KILL_WAIT_MS = 1_000;
/**
 * After the server exited, how long its stdout may still deliver what it wrote before the pipes are
 * taken as ended: a grandchild that inherited stdout keeps the pipe open for as long as it lives.
 */
const DRAIN_MS = 300;
/** How often the server's descendants are noted while it runs (an orphan can no longer be traced to it). */
const TREE_SNAPSHOT_MS = 200;

/**
 * What is kept of the server's output: it is measured, not archived, and a server that floods stdout
 * must not grow this process without bound. Past MAX_MESSAGES only responses are kept (the probes wait
 * for those), up to twice as many; past MAX_KEPT_CHARS of message text, nothing more. Stray text: the
 * first MAX_STRAY pieces, each clipped to STRAY_KEEP_CHARS; the rest only counted.
 */
const MAX_MESSAGES = 10_000;
const MAX_KEPT_CHARS = 64 * 1024 * 1024;
/**
 * A reply (or stdout line) larger than this is skipped as it streams past and counted as stray text:
 * the probes' replies are listings and errors (a 50 MB one is still read whole).
 */
export const MAX_REPLY_BYTES = 64 * 1024 * 1024;
/** Node's timers overflow past this many milliseconds (a wait of 2^31 ms would fire at once, in a loop). */
const MAX_TIMER_MS = 2 ** 31 - 1;
const MAX_STRAY = 100;
const STRAY_KEEP_CHARS = 2_000;
/** A JSON value written over several lines (`JSON.stringify(msg, null, 2)`) is read back over at most this many lines, or this many characters. */
const MAX_VALUE_LINES = 10_000;
const MAX_VALUE_CHARS = 1024 * 1024;
/** How long a line that holds whole JSON objects may wait for its newline before it is read without one. */
const UNTERMINATED_MS = 150;

export interface StartOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  framing: Framing;
}

export class ServerConnection {
  /** The JSON objects the server wrote, in order (bounded: see MAX_MESSAGES). */
  readonly messages: JsonObject[] = [];
  /** Messages not kept because of the bounds. */
  droppedMessages = 0;
  /** Everything on stdout that is not a JSON object: text lines, stray text between frames, JSON
   *  scalars and arrays (the first MAX_STRAY pieces, clipped; `strayCount` counts them all). */
  readonly strayOutput: string[] = [];
  strayCount = 0;
  /** Set when the process could not be started (e.g. `spawn foo ENOENT`). */
  startError: NodeJS.ErrnoException | null = null;
  /** Set once the server has exited and its output is read (or, if something it started holds stdout open, DRAIN_MS after it exited). */
  exited: ExitInfo | null = null;
  private stderrText = '';
  private keptChars = 0;
  /** NDJSON: the lines of a JSON value begun on one line and not yet complete. */
  private valueLines: string[] | null = null;
  private valueChars = 0;
  private processExit: ExitInfo | null = null;
  private streamsClosed = false;
  private readonly wakeups = new Set<() => void>();
  private readonly child: ChildProcess;
  /** The server's stdio pipes (`pipe:[inode]`), to find whoever else holds them at the end. */
  private readonly pipes: string[];
  /** Every descendant seen while the server ran, by pid. */
  private readonly descendants = new Map<number, ProcessRef>();
  private snapshotTimer: NodeJS.Timeout | null = null;
  private unterminatedTimer: NodeJS.Timeout | null = null;
  private drainTimer: NodeJS.Timeout | null = null;

  /** `MCP_MIGRATE_SERVER_RUN=<random>`: in the server's environment, inherited by whatever it starts (see findByMarker). */
  private readonly marker = `${RUN_MARKER}=${randomBytes(12).toString('hex')}`;

  constructor(private readonly options: StartOptions) {
    // POSIX: the server gets a session and process group of its own (detached: setsid), so that
    // stopping it also stops what it started (`npx tsx server.ts` is three processes; the one we spawn
    // is not the one that serves).
    const group = process.platform !== 'win32';
    this.child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: { ...options.env, [RUN_MARKER]: this.marker.slice(RUN_MARKER.length + 1) },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: group,
      windowsHide: true,
    });
    this.pipes = this.child.pid === undefined ? [] : getStdioPipes(this.child.pid);
    if (this.child.pid !== undefined && this.pipes.length > 0) {
      this.snapshotTimer = setInterval(() => this.rememberDescendants(), TREE_SNAPSHOT_MS);
      this.snapshotTimer.unref();
    }
    const decoder = createDecoder(
      options.framing,
      (decoded) => {
        if (decoded.kind === 'stray') this.onStray(decoded.text);
        else this.onBody(decoded.text);
        this.wake();
      },
      { maxBodyBytes: MAX_REPLY_BYTES },
    );
    this.child.stdout?.on('data', (chunk: Buffer) => {
      decoder.push(chunk);
      if (options.framing === 'ndjson') this.watchUnterminated(decoder);
    });
    this.child.stdout?.on('end', () => decoder.end());
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrText = (this.stderrText + chunk.toString('utf8')).slice(-STDERR_KEEP);
    });
    // EPIPE after the server died: the exit is what gets reported.
    this.child.stdin?.on('error', () => undefined);
    this.child.stdout?.on('error', () => undefined);
    this.child.stderr?.on('error', () => undefined);
    this.child.on('error', (err) => {
      // Only a failed spawn has no pid; errors of a running child (a failed kill) are not fatal.
      if (this.child.pid === undefined) this.startError = err;
      this.wake();
    });
    this.child.on('exit', (code, signal) => {
      this.processExit = { code, signal };
      this.stopSnapshots();
      // Normally 'close' follows at once; if a grandchild holds stdout it never does.
      this.drainTimer = setTimeout(() => this.markExited(), DRAIN_MS);
      this.drainTimer.unref();
      this.wake();
    });
    // 'close' comes after 'exit' and after stdout/stderr ended, or after 'error' for a failed spawn.
    this.child.on('close', (code, signal) => {
      this.streamsClosed = true;
      this.processExit ??= { code, signal };
      this.markExited();
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
    // Each message is tested once, however many times this wakes (a flood wakes it on every line).
    let next = from;
    for (;;) {
      for (; next < this.messages.length; next++) {
        const message = this.messages[next]!;
        if (matches(message)) return message;
      }
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
   * then SIGKILL, to its process group and every descendant it had; then whatever still holds its
   * stdio pipes is killed and the pipes are let go. Every wait is bounded: this resolves within about
   * EXIT_GRACE_MS + TERM_GRACE_MS + KILL_WAIT_MS + DRAIN_MS whatever the server and its children do.
   */
  async close(): Promise<void> {
    if (this.child.pid === undefined) return;
    if (this.processExit === null) {
      this.child.stdin?.end();
      if (!(await this.waitUntil(() => this.processExit !== null, EXIT_GRACE_MS))) {
        this.signalTree('SIGTERM');
        if (!(await this.waitUntil(() => this.processExit !== null, TERM_GRACE_MS))) {
          this.signalTree('SIGKILL');
          await this.waitUntil(() => this.processExit !== null, KILL_WAIT_MS);
        }
      }
    }
    // The server is gone; anything it started that is still there goes too, and so does whatever else
    // holds its stdout (a grandchild in a session of its own, re-parented to init).
    this.signalTree('SIGKILL');
    if (!(await this.waitUntil(() => this.streamsClosed, DRAIN_MS))) {
      this.child.stdout?.destroy();
      this.child.stderr?.destroy();
      this.child.stdin?.destroy();
    }
    this.stopSnapshots();
    if (this.drainTimer !== null) clearTimeout(this.drainTimer);
    this.markExited();
  }

  /** Notes the server's descendants while it is alive (after it dies they cannot be traced to it). */
  private rememberDescendants(): void {
    const pid = this.child.pid;
    if (pid === undefined || this.processExit !== null) return;
    for (const ref of findDescendants(pid)) this.descendants.set(ref.pid, ref);
  }

  private stopSnapshots(): void {
    if (this.snapshotTimer !== null) clearInterval(this.snapshotTimer);
    this.snapshotTimer = null;
  }

  /** `signal` to the server's process group, each descendant seen, and each holder of its stdio pipes. */
  private signalTree(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    this.rememberDescendants();
    try {
      if (process.platform === 'win32') {
        if (this.processExit === null) this.child.kill(signal);
      } else {
        process.kill(-pid, signal);
      }
    } catch {
      // ESRCH: the group is empty.
    }
    signalProcesses([...this.descendants.values(), ...findPipeHolders(this.pipes), ...findByMarker(this.pipes.length > 0 ? pid : undefined, this.marker)], signal);
  }

  private markExited(): void {
    if (this.exited !== null || this.processExit === null) return;
    this.exited = this.processExit;
    this.wake();
  }

  /**
   * A server that writes its messages without the newline (`stdout.write(JSON.stringify(reply))`): a
   * client reading lines never gets them, but they are what the server answered. When the line begun
   * holds whole JSON objects and nothing more comes for UNTERMINATED_MS, they are read (so two servers
   * can be compared on what they mean) and each counts as stdout pollution, the rule the server breaks.
   * A newline written a moment later (`write(json); write('\n')`) arrives well within that time.
   */
  private watchUnterminated(decoder: Decoder): void {
    if (this.unterminatedTimer) clearTimeout(this.unterminatedTimer);
    this.unterminatedTimer = null;
    // inside a value written over several lines (`JSON.stringify(reply, null, 2)` with no newline after
    // it), the line begun is that value's last: when it completes the value and nothing more comes, the
    // value is read as if its newline had come
    if (this.valueLines !== null) {
      const lines = this.valueLines;
      this.unterminatedTimer = setTimeout(() => {
        this.unterminatedTimer = null;
        if (this.valueLines !== lines) return;
        const rest = decoder.pending(MAX_VALUE_CHARS);
        if (parseObject([...lines, rest].join('\n')) === undefined) return;
        decoder.dropPending();
        this.readValueLine(rest);
        this.wake();
      }, UNTERMINATED_MS);
      this.unterminatedTimer.unref();
      return;
    }
    if (decoder.pendingStart() !== '{') return;
    this.unterminatedTimer = setTimeout(() => {
      this.unterminatedTimer = null;
      const values = this.valueLines === null ? splitJsonObjects(decoder.pending(MAX_VALUE_CHARS)) : null;
      if (values === null) return;
      decoder.dropPending();
      for (const value of values) {
        this.onStray(`[a JSON message without its newline: ${detach(value.slice(0, 200))}]`);
        this.deliver(value);
      }
      this.wake();
    }, UNTERMINATED_MS);
    this.unterminatedTimer.unref();
  }

  private onBody(text: string): void {
    // A message serialised over several lines breaks NDJSON (no client reads it), but it is still what
    // the server answered: it is read back whole, so that two servers can be compared on what they
    // mean, and its lines count as stdout pollution (the rule the original breaks).
    if (this.options.framing === 'ndjson' && (this.valueLines !== null || text.trimStart().startsWith('{'))) {
      this.readValueLine(text);
      return;
    }
    this.deliver(text);
  }

  private readValueLine(text: string): void {
    const lines = [...(this.valueLines ?? []), text];
    this.valueChars += text.length;
    const joined = lines.join('\n');
    let parsed: unknown;
    try {
      parsed = JSON.parse(joined);
    } catch {
      if (lines.length === 1 && !isIncompleteJson(joined)) {
        this.onStray(text); // a line that is no JSON at all, not the start of a value
        this.valueChars = 0;
        return;
      }
      // a complete message on a line of its own ends what an unterminated line began (a log line
      // that opened a brace must not swallow the replies after it)
      const alone = lines.length > 1 ? parseObject(text) : undefined;
      if (alone !== undefined) {
        for (const line of lines.slice(0, -1)) this.onStray(line);
        this.valueLines = null;
        this.valueChars = 0;
        this.deliver(text, alone);
        return;
      }
      if (lines.length < MAX_VALUE_LINES && this.valueChars < MAX_VALUE_CHARS) {
        this.valueLines = lines;
        return;
      }
      for (const line of lines) this.onStray(line);
      this.valueLines = null;
      this.valueChars = 0;
      return;
    }
    this.valueLines = null;
    this.valueChars = 0;
    if (lines.length > 1) {
      this.onStray(`[a JSON message written over ${lines.length} lines: ${detach(joined.slice(0, 400).replace(/\s+/g, ' ').slice(0, 200))}]`);
      this.strayCount += lines.length - 1; // each of its lines is one a client cannot read
    }
    this.deliver(joined, parsed);
  }

  private deliver(text: string, known?: unknown): void {
    let parsed: unknown = known;
    if (known === undefined) {
      try {
        parsed = JSON.parse(text);
      } catch {
        this.onStray(text);
        return;
      }
    }
    if (!isJsonObject(parsed)) {
      this.onStray(text);
      return;
    }
    const isResponse = 'result' in parsed || 'error' in parsed;
    const full = this.messages.length >= (isResponse ? 2 * MAX_MESSAGES : MAX_MESSAGES) || this.keptChars + text.length > MAX_KEPT_CHARS;
    if (full) {
      this.droppedMessages++;
      return;
    }
    this.keptChars += text.length;
    this.messages.push(parsed);
  }

  private onStray(text: string): void {
    this.strayCount++;
    // A copy, not a slice: V8 keeps a slice's whole parent string alive (60 lines of 100 MB, each kept
    // through its first 2,000 characters, exhausted the heap).
    if (this.strayOutput.length < MAX_STRAY) this.strayOutput.push(text.length > STRAY_KEEP_CHARS ? `${detach(text.slice(0, STRAY_KEEP_CHARS))}…` : detach(text));
  }

  /** Resolves true as soon as `done()` holds, false after `ms`. */
  private async waitUntil(done: () => boolean, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!done()) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await this.sleep(left);
    }
    return true;
  }

  private sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeups.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(Math.max(0, ms), MAX_TIMER_MS));
      this.wakeups.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private wake(): void {
    for (const wakeup of [...this.wakeups]) wakeup();
  }
}

/** The variable every server under verify is started with; its value names the run (findByMarker). */
const RUN_MARKER = 'MCP_MIGRATE_SERVER_RUN';

/** A string with no reference to the one it was cut from (a round trip through bytes makes a flat copy). */
export function detach(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** `text` as a JSON object, or undefined. */
function parseObject(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `{...}{...}` (whitespace between and around allowed) as the text of each object; null when the text
 * is anything else or ends inside an object (more may come).
 */
export function splitJsonObjects(text: string): string[] | null {
  const out: string[] = [];
  let depth = 0;
  let inString = false;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (depth === 0) {
      if (c === '{') {
        start = i;
        depth = 1;
      } else if (!/\s/.test(c)) return null;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) out.push(text.slice(start, i + 1));
    }
  }
  return depth === 0 && out.length > 0 && out.every((value) => parseObject(value) !== undefined) ? out : null;
}

/** Whether `text` is the start of a JSON value that more text could complete (an unclosed object or array). */
function isIncompleteJson(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth <= 0) return false;
    }
  }
  return depth > 0;
}
