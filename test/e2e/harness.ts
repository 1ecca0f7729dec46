/**
 * End-to-end harness: starts corpus servers as real processes and speaks MCP to them.
 *
 * - `copyCase` puts a fixture case in a fresh temp dir next to a `node_modules` symlink to the
 *   project's own, so the SDK, zod and tsx resolve for migrated servers and cases 04/05/13.
 * - `recordOriginal` replays a case with a RAW client in the case's framing (ids from 1), because
 *   the SDK `Client` cannot talk to some originals (05, 06, 08: see the corpus README).
 * - `replayWithSdkClient` replays the same sequence with the official `Client` (v1 or v2).
 * - `probeRaw` measures the JSON-RPC envelope rules on any server (ndjson or Content-Length).
 * - `compareTranscripts` says, in words, where a migrated server answers differently.
 * - `runCli` runs the built `bin/mcp-migrate.js`.
 *
 * It deliberately does not judge which differences are bug fixes beyond the corpus README's own
 * allowances (protocolVersion, extra capabilities, 06's non-standard error, 07's missing `uri`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cp, mkdtemp, readFile, readdir, rm, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// ---------------------------------------------------------------------------- paths and cases

/** The project root (`/work/main` in the dev container), from this file's location. */
export const PROJECT_ROOT: string = fileURLToPath(new URL('../../', import.meta.url));
export const PROJECT_NODE_MODULES: string = join(PROJECT_ROOT, 'node_modules');
export const FIXTURE_CORPUS: string = join(PROJECT_ROOT, 'test', 'fixtures', 'corpus');
export const CLI_BIN: string = join(PROJECT_ROOT, 'bin', 'mcp-migrate.js');

/** Every corpus case folder name, sorted (`01-…` … `14-…`). */
export const ALL_CASES: readonly string[] = readdirSync(FIXTURE_CORPUS)
  .filter((name) => statSync(join(FIXTURE_CORPUS, name)).isDirectory())
  .sort();

export type Framing = 'ndjson' | 'content-length';
export type Expectation = 'sdk' | 'envelope' | 'unchanged';

export interface ToolCallSpec {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
}
export interface PromptSpec {
  readonly name: string;
  readonly arguments: Record<string, string>;
}
export interface RequestSpec {
  readonly method: string;
  readonly params: Record<string, unknown>;
}

/** A corpus `case.json` (see test/fixtures/corpus/README.md). */
export interface CaseSpec {
  readonly description: string;
  readonly run: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly framing: Framing;
  readonly expect: Expectation;
  readonly calls: readonly ToolCallSpec[];
  readonly resources: readonly string[];
  readonly prompts: readonly PromptSpec[];
  readonly requests: readonly RequestSpec[];
}

const createdTempDirs = new Set<string>();

/**
 * Copies `test/fixtures/corpus/<name>` to `<tmp>/<name>` and links `<tmp>/node_modules` to the
 * project's. The link sits one level up, so Node's resolution finds it while the case folder itself
 * holds exactly the fixture's files (the CLI under test never sees a `node_modules`).
 */
export async function copyCase(name: string, from: string = FIXTURE_CORPUS): Promise<string> {
  const source = join(from, name);
  if (!existsSync(join(source, 'case.json'))) throw new Error(`no corpus case ${name}`);
  const root = await mkdtemp(join(tmpdir(), `mcp-migrate-e2e-${name.slice(0, 2)}-`));
  createdTempDirs.add(root);
  const dir = join(root, name);
  await cp(source, dir, { recursive: true });
  await symlink(PROJECT_NODE_MODULES, join(root, 'node_modules'), 'dir');
  return dir;
}

/** Removes the temp dir `copyCase` made for `dir`. */
export async function removeCase(dir: string): Promise<void> {
  const root = join(dir, '..');
  if (!createdTempDirs.delete(root)) return;
  await rm(root, { recursive: true, force: true });
}

/** Removes every temp dir this process made with `copyCase` (for `afterAll`). */
export async function removeAllCases(): Promise<void> {
  await Promise.all([...createdTempDirs].map((root) => rm(root, { recursive: true, force: true })));
  createdTempDirs.clear();
}

export async function readCase(dir: string): Promise<CaseSpec> {
  return JSON.parse(await readFile(join(dir, 'case.json'), 'utf8')) as CaseSpec;
}

/** A fixture's case.json, read synchronously (for building test tables at collection time). */
export function readFixtureCase(name: string): CaseSpec {
  return JSON.parse(readFileSync(join(FIXTURE_CORPUS, name, 'case.json'), 'utf8')) as CaseSpec;
}

/** Every file under `dir` (relative path → bytes), for byte-identical checks. */
export async function readTree(dir: string): Promise<Map<string, Buffer>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile());
  const tree = new Map<string, Buffer>();
  for (const file of files) {
    const path = join(file.parentPath, file.name);
    tree.set(relative(dir, path).split(sep).join('/'), await readFile(path));
  }
  return new Map([...tree].sort(([a], [b]) => a.localeCompare(b)));
}

/** Paths that were added, removed or changed between two `readTree` snapshots. */
export function diffTrees(before: Map<string, Buffer>, after: Map<string, Buffer>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].sort().filter((path) => {
    const a = before.get(path);
    const b = after.get(path);
    return a === undefined || b === undefined || !a.equals(b);
  });
}

// ---------------------------------------------------------------------------- the replay sequence

