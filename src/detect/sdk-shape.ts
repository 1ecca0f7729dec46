// The SDK shape of a server (detect/server.ts asks for it): the dispatcher, every reply site, what to register,
// where the SDK server goes and what it is built from, or the reasons an exact SDK rewrite is not possible.
// Read-only, and it writes no code (rewrite/sdk-code.ts writes what its references stand for).
import { t } from '../babel.js';
import { type Binding, type FunctionNode, getLine, getMemberName, getMemberPath, getThisScope, isFunctionNode, isReferenceIdentifier, resolveIdentifier, unwrapExpression, getStoredIn } from '../analysis/ast.js';
import { type FileFacts, type StdinConsumer } from '../analysis/facts.js';
import { findEnclosingFunction, type Event, type WriteData } from '../analysis/interp.js';
import { findWriterHelpers, isWithinFrame, type MessagePath } from '../analysis/messages.js';
import type { ModuleUnit } from '../analysis/program.js';
import { findStateSharedAcrossAwait } from '../analysis/queue.js';
import { shorten, sourceOf } from '../analysis/render.js';
import { renderCallAt } from '../analysis/render-call.js';
import { type Frame, isShallowMessageValue, type Val } from '../analysis/values.js';
import { isMcpRequestMethod } from '../model/mcp-methods.js';
import type { Blocker, BlockerReason } from '../model/reasons.js';
import type { Anchor, CatchWrite, Dispatcher, KnownValue, NoReplyEnd, ReplySite, ReturnedCall, ServerModel, ValueRef } from '../model/server-model.js';
import { isTypeScriptPath } from '../parse.js';
import { findDeadReplyGuards, findSdkOwnedBranches, findWriterLogging, isSdkOwned, findSdkOwnedCode, findCodeAtInputEnd, findNoReplyEnd, getNoReplyReason } from './sdk-owned.js';
import { analyseSite, toValueRef, getEnclosingStatement } from './reply-sites.js';
import { getInitializeInfo, isDeadStore } from './initialize.js';


type Shape = Omit<NonNullable<ServerModel['sdk']>, 'plumbing'>;

