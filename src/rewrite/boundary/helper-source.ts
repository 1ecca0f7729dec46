// The module written next to a server moved onto the SDK at the boundary (`mcp-boundary.js` / `.cjs` /
// `.mjs` / `.ts`): the SDK's Server on the wire, the server's own code behind it. Its text depends only
// on the module system and the SDK generation, never on the server, so every server of a directory
// asks for the same companion file and the runner writes it once; what differs per server is passed to
// createBoundary() by the server.
// The text is kept once, typed (TEXT below); the JavaScript modules are that text without its types
// (strip-types.ts), in the module system the server uses.
// Deliberately not: routing methods, or reading anything of the server's. Its code stays as it was.
import { UNKNOWN_METHOD_MESSAGE } from '../../model/mcp-methods.js';
import type { SdkTarget } from '../../model/types.js';
import { type CompanionKind, type CompanionModule, getCompanionModule } from '../companion.js';
import { stripTypes } from '../strip-types.js';

import { BOUNDARY_BASENAME } from '../../analysis/companions.js';

export { BOUNDARY_BASENAME };

/** The boundary module for a server, by extension and module syntax (`esm` when the file uses import/export). */
export function getBoundaryModule(serverPath: string, syntax: 'esm' | 'cjs'): CompanionModule {
  return getCompanionModule(BOUNDARY_BASENAME, serverPath, syntax);
}

/** What the module imports, per SDK generation: [names, module]. */
const IMPORTS: Record<SdkTarget, [string[], string][]> = {
  v1: [
    [['AsyncLocalStorage'], 'node:async_hooks'],
    [['Readable', 'Transform', 'Writable'], 'node:stream'],
    [['format'], 'node:util'],
    [['Server'], '@modelcontextprotocol/sdk/server/index.js'],
    [['StdioServerTransport'], '@modelcontextprotocol/sdk/server/stdio.js'],
  ],
  v2: [
    [['AsyncLocalStorage'], 'node:async_hooks'],
    [['Readable', 'Transform', 'Writable'], 'node:stream'],
    [['format'], 'node:util'],
    [['Server'], '@modelcontextprotocol/server'],
    [['serveStdio', 'StdioServerTransport'], '@modelcontextprotocol/server/stdio'],
  ],
};

/** How the SDK serves the server over the transport: v1 connects one Server; v2's serveStdio serves 2025-era and 2026-07-28 clients. */
const SERVE: Record<SdkTarget, string> = {
  v1: `
// One Server on the transport (it serves 2025-era clients).
async function serve(build: () => Server, transport: StdioServerTransport): Promise<void> {
  await build().connect(transport);
}
`,
  v2: `
// serveStdio pins one Server from build() for the connection, for 2025-era and 2026-07-28 clients alike.
async function serve(build: () => Server, transport: StdioServerTransport): Promise<void> {
  serveStdio(build, { transport });
}
`,
};

const HEADER = String.raw`// mcp-boundary: written by mcp-migrate (the SDK at the boundary), shared by the modules of this server.
//
// The official MCP SDK owns the wire: its stdio transport reads the client's messages, answers
// initialize, ping and bad input, and writes every reply. The server's own code stays as it was and
// sits behind it: each request the SDK receives is handed to that code where stdin used to deliver
// it (boundary.stdin, one message per line), and what the code writes back (boundary.write(),
// boundary.log(), boundary.stdout) is routed to the request it answers and becomes that request's
// result, or an error with exactly the code, message and data the server wrote.
//   - Which request a reply answers: the one whose handling wrote it (AsyncLocalStorage follows the
//     handling of each message through callbacks, timers and promises; boundary.parse() marks where
//     the server parses one), else the one its id names, else the only one waiting. The server sees
//     ids of the boundary's own (never 0, never reused), so a reply without its id, or with 0 or
//     null for it, still reaches its request.
//   - A notification is never answered; a request is answered once.
//   - A message the server sends of its own (a notification, a request to the client) goes to the
//     client as it is, once the client has initialized; the client's answer to such a request is
//     handed back to the server like any message.
//   - Text that is not a message (a log line) goes to stderr.
//   - A missing resource the server answers with -32002 keeps that code for a 2025-era client (SDK v2
//     sends -32602, the code the 2026-07-28 revision prescribes, to every client otherwise).
//   - At start-up the server's own code answers an initialize request of the boundary's: its
//     serverInfo, capabilities and instructions are what the SDK announces, and whatever the server
//     does for initialize and notifications/initialized still runs.
// One boundary per process: every module of the server that calls createBoundary() shares it.
`;

