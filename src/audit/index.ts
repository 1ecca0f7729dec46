// The compliance audit: the JSON-RPC 2.0 / MCP stdio envelope rules (RULES), read off the same facts
// every other phase reads (analysis/facts.ts): the interpreted paths of an incoming message say what
// the server writes for a request, a notification, an unknown method and a line that is not JSON.
// Read-only: it never changes anything, never prints, and never throws (an unusual construct makes a
// rule report nothing rather than fail the file).
// Rules about the hand-rolled protocol run on files detection calls a hand-rolled MCP server and whose
// paths parse what they read from stdin; `sdk-transport-bypassed` runs on programs that construct the
// SDK's StdioServerTransport on the process's own stdio.
// Where the analysis could not decide between answers to an unknown method (paths that know the same
// about the message), a -32601 on one of them is taken as the answer: the audit does not cry wolf.
import type * as t from '@babel/types';
import { getCatchClause, getColumn, getEnclosingFunction, getLine, getMemberName, getMemberPath, getNumericValue, resolveIdentifier, unwrapExpression } from '../analysis/ast.js';
import { buildFacts, type FileFacts, type SinkCall } from '../analysis/facts.js';
import type { Event, PathState, WriteData } from '../analysis/interp.js';
import { collectMessagePaths, findWriterHelpers, type MessagePath } from '../analysis/messages.js';
import type { ModuleUnit } from '../analysis/program.js';
import type { ReadModule } from '../analysis/read-module.js';
import { getFieldNode, resolveExpr, shorten, sourceOf } from '../analysis/render.js';
import { type Frame, isShallowMessageValue, type Val } from '../analysis/values.js';
import { detectServer } from '../detect/server.js';
import { assertNever } from '../model/assert-never.js';
import { isRuleId, RULES, type RuleId } from '../model/audit-rules.js';
import type { ServerModel } from '../model/server-model.js';
import type { Decision, Finding } from '../model/types.js';
import { parseSource } from '../parse.js';

export { RULES, RULE_IDS, isRuleId, type RuleId, type RuleEntry, type Severity, type Fixer } from '../model/audit-rules.js';

interface RawFinding {
  rule: RuleId;
  node: t.Node;
  mod: ModuleUnit;
  message: string;
}

export interface AuditOptions {
  /** Told about a rule that threw (it then reports nothing); for robustness runs. The audit never rethrows. */
  onError?: (rule: RuleId | 'facts', error: unknown) => void;
}

/**
 * Audits one file on its own (reading the modules it imports through `read`): the facts, detection and
 * the rules, as the pipeline runs them. For tests and tools that want findings without a plan.
 */
export function auditSource(path: string, source: string, options: AuditOptions & { read?: ReadModule } = {}): Finding[] {
  let facts: FileFacts;
  let model: ServerModel | null;
  try {
    facts = buildFacts(path, source, parseSource(path, source), options.read ?? null);
    const detection = detectServer(facts);
    model = detection.kind === 'server' ? detection.model : null;
  } catch (error) {
    options.onError?.('facts', error);
    return [];
  }
  return auditFacts(facts, model, options);
}

/**
 * The findings, one per rule and position: the entry's first, then those of the modules it imports (with
 * their `file`), each sorted by position. The rules follow the message into the modules the entry imports;
 * a reply written there is reported at the entry's call that leads to it when that call is a writer
 * helper, and where it is written otherwise (a dispatch module that builds a wrong id).
 */
