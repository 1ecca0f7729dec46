// One reply site of the SDK shape (./sdk-shape.ts): where a path's reply is written, the statement that
// becomes its return or throw, and what the reply is (references to the program's code), or why none can.
import { t } from '../babel.js';
import { type FunctionNode, getEnclosingFunction, getLine, getMemberName, isFunctionNode, resolveIdentifier, unwrapExpression } from '../analysis/ast.js';
import { type FileFacts } from '../analysis/facts.js';
import { type Event, type WriteData } from '../analysis/interp.js';
import { isWithinFrame, type MessagePath } from '../analysis/messages.js';
import type { ModuleUnit } from '../analysis/program.js';
import { getFieldNode, resolveExpr, sketchString } from '../analysis/render.js';
import { type Frame, type Val } from '../analysis/values.js';
import { UNKNOWN_METHOD_MESSAGE } from '../model/mcp-methods.js';
import type { BlockerReason } from '../model/reasons.js';
import { isDeadStore } from './initialize.js';
import { getNoReplyReason } from './sdk-owned.js';
import type { CodeRef, Dispatcher, ReplyRef, ReplySite, ReturnedCall, ValueRef } from '../model/server-model.js';


export function analyseSite(
  facts: FileFacts,
  p: MessagePath,
  reply: MessagePath['replies'][number],
  dFrame: Frame,
  dispatcher: Dispatcher,
  returnedCalls: Map<t.Node, ReturnedCall>,
  helpers: (frame: Frame) => boolean,
  block: (code: BlockerReason, node: t.Node | null, detail: string) => void,
): ReplySite | null {
  const write = reply.event;
  const events = p.events;
  const value = (write.data as Extract<WriteData, { kind: 'json' }>).value;
  let origin = value.origin;
  // a reply built and returned out of the dispatcher, written by the loop (`out(await handle(msg))`)
  const returned = !isWithinFrame(write.frame, dFrame) && origin?.frame && origin.node.type === 'ObjectExpression' && isWithinFrame(origin.frame, dFrame);
  // frames from the write (or from where the returned reply was built) up to the dispatcher
  const chain: Frame[] = [];
  for (let f: Frame | null = returned ? origin!.frame : write.frame; f && f !== dFrame.caller; f = f.caller) chain.push(f);
  if (chain[chain.length - 1] !== dFrame) return null;
  // the writer helpers: frames that do nothing but this write
  let m = 0;
  while (!returned && m < chain.length - 1 && helpers(chain[m]!)) m++;
  const siteFrame = chain[m]!;
  const siteCall: t.Node = returned ? origin!.node : m === 0 ? write.call : (chain[m - 1]!.call as t.CallExpression);
  if (!siteFrame.fn && dispatcher.kind === 'function') return null;
  const mod = siteFrame.mod;
  if (value.k !== 'obj') {
    block('UNKNOWN_REPLY_SHAPE', siteCall, 'the reply written is not an object literal');
    return null;
  }
  const fields = facts.interp.getFields(value, p.path.state, write.frame)!;
  // a helper that spreads the object it was handed (`answer(msg) { write({ jsonrpc: '2.0', ...msg }) }`):
  // the reply was built where that object was
  if (!returned && m > 0 && origin?.frame && chain.slice(0, m).includes(origin.frame)) {
    const handed = (chain[m - 1]!.args ?? []).find((a) => {
      if (a.k !== 'obj' || a.origin?.frame !== siteFrame || a.origin.node.type !== 'ObjectExpression') return false;
      const own = facts.interp.getFields(a, p.path.state, siteFrame);
      return own !== null && (own.has('result') || own.has('error'));
    });
    if (handed?.origin) origin = handed.origin;
  }

  // where the reply object was built: at the site call (or in a helper), or earlier in the site frame
  let kind: ReplySite['kind'] = 'direct';
  let form: ReplySite['form'] = 'statement';
  let statement: t.Node | null = returned ? getReturnOf(mod, origin!.node) : getStatementOf(mod, siteCall);
  let writeStatement: t.Statement | null = null;
  let windowStart = returned
    ? lastIndexBefore(events, reply.index, (e) => e.e === 'construct' && e.node === origin!.node)
    : m === 0
      ? reply.index
      : events.findIndex((e) => e.e === 'enter' && e.frame === chain[m - 1]);
  if (!returned && origin && origin.frame === siteFrame && origin.node.type === 'ObjectExpression' && !contains(siteCall, origin.node)) {
    kind = 'constructed';
    writeStatement = statement as t.Statement | null;
    statement = getConstructionStatement(mod, origin.node);
    windowStart = lastIndexBefore(events, reply.index, (e) => e.e === 'construct' && e.node === origin.node && e.frame === siteFrame);
    if (!statement || windowStart === -1) {
      block('UNKNOWN_REPLY_SHAPE', origin.node, 'the reply object is built where it cannot become a return');
      return null;
    }
  } else if (!returned && origin && origin.frame && origin.frame !== siteFrame && !chain.slice(0, m).includes(origin.frame)) {
    block('UNKNOWN_REPLY_SHAPE', siteCall, 'the reply object is built outside the function that writes it');
    return null;
  }
  if (!statement) {
    // `(result) => this.send({ id, result })`: the arrow's body is the reply
    const arrow = getArrowWithBody(mod, siteCall);
    if (arrow) {
      statement = returned ? origin!.node : siteCall;
      form = 'arrow-body';
    }
  }
  if (!statement) {
    block('REPLY_NOT_STATEMENT', siteCall, 'a reply is written inside an expression');
    return null;
  }
  if (isInsideCallback(mod, statement, siteFrame.fn)) {
    block('REPLY_IN_CALLBACK', siteCall, 'a reply is written from a callback');
    return null;
  }

  // nothing with effects may run between the reply and the end of the dispatcher
  const leave = events.findIndex((e, i) => i > reply.index && e.e === 'leave' && e.frame === dFrame);
  const end = leave === -1 ? events.length : leave;
  for (let i = windowStart + 1; i < end; i++) {
    const e = events[i]!;
    if (i === reply.index) continue;
    // a second reply to the same request: clients never see it
    if (e.e === 'write' && p.replies.some((r) => r.index === i)) continue;
    // the writer helpers' own logging goes with them (named in the header as dropped)
    if (m > 0 && (e.e === 'log' || e.e === 'effect') && isWithinFrame(e.frame, chain[m - 1]!)) continue;
    if ((e.e === 'effect' && !isDeadStore(facts, e)) || e.e === 'log' || (e.e === 'write' && e.data.kind !== 'newline' && e.data.kind !== 'header')) {
      block('EFFECTS_AFTER_REPLY', e.e === 'write' ? e.call : e.node, 'code with side effects runs after the reply is written');
      return null;
    }
  }

  // what the reply is, as written (following helper parameters back to the site): the rewrite writes it
  // where the site is (rewrite/sdk-code.ts), and refuses what cannot be written there
  const root = origin && origin.node.type === 'ObjectExpression' ? { node: origin.node, frame: origin.frame, mod: origin.frame?.mod ?? mod } : null;
  let ref: ReplyRef;
  if (reply.kind === 'result') {
    const found = root ? getFieldNode(root.node, root.frame, root.mod, 'result') : null;
    // a member set after the literal (`const msg = { jsonrpc, id }; msg.result = result`): from its value
    const value = root && !found && fields.has('result') ? fields.get('result')! : null;
    const written: ValueRef | null = found ? { code: found } : value ? toValueRef(value, mod) : null;
    if (written === null) {
      block('UNRENDERABLE_REPLY', siteCall, 'the result cannot be written where the reply is');
      return null;
    }
    ref = { kind: 'result', value: written };
  } else {
    const error = fields.get('error')!;
    let errorNode = root ? getFieldNode(root.node, root.frame, root.mod, 'error') : null;
    if (!errorNode && error.origin) errorNode = { node: error.origin.node, frame: error.origin.frame, mod: error.origin.frame?.mod ?? mod };
    const resolved = errorNode ? resolveExpr(errorNode.node, errorNode.frame, errorNode.mod) : null;
    if (resolved && resolved.node.type === 'ObjectExpression') {
      const member = (name: string): CodeRef | null => getFieldNode(resolved.node, resolved.frame, resolved.mod, name);
      const code = member('code');
      const message = member('message');
      // no code, and a message that says the method is unknown: JSON-RPC's code for it
      const unknownMethod = code === null && message !== null && p.method === null && UNKNOWN_METHOD_MESSAGE.test(sketchString(resolveExpr(message.node, message.frame, message.mod).node));
      ref = { kind: 'error-object', code, message, data: member('data'), unknownMethod };
    } else {
      // `error: 'Method not found'`, `error: err.message` (a string where an object belongs) or an Error
      if (errorNode === null) {
        block('UNRENDERABLE_REPLY', siteCall, 'the error cannot be written where the reply is');
        return null;
      }
      // a bare message for a tool the server does not know gets MCP's code for it (-32602), others -32603
      // (and a bare message that says the method is unknown, on a path for no method the dispatch knows, -32601)
      const saysUnknown = p.method === null && UNKNOWN_METHOD_MESSAGE.test(sketchString(resolveExpr(errorNode.node, errorNode.frame, errorNode.mod).node));
      const siteCode = getNoReplyReason(p) === 'unknown-tool' ? '-32602' : saysUnknown ? '-32601' : null;
      // (a factory the interpreter did not enter: what its returns say)
      const holds = error.k === 'unknown' && returnsOnlyObjects(facts, errorNode.node, errorNode.mod) ? 'object' : getErrorHolding(error);
      ref = { kind: 'error-expression', value: errorNode, holds, siteCode, caught: getCaughtErrorName(errorNode) };
    }
  }

  // calls between the dispatcher and the site frame must hand the result back
  const chainCalls: ReturnedCall[] = [];
  for (let i = m; i < chain.length - 1; i++) {
    const call = chain[i]!.call;
    if (!call || call.type !== 'CallExpression') return null;
    if (chain[i]!.indirect) {
      block('REPLY_IN_CALLBACK', call, 'the function that answers runs as an event listener: emit() does not return what it returns');
      return null;
    }
    const callerMod = chain[i + 1]!.mod;
    const callStatement = getStatementOf(callerMod, call);
    if (!callStatement) {
      block('REPLY_NOT_STATEMENT', call, 'the function that answers is called inside an expression');
      return null;
    }
    if (!returnedCalls.has(call)) returnedCalls.set(call, { call, statement: callStatement, mod: callerMod, dropAwait: false });
    chainCalls.push(returnedCalls.get(call)!);
  }

  const unreachable = form === 'statement' ? getFollowingExits(mod, statement as t.Statement) : [];
  const site: ReplySite = {
    kind,
    form,
    statement,
    writeStatement,
    mod,
    fn: siteFrame.fn,
    replies: [{ ref, owned: false, order: 0 }],
    methods: new Set([p.method ?? (p.methodFree ? '\0any' : '\0other')]),
    unreachableAfter: unreachable,
    line: getLine(siteCall),
  };
  site.chain = chainCalls;
  return site;
}