export function buildSdkShape(facts: FileFacts, paths: MessagePath[], framing: ServerModel['framing']): Shape | { blockers: Blocker[] } {
  const blockers: Blocker[] = [];
  const block = (code: BlockerReason, node: t.Node | null, detail: string): void => {
    blockers.push({ code, line: node ? getLine(node) : 0, detail });
  };
  if (framing === 'content-length') block('CONTENT_LENGTH_FRAMING', facts.consumers[0]!.node, 'messages are framed with Content-Length headers');
  if (facts.incomplete) block('ANALYSIS_INCOMPLETE', facts.consumers[0]!.node, 'the message handling has more paths than the analysis follows');
  const consumers = facts.consumers;
  if (consumers.length > 1) block('SEVERAL_INPUT_LOOPS', consumers[1]!.node, `stdin is read in ${consumers.length} places`);
  if (blockers.length > 0) return { blockers };
  const consumer = consumers[0]!;

  // messages handled one at a time (a promise queue): the SDK's concurrent handlers keep behaviour only if
  // the handling never suspends while it holds shared state half changed
  // (then the rewrite runs the handlers one at a time, in arrival order, as the queue did)
  const oneAtATime = findStateSharedAcrossAwait(facts.interp, facts.paths) !== null;
  const requests = paths.filter((p) => !p.notification);
  for (const p of requests) {
    for (const e of p.events.slice(p.parseIndex)) {
      if (e.e === 'computed-key') return { blockers: [{ code: 'COMPUTED_DISPATCH', line: getLine(e.node), detail: 'a handler is looked up by a name computed from the method' }] };
    }
  }

  // 1. The dispatcher: the first function handed the message whose run holds every reply, the same on
  // every answered path (a writer handed only the id holds its own reply, but not the other paths'),
  // else the function that parsed the message (inline dispatch). Paths of SDK-owned methods may answer
  // elsewhere (an initialize shortcut in the loop): those go with the loop.
  // a reply written later from a callback (`setTimeout(() => send(...))`) cannot become a return value
  for (const p of requests) {
    const later = p.events.find((e): e is Extract<Event, { e: 'effect' }> => e.e === 'effect' && e.what === 'callback');
    if (later && p.replies.length === 0) {
      block('REPLY_IN_CALLBACK', later.node, 'a reply is written from a callback');
      return { blockers };
    }
  }
  const answered = requests.filter((p) => p.replies.length > 0);
  if (answered.length === 0) {
    block('NO_DISPATCH', consumer.node, 'no request is answered');
    return { blockers };
  }
  const real = answered.filter((p) => p.method === null || !isSdkOwned(p.method));
  const basis = real.length > 0 ? real : answered;
  const helpers = findWriterHelpers(facts, paths);
  const options = new Map(answered.map((p) => [p, getDispatcherOptions(p, helpers)]));
  for (const p of basis) {
    if (options.get(p)!.length === 0) {
      block('NO_DISPATCH', p.replies[0]!.event.call, 'a reply is written outside any function handed the message');
      return { blockers };
    }
  }
  const chosen = options.get(basis[0]!)!.find((o) => basis.every((p) => options.get(p)!.some((x) => x.key === o.key)));
  if (!chosen) {
    const first = options.get(basis[0]!)![0]!;
    const odd = basis.find((p) => !options.get(p)!.some((x) => x.key === first.key))!;
    block('SEVERAL_DISPATCHERS', odd.replies[0]!.event.call, `${odd.method ?? 'an unknown method'} is answered by another dispatcher than the others`);
    return { blockers };
  }
  const main = { d: chosen.d, paths: answered.filter((p) => options.get(p)!.some((x) => x.key === chosen.key)) };
  const dispatcher = main.d;
  const inDispatcher = requests.filter((p) => p.replies.length === 0 || main.paths.includes(p));

  // 2. Every reply site, with its rendering and checks.
  const sites = new Map<t.Node, ReplySite>();
  const returnedCalls = new Map<t.Node, ReturnedCall>();
  let order = 0;
  for (const p of inDispatcher) {
    const dFrame = dispatcher.kind === 'function' ? findDispatcherFrame(p, dispatcher) : p.parseFrame;
    if (!dFrame) continue;
    for (const other of p.otherJson) {
      const v = (other.data as Extract<WriteData, { kind: 'json' }>).value;
      block(v.k === 'obj' ? 'SERVER_SENDS_REQUESTS' : 'UNKNOWN_REPLY_SHAPE', other.call, 'JSON written to stdout that is not a reply the tool can follow');
    }
    // The first reply is the one a client sees; later writes for the same request (a catch that answers
    // and falls through to another answer) are ignored by clients, and the SDK sends one reply only.
    // a site only SDK-owned methods reach (`return answerInitialize(id, params)`) goes with its branch;
    // a reply there that cannot be written does not matter
    const owned = p.method !== null && isSdkOwned(p.method);
    for (const reply of p.replies.slice(0, 1)) {
      const site = analyseSite(facts, p, reply, dFrame, dispatcher, returnedCalls, helpers, owned ? () => undefined : block);
      if (!site) continue;
      site.replies[0]!.owned = owned;
      site.replies[0]!.order = order++;
      const known = sites.get(site.statement);
      if (known) {
        for (const m of site.methods) known.methods.add(m);
        known.replies.push(...site.replies);
      } else sites.set(site.statement, site);
    }
  }
  if (blockers.length > 0) return { blockers };

  // 3. What to register.
  const registered = new Set<string>();
  const custom = new Set<string>();
  let runtimeTable = false;
  for (const p of inDispatcher) {
    if (p.events.slice(p.parseIndex).some((e) => e.e === 'runtime-table')) runtimeTable = true;
    if (p.method === null || p.replies.length === 0) continue;
    if (isSdkOwned(p.method) || p.method.startsWith('notifications/')) continue;
    if (isMcpRequestMethod(p.method)) registered.add(p.method);
    else custom.add(p.method);
  }
  // notifications the server acts on itself (`notifications/cancelled` logging, a custom one): the SDK
  // hands them over only to a notification handler of their own
  const notifications = new Set<string>();
  for (const p of paths) {
    // (a request method sent without an id is a client bug, not something to serve)
    if (!p.notification || p.method === null || isSdkOwned(p.method) || !p.method.startsWith('notifications/')) continue;
    const dFrame = dispatcher.kind === 'function' ? findDispatcherFrame(p, dispatcher) : p.parseFrame;
    if (!dFrame) continue;
    const acts = p.events.slice(p.parseIndex).some((e) => (e.e === 'log' || (e.e === 'effect' && !isDeadStore(facts, e))) && isWithinFrame(e.frame, dFrame));
    if (acts) notifications.add(p.method);
  }
  const otherPaths = inDispatcher.filter((p) => p.method === null && !p.methodFree);
  const otherResult = otherPaths.find((p) => p.replies.some((r) => r.kind === 'result'));
  if (otherResult && !runtimeTable) {
    // a catch-all that answers every unknown method with a result: the SDK answers them with -32601 instead
  }
  const fallback = custom.size > 0 || (runtimeTable && otherResult !== undefined);
  // with the custom methods known, the fallback answers only them (unknown methods never reach the dispatcher)
  const runtimeMethods = runtimeTable && otherResult !== undefined;

  // A request the SDK hands the dispatcher must end in a reply: where a path of a registered method (or,
  // through a fallback for a table filled at run time, an unknown one) ends without any, the handler
  // throws instead of returning nothing (the original left the client waiting; the SDK would send a
  // reply without a result).
  const noReplyEnds: NoReplyEnd[] = [];
  const handled = (p: MessagePath): boolean => (p.method !== null ? registered.has(p.method) || custom.has(p.method) : fallback && runtimeMethods && !p.methodFree);
  for (const p of inDispatcher) {
    if (p.replies.length > 0 || !handled(p)) continue;
    // a path that never reaches the dispatcher ends in the input side, which the SDK replaces
    const reaches = dispatcher.kind === 'inline' || p.events.some((e) => e.e === 'enter' && e.frame.fn === dispatcher.fn && e.frame.call === dispatcher.call);
    if (!reaches) continue;
    const end = findNoReplyEnd(p, dispatcher);
    if (!end) {
      if (p.method !== null) continue;
      block('UNSUPPORTED_INPUT_LOOP', dispatcher.kind === 'function' ? dispatcher.fn : dispatcher.parseStatement, 'an unknown method is never answered, and the place to answer it could not be found');
      return { blockers };
    }
    const known = noReplyEnds.find((e) => e.node === end.node);
    const reason = getNoReplyReason(p);
    if (!known) noReplyEnds.push({ ...end, reason });
    // one end for several reasons: an unknown method must get -32601 (MCP's own rule), then an unknown tool -32602
    else if (known.reason !== reason) known.reason = known.reason === 'unknown-method' || reason === 'unknown-method' ? 'unknown-method' : known.reason === 'unknown-tool' || reason === 'unknown-tool' ? 'unknown-tool' : 'no-result';
  }

  const catchWrites = dispatcher.kind === 'inline' ? findCatchWrites(facts, dispatcher) : [];

  // 4. Branches the SDK makes dead: initialize, ping, notifications/initialized.
  const removable = [...findSdkOwnedBranches(facts, paths, dispatcher), ...findDeadReplyGuards(facts, paths, dispatcher)];
  const ownedCode = findSdkOwnedCode(facts, paths, helpers);
  if (ownedCode.effect) {
    const { node, mod, method } = ownedCode.effect;
    block('SDK_OWNED_SIDE_EFFECTS', node, `the code for ${method} also runs \`${shorten(sourceOf(mod, node))}\`; the SDK answers ${method} itself and would never run it`);
    return { blockers };
  }

  // 5. Server construction from the initialize reply.
  const initialize = getInitializeInfo(facts, paths, block);
  if (!initialize) return { blockers };

  // 6. Where the SDK server is created, and how its handlers call the dispatcher.
  const atEnd = consumer.kind === 'for-await' ? findCodeAtInputEnd(facts, consumer.mod, consumer.node as t.ForOfStatement) : null;
  if (atEnd) {
    block('CODE_AT_INPUT_END', atEnd, `\`${shorten(sourceOf(consumer.mod, atEnd))}\` runs when stdin ends, after the \`for await\` loop; the SDK transport does not block there, so it would run at start-up`);
    return { blockers };
  }
  const anchor = findAnchor(facts, consumer, dispatcher);
  if (!anchor) {
    block('UNSUPPORTED_INPUT_LOOP', consumer.node, 'no place was found where the dispatcher can be handed to the SDK server');
    return { blockers };
  }
  // what the rewrite removes (of an if-chain link, its test and branch: the `else` part stays)
  const goes = [
    ...[...sites.values()].map((s) => ({ mod: s.mod, node: s.statement as t.Node })),
    ...removable.flatMap((b) => (b.kind === 'if' && b.node.type === 'IfStatement' ? [{ mod: b.mod, node: b.node.test as t.Node }, { mod: b.mod, node: b.node.consequent as t.Node }] : [b])),
  ];
  const usesMessageId = readsMessageMember(facts, dispatcher, goes, 'id');
  // the SDK hands handlers `{ method, params }`: a dispatcher that checks the version gets it back
  const usesJsonrpc = readsMessageMember(facts, dispatcher, goes, 'jsonrpc');
  const handlerName = pickFreeName(anchor.mod, ['handleMessage', 'handleRequest', 'onMcpRequest']);
  // TypeScript: the dispatcher's parameter type is the whole message, so it gets one (jsonrpc and id included)
  const typed = isTypeScriptPath(anchor.mod.path);
  // (what becomes a return or throw, and what goes: the SDK answers those methods)
  const replaced = goes.map((g) => g.node);
  // each field of the server's construction: as the reply writes it, else the value it holds
  const construct = (name: 'serverInfo' | 'capabilities' | 'instructions', value: Val | null): ValueRef[] => {
    const written = initialize.written[name];
    const known = value ? getKnownValue(facts, value, paths) : null;
    return [...(written ? [{ code: written }] : []), ...(value ? [toValueRef(value, anchor.mod)].filter((v) => v !== null) : []), ...(known ? [{ known }] : [])];
  };
  const inputStatements = findInputStatements(facts, consumer, anchor);

  if (blockers.length > 0) return { blockers };
  return {
    anchor,
    reads: { id: usesMessageId || typed, jsonrpc: usesJsonrpc || typed },
    replaced,
    handlerName,
    construct: {
      serverInfo: construct('serverInfo', initialize.serverInfo),
      capabilities: initialize.capabilities ? construct('capabilities', initialize.capabilities) : null,
      capabilityKeys: getCapabilityKeys(facts, initialize.capabilities, paths),
      instructions: initialize.instructions ? construct('instructions', initialize.instructions) : null,
    },
    consumer,
    inputStatements,
    catchWrites,
    notifications: [...notifications],
    dispatcher,
    sites: [...sites.values()],
    returnedCalls: [...returnedCalls.values()],
    registrations: [...registered],
    customMethods: [...custom],
    fallback,
    noReplyEnds,
    removableBranches: removable,
    dropped: [...ownedCode.dropped, ...findWriterLogging(facts, inDispatcher, helpers)],
    initialize,
    usesMessageId,
    runtimeMethods,
    readsWithoutUri: registered.has('resources/read') && hasContentsWithoutUri(facts, inDispatcher),
    oneAtATime,
  };
}

