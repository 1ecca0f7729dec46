// The envelope helper module written next to a rewritten server (`mcp-envelope.js` / `.cjs` / `.mjs`
// / `.ts`). Its text depends only on the module system, never on the server, so every server of a
// directory asks for the same companion file and the runner writes it once. What differs per server
// (framing, the methods it answers) is passed to createEnvelope by the server.
// Deliberately not: reading stdin or routing methods. Those stay in the server.
import { UNKNOWN_METHOD_MESSAGE } from '../../model/mcp-methods.js';
import { type CompanionKind, type CompanionModule, getCompanionModule } from '../companion.js';

export type HelperKind = CompanionKind;
export type HelperModule = CompanionModule;

export { ENVELOPE_BASENAME as HELPER_BASENAME } from '../../analysis/companions.js';
import { ENVELOPE_BASENAME } from '../../analysis/companions.js';

/** The helper file for a server, by extension and module syntax (`esm` when the file uses import/export). */
export function getHelperModule(serverPath: string, syntax: 'esm' | 'cjs'): HelperModule {
  return getCompanionModule(ENVELOPE_BASENAME, serverPath, syntax);
}

const HEADER = `// mcp-envelope: written by mcp-migrate (envelope fallback), shared by the servers of this directory.
//
// A JSON-RPC 2.0 envelope for a hand-rolled MCP stdio server, working at its I/O boundary. The server
// keeps its framing, its dispatch and its writers; it parses incoming text with envelope.parse() (or
// receive()) and every write to stdout goes through envelope.write() (or log()). The envelope reads
// each message the server writes and sends it on compliant:
//   - every message carries "jsonrpc": "2.0", framed as the server frames (NDJSON or Content-Length,
//     with the length counted in bytes; a Content-Length server that writes a message without its
//     header, answering a line-framed client in its own framing, keeps doing so); a message the server wrote over several lines
//     (JSON.stringify(reply, null, 2)) is one message, sent on one line;
//   - a reply carries the id of the request it answers, taken from the request itself;
//   - a reply written where no request is waiting for one (a queue drained from the callbacks of an
//     earlier request) answers the request its id names, if that one is still waiting;
//   - a notification (no "id" member) is never answered, and a request is answered once;
//   - an error is { code: <integer>, message: <string> } (a bare string becomes -32603, and a generic
//     code on a message that says the method is unknown becomes -32601);
//   - bad JSON is answered with -32700 and id null, a message that is not JSON-RPC with -32600;
//   - ping is answered with {} (by the envelope itself, as the specification defines it);
//   - when the server's methods are known, an unknown method is answered with -32601 (whatever the
//     server would have written for it);
//   - text that is not a message (a log line, JSON that is no JSON-RPC message) goes to stderr
//     instead of corrupting the protocol; log() formats like console.log() and never throws;
//   - write() calls its callback once the text is out, as stdout.write() does.
// Which request a reply answers: parse() starts a scope that follows the callbacks and promises of
// the code handling that message (AsyncLocalStorage), so replies of requests in flight never swap ids.
// One envelope per process: every module of the server that calls createEnvelope() shares it
// (the output / errorOutput options, for tests, give a separate one).
`;

