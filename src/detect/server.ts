// Detection: the interpreted paths of a file (analysis/facts.ts) -> what the server is (ServerModel):
// its framing, which function dispatches requests, every reply site and what its reply is (references
// to the program's code, as the analysis met it), the methods to register with the SDK, and every reason
// an exact SDK rewrite is not possible.
// READ-ONLY, and it writes no code: the planner decides, the rewriter writes the code the references
// stand for (rewrite/sdk-code.ts) and edits.
import { t } from '../babel.js';
import { type AstIndex, type Binding, getBindingWrites, getNumericValue, getStringValue, type FunctionNode, getEnclosingFunction, getLine, getMemberName, getMemberPath, getStaticKey, getThisScope, isFunctionNode, isInside, isReferenceIdentifier, resolveIdentifier, unwrapExpression } from '../analysis/ast.js';
import { type FileFacts, isStartedElsewhere, type StdinConsumer } from '../analysis/facts.js';
import { findEnclosingFunction, type Event, type WriteData } from '../analysis/interp.js';
import { ENVELOPE_BASENAME, importsCompanion } from '../analysis/companions.js';
import { findHeaderRead } from '../analysis/input-framing.js';
import { namesMcpVocabulary, withoutComments } from '../analysis/vocabulary.js';
import { collectMessagePaths, findWriterHelpers, isLoggingHelperCall, isWithinFrame, type MessagePath } from '../analysis/messages.js';
import type { ModuleUnit } from '../analysis/program.js';
import type { SdkWiring } from '../analysis/sdk-wiring.js';
import { findStateSharedAcrossAwait } from '../analysis/queue.js';
import { getFieldNode, resolveExpr, shorten, sketchString, sourceOf } from '../analysis/render.js';
import { renderCallAt } from '../analysis/render-call.js';
import { type Frame, isShallowMessageValue, type Val } from '../analysis/values.js';
import { isMcpRequestMethod, isMcpVocabularyMethod, MCP_SERVER_CAPABILITIES, SDK_OWNED_METHODS, UNKNOWN_METHOD_MESSAGE } from '../model/mcp-methods.js';
import type { Blocker, BlockerReason } from '../model/reasons.js';
import type {
  Anchor,
  BoundaryFacts,
  CatchWrite,
  CodeRef,
  Dispatcher,
  DroppedCode,
  InitializeInfo,
  KnownValue,
  NoReplyEnd,
  RemovableBranch,
  ReplyRef,
  ReplySite,
  ReturnedCall,
  ServerModel,
  ValueRef,
} from '../model/server-model.js';
import { findPlumbing } from './plumbing.js';
import { getParseReceipt } from './receive.js';
import { isTypeScriptPath } from '../parse.js';

export const IGNORE_COMMENT = 'mcp-migrate-ignore';

export type Detection =
  | { kind: 'none' }
  | { kind: 'sdk-server'; line: number; wiring: SdkWiring }
  /** Reads stdin through Deno or Bun and speaks MCP: a server, in a runtime the tool does not rewrite. */
  | { kind: 'foreign-runtime'; runtime: 'Deno' | 'Bun'; line: number }
  /**
   * Reads stdin, parses JSON, writes to stdout and names MCP methods, but no message was followed from
   * its input to a reply: the SDK at the boundary can still take it (it needs only the I/O), else it is
   * said, never passed over.
   */
  | { kind: 'unfollowed-input'; line: number; facts: FileFacts; boundary: BoundaryFacts }
  /** The same, with the entry's stdin read only in a function nothing in the program calls: a transport others start. */
  | { kind: 'not-started'; line: number }
  | { kind: 'server'; model: ServerModel };

export function detectServer(facts: FileFacts): Detection {
  const entry = facts.entry;
  if (facts.sdkImport && facts.sdkWiring) return { kind: 'sdk-server', line: getLine(facts.sdkImport, 1), wiring: facts.sdkWiring };
  if (facts.consumers.length === 0) {
    return findForeignRuntime(facts) ?? findUnfollowedInput(facts) ?? { kind: 'none' };
  }
  const paths = collectMessagePaths(facts);
  // an input loop found but no message followed from it to a parse: not followed, said so when the file looks like a server
  if (paths.length === 0) return findUnfollowedInput(facts) ?? { kind: 'none' };
  if (!isMcp(facts, paths)) return { kind: 'none' };

  const model: ServerModel = {
    facts,
    framing: getFraming(facts, paths),
    ignored: (entry.ast.comments ?? []).some((c) => c.value.trim().startsWith(IGNORE_COMMENT)),
    line: getLine(facts.consumers[0]!.node),
    methods: [...new Set(paths.filter((p) => p.method !== null && !p.notification && p.replies.length > 0).map((p) => p.method!))],
    blockers: [],
    sdk: null,
    summary: describe(facts, paths),
    envelope: getEnvelopeFacts(facts, paths),
    boundary: { available: false, reason: 'STDIN_ELSEWHERE', detail: '', line: 0 },
  };
  // the boundary answers a method the server never names only where the server stays silent on one (its
  // own answer, with its message and data, stands wherever it gives one)
  const unknown = paths.filter((p) => !p.notification && p.method === null);
  const silentOnUnknown = unknown.length > 0 && unknown.every((p) => p.replies.length === 0);
  model.boundary = getBoundaryFacts(facts, model.framing, model.envelope.parses, model.methods, silentOnUnknown ? model.envelope.methods : null);
  const sdk = buildSdkShape(facts, paths, model.framing);
  if ('blockers' in sdk) model.blockers = sdk.blockers;
  else model.sdk = { ...sdk, plumbing: findPlumbing(facts, model.envelope.parses) };
  return { kind: 'server', model };
}

/**
 * A program is an MCP server by MCP's vocabulary, not by answering `initialize` (an ACP agent, an editor
 * plugin host, LSP and DAP servers do too): a method it answers under MCP's namespaces, an initialize
 * result declaring MCP capabilities next to its serverInfo, or, when the dispatch hides the method
 * strings (computed names), MCP's method names, protocol versions or capabilities in its source.
 */