/** A resources/read result whose contents lack the `uri` they belong to (the SDK client rejects those). */
function hasContentsWithoutUri(facts: FileFacts, paths: MessagePath[]): boolean {
  for (const p of paths) {
    if (p.method !== 'resources/read') continue;
    for (const reply of p.replies) {
      if (reply.kind !== 'result') continue;
      const value = (reply.event.data as Extract<WriteData, { kind: 'json' }>).value;
      const result = facts.interp.getFields(value, p.path.state, reply.event.frame)?.get('result');
      const contents = result ? facts.interp.getFields(result, p.path.state, reply.event.frame)?.get('contents') : undefined;
      if (contents?.k !== 'arr' || contents.items === null) continue;
      for (const item of contents.items) {
        const fields = facts.interp.getFields(item, p.path.state, reply.event.frame);
        if (fields && !fields.has('uri')) return true;
      }
    }
  }
  return false;
}

/**
 * `try { const msg = JSON.parse(line); ...dispatch... } catch (e) { send(parseError) }`: once the handler
 * starts from a parsed message, such a catch only sees errors of the dispatch. Its writes (to stdout,
 * directly or through a writer) are the statements that become `throw e`, so the SDK answers the request
 * with -32603 and its id (the original's id-null reply left the client waiting).
 */