export function auditFacts(facts: FileFacts, model: ServerModel | null, options: AuditOptions = {}): Finding[] {
  const raw: RawFinding[] = [];
  const run = (rule: RuleId, check: () => RawFinding[]): void => {
    try {
      raw.push(...check());
    } catch (error) {
      options.onError?.(rule, error);
    }
  };
  let transports: StdioTransport[] = [];
  try {
    transports = findStdioTransports(facts);
  } catch (error) {
    options.onError?.('sdk-transport-bypassed', error);
  }
  if (facts.sdkImport || transports.length > 0) {
    run('sdk-transport-bypassed', () => checkSdkBypassed(facts, transports));
  } else if (model !== null && facts.paths.some((p) => p.state.events.some((e) => e.e === 'parse'))) {
    // (a program that never parses what it reads from stdin is not seen speaking JSON-RPC there: an
    // interactive CLI that prints, not a server whose output could break a client)
    // The message paths and reply sites are built once, inside the first rule that needs them: when
    // building them fails, every rule that needs them reports nothing, and the others still run.
    const paths = once(() => collectMessagePaths(facts));
    const sites = once(() => new ReplySites(facts, paths()));
    run('stdout-pollution', () => checkStdoutPollution(facts, model.framing));
    run('missing-jsonrpc', () => checkMissingJsonrpc(sites()));
    run('wrong-id', () => checkWrongId(sites(), facts));
    run('nonstandard-error', () => checkNonstandardError(sites()));
    run('reply-to-notification', () => checkReplyToNotification(sites()));
    run('parse-error-unanswered', () => checkParseError(facts, sites()));
    run('unknown-method-unanswered', () => checkUnknownMethod(paths(), sites(), facts));
  }
  const seen = new Set<string>();
  const findings: Finding[] = [];
  for (const finding of raw) {
    const file = finding.mod === facts.entry ? undefined : finding.mod.path;
    const line = getLine(finding.node, 1);
    const column = getColumn(finding.mod.source, finding.node);
    const key = `${file ?? ''}:${finding.rule}:${line}:${column}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const where = file === undefined ? {} : { file };
    findings.push({ rule: finding.rule, message: finding.message, hint: RULES[finding.rule].hint, ...where, line, column, fixed: false });
  }
  return findings.sort((a, b) => compareNames(a.file, b.file) || a.line - b.line || a.column - b.column || compareNames(a.rule, b.rule));
}

/**
 * Names in code-unit order, an absent one (the entry's file) first. Rule ids are lowercase words joined
 * by hyphens, which this sorts as localeCompare does, without the collator localeCompare loads on its
 * first call (~10 ms of a worker's first file).
 */
export function compareNames(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  return a < b ? -1 : 1;
}

/** `build()` on first use, its value (or its error, thrown again) after that. */
function once<T>(build: () => T): () => T {
  let result: { value: T } | { error: unknown } | null = null;
  return () => {
    if (result === null) {
      try {
        result = { value: build() };
      } catch (error) {
        result = { error };
      }
    }
    if ('error' in result) throw result.error;
    return result.value;
  };
}

// ---------------------------------------------------------------- reply sites

/** A node, the frame it was evaluated in (a helper's parameters resolve to its call's arguments), its module. */
interface Located {
  node: t.Node;
  frame: Frame | null;
  mod: ModuleUnit;
}

/** One reply as the user wrote it: the write, or the call of the writer helper that did it. */
interface ReplySite {
  node: t.Node;
  mod: ModuleUnit;
  /** The path of the parsed message it answers; null for the answer to a line that did not parse. */
  path: MessagePath | null;
  state: PathState;
  event: Extract<Event, { e: 'write' }>;
  fields: Map<string, Val>;
  /** The object literal the reply was built from, and the frame it was built in. */
  object: Located | null;
}

/** Every JSON message written on a path after the parse, located where the user wrote it. */
class ReplySites {
  readonly all: ReplySite[] = [];

  constructor(
    private readonly facts: FileFacts,
    paths: MessagePath[],
  ) {
    const helpers = findWriterHelpers(facts, paths);
    for (const path of paths) this.collect(path.path.state, path.parseIndex, path, helpers);
    // what a line that is not JSON is answered with
    for (const result of facts.paths) {
      const failed = result.state.events.findIndex((e) => e.e === 'parse' && !e.ok);
      if (failed !== -1) this.collect(result.state, failed, null, helpers);
    }
  }

  private collect(state: PathState, from: number, path: MessagePath | null, helpers: (frame: Frame) => boolean): void {
    for (let i = from; i < state.events.length; i++) {
      const event = state.events[i]!;
      if (event.e !== 'write' || event.data.kind !== 'json') continue;
      const value = event.data.value;
      const fields = value.k === 'obj' ? this.facts.interp.getFields(value, state, event.frame) : null;
      if (!fields || (fields.has('method') && !fields.has('result') && !fields.has('error'))) continue;
      // up through the writer helpers to the call the user wrote
      let frame: Frame = event.frame;
      let node: t.Node = event.call;
      while (frame.caller && frame.call && helpers(frame)) {
        node = frame.call;
        frame = frame.caller;
      }
      const origin = value.origin;
      const object = origin && origin.node.type === 'ObjectExpression' ? { node: origin.node, frame: origin.frame, mod: origin.frame?.mod ?? frame.mod } : null;
      // built by the user (in the dispatcher, or returned to the loop that writes it): point at the object
      const builtByUser = object !== null && origin?.frame !== null && origin?.frame !== undefined && !isHelperFrame(origin.frame, event.frame, helpers);
      this.all.push({ node: builtByUser ? object.node : node, mod: builtByUser ? object.mod : frame.mod, path, state, event, fields, object });
    }
  }

  /** The interpreted members of the reply's `error`. */
  errorFields(site: ReplySite): Map<string, Val> | null {
    const error = site.fields.get('error');
    return error ? this.facts.interp.getFields(error, site.state, site.event.frame) : null;
  }

  /** The reply's error code, when the path knows it. */
  errorCode(site: ReplySite): unknown {
    const code = this.errorFields(site)?.get('code');
    return code?.k === 'lit' ? code.value : undefined;
  }
}

/** Whether `frame` is one of the writer helpers between the write and the user's call. */
function isHelperFrame(frame: Frame, writeFrame: Frame, helpers: (frame: Frame) => boolean): boolean {
  for (let f: Frame | null = writeFrame; f && helpers(f); f = f.caller) if (f === frame) return true;
  return false;
}

/** The node a member of the reply was written as, followed through helper parameters and constants. */
function field(site: ReplySite, name: string): Located | null {
  if (!site.object) return null;
  return member(site.object, name);
}

/** `name` in the object literal at `object`, resolved to the node that holds its value. */
function member(object: Located, name: string): Located | null {
  const found = getFieldNode(object.node, object.frame, object.mod, name);
  return found ? resolveExpr(found.node, found.frame, found.mod) : null;
}

// ---------------------------------------------------------------- the rules

function checkMissingJsonrpc(sites: ReplySites): RawFinding[] {
  const out: RawFinding[] = [];
  for (const site of sites.all) {
    const jsonrpc = site.fields.get('jsonrpc');
    if (jsonrpc?.k === 'lit' && jsonrpc.value === '2.0') continue;
    if (jsonrpc && jsonrpc.k !== 'lit') continue;
    const what = site.path === null ? 'the Parse error reply' : 'the reply';
    out.push({ rule: 'missing-jsonrpc', node: site.node, mod: site.mod, message: jsonrpc ? `${what} carries \`jsonrpc: ${JSON.stringify(jsonrpc.value)}\` instead of "2.0"` : `${what} has no \`"jsonrpc": "2.0"\` member` });
  }
  return out;
}

