// What the SDK answers or runs itself: where an unknown method's handling ends without a reply, the branches
// only initialize, ping and notifications/initialized reach, the logging that goes with them, and code that
// runs when stdin ends (./sdk-shape.ts reads them).
import { t } from '../babel.js';
import { type FunctionNode, getLine, getMemberName, getStaticKey, isFunctionNode, isInside, resolveIdentifier, unwrapExpression } from '../analysis/ast.js';
import { type FileFacts } from '../analysis/facts.js';
import { findEnclosingFunction, type Event } from '../analysis/interp.js';
import { isLoggingHelperCall, isWithinFrame, type MessagePath } from '../analysis/messages.js';
import type { ModuleUnit } from '../analysis/program.js';
import { shorten, sourceOf } from '../analysis/render.js';
import { type Frame } from '../analysis/values.js';
import { SDK_OWNED_METHODS } from '../model/mcp-methods.js';
import { isDeadStore } from './initialize.js';
import type { Dispatcher, DroppedCode, NoReplyEnd, RemovableBranch } from '../model/server-model.js';


/** Where the dispatcher's run ends on a path without a reply: a `return;` (or `return null`), or the end of its body. */
export function findNoReplyEnd(p: MessagePath, d: Dispatcher): Omit<NoReplyEnd, 'reason'> | null {
  const fn = d.fn;
  for (let i = p.events.length - 1; i >= 0; i--) {
    const e = p.events[i]!;
    if (e.e === 'leave' && e.frame.fn === fn) {
      if (e.node?.type === 'ReturnStatement') {
        const value = e.node.argument ? unwrapExpression(e.node.argument) : null;
        const empty = value === null || value.type === 'NullLiteral' || (value.type === 'Identifier' && value.name === 'undefined');
        return empty ? { kind: 'return', node: e.node, mod: d.mod, fn } : null;
      }
      if (!e.node) return { kind: 'end', node: fn, mod: d.mod, fn };
      return null;
    }
  }
  return null;
}

/** What the reply to an unanswered path says: an unknown method, a tool the server does not know, or no result. */
export function getNoReplyReason(p: MessagePath): NoReplyEnd['reason'] {
  if (p.method === null) return 'unknown-method';
  // a tools/call whose tool name the dispatch compared with every name it knows, and none matched
  const name = p.path.state.cons.get('params.name');
  if (p.method === 'tools/call' && (!name || name.eq === undefined)) return 'unknown-tool';
  return 'no-result';
}

// ---------------------------------------------------------------- SDK-owned branches

/**
 * Guards no request the SDK delivers can take (on every request path the test was false):
 *   `if (msg.jsonrpc !== '2.0') { sendError(...); return; }`: its body writes to stdout; the SDK
 *   validates the envelope itself, and the write could only corrupt the transport;
 *   `if (!msg.id) return;`: only notifications took it, and the SDK never hands a notification to a
 *   request handler (it would also turn away a request whose id is 0).
 */
export function findDeadReplyGuards(facts: FileFacts, paths: MessagePath[], d: Dispatcher): RemovableBranch[] {
  const onRequests = new Map<t.IfStatement, Set<boolean>>();
  const onNotifications = new Set<t.IfStatement>();
  for (const p of paths) {
    for (const e of p.events) {
      if (e.e !== 'branch') continue;
      if (p.notification) {
        if (e.truth) onNotifications.add(e.node);
      } else onRequests.set(e.node, (onRequests.get(e.node) ?? new Set()).add(e.truth));
    }
  }
  const out: RemovableBranch[] = [];
  for (const [node, seen] of onRequests) {
    if (seen.has(true) || node.alternate) continue;
    const mod = facts.interp.moduleOf(node);
    if (!mod || !isInside(mod.index, node, d.fn)) continue;
    const writes = mod.index.calls.some((call) => {
      if (call.start! < node.consequent.start! || call.end! > node.consequent.end!) return false;
      if (facts.sinks.some((sink) => sink.call === call)) return true;
      const target = facts.interp.evalStatic(call.callee, mod);
      return target.k === 'func' && facts.interp.mayWrite(target.fn);
    });
    if (writes || (onNotifications.has(node) && isBareReturn(node.consequent))) out.push({ kind: 'statement', node, mod });
  }
  return out;
}

/** `return;`, `return null;`, `{ return; }`: a branch that only leaves. */
function isBareReturn(node: t.Statement): boolean {
  const body = node.type === 'BlockStatement' ? node.body : [node];
  if (body.length !== 1 || body[0]!.type !== 'ReturnStatement') return false;
  const value = body[0]!.argument ? unwrapExpression(body[0]!.argument) : null;
  return value === null || value.type === 'NullLiteral' || (value.type === 'Identifier' && value.name === 'undefined');
}