function findCatchWrites(facts: FileFacts, d: Extract<Dispatcher, { kind: 'inline' }>): CatchWrite[] {
  const mod = d.mod;
  const out: CatchWrite[] = [];
  let node: t.Node = d.parseStatement;
  for (let parent = mod.index.parent.get(node); parent && parent !== d.fn; node = parent, parent = mod.index.parent.get(parent)) {
    if (parent.type !== 'TryStatement' || parent.block !== node || !parent.handler) continue;
    const block = parent.block;
    // `try { msg = JSON.parse(line) } catch { ... }` guards the parse alone: it goes with the input side
    if (block.body.length === 1 && block.body[0] === d.parseStatement) continue;
    const clause = parent.handler;
    const writes = (statement: t.Node): boolean => {
      for (const call of mod.index.calls) {
        if (call.start! < statement.start! || call.end! > statement.end! || isInsideFunction(mod, call, clause)) continue;
        if (facts.sinks.some((sink) => sink.call === call)) return true;
        const target = facts.interp.evalStatic(call.callee, mod);
        if (target.k === 'func' && facts.interp.mayWrite(target.fn)) return true;
      }
      return false;
    };
    const statements = collectStatements(clause.body).filter((st) => st.type === 'ExpressionStatement' && writes(st));
    if (statements.length > 0) out.push({ clause, statements });
  }
  return out;
}

/** Every statement inside a block, nested blocks and branches included, functions not. */
function collectStatements(block: t.BlockStatement): t.Statement[] {
  const out: t.Statement[] = [];
  const visit = (st: t.Statement): void => {
    out.push(st);
    if (st.type === 'BlockStatement') st.body.forEach(visit);
    if (st.type === 'IfStatement') {
      visit(st.consequent);
      if (st.alternate) visit(st.alternate);
    }
  };
  block.body.forEach(visit);
  return out;
}

/** `node` sits in a function nested inside `outer`. */
function isInsideFunction(mod: ModuleUnit, node: t.Node, outer: t.Node): boolean {
  for (let current = mod.index.parent.get(node); current && current !== outer; current = mod.index.parent.get(current)) {
    if (isFunctionNode(current)) return true;
  }
  return false;
}