/** Id expressions that change the request's id: `id || null`, `id ?? 0`, `String(id)`, a constant. */
function describeIdProblem(node: t.Node, mod: ModuleUnit): string | null {
  if (isExactId(node, mod)) return null;
  switch (node.type) {
    case 'Identifier':
    case 'MemberExpression':
    case 'OptionalMemberExpression':
      return null;
    case 'LogicalExpression':
    case 'ConditionalExpression':
    case 'CallExpression':
    case 'TemplateLiteral':
    case 'BinaryExpression':
      return `the reply id is \`${shorten(sourceOf(mod, node))}\`: a request id of 0, a string or a missing one does not come back as it was sent`;
    case 'NumericLiteral':
    case 'StringLiteral':
    case 'NullLiteral':
      return `the reply id is the constant \`${shorten(sourceOf(mod, node))}\` instead of the request's id`;
    default:
      return null;
  }
}

/**
 * Id expressions that give every request its own id back and differ only for a missing id (which
 * `reply-to-notification` is about): `msg.id ?? null`, `id === undefined ? null : id`.
 */
function isExactId(node: t.Node, mod: ModuleUnit): boolean {
  const isRead = (n: t.Node): boolean => ['Identifier', 'MemberExpression', 'OptionalMemberExpression'].includes(unwrapExpression(n).type) && !isNullish(n);
  if (node.type === 'LogicalExpression') return node.operator === '??' && isRead(node.left) && isNullish(node.right);
  if (node.type !== 'ConditionalExpression') return false;
  const test = unwrapExpression(node.test);
  if (test.type !== 'BinaryExpression' || test.left.type === 'PrivateName' || !['===', '==', '!==', '!='].includes(test.operator)) return false;
  const tested = isNullish(test.right) ? test.left : isNullish(test.left) ? test.right : null;
  if (tested === null || !isRead(tested)) return false;
  const [whenMissing, whenPresent] = test.operator.startsWith('!') ? [node.alternate, node.consequent] : [node.consequent, node.alternate];
  return isNullish(whenMissing) && isRead(whenPresent) && sourceOf(mod, unwrapExpression(whenPresent)) === sourceOf(mod, unwrapExpression(tested));
}

function isNullish(node: t.Node): boolean {
  const expr = unwrapExpression(node);
  if (expr.type === 'NullLiteral') return true;
  if (expr.type === 'Identifier') return expr.name === 'undefined';
  return expr.type === 'UnaryExpression' && expr.operator === 'void';
}

function checkWrongId(sites: ReplySites, facts: FileFacts): RawFinding[] {
  const out: RawFinding[] = [];
  for (const site of sites.all) {
    if (site.path === null || site.path.notification) continue;
    const id = field(site, 'id');
    if (!site.fields.has('id')) {
      out.push({ rule: 'wrong-id', node: site.node, mod: site.mod, message: 'the reply carries no `id`: the client cannot match it to its request' });
      continue;
    }
    if (!id) continue;
    const problem = describeIdProblem(id.node, id.mod);
    if (problem) out.push({ rule: 'wrong-id', node: id.node, mod: id.mod, message: problem });
  }
  // a parse error is answered with id null
  for (const site of sites.all) {
    if (site.path !== null) continue;
    const id = site.fields.get('id');
    if (id?.k === 'lit' && id.value !== null && id.value !== undefined && id.origin) {
      out.push({ rule: 'wrong-id', node: id.origin.node, mod: id.origin.frame?.mod ?? facts.entry, message: `a parse error is answered with id ${JSON.stringify(id.value)}; JSON-RPC answers it with id null` });
    }
  }
  return out;
}