/** Switch cases, if branches and table entries that only initialize / ping / notifications/initialized reach. */
export function findSdkOwnedBranches(facts: FileFacts, paths: MessagePath[], d: Dispatcher): RemovableBranch[] {
  const out: RemovableBranch[] = [];
  const owned = new Set<string>([...SDK_OWNED_METHODS]);
  const isOwnedTest = (node: t.Node): boolean => {
    const expr = unwrapExpression(node);
    if (expr.type === 'StringLiteral') return owned.has(expr.value);
    if (expr.type === 'LogicalExpression' && expr.operator === '||') return isOwnedTest(expr.left) && isOwnedTest(expr.right);
    if (expr.type === 'BinaryExpression' && (expr.operator === '===' || expr.operator === '==')) {
      const side = expr.left.type === 'StringLiteral' ? expr.left : expr.right.type === 'StringLiteral' ? expr.right : null;
      return side !== null && owned.has(side.value) && isMethodExpression(facts, d, expr.left.type === 'StringLiteral' ? expr.right : expr.left);
    }
    return false;
  };
  // the functions the requests run through
  const fns = new Set<FunctionNode>();
  for (const p of paths) for (const e of p.events) if (e.e === 'enter' && e.frame.fn) fns.add(e.frame.fn);
  fns.add(d.fn);
  for (const mod of facts.program.modules) {
    for (const node of mod.index.parent.keys()) {
      const parent = node.type === 'SwitchCase' ? mod.index.parent.get(node) : undefined;
      if (node.type === 'SwitchCase' && node.test && isOwnedTest(node.test) && parent?.type === 'SwitchStatement' && insideAny(mod, parent, fns) && isMethodExpression(facts, d, parent.discriminant)) {
        out.push({ kind: 'case', node, mod });
      }
      if (node.type === 'IfStatement' && isOwnedTest(node.test) && insideAny(mod, node, fns)) out.push({ kind: 'if', node, mod });
    }
  }
  // table entries: object properties and Map entries keyed by an SDK-owned method, in tables the dispatch looks up
  for (const mod of facts.program.modules) {
    for (const object of mod.index.objects) {
      const keys = object.properties.map((prop) => (prop.type === 'SpreadElement' ? null : getStaticKey(prop)));
      if (!keys.some((k) => k !== null && (k.includes('/') || k === 'initialize')) || !keys.includes('initialize')) continue;
      for (const prop of object.properties) {
        if (prop.type === 'SpreadElement') continue;
        const key = getStaticKey(prop);
        if (key !== null && owned.has(key)) out.push({ kind: 'property', node: prop, mod });
      }
    }
    for (const call of mod.index.calls) {
      const callee = unwrapExpression(call.callee);
      if (callee.type !== 'MemberExpression' || getMemberName(callee) !== 'set' || call.arguments[0]?.type !== 'StringLiteral') continue;
      if (!owned.has(call.arguments[0].value)) continue;
      const statement = mod.index.parent.get(call);
      if (statement?.type === 'ExpressionStatement') out.push({ kind: 'statement', node: statement, mod });
    }
    for (const array of mod.index.parent.keys()) {
      if (array.type !== 'ArrayExpression') continue;
      for (const el of array.elements) {
        if (el?.type === 'ArrayExpression' && el.elements.length === 2 && el.elements[0]?.type === 'StringLiteral' && owned.has(el.elements[0].value)) {
          const holder = mod.index.parent.get(array);
          if (holder?.type === 'NewExpression') out.push({ kind: 'element', node: el, mod });
        }
      }
    }
  }
  return out;
}

/**
 * The code only initialize, ping and notifications/initialized run. The SDK answers those itself and
 * never hands them to the server's code, so that code stops running: its logging is dropped (and said
 * in the header); a state change, an exit or a call made for its effect (`startWatcher()`) would be
 * lost, so it keeps the server off the SDK rewrite. "Only": neither the code nor any call on the way to
 * it from the parse is run by another method's path (a log before the dispatch is everyone's).
 */
