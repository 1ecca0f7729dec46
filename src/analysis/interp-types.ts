// The interpreter's path model: the state one path carries (environment, heap, constraints, events),
// the events it records, and how a statement or a call completes.
import type * as t from '@babel/types';
import { type Binding, type FunctionNode } from './ast.js';
import { type Constraint, type Frame, type SymKey, type Val } from './values.js';

export type Channel = 'stdout.write' | 'console' | 'writeSync';

/** What one write to stdout carries. */
export type WriteData =
  | { kind: 'json'; value: Val; framing: 'ndjson' | 'content-length' | 'bare' }
  | { kind: 'newline' }
  | { kind: 'header' }
  | { kind: 'text' };

export type Event =
  | { e: 'write'; call: t.CallExpression; frame: Frame; channel: Channel; data: WriteData }
  | { e: 'log'; node: t.Node; frame: Frame }
  | { e: 'effect'; node: t.Node; frame: Frame; what: 'call' | 'assign' | 'exit' | 'callback' }
  | { e: 'parse'; call: t.CallExpression; frame: Frame; ok: boolean }
  | { e: 'enter'; frame: Frame; args: Val[] }
  | { e: 'leave'; frame: Frame; how: 'return' | 'throw'; node: t.Node | null }
  | { e: 'construct'; node: t.ObjectExpression; frame: Frame }
  | { e: 'computed-key'; node: t.Node; frame: Frame }
  | { e: 'runtime-table'; node: t.Node; frame: Frame }
  | { e: 'branch'; node: t.IfStatement; truth: boolean }
  | { e: 'incomplete'; node: t.Node; why: string };

export type Completion =
  | { type: 'normal' }
  | { type: 'return'; value: Val; node: t.Node | null }
  | { type: 'throw'; value: Val; node: t.Node | null }
  | { type: 'break'; label: string | null }
  | { type: 'continue'; label: string | null }
  | { type: 'exit' };

export interface PathState {
  env: Map<Binding, Val>;
  heap: Map<number, Map<string, Val>>;
  owned: Set<number>;
  cons: Map<SymKey, Constraint>;
  events: Event[];
  /** The incoming message has been parsed on this path (later JSON.parse calls parse other things). */
  parsed: boolean;
  /** Functions on the current call stack (no recursion). */
  active: Set<FunctionNode>;
  /** Values of calls inside a larger expression, evaluated (and followed) before it: node -> frame id -> value. */
  pre: Map<t.Node, { frame: number; v: Val }>;
}

export interface PathResult {
  state: PathState;
  completion: Completion;
}

export type Outcome = { s: PathState; v: Val } | { s: PathState; thrown: Val; node: t.Node | null };
export type Res = { s: PathState; c: Completion };
