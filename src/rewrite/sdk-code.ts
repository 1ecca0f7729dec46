// Writes the code the SDK rewrite places, from the references detection found (model/server-model.ts):
// each reply as what its return or throw gives back, the handler every registration gets, the server's
// construction. A reference that cannot be written where it is needed is a typed refusal, and the plan
// takes the server down the chain (UNRENDERABLE_REPLY, UNSUPPORTED_INPUT_LOOP, NO_SERVER_INFO), as for
// any other reason detection gives.
// Deliberately not: finding what a reply is (../detect/server.ts), or where it goes (./sdk.ts).
import type * as t from '@babel/types';
import { forEachChild, type FunctionNode, getEnclosingFunction, getLine, isFunctionNode, isInside, isReferenceIdentifier, resolveIdentifier, resolveName, unwrapExpression } from '../analysis/ast.js';
import type { ModuleUnit } from '../analysis/program.js';
import { renderCallAt, renderFunctionRef } from '../analysis/render-call.js';
import { renderLiteral, renderNodeAt, type RenderPlace } from '../analysis/render.js';
import type { Blocker } from '../model/reasons.js';
import { getLineIndent } from './text.js';
import type { Anchor, CatchWrite, Dispatcher, KnownValue, ReplyRef, ReplySite, SdkShape, ValueRef } from '../model/server-model.js';

/** A reply as the rewrite writes it. */
export type RenderedReply =
  /** `indent`: of the line the value started on in the original; its other lines are indented from it. */
  | { kind: 'result'; value: string; indent: string }
  | { kind: 'error'; code: string | null; message: string | null; data: string | null }
  /** `error: err` where err is an Error: thrown as it is. */
  | { kind: 'error-value'; value: string }
  /**
   * `error: res.error` where the value is an error object held in a variable (object), or may be that
   * or a message string (either), or an object built where the reply is written (computed:
   * `error: makeError(...)`, evaluated once): its code, message and data are thrown as they are.
   * `code`: the code a message string gets (as for a bare `error: message`).
   */
  | { kind: 'error-held'; value: string; shape: 'object' | 'either' | 'computed'; code: string | null };

/**
 * A reply site with the reply it writes. `bypass`: an error inside a try whose catch would answer it
 * differently: `return Promise.reject(...)` instead of `throw`.
 */
export type WrittenSite = ReplySite & { reply: RenderedReply; bypass?: boolean };

/** The SDK shape with its code written: what ./sdk.ts places. */
export interface WrittenShape extends Omit<SdkShape, 'sites' | 'construct'> {
  /** Every site with its reply; a site none of whose replies could be written (only SDK-owned methods reach it) is left out. */
  sites: WrittenSite[];
  /** What every registration hands the SDK: `handleMessage`, `(request) => this.dispatch(request)`. */
  handler: string;
  /** How a notification handler calls the dispatcher (null when there is none). */
  notificationHandler: string | null;
  construct: { serverInfo: string; capabilities: string | null; capabilityKeys: string[] | null; instructions: string | null };
}

