// The envelope helper module written next to a rewritten server (`mcp-envelope.js` / `.cjs` / `.mjs`
// / `.ts`). Its text depends only on the module system, never on the server, so every server of a
// directory asks for the same companion file and the runner writes it once.
// Deliberately not: framing, reading stdin or routing methods. Those stay in the server.
import { dirname, extname, join } from 'node:path';

export type HelperKind = 'cjs' | 'esm' | 'ts';

export interface HelperModule {
  kind: HelperKind;
  /** Where the helper is written: next to the server. */
  path: string;
  /** What the server imports: `./mcp-envelope.js` (TS imports the emitted name). */
  specifier: string;
}

export const HELPER_BASENAME = 'mcp-envelope';

/** The helper file for a server, by extension and module syntax (`esm` when the file uses import/export). */
export function getHelperModule(serverPath: string, syntax: 'esm' | 'cjs'): HelperModule {
  const ext = extname(serverPath).toLowerCase();
  const at = (file: string): string => join(dirname(serverPath), file);
  switch (ext) {
    case '.ts':
    case '.tsx':
      return { kind: 'ts', path: at(`${HELPER_BASENAME}.ts`), specifier: `./${HELPER_BASENAME}.js` };
    case '.mts':
      return { kind: 'ts', path: at(`${HELPER_BASENAME}.mts`), specifier: `./${HELPER_BASENAME}.mjs` };
    case '.cts':
      return { kind: 'ts', path: at(`${HELPER_BASENAME}.cts`), specifier: `./${HELPER_BASENAME}.cjs` };
    case '.mjs':
      return { kind: 'esm', path: at(`${HELPER_BASENAME}.mjs`), specifier: `./${HELPER_BASENAME}.mjs` };
    case '.cjs':
      return { kind: 'cjs', path: at(`${HELPER_BASENAME}.cjs`), specifier: `./${HELPER_BASENAME}.cjs` };
    default:
      return { kind: syntax, path: at(`${HELPER_BASENAME}.js`), specifier: `./${HELPER_BASENAME}.js` };
  }
}

const HEADER = `// mcp-envelope: written by mcp-migrate (envelope fallback), shared by the servers of this directory.
//
// A JSON-RPC 2.0 envelope for a hand-rolled MCP stdio server. The server keeps its framing and its
// dispatch: it hands each incoming text to parse() (or receive()) and each outgoing message to
// send(), and the envelope makes what goes out compliant:
//   - every message carries "jsonrpc": "2.0";
//   - a reply carries the id of the request it answers, taken from the request itself;
//   - a notification (no "id" member) is never answered, and a request is answered once;
//   - an error is { code: <integer>, message: <string> }: a bare string becomes -32603; a generic
//     code (-32601, -32603, -32000..-32099) whose message says "unknown tool" becomes -32602 in
//     tools/call, one whose message says "unknown method" becomes -32601;
//   - bad JSON is answered with -32700 and id null, a message that is not JSON-RPC with -32600;
//   - ping is answered with {}.
// Which request a reply answers: scope(fn) and bind(fn) open a request scope that the next parse()
// inside it fills, handle(message, fn) opens one for a message parsed already. A scope follows
// callbacks and promises (AsyncLocalStorage), so the replies of requests in flight never swap ids.
`;