function checkNonstandardError(sites: ReplySites): RawFinding[] {
  const out: RawFinding[] = [];
  for (const site of sites.all) {
    const error = site.fields.get('error');
    if (!error || (error.k === 'lit' && (error.value === undefined || error.value === null))) continue;
    const written = field(site, 'error');
    if (written && written.node.type === 'ObjectExpression') {
      if (written.node.properties.some((p) => p.type === 'SpreadElement')) continue;
      const code = member(written, 'code');
      const message = member(written, 'message');
      if (!code || !message) {
        out.push({ rule: 'nonstandard-error', node: written.node, mod: written.mod, message: `the error has no \`${code ? 'message' : 'code'}\`` });
        continue;
      }
      // the code as written, or as the helper that wrote it was handed it: `fail(id, '-32603', ...)`
      const value = sites.errorFields(site)?.get('code');
      const known = value?.k === 'lit' ? value.value : code.node.type === 'StringLiteral' ? code.node.value : code.node.type === 'NumericLiteral' ? code.node.value : undefined;
      if (known !== undefined && (typeof known !== 'number' || !Number.isInteger(known))) {
        const shown = code.node.type === 'StringLiteral' || code.node.type === 'NumericLiteral' ? sourceOf(code.mod, code.node) : JSON.stringify(known);
        out.push({ rule: 'nonstandard-error', node: code.node, mod: code.mod, message: `the error code \`${shown}\` is not an integer` });
      }
      continue;
    }
    if (error.k === 'lit' || error.k === 'unknown' || error.k === 'text' || error.k === 'sym' || error.k === 'error') {
      const node = written?.node ?? site.node;
      const mod = written?.mod ?? site.mod;
      out.push({ rule: 'nonstandard-error', node, mod, message: describeErrorValue(node, mod) });
    }
  }
  return out;
}

function describeErrorValue(node: t.Node, mod: ModuleUnit): string {
  const shown = `\`${shorten(sourceOf(mod, node))}\``;
  const expr = unwrapExpression(node);
  const binding = expr.type === 'Identifier' ? resolveIdentifier(mod.index, expr) : null;
  // JSON.stringify(new Error('x')) is '{}': the client gets neither a code nor the message
  if (binding?.kind === 'catch' || expr.type === 'NewExpression') return `the error is the caught exception ${shown} (an Error object serialises to \`{}\`), not \`{ code, message }\``;
  if (expr.type === 'StringLiteral' || expr.type === 'TemplateLiteral') return `the error is a string (${shown}), not \`{ code, message }\``;
  return `the error is ${shown}, not an object with an integer code and a message`;
}

function checkReplyToNotification(sites: ReplySites): RawFinding[] {
  const out: RawFinding[] = [];
  for (const site of sites.all) {
    if (site.path === null) continue;
    // a notification reaches this reply: the path is one, or never looked at the id on the way to a
    // branch notifications land in (an unknown method, a notifications/* method, or a -32601 answer
    // where the method was looked up by a computed name)
    const cons = site.path.path.state.cons;
    const idSeen = cons.get('id')?.defined !== undefined;
    const method = site.path.method;
    const notFound = site.path.methodFree && sites.errorCode(site) === -32601;
    const landing = method === null ? !site.path.methodFree || notFound : method.startsWith('notifications/');
    if (!site.path.notification && (idSeen || !landing)) continue;
    const byPrefix = cons.get('method')?.prefixes.some(([prefix, yes]) => !yes && prefix.startsWith('notifications')) === true;
    const message = method
      ? `\`${method}\` is a notification (no id), but it gets a reply`
      : byPrefix
        ? 'notifications are told apart by the `notifications/` prefix check, which is not enough: a message without an id and another method still gets this reply'
        : 'this answer is also written for notifications (messages without an id)';
    out.push({ rule: 'reply-to-notification', node: site.node, mod: site.mod, message });
  }
  return out;
}

