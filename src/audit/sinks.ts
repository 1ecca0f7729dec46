// Where a file writes to stdout, and what it writes there.
//   process.stdout.write(JSON.stringify(msg) + '\n')     -> a message (msg)
//   console.log('<- ' + msg.method)                       -> text: not a protocol message
//   function send(m) { process.stdout.write(JSON.stringify(m) + '\n') }
//                                                         -> send is a writer helper; each send(x) is a write of x
// Only writes that provably go to fd 1 count: `console.error` and custom streams do not.
import type * as t from '@babel/types';
import {
  type AstIndex,
  type Binding,
  type FunctionNode,
  getEnclosingFunction,
  getMemberName,
  getMemberPath,
  resolveIdentifier,
  unwrapExpression,
} from '../analysis/ast.js';
import type { Flow } from './flow.js';

export type Payload =
  /** `JSON.stringify(message)`; `pretty` when an indent is passed (a message over several lines). */
  | { kind: 'message'; message: t.Node; pretty: boolean }
  /** Text that is not a protocol message (a banner, a debug line, an inspected object). */
  | { kind: 'text' }
  /** Only framing: whitespace or a `Content-Length` header. */
  | { kind: 'framing' }
  /** The enclosing function's parameter: the function is a writer helper (`pretty` as for a message). */
  | { kind: 'forward'; fn: FunctionNode; param: number; mode: 'json' | 'raw'; pretty?: boolean }
  | { kind: 'unknown' };

export interface WriterHelper {
  fn: FunctionNode;
  param: number;
  /** json: the argument is the message object; raw: the argument is the text written. */
  mode: 'json' | 'raw';
}

export interface StdoutWrite {
  call: t.CallExpression;
  /** What writes: `console.log`, `process.stdout.write`, `fs.writeSync(1, ...)`, or a writer helper. */
  via: 'console' | 'stdout' | 'fd' | 'helper';
  payload: Payload;
  helper?: WriterHelper;
}

const CONSOLE_STDOUT_METHODS = new Set(['log', 'info', 'debug', 'dir', 'table']);
const PROCESS_MODULES = new Set(['process', 'node:process']);
const FS_MODULES = new Set(['fs', 'node:fs', 'fs/promises', 'node:fs/promises']);