function isMcp(facts: FileFacts, paths: MessagePath[]): boolean {
  // a server parses what it reads: a program that never JSON-parses its stdin (an interactive CLI) is not one
  if (paths.length === 0) return false;
  if (paths.some((p) => p.method !== null && isMcpVocabularyMethod(p.method))) return true;
  if (paths.some((p) => declaresMcpCapabilities(facts, p))) return true;
  const hasJsonReplies = paths.some((p) => p.replies.length > 0) || facts.sinks.length > 0;
  if (!hasJsonReplies) return false;
  // The text is read only where the dispatch hides its method names: a program whose dispatch names
  // methods of its own (`format/text`, `session/new`), none of them MCP's, is another protocol, whatever
  // its comments or strings quote.
  if (paths.some((p) => p.method !== null && !GENERIC_JSON_RPC_METHODS.has(p.method))) return false;
  return facts.program.modules.some((m) => namesMcpVocabulary(withoutComments(m)));
}

/** Methods many JSON-RPC protocols share (LSP, ACP, DAP-like services, MCP): naming one says nothing of MCP. */
const GENERIC_JSON_RPC_METHODS: ReadonlySet<string> = new Set(['initialize', 'initialized', 'ping', 'shutdown', 'exit']);

/** A result reply of this path with `serverInfo` and `capabilities` that declare tools, resources or prompts. */
function declaresMcpCapabilities(facts: FileFacts, p: MessagePath): boolean {
  for (const reply of p.replies) {
    if (reply.kind !== 'result' || reply.event.data.kind !== 'json') continue;
    const fields = facts.interp.getFields(reply.event.data.value, p.path.state, reply.event.frame);
    const result = fields?.get('result');
    const resultFields = result ? facts.interp.getFields(result, p.path.state, reply.event.frame) : null;
    const capabilities = resultFields?.has('serverInfo') ? resultFields.get('capabilities') : undefined;
    const keys = capabilities ? facts.interp.getFields(capabilities, p.path.state, reply.event.frame) : null;
    if (keys && MCP_SERVER_CAPABILITIES.some((k) => keys.has(k))) return true;
  }
  return false;
}

function getFraming(facts: FileFacts, paths: MessagePath[]): ServerModel['framing'] {
  for (const p of paths) {
    for (const e of p.events) {
      if (e.e !== 'write') continue;
      if (e.data.kind === 'header' || (e.data.kind === 'json' && e.data.framing === 'content-length')) return 'content-length';
    }
  }
  // the reader parses headers: Content-Length framing even if no reply was followed (how the server
  // reads decides, never a log line that happens to name the header)
  if (findHeaderRead(facts, paths)) return 'content-length';
  return 'ndjson';
}

function describe(facts: FileFacts, paths: MessagePath[]): string {
  const consumer = facts.consumers[0]!;
  const overGenerator = consumer.node.type === 'ForOfStatement' && unwrapExpression(consumer.node.right).type === 'CallExpression' && consumer.source.k !== 'readline';
  const input = { data: "stdin 'data' chunks", readable: "stdin 'readable' reads", line: "readline 'line' events", 'for-await': overGenerator ? 'for await over a generator of stdin lines' : 'for await over readline' }[consumer.kind];
  const methods = [...new Set(paths.filter((p) => p.method !== null && !p.notification).map((p) => p.method!))];
  const writers = new Set(facts.sinks.map((s) => s.channel));
  // (no method pinned down: a handler found by a computed name or in a table filled at run time)
  const found = methods.length === 0 ? 'no method named by the dispatch' : `${methods.length} method${methods.length === 1 ? '' : 's'}: ${methods.join(', ')}`;
  return `${input}, writes via ${[...writers].join('/') || 'nothing'}, ${found}`;
}

// ---------------------------------------------------------------- what the envelope needs

/**
 * The envelope works at the I/O boundary: it needs the message parses (the first `JSON.parse` on each
 * path) and, to answer unknown methods itself, every method the server answers. That list is only given
 * when it is complete: a table filled at run time, a handler found by a computed name or a result
 * written for a method the dispatch did not pin down leave it open.
 */
function getEnvelopeFacts(facts: FileFacts, paths: MessagePath[]): ServerModel['envelope'] {
  const frames = new Map<t.CallExpression, { mod: ModuleUnit; frames: Frame[] }>();
  for (const p of paths) {
    const e = p.events[p.parseIndex] as Extract<Event, { e: 'parse' }>;
    const seen = frames.get(e.call);
    if (seen) seen.frames.push(e.frame);
    else frames.set(e.call, { mod: e.frame.mod, frames: [e.frame] });
  }
  const parses = [...frames].map(([call, { mod, frames: seen }]) => ({ call, mod, receipt: getParseReceipt(mod, call, seen) }));
  const requests = paths.filter((p) => !p.notification);
  const computed = requests.some((p) => p.events.some((e) => e.e === 'computed-key'));
  const runtime = requests.some((p) => p.method === null && p.events.some((e) => e.e === 'runtime-table'));
  // a method answered with a result where the dispatch did not pin the method down: the list is open
  const openResult = requests.some((p) => p.method === null && p.replies.some((r) => r.kind === 'result'));
  // a writer handed to a timer or a promise callback may answer later, unseen: the list is open
  const deferred = requests.some((p) => p.events.some((e) => e.e === 'effect' && e.what === 'callback'));
  const answersUnknown = answersUnknownMethods(facts, requests);
  // (only where the server says nothing to a method it does not know: its own answer, with its message
  // and data, stands wherever it gives one; and never a method the program names anywhere)
  const unknown = requests.filter((p) => p.method === null);
  const silentOnUnknown = unknown.length > 0 && unknown.every((p) => p.replies.length === 0);
  let methods: string[] | null = null;
  if (!computed && !runtime && !openResult && !deferred && !facts.incomplete && !answersUnknown && silentOnUnknown) {
    methods = [...new Set(requests.filter((p) => p.method !== null && p.replies.length > 0).map((p) => p.method!))];
    // no answered method seen at all: the replies were not recognised, and an empty list would refuse everything
    if (methods.length === 0) methods = null;
    else methods = [...new Set([...methods, ...getNamedMethods(facts)])];
  }
  return { parses, methods, unansweredEnds: methods === null ? findUnansweredEnds(requests) : [], answersUnknownMethods: answersUnknown };
}