const JS_BODY = `const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
const STANDARD_MESSAGES = {
  [PARSE_ERROR]: 'Parse error',
  [INVALID_REQUEST]: 'Invalid Request',
  [METHOD_NOT_FOUND]: 'Method not found',
  [INVALID_PARAMS]: 'Invalid params',
  [INTERNAL_ERROR]: 'Internal error',
};
const UNKNOWN_TOOL = /\\bunknown tool\\b|\\bno such tool\\b|\\btool not found\\b/i;
const UNKNOWN_METHOD = /\\bmethod not found\\b|\\b(unknown|unsupported|unrecognized) method\\b|\\bno such method\\b/i;

function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value) {
  return typeof value === 'string' || typeof value === 'number' || value === null;
}

// Why a parsed value is not a JSON-RPC message ('' when it is one). A batch is left to the server.
function getProblem(value) {
  if (Array.isArray(value)) return '';
  if (!isObject(value)) return 'not an object';
  if ('id' in value && !isId(value.id)) return 'id must be a string, a number or null';
  if ('method' in value) return typeof value.method === 'string' ? '' : 'method must be a string';
  return 'result' in value || 'error' in value ? '' : 'no method';
}

// The standard code for what a generic code says in words: an unknown tool is -32602, an unknown
// method -32601, and a request that parsed has no parse error (the server's catch-all answered it).
function getStandardCode(code, method, message) {
  const generic = code === INTERNAL_ERROR || code === METHOD_NOT_FOUND || (code <= -32000 && code >= -32099);
  if (method === 'tools/call' && generic && UNKNOWN_TOOL.test(message)) return INVALID_PARAMS;
  if (generic && UNKNOWN_METHOD.test(message)) return METHOD_NOT_FOUND;
  return code === PARSE_ERROR ? INTERNAL_ERROR : code;
}

function toError(error, method) {
  const fields = isObject(error) ? error : { message: error };
  let code = Number.isInteger(fields.code) ? fields.code : INTERNAL_ERROR;
  const message =
    typeof fields.message === 'string'
      ? fields.message
      : fields.message === undefined || fields.message === null
        ? STANDARD_MESSAGES[code] || 'Error'
        : String(fields.message);
  if (typeof method === 'string') code = getStandardCode(code, method, message);
  return fields.data === undefined ? { code, message } : { code, message, data: fields.data };
}

function toResponse(reply, id, method) {
  if (reply.error !== undefined && reply.error !== null) return { jsonrpc: '2.0', id, error: toError(reply.error, method) };
  return { jsonrpc: '2.0', id, result: reply.result === undefined ? {} : reply.result };
}

function createEnvelope(write) {
  const scopes = new AsyncLocalStorage();
  // parse() rejected a message outside any scope: the server's own answer to it, written in its
  // catch block right after, is dropped.
  let rejectedOutsideScope = false;

  const newScope = () => ({ request: undefined, rejected: false, answered: false });

  function open(scope, message) {
    if (!isObject(message) || typeof message.method !== 'string') return; // a response from the client
    scope.request = message;
    if (message.method === 'ping' && 'id' in message) {
      scope.answered = true;
      write({ jsonrpc: '2.0', id: message.id, result: {} });
    }
  }

  function reject(code, id) {
    const scope = scopes.getStore();
    if (scope !== undefined) {
      scope.rejected = true;
    } else {
      rejectedOutsideScope = true;
      queueMicrotask(() => {
        rejectedOutsideScope = false;
      });
    }
    write({ jsonrpc: '2.0', id, error: { code, message: STANDARD_MESSAGES[code] } });
  }

  // JSON.parse for incoming messages: answers bad input itself, then throws like JSON.parse.
  function parse(text) {
    rejectedOutsideScope = false;
    let message;
    try {
      message = JSON.parse(typeof text === 'string' ? text : String(text));
    } catch (err) {
      reject(PARSE_ERROR, null);
      throw err;
    }
    const problem = getProblem(message);
    if (problem !== '') {
      reject(INVALID_REQUEST, isObject(message) && isId(message.id) ? message.id : null);
      throw new SyntaxError(\`Invalid Request: \${problem}\`);
    }
    const scope = scopes.getStore();
    if (scope !== undefined && scope.request === undefined && !scope.rejected) open(scope, message);
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

  function send(reply) {
    if (!isObject(reply)) {
      write(reply);
      return;
    }
    if (typeof reply.method === 'string' && !('result' in reply) && !('error' in reply)) {
      // a notification or request of the server's own
      write(Object.assign({ jsonrpc: '2.0' }, reply, { jsonrpc: '2.0' }));
      return;
    }
    const scope = scopes.getStore();
    const request = scope === undefined ? undefined : scope.request;
    if (scope === undefined || request === undefined) {
      // not written while handling a request: keep the server's id, unless parse() answered that input
      if (scope !== undefined ? scope.rejected : rejectedOutsideScope) return;
      write(toResponse(reply, isId(reply.id) ? reply.id : null, undefined));
      return;
    }
    if (!('id' in request) || scope.answered) return;
    scope.answered = true;
    write(toResponse(reply, request.id, request.method));
  }

  return {
    parse,
    receive,
    send,
    scope: (fn) => scopes.run(newScope(), fn),
    bind(fn) {
      return function (...args) {
        return scopes.run(newScope(), () => fn.apply(this, args));
      };
    },
    handle(message, fn) {
      const scope = newScope();
      return scopes.run(scope, () => {
        open(scope, message);
        return fn();
      });
    },
  };
}
`;