/**
 * `process.stdin.setEncoding('utf8')`, `rl.on('close', ...)`, `process.stdin.resume()`: statements next
 * to the loop that only serve stdin. They go with the loop when the SDK server takes its place.
 */
function findInputStatements(facts: FileFacts, consumer: StdinConsumer, anchor: Anchor): t.Statement[] {
  const mod = consumer.mod;
  if (mod !== anchor.mod || findEnclosingFunction(mod, consumer.node) !== anchor.fn) return findReaderListeners(anchor);
  const out: t.Statement[] = [];
  const body = anchor.fn ? (anchor.fn.body.type === 'BlockStatement' ? anchor.fn.body.body : []) : mod.ast.program.body;
  const holder = mod.index.parent.get(anchor.statement);
  const siblings = holder && (holder.type === 'BlockStatement' || holder.type === 'Program') ? holder.body : body;
  for (const statement of siblings) {
    if (statement === anchor.statement || statement.type !== 'ExpressionStatement') continue;
    // `this.rl = readline.createInterface(...)` feeding the loop, read nowhere but the loop: it goes too
    const assigned = unwrapExpression(statement.expression);
    if (assigned.type === 'AssignmentExpression' && consumer.source.k === 'readline' && consumer.source.origin?.node === unwrapExpression(assigned.right)) {
      if (isReadOnlyIn(mod, assigned.left, anchor.statement)) out.push(statement);
      continue;
    }
    let expr: t.Node = unwrapExpression(statement.expression);
    // walk down a call chain to its first receiver: process.stdin.setEncoding(...).on(...)
    while (expr.type === 'CallExpression' && expr.callee.type === 'MemberExpression') expr = unwrapExpression(expr.callee.object);
    if (expr === unwrapExpression(statement.expression)) continue;
    const target = facts.interp.evalStatic(expr, mod);
    const isInput = (target.k === 'stream' && target.fd === 0) || (target.k === 'readline' && consumer.source.k === 'readline' && target.origin?.node === consumer.source.origin?.node);
    if (isInput) out.push(statement);
  }
  return out;
}

const LISTENER_REGISTRATIONS = new Set(['on', 'once', 'addListener', 'prependListener', 'prependOnceListener']);

/**
 * The loop starts in another function, through a call on a reader object (`this.incoming.start()`, an
 * EventEmitter of the server's own that reads stdin and emits 'message' / 'invalid'): the listeners
 * registered on that same reader next to the call are the loop's wiring. The SDK rewrite replaces the
 * call, so the reader never starts and never emits, and a listener left behind is dead code that still
 * writes (a parse-error reply): they go with the call. Only when nothing else emits on the reader
 * (`reader.emit(...)` anywhere but inside its own class).
 */
function findReaderListeners(anchor: Anchor): t.Statement[] {
  const mod = anchor.mod;
  let started = anchor.statement.type === 'ExpressionStatement' ? unwrapExpression(anchor.statement.expression) : null;
  if (started?.type === 'AwaitExpression') started = unwrapExpression(started.argument);
  if (started?.type !== 'CallExpression' || started.callee.type !== 'MemberExpression') return [];
  const reader = unwrapExpression(started.callee.object);
  const key = getReaderKey(mod, reader);
  if (key === null) return [];
  const holder = mod.index.parent.get(anchor.statement);
  if (holder?.type !== 'BlockStatement' && holder?.type !== 'Program') return [];
  const out: t.Statement[] = [];
  for (const statement of holder.body) {
    if (statement === anchor.statement || statement.type !== 'ExpressionStatement') continue;
    const call = unwrapExpression(statement.expression);
    if (call.type !== 'CallExpression' || call.callee.type !== 'MemberExpression' || !LISTENER_REGISTRATIONS.has(getMemberName(call.callee) ?? '')) continue;
    if (getReaderKey(mod, unwrapExpression(call.callee.object)) === key) out.push(statement);
  }
  if (out.length === 0) return [];
  // someone else emits on the reader: its listeners are not only the loop's
  for (const call of mod.index.calls) {
    if (call.callee.type !== 'MemberExpression' || getMemberName(call.callee) !== 'emit') continue;
    if (getReaderKey(mod, unwrapExpression(call.callee.object)) === key) return [];
  }
  return out;
}

/** `this.incoming` (by member name, within one `this`) or a local binding, as a comparable key; null for anything else. */
function getReaderKey(mod: ModuleUnit, node: t.Node): string | object | null {
  if (node.type === 'MemberExpression' && node.object.type === 'ThisExpression') {
    const name = getMemberName(node);
    const scope = getThisScope(mod.index, node);
    return name === null || scope === null ? null : `${scope.start}:${name}`;
  }
  if (node.type === 'Identifier') return resolveIdentifier(mod.index, node) ?? null;
  return null;
}

