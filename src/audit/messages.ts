// The JSON-RPC messages a file writes: each object literal that reaches a stdout write, once per
// way it gets there, with the members it has.
//   function reply(id, result) { send({ jsonrpc: '2.0', id, result }) }
//   reply(msg.id, {...})        -> one instance of the literal, where `id` reads `msg.id`
//   reply(null, {...})          -> another, where `id` reads `null`
import type * as t from '@babel/types';
import { type AstIndex, type FunctionNode, getEnclosingFunction, getStaticKey, resolveIdentifier, unwrapExpression } from '../analysis/ast.js';
import { EMPTY_ENV, type Env, type Flow, type Frame, MAX_CALLERS } from './flow.js';
import type { StdoutWrite } from './sinks.js';

export interface MessageMember {
  key: string;
  value: t.Node;
  env: Env;
}

export interface MessageInstance {
  object: t.ObjectExpression;
  env: Env;
  /** The literal, then the calls it travelled through on its way to stdout (innermost first). */
  chain: t.Node[];
  members: Map<string, MessageMember>;
  /** A spread we could not follow: members may be missing from `members`. */
  open: boolean;
  write: StdoutWrite;
}

const MAX_INSTANCES = 400;

/** Every message instance written by the file's stdout writes. */
export function findMessages(index: AstIndex, flow: Flow, writes: StdoutWrite[]): MessageInstance[] {
  const out: MessageInstance[] = [];
  const seen = new Set<string>();
  for (const write of writes) {
    if (write.payload.kind !== 'message') continue;
    const values = flow.getValues(write.payload.message, EMPTY_ENV, { split: true, followCalls: true, expandCallers: false }, [write.call]);
    for (const value of values) {
      if (value.node.type !== 'ObjectExpression') continue;
      for (const instance of expandInstances(index, flow, value.node, value.env, [value.node, ...value.via.slice().reverse()], write)) {
        const key = `${instance.object.start}|${instance.chain.map((n) => n.start).join(',')}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(instance);
        if (out.length >= MAX_INSTANCES) return out;
      }
    }
  }
  return out;
}

/**
 * A literal inside a function that reads that function's parameters is one message per call site:
 * `{ jsonrpc, id, error: { code, message } }` in `fail(id, code, message)` is expanded over `fail(...)` calls,
 * and again over the callers of the function that makes that call when its arguments read its own parameters.
 */
function expandInstances(index: AstIndex, flow: Flow, object: t.ObjectExpression, env: Env, chain: t.Node[], write: StdoutWrite): MessageInstance[] {
  const fn = getEnclosingFunction(index, object);
  if (!fn || env.has(fn) || !readsParamsOf(index, [object], fn)) return [buildInstance(flow, object, env, chain, write)];
  const frames = expandFrames(index, flow, fn, 0);
  if (frames.length === 0) return [buildInstance(flow, object, env, chain, write)];
  return frames.map(({ frame, calls }) => {
    const inner = new Map(env);
    if (frame) inner.set(fn, frame);
    return buildInstance(flow, object, inner, [...chain, ...calls], write);
  });
}

/** One frame per way `fn` is entered (null: from outside this file), with the calls on the way. */
function expandFrames(index: AstIndex, flow: Flow, fn: FunctionNode, depth: number): { frame: Frame | null; calls: t.Node[] }[] {
  const sites = flow.getCallSites(fn);
  if (sites.calls.length === 0 || sites.calls.length > MAX_CALLERS) return [];
  const out: { frame: Frame | null; calls: t.Node[] }[] = [];
  for (const call of sites.calls) {
    const caller = getEnclosingFunction(index, call);
    const nested = caller && depth < 2 && readsParamsOf(index, call.arguments, caller) ? expandFrames(index, flow, caller, depth + 1) : [];
    if (nested.length === 0) {
      out.push({ frame: { call, env: EMPTY_ENV }, calls: [call] });
      continue;
    }
    for (const outer of nested.slice(0, MAX_CALLERS)) {
      const callerEnv = new Map<FunctionNode, Frame>();
      if (outer.frame) callerEnv.set(caller!, outer.frame);
      out.push({ frame: { call, env: callerEnv }, calls: [call, ...outer.calls] });
    }
  }
  if (sites.escapes) out.push({ frame: null, calls: [] });
  return out;
}

function readsParamsOf(index: AstIndex, roots: readonly t.Node[], fn: FunctionNode): boolean {
  const stack: t.Node[] = [...roots];
  while (stack.length > 0) {
    const node = unwrapExpression(stack.pop()!);
    if (node.type === 'Identifier') {
      const binding = resolveIdentifier(index, node);
      if (binding?.kind === 'param' && binding.fn === fn) return true;
      continue;
    }
    if (node.type === 'ObjectExpression') {
      for (const prop of node.properties) {
        if (prop.type === 'ObjectProperty') stack.push(prop.value);
        else if (prop.type === 'SpreadElement') stack.push(prop.argument);
      }
    }
  }
  return false;
}

function buildInstance(flow: Flow, object: t.ObjectExpression, env: Env, chain: t.Node[], write: StdoutWrite): MessageInstance {
  const members = new Map<string, MessageMember>();
  let open = false;
  const addMembers = (literal: t.ObjectExpression, literalEnv: Env, depth: number): void => {
    for (const prop of literal.properties) {
      if (prop.type === 'ObjectProperty') {
        const key = getStaticKey(prop);
        if (key === null) open = true;
        else members.set(key, { key, value: prop.value, env: literalEnv });
      } else if (prop.type === 'ObjectMethod') {
        const key = getStaticKey(prop);
        if (key === null) open = true;
        else members.set(key, { key, value: prop, env: literalEnv });
      } else {
        const values = depth > 3 ? [] : flow.getValues(prop.argument, literalEnv, { split: true, followCalls: true, expandCallers: false });
        if (values.length === 0) open = true;
        for (const value of values) {
          if (value.node.type === 'ObjectExpression') addMembers(value.node, value.env, depth + 1);
          else open = true;
        }
      }
    }
  };
  addMembers(object, env, 0);
  return { object, env, chain, members, open, write };
}

/** A reply: has an `id` and a `result` or an `error`. */
export function isReply(message: MessageInstance): boolean {
  return message.members.has('id') && (message.members.has('result') || message.members.has('error'));
}