function checkParseError(facts: FileFacts, sites: ReplySites): RawFinding[] {
  const out: RawFinding[] = [];
  for (const path of facts.paths) {
    const index = path.state.events.findIndex((e) => e.e === 'parse' && !e.ok);
    if (index === -1) continue;
    const parse = path.state.events[index] as Extract<Event, { e: 'parse' }>;
    const answers = sites.all.filter((s) => s.state === path.state);
    if (answers.some((s) => sites.errorCode(s) === -32700)) continue;
    // answered, with another code: point at the code
    const other = answers.find((s) => typeof sites.errorCode(s) === 'number');
    if (other) {
      const error = field(other, 'error');
      const code = error && error.node.type === 'ObjectExpression' ? member(error, 'code') : null;
      out.push({ rule: 'parse-error-unanswered', node: code?.node ?? other.node, mod: code?.mod ?? other.mod, message: `a line that is not JSON is answered with code ${String(sites.errorCode(other))} instead of -32700 (Parse error)` });
      continue;
    }
    if (path.completion.type === 'throw') {
      out.push({ rule: 'parse-error-unanswered', node: parse.call, mod: parse.frame.mod, message: `\`${shorten(sourceOf(parse.frame.mod, parse.call))}\` runs outside any try: a line that is not JSON crashes the server` });
      continue;
    }
    // dropped: point at the catch that drops it, where the reply belongs
    const clause = getCatchClause(parse.frame.mod.index, parse.call);
    const message = `bad JSON is dropped: ${clause ? 'the catch around' : 'after'} \`${shorten(sourceOf(parse.frame.mod, parse.call))}\` writes no -32700 reply`;
    out.push({ rule: 'parse-error-unanswered', node: clause ?? parse.call, mod: parse.frame.mod, message });
  }
  return out;
}

function checkUnknownMethod(paths: MessagePath[], sites: ReplySites, facts: FileFacts): RawFinding[] {
  const out: RawFinding[] = [];
  const unknown = paths.filter((p) => !p.notification && p.method === null && !p.methodFree && !p.path.state.cons.get('method')?.prefixes.some(([prefix, yes]) => yes && prefix.startsWith('notifications')));
  // Paths that know the same about the message split on something the analysis could not decide
  // (`err instanceof RpcError`, a flag kept in a variable): when one of them answers -32601, the
  // others are not proof of a wrong answer.
  const answered = new Set(unknown.filter((p) => sites.all.some((s) => s.path === p && sites.errorCode(s) === -32601)).map(getConstraintKey));
  for (const path of unknown) {
    if (answered.has(getConstraintKey(path))) continue;
    const reply = sites.all.find((s) => s.path === path);
    if (!reply) {
      const end = getSilentEnd(path, facts);
      out.push({ rule: 'unknown-method-unanswered', node: end.node, mod: end.mod, message: end.message });
      continue;
    }
    if (!reply.fields.has('error')) {
      out.push({ rule: 'unknown-method-unanswered', node: reply.node, mod: reply.mod, message: 'a request for an unknown method is answered with a result instead of a -32601 error' });
      continue;
    }
    const code = sites.errorCode(reply);
    if (typeof code === 'number') {
      if (code === -32601) continue;
      // the code where it was written: in the reply, or as the argument of the helper that wrote it
      const error = field(reply, 'error');
      const written = error && error.node.type === 'ObjectExpression' ? member(error, 'code') : null;
      const at = written && getNumericValue(written.node) === code ? written : reply;
      out.push({ rule: 'unknown-method-unanswered', node: at.node, mod: at.mod, message: `a request for an unknown method is answered with code ${code} instead of -32601` });
    } else if (reply.fields.get('error')?.k !== 'obj') {
      out.push({ rule: 'unknown-method-unanswered', node: reply.node, mod: reply.mod, message: 'a request for an unknown method is answered without the -32601 code' });
    }
  }
  return out;
}

/** What a path knows about the incoming message, as a comparable key. */
function getConstraintKey(path: MessagePath): string {
  return [...path.path.state.cons]
    .map(([key, c]) => `${key}:${JSON.stringify([c.eq, [...c.neq].map(String).sort(), c.prefixes.map((p) => p.join()).sort(), c.defined])}`)
    .sort()
    .join('|');
}

const UNANSWERED = 'a request for a method the server does not know';
const TIMES_OUT = 'the client waits until it times out';

/**
 * Where the handling of an unanswered request ended, as the user wrote it: the `return` it left by,
 * else, in the function it fell off the end of, the log line it only wrote or the last test it fell
 * through (where a fallback `else` belongs), else that function.
 */