/**
 * Whether every request for a method the dispatch does not know is answered with an error that is
 * -32601 after the helper's correction: that code already, or a generic one (none, -32603, -32600,
 * -32000 to -32099) on a message that says the method is unknown (`Method ${m} not found`).
 */
function answersUnknownMethods(facts: FileFacts, requests: MessagePath[]): boolean {
  const unknown = requests.filter((p) => p.method === null);
  if (unknown.length === 0) return false;
  return unknown.every((p) => p.replies.length > 0 && p.replies.every((r) => r.kind === 'error' && isUnknownMethodError(facts, p, r.event)));
}

function isUnknownMethodError(facts: FileFacts, p: MessagePath, event: Extract<Event, { e: 'write' }>): boolean {
  if (event.data.kind !== 'json') return false;
  const state = p.path.state;
  const error = facts.interp.getFields(event.data.value, state, event.frame)?.get('error');
  if (!error) return false;
  const fields = facts.interp.getFields(error, state, event.frame);
  const code = fields ? fields.get('code') : undefined;
  if (code?.k === 'lit' && code.value === -32601) return true;
  const generic = code === undefined || (code.k === 'lit' && typeof code.value === 'number' && (code.value === -32603 || code.value === -32600 || (code.value <= -32000 && code.value >= -32099)));
  if (!generic) return false;
  // the message as written: a literal, or the source of the template or concatenation that builds it
  const message = fields ? fields.get('message') : error;
  if (!message) return false;
  if (message.k === 'lit') return typeof message.value === 'string' && UNKNOWN_METHOD_MESSAGE.test(message.value);
  const origin = message.origin;
  if (!origin || (origin.node.type !== 'TemplateLiteral' && origin.node.type !== 'BinaryExpression')) return false;
  return UNKNOWN_METHOD_MESSAGE.test(sketchString(origin.node));
}

/**
 * Where the handling of a request for an unknown method ends without a reply (a dispatch that stays
 * silent): the envelope answers -32601 there. Only for paths that did not pin the method down, and
 * never where a callback could still reply later.
 */
function findUnansweredEnds(requests: MessagePath[]): NoReplyEnd[] {
  const ends = new Map<t.Node, NoReplyEnd>();
  // no reply recognised on any path: the writes were not understood, so no path is known to be silent
  if (!requests.some((p) => p.replies.length > 0)) return [];
  // where each path's handling ends: the function handed the message, else the one that parsed it
  const endOf = (p: MessagePath): { frame: Frame; leave: Extract<Event, { e: 'leave' }> } | null => {
    const enter = p.events.find((e, i): e is Extract<Event, { e: 'enter' }> => i > p.parseIndex && e.e === 'enter' && e.frame.fn !== null && e.args.some((a) => isShallowMessageValue(a) && a.k !== 'text'));
    const frame = enter?.frame ?? (p.parseFrame.fn !== null ? p.parseFrame : null);
    if (!frame) return null;
    const leave = p.events.find((e, i): e is Extract<Event, { e: 'leave' }> => i > p.parseIndex && e.e === 'leave' && e.frame === frame);
    return leave ? { frame, leave } : null;
  };
  // an end answered requests also reach may come before their reply (one written from a .then): no send there
  const sharedEnds = new Set<t.Node>();
  for (const p of requests) {
    if (p.replies.length === 0) continue;
    const end = endOf(p);
    if (end) sharedEnds.add(end.leave.node ?? end.frame.fn!);
  }
  for (const p of requests) {
    if (p.method !== null || p.replies.length > 0) continue;
    if (p.events.some((e) => e.e === 'effect' && e.what === 'callback')) continue;
    const end = endOf(p);
    if (!end || end.leave.how !== 'return') continue;
    const { frame, leave } = end;
    const fn = frame.fn!;
    if (sharedEnds.has(leave.node ?? fn)) continue;
    if (leave.node?.type === 'ReturnStatement' && !leave.node.argument) ends.set(leave.node, { kind: 'return', node: leave.node, mod: frame.mod, fn, reason: 'unknown-method' });
    else if (!leave.node && fn.body.type === 'BlockStatement') ends.set(fn, { kind: 'end', node: fn, mod: frame.mod, fn, reason: 'unknown-method' });
  }
  return [...ends.values()];
}

// ---------------------------------------------------------------- the SDK shape

type Shape = Omit<NonNullable<ServerModel['sdk']>, 'plumbing'>;

