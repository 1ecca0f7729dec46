// Helpers of the interpreter that need no interpreter state: how a write is classified, literal
// arithmetic and truthiness, and small AST predicates (enclosing function, loops, promise chains).
import { t } from '../babel.js';
import {
  type Binding,
  forEachChild,
  type FunctionNode,
  getEnclosingClass,
  getEnclosingFunction,
  type ParentLinks,
  getMemberName,
  isFunctionNode,
  resolveIdentifier,
  unwrapExpression,
} from './ast.js';
import { type ClassNode, type Lit, type Val } from './values.js';
import { type PathState, type WriteData } from './interp-types.js';
import type { ModuleUnit } from './program.js';
import { sketchString } from './render.js';

let frameCounter = 0;

/** A fresh frame id (ids order frames by creation across every interpreter of the process). */
export function nextFrameId(): number {
  return ++frameCounter;
}

/** The thrown value that stands for `process.exit()`: it ends the path, not a try block. */
export const EXIT = '\0exit';

export function getBuiltinName(source: string): string | null {
  const name = source.startsWith('node:') ? source.slice(5) : source;
  const known = ['readline', 'fs', 'process', 'events', 'util', 'path', 'os', 'crypto', 'child_process', 'stream', 'buffer', 'timers', 'url', 'http', 'https', 'net', 'zlib', 'assert', 'async_hooks', 'worker_threads', 'string_decoder'];
  const base = name.split('/')[0]!;
  if (base === 'readline' && name === 'readline/promises') return 'readline';
  if (base === 'fs' && name === 'fs/promises') return 'fs-promises';
  return known.includes(base) && !name.includes('/') ? base : null;
}

export function fdOf(value: Val): number {
  if (value.k === 'lit' && typeof value.value === 'number') return value.value;
  if (value.k === 'stream') return value.fd;
  if (value.k === 'lit' && value.value === '/dev/stdout') return 1;
  return -1;
}

/** The literal text a value starts with: a string literal, or the known head of a string built from unknown parts. */
export function getTextHead(v: Val): string | null {
  if (v.k === 'lit') return typeof v.value === 'string' ? v.value : String(v.value);
  if (v.k === 'unknown' && v.head !== undefined) return v.head;
  return null;
}

/** The text after the substitution at `at` of a template, as far as it is known (`${body}\n`, `${body}${EOL}`). */
export function getTemplateTail(expr: t.TemplateLiteral, parts: Val[], at: number): string {
  let tail = expr.quasis[at + 1]?.value.cooked ?? '';
  for (let i = at + 1; i < parts.length; i++) {
    const part = parts[i]!;
    if (part.k !== 'lit') break;
    tail += String(part.value) + (expr.quasis[i + 1]?.value.cooked ?? '');
  }
  return tail;
}

/** What a write carries: a JSON message (with its framing), a newline, a Content-Length header, or other text. */
export function classifyWrite(payload: Val, console: boolean): WriteData {
  if (payload.k === 'json') {
    if (payload.header) return { kind: 'json', value: payload.value, framing: 'content-length' };
    if (console || payload.suffix.endsWith('\n')) return { kind: 'json', value: payload.value, framing: 'ndjson' };
    return { kind: 'json', value: payload.value, framing: 'bare' };
  }
  if (payload.k === 'lit' && typeof payload.value === 'string') {
    if (/^\r?\n$/.test(payload.value)) return { kind: 'newline' };
    if (/^content-length:/i.test(payload.value)) return { kind: 'header' };
  }
  if (payload.k === 'unknown' && payload.head !== undefined && /^content-length:/i.test(payload.head)) return { kind: 'header' };
  return { kind: 'text' };
}

export function typeOf(v: Val): string | null {
  switch (v.k) {
    case 'lit':
      return v.value === null ? 'object' : typeof v.value;
    case 'func':
    case 'class':
    case 'native':
      return 'function';
    case 'obj':
    case 'enum':
    case 'inst':
    case 'arr':
    case 'map':
    case 'stream':
    case 'readline':
    case 'msg':
    case 'error':
    case 'promise':
      return 'object';
    case 'text':
    case 'json':
      return 'string';
    default:
      return null;
  }
}

export function isTruthy(v: Val, s: PathState): boolean | null {
  switch (v.k) {
    case 'lit':
      return Boolean(v.value);
    case 'unknown':
    case 'text':
    case 'pred':
      return null;
    case 'sym': {
      const c = s.cons.get(v.key);
      if (c?.eq !== undefined) return Boolean(c.eq);
      if (c?.defined === false) return false;
      if (v.key === 'method') return true;
      if (v.key === 'id' && c?.defined === true) return true;
      return null;
    }
    default:
      return true;
  }
}