/** Finds every write to stdout in the file, writer helpers' call sites included. */
export function findStdoutWrites(index: AstIndex, flow: Flow): { writes: StdoutWrite[]; helpers: WriterHelper[] } {
  const redirected = findRedirectedConsoleMethods(index);
  const writes: StdoutWrite[] = [];
  for (const call of index.calls) {
    const direct = getDirectWrite(index, call, redirected);
    if (direct) writes.push(direct);
  }
  // Writer helpers: functions that write their parameter. A helper's callers can be helpers too.
  const helpers: WriterHelper[] = [];
  const seen = new Set<string>();
  let frontier = writes.slice();
  for (let round = 0; round < 6 && frontier.length > 0; round++) {
    const next: StdoutWrite[] = [];
    for (const write of frontier) {
      if (write.payload.kind !== 'forward') continue;
      const { fn, param, mode } = write.payload;
      const key = `${fn.start}:${param}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const helper: WriterHelper = { fn, param, mode };
      helpers.push(helper);
      for (const call of flow.getCallSites(fn).calls) {
        const arg = call.arguments[param];
        if (!arg || arg.type === 'SpreadElement' || arg.type === 'ArgumentPlaceholder') continue;
        const payload = mode === 'json' ? classifyMessageArgument(index, call, arg) : classifyText(index, call, arg, 0);
        const helperWrite: StdoutWrite = { call, via: 'helper', payload, helper };
        writes.push(helperWrite);
        next.push(helperWrite);
      }
    }
    frontier = next;
  }
  return { writes, helpers };
}

/** `console.log = console.error` (and the like) sends that method to stderr for the whole file. */
function findRedirectedConsoleMethods(index: AstIndex): Set<string> {
  const out = new Set<string>();
  for (const assignment of index.assignments) {
    const path = getMemberPath(assignment.left);
    if (path?.startsWith('console.')) out.add(path.slice('console.'.length));
    if (path?.startsWith('globalThis.console.')) out.add(path.slice('globalThis.console.'.length));
  }
  return out;
}

function getDirectWrite(index: AstIndex, call: t.CallExpression, redirected: Set<string>): StdoutWrite | null {
  const callee = unwrapExpression(call.callee);
  if (callee.type === 'MemberExpression') {
    const name = getMemberName(callee);
    const object = unwrapExpression(callee.object);
    if (name === 'write' && isStdoutStream(index, object, 0)) {
      const arg = call.arguments[0];
      const payload = arg && arg.type !== 'SpreadElement' && arg.type !== 'ArgumentPlaceholder' ? classifyText(index, call, arg, 0) : { kind: 'unknown' as const };
      return { call, via: 'stdout', payload };
    }
    if (name !== null && CONSOLE_STDOUT_METHODS.has(name) && object.type === 'Identifier' && object.name === 'console'
      && !resolveIdentifier(index, object) && !redirected.has(name)) {
      return { call, via: 'console', payload: classifyConsoleArguments(index, call) };
    }
    if ((name === 'writeSync' || name === 'write') && object.type === 'Identifier' && isFsModule(index, object) && isStdoutFd(call.arguments[0])) {
      return { call, via: 'fd', payload: classifyFdPayload(index, call) };
    }
    return null;
  }
  if (callee.type === 'Identifier' && callee.name === 'writeSync' && isStdoutFd(call.arguments[0])) {
    const binding = resolveIdentifier(index, callee);
    if (binding?.kind === 'import' && FS_MODULES.has(binding.source) && binding.imported === 'writeSync') {
      return { call, via: 'fd', payload: classifyFdPayload(index, call) };
    }
    if (binding && isRequireOf(binding, FS_MODULES)) return { call, via: 'fd', payload: classifyFdPayload(index, call) };
  }
  return null;
}

function classifyFdPayload(index: AstIndex, call: t.CallExpression): Payload {
  const arg = call.arguments[1];
  if (!arg || arg.type === 'SpreadElement' || arg.type === 'ArgumentPlaceholder') return { kind: 'unknown' };
  return classifyText(index, call, arg, 0);
}

function isStdoutFd(arg: t.Node | undefined): boolean {
  if (!arg) return false;
  const node = unwrapExpression(arg);
  if (node.type === 'NumericLiteral') return node.value === 1;
  return getMemberPath(node) === 'process.stdout.fd';
}

function isFsModule(index: AstIndex, id: t.Identifier): boolean {
  const binding = resolveIdentifier(index, id);
  if (!binding) return id.name === 'fs';
  if (binding.kind === 'import') return FS_MODULES.has(binding.source);
  return isRequireOf(binding, FS_MODULES);
}

/** `const x = require('fs')` / `const { writeSync } = require('node:fs')`. */
function isRequireOf(binding: Binding, modules: Set<string>): boolean {
  if (binding.kind !== 'const' && binding.kind !== 'let' && binding.kind !== 'var') return false;
  const init = binding.declarator.init ? unwrapExpression(binding.declarator.init) : null;
  if (init?.type !== 'CallExpression') return false;
  const callee = unwrapExpression(init.callee);
  const arg = init.arguments[0];
  return callee.type === 'Identifier' && callee.name === 'require' && arg?.type === 'StringLiteral' && modules.has(arg.value);
}

/** `process.stdout`, an alias of it, or `stdout` imported from `node:process`. */
export function isStdoutStream(index: AstIndex, node: t.Node, depth: number): boolean {
  const expr = unwrapExpression(node);
  const path = getMemberPath(expr);
  if (path === 'process.stdout' || path === 'globalThis.process.stdout') return true;
  if (expr.type !== 'Identifier' || depth > 3) return false;
  const binding = resolveIdentifier(index, expr);
  if (!binding) return false;
  if (binding.kind === 'import') return PROCESS_MODULES.has(binding.source) && binding.imported === 'stdout';
  if (binding.kind !== 'const' && binding.kind !== 'let' && binding.kind !== 'var') return false;
  const init = binding.declarator.init;
  if (!init) return false;
  if (binding.pattern.length === 0) return binding.kind === 'const' && isStdoutStream(index, init, depth + 1);
  // const { stdout } = process
  const source = unwrapExpression(init);
  return binding.pattern.length === 1 && binding.pattern[0] === 'stdout'
    && ((source.type === 'Identifier' && source.name === 'process') || isRequireOf(binding, PROCESS_MODULES));
}

function classifyConsoleArguments(index: AstIndex, call: t.CallExpression): Payload {
  const args = call.arguments;
  // console.log() prints an empty line.
  if (args.length === 0) return { kind: 'text' };
  const first = args[0]!;
  if (args.length === 1 && first.type === 'SpreadElement') {
    const forwarded = getForwardedParam(index, call, first.argument);
    return forwarded ? { kind: 'forward', fn: forwarded.fn, param: forwarded.param, mode: 'raw' } : { kind: 'unknown' };
  }
  // Several arguments are joined with spaces, format strings expanded: never one JSON message.
  if (args.length > 1) return { kind: 'text' };
  if (first.type === 'ArgumentPlaceholder' || first.type === 'SpreadElement') return { kind: 'unknown' };
  const node = unwrapExpression(first);
  // util.inspect output of an object, not JSON.
  if (node.type === 'ObjectExpression' || node.type === 'ArrayExpression') return { kind: 'text' };
  const payload = classifyText(index, call, node, 0);
  return payload.kind === 'framing' ? { kind: 'text' } : payload;
}

/** A writer helper's argument, when the helper serialises it as the message. */
function classifyMessageArgument(index: AstIndex, call: t.CallExpression, arg: t.Node): Payload {
  const forwarded = getForwardedParam(index, call, arg);
  if (forwarded) return { kind: 'forward', fn: forwarded.fn, param: forwarded.param, mode: 'json' };
  return { kind: 'message', message: arg, pretty: false };
}

/** `x` is the enclosing function's plain parameter (not destructured, not reassigned). */
function getForwardedParam(index: AstIndex, at: t.Node, node: t.Node): { fn: FunctionNode; param: number } | null {
  const expr = unwrapExpression(node);
  if (expr.type !== 'Identifier') return null;
  const binding = resolveIdentifier(index, expr);
  if (binding?.kind !== 'param' || binding.pattern.length > (binding.rest ? 1 : 0)) return null;
  if (getEnclosingFunction(index, at) !== binding.fn) return null;
  return { fn: binding.fn, param: binding.index };
}

/** What text a write puts on stdout. */
export function classifyText(index: AstIndex, at: t.Node, node: t.Node, depth: number): Payload {
  const expr = unwrapExpression(node);
  if (depth > 6) return { kind: 'unknown' };
  switch (expr.type) {
    case 'CallExpression': {
      const callee = unwrapExpression(expr.callee);
      if (getMemberPath(callee) === 'JSON.stringify' && expr.arguments[0] && expr.arguments[0].type !== 'SpreadElement') {
        const message = expr.arguments[0];
        const indent = expr.arguments[2];
        const pretty = indent !== undefined && !isNullish(indent) && !(indent.type === 'NumericLiteral' && indent.value === 0)
          && !(indent.type === 'StringLiteral' && indent.value === '');
        const forwarded = getForwardedParam(index, at, message);
        if (forwarded) return { kind: 'forward', fn: forwarded.fn, param: forwarded.param, mode: 'json', pretty };
        return { kind: 'message', message, pretty };
      }
      // Buffer.from(text), Buffer.concat([header, body])
      const path = getMemberPath(callee);
      const first = expr.arguments[0];
      if (path === 'Buffer.from' && first && first.type !== 'SpreadElement' && first.type !== 'ArgumentPlaceholder') {
        return classifyText(index, at, first, depth + 1);
      }
      if (path === 'Buffer.concat' && first?.type === 'ArrayExpression') {
        return combineParts(first.elements.map((e) => (e && e.type !== 'SpreadElement' ? classifyText(index, at, e, depth + 1) : { kind: 'unknown' as const })));
      }
      return { kind: 'unknown' };
    }
    case 'Identifier': {
      const forwarded = getForwardedParam(index, at, expr);
      if (forwarded) return { kind: 'forward', fn: forwarded.fn, param: forwarded.param, mode: 'raw' };
      const binding = resolveIdentifier(index, expr);
      if (binding?.kind === 'const' && binding.pattern.length === 0 && binding.declarator.init) {
        return classifyText(index, at, binding.declarator.init, depth + 1);
      }
      return { kind: 'unknown' };
    }
    case 'StringLiteral':
      return classifyStatic(expr.value);
    case 'NumericLiteral':
    case 'BooleanLiteral':
      return { kind: 'text' };
    case 'TemplateLiteral': {
      // A message wins (it may carry a Content-Length header); fixed text around a parameter is
      // written on every call, so it is text, not a forwarded value.
      const parts = expr.expressions.map((e) => classifyText(index, at, e, depth + 1));
      const message = parts.find((p) => p.kind === 'message');
      if (message) return message;
      const statics = classifyStatic(expr.quasis.map((q) => q.value.cooked ?? q.value.raw).join(''));
      if (statics.kind === 'text') return statics;
      return parts.find((p) => p.kind === 'forward') ?? { kind: 'unknown' };
    }
    case 'BinaryExpression': {
      if (expr.operator !== '+' || expr.left.type === 'PrivateName') return { kind: 'unknown' };
      return combineParts([classifyText(index, at, expr.left, depth + 1), classifyText(index, at, expr.right, depth + 1)]);
    }
    default:
      return { kind: 'unknown' };
  }
}

/**
 * Parts written one after the other: a message wins (a header may precede it); fixed text makes the
 * whole text; a forwarded parameter next to framing (`s + '\n'`) is still forwarded.
 */
function combineParts(parts: Payload[]): Payload {
  const message = parts.find((p) => p.kind === 'message');
  if (message) return message;
  if (parts.some((p) => p.kind === 'text')) return { kind: 'text' };
  const forward = parts.find((p) => p.kind === 'forward');
  if (forward) return forward;
  if (parts.length > 0 && parts.every((p) => p.kind === 'framing')) return { kind: 'framing' };
  return { kind: 'unknown' };
}

function classifyStatic(text: string): Payload {
  if (/^\s*$/.test(text) || /content-length/i.test(text)) return { kind: 'framing' };
  return { kind: 'text' };
}

function isNullish(node: t.Node): boolean {
  const expr = unwrapExpression(node);
  return expr.type === 'NullLiteral' || (expr.type === 'Identifier' && expr.name === 'undefined');
}
