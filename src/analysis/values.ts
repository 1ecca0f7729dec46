// The abstract values the interpreter computes. A value says what an expression is known to be
// (a stdout stream, a user function, the incoming message, a string constant, ...) and, where it was
// computed from source, `origin`: the node and the frame that produced it (the rewrite renders values
// back into code from there). Deliberately plain data: no evaluation logic lives here.
import type * as t from '@babel/types';
import type { FunctionNode } from './ast.js';
import type { ModuleUnit } from './program.js';

export type Lit = string | number | boolean | null | undefined;

export type ClassNode = t.ClassDeclaration | t.ClassExpression;

/** One activation of a function (or of a module's top level) on an interpreted path. */
export interface Frame {
  id: number;
  fn: FunctionNode | null;
  mod: ModuleUnit;
  thisVal: Val | undefined;
  /** The call that started this frame (null for a root). */
  call: t.CallExpression | t.NewExpression | null;
  /** The frame that made the call. */
  caller: Frame | null;
  /** The arguments the frame was called with (what its parameters hold). */
  args?: Val[];
  /** Called by a built-in that drops its value (a listener run by `emit()`): `call` does not return what it returns. */
  indirect?: boolean;
  /** A callback chained onto a promise queue (`queue = queue.then(() => handle(line))`): messages are handled one at a time. */
  queued?: boolean;
}

/** Where a value was computed: a node evaluated in a frame. */
export interface Origin {
  node: t.Node;
  frame: Frame | null;
}

/** Names of the message members the interpreter tracks symbolically (`msg.method`, `msg.params.name`, ...). */
export type SymKey = string;

export type Val =
  /**
   * `fromMethod`: a string computed from the message method (`'handle_' + method`). `head`: the literal
   * start of a string built from unknown parts (`'Content-Length: ' + n`, `` `Content-Length: ${n}` ``).
   */
  | { k: 'unknown'; origin?: Origin; fromMethod?: boolean; head?: string }
  | { k: 'lit'; value: Lit; origin?: Origin }
  /** A global object or function: process, console, JSON, Object, Buffer, Promise, Error, Map, Math, ... */
  | { k: 'global'; name: string; origin?: Origin }
  /** A built-in function with its receiver: 'console.log', 'stream.write', 'fs.writeSync', 'map.get', ... */
  | { k: 'native'; name: string; self?: Val; origin?: Origin }
  /** A Node built-in module namespace ('readline', 'fs', 'process', 'events', ...). */
  | { k: 'builtin'; name: string; origin?: Origin }
  | { k: 'stream'; fd: 0 | 1 | 2; origin?: Origin }
  | { k: 'readline'; input: Val; origin?: Origin }
  | { k: 'func'; fn: FunctionNode; mod: ModuleUnit; thisVal?: Val; bound?: Val[]; origin?: Origin }
  | { k: 'class'; node: ClassNode; mod: ModuleUnit; origin?: Origin }
  | { k: 'inst'; cls: ClassNode; mod: ModuleUnit; cell: number; site: NewSite | null; origin?: Origin }
  /** An object: static (`node` in `mod`, fields read from the literal) or built on the path (`cell`). */
  | { k: 'obj'; cell: number; node?: t.ObjectExpression; mod?: ModuleUnit; origin?: Origin }
  | { k: 'arr'; items: Val[] | null; origin?: Origin }
  | { k: 'map'; entries: Map<string, Val> | null; origin?: Origin }
  /** A TypeScript enum: its members with a literal value (`enum Method { List = 'tools/list' }`). */
  | { k: 'enum'; node: t.TSEnumDeclaration; origin?: Origin }
  /** The namespace (exports) of a module of the program. */
  | { k: 'ns'; mod: ModuleUnit; origin?: Origin }
  /** Text read from stdin (a chunk, a line, a frame body). */
  | { k: 'text'; origin?: Origin }
  /** The incoming message, as `JSON.parse` returned it. */
  | { k: 'msg'; origin?: Origin }
  /** A member of the message (`method`, `id`, `params`, `params.name`): constraints live on the path. */
  | { k: 'sym'; key: SymKey; origin?: Origin }
  /** What `JSON.stringify(value)` returns, with the text around it (`+ '\n'`). */
  | { k: 'json'; value: Val; suffix: string; header: boolean; origin?: Origin }
  /** `queue`: the promise a queue binding holds (every write chains onto it), see Frame.queued. */
  | { k: 'promise'; value: Val; rejected?: boolean; queue?: boolean; origin?: Origin }
  /** `new Error(message)` or an instance of a subclass: an object with `message` (in `cell`). */
  | { k: 'error'; cell: number; origin?: Origin }
  /** A test of a message member kept in a variable (`const isNotification = msg.id === undefined`): tested again where it is used. */
  | { k: 'pred'; node: t.Node; frame: Frame; origin?: Origin };

export interface NewSite {
  node: t.NewExpression | t.CallExpression | null;
  args: Val[];
}

export const UNKNOWN: Val = { k: 'unknown' };
export const FROM_METHOD: Val = { k: 'unknown', fromMethod: true };

/** A value computed from the message method without knowing which method it is. */
export function isFromMethod(value: Val): boolean {
  return (value.k === 'unknown' && value.fromMethod === true) || (value.k === 'sym' && value.key === 'method');
}
export const UNDEFINED: Val = { k: 'lit', value: undefined };

export function lit(value: Lit, origin?: Origin): Val {
  return origin ? { k: 'lit', value, origin } : { k: 'lit', value };
}

export function withOrigin(value: Val, origin: Origin): Val {
  if (value.origin) return value;
  return { ...value, origin } as Val;
}

/** Message members that carry the message's identity or routing (depth ≤ 1): functions receiving them may dispatch. */
export function isShallowMessageValue(value: Val): boolean {
  if (value.k === 'msg' || value.k === 'text') return true;
  return value.k === 'sym' && !value.key.includes('.');
}

/** What the path knows about one message member. */
export interface Constraint {
  eq?: Lit;
  neq: Lit[];
  /** Prefixes the string is known to start with (true) or not (false). */
  prefixes: [string, boolean][];
  /** Whether the member is present (not undefined). */
  defined?: boolean;
}

export function describeVal(value: Val): string {
  switch (value.k) {
    case 'lit':
      return JSON.stringify(value.value) ?? 'undefined';
    case 'sym':
      return `msg.${value.key}`;
    case 'native':
    case 'global':
    case 'builtin':
      return value.name;
    case 'stream':
      return `fd ${value.fd}`;
    default:
      return value.k;
  }
}