function getSilentEnd(path: MessagePath, facts: FileFacts): { node: t.Node; mod: ModuleUnit; message: string } {
  const events = path.events;
  // 1. the calls that ended together with the path (the trailing leaves, outermost first)
  let i = events.length - 1;
  let ended: Frame | null = null;
  let left: { node: t.Node; mod: ModuleUnit } | null = null;
  for (; i > path.parseIndex; i--) {
    const e = events[i]!;
    // (a writer the path called last, `out(await handle(msg))`, is not where the handling ended)
    if (e.e !== 'leave' || events.some((w) => w.e === 'write' && w.frame === e.frame)) break;
    ended = e.frame;
    if (e.node) left = { node: e.node, mod: e.frame.mod };
  }
  if (left) return { ...left, message: `${UNANSWERED} ends at this \`${left.node.type === 'ThrowStatement' ? 'throw' : 'return'}\` without a reply: ${TIMES_OUT}` };
  // 2. what the innermost of them did last (calls it made and that returned are skipped whole)
  for (; i > path.parseIndex; i--) {
    const e = events[i]!;
    if (e.e === 'enter' && e.frame === ended) break;
    if (e.e === 'leave') {
      const frame = e.frame;
      while (i > path.parseIndex && !(events[i]!.e === 'enter' && (events[i] as Extract<Event, { e: 'enter' }>).frame === frame)) i--;
      // a dispatcher that fell off its end, whose result the caller wrote or dropped: `out(await handle(msg))`
      const enter = events[i];
      if (e.node === null && frame.fn && enter?.e === 'enter' && enter.args.some(isShallowMessageValue)) {
        return { node: frame.fn, mod: frame.mod, message: `this function is handed the message and ends without answering ${UNANSWERED}: ${TIMES_OUT}` };
      }
      continue;
    }
    if (e.e === 'log') return { node: e.node, mod: e.frame.mod, message: `${UNANSWERED} is only logged here, never answered: ${TIMES_OUT}` };
    if (e.e === 'branch') {
      const mod = facts.program.modules.find((m) => m.index.ifs.includes(e.node));
      if (mod) return { node: e.node, mod, message: `${UNANSWERED} falls through this test, and nothing after it answers: ${TIMES_OUT}` };
    }
  }
  if (ended?.fn) return { node: ended.fn, mod: ended.mod, message: `this function ends without answering ${UNANSWERED}: ${TIMES_OUT}` };
  const parse = events[path.parseIndex] as Extract<Event, { e: 'parse' }>;
  return { node: parse.call, mod: parse.frame.mod, message: `${UNANSWERED} gets no reply: ${TIMES_OUT}` };
}

function checkStdoutPollution(facts: FileFacts, framing: ServerModel['framing']): RawFinding[] {
  // what each write carried on the paths that ran it; a write no path reached is judged by its text
  const kinds = new Map<t.Node, Set<WriteData['kind']>>();
  const undefinedWrites = new Set<t.Node>();
  // the JSON each write carried, on the paths that ran it (asked only of indented writes, below)
  const jsonWrites = new Map<t.Node, { value: Val; state: PathState; frame: Frame }[]>();
  for (const path of facts.paths) {
    for (const e of path.state.events) {
      if (e.e !== 'write') continue;
      const set = kinds.get(e.call) ?? new Set();
      set.add(e.data.kind);
      kinds.set(e.call, set);
      if (e.data.kind === 'json') jsonWrites.set(e.call, [...(jsonWrites.get(e.call) ?? []), { value: e.data.value, state: path.state, frame: e.frame }]);
      // JSON.stringify(undefined) + '\n' is the text "undefined"
      if (e.data.kind === 'json' && e.data.value.k === 'lit' && e.data.value.value === undefined) undefinedWrites.add(e.call);
    }
  }
  const out: RawFinding[] = [];
  for (const sink of facts.sinks) {
    if (isInteractiveOnly(sink)) continue;
    const payload = getPayload(sink);
    const shown = `\`${shorten(sourceOf(sink.mod, sink.call))}\``;
    // JSON indented over several lines that is no message (a config dump) is noise on stdout. A reply
    // indented so is a reply, not pollution: both rewrites send it as one message on one line.
    const carriesMessage = (): boolean => (jsonWrites.get(sink.call) ?? []).some((w) => isMessageValue(facts, w.value, w.state, w.frame));
    if (framing === 'ndjson' && payload && isIndentedJson(payload, sink.mod) && !carriesMessage()) {
      out.push({ rule: 'stdout-pollution', node: sink.call, mod: sink.mod, message: `${shown} writes indented JSON: one message over several lines, which a client reading one message per line cannot parse` });
      continue;
    }
    if (undefinedWrites.has(sink.call)) {
      out.push({ rule: 'stdout-pollution', node: sink.call, mod: sink.mod, message: `${shown} writes the text \`undefined\` for some messages (what JSON.stringify makes of a missing reply), not a protocol message` });
      continue;
    }
    const seen = kinds.get(sink.call);
    let text: boolean;
    if (seen) text = seen.has('text');
    else {
      const value = payload ? facts.interp.evalStatic(payload, sink.mod) : null;
      const built = payload !== null && (payload.type === 'TemplateLiteral' || (payload.type === 'BinaryExpression' && payload.operator === '+')) && findStringify(payload, sink.mod) === null;
      text = value !== null && (value.k === 'lit' || value.k === 'text' || (value.k === 'unknown' && built)) && !(value.k === 'lit' && typeof value.value === 'string' && /^\r?\n$/.test(value.value));
      if (sink.channel === 'console' && sink.call.arguments.length !== 1) text = true;
    }
    if (!text) continue;
    out.push({ rule: 'stdout-pollution', node: sink.call, mod: sink.mod, message: `${shown} writes text that is not a protocol message to stdout` });
  }
  return out;
}