/** The code of the SDK shape, or the first reason (in the order detection met the paths) it cannot be written. */
export function renderSdkShape(shape: SdkShape): WrittenShape | { failed: Blocker } {
  // 1. Every reply: a path of a method the SDK answers itself that cannot be written is no obstacle
  const sites: WrittenSite[] = [];
  let failed: { order: number; blocker: Blocker } | null = null;
  for (const site of shape.sites) {
    let merged: RenderedReply | null = null;
    for (const { ref, owned, order } of site.replies) {
      const reply = renderReply(site, ref);
      if (typeof reply === 'string') {
        if (!owned && (failed === null || order < failed.order)) failed = { order, blocker: { code: 'UNRENDERABLE_REPLY', line: site.line, detail: reply } };
        continue;
      }
      merged = merged === null ? reply : mergeErrorReplies(merged, reply);
    }
    if (merged !== null) sites.push({ ...site, reply: merged });
  }
  if (failed !== null) return { failed: failed.blocker };
  // an error thrown inside a try whose catch answers otherwise is handed back as a rejection (on copies
  // of the calls up to it: which of them hand it back unawaited is the rewrite's, not the model's)
  const calls = new Map(shape.returnedCalls.map((c) => [c, { ...c }]));
  for (const site of sites) if (site.chain) site.chain = site.chain.map((c) => calls.get(c) ?? c);
  const live = (site: WrittenSite): boolean => [...site.methods].some((m) => shape.registrations.includes(m) || shape.customMethods.includes(m) || m === '\0any' || (shape.runtimeMethods && m === '\0other'));
  resolveCaughtErrors(sites, live, shape.catchWrites);

  // 2. The handler the registrations get, where the SDK server is created
  const { dispatcher, anchor, reads, handlerName, replaced } = shape;
  const handler = renderHandler(dispatcher, anchor, reads, handlerName, 'request', replaced);
  const notificationHandler = shape.notifications.length > 0 ? renderHandler(dispatcher, anchor, { id: false, jsonrpc: reads.jsonrpc }, handlerName, 'notification', replaced) : null;
  if (handler === null) {
    return { failed: { code: 'UNSUPPORTED_INPUT_LOOP', line: getLine(dispatcher.kind === 'function' ? dispatcher.call : dispatcher.parse), detail: 'the dispatcher call cannot be written where the SDK server is created' } };
  }

  // 3. The server's construction, from the initialize reply
  const place: RenderPlace = { mod: anchor.mod, node: anchor.statement };
  const first = (refs: ValueRef[] | null): string | null => {
    for (const ref of refs ?? []) {
      const text = renderValue(ref, place);
      if (text !== null) return text;
    }
    return null;
  };
  const serverInfo = first(shape.construct.serverInfo);
  if (serverInfo === null) return { failed: { code: 'NO_SERVER_INFO', line: getLine(anchor.statement), detail: 'the serverInfo of the initialize reply cannot be written where the SDK server is created' } };
  const construct = { serverInfo, capabilities: first(shape.construct.capabilities), capabilityKeys: shape.construct.capabilityKeys, instructions: first(shape.construct.instructions) };
  return { ...shape, sites, returnedCalls: [...calls.values()], handler, notificationHandler, construct };
}

/** An access path (`err`, `res.error`, `this.last?.error`): reading it twice reads the same value. */
const ACCESS_PATH = /^[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)*$/;

/** A reply written where its site is, or why it cannot be. */
function renderReply(site: ReplySite, ref: ReplyRef): RenderedReply | string {
  const place: RenderPlace = { mod: site.mod, node: site.statement };
  switch (ref.kind) {
    case 'result': {
      const value = renderValue(ref.value, place);
      if (value === null) return 'the result cannot be written where the reply is';
      // the indentation of the line the value starts on: its other lines are indented from there
      return { kind: 'result', value, indent: 'code' in ref.value ? getLineIndent(ref.value.code.mod.source, ref.value.code.node.start!) : '' };
    }
    case 'error-object': {
      const member = (code: typeof ref.code): string | null | false => (code === null ? null : (renderNodeAt(code.node, code.frame, place, 0, code.mod) ?? false));
      const code = member(ref.code);
      const message = member(ref.message);
      const data = member(ref.data);
      if (code === false || message === false || data === false) return 'the error cannot be written where the reply is';
      return { kind: 'error', code: ref.unknownMethod ? '-32601' : code, message, data };
    }
    case 'error-expression': {
      const text = renderNodeAt(ref.value.node, ref.value.frame, place, 0, ref.value.mod);
      if (text === null) return 'the error cannot be written where the reply is';
      // `error: err.message` in a catch: the error caught may carry the code the server meant (`throw
      // Object.assign(new Error('Unsupported method'), { code: -32601 })`), which the string dropped; the
      // SDK answer carries it, and the site's code (or the SDK's -32603) when it has none
      const caught = ref.caught !== null && text === `${ref.caught}.message` ? ref.caught : null;
      const code = caught === null ? ref.siteCode : `Number.isSafeInteger(${caught}.code) ? ${caught}.code : ${ref.siteCode ?? '-32603'}`;
      if (ref.holds === 'error') return { kind: 'error-value', value: text };
      if (ref.holds === 'string') return { kind: 'error', code, message: text, data: null };
      if (ACCESS_PATH.test(text)) return { kind: 'error-held', value: text, shape: ref.holds, code };
      // built where the reply is written (`error: makeError(ErrorCodes.InvalidParams, 'bad')`): an object
      // is copied onto the thrown error as it is computed, once; one that may also be a message string
      // would have to be looked at before it is thrown, and computed twice
      if (ref.holds !== 'object') return `the error \`${text}\` is computed where the reply is written and may be an object or a message: the dispatcher-level rewrite would compute it twice`;
      return { kind: 'error-held', value: text, shape: 'computed', code };
    }
  }
}