/** One step of the corpus README's replay sequence (notifications/initialized is implicit). */
export type ReplayStep =
  | { readonly kind: 'initialize'; readonly label: string }
  | { readonly kind: 'tools/list'; readonly label: string }
  | { readonly kind: 'tools/call'; readonly label: string; readonly call: ToolCallSpec }
  | { readonly kind: 'resources/list'; readonly label: string }
  | { readonly kind: 'resources/read'; readonly label: string; readonly uri: string }
  | { readonly kind: 'prompts/list'; readonly label: string }
  | { readonly kind: 'prompts/get'; readonly label: string; readonly prompt: PromptSpec }
  | { readonly kind: 'request'; readonly label: string; readonly request: RequestSpec };

export const PROTOCOL_VERSION = '2025-06-18';
const CLIENT_INFO = { name: 'mcp-migrate-e2e', version: '0.0.0' } as const;

// 1. initialize  2. (notifications/initialized)  3. tools/list  4. each call
// 5. resources/list + each read  6. prompts/list + each get  7. each custom request
export function buildReplaySteps(kase: CaseSpec): ReplayStep[] {
  const steps: ReplayStep[] = [
    { kind: 'initialize', label: 'initialize' },
    { kind: 'tools/list', label: 'tools/list' },
  ];
  kase.calls.forEach((call, i) => steps.push({ kind: 'tools/call', label: `tools/call #${i + 1} ${call.tool}`, call }));
  if (kase.resources.length > 0) {
    steps.push({ kind: 'resources/list', label: 'resources/list' });
    for (const uri of kase.resources) steps.push({ kind: 'resources/read', label: `resources/read ${uri}`, uri });
  }
  if (kase.prompts.length > 0) {
    steps.push({ kind: 'prompts/list', label: 'prompts/list' });
    kase.prompts.forEach((prompt, i) =>
      steps.push({ kind: 'prompts/get', label: `prompts/get #${i + 1} ${prompt.name}`, prompt }),
    );
  }
  kase.requests.forEach((request, i) =>
    steps.push({ kind: 'request', label: `request #${i + 1} ${request.method}`, request }),
  );
  return steps;
}