/** What a write to fd 1 writes: the argument of `write`/`console.log`, the second one of `fs.writeSync(1, ...)`. */
function getPayload(sink: SinkCall): t.Expression | null {
  const payload = sink.call.arguments[sink.channel === 'writeSync' ? 1 : 0];
  return payload && payload.type !== 'SpreadElement' && payload.type !== 'ArgumentPlaceholder' ? (payload as t.Expression) : null;
}

/** The `JSON.stringify(...)` call a written text is built from (`JSON.stringify(m) + '\n'`, a const holding it), or null. */
function findStringify(node: t.Node, mod: ModuleUnit, depth = 0): t.CallExpression | null {
  if (depth > 6) return null;
  const resolved = resolveExpr(node, null, mod);
  const expr = unwrapExpression(resolved.node);
  if (expr.type === 'CallExpression') return getMemberPath(expr.callee) === 'JSON.stringify' ? expr : null;
  if (expr.type === 'BinaryExpression' && expr.operator === '+') return findStringify(expr.left, resolved.mod, depth + 1) ?? findStringify(expr.right, resolved.mod, depth + 1);
  if (expr.type === 'TemplateLiteral') {
    for (const inner of expr.expressions) {
      const found = findStringify(inner, resolved.mod, depth + 1);
      if (found) return found;
    }
  }
  return null;
}

/** `JSON.stringify(message, null, 2)`: a space argument that is not 0 or ''. */
/** A value written as JSON that is a JSON-RPC message: an object with `jsonrpc`, `id`, `method`, `result` or `error`. */
function isMessageValue(facts: FileFacts, value: Val, state: PathState, frame: Frame): boolean {
  const fields = value.k === 'obj' ? facts.interp.getFields(value, state, frame) : null;
  return fields !== null && ['jsonrpc', 'id', 'method', 'result', 'error'].some((key) => fields.has(key));
}

function isIndentedJson(payload: t.Node, mod: ModuleUnit): boolean {
  const space = findStringify(payload, mod)?.arguments[2];
  if (!space || isNullish(space)) return false;
  const expr = unwrapExpression(space);
  if (expr.type === 'NumericLiteral') return expr.value >= 1;
  if (expr.type === 'StringLiteral') return expr.value !== '';
  return true;
}

/**
 * A write that only happens when a person runs the program (`--help`, usage on a terminal), never
 * when a client spawns it: under `if (process.stdout.isTTY)` or a test of `process.argv`.
 * `if (!process.stdin.isTTY)` is the opposite: exactly when a client started the server.
 */
function isInteractiveOnly(sink: SinkCall): boolean {
  const { index } = sink.mod;
  let current: t.Node = sink.call;
  for (let parent = index.parent.get(current); parent; current = parent, parent = index.parent.get(current)) {
    let test: t.Node | null = null;
    if ((parent.type === 'IfStatement' || parent.type === 'ConditionalExpression') && parent.consequent === current) test = parent.test;
    if (parent.type === 'LogicalExpression' && parent.operator === '&&' && parent.right === current) test = parent.left;
    if (test === null || (test.type === 'UnaryExpression' && test.operator === '!')) continue;
    if (/\bisTTY\b|\bargv\b/.test(sourceOf(sink.mod, test))) return true;
  }
  return false;
}

/** Transports an SDK server can run on besides stdio: a server that has one logs freely in that mode. */
const OTHER_TRANSPORTS = new Set(['StreamableHTTPServerTransport', 'SSEServerTransport', 'WebStandardStreamableHTTPServerTransport']);

/** Where the program puts the SDK on stdio, and in which module. */
interface StdioTransport {
  node: t.NewExpression | t.CallExpression;
  mod: ModuleUnit;
}

/**
 * Where the program puts the SDK on stdio: `new StdioServerTransport()` on the process's own stdin and
 * stdout (not on streams of its own), or a call of v2's `serveStdio`. Found by the imported name, so that
 * the SDK's own builds (relative imports) count; a class or function of that name declared in the
 * program is not the SDK's.
 */
function findStdioTransports(facts: FileFacts): StdioTransport[] {
  const out: StdioTransport[] = [];
  for (const mod of facts.program.modules) {
    for (const node of mod.index.calls) if (callsImported(mod, node, 'serveStdio')) out.push({ node, mod });
    for (const node of mod.index.news) {
      if (!callsImported(mod, node, 'StdioServerTransport')) continue;
      const ownStreams = node.arguments.some((arg) => {
        const value = arg.type === 'SpreadElement' || arg.type === 'ArgumentPlaceholder' ? null : facts.interp.evalStatic(arg, mod);
        return !(value?.k === 'stream' && (value.fd === 0 || value.fd === 1)) && !isNullish(arg);
      });
      if (!ownStreams) out.push({ node, mod });
    }
  }
  return out;
}