function lastIndexBefore(events: Event[], before: number, test: (e: Event) => boolean): number {
  for (let i = before - 1; i >= 0; i--) if (test(events[i]!)) return i;
  return -1;
}

/** The statement a reply call stands for: `send(x);`, `await send(x);`, `return send(x);`, `void send(x);`. */
export function getStatementOf(mod: ModuleUnit, call: t.Node): t.Statement | null {
  let node: t.Node = call;
  let parent = mod.index.parent.get(node);
  while (parent && (parent.type === 'AwaitExpression' || parent.type === 'ParenthesizedExpression' || (parent.type === 'UnaryExpression' && parent.operator === 'void') || parent.type === 'TSAsExpression' || parent.type === 'TSNonNullExpression')) {
    node = parent;
    parent = mod.index.parent.get(node);
  }
  if (!parent) return null;
  if (parent.type === 'ExpressionStatement' && parent.expression === node) return parent;
  if (parent.type === 'ReturnStatement' && parent.argument === node) return parent;
  return null;
}

/** The nearest statement holding a node (`msg = JSON.parse(line);`, `const msg = JSON.parse(line);`). */
export function getEnclosingStatement(mod: ModuleUnit, node: t.Node): t.Statement | null {
  for (let current: t.Node | undefined = node; current; current = mod.index.parent.get(current)) {
    if (isFunctionNode(current)) return null;
    if (t.isStatement(current)) return current;
  }
  return null;
}