export function findSdkOwnedCode(facts: FileFacts, paths: MessagePath[], helpers: (frame: Frame) => boolean): { dropped: DroppedCode[]; effect: { node: t.Node; mod: ModuleUnit; method: string } | null } {
  type Link = { node: t.Node; mod: ModuleUnit };
  const chainOf = (node: t.Node | null, frame: Frame, stop: Frame): Link[] => {
    const out: Link[] = node ? [{ node, mod: frame.mod }] : [];
    for (let f: Frame | null = frame; f && f !== stop && f.call && f.caller; f = f.caller) out.push({ node: f.call, mod: f.caller.mod });
    return out;
  };
  const nodeOf = (e: Event): t.Node | null => (e.e === 'write' || e.e === 'parse' ? e.call : e.e === 'log' || e.e === 'effect' ? e.node : null);
  const frameOf = (e: Event): Frame | null => ('frame' in e ? e.frame : null);
  const shared = new Set<t.Node>();
  for (const p of paths) {
    if (p.method !== null && isSdkOwned(p.method)) continue;
    for (const e of p.events.slice(p.parseIndex)) {
      const frame = frameOf(e);
      if (frame) for (const link of chainOf(nodeOf(e), frame, p.parseFrame)) shared.add(link.node);
    }
  }
  const dropped = new Map<t.Node, DroppedCode>();
  for (const p of paths) {
    if (p.method === null || !isSdkOwned(p.method)) continue;
    for (const e of p.events.slice(p.parseIndex)) {
      if (e.e !== 'log' && e.e !== 'effect') continue;
      if (!isWithinFrame(e.frame, p.parseFrame) || (e.e === 'effect' && e.what === 'callback') || isDeadStore(facts, e)) continue;
      // logging inside a writer helper is the writer's (named once as such by findWriterLogging)
      if (isInWriterHelper(e.frame, p.parseFrame, helpers)) continue;
      // the outermost link no other method runs: the code in the SDK-owned branch
      const own = chainOf(e.node, e.frame, p.parseFrame).filter((link) => !shared.has(link.node)).pop();
      if (!own) continue;
      const logs = e.e === 'log' || (e.what === 'call' && isLoggingHelperCall(facts, e.frame.mod, e.node));
      if (!logs && (e.what !== 'call' || isValueDiscarded(e.frame.mod, e.node))) return { dropped: [], effect: { node: own.node, mod: own.mod, method: p.method } };
      if (logs && !dropped.has(own.node)) dropped.set(own.node, { mod: own.mod, line: getLine(own.node), text: shorten(sourceOf(own.mod, own.node)), method: p.method, writer: null });
    }
  }
  return { dropped: [...dropped.values()], effect: null };
}

function isInWriterHelper(frame: Frame, stop: Frame, helpers: (frame: Frame) => boolean): boolean {
  for (let f: Frame | null = frame; f && f !== stop; f = f.caller) if (helpers(f)) return true;
  return false;
}

/**
 * The logging inside the writer helpers the replies go through (`function send(m) { console.error('send',
 * m); process.stdout.write(...) }`): the rewrite turns the calls of the helper into returns and removes
 * it, so those lines are no longer written. Each is named at the statement in the helper that logs.
 */
export function findWriterLogging(facts: FileFacts, paths: MessagePath[], helpers: (frame: Frame) => boolean): DroppedCode[] {
  const dropped = new Map<t.Node, DroppedCode>();
  for (const p of paths) {
    for (const e of p.events.slice(p.parseIndex)) {
      if (e.e !== 'log' && !(e.e === 'effect' && e.what === 'call' && isLoggingHelperCall(facts, e.frame.mod, e.node))) continue;
      let node: t.Node | null = e.node;
      for (let f: Frame | null = e.frame; f && f !== p.parseFrame && node; node = f.call, f = f.caller) {
        if (!helpers(f)) continue;
        if (!dropped.has(node)) dropped.set(node, { mod: f.mod, line: getLine(node), text: shorten(sourceOf(f.mod, node)), method: null, writer: shorten(sourceOf(f.caller!.mod, (f.call as t.CallExpression).callee)) });
        break;
      }
    }
  }
  return [...dropped.values()];
}

/** `f();`, `await f();`: a call made for its effect, whose value nobody reads. */
function isValueDiscarded(mod: ModuleUnit, node: t.Node): boolean {
  let parent = mod.index.parent.get(node);
  while (parent && (parent.type === 'AwaitExpression' || parent.type === 'ParenthesizedExpression' || parent.type === 'UnaryExpression' && parent.operator === 'void')) parent = mod.index.parent.get(parent);
  return parent?.type === 'ExpressionStatement' || parent?.type === 'SequenceExpression';
}

function insideAny(mod: ModuleUnit, node: t.Node, fns: Set<FunctionNode>): boolean {
  let current = mod.index.parent.get(node);
  while (current) {
    if (isFunctionNode(current)) return fns.has(current);
    current = mod.index.parent.get(current);
  }
  return false;
}

