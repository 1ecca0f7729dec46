// A raw JSON-RPC client for end-to-end tests: starts a server as a child process and speaks its
// framing (newline-delimited JSON or LSP-style Content-Length) byte for byte, so it can talk to
// originals the SDK Client cannot, send malformed input on purpose, and see every message the server
// writes, including replies to notifications and lines that are not JSON.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export type Framing = 'ndjson' | 'content-length';

export interface JsonMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: string;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown } | unknown;
  [key: string]: unknown;
}

export class RawClient {
  /** Every JSON message received, in order. */
  readonly messages: JsonMessage[] = [];
  /** What came on stdout and was not a JSON message (a log line, a body of the wrong length). */
  readonly noise: string[] = [];
  stderr = '';
  private readonly child: ChildProcessWithoutNullStreams;
  private pending = Buffer.alloc(0);
  private listeners: (() => void)[] = [];
  private exited = false;

  constructor(argv: string[], cwd: string, readonly framing: Framing, env: Record<string, string> = {}) {
    this.child = spawn(argv[0]!, argv.slice(1), { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.child.on('exit', () => {
      this.exited = true;
      this.wake();
    });
    this.child.stdin.on('error', () => undefined);
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Sends one message in the server's framing. */
  send(message: unknown): void {
    this.sendRaw(JSON.stringify(message));
  }

  /** Sends a body as is (maybe not JSON) in the server's framing; Content-Length counts bytes. */
  sendRaw(body: string): void {
    const bytes = Buffer.from(body, 'utf8');
    if (this.framing === 'ndjson') this.child.stdin.write(Buffer.concat([bytes, Buffer.from('\n')]));
    else this.child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`), bytes]));
  }

  /** Sends a request and waits for the reply that carries its id. */
  async request(id: unknown, method: string, params?: unknown, timeoutMs = 5000): Promise<JsonMessage> {
    const from = this.messages.length;
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return this.waitFor((m) => 'id' in m && m.id === id && !('method' in m), timeoutMs, from);
  }

  notify(method: string, params?: unknown): void {
    this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** The first message from index `from` on that matches; rejects after the timeout or when the server exits. */
  waitFor(match: (m: JsonMessage) => boolean, timeoutMs = 5000, from = 0): Promise<JsonMessage> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.messages.slice(from).find(match);
        if (found !== undefined) {
          done();
          resolve(found);
          return true;
        }
        if (this.exited) {
          done();
          reject(new Error(`server exited before answering; stderr: ${this.stderr}`));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(this.messages.slice(from))}`));
      }, timeoutMs);
      const listener = (): void => void check();
      const done = (): void => {
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== listener);
      };
      if (!check()) this.listeners.push(listener);
    });
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end();
    this.child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
    if (!this.exited) this.child.kill('SIGKILL');
  }

  private onData(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    if (this.framing === 'ndjson') {
      for (let nl = this.pending.indexOf(10); nl >= 0; nl = this.pending.indexOf(10)) {
        const line = this.pending.subarray(0, nl).toString('utf8').replace(/\r$/, '');
        this.pending = this.pending.subarray(nl + 1);
        if (line.trim() === '') continue;
        try {
          this.messages.push(JSON.parse(line) as JsonMessage);
        } catch {
          this.noise.push(line);
        }
      }
    } else {
      for (;;) {
        const headerEnd = this.pending.indexOf('\r\n\r\n');
        if (headerEnd < 0) break;
        const header = this.pending.subarray(0, headerEnd).toString('latin1');
        const match = /^Content-Length: *(\d+)$/im.exec(header);
        if (match === null) {
          // not a header: the stream is out of step; keep what came for the assertion message
          this.noise.push(this.pending.toString('utf8'));
          this.pending = Buffer.alloc(0);
          break;
        }
        const length = Number(match[1]);
        if (this.pending.length < headerEnd + 4 + length) break;
        const body = this.pending.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8');
        this.pending = this.pending.subarray(headerEnd + 4 + length);
        try {
          this.messages.push(JSON.parse(body) as JsonMessage);
        } catch {
          // a body that is not exactly one JSON text: the server counted its length wrong
          this.noise.push(body);
        }
      }
    }
    this.wake();
  }

  private wake(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