/** A call or `new` of the imported `name`: `serveStdio(...)`, or `stdio_js_1.StdioServerTransport` on a module namespace. */
function callsImported(mod: ModuleUnit, node: t.NewExpression | t.CallExpression, name: string): boolean {
  const callee = unwrapExpression(node.callee);
  const holder = callee.type === 'Identifier' ? callee : callee.type === 'MemberExpression' ? unwrapExpression(callee.object) : null;
  const called = callee.type === 'Identifier' ? callee.name : callee.type === 'MemberExpression' ? getMemberName(callee) : null;
  return called === name && holder?.type === 'Identifier' && isImported(mod, holder);
}

/** A name bound by an import, or by a `require(...)` (`const x = require('...')`, `const { X } = require('...')`). */
function isImported(mod: ModuleUnit, id: t.Identifier): boolean {
  const binding = resolveIdentifier(mod.index, id);
  if (binding?.kind === 'import') return true;
  if (binding?.kind !== 'const' && binding?.kind !== 'var' && binding?.kind !== 'let') return false;
  const init = binding.declarator.init ? unwrapExpression(binding.declarator.init) : null;
  return init?.type === 'CallExpression' && init.callee.type === 'Identifier' && init.callee.name === 'require';
}

function checkSdkBypassed(facts: FileFacts, transports: StdioTransport[]): RawFinding[] {
  if (transports.length === 0) return [];
  // a server that can also run over HTTP logs freely in that mode: there, only the writes next to
  // the stdio transport's construction count, and top-level ones (they run in every mode)
  const otherTransport = facts.program.modules.some((m) => m.index.identifiers.some((id) => OTHER_TRANSPORTS.has(id.name)));
  const stdioScopes = new Set<t.Node | null>([null]);
  for (const { node, mod } of transports) stdioScopes.add(getEnclosingFunction(mod.index, node));
  return facts.sinks
    .filter((sink) => !isInteractiveOnly(sink) && (!otherTransport || stdioScopes.has(sink.fn)))
    .map((sink) => ({ rule: 'sdk-transport-bypassed' as const, node: sink.call, mod: sink.mod, message: `\`${shorten(sourceOf(sink.mod, sink.call))}\` writes to stdout past the SDK's StdioServerTransport` }));
}

// ---------------------------------------------------------------- fixed by the rewrite

/**
 * Marks each finding fixed when the rewrite that was decided removes it. The SDK rewrite is offered
 * only when its output passed the re-check (on the SDK, nothing written to stdout past it), so every
 * hand-rolled finding is gone. The envelope's output routes every write through the helper; unknown
 * methods are fixed only where it knows the server's methods or where the silent ends were found.
 */
export function markFixed(findings: Finding[], decision: Decision, model: ServerModel | null): Finding[] {
  return findings.map((finding) => ({ ...finding, fixed: isFixed(finding, decision, model) }));
}

/** The finding points at a message parse the envelope leaves throwing (see detect/receive.ts). */
function isAtUnguardedParse(finding: Finding, model: ServerModel): boolean {
  const path = finding.file ?? model.facts.entry.path;
  return model.envelope.parses.some(({ call, mod, receipt }) => receipt.kind === 'unguarded' && mod.path === path && getLine(call) === finding.line && getColumn(mod.source, call) === finding.column);
}

function isFixed(finding: Finding, decision: Decision, model: ServerModel | null): boolean {
  const rule = finding.rule;
  if (!isRuleId(rule)) return false;
  const fixedBy: readonly string[] = RULES[rule].fixedBy;
  switch (decision.kind) {
    case 'sdk':
      return fixedBy.includes('sdk');
    case 'boundary':
      // the server's own code answers every method it is handed: an unknown one gets -32601 where the
      // boundary knows every method the server answers, or where the server's own answer says so
      if (rule === 'unknown-method-unanswered') return model !== null && model.boundary.available && (model.boundary.known !== null || model.boundary.namespaced !== null || model.envelope.answersUnknownMethods);
      return fixedBy.includes('boundary');
    case 'envelope':
      if (rule === 'unknown-method-unanswered') return model !== null && (model.envelope.methods !== null || model.envelope.unansweredEnds.length > 0 || model.envelope.answersUnknownMethods);
      // a parse outside any try that the envelope could not guard still throws after answering -32700
      if (rule === 'parse-error-unanswered' && model !== null && isAtUnguardedParse(finding, model)) return false;
      return fixedBy.includes('envelope');
    case 'leave':
    case 'none':
      return false;
    default:
      return assertNever(decision);
  }
}