/** `return { id, result }` holding a reply object. */
function getReturnOf(mod: ModuleUnit, object: t.Node): t.Statement | null {
  let current = object;
  let parent = mod.index.parent.get(current);
  while (parent && (parent.type === 'ParenthesizedExpression' || parent.type === 'TSAsExpression')) {
    current = parent;
    parent = mod.index.parent.get(current);
  }
  return parent?.type === 'ReturnStatement' && parent.argument === current ? parent : null;
}

/** The arrow function whose expression body is `node` (through parentheses, `await` and casts), or null. */
function getArrowWithBody(mod: ModuleUnit, node: t.Node): t.ArrowFunctionExpression | null {
  let current = node;
  let parent = mod.index.parent.get(current);
  while (parent && (parent.type === 'ParenthesizedExpression' || parent.type === 'AwaitExpression' || parent.type === 'TSAsExpression')) {
    current = parent;
    parent = mod.index.parent.get(current);
  }
  return parent?.type === 'ArrowFunctionExpression' && parent.body === current ? parent : null;
}

/** `response = {...};` or `const response = {...};` holding the reply object. */
function getConstructionStatement(mod: ModuleUnit, object: t.ObjectExpression): t.Statement | null {
  const parent = mod.index.parent.get(object);
  if (parent?.type === 'AssignmentExpression' && parent.right === object && parent.operator === '=') {
    const holder = mod.index.parent.get(parent);
    if (holder?.type === 'ExpressionStatement') return holder;
  }
  if (parent?.type === 'VariableDeclarator' && parent.init === object) {
    const declaration = mod.index.parent.get(parent);
    if (declaration?.type === 'VariableDeclaration' && declaration.declarations.length === 1) return declaration;
  }
  return null;
}