export function evalBinary(op: string, a: Lit, b: Lit): Lit {
  const x = a as never;
  const y = b as never;
  switch (op) {
    case '===':
      return a === b;
    case '!==':
      return a !== b;
    case '==':
      return a == b;
    case '!=':
      return a != b;
    case '-':
      return (x as number) - (y as number);
    case '*':
      return (x as number) * (y as number);
    case '/':
      return (x as number) / (y as number);
    case '<':
      return x < y;
    case '>':
      return x > y;
    case '<=':
      return x <= y;
    case '>=':
      return x >= y;
    default:
      throw new Error('not folded');
  }
}

/** The names EventEmitter (a stream, a readline interface) registers a listener with. */
export const LISTEN_METHODS = new Set(['on', 'addListener', 'once', 'prependListener', 'prependOnceListener']);

/**
 * The value of an enum member: its string or number literal, or the number counted on from the member
 * before (`A, B = 5, C` -> 0, 5, 6); undefined for a member computed otherwise, and after one.
 */
export function getEnumMemberValue(node: t.TSEnumDeclaration, name: string): string | number | undefined {
  let next: number | undefined = 0;
  for (const member of node.members) {
    const key = member.id.type === 'Identifier' ? member.id.name : member.id.value;
    let value: string | number | undefined;
    const init = member.initializer ? unwrapExpression(member.initializer) : null;
    if (init === null) value = next;
    else if (init.type === 'StringLiteral') value = init.value;
    else if (init.type === 'NumericLiteral') value = init.value;
    else if (init.type === 'UnaryExpression' && init.operator === '-' && init.argument.type === 'NumericLiteral') value = -init.argument.value;
    next = typeof value === 'number' ? value + 1 : undefined;
    if (key === name) return value;
  }
  return undefined;
}

/** A computed handler name with more entries than this is not followed entry by entry. */
export const MAX_COMPUTED_ENTRIES = 24;

/** The literal start and end of a string built by `+` or a template (`'on' + x` -> prefix 'on'); null when no part is dynamic. */
export function getFixedEnds(node: t.Node): { prefix: string; suffix: string } | null {
  const sketch = sketchString(node, '\0');
  if (!sketch.includes('\0')) return null;
  return { prefix: sketch.slice(0, sketch.indexOf('\0')), suffix: sketch.slice(sketch.lastIndexOf('\0') + 1) };
}

/** The names of a class's own instance methods (arrow-function fields too); null when it extends another class. */
export function getClassMethodNames(cls: ClassNode): string[] | null {
  if (cls.superClass) return null;
  const names: string[] = [];
  for (const member of cls.body.body) {
    if (member.type === 'ClassMethod' && member.kind === 'method' && !member.static && !member.computed && member.key.type === 'Identifier') names.push(member.key.name);
    if (member.type === 'ClassProperty' && !member.static && !member.computed && member.key.type === 'Identifier' && member.value && isFunctionNode(member.value)) names.push(member.key.name);
  }
  return names;
}

/** Methods that only compute a value from their receiver (used to format a log line). */
export const VALUE_METHODS = new Set(['toISOString', 'toString', 'toLocaleString', 'toUpperCase', 'toLowerCase', 'trim', 'join', 'slice', 'padStart', 'padEnd', 'toFixed', 'map', 'repeat', 'indexOf', 'includes']);

/** The nearest function around `node` in its module, or null at the top level (one lookup in the module's index). */
export function findEnclosingFunction(mod: ModuleUnit, node: t.Node): FunctionNode | null {
  return getEnclosingFunction(mod.index, node);
}

export const LOOPS = new Set(['ForOfStatement', 'ForInStatement', 'ForStatement', 'WhileStatement', 'DoWhileStatement']);

/** Whether `node` lies in the body of a loop, short of any function (a block-scoped binding there is per iteration). */
export function isInLoopBody(node: t.Node, parents: Pick<ParentLinks, 'get'>): boolean {
  for (let child = node, parent = parents.get(node); parent !== undefined; child = parent, parent = parents.get(parent)) {
    if (LOOPS.has(parent.type) && (parent as t.ForOfStatement | t.WhileStatement).body === child) return true;
    if (t.isFunction(parent)) return false;
  }
  return false;
}

/**
 * Whether a write of `binding` chains a promise onto the binding itself: `queue = queue.then(cb)`,
 * `queue = queue.then(cb).catch(log)`, `q = q.finally(cb)` (a promise queue: the binding always holds a promise).
 */
export function isChainOnto(mod: ModuleUnit, write: t.Node, binding: Binding): boolean {
  if (write.type !== 'AssignmentExpression' || write.operator !== '=' || write.left.type !== 'Identifier') return false;
  return isChainOn(write.right, (root) => root.type === 'Identifier' && resolveIdentifier(mod.index, root) === binding);
}

/**
 * The fields of a class that are promise queues: every assignment to `this.<name>` in its module is
 * `this.<name> = Promise.resolve()` or chains onto `this.<name>` itself, and at least one chains.
 */