/** The JSON-RPC method and params a raw client sends for a step. */
export function getStepMessage(step: ReplayStep): { method: string; params: Record<string, unknown> } {
  switch (step.kind) {
    case 'initialize':
      return { method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO } };
    case 'tools/list':
    case 'resources/list':
    case 'prompts/list':
      return { method: step.kind, params: {} };
    case 'tools/call':
      return { method: 'tools/call', params: { name: step.call.tool, arguments: step.call.arguments } };
    case 'resources/read':
      return { method: 'resources/read', params: { uri: step.uri } };
    case 'prompts/get':
      return { method: 'prompts/get', params: { name: step.prompt.name, arguments: step.prompt.arguments } };
    case 'request':
      return { method: step.request.method, params: step.request.params };
    default:
      return assertNever(step);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected value ${JSON.stringify(value)}`);
}

// ---------------------------------------------------------------------------- transcripts

/** A JSON-RPC error as recorded. `code: null` means the server sent a non-standard error
 *  (case 06's `{ "error": "Unknown tool" }`): `message` then holds the string (or its JSON). */
export interface RecordedError {
  readonly code: number | null;
  readonly message: string;
}

/** Exactly one of `result`, `error`, `timeout` (no answer in time, or the server died) and
 *  `failure` (the SDK client rejected the answer, e.g. 07's `resources/read` without `uri`). */
export interface TranscriptEntry {
  readonly step: string;
  readonly result?: unknown;
  readonly error?: RecordedError;
  readonly timeout?: true;
  readonly failure?: string;
}

export interface Transcript {
  readonly entries: readonly TranscriptEntry[];
  /** What the client saw besides the answers: non-JSON stdout lines, unmatched messages, client
   *  onerror reports. Informative only; `compareTranscripts` does not look at it. */
  readonly notes: readonly string[];
  /** The server's stderr, for failure messages. */
  readonly stderr: string;
}

export interface ReplayOptions {
  /** Per-request timeout; a request not answered in time is recorded as `{ timeout: true }`. */
  readonly timeoutMs?: number;
  /** Timeout for `initialize` (server start-up included; tsx needs longer). */
  readonly startTimeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 5_000;
// tsx plus the SDK import take ~1 s on an idle machine and over 15 s on a loaded one.
const DEFAULT_START_TIMEOUT_MS = 30_000;

// ---------------------------------------------------------------------------- process slots

/** How many servers / CLI runs the harness lets run at once (tests may run concurrently; on a
 *  2-core machine, more processes only make every start-up slower and timeouts likelier). */
const PROCESS_SLOTS = Number(process.env.MCP_MIGRATE_E2E_SLOTS) || Math.max(4, 2 * availableParallelism());
let busySlots = 0;
const slotQueue: Array<() => void> = [];

/** Runs `work` once a process slot is free; timeouts start only then. */
export async function withProcessSlot<T>(work: () => Promise<T>): Promise<T> {
  if (busySlots < PROCESS_SLOTS) busySlots++;
  else await new Promise<void>((resolve) => slotQueue.push(resolve));
  try {
    return await work();
  } finally {
    const next = slotQueue.shift();
    if (next === undefined) busySlots--;
    else next(); // the slot passes straight to the next waiter
  }
}

// ---------------------------------------------------------------------------- starting servers

interface Command {
  readonly command: string;
  readonly args: readonly string[];
}

const requireFromHere = createRequire(import.meta.url);

/** The project's own tsx CLI (no `npx`, no network). */
export const TSX_CLI: string = requireFromHere.resolve('tsx/cli');

/** `["node", …]` runs on this Node; `["npx", "tsx", …]` on the project's tsx. */
export function resolveRun(run: readonly string[]): Command {
  const [head, ...rest] = run;
  if (head === 'npx' && rest[0] === 'tsx') return { command: process.execPath, args: [TSX_CLI, ...rest.slice(1)] };
  if (head === 'tsx') return { command: process.execPath, args: [TSX_CLI, ...rest] };
  if (head === 'node') return { command: process.execPath, args: rest };
  if (head === undefined) throw new Error('case.json "run" is empty');
  return { command: head, args: rest };
}

type JsonObject = Record<string, unknown>;

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** LSP-style frame: `Content-Length: <bytes>\r\n\r\n<body>`, no trailing newline. */
export function frameContentLength(body: string): string {
  return `Content-Length: ${Buffer.byteLength(body, 'utf8')}\r\n\r\n${body}`;
}

function frame(framing: Framing, body: string): string {
  return framing === 'ndjson' ? `${body}\n` : frameContentLength(body);
}

/** Splits stdout into message bodies: lines for ndjson, Content-Length frames otherwise.
 *  Works on bytes, so a UTF-8 character split across chunks is decoded whole. */
function createDecoder(framing: Framing, onBody: (body: string) => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  const takeLines = (): void => {
    for (let nl = pending.indexOf(0x0a); nl >= 0; nl = pending.indexOf(0x0a)) {
      const line = pending.subarray(0, nl).toString('utf8').replace(/\r$/, '');
      pending = pending.subarray(nl + 1);
      if (line.trim() !== '') onBody(line);
    }
  };
  const takeFrames = (): void => {
    for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
      const header = pending.subarray(0, end).toString('utf8');
      const length = /Content-Length:\s*(\d+)/i.exec(header);
      if (length === null) {
        onBody(header); // not a frame header: reported as a non-JSON "line"
        pending = pending.subarray(end + 4);
        continue;
      }
      const size = Number(length[1]);
      if (pending.length < end + 4 + size) return;
      onBody(pending.subarray(end + 4, end + 4 + size).toString('utf8'));
      pending = pending.subarray(end + 4 + size);
    }
  };
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    if (framing === 'ndjson') takeLines();
    else takeFrames();
  };
}

/** A server process spoken to by a raw JSON-RPC client. Keeps everything it saw, in order. */
export class RawConnection {
  readonly messages: JsonObject[] = [];
  readonly nonJsonLines: string[] = [];
  stderr = '';
  exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private readonly wakeups = new Set<() => void>();
  private readonly exitPromise: Promise<void>;

  constructor(
    private readonly child: ChildProcess,
    readonly framing: Framing,
  ) {
    const decode = createDecoder(framing, (body) => this.onBody(body));
    child.stdout?.on('data', (chunk: Buffer) => decode(chunk));
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
    child.stdin?.on('error', () => undefined); // EPIPE after a crash: the exit is what we report
    this.exitPromise = new Promise((resolve) => {
      child.on('close', (code, signal) => {
        this.exited = { code, signal };
        this.wake();
        resolve();
      });
    });
  }

  /** Sends one JSON-RPC message, framed. */
  send(message: unknown): void {
    this.sendBody(JSON.stringify(message));
  }

  /** Sends a body as is (framed), e.g. a line that is not valid JSON. */
  sendBody(body: string): void {
    if (this.exited === null) this.child.stdin?.write(frame(this.framing, body));
  }

  /** The first message at index >= `from` that matches, or null after `timeoutMs` or an exit. */
  async waitFor(from: number, matches: (message: JsonObject) => boolean, timeoutMs: number): Promise<JsonObject | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.slice(from).find(matches);
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0 || this.exited !== null) return null;
      await this.sleepUntilMessage(left);
    }
  }

  /** Waits `ms` no matter what arrives (to see whether something unwanted comes). */
  async settle(ms: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** Closes stdin and waits for the exit; kills the process if it lingers. */
  async close(): Promise<void> {
    if (this.exited === null) this.child.stdin?.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 2_000);
    await this.exitPromise;
    clearTimeout(timer);
  }

  private onBody(body: string): void {
    const parsed = parseJson(body);
    if (isJsonObject(parsed)) this.messages.push(parsed);
    else this.nonJsonLines.push(body);
    this.wake();
  }

  private sleepUntilMessage(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeups.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeups.add(done);
    });
  }

  private wake(): void {
    for (const wakeup of [...this.wakeups]) wakeup();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Starts a case's server with `run`, in `dir`, with `env` merged into this process's env. */
export function startRaw(dir: string, kase: CaseSpec): RawConnection {
  const { command, args } = resolveRun(kase.run);
  const child = spawn(command, [...args], {
    cwd: dir,
    env: { ...process.env, ...kase.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return new RawConnection(child, kase.framing);
}

function isResponse(message: JsonObject): boolean {
  return 'result' in message || 'error' in message;
}

function hasId(id: number | string): (message: JsonObject) => boolean {
  return (message) => isResponse(message) && message.id === id;
}

function getRecordedError(error: unknown): RecordedError {
  if (isJsonObject(error) && typeof error.code === 'number' && typeof error.message === 'string') {
    return { code: error.code, message: error.message };
  }
  return { code: null, message: typeof error === 'string' ? error : JSON.stringify(error) };
}

function toEntry(step: string, reply: JsonObject | null): TranscriptEntry {
  if (reply === null) return { step, timeout: true };
  if ('error' in reply) return { step, error: getRecordedError(reply.error) };
  return { step, result: reply.result };
}

// ---------------------------------------------------------------------------- recording originals

/**
 * Replays the case with a raw client in the case's framing: ids from 1, one request at a time,
 * stdout lines that are not JSON skipped (and noted).
 */
export function recordOriginal(dir: string, kase: CaseSpec, options: ReplayOptions = {}): Promise<Transcript> {
  return withProcessSlot(() => recordOriginalNow(dir, kase, options));
}

async function recordOriginalNow(dir: string, kase: CaseSpec, options: ReplayOptions): Promise<Transcript> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const connection = startRaw(dir, kase);
  const entries: TranscriptEntry[] = [];
  const answered = new Set<JsonObject>();
  let nextId = 1;
  try {
    for (const step of buildReplaySteps(kase)) {
      const id = nextId++;
      const from = connection.messages.length;
      connection.send({ jsonrpc: '2.0', id, ...getStepMessage(step) });
      const wait = step.kind === 'initialize' ? (options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS) : timeoutMs;
      const reply = await connection.waitFor(from, hasId(id), wait);
      if (reply !== null) answered.add(reply);
      entries.push(toEntry(step.label, reply));
      if (step.kind === 'initialize') connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    }
  } finally {
    await connection.close();
  }
  const unmatched = connection.messages.filter((message) => !answered.has(message));
  const notes = [
    ...connection.nonJsonLines.map((line) => `non-JSON stdout: ${line}`),
    ...unmatched.map((message) => `unmatched message: ${JSON.stringify(message)}`),
  ];
  return { entries, notes, stderr: connection.stderr };
}

// ---------------------------------------------------------------------------- SDK client replay

export type SdkVersion = 'v1' | 'v2';

export interface SdkReplayOptions extends ReplayOptions {
  readonly sdk: SdkVersion;
}

/** What the replay needs from either SDK's `Client`. */
interface SdkSession {
  connect(timeoutMs: number): Promise<void>;
  describeServer(): unknown;
  run(step: ReplayStep, timeoutMs: number): Promise<unknown>;
  close(): Promise<void>;
  readonly stderr: () => string;
  readonly clientErrors: string[];
}

interface StdioParams {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  stderr: 'pipe';
}

/** A Standard Schema that accepts any result as is (v2's `request` for custom methods). */
const passthroughStandardSchema = {
  '~standard': {
    version: 1,
    vendor: 'mcp-migrate-e2e',
    validate: (value: unknown) => ({ value }),
  },
} as const;

async function openV1Session(params: Omit<StdioParams, 'env'>, env: Readonly<Record<string, string>>): Promise<SdkSession> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport, getDefaultEnvironment } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const { ResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const transport = new StdioClientTransport({ ...params, env: { ...getDefaultEnvironment(), ...env } });
  const client = new Client({ ...CLIENT_INFO }, { capabilities: {} });
  return wrapSession(client, transport, {
    callTool: (call, timeout) => client.callTool({ name: call.tool, arguments: call.arguments }, undefined, { timeout }),
    custom: (request, timeout) =>
      client.request({ method: request.method, params: request.params }, ResultSchema, { timeout }),
  });
}

async function openV2Session(params: Omit<StdioParams, 'env'>, env: Readonly<Record<string, string>>): Promise<SdkSession> {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport, getDefaultEnvironment } = await import('@modelcontextprotocol/client/stdio');
  const transport = new StdioClientTransport({ ...params, env: { ...getDefaultEnvironment(), ...env } });
  const client = new Client({ ...CLIENT_INFO }, { capabilities: {} });
  return wrapSession(client, transport, {
    callTool: (call, timeout) => client.callTool({ name: call.tool, arguments: call.arguments }, { timeout }),
    custom: (request, timeout) =>
      client.request({ method: request.method, params: request.params }, passthroughStandardSchema, { timeout }),
  });
}

/** The part of the two SDK `Client`s that has the same shape. */
interface CommonClient {
  connect(transport: never, options?: { timeout?: number }): Promise<void>;
  close(): Promise<void>;
  onerror?: (error: Error) => void;
  getServerCapabilities(): unknown;
  getServerVersion(): unknown;
  getInstructions(): string | undefined;
  listTools(params?: undefined, options?: { timeout?: number }): Promise<unknown>;
  listResources(params?: undefined, options?: { timeout?: number }): Promise<unknown>;
  readResource(params: { uri: string }, options?: { timeout?: number }): Promise<unknown>;
  listPrompts(params?: undefined, options?: { timeout?: number }): Promise<unknown>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }, options?: { timeout?: number }): Promise<unknown>;
}

interface CommonTransport {
  readonly stderr: NodeJS.ReadableStream | { on(event: 'data', listener: (chunk: Buffer) => void): unknown } | null;
}

interface VersionSpecific {
  callTool(call: ToolCallSpec, timeout: number): Promise<unknown>;
  custom(request: RequestSpec, timeout: number): Promise<unknown>;
}

function wrapSession(client: CommonClient, transport: CommonTransport, specific: VersionSpecific): SdkSession {
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer | string) => {
    stderr += chunk.toString();
  });
  const clientErrors: string[] = [];
  client.onerror = (error) => clientErrors.push(error.message);
  return {
    stderr: () => stderr,
    clientErrors,
    connect: (timeout) => client.connect(transport as never, { timeout }),
    describeServer: () => ({
      capabilities: client.getServerCapabilities(),
      serverInfo: client.getServerVersion(),
      instructions: client.getInstructions(),
    }),
    run: (step, timeout) => runSdkStep(client, specific, step, timeout),
    close: () => client.close(),
  };
}

function runSdkStep(client: CommonClient, specific: VersionSpecific, step: ReplayStep, timeout: number): Promise<unknown> {
  switch (step.kind) {
    case 'initialize':
      throw new Error('initialize is done by connect()');
    case 'tools/list':
      return client.listTools(undefined, { timeout });
    case 'tools/call':
      return specific.callTool(step.call, timeout);
    case 'resources/list':
      return client.listResources(undefined, { timeout });
    case 'resources/read':
      return client.readResource({ uri: step.uri }, { timeout });
    case 'prompts/list':
      return client.listPrompts(undefined, { timeout });
    case 'prompts/get':
      return client.getPrompt({ name: step.prompt.name, arguments: step.prompt.arguments }, { timeout });
    case 'request':
      return specific.custom(step.request, timeout);
    default:
      return assertNever(step);
  }
}

/** A thrown SDK error as a transcript entry: JSON-RPC error (without v1's "MCP error <code>: "
 *  prefix), timeout, or a client-side rejection of the answer. */
export function getSdkFailureEntry(step: string, error: unknown): TranscriptEntry {
  const { code, message, data } = isJsonObject(error) || error instanceof Error
    ? (error as { code?: unknown; message?: unknown; data?: unknown })
    : { code: undefined, message: String(error), data: undefined };
  const text = typeof message === 'string' ? message : String(message);
  const v1Timeout = code === -32001 && isJsonObject(data) && 'timeout' in data;
  if (v1Timeout || code === 'REQUEST_TIMEOUT') return { step, timeout: true };
  if (typeof code === 'number') return { step, error: { code, message: text.replace(/^MCP error -?\d+: /, '') } };
  return { step, failure: text.replace(/\s+/g, ' ') };
}

/**
 * Replays the case with the official SDK `Client` + `StdioClientTransport` (v1 or v2), passing
 * `env` (the transport gives the child a minimal environment otherwise), `cwd` and `stderr: 'pipe'`.
 * A failed connect is recorded as the `initialize` entry and ends the replay.
 */
export function replayWithSdkClient(dir: string, kase: CaseSpec, options: SdkReplayOptions): Promise<Transcript> {
  return withProcessSlot(() => replayWithSdkClientNow(dir, kase, options));
}

async function replayWithSdkClientNow(dir: string, kase: CaseSpec, options: SdkReplayOptions): Promise<Transcript> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const { command, args } = resolveRun(kase.run);
  const params = { command, args: [...args], cwd: dir, stderr: 'pipe' as const };
  const session = options.sdk === 'v1' ? await openV1Session(params, kase.env) : await openV2Session(params, kase.env);
  const entries: TranscriptEntry[] = [];
  try {
    const [initialize, ...steps] = buildReplaySteps(kase);
    try {
      await session.connect(options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
      entries.push({ step: initialize?.label ?? 'initialize', result: session.describeServer() });
    } catch (error) {
      entries.push(getSdkFailureEntry('initialize', error));
      return { entries, notes: session.clientErrors.map((e) => `client error: ${e}`), stderr: session.stderr() };
    }
    for (const step of steps) {
      try {
        entries.push({ step: step.label, result: await session.run(step, timeoutMs) });
      } catch (error) {
        entries.push(getSdkFailureEntry(step.label, error));
      }
    }
  } finally {
    await session.close().catch(() => undefined);
  }
  return { entries, notes: session.clientErrors.map((e) => `client error: ${e}`), stderr: session.stderr() };
}

// ---------------------------------------------------------------------------- compliance probes

/** The JSON-RPC envelope rules of PRODUCT.md, as measured by `probeRaw`. */
export const PROBE_RULES = [
  'initialize-answered',
  'ping',
  'id-zero',
  'id-string',
  'unknown-method',
  'unknown-tool-answered',
  'initialized-notification-silent',
  'cancelled-notification-silent',
  'parse-error',
  'alive-after-bad-json',
  'jsonrpc-field',
  'standard-error-objects',
  'clean-stdout',
] as const;
export type ProbeRule = (typeof PROBE_RULES)[number];

export interface RuleOutcome {
  readonly holds: boolean;
  readonly detail: string;
}

export interface ProbeReport {
  readonly rules: Readonly<Record<ProbeRule, RuleOutcome>>;
  readonly messages: readonly unknown[];
  readonly nonJsonLines: readonly string[];
  readonly exited: { code: number | null; signal: string | null } | null;
  readonly stderr: string;
}

/** The rules that do not hold, sorted. */
export function getFailedRules(report: ProbeReport): ProbeRule[] {
  return PROBE_RULES.filter((rule) => !report.rules[rule].holds);
}

export interface ProbeOptions {
  /** How long to wait for a reply that should come. */
  readonly timeoutMs?: number;
  /** How long to watch for a reply that should not come. */
  readonly settleMs?: number;
  readonly startTimeoutMs?: number;
}

const BAD_JSON = '{"jsonrpc": "2.0", "id": 99, "method": "tools/list", ';

function describeReply(reply: JsonObject | null): string {
  return reply === null ? 'no reply' : JSON.stringify(reply);
}

/** A standard JSON-RPC error, or an `isError` result (McpServer answers unknown tools so). */
function isStandardFailure(reply: JsonObject): boolean {
  if ('error' in reply) return getRecordedError(reply.error).code !== null;
  return field(reply.result, 'isError') === true;
}

/**
 * Sends the compliance probes to a fresh server, one at a time, and says which rules hold.
 * Order matters: the bad JSON line comes last but one, because some originals crash on it (05).
 */
export function probeRaw(dir: string, kase: CaseSpec, options: ProbeOptions = {}): Promise<ProbeReport> {
  return withProcessSlot(() => probeRawNow(dir, kase, options));
}

async function probeRawNow(dir: string, kase: CaseSpec, options: ProbeOptions): Promise<ProbeReport> {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const settleMs = options.settleMs ?? 300;
  const connection = startRaw(dir, kase);
  const rules: Partial<Record<ProbeRule, RuleOutcome>> = {};
  const set = (rule: ProbeRule, holds: boolean, detail: string): void => {
    rules[rule] = { holds, detail };
  };

  const sentIds = new Set<unknown>();
  /** Sends a request; returns the first reply to it: one with its id, or with an id no earlier
   *  request had (a wrong id such as null), so a late answer to an earlier probe is not taken. */
  const exchange = async (message: JsonObject, wait = timeoutMs): Promise<JsonObject | null> => {
    const from = connection.messages.length;
    const earlier = new Set(sentIds);
    sentIds.add(message.id);
    connection.send(message);
    return connection.waitFor(from, (reply) => isResponse(reply) && (reply.id === message.id || !earlier.has(reply.id)), wait);
  };
  /** Sends a notification, then a tools/list to sync on; true when nothing but that reply came. */
  const notifySilently = async (method: string, params: JsonObject, syncId: number): Promise<RuleOutcome> => {
    const from = connection.messages.length;
    connection.send({ jsonrpc: '2.0', method, params });
    connection.send({ jsonrpc: '2.0', id: syncId, method: 'tools/list' });
    sentIds.add(syncId);
    const sync = await connection.waitFor(from, hasId(syncId), timeoutMs);
    await connection.settle(settleMs);
    const extra = connection.messages.slice(from).filter((message) => message !== sync);
    if (sync === null) return { holds: extra.length === 0, detail: `tools/list after ${method} got no reply; extra: ${JSON.stringify(extra)}` };
    return { holds: extra.length === 0, detail: extra.length === 0 ? 'no reply' : `replied: ${JSON.stringify(extra)}` };
  };

  try {
    const init = await exchange(
      { jsonrpc: '2.0', id: 1, ...getStepMessage({ kind: 'initialize', label: 'initialize' }) },
      options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS,
    );
    set('initialize-answered', init?.id === 1 && isJsonObject(init.result), describeReply(init));

    const initialized = await notifySilently('notifications/initialized', {}, 2);
    set('initialized-notification-silent', initialized.holds, initialized.detail);

    const ping = await exchange({ jsonrpc: '2.0', id: 3, method: 'ping' });
    set('ping', ping?.id === 3 && JSON.stringify(ping.result) === '{}', describeReply(ping));

    const zero = await exchange({ jsonrpc: '2.0', id: 0, method: 'tools/list' });
    set('id-zero', zero !== null && zero.id === 0, describeReply(zero));

    const stringId = 'probe-id-7';
    const text = await exchange({ jsonrpc: '2.0', id: stringId, method: 'tools/list' });
    set('id-string', text !== null && text.id === stringId, describeReply(text));

    const unknown = await exchange({ jsonrpc: '2.0', id: 4, method: 'mcp-migrate/no-such-method' });
    const unknownCode = isJsonObject(unknown?.error) ? unknown.error.code : undefined;
    set('unknown-method', unknown?.id === 4 && unknownCode === -32601, describeReply(unknown));

    const tool = await exchange({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'mcp_migrate_no_such_tool', arguments: {} } });
    set('unknown-tool-answered', tool?.id === 8 && isStandardFailure(tool), describeReply(tool));

    const cancelled = await notifySilently('notifications/cancelled', { requestId: 999, reason: 'probe' }, 5);
    set('cancelled-notification-silent', cancelled.holds, cancelled.detail);

    const parseFrom = connection.messages.length;
    connection.sendBody(BAD_JSON);
    // Any -32700 counts (04 answers it with id 0), else any reply that is not a late answer.
    const isParseReply = (reply: JsonObject): boolean =>
      isResponse(reply) && (field(reply.error, 'code') === -32700 || !sentIds.has(reply.id));
    const parse = await connection.waitFor(parseFrom, isParseReply, timeoutMs);
    const parseCode = isJsonObject(parse?.error) ? parse.error.code : undefined;
    const parseOk = parse !== null && parse.jsonrpc === '2.0' && 'id' in parse && parse.id === null && parseCode === -32700;
    set('parse-error', parseOk, describeReply(parse));

    const after = await exchange({ jsonrpc: '2.0', id: 6, method: 'tools/list' });
    set('alive-after-bad-json', after?.id === 6 && 'result' in after, connection.exited ? `exited ${JSON.stringify(connection.exited)}` : describeReply(after));
  } finally {
    await connection.close();
  }

  const withoutJsonrpc = connection.messages.filter((message) => message.jsonrpc !== '2.0');
  set('jsonrpc-field', withoutJsonrpc.length === 0, withoutJsonrpc.length === 0 ? 'every reply' : `without: ${JSON.stringify(withoutJsonrpc)}`);
  const badErrors = connection.messages.filter((message) => 'error' in message && getRecordedError(message.error).code === null);
  set('standard-error-objects', badErrors.length === 0, badErrors.length === 0 ? 'all {code,message}' : JSON.stringify(badErrors));
  set('clean-stdout', connection.nonJsonLines.length === 0, connection.nonJsonLines.length === 0 ? 'only JSON-RPC' : JSON.stringify(connection.nonJsonLines));

  // In PROBE_RULES order; a rule never reached (the probe threw) does not hold.
  const ordered = Object.fromEntries(
    PROBE_RULES.map((rule) => [rule, rules[rule] ?? { holds: false, detail: 'not measured' }]),
  ) as Record<ProbeRule, RuleOutcome>;
  return {
    rules: ordered,
    messages: connection.messages,
    nonJsonLines: connection.nonJsonLines,
    exited: connection.exited,
    stderr: connection.stderr,
  };
}

// ---------------------------------------------------------------------------- the CLI and other tools

export interface ProcessResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}
/** What `runCli` returns. */
export type CliResult = ProcessResult;

function runProcess(command: string, args: readonly string[], cwd: string, timeoutMs: number): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs `node bin/mcp-migrate.js ...args` with `NO_COLOR=1` and no stdin (needs a build:
 *  `npm test` builds first; `ensureBuilt` builds when dist is missing or older than src). */
export function runCli(args: readonly string[], cwd: string, timeoutMs = 60_000): Promise<CliResult> {
  return withProcessSlot(() => runProcess(process.execPath, [CLI_BIN, ...args], cwd, timeoutMs));
}

const TSC_CLI: string = join(PROJECT_NODE_MODULES, 'typescript', 'bin', 'tsc');

/** Type-checks a case with its own tsconfig and the project's TypeScript (`tsc --noEmit`). */
export function typeCheck(dir: string): Promise<ProcessResult> {
  return withProcessSlot(() => runProcess(process.execPath, [TSC_CLI, '-p', join(dir, 'tsconfig.json'), '--noEmit'], dir, 120_000));
}

function getNewestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => getNewestMtime(join(path, name))));
}

/** Runs `npm run build` unless dist/ is newer than every file in src/ and transforms/. */
export async function ensureBuilt(): Promise<void> {
  const built = getNewestMtime(join(PROJECT_ROOT, 'dist'));
  const sources = Math.max(getNewestMtime(join(PROJECT_ROOT, 'src')), getNewestMtime(join(PROJECT_ROOT, 'transforms')));
  if (built > sources) return;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = await runProcess(npm, ['run', 'build'], PROJECT_ROOT, 300_000);
  if (build.code !== 0) throw new Error(`npm run build failed (${build.code}):\n${build.stdout}${build.stderr}`);
}

// ---------------------------------------------------------------------------- comparing

export interface CompareOptions {
  /** McpServer style: a JSON-RPC error from a tool may come back as an `isError` result whose
   *  text carries the same message. */
  readonly toolErrorsMayBecomeIsError?: boolean;
  /** McpServer style (SDK v1, zod): tools/list publishes each inputSchema with a root `$schema` added. */
  readonly schemaMayGainDialect?: boolean;
}

/** JSON with sorted keys and `undefined` dropped: equal values give equal strings. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isJsonObject(value)) return value;
  const sorted: JsonObject = {};
  for (const key of Object.keys(value).sort()) if (value[key] !== undefined) sorted[key] = sortKeys(value[key]);
  return sorted;
}

function short(value: unknown): string {
  const text = canonicalJson(value) ?? 'undefined';
  return text.length > 400 ? `${text.slice(0, 400)}…` : text;
}

function differ(step: string, what: string, original: unknown, migrated: unknown): string[] {
  return canonicalJson(original) === canonicalJson(migrated)
    ? []
    : [`${step}: ${what} differs: original ${short(original)} / migrated ${short(migrated)}`];
}

function field(value: unknown, key: string): unknown {
  return isJsonObject(value) ? value[key] : undefined;
}

/** Which replay step kind a label belongs to (`tools/call #2 x` → `tools/call`). */
function getStepKind(label: string): string {
  return label.split(' ')[0] ?? label;
}

/**
 * Human-readable differences between an original's transcript and a migrated server's, within
 * the corpus README's allowances. Empty when they answer alike.
 */
export function compareTranscripts(original: Transcript, migrated: Transcript, options: CompareOptions = {}): string[] {
  const differences: string[] = [];
  const migratedByStep = new Map(migrated.entries.map((entry) => [entry.step, entry]));
  for (const entry of original.entries) {
    const counterpart = migratedByStep.get(entry.step);
    if (counterpart === undefined) differences.push(`${entry.step}: missing from the migrated transcript`);
    else differences.push(...compareEntry(entry, counterpart, options));
  }
  const originalSteps = new Set(original.entries.map((entry) => entry.step));
  for (const entry of migrated.entries) {
    if (!originalSteps.has(entry.step)) differences.push(`${entry.step}: not in the original transcript`);
  }
  return differences;
}

function describeOutcome(entry: TranscriptEntry): string {
  if (entry.timeout) return 'no answer (timeout)';
  if (entry.failure !== undefined) return `client rejected the answer: ${entry.failure}`;
  if (entry.error !== undefined) return `error ${short(entry.error)}`;
  return `result ${short(entry.result)}`;
}

function compareEntry(original: TranscriptEntry, migrated: TranscriptEntry, options: CompareOptions): string[] {
  const step = original.step;
  // An original that never answered sets no expectation: answering is the fix.
  if (original.timeout) return [];
  if (original.failure !== undefined) return differ(step, 'client rejection', original.failure, migrated.failure);
  if (original.error !== undefined) return compareError(step, original.error, migrated, options);
  if (migrated.timeout || migrated.failure !== undefined || migrated.error !== undefined) {
    return [`${step}: original answered ${describeOutcome(original)}; migrated: ${describeOutcome(migrated)}`];
  }
  return compareResult(step, original.result, migrated.result, options);
}

function compareError(step: string, error: RecordedError, migrated: TranscriptEntry, options: CompareOptions): string[] {
  const expected = `error ${short(error)}`;
  if (migrated.error !== undefined) {
    // code null: the original's error was not {code, message} (06); any integer code will do.
    const codeOk = error.code === null ? Number.isInteger(migrated.error.code) : migrated.error.code === error.code;
    if (codeOk && migrated.error.message === error.message) return [];
    return [`${step}: original answered ${expected}; migrated: ${describeOutcome(migrated)}`];
  }
  if (options.toolErrorsMayBecomeIsError && getStepKind(step) === 'tools/call' && isErrorResultCarrying(migrated.result, error.message)) {
    return [];
  }
  return [`${step}: original answered ${expected}; migrated: ${describeOutcome(migrated)}`];
}

function isErrorResultCarrying(result: unknown, message: string): boolean {
  if (field(result, 'isError') !== true) return false;
  const content = field(result, 'content');
  const texts = Array.isArray(content) ? content.map((block) => field(block, 'text')) : [];
  return texts.some((text) => typeof text === 'string' && (text === message || text.endsWith(`: ${message}`)));
}

function compareResult(step: string, original: unknown, migrated: unknown, options: CompareOptions = {}): string[] {
  switch (getStepKind(step)) {
    case 'initialize':
      return compareInitialize(step, original, migrated);
    case 'tools/list':
      return compareToolLists(step, original, migrated, options);
    case 'tools/call':
      return [
        ...differ(step, 'content', field(original, 'content'), field(migrated, 'content')),
        ...differ(step, 'isError', field(original, 'isError') === true, field(migrated, 'isError') === true),
        ...differ(step, 'structuredContent', field(original, 'structuredContent'), field(migrated, 'structuredContent')),
      ];
    case 'resources/list':
      return differ(step, 'resources', field(original, 'resources'), field(migrated, 'resources'));
    case 'resources/read':
      return compareResourceContents(step, field(original, 'contents'), field(migrated, 'contents'));
    case 'prompts/list':
      return differ(step, 'prompts', field(original, 'prompts'), field(migrated, 'prompts'));
    case 'prompts/get':
      return [
        ...differ(step, 'description', field(original, 'description'), field(migrated, 'description')),
        ...differ(step, 'messages', field(original, 'messages'), field(migrated, 'messages')),
      ];
    default:
      return differ(step, 'result', withoutMeta(original), withoutMeta(migrated));
  }
}

function withoutMeta(value: unknown): unknown {
  if (!isJsonObject(value)) return value;
  const { _meta: _ignored, ...rest } = value;
  return rest;
}

// protocolVersion may change (hard-coded 2024-11-05 in some originals); capabilities may grow
// (07 must declare prompts); name, version and instructions must stay.
function compareInitialize(step: string, original: unknown, migrated: unknown): string[] {
  const differences = [
    ...differ(step, 'serverInfo', field(original, 'serverInfo'), field(migrated, 'serverInfo')),
    ...differ(step, 'instructions', field(original, 'instructions'), field(migrated, 'instructions')),
  ];
  const declared = field(migrated, 'capabilities');
  const required = field(original, 'capabilities');
  for (const capability of isJsonObject(required) ? Object.keys(required) : []) {
    if (!isJsonObject(declared) || !(capability in declared)) {
      differences.push(`${step}: capability "${capability}" declared by the original is missing`);
    }
  }
  return differences;
}

const TOOL_FIELDS_ALWAYS_COMPARED = ['description', 'inputSchema'] as const;

function compareToolLists(step: string, original: unknown, migrated: unknown, options: CompareOptions = {}): string[] {
  const before = getTools(original);
  const after = getTools(migrated).map((tool) => {
    if (!options.schemaMayGainDialect || !isJsonObject(tool.inputSchema)) return tool;
    const { $schema: _dialect, ...schema } = tool.inputSchema;
    return { ...tool, inputSchema: schema };
  });
  const differences = differ(step, 'tool names (in order)', before.map((tool) => tool.name), after.map((tool) => tool.name));
  for (const tool of before) {
    const counterpart = after.find((candidate) => candidate.name === tool.name);
    if (counterpart === undefined) continue;
    const fields = new Set<string>([...TOOL_FIELDS_ALWAYS_COMPARED, ...Object.keys(tool)]);
    for (const key of fields) differences.push(...differ(`${step} ${String(tool.name)}`, key, tool[key], counterpart[key]));
  }
  return differences;
}

function getTools(result: unknown): JsonObject[] {
  const tools = field(result, 'tools');
  return Array.isArray(tools) ? tools.filter(isJsonObject) : [];
}

// 07's original contents lack the required `uri`; the migrated ones must have it (else the SDK
// client rejects the read), so `uri` is compared only where the original has one.
function compareResourceContents(step: string, original: unknown, migrated: unknown): string[] {
  const before = Array.isArray(original) ? original : [];
  const after = Array.isArray(migrated) ? migrated.map((item: unknown, i) => {
    const counterpart: unknown = before[i];
    if (!isJsonObject(item) || (isJsonObject(counterpart) && 'uri' in counterpart)) return item;
    const { uri: _uri, ...rest } = item;
    return rest;
  }) : migrated;
  return differ(step, 'contents', original, after);
}
