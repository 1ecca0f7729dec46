// Detection: the interpreted paths of a file (analysis/facts.ts) -> what the server is (ServerModel):
// its framing, which function dispatches requests, every reply site and what its reply is (references
// to the program's code, as the analysis met it), the methods to register with the SDK, and every reason
// an exact SDK rewrite is not possible.
// READ-ONLY, and it writes no code: the planner decides, the rewriter writes the code the references
// stand for (rewrite/sdk-code.ts) and edits.
import { t } from '../babel.js';
import { getLine, getMemberName, getStaticKey, isReferenceIdentifier, resolveIdentifier, unwrapExpression } from '../analysis/ast.js';
import { type FileFacts, isStartedElsewhere, type StdinConsumer } from '../analysis/facts.js';
import { type Event } from '../analysis/interp.js';
import { findHeaderRead } from '../analysis/input-framing.js';
import { namesMcpVocabulary, withoutComments } from '../analysis/vocabulary.js';
import { collectMessagePaths, type MessagePath } from '../analysis/messages.js';
import type { ModuleUnit } from '../analysis/program.js';
import type { SdkWiring } from '../analysis/sdk-wiring.js';
import { sketchString } from '../analysis/render.js';
import { type Frame, isShallowMessageValue, type Val } from '../analysis/values.js';
import { isMcpRequestMethod, isMcpVocabularyMethod, MCP_SERVER_CAPABILITIES, UNKNOWN_METHOD_MESSAGE } from '../model/mcp-methods.js';
import type { BoundaryFacts, NoReplyEnd, ServerModel } from '../model/server-model.js';
import { findPlumbing } from './plumbing.js';
import { getParseReceipt } from './receive.js';
import { getBoundaryFacts, getNamedMethods } from './boundary-facts.js';
import { buildSdkShape } from './sdk-shape.js';

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