export function queueFieldsOf(cls: ClassNode, mod: ModuleUnit): Set<string> {
  const fieldName = (node: t.Node): string | null => {
    const expr = unwrapExpression(node);
    return expr.type === 'MemberExpression' && !expr.computed && unwrapExpression(expr.object).type === 'ThisExpression' ? getMemberName(expr) : null;
  };
  const chains = new Set<string>();
  const other = new Set<string>();
  for (const assignment of mod.index.assignments) {
    const name = fieldName(assignment.left);
    if (name === null) continue;
    if (getEnclosingClass(mod.index, assignment) !== cls || assignment.operator !== '=') other.add(name);
    else if (isChainOn(assignment.right, (root) => fieldName(root) === name)) chains.add(name);
    else if (!isPromiseResolve(assignment.right)) other.add(name);
  }
  return new Set([...chains].filter((name) => !other.has(name)));
}

export function isPromiseResolve(node: t.Node): boolean {
  const expr = unwrapExpression(node);
  if (expr.type !== 'CallExpression' || expr.arguments.length > 0) return false;
  const callee = unwrapExpression(expr.callee);
  return callee.type === 'MemberExpression' && callee.object.type === 'Identifier' && callee.object.name === 'Promise' && getMemberName(callee) === 'resolve';
}

/** `<root>.then(cb)`, `<root>.then(cb).catch(log)`, `<root>.finally(cb)`: links of then/catch/finally on a root. */
export function isChainOn(node: t.Node, isRoot: (root: t.Node) => boolean): boolean {
  let expr = unwrapExpression(node);
  let links = 0;
  while (expr.type === 'CallExpression' || expr.type === 'AwaitExpression') {
    if (expr.type === 'AwaitExpression') return false;
    const callee = unwrapExpression(expr.callee);
    if (callee.type !== 'MemberExpression') return false;
    const name = getMemberName(callee);
    if (name !== 'then' && name !== 'catch' && name !== 'finally') return false;
    links++;
    expr = unwrapExpression(callee.object);
  }
  return links > 0 && isRoot(expr);
}

/** The built-in collections, whose construction runs no code of the program. */
const COLLECTIONS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet']);

/**
 * Whether evaluating an expression runs code (a call, a construction, an assignment), outside the
 * functions it creates. `isGlobal` says whether a name is the global one (`Map` not shadowed).
 */

export function runsCode(node: t.Node, isGlobal: (id: t.Identifier) => boolean = () => false): boolean {
  let found = false;
  const visit = (n: t.Node): void => {
    if (found || isFunctionNode(n)) return;
    // `new Map([['ping', onPing]])`: a built-in collection runs no code of the program (its arguments may)
    if (n.type === 'NewExpression' && n.callee.type === 'Identifier' && COLLECTIONS.has(n.callee.name) && isGlobal(n.callee)) forEachChild(n, visit);
    else if (n.type === 'CallExpression' || n.type === 'NewExpression' || n.type === 'AwaitExpression' || n.type === 'AssignmentExpression' || n.type === 'UpdateExpression' || n.type === 'TaggedTemplateExpression') found = true;
    else forEachChild(n, visit);
  };
  visit(node);
  return found;
}

/**
 * The helpers compilers wrap a `require()` in so that CommonJS reads like ES modules: tsc's
 * `__importDefault` / `__importStar`, esbuild's `__toESM`, Babel's `_interopRequireDefault` /
 * `_interopRequireWildcard`. Each returns the module itself, or an object whose `default` is the module
 * and whose other members are the module's: for what the interpreter knows of a module (a Node builtin,
 * whose `.default` is itself; a module of the program, whose `default` is its `module.exports`) the
 * call is the module it wraps.
 */
const INTEROP_HELPERS = new Set(['__importDefault', '__importStar', '__toESM', '_interopRequireDefault', '_interopRequireWildcard']);

/** The module expression an interop helper call wraps (`__importDefault(require('node:readline'))` -> the `require(...)`), or null. */
export function getInteropArgument(expr: t.CallExpression | t.OptionalCallExpression): t.Expression | null {
  const callee = unwrapExpression(expr.callee);
  const name = callee.type === 'Identifier' ? callee.name : null;
  if (name === null || !INTEROP_HELPERS.has(name)) return null;
  const first = expr.arguments[0];
  if (!first || first.type === 'SpreadElement' || first.type === 'ArgumentPlaceholder') return null;
  const inner = unwrapExpression(first);
  // only a require (or an already-wrapped one): a helper of that name around anything else is someone's own function
  if (inner.type !== 'CallExpression') return null;
  const innerCallee = unwrapExpression(inner.callee);
  if (innerCallee.type === 'Identifier' && innerCallee.name === 'require') return first as t.Expression;
  return getInteropArgument(inner) ? (first as t.Expression) : null;
}

/** Whether `call` is a statement of its own directly in the body of `fn` (run once each time `fn` runs). */
export function isStatementOfBody(mod: ModuleUnit, call: t.Node, fn: FunctionNode): boolean {
  const statement = mod.index.parent.get(call);
  return statement?.type === 'ExpressionStatement' && fn.body.type === 'BlockStatement' && mod.index.parent.get(statement) === fn.body;
}