const JS_BODY = `const STATE = Symbol.for('mcp-migrate.envelope');
const STANDARD_MESSAGES = {
  '-32700': 'Parse error',
  '-32600': 'Invalid Request',
  '-32601': 'Method not found',
  '-32602': 'Invalid params',
  '-32603': 'Internal error',
};

function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value) {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

// a JSON-RPC message has at least one of these members; other JSON written to stdout is a log
function isMessage(value) {
  return isObject(value) && ('jsonrpc' in value || 'id' in value || 'method' in value || 'result' in value || 'error' in value);
}

function stringify(value) {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined; // a cycle, a BigInt
  }
}

const UNKNOWN_METHOD = /${UNKNOWN_METHOD_MESSAGE.source}/i;

function toError(error) {
  const fields = isObject(error) ? error : { message: error };
  let code = Number.isInteger(fields.code) ? fields.code : -32603;
  const message =
    typeof fields.message === 'string'
      ? fields.message
      : fields.message === undefined || fields.message === null
        ? STANDARD_MESSAGES[String(code)] || 'Error'
        : String(fields.message);
  // a generic code on an answer that says the method is unknown: JSON-RPC has a code for that
  if ((code === -32603 || code === -32600 || (code <= -32000 && code >= -32099)) && UNKNOWN_METHOD.test(message)) code = -32601;
  return fields.data === undefined ? { code, message } : { code, message, data: fields.data };
}

/** The end of the JSON value that starts text (an object or array), or -1 while it is incomplete. */
function findJsonEnd(text) {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\\\') i++;
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

function createEnvelope(options = {}) {
  const shared = options.output === undefined;
  if (shared && globalThis[STATE]) return globalThis[STATE];
  const framing = options.framing === 'content-length' ? 'content-length' : 'ndjson';
  // the framing of the message being sent: as the server wrote it (a Content-Length server may answer a
  // line-framed client without headers), else as it wrote the last one
  let current = framing;
  const methods = Array.isArray(options.methods) ? new Set(options.methods) : null;
  const stdout = process.stdout.write.bind(process.stdout);
  const output = options.output || ((text) => stdout(text));
  const errorOutput = options.errorOutput || ((text) => process.stderr.write(text));
  const scopes = new AsyncLocalStorage();
  const inFlight = new Map(); // id -> the scope of a request that is not answered yet
  const decoder = new TextDecoder();
  let pending = '';

  function emit(message) {
    const body = JSON.stringify(message);
    output(current === 'ndjson' ? body + '\\n' : 'Content-Length: ' + Buffer.byteLength(body, 'utf8') + '\\r\\n\\r\\n' + body);
  }

  function answer(scope, reply) {
    scope.answered = true;
    if (inFlight.get(scope.request.id) === scope) inFlight.delete(scope.request.id);
    if (reply.error !== undefined && reply.error !== null) emit({ jsonrpc: '2.0', id: scope.request.id, error: toError(reply.error) });
    else emit({ jsonrpc: '2.0', id: scope.request.id, result: reply.result === undefined ? {} : reply.result });
  }

  // JSON.parse for incoming messages: answers bad input itself, then throws like JSON.parse.
  function parse(text) {
    let message;
    try {
      message = JSON.parse(typeof text === 'string' ? text : String(text));
    } catch (err) {
      scopes.enterWith({ request: undefined, answered: true });
      emit({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      throw err;
    }
    const scope = { request: undefined, answered: false };
    scopes.enterWith(scope);
    if (isObject(message) && typeof message.method !== 'string' && ('result' in message || 'error' in message)) {
      scope.answered = true; // a response from the client: nothing to answer
      return message;
    }
    if (!isObject(message) || typeof message.method !== 'string' || ('id' in message && !isId(message.id) && message.id !== null)) {
      scope.answered = true;
      emit({ jsonrpc: '2.0', id: isObject(message) && isId(message.id) ? message.id : null, error: { code: -32600, message: 'Invalid Request' } });
      throw new SyntaxError('Invalid Request: not a JSON-RPC 2.0 request');
    }
    scope.request = message;
    if (!('id' in message)) scope.answered = true; // a notification is never answered
    else if (message.method === 'ping') answer(scope, { result: {} }); // the spec says what ping answers
    else if (methods !== null && !methods.has(message.method)) answer(scope, { error: { code: -32601, message: 'Method not found' } });
    else if (isId(message.id)) inFlight.set(message.id, scope);
    return message;
  }

  // Like parse(), but returns undefined for bad input instead of throwing.
  function receive(text) {
    try {
      return parse(text);
    } catch {
      return undefined;
    }
  }

  // One message the server wrote (already parsed).
  function send(message) {
    if (!isMessage(message)) {
      errorOutput(format('%j', message) + '\\n');
      return;
    }
    if (typeof message.method === 'string' && !('result' in message) && !('error' in message)) {
      emit(Object.assign({ jsonrpc: '2.0' }, message, { jsonrpc: '2.0' })); // a notification or request of the server's own
      return;
    }
    const scope = scopes.getStore();
    if (scope !== undefined && scope.request !== undefined && !scope.answered) {
      answer(scope, message);
      return;
    }
    // no request of this handling waits for a reply: the one its id names, if that one still waits
    // (a queue of requests drained from the callbacks of the first one)
    const named = isId(message.id) ? inFlight.get(message.id) : undefined;
    if (named !== undefined) {
      answer(named, message);
      return;
    }
    if (scope !== undefined) return; // a second reply, a reply to a notification or to bad input
    // written outside the handling of any message: keep the server's id
    const id = isId(message.id) ? message.id : null;
    if (message.error !== undefined && message.error !== null) emit({ jsonrpc: '2.0', id, error: toError(message.error) });
    else emit({ jsonrpc: '2.0', id, result: message.result === undefined ? {} : message.result });
  }

  function sendText(text) {
    if (!text.trim()) return;
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      errorOutput(text.endsWith('\\n') ? text : text + '\\n'); // not a message: keep it off the protocol
      return;
    }
    send(message);
  }

  // A drop-in for stdout.write(): frames the text the server writes into messages.
  function write(chunk, encoding, callback) {
    pending += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }); // a character may span two chunks
    for (;;) {
      if (framing === 'ndjson') {
        // a message serialised over several lines (JSON.stringify(reply, null, 2)) is one message: a
        // JSON value that starts the text is read to its end, across newlines, and sent as one line
        const start = pending.search(/\\S/);
        const end = start !== -1 && /[[{]/.test(pending.charAt(start)) ? findJsonEnd(pending.slice(start)) : -1;
        if (end !== -1) {
          const after = pending.slice(start + end);
          const eol = after.indexOf('\\n');
          if (!(eol === -1 ? after : after.slice(0, eol)).trim()) {
            const text = pending.slice(start, start + end);
            pending = eol === -1 ? '' : after.slice(eol + 1);
            sendText(text);
            continue;
          }
        }
        // anything else (a value still incomplete when the write ends included) is read line by line
        const newline = pending.indexOf('\\n');
        if (newline === -1) {
          // a message written without its newline goes out now (a client would wait for the line)
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
        continue;
      }
      const start = pending.search(/\\S/);
      if (start === -1) break;
      let rest = pending.slice(start);
      const headed = /^[A-Za-z][\\w-]*\\s*:/.test(rest);
      if (headed) {
        const headerEnd = rest.indexOf('\\r\\n\\r\\n');
        if (headerEnd === -1) break;
        rest = rest.slice(headerEnd + 4);
      }
      // the body is read up to the end of its JSON value: a length counted in characters is not trusted
      const end = findJsonEnd(rest);
      if (end === -1) {
        if (!/^\\s*[[{]/.test(rest) && rest.length > 0) {
          sendText(rest);
          pending = '';
        }
        break;
      }
      pending = rest.slice(end);
      // (a JSON value: a message is sent on in the framing the server wrote it in)
      current = headed ? 'content-length' : 'ndjson';
      sendText(rest.slice(0, end));
    }
    // like stdout.write(): call back once the text is out, never before write() returns
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') {
      if (options.output) process.nextTick(done);
      else stdout('', undefined, done);
    }
    return true;
  }

  // A drop-in for console.log(): what it would print (util.format), as a message or (anything else) on stderr.
  function log(...args) {
    // console.log(message) printed util.inspect text no client can read: the message as JSON instead
    const json = args.length === 1 && isMessage(args[0]) ? stringify(args[0]) : undefined;
    sendText(json === undefined ? format(...args) : json);
  }

  const envelope = { parse, receive, send, write, log };
  if (shared) globalThis[STATE] = envelope;
  return envelope;
}
`;