/** `this.rl` / `rl`, assigned at `target`, is read only inside `within` (the loop the rewrite removes). */
function isReadOnlyIn(mod: ModuleUnit, target: t.Node, within: t.Node): boolean {
  const inside = (node: t.Node): boolean => node.start! >= within.start! && node.end! <= within.end!;
  if (target.type === 'MemberExpression' && target.object.type === 'ThisExpression') {
    const name = getMemberName(target);
    if (name === null) return false;
    for (const node of mod.index.parent.keys()) {
      if (node === target || (node.type !== 'MemberExpression' && node.type !== 'OptionalMemberExpression') || getMemberName(node) !== name) continue;
      if (!inside(node)) return false;
    }
    return true;
  }
  if (target.type === 'Identifier') {
    const binding = resolveIdentifier(mod.index, target);
    if (!binding) return false;
    return mod.index.identifiers.every((id) => id === target || id.name !== target.name || !isReferenceIdentifier(mod.index, id) || resolveIdentifier(mod.index, id) !== binding || inside(id));
  }
  return false;
}

/** The statement a node belongs to (through call chains like `rl.on(...).on(...)`). */
function getOuterStatement(mod: ModuleUnit, node: t.Node): t.Statement | null {
  let current: t.Node | undefined = node;
  while (current) {
    const parent = mod.index.parent.get(current);
    if (!parent) return null;
    if (t.isStatement(current) && (parent.type === 'BlockStatement' || parent.type === 'Program' || parent.type === 'SwitchCase' || parent.type === 'StaticBlock')) return current;
    if (isFunctionNode(current)) return null;
    current = parent;
  }
  return null;
}

/**
 * Where the SDK server goes: the statement that starts the stdin loop, or, when the loop lives in a
 * function that only sets up input (`listen(onMessage)` of a transport module), the one call of that
 * function, up to where the dispatcher is visible by its own name.
 */
function findAnchor(facts: FileFacts, consumer: StdinConsumer, d: Dispatcher): Anchor | null {
  let statement = getOuterStatement(consumer.mod, consumer.node);
  let mod = consumer.mod;
  for (let depth = 0; statement && depth < 6; depth++) {
    const fn = findEnclosingFunction(mod, statement);
    // (where the dispatcher and what its caller hands it can be named)
    if (d.kind === 'inline' || renderCallAt(d, { mod, node: statement }, 'request') !== null) {
      return { statement, mod, fn, async: fn ? Boolean((fn as { async?: boolean }).async) : mod.syntax === 'esm' || /\.m?ts$/.test(mod.path) };
    }
    if (!fn) return null;
    const caller = facts.interp.findCaller(fn, mod);
    if (!caller || caller.call.type !== 'CallExpression') return null;
    statement = getOuterStatement(caller.mod, caller.call);
    mod = caller.mod;
  }
  return null;
}

/** Calls that read a message without needing any member of it back: serialising and logging it. */
const LOOKS_ONLY = /^(?:JSON\.stringify|console\.\w+|process\.std(?:err|out)\.write|String)$/;

/**
 * Whether the dispatcher passes the message it was given, whole, to a call that reads `member` of it
 * (`this.onMessage(msg)` where onMessage reads `msg.id`): a function the analysis knows is looked at as
 * the dispatcher is (what the rewrite removes there is no read); any other call may read anything.
 */
function handsMessageOn(facts: FileFacts, d: Dispatcher, removed: { mod: ModuleUnit; node: t.Node }[], member: string, inSkipped: (n: t.Node) => boolean, seen: Set<FunctionNode>): boolean {
  if (d.kind === 'inline') return false;
  const mod = d.mod;
  const params = new Set<Binding>();
  for (const param of d.fn.params) {
    if (param.type !== 'Identifier') continue;
    const binding = resolveIdentifier(mod.index, param);
    if (binding) params.add(binding);
  }
  for (const call of mod.index.calls) {
    if (call.start! < d.fn.body.start! || call.end! > d.fn.body.end! || inSkipped(call)) continue;
    const callee = getMemberPath(call.callee);
    if (callee !== null && LOOKS_ONLY.test(callee)) continue;
    const handsOn = call.arguments.some((arg) => {
      const binding = arg.type === 'Identifier' ? resolveIdentifier(mod.index, arg) : null;
      return binding !== null && params.has(binding);
    });
    if (!handsOn) continue;
    const target = facts.interp.evalStatic(call.callee, mod);
    if (target.k !== 'func') return true;
    if (seen.has(target.fn)) continue;
    if (readsMessageMember(facts, { ...d, fn: target.fn, mod: target.mod }, removed, member, seen)) return true;
  }
  return false;
}