/** An expression that reads the message method (`method`, `msg.method`, `request.method`). */
function isMethodExpression(facts: FileFacts, d: Dispatcher, node: t.Node): boolean {
  const expr = unwrapExpression(node);
  if (expr.type === 'MemberExpression') return getMemberName(expr) === 'method';
  if (expr.type === 'Identifier') {
    const mod = d.mod;
    const binding = resolveIdentifier(mod.index, expr);
    if (binding && binding.kind !== 'import' && 'pattern' in binding && binding.pattern.includes('method')) return true;
    return /method/i.test(expr.name);
  }
  void facts;
  return false;
}

// ---------------------------------------------------------------- the end of the input

/**
 * A statement that may run at start-up instead of at the end of the input: a declaration that is
 * hoisted, an empty one, or a log line (`console.error('listening')` after the loop, a common slip; or
 * the same through the program's own logger, a function that can only write to stderr).
 */
function isInertAtEnd(facts: FileFacts, mod: ModuleUnit, statement: t.Statement): boolean {
  if (statement.type === 'FunctionDeclaration' || statement.type === 'EmptyStatement') return true;
  if (statement.type !== 'ExpressionStatement') return false;
  const call = unwrapExpression(statement.expression);
  if (call.type !== 'CallExpression') return false;
  // the program's own logger (`log.info('ready')`) that can only write to stderr, as a console call
  if (isLoggingHelperCall(facts, mod, call)) return true;
  if (call.callee.type !== 'MemberExpression') return false;
  const target = call.callee.object;
  if (target.type === 'Identifier' && target.name === 'console') return true;
  return target.type === 'MemberExpression' && target.object.type === 'Identifier' && target.object.name === 'process' && getMemberName(target) === 'stderr' && getMemberName(call.callee) === 'write';
}

/**
 * Code that runs once a `for await` loop over stdin ends (stdin closed): a statement after the loop in
 * its function, a `finally` around it, or, where the function is called, a statement after `await f()`
 * or a `.then` / `.finally` on its promise. The SDK transport returns from connect() at once, so such
 * code would run at start-up. Null when there is none.
 */
export function findCodeAtInputEnd(facts: FileFacts, mod: ModuleUnit, loop: t.ForOfStatement): t.Node | null {
  const fn = findEnclosingFunction(mod, loop);
  let node: t.Node = loop;
  for (let parent = mod.index.parent.get(node); parent && parent !== fn; node = parent, parent = mod.index.parent.get(node)) {
    const after = getLiveStatementAfter(facts, mod, parent, node);
    if (after) return after;
    if (parent.type === 'TryStatement' && parent.block === node && parent.finalizer?.body.some((s) => !isInertAtEnd(facts, mod, s))) return parent.finalizer;
  }
  if (!fn) return null;
  // the callers: `await main(); cleanup()`, `main().then(...)`, `main().finally(...)`
  const id = fn.type === 'FunctionDeclaration' ? fn.id : null;
  const holder = mod.index.parent.get(fn);
  const name = id?.name ?? (holder?.type === 'VariableDeclarator' && holder.id.type === 'Identifier' ? holder.id.name : null);
  for (const call of mod.index.calls) {
    const callee = unwrapExpression(call.callee);
    const direct = callee === fn || (name !== null && callee.type === 'Identifier' && callee.name === name);
    if (!direct) continue;
    let outer: t.Node = call;
    let up = mod.index.parent.get(outer);
    if (up?.type === 'MemberExpression' && up.object === outer && ['then', 'finally'].includes(getMemberName(up) ?? '')) return up;
    if (up?.type === 'AwaitExpression') {
      outer = up;
      up = mod.index.parent.get(outer);
    } else continue;
    if (up?.type !== 'ExpressionStatement') continue;
    const after = getLiveStatementAfter(facts, mod, mod.index.parent.get(up), up);
    if (after) return after;
  }
  return null;
}

/** The first statement after `statement` in the block `parent` that is not inert at the end of the input. */
function getLiveStatementAfter(facts: FileFacts, mod: ModuleUnit, parent: t.Node | undefined, statement: t.Node): t.Statement | null {
  if (parent?.type !== 'BlockStatement' && parent?.type !== 'Program') return null;
  return parent.body.slice(parent.body.indexOf(statement as t.Statement) + 1).find((s) => !isInertAtEnd(facts, mod, s)) ?? null;
}

export function isSdkOwned(method: string): boolean {
  return (SDK_OWNED_METHODS as readonly string[]).includes(method);
}