function buildSdkShape(facts: FileFacts, paths: MessagePath[], framing: ServerModel['framing']): Shape | { blockers: Blocker[] } {
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

/** A value as an expression to write elsewhere: where it was computed, else the literal it is; null when neither. */
function toValueRef(value: Val, mod: ModuleUnit): ValueRef | null {
  if (value.origin) return { code: { node: value.origin.node, frame: value.origin.frame, mod: value.origin.frame?.mod ?? mod } };
  return value.k === 'lit' ? { known: { k: 'lit', value: value.value } } : null;
}

function getCapabilityKeys(facts: FileFacts, value: Val | null, paths: MessagePath[]): string[] | null {
  if (!value) return [];
  const init = paths.find((p) => p.method === 'initialize');
  if (!init) return null;
  const fields = facts.interp.getFields(value, init.path.state, init.parseFrame);
  return fields ? [...fields.keys()] : null;
}

function isSdkOwned(method: string): boolean {
  return (SDK_OWNED_METHODS as readonly string[]).includes(method);
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
  let node: t.Node = parse;
  let parent = mod.index.parent.get(node);
  while (parent && (parent.type === 'TSAsExpression' || parent.type === 'ParenthesizedExpression' || parent.type === 'TSNonNullExpression' || parent.type === 'TSTypeAssertion')) {
    node = parent;
    parent = mod.index.parent.get(node);
  }
  if (parent?.type === 'VariableDeclarator' && parent.init === node && parent.id.type === 'Identifier') return resolveIdentifier(mod.index, parent.id);
  if (parent?.type === 'AssignmentExpression' && parent.right === node && parent.left.type === 'Identifier') return resolveIdentifier(mod.index, parent.left);
  return null;
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

// ---------------------------------------------------------------- reply sites

function analyseSite(
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
function getEnclosingStatement(mod: ModuleUnit, node: t.Node): t.Statement | null {
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


// ---------------------------------------------------------------- unknown methods

/** Where the dispatcher's run ends on a path without a reply: a `return;` (or `return null`), or the end of its body. */
function findNoReplyEnd(p: MessagePath, d: Dispatcher): Omit<NoReplyEnd, 'reason'> | null {
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
function getNoReplyReason(p: MessagePath): NoReplyEnd['reason'] {
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
function findDeadReplyGuards(facts: FileFacts, paths: MessagePath[], d: Dispatcher): RemovableBranch[] {
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
function findSdkOwnedBranches(facts: FileFacts, paths: MessagePath[], d: Dispatcher): RemovableBranch[] {
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
function findSdkOwnedCode(facts: FileFacts, paths: MessagePath[], helpers: (frame: Frame) => boolean): { dropped: DroppedCode[]; effect: { node: t.Node; mod: ModuleUnit; method: string } | null } {
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
function findWriterLogging(facts: FileFacts, paths: MessagePath[], helpers: (frame: Frame) => boolean): DroppedCode[] {
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
function findCodeAtInputEnd(facts: FileFacts, mod: ModuleUnit, loop: t.ForOfStatement): t.Node | null {
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

// ---------------------------------------------------------------- initialize

function getInitializeInfo(facts: FileFacts, paths: MessagePath[], block: (code: BlockerReason, node: t.Node | null, detail: string) => void): InitializeInfo | null {
  const init = paths.find((p) => p.method === 'initialize' && !p.notification && p.replies.some((r) => r.kind === 'result'));
  if (!init) {
    // no path reaches a branch for one method: the dispatch is what was not understood, not initialize
    if (!paths.some((p) => p.method !== null)) block('NO_DISPATCH', facts.consumers[0]!.node, 'no request reaches a branch for a method the analysis can name: the lookup on `method` is not one it follows');
    else block('NO_SERVER_INFO', facts.consumers[0]!.node, 'no initialize reply was found');
    return null;
  }
  const reply = init.replies.find((r) => r.kind === 'result')!;
  const value = (reply.event.data as Extract<WriteData, { kind: 'json' }>).value;
  const fields = facts.interp.getFields(value, init.path.state, reply.event.frame);
  const result = fields?.get('result');
  const resultFields = result ? facts.interp.getFields(result, init.path.state, reply.event.frame) : null;
  if (!resultFields || !resultFields.has('serverInfo')) {
    block('NO_SERVER_INFO', reply.event.call, 'the initialize result has no serverInfo the tool can read');
    return null;
  }
  // state the initialize handler changes would be lost: the SDK answers initialize itself
  // (only in the code handling the message: the input side's own state, a line buffer, goes with the loop)
  const effects = init.events
    .slice(init.parseIndex)
    .filter((e) => e.e === 'effect' && e.what === 'assign' && isWithinFrame(e.frame, init.parseFrame) && !isDeadStore(facts, e));
  if (effects.length > 0) {
    block('SDK_OWNED_SIDE_EFFECTS', effects[0]!.e === 'effect' ? (effects[0] as Extract<Event, { e: 'effect' }>).node : null, 'the initialize handler changes server state');
    return null;
  }
  // the fields as written in the reply, so a constant keeps its name (`serverInfo: SERVER_INFO`)
  const origin = value.origin;
  const written = (name: string) => {
    const inReply = origin && origin.node.type === 'ObjectExpression' ? getFieldNode(origin.node, origin.frame, origin.frame?.mod ?? facts.entry, 'result') : null;
    const found = inReply ? getFieldNode(inReply.node, inReply.frame, inReply.mod, name) : null;
    if (found) return found;
    // the result built elsewhere (`result: await handler(params)`): the object the handler returned
    const built = result?.origin;
    if (!built || built.node.type !== 'ObjectExpression') return null;
    return getFieldNode(built.node, built.frame, built.frame?.mod ?? facts.entry, name);
  };
  return {
    serverInfo: resultFields.get('serverInfo')!,
    capabilities: resultFields.get('capabilities') ?? null,
    instructions: resultFields.get('instructions') ?? null,
    written: { serverInfo: written('serverInfo'), capabilities: written('capabilities'), instructions: written('instructions') },
  };
}

/**
 * An assignment to state nothing ever reads (`clientName = params.clientInfo.name` with no reader):
 * dropping or reordering it cannot change what the server does.
 */
function isDeadStore(facts: FileFacts, e: Event): boolean {
  if (e.e !== 'effect' || e.what !== 'assign') return false;
  const node = e.node;
  const target = node.type === 'AssignmentExpression' ? node.left : node.type === 'UpdateExpression' ? node.argument : null;
  if (!target) return false;
  const mod = e.frame.mod;
  if (target.type === 'Identifier') {
    const binding = resolveIdentifier(mod.index, target);
    if (!binding) return false;
    // an exported binding may be read by another module
    if (getExportedLocalNames(mod).has(target.name)) return false;
    for (const id of mod.index.identifiers) {
      if (id === target || id.name !== target.name) continue;
      if (resolveIdentifier(mod.index, id) !== binding) continue;
      const parent = mod.index.parent.get(id);
      const written = (parent?.type === 'AssignmentExpression' && parent.left === id && parent.operator === '=') || parent?.type === 'VariableDeclarator';
      if (!written && !isLoggedOnly(facts, mod, id)) return false;
    }
    return true;
  }
  if (target.type === 'MemberExpression' && target.object.type === 'ThisExpression') {
    const name = getMemberName(target);
    if (name === null) return false;
    for (const m of facts.program.modules) {
      for (const member of m.index.members) {
        if (member === target || getMemberName(member) !== name) continue;
        const parent = m.index.parent.get(member);
        if (!(parent?.type === 'AssignmentExpression' && parent.left === member && parent.operator === '=') && !isLoggedOnly(facts, m, member)) return false;
      }
    }
    return true;
  }
  return false;
}

/**
 * A read that only feeds a log line: inside the arguments of `console.*(...)`, `process.stderr.write(...)`
 * or a helper that can only write to stderr (`` log(`#${this.count} <- ${method}`) ``). A counter kept for
 * the log is no state a client can see.
 */
function isLoggedOnly(facts: FileFacts, mod: ModuleUnit, node: t.Node): boolean {
  let child: t.Node = node;
  for (let parent = mod.index.parent.get(node); parent; child = parent, parent = mod.index.parent.get(parent)) {
    if (isFunctionNode(parent) || t.isStatement(parent)) return false;
    if (parent.type !== 'CallExpression' || parent.callee === child) continue;
    const callee = unwrapExpression(parent.callee);
    if (callee.type === 'MemberExpression') {
      const object = unwrapExpression(callee.object);
      if (object.type === 'Identifier' && object.name === 'console' && resolveIdentifier(mod.index, object) === null) return true;
      if (object.type === 'MemberExpression' && getMemberName(object) === 'stderr' && object.object.type === 'Identifier' && object.object.name === 'process' && getMemberName(callee) === 'write') return true;
    }
    return isLoggingHelperCall(facts, mod, parent);
  }
  return false;
}

/** Local names a module exports (ES `export` declarations and specifiers, CommonJS `exports.x = x`). */
function getExportedLocalNames(mod: ModuleUnit): Set<string> {
  const names = new Set<string>();
  for (const statement of mod.ast.program.body) {
    if (statement.type === 'ExportNamedDeclaration') {
      const d = statement.declaration;
      if (d?.type === 'VariableDeclaration') for (const decl of d.declarations) if (decl.id.type === 'Identifier') names.add(decl.id.name);
      for (const spec of statement.specifiers) if (spec.type === 'ExportSpecifier') names.add(spec.local.name);
    }
    if (statement.type === 'ExpressionStatement' && statement.expression.type === 'AssignmentExpression') {
      const right = statement.expression.right;
      if (right.type === 'Identifier') names.add(right.name);
      if (right.type === 'ObjectExpression') for (const p of right.properties) if (p.type === 'ObjectProperty' && p.value.type === 'Identifier') names.add(p.value.name);
    }
  }
  return names;
}

export type { StdinConsumer, Val };


/**
 * A file that looks like an MCP stdio server although the analysis follows no message of it: some module of
 * its program reads the process's stdin (through any binding of `process`: the global, an import or require
 * of `node:process`, a compiler's interop wrapper around one), it parses JSON, writes to stdout and names
 * MCP's vocabulary. It is reported as left alone rather than passed over as "nothing to migrate".
 */
function findUnfollowedInput(facts: FileFacts): Extract<Detection, { kind: 'unfollowed-input' | 'not-started' }> | null {
  if (facts.parses.length === 0) return null;
  const modules = facts.program.modules;
  if (!modules.some((m) => namesMcpVocabulary(withoutComments(m)))) return null;
  if (facts.sinks.length === 0 && !facts.stdio.some((r) => r.stream === 'stdout')) return null;
  // the entry's own read first: the line shown is in the file reported
  const reads = facts.stdio.filter((r) => r.stream === 'stdin');
  const stdin = reads.find((r) => r.mod === facts.entry) ?? reads[0];
  if (stdin === undefined) return null;
  if (isStartedElsewhere(facts, stdin.mod, stdin.node)) return { kind: 'not-started', line: getLine(stdin.node) };
  // (read in an imported module: the line of the entry's first import names no read; the top of the file)
  const line = stdin.mod === facts.entry ? getLine(stdin.node) : 1;
  // no message was followed, so the framing is known only from the text: a Content-Length reader names the header
  const framing = modules.some((m) => /content-length/i.test(withoutComments(m))) ? 'content-length' : 'ndjson';
  return { kind: 'unfollowed-input', line, facts, boundary: getBoundaryFacts(facts, framing, [], getNamedMcpMethods(facts), null) };
}

// ---------------------------------------------------------------- what the SDK at the boundary needs

/**
 * The SDK at the boundary takes a newline-framed server whose stdin it can replace: the program names
 * the process's stdin (every way it reads its messages starts there), and it writes to stdout where the
 * analysis sees it (a write to fd 1, or a place that names the stream).
 */
function getBoundaryFacts(facts: FileFacts, framing: ServerModel['framing'], parses: { call: t.CallExpression; mod: ModuleUnit }[], methods: string[], answered: string[] | null): BoundaryFacts {
  const line = facts.consumers[0] ? getLine(facts.consumers[0].node) : 0;
  if (facts.program.modules.some((m) => importsCompanion(m, ENVELOPE_BASENAME))) return { available: false, reason: 'ENVELOPE_IN_PLACE', detail: 'the server already uses the envelope helper', line };
  if (framing === 'content-length') return { available: false, reason: 'CONTENT_LENGTH_FRAMING', detail: 'messages are framed with Content-Length headers', line };
  const stdin = facts.stdio.filter((r) => r.stream === 'stdin');
  if (stdin.length === 0) return { available: false, reason: 'STDIN_ELSEWHERE', detail: 'no module of the program names process.stdin', line };
  const stdout = facts.stdio.filter((r) => r.stream === 'stdout');
  if (facts.sinks.length === 0 && stdout.length === 0) return { available: false, reason: 'STDIN_ELSEWHERE', detail: 'no write to stdout was found in the modules the analysis reads', line };
  // What the boundary refuses (-32601) rather than hand to the server. Where every method the server
  // answers is known (it is silent on the others): any other than those and the ones it names. Where that
  // is not known: a namespaced method outside MCP's namespaces (`mcp-migrate/no-such-method`) that no
  // string of the program names, which no code of it can answer; where the program builds member names
  // from text (`this['handle_' + m.replace('/', '_')]`), also none such a name can reach; where it builds
  // them in a way the analysis cannot invert, nothing is refused.
  const named = getNamedMethods(facts);
  const known = answered === null ? null : [...new Set([...answered, ...named])];
  const built = answered === null ? getBuiltNameStems(facts) : null;
  const namespaced = answered !== null || built === 'open' ? null : named.filter((m) => !isMcpVocabularyMethod(m));
  const stems = built === null || built === 'open' ? null : built;
  return { available: true, stdin, stdout, sinks: facts.sinks, parses, methods: methods.filter((m) => isMcpRequestMethod(m)), known, namespaced, stems };
}

/**
 * What member names the program builds from text can reach. A read `obj[key]` whose key is built from
 * one value by operations that keep its letters and digits in order (`'handle_' + m.split('/').join('_')`,
 * `` `on_${m.replace('/', '_')}` ``, `m.toLowerCase()`; through a constant that holds such a key) reaches
 * a name of the program only if that name's letters and digits are the key's constant parts around the
 * value's: the stems are those middles, lower-cased (`tools/list` reaches `handle_tools_list` through the
 * stem `toolslist`). Null when the program builds no key; 'open' when one is built some other way
 * (two values, `slice`, a replacement function), or when the stems are too many to list.
 */
function getBuiltNameStems(facts: FileFacts): string[] | 'open' | null {
  const forms: { prefix: string; suffix: string }[] = [];
  for (const mod of facts.program.modules) {
    for (const member of mod.index.members) {
      if (!member.computed) continue;
      const key = getBuiltKey(mod.index, member.property);
      if (key === null) continue;
      const form = getKeyForm(mod.index, key);
      if (form === null) return 'open';
      forms.push({ prefix: toStem(form.prefix), suffix: toStem(form.suffix) });
    }
  }
  if (forms.length === 0) return null;
  const names = new Set<string>();
  for (const mod of facts.program.modules) {
    for (const id of mod.index.identifiers) names.add(id.name);
    for (const value of mod.index.stringValues) names.add(value);
  }
  const stems = new Set<string>();
  for (const name of names) {
    const stem = toStem(name);
    for (const { prefix, suffix } of forms) {
      if (stem.length > prefix.length + suffix.length && stem.startsWith(prefix) && stem.endsWith(suffix)) stems.add(stem.slice(prefix.length, stem.length - suffix.length));
    }
  }
  return stems.size > MAX_STEMS ? 'open' : [...stems].sort();
}

const MAX_STEMS = 2000;

/** The letters and digits of a name, lower-cased: what operations that keep them in order cannot change. */
function toStem(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The key of a computed member read when the program builds it from text (directly, or in a constant it reads), else null. */
function getBuiltKey(index: AstIndex, property: t.Node, depth = 0): t.Node | null {
  const key = unwrapExpression(property);
  if (key.type === 'Identifier' && depth < 3) {
    const binding = resolveIdentifier(index, key);
    if (binding === null || (binding.kind !== 'const' && binding.kind !== 'let') || binding.pattern.length > 0) return null;
    const init = binding.declarator.init;
    if (!init || getBindingWrites(index, binding).length > 0) return null;
    return getBuiltKey(index, init, depth + 1);
  }
  return isBuiltName(index, key) ? key : null;
}

/** A built key's constant text before and after the value it is built from, or null when it is built some other way. */
function getKeyForm(index: AstIndex, key: t.Node): { prefix: string; suffix: string } | null {
  const parts = getConcatParts(index, key);
  if (parts === null) return null;
  const values = parts.flatMap((p, i) => (typeof p === 'string' ? [] : [i]));
  if (values.length === 0 || !keepsLettersOfParts(index, parts, null)) return null;
  return { prefix: parts.slice(0, values[0]).join(''), suffix: parts.slice(values[values.length - 1]! + 1).join('') };
}

/** The texts and values a string concatenation (`+`, a template) is made of, in order; null for a template that does not cook. */
function getConcatParts(index: AstIndex, node: t.Node): (string | t.Node)[] | null {
  const parts: (string | t.Node)[] = [];
  const flatten = (node: t.Node): boolean => {
    const inner = unwrapExpression(node);
    const text = getConstantText(index, inner);
    if (text !== null) return parts.push(text) > 0;
    if (inner.type === 'TemplateLiteral') {
      if (inner.quasis.some((q) => typeof q.value.cooked !== 'string')) return false;
      inner.quasis.forEach((quasi, i) => {
        parts.push(quasi.value.cooked!);
        if (i < inner.expressions.length) parts.push(inner.expressions[i]!);
      });
      return true;
    }
    if (inner.type === 'BinaryExpression' && inner.operator === '+') return flatten(inner.left) && flatten(inner.right);
    return parts.push(inner) > 0;
  };
  return flatten(node) ? parts : null;
}

/**
 * Whether a concatenation keeps the letters and digits of one value in order: one value (kept in order),
 * or one value cut in two at the same place and put back (`p.charAt(0).toUpperCase() + p.slice(1)`),
 * with no letters between them. `base`: the name the value must be read from (null: any).
 */
function keepsLettersOfParts(index: AstIndex, parts: (string | t.Node)[], base: string | null): boolean {
  const values = parts.flatMap((p) => (typeof p === 'string' ? [] : [p]));
  const first = parts.findIndex((p) => typeof p !== 'string');
  const last = parts.length - 1 - [...parts].reverse().findIndex((p) => typeof p !== 'string');
  if (parts.slice(first, last + 1).some((p) => typeof p === 'string' && toStem(p) !== '')) return false;
  if (values.length === 1) return keepsLettersInOrder(index, values[0]!, base);
  if (values.length !== 2) return false;
  const head = getCut(values[0]!, 'head');
  const tail = getCut(values[1]!, 'tail');
  return head !== null && tail !== null && head.at === tail.at && head.base === tail.base && (base === null || head.base === base);
}

/**
 * A value's first `at` characters (`p.charAt(0)`, `p[0]`, `p.slice(0, 2)`, case changed or not) or the
 * rest from `at` (`p.slice(1)`, `p.substring(1)`): the name it is read from and the place of the cut.
 */
function getCut(node: t.Node, side: 'head' | 'tail'): { base: string; at: number } | null {
  let inner = unwrapExpression(node);
  while (isCaseChange(inner)) inner = unwrapExpression(((inner as t.CallExpression).callee as t.MemberExpression).object);
  if (side === 'head' && inner.type === 'MemberExpression' && inner.computed && inner.object.type === 'Identifier' && getNumericValue(inner.property) === 0) return { base: inner.object.name, at: 1 };
  if (inner.type !== 'CallExpression' || inner.callee.type !== 'MemberExpression' || inner.callee.computed || inner.callee.property.type !== 'Identifier' || inner.callee.object.type !== 'Identifier') return null;
  const base = inner.callee.object.name;
  const method = inner.callee.property.name;
  const args = inner.arguments.map((a) => getNumericValue(a));
  if (args.some((a) => a === null || a < 0 || !Number.isInteger(a))) return null;
  if (side === 'head') {
    if ((method === 'charAt' || method === 'at') && args.length === 1 && args[0] === 0) return { base, at: 1 };
    if ((method === 'slice' || method === 'substring' || method === 'substr') && args.length === 2 && args[0] === 0 && args[1]! > 0) return { base, at: args[1]! };
    return null;
  }
  if ((method === 'slice' || method === 'substring' || method === 'substr') && args.length === 1 && args[0]! > 0) return { base, at: args[0]! };
  return null;
}

function isCaseChange(node: t.Node): boolean {
  if (node.type !== 'CallExpression' || node.arguments.length > 0) return false;
  const callee = node.callee;
  return callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier' && CASE_CHANGES.has(callee.property.name);
}

const CASE_CHANGES = new Set(['toLowerCase', 'toUpperCase', 'toLocaleLowerCase', 'toLocaleUpperCase']);

/**
 * A value, or one derived from it by operations that keep its letters and digits in order and add none:
 * case changes, `trim`, replacing punctuation by punctuation, `split(sep)` then `join(other)`, with a
 * `map` between them whose function keeps each part's letters so. `base`: the name the value must be read from (null: any).
 */
function keepsLettersInOrder(index: AstIndex, node: t.Node, base: string | null, depth = 0): boolean {
  const inner = unwrapExpression(node);
  if (inner.type === 'Identifier') return base === null ? isReadValue(index, inner, depth) : inner.name === base;
  // a field of an object (`msg.method`): the value as it was read
  if ((inner.type === 'MemberExpression' || inner.type === 'OptionalMemberExpression') && !inner.computed) return base === null;
  if (inner.type === 'BinaryExpression' || inner.type === 'TemplateLiteral') {
    const parts = inner.type === 'TemplateLiteral' || inner.operator === '+' ? getConcatParts(index, inner) : null;
    return parts !== null && keepsLettersOfParts(index, parts, base);
  }
  if (inner.type !== 'CallExpression' && inner.type !== 'OptionalCallExpression') return false;
  const callee = inner.callee;
  if ((callee.type !== 'MemberExpression' && callee.type !== 'OptionalMemberExpression') || callee.computed || callee.property.type !== 'Identifier') return false;
  const args = inner.arguments;
  switch (callee.property.name) {
    case 'toLowerCase':
    case 'toUpperCase':
    case 'toLocaleLowerCase':
    case 'toLocaleUpperCase':
    case 'trim':
      return args.length === 0 && keepsLettersInOrder(index, callee.object, base, depth);
    case 'replace':
    case 'replaceAll':
      return args.length === 2 && matchesNoLetters(args[0]!) && addsNoLetters(args[1]!) && keepsLettersInOrder(index, callee.object, base, depth);
    case 'join': {
      // parts.split(sep)[.map(part => ...)].join(other): the letters in order, the separators changed
      if (args.length > 1 || (args.length === 1 && !addsNoLetters(args[0]!))) return false;
      let split = unwrapExpression(callee.object);
      if (isMemberCall(split, 'map')) {
        const fn = split.arguments.length === 1 ? split.arguments[0]! : null;
        if (fn === null || !mapsKeepLetters(index, fn)) return false;
        split = unwrapExpression((split.callee as t.MemberExpression).object);
      }
      return isMemberCall(split, 'split') && split.arguments.length === 1 && matchesNoLetters(split.arguments[0]!) && keepsLettersInOrder(index, (split.callee as t.MemberExpression).object, base, depth);
    }
    default:
      return false;
  }
}

/**
 * A name holding a value as it was read (a parameter, a destructured field, a catch or loop variable), or
 * a constant whose value keeps the letters of one so (`const name = method.replace('/', '_')`); not one
 * computed some other way (`const name = method.split('/')[1]`, `ALIASES[method]`) or assigned again.
 */
function isReadValue(index: AstIndex, id: t.Identifier, depth: number): boolean {
  const binding = resolveIdentifier(index, id);
  if (binding === null) return false;
  if (getBindingWrites(index, binding).length > 0) return false;
  if (binding.kind === 'param' || binding.kind === 'catch') return true;
  if (binding.kind !== 'const' && binding.kind !== 'let' && binding.kind !== 'var') return false;
  if (binding.pattern.length > 0) return true;
  const init = binding.declarator.init;
  if (init === null || init === undefined) return binding.declarator.id.type === 'Identifier' && isLoopVariable(index, binding.declarator);
  return depth < 4 && keepsLettersInOrder(index, init, null, depth + 1);
}

/** A declarator of a `for (const x of ...)` / `for (const x in ...)` loop: its value is read from what it loops over. */
function isLoopVariable(index: AstIndex, declarator: t.VariableDeclarator): boolean {
  const declaration = index.parent.get(declarator);
  const loop = declaration === undefined ? undefined : index.parent.get(declaration);
  return loop !== undefined && (loop.type === 'ForOfStatement' || loop.type === 'ForInStatement') && loop.left === declaration;
}

function isMemberCall(node: t.Node, name: string): node is t.CallExpression {
  return node.type === 'CallExpression' && node.callee.type === 'MemberExpression' && !node.callee.computed && node.callee.property.type === 'Identifier' && node.callee.property.name === name;
}

/** A function given to `map` that keeps the letters of the part it is given in order (`(p) => p.charAt(0).toUpperCase() + p.slice(1)`). */
function mapsKeepLetters(index: AstIndex, fn: t.Node): boolean {
  if (fn.type !== 'ArrowFunctionExpression' && fn.type !== 'FunctionExpression') return false;
  const param = fn.params[0];
  if (param === undefined || param.type !== 'Identifier') return false;
  const body = fn.body.type === 'BlockStatement' ? (fn.body.body.length === 1 && fn.body.body[0]!.type === 'ReturnStatement' ? fn.body.body[0]!.argument : null) : fn.body;
  return body !== null && body !== undefined && keepsLettersInOrder(index, body, param.name);
}

/** A string or pattern argument that can only match characters other than letters and digits. */
function matchesNoLetters(node: t.Node): boolean {
  const text = getStringValue(node);
  if (text !== null) return text.length > 0 && toStem(text) === '';
  // escaped punctuation and sets of it (`/\//g`, `/[\/.]/g`): no letter, digit or class escape (`\w`)
  // anywhere, no wildcard (`.`) or negated set (`[^_]`) outside escapes
  if (node.type === 'RegExpLiteral') {
    if (/[A-Za-z0-9]/.test(node.pattern)) return false;
    const unescaped = node.pattern.replace(/\\./g, '').replace(/\[[^\]]*\]/g, (set) => (set.startsWith('[^') ? '.' : ''));
    return !unescaped.includes('.');
  }
  return false;
}

/** A replacement or separator that adds no letters or digits (`'_'`, `''`, `'-'`; no `$1`). */
function addsNoLetters(node: t.Node): boolean {
  const text = getStringValue(node);
  return text !== null && toStem(text) === '' && !text.includes('$');
}

const STRING_BUILDERS = new Set(['replace', 'replaceAll', 'join', 'concat', 'toLowerCase', 'toUpperCase', 'slice', 'substring', 'substr', 'trim', 'padStart', 'padEnd']);

/** A member key built from text (`'on' + name`, `` `handle_${m}` ``, `name.replace(...)`), not an index (`d.getDay()`). */
function isBuiltName(index: AstIndex, key: t.Node): boolean {
  if (key.type === 'TemplateLiteral') return key.expressions.length > 0;
  // a string operation's result (`name.replace('/', '_')`, `parts.join('')`), not an index (`d.getDay()`)
  if (key.type === 'CallExpression') {
    const callee = key.callee;
    return callee.type === 'MemberExpression' && callee.property.type === 'Identifier' && STRING_BUILDERS.has(callee.property.name);
  }
  // text joined to something (`'on' + name`, `PREFIX + name`), not a sum (`i + 1`)
  if (key.type === 'BinaryExpression' && key.operator === '+') return [key.left, key.right].some((side) => side.type === 'StringLiteral' || side.type === 'TemplateLiteral' || holdsText(index, side) || isBuiltName(index, side));
  return false;
}

/** A name declared with text (`const PREFIX = 'handle_'`; also `let prefix = 'on'`, whatever it is given later). */
function holdsText(index: AstIndex, node: t.Node): boolean {
  if (node.type !== 'Identifier') return false;
  const binding = resolveIdentifier(index, node);
  if (binding === null || (binding.kind !== 'const' && binding.kind !== 'let' && binding.kind !== 'var') || binding.pattern.length > 0) return false;
  const init = binding.declarator.init;
  return init !== null && init !== undefined && (getStringValue(init) !== null || init.type === 'TemplateLiteral');
}

/** The text a node holds for certain: a string literal, or a name declared with one and never assigned again. */
function getConstantText(index: AstIndex, node: t.Node): string | null {
  const text = getStringValue(node);
  if (text !== null || node.type !== 'Identifier') return text;
  const binding = resolveIdentifier(index, node);
  if (binding === null || (binding.kind !== 'const' && binding.kind !== 'let' && binding.kind !== 'var') || binding.pattern.length > 0) return null;
  const init = binding.declarator.init;
  if (init === null || init === undefined || getBindingWrites(index, binding).length > 0) return null;
  return getStringValue(init);
}

/** Every string of the program that could name a method (`tools/list`, `notes/search`, `ping`): the boundary never refuses one. */
function getNamedMethods(facts: FileFacts): string[] {
  const named = new Set<string>();
  for (const mod of facts.program.modules) for (const value of mod.index.stringValues) if (METHOD_LIKE.test(value) || isMcpRequestMethod(value)) named.add(value);
  return [...named].sort();
}

const METHOD_LIKE = /^[A-Za-z_$][\w.$-]*(?:\/[\w.$-]+)+$/;

/** The MCP methods named as strings in the program's modules (what a server whose dispatch was not followed answers). */
function getNamedMcpMethods(facts: FileFacts): string[] {
  const named = new Set<string>();
  for (const mod of facts.program.modules) for (const value of mod.index.stringValues) if (isMcpRequestMethod(value)) named.add(value);
  return [...named];
}


/** The first `<global>.stdin` in the module, for one of the global names (`Deno`, `Bun`). */
/**
 * A read of a runtime's own stdin in the module: `Deno.stdin`, `Bun.stdin` (the global, not a binding of
 * the module's), or the global destructured (`const { stdin } = Deno`).
 */
function findGlobalStdin(mod: ModuleUnit, globals: string[]): t.Identifier | null {
  for (const id of mod.index.identifiers) {
    if (!globals.includes(id.name) || !isReferenceIdentifier(mod.index, id) || resolveIdentifier(mod.index, id) !== null) continue;
    const parent = mod.index.parent.get(id);
    if (parent?.type === 'MemberExpression' && parent.object === id && getMemberName(parent) === 'stdin') return id;
    if (parent?.type === 'VariableDeclarator' && parent.init === id && parent.id.type === 'ObjectPattern' && parent.id.properties.some((p) => p.type === 'ObjectProperty' && getStaticKey(p) === 'stdin')) return id;
  }
  return null;
}

/**
 * A server on Deno or Bun: a module of the program reads the runtime's stdin, and the program parses JSON
 * and names MCP's vocabulary (its replies may build `jsonrpc` any way they like). Named, never passed over.
 */
function findForeignRuntime(facts: FileFacts): Extract<Detection, { kind: 'foreign-runtime' }> | null {
  const modules = facts.program.modules;
  if (!modules.some((m) => namesMcpVocabulary(withoutComments(m))) || !modules.some((m) => /\bJSON\b/.test(m.source))) return null;
  for (const mod of [facts.entry, ...modules.filter((m) => m !== facts.entry)]) {
    const stdin = findGlobalStdin(mod, ['Deno', 'Bun']);
    if (stdin) return { kind: 'foreign-runtime', runtime: stdin.name as 'Deno' | 'Bun', line: mod === facts.entry ? getLine(stdin) : 1 };
  }
  return null;
}