function contains(outer: t.Node, inner: t.Node): boolean {
  return inner.start! >= outer.start! && inner.end! <= outer.end!;
}

/** A reply inside a nested function of the site frame (a `.then` or timer callback). */
function isInsideCallback(mod: ModuleUnit, statement: t.Node, fn: FunctionNode | null): boolean {
  let current = mod.index.parent.get(statement);
  while (current && current !== fn) {
    if (isFunctionNode(current)) return true;
    current = mod.index.parent.get(current);
  }
  return false;
}

/** `return;` / `break;` right after a reply statement: unreachable once the reply is a return. */
function getFollowingExits(mod: ModuleUnit, statement: t.Statement): t.Statement[] {
  const parent = mod.index.parent.get(statement);
  const list = parent?.type === 'BlockStatement' || parent?.type === 'Program' ? parent.body : parent?.type === 'SwitchCase' ? parent.consequent : null;
  if (!list) return [];
  const next = list[list.indexOf(statement) + 1];
  if (next && ((next.type === 'ReturnStatement' && !next.argument) || (next.type === 'BreakStatement' && !next.label))) return [next];
  return [];
}


/**
 * `err` when the error written is `err.message` of the error a catch clause caught (through a helper's
 * parameter to what the site hands it: `sendError(id, err.message)`), else null.
 */
function getCaughtErrorName(errorNode: CodeRef): string | null {
  const at = resolveExpr(errorNode.node, errorNode.frame, errorNode.mod);
  const node = unwrapExpression(at.node);
  if (node.type !== 'MemberExpression' || node.computed || getMemberName(node) !== 'message' || node.object.type !== 'Identifier') return null;
  return resolveIdentifier(at.mod.index, node.object)?.kind === 'catch' ? node.object.name : null;
}

/**
 * What the value of a reply's `error` member is, when the reply does not build it as an object literal:
 * an Error (thrown as it is), a string (a message where the object belongs), an object held in a
 * variable (`error: res.error`, a sentinel returned by a handler: its code, message and data are sent as
 * they are), or either of the last two, which only the run time tells.
 */
function getErrorHolding(value: Val): 'error' | 'string' | 'object' | 'either' {
  switch (value.k) {
    case 'error':
    case 'inst':
      return 'error';
    case 'obj':
      return 'object';
    case 'lit':
    case 'text':
    case 'json':
      return 'string';
    case 'unknown':
      return value.head !== undefined || value.fromMethod === true ? 'string' : 'either';
    default:
      return 'either';
  }
}

/**
 * Whether an expression calls a function of the program that only ever returns object literals
 * (`function makeError(code, message) { const error = { code, message }; ...; return error; }`,
 * `(code, message) => ({ code, message })`): what it computes is an object, whatever its arguments.
 */
function returnsOnlyObjects(facts: FileFacts, node: t.Node, mod: ModuleUnit): boolean {
  const call = unwrapExpression(node);
  if (call.type !== 'CallExpression') return false;
  const callee = facts.interp.evalStatic(call.callee, mod);
  if (callee.k !== 'func') return false;
  const fn = callee.fn;
  const index = callee.mod.index;
  const isObject = (value: t.Node | null | undefined): boolean => {
    const expr = value ? unwrapExpression(value) : null;
    if (expr?.type === 'ObjectExpression') return true;
    if (expr?.type !== 'Identifier') return false;
    const binding = resolveIdentifier(index, expr);
    return binding?.kind === 'const' && binding.declarator.id.type === 'Identifier' && isObject(binding.declarator.init);
  };
  if (fn.body.type !== 'BlockStatement') return isObject(fn.body);
  const returns = index.returns.filter((r) => getEnclosingFunction(index, r) === fn);
  // (the last statement returns: the function never falls off its end with undefined)
  return returns.length > 0 && fn.body.body.at(-1)?.type === 'ReturnStatement' && returns.every((r) => isObject(r.argument));
}

/** A value as an expression to write elsewhere: where it was computed, else the literal it is; null when neither. */
export function toValueRef(value: Val, mod: ModuleUnit): ValueRef | null {
  if (value.origin) return { code: { node: value.origin.node, frame: value.origin.frame, mod: value.origin.frame?.mod ?? mod } };
  return value.k === 'lit' ? { known: { k: 'lit', value: value.value } } : null;
}