/** The TypeScript module: the same code, typed (it type-checks under strict settings). */
function buildTsBody(): string {
  return JS_BODY.replace("const STATE = Symbol.for('mcp-migrate.envelope');", `type Id = string | number | null;
type JsonObject = { [key: string]: unknown };
type Write = (text: string) => unknown;
interface Scope {
  request: JsonObject | undefined;
  answered: boolean;
}

export interface EnvelopeOptions {
  framing?: 'ndjson' | 'content-length';
  /** Every method the server answers, when known: other methods get -32601, ping gets {}. */
  methods?: string[];
  output?: Write;
  errorOutput?: Write;
}

export interface Envelope {
  /** JSON.parse for incoming messages: answers bad input itself, then throws like JSON.parse. */
  parse(text: string | Buffer): any; // eslint-disable-line @typescript-eslint/no-explicit-any -- what JSON.parse returns
  /** Like parse(), but returns undefined for bad input instead of throwing. */
  receive(text: string | Buffer): any; // eslint-disable-line @typescript-eslint/no-explicit-any -- what JSON.parse returns
  send(message: unknown): void;
  write(chunk: string | Uint8Array, encoding?: unknown, callback?: unknown): boolean;
  log(...args: unknown[]): void;
}

const STATE = Symbol.for('mcp-migrate.envelope');`)
    .replace("const STANDARD_MESSAGES = {", 'const STANDARD_MESSAGES: Record<string, string> = {')
    .replace('function isObject(value) {', 'function isObject(value: unknown): value is JsonObject {')
    .replace('function isId(value) {', 'function isId(value: unknown): value is string | number {')
    .replace('function isMessage(value) {', 'function isMessage(value: unknown): value is JsonObject {')
    .replace('function stringify(value) {', 'function stringify(value: unknown): string | undefined {')
    .replace('function toError(error) {\n  const fields = isObject(error) ? error : { message: error };', 'function toError(error: unknown): { code: number; message: string; data?: unknown } {\n  const fields: JsonObject = isObject(error) ? error : { message: error };')
    .replace('let code = Number.isInteger(fields.code) ? fields.code : -32603;', "let code = typeof fields['code'] === 'number' && Number.isInteger(fields['code']) ? fields['code'] : -32603;")
    .replace(/fields\.message/g, "fields['message']")
    .replace(/fields\.data/g, "fields['data']")
    .replace('function findJsonEnd(text) {', 'function findJsonEnd(text: string): number {')
    .replace('function createEnvelope(options = {}) {', 'export function createEnvelope(options: EnvelopeOptions = {}): Envelope {')
    .replace('if (shared && globalThis[STATE]) return globalThis[STATE];', 'const registry = globalThis as unknown as { [STATE]?: Envelope };\n  if (shared && registry[STATE]) return registry[STATE];')
    .replace('const output = options.output || ((text) => stdout(text));', 'const output: Write = options.output || ((text) => stdout(text));')
    .replace('const errorOutput = options.errorOutput || ((text) => process.stderr.write(text));', 'const errorOutput: Write = options.errorOutput || ((text) => process.stderr.write(text));')
    .replace('const scopes = new AsyncLocalStorage();', 'const scopes = new AsyncLocalStorage<Scope>();')
    .replace('const inFlight = new Map();', 'const inFlight = new Map<Id, Scope>();')
    .replace('function emit(message) {', 'function emit(message: JsonObject): void {')
    .replace('function answer(scope, reply) {', 'function answer(scope: Scope, reply: JsonObject): void {')
    .replace(/scope\.request\.id/g, "scope.request!['id'] as Id")
    .replace(/reply\.error/g, "reply['error']")
    .replace(/reply\.result/g, "reply['result']")
    .replace('function parse(text) {\n    let message;', 'function parse(text: string | Buffer): any { // eslint-disable-line @typescript-eslint/no-explicit-any -- what JSON.parse returns\n    let message: unknown;')
    .replace('const scope = { request: undefined, answered: false };', 'const scope: Scope = { request: undefined, answered: false };')
    .replace(/message\.method/g, "message['method']")
    .replace(/message\.id/g, "message['id']")
    .replace(/message\.error/g, "message['error']")
    .replace(/message\.result/g, "message['result']")
    .replace('function receive(text) {', 'function receive(text: string | Buffer): any { // eslint-disable-line @typescript-eslint/no-explicit-any -- what JSON.parse returns')
    .replace('function send(message) {', 'function send(message: unknown): void {')
    .replace('function sendText(text) {\n    if (!text.trim()) return;\n    let message;', 'function sendText(text: string): void {\n    if (!text.trim()) return;\n    let message: unknown;')
    .replace('function write(chunk, encoding, callback) {', 'function write(chunk: string | Uint8Array, encoding?: unknown, callback?: unknown): boolean {')
    .replace("const done = typeof encoding === 'function' ? encoding : callback;", "const done = (typeof encoding === 'function' ? encoding : callback) as ((err?: Error | null) => void) | undefined;")
    .replace('function log(...args) {', 'function log(...args: unknown[]): void {')
    .replace('const envelope = { parse, receive, send, write, log };\n  if (shared) globalThis[STATE] = envelope;', 'const envelope: Envelope = { parse, receive, send, write, log };\n  if (shared) registry[STATE] = envelope;');
}

/** The helper's source text for one module system. */
export function buildHelperSource(kind: HelperKind): string {
  switch (kind) {
    case 'cjs':
      return `${HEADER}'use strict';\n\nconst { AsyncLocalStorage } = require('node:async_hooks');\nconst { format } = require('node:util');\n\n${JS_BODY}\nmodule.exports = { createEnvelope };\n`;
    case 'esm':
      return `${HEADER}import { AsyncLocalStorage } from 'node:async_hooks';\nimport { format } from 'node:util';\n\n${JS_BODY.replace('function createEnvelope(', 'export function createEnvelope(')}`;
    case 'ts':
      return `${HEADER}import { AsyncLocalStorage } from 'node:async_hooks';\nimport { format } from 'node:util';\n\n${buildTsBody()}`;
  }
}
