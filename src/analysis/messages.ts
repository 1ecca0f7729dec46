// The messages of a file, read off the interpreted paths: for each path that parsed an incoming
// message, which method and which kind of message it was (the constraints the dispatch put on it), and
// what it wrote (replies, other JSON, text). Read by detection and by the audit alike.
// READ-ONLY: no decisions here.
import type * as t from '@babel/types';
import type { FunctionNode } from './ast.js';
import type { FileFacts } from './facts.js';
import type { ModuleUnit } from './program.js';
import type { Event, PathResult, WriteData } from './interp.js';
import type { Frame } from './values.js';

/** One path of a parsed message, with what it wrote. */
export interface MessagePath {
  path: PathResult;
  events: Event[];
  parseIndex: number;
  parseFrame: Frame;
  /** The method this path is for, `null` for a method none of the dispatch's names matched. */
  method: string | null;
  /** The dispatch never looked at the method on this path. */
  methodFree: boolean;
  notification: boolean;
  replies: { index: number; event: Extract<Event, { e: 'write' }>; kind: 'result' | 'error' }[];
  otherJson: Extract<Event, { e: 'write' }>[];
}


export function collectMessagePaths(facts: FileFacts): MessagePath[] {
  const out: MessagePath[] = [];
  for (const path of facts.paths) {
    const events = path.state.events;
    const parseIndex = events.findIndex((e) => e.e === 'parse' && e.ok);
    if (parseIndex === -1) continue;
    const cons = path.state.cons;
    // a message the SDK never delivers: bad jsonrpc, a method that is not a string
    const jsonrpc = cons.get('jsonrpc');
    if (jsonrpc && ((jsonrpc.eq !== undefined && jsonrpc.eq !== '2.0') || jsonrpc.neq.includes('2.0') || jsonrpc.defined === false)) continue;
    const method = cons.get('method');
    if (method?.defined === false) continue;
    const id = cons.get('id');
    const replies: MessagePath['replies'] = [];
    const otherJson: MessagePath['otherJson'] = [];
    events.forEach((e, index) => {
      if (index < parseIndex || e.e !== 'write' || e.data.kind !== 'json') return;
      const kind = getReplyKind(facts, path, e);
      if (kind) replies.push({ index, event: e, kind });
      else otherJson.push(e);
    });
    out.push({
      path,
      events,
      parseIndex,
      parseFrame: (events[parseIndex] as Extract<Event, { e: 'parse' }>).frame,
      method: method?.eq !== undefined ? String(method.eq) : null,
      methodFree: method === undefined || (method.eq === undefined && method.neq.length === 0 && method.prefixes.length === 0),
      // no id; or an MCP notification method the path never asked the id of (those never carry one)
      notification: id?.defined === false || (id?.defined !== true && typeof method?.eq === 'string' && method.eq.startsWith('notifications/')),
      replies,
      otherJson,
    });
  }
  return out;
}

export function getReplyKind(facts: FileFacts, path: PathResult, e: Extract<Event, { e: 'write' }>): 'result' | 'error' | null {
  const value = (e.data as Extract<WriteData, { kind: 'json' }>).value;
  const fields = value.k === 'obj' ? facts.interp.getFields(value, path.state, e.frame) : null;
  if (!fields) return null;
  if (fields.has('method') && !fields.has('result') && !fields.has('error')) return null;
  if (fields.has('error')) {
    const error = fields.get('error')!;
    // `error: undefined` next to a result (a helper that spreads both)
    if (!(error.k === 'lit' && (error.value === undefined || error.value === null)) || !fields.has('result')) return 'error';
  }
  if (fields.has('result')) return 'result';
  return null;
}

export function isWithinFrame(frame: Frame | null, outer: Frame): boolean {
  for (let f = frame; f; f = f.caller) if (f === outer) return true;
  return false;
}

/**
 * Writer helpers: functions that, on every path that runs them, write exactly one JSON message and do
 * nothing else (`send(msg)`, `respond(id, result)`). A call is a helper call when it always calls the
 * same helper: a handler looked up in a table that happens to only write is not one.
 */
export function findWriterHelpers(facts: FileFacts, paths: MessagePath[]): (frame: Frame) => boolean {
  const candidates = new Set<FunctionNode>();
  const rejected = new Set<FunctionNode>();
  const callees = new Map<t.Node, Set<FunctionNode>>();
  for (const p of paths) {
    p.events.forEach((e, i) => {
      if (i < p.parseIndex || e.e !== 'enter' || !e.frame.fn || !e.frame.call) return;
      const set = callees.get(e.frame.call) ?? new Set();
      set.add(e.frame.fn);
      callees.set(e.frame.call, set);
      if (writesOneMessage(facts, p.events, i, e.frame)) candidates.add(e.frame.fn);
      else rejected.add(e.frame.fn);
    });
  }
  return (frame) => frame.fn !== null && frame.call !== null && candidates.has(frame.fn) && !rejected.has(frame.fn) && callees.get(frame.call)?.size === 1;
}

/**
 * Between its enter and leave, the frame writes one JSON text (and its framing) and does nothing else
 * but log to stderr (`console.error('send', json)`, `debug(...)` of a function that only logs): the
 * SDK rewrite removes such a helper, and names the logging it drops.
 */
function writesOneMessage(facts: FileFacts, events: Event[], start: number, frame: Frame): boolean {
  let json = 0;
  for (let i = start + 1; i < events.length; i++) {
    const e = events[i]!;
    if (e.e === 'leave' && e.frame === frame) return json === 1;
    if (e.e === 'enter' || e.e === 'leave' || e.e === 'construct' || e.e === 'branch' || e.e === 'log') continue;
    if (e.e === 'effect' && e.what === 'call' && isLoggingHelperCall(facts, e.frame.mod, e.node)) continue;
    if (e.e === 'write' && (e.data.kind === 'newline' || e.data.kind === 'header')) continue;
    if (e.e === 'write' && e.data.kind === 'json') {
      json++;
      continue;
    }
    return false;
  }
  return json === 1;
}

/** `log('ready')`, `logger.debug(...)`: a call of the program's own function that can only write to stderr. */
export function isLoggingHelperCall(facts: FileFacts, mod: ModuleUnit, node: t.Node): boolean {
  if (node.type !== 'CallExpression') return false;
  const target = facts.interp.evalStatic(node.callee, mod);
  return target.k === 'func' && facts.interp.onlyLogs(target.fn);
}