/**
 * The dispatcher reads a member of the message outside the replies it writes (`id` in a guard or a log,
 * `jsonrpc` in a version check): the SDK's handler does not get it, so it must be handed over.
 */
function readsMessageMember(facts: FileFacts, d: Dispatcher, removed: { mod: ModuleUnit; node: t.Node }[], member: string, seen = new Set<FunctionNode>()): boolean {
  seen.add(d.fn);
  const mod = d.mod;
  const region = d.fn.body;
  const skip = removed.filter((s) => s.mod === mod).map((s) => s.node);
  const inSkipped = (n: t.Node): boolean => skip.some((s) => n.start! >= s.start! && n.end! <= s.end!);
  // names bound to the member: `const { id } = msg`, `const id = msg.id`, a parameter `id`
  const bindings = new Set<Binding>();
  for (const [scope, names] of mod.index.scopes) {
    if ((scope.start! < region.start! || scope.end! > region.end! + 1) && scope !== d.fn) continue;
    for (const binding of names.values()) {
      if (binding.kind === 'const' || binding.kind === 'let' || binding.kind === 'var') {
        if (binding.pattern.length === 1 && binding.pattern[0] === member) bindings.add(binding);
        const init = binding.pattern.length === 0 && binding.declarator.init ? unwrapExpression(binding.declarator.init) : null;
        if (init?.type === 'MemberExpression' && getMemberName(init) === member) bindings.add(binding);
      }
      if (binding.kind === 'param' && binding.pattern.length === 1 && binding.pattern[0] === member && binding.fn === d.fn) bindings.add(binding);
    }
  }
  // the whole message handed on to a function of the program (`this.onMessage(msg)`): it may read the member
  if (handsMessageOn(facts, d, removed, member, inSkipped, seen)) return true;
  // `const id = typeof msg.id === 'number' ? msg.id : null` read only by replies that go: not a read either
  const isDeadDeclaration = (node: t.Node): boolean => {
    for (let current = mod.index.parent.get(node); current && current !== region; current = mod.index.parent.get(current)) {
      if (current.type !== 'VariableDeclarator' || current.id.type !== 'Identifier') continue;
      const binding = resolveIdentifier(mod.index, current.id);
      if (!binding) return false;
      const uses = mod.index.identifiers.filter((other) => other !== (current as t.VariableDeclarator).id && other.name === binding.name && isReferenceIdentifier(mod.index, other) && resolveIdentifier(mod.index, other) === binding);
      return uses.every(inSkipped);
    }
    return false;
  };
  for (const id of mod.index.identifiers) {
    if (id.start! < region.start! || id.end! > region.end! || inSkipped(id)) continue;
    const parent = mod.index.parent.get(id);
    if (parent?.type === 'MemberExpression' && parent.property === id && !parent.computed && id.name === member) {
      if (isDeadDeclaration(parent)) continue;
      return true;
    }
    if (bindings.size === 0) continue;
    const binding = resolveIdentifier(mod.index, id);
    if (!binding || !bindings.has(binding) || (parent?.type === 'ObjectProperty' && mod.index.parent.get(parent)?.type === 'ObjectPattern')) continue;
    // the declaration itself is not a read
    if (binding.kind !== 'param' && 'declarator' in binding && binding.declarator.id.start! <= id.start! && id.end! <= binding.declarator.id.end!) continue;
    return true;
  }
  const text = mod.source.slice(region.start!, region.end!);
  return new RegExp(`\\[\\s*['"]${member}['"]\\s*\\]|['"]${member}['"]\\s+in\\s`).test(text);
}

function pickFreeName(mod: ModuleUnit, options: string[]): string {
  const taken = new Set<string>();
  for (const scope of mod.index.scopes.values()) for (const name of scope.keys()) taken.add(name);
  return options.find((n) => !taken.has(n)) ?? `${options[0]}${mod.index.identifiers.length}`;
}

/** A value the interpreter knows completely (every field a constant), as the initialize path holds it. */
function getKnownValue(facts: FileFacts, value: Val, paths: MessagePath[]): KnownValue | null {
  const init = paths.find((p) => p.method === 'initialize');
  if (!init) return null;
  const known = (v: Val, depth: number): KnownValue | null => {
    if (depth > 6) return null;
    if (v.k === 'lit') return { k: 'lit', value: v.value };
    if (v.k !== 'obj') return null;
    const fields = facts.interp.getFields(v, init.path.state, init.parseFrame);
    if (!fields) return null;
    const out: Array<[string, KnownValue]> = [];
    for (const [k, f] of fields) {
      const inner = known(f, depth + 1);
      if (inner === null) return null;
      out.push([k, inner]);
    }
    return { k: 'obj', fields: out };
  };
  return known(value, 0);
}