const BODY = String.raw`type JsonObject = { [key: string]: unknown };
type Id = string | number;

interface Scope {
  /** The boundary's id of the request (0 for a notification or a response handed to the server). */
  id: number;
  answered: boolean;
  settle: (reply: JsonObject) => void;
}

export interface BoundaryOptions {
  /** The methods the server is known to answer: what its capabilities are when it does not say. */
  methods?: string[];
  /** The server's name when it does not say. */
  name?: string;
  /**
   * When the tool knows every method the server answers: those and every method the server names. The
   * boundary answers any other request with -32601 itself (the server would leave it unanswered).
   */
  known?: string[];
  /**
   * When what the server answers is not known: the methods outside MCP's namespaces with a namespace of
   * their own ('stats/get') the server names. The boundary answers any other such method with -32601
   * itself; MCP's methods and methods without a namespace go to the server.
   */
  namespaced?: string[];
  /**
   * When the server looks its handlers up by names it builds from the method (this['handle_' +
   * method.replace('/', '_')]): the letters and digits, lower-cased, of every method such a name can
   * reach. A namespaced method outside MCP's namespaces that none reaches is answered -32601 as above.
   */
  stems?: string[];
  /** Once the SDK takes stdin, console.log/info/debug (a dependency's logger too) go through the boundary. */
  guardConsole?: boolean;
}

export interface Boundary {
  /** What the server reads instead of process.stdin: one message per line (a Readable, typed as the stream it replaces). */
  stdin: typeof process.stdin;
  /** What the server writes to instead of process.stdout (a Writable, typed as the stream it replaces). */
  stdout: typeof process.stdout;
  /** A drop-in for process.stdout.write(). */
  write(chunk: string | Uint8Array, encoding?: unknown, callback?: unknown): boolean;
  /** A drop-in for console.log(): a message goes to its request, anything else to stderr. */
  log(...args: unknown[]): void;
  /** JSON.parse for the messages the server reads: marks the handling of the one it parses. */
  parse(text: string | Uint8Array): any; // eslint-disable-line @typescript-eslint/no-explicit-any -- what JSON.parse returns
}

const STATE = Symbol.for('mcp-migrate.boundary');
/** How long start-up waits for the server's own answer to initialize. */
const START_TIMEOUT_MS = 10000;
/** The protocol versions start-up offers the server's initialize, newest first. */
const PROTOCOL_VERSIONS = ['2025-06-18', '2024-11-05'];
const UNKNOWN_METHOD = /UNKNOWN_METHOD_PATTERN/i;
const CAPABILITY_OF: Record<string, string> = { tools: 'tools', resources: 'resources', prompts: 'prompts', logging: 'logging', completion: 'completions' };

/** The namespaces of MCP's own methods (a server behind the boundary answers those it answers). */
const MCP_NAMESPACES = ['tools/', 'resources/', 'prompts/', 'completion/', 'logging/', 'sampling/', 'roots/', 'elicitation/', 'tasks/', 'notifications/'];

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The letters and digits of a method, lower-cased (what the server's built handler names keep of it). */
function toStem(method: string): string {
  return method.toLowerCase().replace(/[^a-z0-9]/g, '');
}

function isId(value: unknown): value is Id {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

// a JSON-RPC message has at least one of these members; other JSON written to stdout is a log
function isMessage(value: unknown): value is JsonObject {
  return isObject(value) && ('jsonrpc' in value || 'id' in value || 'method' in value || 'result' in value || 'error' in value);
}

/** The end of the JSON value that starts text (an object or array), or -1 while it is incomplete. */
function findJsonEnd(text: string): number {
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
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** The error the SDK answers with: exactly the server's code, message and data (a bare string is -32603). */
function toError(error: unknown): Error {
  const fields: JsonObject = isObject(error) ? error : { message: error };
  let code = typeof fields['code'] === 'number' && Number.isInteger(fields['code']) ? fields['code'] : -32603;
  const message = typeof fields['message'] === 'string' ? fields['message'] : fields['message'] === undefined || fields['message'] === null ? 'Internal error' : String(fields['message']);
  // a generic code on an answer that says the method is unknown: JSON-RPC has a code for that
  if ((code === -32603 || code === -32600 || (code <= -32000 && code >= -32099)) && UNKNOWN_METHOD.test(message)) code = -32601;
  return Object.assign(new Error(message), fields['data'] === undefined ? { code } : { code, data: fields['data'] });
}

/** The request's _meta without the SDK's own per-request keys (the server was written without them). */
function withoutProtocolMeta(params: unknown): unknown {
  if (!isObject(params) || !isObject(params['_meta'])) return params;
  const meta: JsonObject = {};
  for (const key of Object.keys(params['_meta'])) if (!key.startsWith('io.modelcontextprotocol/')) meta[key] = params['_meta'][key];
  const copy: JsonObject = Object.assign({}, params);
  if (Object.keys(meta).length > 0) copy['_meta'] = meta;
  else delete copy['_meta'];
  return copy;
}

/** A request of the 2026-07-28 era: it carries its envelope (v2 lifts it into ctx.mcpReq.envelope) or its protocol version in _meta. */
function isModernRequest(params: unknown, extra: unknown): boolean {
  if (isObject(extra) && isObject(extra['mcpReq']) && extra['mcpReq']['envelope'] !== undefined) return true;
  return isObject(params) && isObject(params['_meta']) && params['_meta']['io.modelcontextprotocol/protocolVersion'] !== undefined;
}

/** resources/read contents carry the uri they belong to (clients reject them without it): the one requested where the server left it out. */
function withResourceUris(method: string, params: unknown, result: JsonObject): JsonObject {
  const uri = isObject(params) ? params['uri'] : undefined;
  const contents = result['contents'];
  if (method !== 'resources/read' || typeof uri !== 'string' || !Array.isArray(contents)) return result;
  if (contents.every((content) => !isObject(content) || typeof content['uri'] === 'string')) return result;
  return { ...result, contents: contents.map((content) => (isObject(content) && typeof content['uri'] !== 'string' ? { uri, ...content } : content)) };
}

/** The signal the SDK aborts when the client cancels a request (v1: extra.signal, v2: ctx.mcpReq.signal). */
function getSignal(extra: unknown): AbortSignal | undefined {
  if (!isObject(extra)) return undefined;
  const holder = isObject(extra['mcpReq']) ? extra['mcpReq'] : extra;
  return holder['signal'] instanceof AbortSignal ? holder['signal'] : undefined;
}

export function createBoundary(options: BoundaryOptions = {}): Boundary {
  // (the options of every call made before start-up count: the modules of a server are evaluated in any order)
  const registry = globalThis as unknown as { [STATE]?: { boundary: Boundary; options: BoundaryOptions } };
  const existing = registry[STATE];
  if (existing !== undefined) {
    Object.assign(existing.options, options);
    return existing.boundary;
  }
  const settings: BoundaryOptions = Object.assign({}, options);
  const realStdin = process.stdin;
  const realStdout = process.stdout;
  const errorOutput = (text: string): void => {
    process.stderr.write(text);
  };
  const scopes = new AsyncLocalStorage<Scope>();
  const waiting = new Map<number, Scope>(); // the requests the server has not answered yet
  const queue: Array<{ scope: Scope; bytes: Buffer }> = []; // messages the server has not read yet
  const held: JsonObject[] = []; // the server's own messages, until the client has initialized
  const ownRequests = new Set<Id>(); // ids of the server's own requests to the client
  const clientRequests = new Set<Id>(); // ids of the client's requests being handled
  const resourceMisses = new Set<Id>(); // 2025-era requests the server answered -32002 (resource not found)
  const decoder = new TextDecoder();
  let transport: StdioServerTransport | null = null;
  let open = false;
  let ended = false;
  let nextId = 1;
  let pending = '';
  let pumping = false;
  // The boundary is active once the program reads its stdin (a program that only imports a module of
  // the server, a CLI command or another server, never does): the SDK takes the wire then. Until then,
  // what is written waits for the first turn of the event loop, and goes to stdout as it was written
  // when nothing has read stdin by then.
  let active = false;
  let passThrough = false;
  const early: Array<string | Uint8Array> = [];

  // The server's stdin: each message is pushed when the server has read the one before, inside the
  // scope of its handling, so that what the server does with it runs in that scope.
  const stdin = new Readable({
    read() {
      activate();
      if (pumping) return;
      pumping = true;
      setImmediate(() => {
        pumping = false;
        pump();
      });
    },
  });

  // What the server's code throws while it reads a message (out of its own 'data' or 'line' listener) is
  // thrown again as it was, uncaught: the original dies of it, or its 'uncaughtException' handler takes
  // it. Caught here, it would become an answer from a server whose input stream it has just broken.
  function pump(): void {
    try {
      while (queue.length > 0 && stdin.readableLength === 0) {
        const next = queue.shift()!;
        scopes.run(next.scope, () => stdin.push(next.bytes));
      }
      if (ended && queue.length === 0) stdin.push(null);
    } catch (error) {
      process.nextTick(() => {
        throw error;
      });
    }
  }

  function feed(scope: Scope, message: JsonObject): void {
    queue.push({ scope, bytes: Buffer.from(JSON.stringify(message) + '\n') });
    pump();
  }

  // A request the server's code answers: resolves with its result, rejects with its error.
  function request(method: string, params: unknown, signal?: AbortSignal): Promise<JsonObject> {
    return new Promise((resolve, reject) => {
      const id = nextId++;
      const scope: Scope = {
        id,
        answered: false,
        settle(reply) {
          scope.answered = true;
          waiting.delete(id);
          if (reply['error'] !== undefined && reply['error'] !== null) reject(toError(reply['error']));
          else resolve((reply['result'] === undefined ? {} : reply['result']) as JsonObject);
        },
      };
      waiting.set(id, scope);
      // the client cancelled it: the SDK answers nothing more, and the server's own handling hears of it
      // as the client said it (under the id the server saw)
      signal?.addEventListener(
        'abort',
        () => {
          if (scope.answered) return;
          scope.settle({ error: { code: -32800, message: 'Request cancelled' } });
          const reason: unknown = signal.reason;
          pass({ jsonrpc: '2.0', method: 'notifications/cancelled', params: typeof reason === 'string' ? { requestId: id, reason } : { requestId: id } });
        },
        { once: true },
      );
      feed(scope, params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    });
  }

  // A message nothing answers (a notification, a response of the client's).
  function pass(message: JsonObject): void {
    feed({ id: 0, answered: true, settle() {} }, message);
  }

  function sendOwn(message: JsonObject): void {
    const out: JsonObject = Object.assign({}, message, { jsonrpc: '2.0' });
    if (isId(out['id'])) ownRequests.add(out['id']);
    if (!open || transport === null) held.push(out);
    else void transport.send(out as never).catch((err: unknown) => errorOutput('mcp-boundary: ' + String(err) + '\n'));
  }

  function route(message: unknown): void {
    if (!isMessage(message)) {
      errorOutput(format('%j', message) + '\n');
      return;
    }
    if (typeof message['method'] === 'string' && !('result' in message) && !('error' in message)) {
      sendOwn(message); // a notification or request of the server's own
      return;
    }
    const scope = scopes.getStore();
    if (scope !== undefined && !scope.answered) return scope.settle(message);
    const named = isId(message['id']) ? waiting.get(message['id'] as number) : undefined;
    if (named !== undefined) return named.settle(message);
    if (scope !== undefined) return; // a second reply, a reply to a notification: never sent
    // written outside the handling of any message: the request waiting for it, if only one is
    if (waiting.size === 1) return waiting.values().next().value!.settle(message);
    errorOutput('mcp-boundary: a reply no request is waiting for was not sent: ' + JSON.stringify(message) + '\n');
  }

  // The error the SDK writes for a request the server answered -32002, with that code again.
  function keepResourceMiss(message: unknown): unknown {
    if (!isObject(message) || !isId(message['id']) || !resourceMisses.delete(message['id']) || !isObject(message['error'])) return message;
    return Object.assign({}, message, { error: Object.assign({}, message['error'], { code: -32002 }) });
  }

  function sendText(text: string): void {
    if (!text.trim()) return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      errorOutput(text.endsWith('\n') ? text : text + '\n'); // not a message: keep it off the protocol
      return;
    }
    route(message);
  }

  // What the server writes, read as messages: one per line, or a JSON value written over several lines.
  function take(chunk: string | Uint8Array): void {
    pending += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    for (;;) {
      const start = pending.search(/\S/);
      const end = start !== -1 && /[[{]/.test(pending.charAt(start)) ? findJsonEnd(pending.slice(start)) : -1;
      if (end !== -1) {
        const after = pending.slice(start + end);
        const eol = after.indexOf('\n');
        if (!(eol === -1 ? after : after.slice(0, eol)).trim()) {
          const text = pending.slice(start, start + end);
          pending = eol === -1 ? '' : after.slice(eol + 1);
          sendText(text);
          continue;
        }
      }
      const newline = pending.indexOf('\n');
      if (newline === -1) {
        // a message written without its newline is taken now
        const text = pending.trim();
        if (/^[[{]/.test(text) && findJsonEnd(text) === text.length) {
          pending = '';
          sendText(text);
        }
        break;
      }
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      sendText(line);
    }
  }

  // What the server writes: to the request it answers once the boundary is active.
  function accept(chunk: string | Uint8Array): void {
    if (active) take(chunk);
    else if (passThrough) realStdout.write(chunk);
    else early.push(chunk);
  }

  function write(chunk: string | Uint8Array, encoding?: unknown, callback?: unknown): boolean {
    accept(chunk);
    const done = (typeof encoding === 'function' ? encoding : callback) as ((err?: Error | null) => void) | undefined;
    if (typeof done === 'function') process.nextTick(done);
    return true;
  }

  const stdout = new Writable({
    decodeStrings: false,
    write(chunk: string | Uint8Array, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
      accept(chunk);
      done();
    },
  });

  function log(...args: unknown[]): void {
    // console.log(message) printed util.inspect text no client can read: the message as JSON instead
    accept((args.length === 1 && isMessage(args[0]) ? JSON.stringify(args[0]) : format(...args)) + '\n');
  }

  function parse(text: string | Uint8Array): any { // eslint-disable-line @typescript-eslint/no-explicit-any -- what JSON.parse returns
    const message: unknown = JSON.parse(typeof text === 'string' ? text : decoder.decode(text));
    const scope = isObject(message) && typeof message['id'] === 'number' ? waiting.get(message['id']) : undefined;
    if (scope !== undefined) scopes.enterWith(scope);
    return message;
  }

  // The server's own answer to initialize, or null when it gives none.
  async function initialize(): Promise<JsonObject | null> {
    for (const protocolVersion of PROTOCOL_VERSIONS) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<null>((resolve) => {
        timer = setTimeout(resolve, START_TIMEOUT_MS, null);
      });
      try {
        const answer = await Promise.race([request('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'mcp-migrate-boundary', version: '1.0.0' } }), timeout]);
        return isObject(answer) ? answer : null;
      } catch {
        // refused: an older protocol version may do
      } finally {
        clearTimeout(timer);
      }
    }
    return null;
  }

  function defaultCapabilities(): JsonObject {
    const capabilities: JsonObject = {};
    for (const method of settings.methods ?? []) {
      const capability = CAPABILITY_OF[method.split('/')[0]!];
      if (capability !== undefined) capabilities[capability] = {};
    }
    return capabilities;
  }

  // The SDK's stdin, line by line: a line that is not JSON is answered here with -32700 and id null, as
  // JSON-RPC 2.0 requires (the SDK's stdio transport skips it, or reports it without answering).
  function answerParseErrors(input: NodeJS.ReadableStream): Readable {
    const lineDecoder = new TextDecoder();
    let rest = '';
    const pass = (line: string): void => {
      const text = line.replace(/\r$/, '');
      if (!text.trim()) return;
      try {
        JSON.parse(text);
      } catch {
        realStdout.write(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }) + '\n');
        return;
      }
      lines.push(text + '\n');
    };
    const lines = new Transform({
      transform(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
        rest += typeof chunk === 'string' ? chunk : lineDecoder.decode(chunk, { stream: true });
        const parts = rest.split('\n');
        rest = parts.pop()!;
        for (const part of parts) pass(part);
        done();
      },
      flush(done: (error?: Error | null) => void) {
        if (rest) pass(rest);
        done();
      },
    });
    input.pipe(lines);
    return lines;
  }

  function flush(): void {
    if (open) return;
    open = true;
    for (const out of held.splice(0)) sendOwn(out);
  }

  async function start(): Promise<void> {
    const answer = await initialize();
    pass({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const serverInfo = isObject(answer) && isObject(answer['serverInfo']) ? answer['serverInfo'] : { name: settings.name ?? 'mcp-server', version: '0.0.0' };
    // the server's own capabilities, with those of the MCP methods it is seen to answer and does not declare
    // (a client asks only for what is declared: the prompts/list of a server that forgot to declare prompts would be lost)
    const capabilities = isObject(answer) && isObject(answer['capabilities']) ? { ...defaultCapabilities(), ...answer['capabilities'] } : defaultCapabilities();
    const instructions = isObject(answer) && typeof answer['instructions'] === 'string' ? answer['instructions'] : undefined;
    // (built anew for each connection the SDK pins)
    const build = (): Server => {
      const server = new Server(serverInfo as never, instructions === undefined ? { capabilities } : { capabilities, instructions });
      server.removeRequestHandler('logging/setLevel'); // the server's own code answers it, if it does
      server.fallbackRequestHandler = async (req, extra) => {
        flush();
        if (settings.known !== undefined && !settings.known.includes(req.method)) throw Object.assign(new Error('Method not found'), { code: -32601 });
        if (settings.namespaced !== undefined && req.method.includes('/') && !MCP_NAMESPACES.some((ns) => req.method.startsWith(ns)) && !settings.namespaced.includes(req.method) && !(settings.stems?.includes(toStem(req.method)) ?? false)) {
          throw Object.assign(new Error('Method not found'), { code: -32601 });
        }
        clientRequests.add(req.id);
        try {
          return withResourceUris(req.method, req.params, await request(req.method, withoutProtocolMeta(req.params), getSignal(extra)));
        } catch (error) {
          // a 2025-era client keeps the server's -32002 for a missing resource (v2 sends -32602 in every era)
          if (isObject(error) && error['code'] === -32002 && !isModernRequest(req.params, extra)) resourceMisses.add(req.id);
          throw error;
        } finally {
          clientRequests.delete(req.id);
        }
      };
      server.fallbackNotificationHandler = async (notification) => pass({ jsonrpc: '2.0', method: notification.method, params: withoutProtocolMeta(notification.params) });
      server.oninitialized = flush;
      return server;
    };
    transport = new StdioServerTransport(answerParseErrors(realStdin), realStdout);
    await serve(build, transport);
    const send = transport.send.bind(transport);
    transport.send = (message, ...rest) => send(keepResourceMiss(message) as typeof message, ...rest);
    // the client's answers to the server's own requests are handed back to the server
    const deliver = transport.onmessage;
    transport.onmessage = (...args) => {
      const message: unknown = args[0];
      if (isObject(message) && !('method' in message) && isId(message['id']) && ownRequests.delete(message['id'])) return pass(message);
      // a cancellation of a request not in flight (the SDK drops it): the server hears it as it would have,
      // unless its id is one the server has in flight under the boundary's numbering
      const params = isObject(message) && message['method'] === 'notifications/cancelled' && isObject(message['params']) ? message['params'] : undefined;
      if (params !== undefined && isId(params['requestId']) && !clientRequests.has(params['requestId']) && !waiting.has(params['requestId'] as number)) pass({ jsonrpc: '2.0', method: 'notifications/cancelled', params: withoutProtocolMeta(params) });
      deliver?.(...args);
    };
    realStdin.on('end', () => {
      ended = true;
      pump();
    });
  }

  function activate(): void {
    if (active) return;
    active = true;
    passThrough = false;
    if (settings.guardConsole === true) {
      const route = (...args: unknown[]): void => log(...args);
      console.log = console.info = console.debug = route;
    }
    for (const chunk of early.splice(0)) take(chunk);
    setImmediate(() => {
      start().catch((err: unknown) => {
        errorOutput('mcp-boundary: the SDK server did not start: ' + (err instanceof Error ? err.stack ?? err.message : String(err)) + '\n');
        process.exitCode = 1;
      });
    });
  }

  // a program that has not read stdin by its first turn of the event loop writes as it did
  setImmediate(() => {
    if (active) return;
    passThrough = true;
    for (const chunk of early.splice(0)) realStdout.write(chunk);
  });
  const boundary: Boundary = { stdin: stdin as unknown as typeof process.stdin, stdout: stdout as unknown as typeof process.stdout, write, log, parse };
  registry[STATE] = { boundary, options: settings };
  return boundary;
}
`;

/** The module's text for one module system and SDK generation. */
export function buildBoundarySource(kind: CompanionKind, sdk: SdkTarget): string {
  const key = `${kind}:${sdk}`;
  let text = built.get(key);
  if (text === undefined) {
    const typed = BODY.replace('UNKNOWN_METHOD_PATTERN', UNKNOWN_METHOD_MESSAGE.source) + SERVE[sdk];
    const imports = IMPORTS[sdk].map(([names, from]) => `import { ${names.join(', ')} } from '${from}';`).join('\n');
    if (kind === 'ts') text = `${HEADER}${imports}\n\n${typed}`;
    else {
      const plain = stripTypes(`${imports}\n\n${typed}`);
      text =
        kind === 'esm'
          ? `${HEADER}${plain}`
          : `${HEADER}'use strict';\n\n${plain.replace(/^import \{ ([^}]*) \} from '([^']*)';$/gm, "const { $1 } = require('$2');").replace('export function createBoundary(', 'function createBoundary(')}\nmodule.exports = { createBoundary };\n`;
    }
    built.set(key, text);
  }
  return text;
}

const built = new Map<string, string>();