/** A value written at `place`: the expression that computes it, or the literal it is. */
function renderValue(ref: ValueRef, place: RenderPlace): string | null {
  if ('code' in ref) return renderNodeAt(ref.code.node, ref.code.frame, place, 0, ref.code.mod);
  return renderKnown(ref.known);
}

function renderKnown(value: KnownValue): string | null {
  if (value.k === 'lit') return renderLiteral(value.value);
  const parts: string[] = [];
  for (const [k, field] of value.fields) {
    const text = renderKnown(field);
    if (text === null) return null;
    parts.push(`${/^[A-Za-z_$][\w$]*$/.test(k) ? k : renderLiteral(k)}: ${text}`);
  }
  return parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`;
}

/**
 * One reply statement reached on several paths renders the same text, but what its error holds may
 * differ between them (a sentinel object on one path, a message string on another): the throw then
 * decides at run time. Anything else keeps the first rendering.
 */
function mergeErrorReplies(known: RenderedReply, next: RenderedReply): RenderedReply {
  const held = (r: RenderedReply): { value: string; shape: 'string' | 'error' | 'object' | 'either'; code: string | null } | null => {
    // (a computed error is not merged: it is rendered once, where it is built)
    if (r.kind === 'error-held') return r.shape === 'computed' ? null : { value: r.value, shape: r.shape, code: r.code };
    if (r.kind === 'error-value') return { value: r.value, shape: 'error', code: null };
    if (r.kind === 'error' && r.message !== null && r.data === null && ACCESS_PATH.test(r.message)) return { value: r.message, shape: 'string', code: r.code };
    return null;
  };
  const a = held(known);
  const b = held(next);
  if (!a || !b || a.value !== b.value || a.shape === b.shape || (known.kind === 'error-held' && known.shape === 'either')) return known;
  const shapes = new Set([a.shape, b.shape]);
  // an Error and a plain object both carry their code, message and data as members
  const shape = shapes.has('string') || shapes.has('either') ? 'either' : 'object';
  // the code a message string gets: from the path that may hold one
  const code = [a, b].find((r) => r.shape === 'string' || r.shape === 'either')?.code ?? null;
  return { kind: 'error-held', value: a.value, shape, code };
}

/**
 * An error reply that becomes a throw inside a `try` is caught there. When that catch answers the caught
 * error with its own code and message (or rethrows it), the answer is the same; otherwise the reply
 * becomes `return Promise.reject(...)` (a rejection the local catch never sees), and the calls on its
 * way up hand the promise back without awaiting it inside such a try.
 */
function resolveCaughtErrors(sites: WrittenSite[], live: (site: WrittenSite) => boolean, catchWrites: readonly CatchWrite[]): void {
  for (const site of sites) {
    if (site.reply.kind === 'result' || !live(site)) continue;
    if (isInsideRewritingTry(site.mod, site.statement, site.fn, sites, catchWrites)) site.bypass = true;
    for (const call of site.chain ?? []) {
      const fn = getEnclosingFunction(call.mod.index, call.statement);
      if (isInsideRewritingTry(call.mod, call.statement, fn, sites, catchWrites)) {
        site.bypass = true;
        call.dropAwait = true;
      }
    }
  }
}

/** Whether `node` sits in the block of a try (in its own function) whose catch does not pass a caught error on. */
function isInsideRewritingTry(mod: ModuleUnit, node: t.Node, fn: FunctionNode | null, sites: WrittenSite[], catchWrites: readonly CatchWrite[]): boolean {
  let child: t.Node = node;
  for (let parent = mod.index.parent.get(node); parent && parent !== fn; child = parent, parent = mod.index.parent.get(parent)) {
    if (parent.type !== 'TryStatement' || parent.block !== child || !parent.handler) continue;
    const handler = parent.handler;
    // its writes become a rethrow: the error passes on
    if (catchWrites.some((c) => c.clause === handler)) return false;
    const name = handler.param?.type === 'Identifier' ? handler.param.name : null;
    if (name === null) return true;
    const body = mod.source.slice(handler.body.start!, handler.body.end!);
    if (new RegExp(`\\bthrow\\s+${name}\\b`).test(body)) return false;
    const own = sites.filter((s) => s.mod === mod && s.statement.start! >= handler.body.start! && s.statement.end! <= handler.body.end!);
    if (own.length === 0) return true;
    const passesOn = own.every((s) => s.reply.kind === 'error' && s.reply.code !== null && new RegExp(`\\b${name}\\.code\\b`).test(s.reply.code) && s.reply.message === `${name}.message`);
    return !passesOn;
  }
  return false;
}


/** The handler every registration gets: the dispatcher, or an arrow that calls it with the request. */
function renderHandler(d: Dispatcher, anchor: Anchor, reads: { id: boolean; jsonrpc: boolean }, inlineName: string, param = 'request', replaced: readonly t.Node[] = []): string | null {
  const place = { mod: anchor.mod, node: anchor.statement };
  const wrapped = reads.id || reads.jsonrpc;
  const message = `{ ...${param}${reads.jsonrpc ? ", jsonrpc: '2.0'" : ''}${reads.id ? ', id: extra.requestId' : ''} }`;
  const params = reads.id ? `(${param}, extra)` : `(${param})`;
  if (d.kind === 'inline') return wrapped ? `${params} => ${inlineName}(${message})` : inlineName;
  const call = renderCallAt(d, place, wrapped ? message : param, (index) => isSpentReplyChannel(d, index, replaced));
  if (call === null) return null;
  // a plain function called with the message alone is handed over as it is
  const ref = renderFunctionRef(d, place);
  if (!wrapped && ref !== null && !ref.startsWith('this.') && call === `${ref}(${param})` && d.fn.params.length <= 1 && d.fn.type !== 'ArrowFunctionExpression' && !usesThis(d.fn)) {
    return ref;
  }
  return `${params} => ${call}`;
}

/**
 * The dispatcher's parameter `index` is a reply channel the rewrite spends: each of its uses is the callee
 * of a call inside a reply site that becomes a return or throw, and its argument at the call costs
 * nothing to leave out (a name, or a call of a local factory whose whole body returns a function).
 */
function isSpentReplyChannel(d: Extract<Dispatcher, { kind: 'function' }>, index: number, replaced: readonly t.Node[]): boolean {
  const param = d.fn.params[index];
  const arg = d.call.arguments[index];
  if (replaced.length === 0 || param === undefined || param.type !== 'Identifier' || arg === undefined || !isFreeToLeaveOut(d.callMod, arg)) return false;
  const binding = resolveName(d.mod.index, d.fn.body, param.name);
  if (binding === null || binding.kind !== 'param' || binding.fn !== d.fn) return false;
  const uses = d.mod.index.identifiers.filter((id) => id !== param && id.name === param.name && isReferenceIdentifier(d.mod.index, id) && resolveIdentifier(d.mod.index, id) === binding);
  return uses.length > 0 && uses.every((id) => {
    const call = d.mod.index.parent.get(id);
    return call?.type === 'CallExpression' && call.callee === id && replaced.some((site) => site === call || isInside(d.mod.index, call, site));
  });
}

function isFreeToLeaveOut(mod: ModuleUnit, arg: t.Node): boolean {
  const node = unwrapExpression(arg);
  if (node.type === 'Identifier' || node.type === 'ArrowFunctionExpression' || node.type === 'FunctionExpression') return true;
  if (node.type !== 'CallExpression' || node.callee.type !== 'Identifier') return false;
  const binding = resolveIdentifier(mod.index, node.callee);
  const fn = binding?.kind === 'function' ? binding.fn : binding?.kind === 'const' && binding.declarator.init && isFunctionNode(binding.declarator.init) ? binding.declarator.init : null;
  if (fn === null || !node.arguments.every((a) => { const v = unwrapExpression(a); return v.type === 'Identifier' || ((v.type === 'MemberExpression') && !v.computed); })) return false;
  // the factory's whole body is `return <function>` (or an arrow whose body is a function)
  const body = fn.body.type === 'BlockStatement' ? (fn.body.body.length === 1 && fn.body.body[0]!.type === 'ReturnStatement' ? fn.body.body[0]!.argument : null) : fn.body;
  return body !== null && body !== undefined && isFunctionNode(unwrapExpression(body));
}

function usesThis(fn: FunctionNode): boolean {
  let found = false;
  const stack: t.Node[] = [fn.body];
  while (stack.length > 0 && !found) {
    const node = stack.pop()!;
    if (node.type === 'ThisExpression') found = true;
    if (isFunctionNode(node) && node.type !== 'ArrowFunctionExpression') continue;
    forEachChild(node, (child) => stack.push(child));
  }
  return found;
}