function getCapabilityKeys(facts: FileFacts, value: Val | null, paths: MessagePath[]): string[] | null {
  if (!value) return [];
  const init = paths.find((p) => p.method === 'initialize');
  if (!init) return null;
  const fields = facts.interp.getFields(value, init.path.state, init.parseFrame);
  return fields ? [...fields.keys()] : null;
}


/** The first frame after the parse that was handed the message and holds every reply of the path. */
/**
 * Every function that could be the dispatcher of one path, outermost first: each function handed the
 * message (or a member of it) whose run holds every reply of the path, then the function that parsed it
 * when the replies are written there (inline dispatch). Keyed by function and call site.
 */
function getDispatcherOptions(p: MessagePath, isHelper: (frame: Frame) => boolean): { key: string; d: Dispatcher }[] {
  const out: { key: string; d: Dispatcher }[] = [];
  const parseCall = (p.events[p.parseIndex] as Extract<Event, { e: 'parse' }>).call;
  for (let i = p.parseIndex + 1; i < p.events.length; i++) {
    const e = p.events[i]!;
    if (e.e !== 'enter' || !e.frame.fn || !e.frame.call || !e.args.some((a) => isShallowMessageValue(a) && a.k !== 'text')) continue;
    // every reply is written inside its run, or built there and returned out of it (`out(await handle(msg))`)
    const holds = p.replies.every((r) => isWithinFrame(r.event.frame, e.frame) || isReturnedFrom(r.event, e.frame));
    if (!holds) continue;
    // a writer handed the id (`sendResult(msg.id, result)`) writes the reply, it does not choose it
    if (isHelper(e.frame) && !e.args.some((a) => a.k === 'msg')) continue;
    const call = e.frame.call;
    // a listener run by emit(): its call site neither names it nor returns its value
    if (call.type !== 'CallExpression' || e.frame.indirect) continue;
    const key = `fn:${e.frame.fn.start}:${e.frame.mod.path}:${call.start}`;
    if (out.some((o) => o.key === key)) continue;
    const callMod = e.frame.caller?.mod ?? e.frame.mod;
    // an argument named by a variable holding the message (a wrapper's parameter) is the message too
    const messageArgs = new Set<t.Node>(call.arguments.filter((arg, j) => arg.type === 'Identifier' && e.args[j]?.k === 'msg'));
    out.push({ key, d: { kind: 'function', fn: e.frame.fn, mod: e.frame.mod, call, callMod, callFrameFn: e.frame.caller?.fn ?? null, parseCall, messageBinding: getMessageBinding(callMod, parseCall), messageArgs } });
  }
  // replies written in the frame that parsed the message: dispatch inline
  if (!p.replies.every((r) => isWithinFrame(r.event.frame, p.parseFrame))) return out;
  const parseEvent = p.events[p.parseIndex] as Extract<Event, { e: 'parse' }>;
  const statement = getEnclosingStatement(p.parseFrame.mod, parseEvent.call);
  if (!statement || !p.parseFrame.fn) return out;
  out.push({ key: `inline:${statement.start}:${p.parseFrame.mod.path}`, d: { kind: 'inline', fn: p.parseFrame.fn, mod: p.parseFrame.mod, parseStatement: statement, parse: parseEvent.call } });
  return out;
}

/** The variable `JSON.parse(line)` is stored in: `const msg = ...` / `msg = ...`. */
function getMessageBinding(mod: ModuleUnit, parse: t.CallExpression): Binding | null {
  const stored = getStoredIn(mod.index, parse);
  return stored === null ? null : resolveIdentifier(mod.index, stored);
}

/** The reply object was built in a frame inside `frame` as the value of a `return` (or an arrow's expression body). */
function isReturnedFrom(write: Extract<Event, { e: 'write' }>, frame: Frame): boolean {
  const value = (write.data as Extract<WriteData, { kind: 'json' }>).value;
  let origin = value.origin;
  if (!origin?.frame || origin.node.type !== 'ObjectExpression' || !isWithinFrame(origin.frame, frame)) return false;
  return isReturnedNode(origin.frame.mod, origin.node);
}

function isReturnedNode(mod: ModuleUnit, node: t.Node): boolean {
  let current = node;
  let parent = mod.index.parent.get(current);
  while (parent && (parent.type === 'ParenthesizedExpression' || parent.type === 'TSAsExpression')) {
    current = parent;
    parent = mod.index.parent.get(current);
  }
  return (parent?.type === 'ReturnStatement' && parent.argument === current) || (parent?.type === 'ArrowFunctionExpression' && parent.body === current);
}

function findDispatcherFrame(p: MessagePath, d: Extract<Dispatcher, { kind: 'function' }>): Frame | null {
  for (let i = p.parseIndex + 1; i < p.events.length; i++) {
    const e = p.events[i]!;
    if (e.e === 'enter' && e.frame.fn === d.fn && e.frame.call === d.call) return e.frame;
  }
  return null;
}