const TS_BODY = `type Id = string | number | null;
type JsonObject = { [key: string]: unknown };

interface Scope {
  request: JsonObject | undefined;
  rejected: boolean;
  answered: boolean;
}

export interface Envelope<M> {
  /** JSON.parse for incoming messages: answers bad input itself, then throws like JSON.parse. */
  parse(text: string | Buffer): any; // eslint-disable-line @typescript-eslint/no-explicit-any -- what JSON.parse returns
  /** Like parse(), but returns undefined for bad input instead of throwing. */
  receive(text: string | Buffer): any; // eslint-disable-line @typescript-eslint/no-explicit-any -- what JSON.parse returns
  send(reply: M): void;
  scope<R>(fn: () => R): R;
  bind<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  handle<R>(message: unknown, fn: () => R): R;
}

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
const STANDARD_MESSAGES: Record<number, string> = {
  [PARSE_ERROR]: 'Parse error',
  [INVALID_REQUEST]: 'Invalid Request',
  [METHOD_NOT_FOUND]: 'Method not found',
  [INVALID_PARAMS]: 'Invalid params',
  [INTERNAL_ERROR]: 'Internal error',
};
const UNKNOWN_TOOL = /\\bunknown tool\\b|\\bno such tool\\b|\\btool not found\\b/i;
const UNKNOWN_METHOD = /\\bmethod not found\\b|\\b(unknown|unsupported|unrecognized) method\\b|\\bno such method\\b/i;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is Id {
  return typeof value === 'string' || typeof value === 'number' || value === null;
}

// Why a parsed value is not a JSON-RPC message ('' when it is one). A batch is left to the server.
function getProblem(value: unknown): string {
  if (Array.isArray(value)) return '';
  if (!isObject(value)) return 'not an object';
  if ('id' in value && !isId(value['id'])) return 'id must be a string, a number or null';
  if ('method' in value) return typeof value['method'] === 'string' ? '' : 'method must be a string';
  return 'result' in value || 'error' in value ? '' : 'no method';
}

// The standard code for what a generic code says in words: an unknown tool is -32602, an unknown
// method -32601, and a request that parsed has no parse error (the server's catch-all answered it).
function getStandardCode(code: number, method: string, message: string): number {
  const generic = code === INTERNAL_ERROR || code === METHOD_NOT_FOUND || (code <= -32000 && code >= -32099);
  if (method === 'tools/call' && generic && UNKNOWN_TOOL.test(message)) return INVALID_PARAMS;
  if (generic && UNKNOWN_METHOD.test(message)) return METHOD_NOT_FOUND;
  return code === PARSE_ERROR ? INTERNAL_ERROR : code;
}

function toError(error: unknown, method: unknown): { code: number; message: string; data?: unknown } {
  const fields: JsonObject = isObject(error) ? error : { message: error };
  const rawCode = fields['code'];
  let code = typeof rawCode === 'number' && Number.isInteger(rawCode) ? rawCode : INTERNAL_ERROR;
  const rawMessage = fields['message'];
  const message =
    typeof rawMessage === 'string'
      ? rawMessage
      : rawMessage === undefined || rawMessage === null
        ? STANDARD_MESSAGES[code] ?? 'Error'
        : String(rawMessage);
  if (typeof method === 'string') code = getStandardCode(code, method, message);
  return fields['data'] === undefined ? { code, message } : { code, message, data: fields['data'] };
}

function toResponse(reply: JsonObject, id: unknown, method: unknown): JsonObject {
  const error = reply['error'];
  if (error !== undefined && error !== null) return { jsonrpc: '2.0', id, error: toError(error, method) };
  const result = reply['result'];
  return { jsonrpc: '2.0', id, result: result === undefined ? {} : result };
}

export function createEnvelope<M>(write: (message: M) => void): Envelope<M> {
  const scopes = new AsyncLocalStorage<Scope>();
  const emit = (message: unknown): void => write(message as M);
  // parse() rejected a message outside any scope: the server's own answer to it, written in its
  // catch block right after, is dropped.
  let rejectedOutsideScope = false;

  const newScope = (): Scope => ({ request: undefined, rejected: false, answered: false });

  function open(scope: Scope, message: unknown): void {
    if (!isObject(message) || typeof message['method'] !== 'string') return; // a response from the client
    scope.request = message;
    if (message['method'] === 'ping' && 'id' in message) {
      scope.answered = true;
      emit({ jsonrpc: '2.0', id: message['id'], result: {} });
    }
  }

  function reject(code: number, id: Id): void {
    const scope = scopes.getStore();
    if (scope !== undefined) {
      scope.rejected = true;
    } else {
      rejectedOutsideScope = true;
      queueMicrotask(() => {
        rejectedOutsideScope = false;
      });
    }
    emit({ jsonrpc: '2.0', id, error: { code, message: STANDARD_MESSAGES[code] } });
  }

  function parse(text: string | Buffer): unknown {
    rejectedOutsideScope = false;
    let message: unknown;
    try {
      message = JSON.parse(typeof text === 'string' ? text : String(text));
    } catch (err) {
      reject(PARSE_ERROR, null);
      throw err;
    }
    const problem = getProblem(message);
    if (problem !== '') {
      reject(INVALID_REQUEST, isObject(message) && isId(message['id']) ? message['id'] : null);
      throw new SyntaxError(\`Invalid Request: \${problem}\`);
    }
    const scope = scopes.getStore();
    if (scope !== undefined && scope.request === undefined && !scope.rejected) open(scope, message);
    return message;
  }

  function receive(text: string | Buffer): unknown {
    try {
      return parse(text);
    } catch {
      return undefined;
    }
  }

  function send(reply: M): void {
    if (!isObject(reply)) {
      emit(reply);
      return;
    }
    if (typeof reply['method'] === 'string' && !('result' in reply) && !('error' in reply)) {
      // a notification or request of the server's own
      emit(Object.assign({ jsonrpc: '2.0' }, reply, { jsonrpc: '2.0' }));
      return;
    }
    const scope = scopes.getStore();
    const request = scope === undefined ? undefined : scope.request;
    if (scope === undefined || request === undefined) {
      // not written while handling a request: keep the server's id, unless parse() answered that input
      if (scope !== undefined ? scope.rejected : rejectedOutsideScope) return;
      emit(toResponse(reply, isId(reply['id']) ? reply['id'] : null, undefined));
      return;
    }
    if (!('id' in request) || scope.answered) return;
    scope.answered = true;
    emit(toResponse(reply, request['id'], request['method']));
  }

  return {
    parse,
    receive,
    send,
    scope: <R>(fn: () => R): R => scopes.run(newScope(), fn),
    bind<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
      return function (this: unknown, ...args: A): R {
        return scopes.run(newScope(), () => fn.apply(this, args));
      };
    },
    handle<R>(message: unknown, fn: () => R): R {
      const scope = newScope();
      return scopes.run(scope, () => {
        open(scope, message);
        return fn();
      });
    },
  };
}
`;

/** The helper's source text for one module system. */
export function buildHelperSource(kind: HelperKind): string {
  switch (kind) {
    case 'cjs':
      return `${HEADER}'use strict';\n\nconst { AsyncLocalStorage } = require('node:async_hooks');\n\n${JS_BODY}\nmodule.exports = { createEnvelope };\n`;
    case 'esm':
      return `${HEADER}import { AsyncLocalStorage } from 'node:async_hooks';\n\n${JS_BODY.replace('function createEnvelope(', 'export function createEnvelope(')}`;
    case 'ts':
      return `${HEADER}import { AsyncLocalStorage } from 'node:async_hooks';\n\n${TS_BODY}`;
  }
}
