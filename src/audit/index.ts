// The compliance audit: the JSON-RPC 2.0 / MCP stdio envelope rules (RULES), read off the same facts
// every other phase reads (analysis/facts.ts): the interpreted paths of an incoming message say what
// the server writes for a request, a notification, an unknown method and a line that is not JSON.
// Read-only: it never changes anything, never prints, and never throws (an unusual construct makes a
// rule report nothing rather than fail the file).
// Rules about the hand-rolled protocol run on files detection calls a hand-rolled MCP server;
// `sdk-transport-bypassed` runs on servers already on the SDK.
import type * as t from '@babel/types';
import { buildFacts, type FileFacts } from '../analysis/facts.js';
import type { Event, WriteData } from '../analysis/interp.js';
import { collectMessagePaths, findWriterHelpers, type MessagePath } from '../analysis/messages.js';
import type { ModuleUnit, ReadModule } from '../analysis/program.js';
import { getFieldNode, resolveExpr, sourceOf } from '../analysis/render.js';
import type { Frame, Val } from '../analysis/values.js';
import { assertNever } from '../model/assert-never.js';
import { isRuleId, RULES, type RuleId } from '../model/audit-rules.js';
import type { ServerModel } from '../model/server-model.js';
import { detectServer } from '../detect/server.js';
import { parseSource } from '../parse.js';
import type { Decision, Finding } from '../model/types.js';

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
 * The findings of one file: the entry's own, and those in the modules of its server program (a
 * dispatcher in an imported module). Sorted by file and position, one per rule and position.
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
  if (facts.sdkImport) {
    run('sdk-transport-bypassed', () => checkSdkBypassed(facts));
  } else if (model !== null) {
    const paths = collectMessagePaths(facts);
    const sites = new ReplySites(facts, paths);
    run('stdout-pollution', () => checkStdoutPollution(facts, paths));
    run('missing-jsonrpc', () => checkMissingJsonrpc(sites));
    run('wrong-id', () => checkWrongId(sites, paths, facts));
    run('nonstandard-error', () => checkNonstandardError(sites));
    run('reply-to-notification', () => checkReplyToNotification(sites));
    run('parse-error-unanswered', () => checkParseError(facts, paths));
    run('unknown-method-unanswered', () => checkUnknownMethod(paths, sites));
  }
  const seen = new Set<string>();
  const findings: Finding[] = [];
  for (const finding of raw) {
    if (finding.mod !== facts.entry) continue;
    const line = finding.node.loc?.start.line ?? 1;
    const column = (finding.node.loc?.start.column ?? 0) + 1;
    const key = `${finding.rule}:${line}:${column}`;
    if (seen.has(key)) continue;
    seen.add(key);
    findings.push({ rule: finding.rule, message: finding.message, hint: RULES[finding.rule].hint, line, column, fixed: false });
  }
  return findings.sort((a, b) => a.line - b.line || a.column - b.column || a.rule.localeCompare(b.rule));
}

// ---------------------------------------------------------------- reply sites

/** One reply as the user wrote it: the write, or the call of the writer helper that did it. */
interface ReplySite {
  node: t.Node;
  mod: ModuleUnit;
  path: MessagePath;
  event: Extract<Event, { e: 'write' }>;
  fields: Map<string, Val>;
  /** The object literal the reply was built from, and the frame it was built in. */
  object: { node: t.Node; frame: Frame | null; mod: ModuleUnit } | null;
}

/** Every JSON message written on a path after the parse, located where the user wrote it. */
class ReplySites {
  readonly all: ReplySite[] = [];

  constructor(facts: FileFacts, paths: MessagePath[]) {
    const helpers = findWriterHelpers(paths);
    for (const path of paths) {
      for (let i = path.parseIndex; i < path.events.length; i++) {
        const event = path.events[i]!;
        if (event.e !== 'write' || event.data.kind !== 'json') continue;
        const value = event.data.value;
        const fields = value.k === 'obj' ? facts.interp.getFields(value, path.path.state, event.frame) : null;
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
        this.all.push({ node: builtByUser ? object.node : node, mod: builtByUser ? object.mod : frame.mod, path, event, fields, object });
      }
    }
  }
}

/** Whether `frame` is one of the writer helpers between the write and the user's call. */
function isHelperFrame(frame: Frame, writeFrame: Frame, helpers: (frame: Frame) => boolean): boolean {
  for (let f: Frame | null = writeFrame; f && helpers(f); f = f.caller) if (f === frame) return true;
  return false;
}

function field(site: ReplySite, name: string): { node: t.Node; mod: ModuleUnit } | null {
  if (!site.object) return null;
  const found = getFieldNode(site.object.node, site.object.frame, site.object.mod, name);
  if (!found) return null;
  const resolved = resolveExpr(found.node, found.frame, found.mod);
  return { node: resolved.node, mod: resolved.mod };
}

// ---------------------------------------------------------------- the rules

function checkMissingJsonrpc(sites: ReplySites): RawFinding[] {
  const out: RawFinding[] = [];
  for (const site of sites.all) {
    const jsonrpc = site.fields.get('jsonrpc');
    if (jsonrpc?.k === 'lit' && jsonrpc.value === '2.0') continue;
    if (jsonrpc && jsonrpc.k !== 'lit') continue;
    out.push({ rule: 'missing-jsonrpc', node: site.node, mod: site.mod, message: jsonrpc ? `the reply carries \`jsonrpc: ${JSON.stringify((jsonrpc as { value: unknown }).value)}\` instead of "2.0"` : 'the reply has no `"jsonrpc": "2.0"` member' });
  }
  return out;
}

/** Id expressions that change the request's id: `id || null`, `id ?? 0`, `String(id)`, a constant. */
function describeIdProblem(node: t.Node, mod: ModuleUnit): string | null {
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

function checkWrongId(sites: ReplySites, paths: MessagePath[], facts: FileFacts): RawFinding[] {
  const out: RawFinding[] = [];
  for (const site of sites.all) {
    if (site.path.notification) continue;
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
  for (const path of facts.paths) {
    const failed = path.state.events.findIndex((e) => e.e === 'parse' && !e.ok);
    if (failed === -1) continue;
    for (const e of path.state.events.slice(failed)) {
      if (e.e !== 'write' || e.data.kind !== 'json') continue;
      const fields = e.data.value.k === 'obj' ? facts.interp.getFields(e.data.value, path.state, e.frame) : null;
      const id = fields?.get('id');
      if (id?.k === 'lit' && id.value !== null && id.value !== undefined && id.origin) {
        out.push({ rule: 'wrong-id', node: id.origin.node, mod: id.origin.frame?.mod ?? facts.entry, message: `a parse error is answered with id ${JSON.stringify(id.value)}; JSON-RPC answers it with id null` });
      }
    }
  }
  void paths;
  return out;
}

function checkNonstandardError(sites: ReplySites): RawFinding[] {
  const out: RawFinding[] = [];
  for (const site of sites.all) {
    const error = site.fields.get('error');
    if (!error || (error.k === 'lit' && (error.value === undefined || error.value === null))) continue;
    const written = field(site, 'error');
    if (written && written.node.type === 'ObjectExpression') {
      const props = new Map<string, t.Node>();
      for (const p of written.node.properties) {
        if (p.type === 'ObjectProperty' && !p.computed) {
          const key = p.key.type === 'Identifier' ? p.key.name : p.key.type === 'StringLiteral' ? p.key.value : null;
          if (key) props.set(key, p.value);
        }
        if (p.type === 'SpreadElement') props.set('\0spread', p);
      }
      if (props.has('\0spread')) continue;
      const code = props.get('code');
      const message = props.get('message');
      if (!code || !message) {
        out.push({ rule: 'nonstandard-error', node: written.node, mod: written.mod, message: `the error has no \`${code ? 'message' : 'code'}\`` });
        continue;
      }
      if (code.type === 'StringLiteral' || (code.type === 'NumericLiteral' && !Number.isInteger(code.value))) {
        out.push({ rule: 'nonstandard-error', node: code, mod: written.mod, message: `the error code \`${sourceOf(written.mod, code)}\` is not an integer` });
      }
      continue;
    }
    if (error.k === 'lit' || error.k === 'unknown' || error.k === 'text' || error.k === 'sym') {
      const node = written?.node ?? site.node;
      out.push({ rule: 'nonstandard-error', node, mod: written?.mod ?? site.mod, message: `the error is \`${shorten(sourceOf(written?.mod ?? site.mod, node))}\`, not an object with an integer code and a message` });
    }
  }
  return out;
}

function checkReplyToNotification(sites: ReplySites): RawFinding[] {
  const out: RawFinding[] = [];
  for (const site of sites.all) {
    // a notification reaches this reply: the path is one, or never looked at the id on the way to a
    // branch notifications land in (an unknown method, a notifications/* method)
    const idSeen = site.path.path.state.cons.get('id')?.defined !== undefined;
    const method = site.path.method;
    const landing = method === null ? !site.path.methodFree : method.startsWith('notifications/');
    if (!site.path.notification && (idSeen || !landing)) continue;
    out.push({ rule: 'reply-to-notification', node: site.node, mod: site.mod, message: method ? `\`${method}\` is a notification (no id), but it gets a reply` : 'this answer is also written for notifications (messages without an id)' });
  }
  return out;
}

function checkParseError(facts: FileFacts, paths: MessagePath[]): RawFinding[] {
  const out: RawFinding[] = [];
  for (const path of facts.paths) {
    const index = path.state.events.findIndex((e) => e.e === 'parse' && !e.ok);
    if (index === -1) continue;
    const parse = path.state.events[index] as Extract<Event, { e: 'parse' }>;
    const after = path.state.events.slice(index);
    const answered = after.some((e) => e.e === 'write' && e.data.kind === 'json' && errorCodeOf(facts, path.state, e) === -32700);
    if (answered) continue;
    const message = path.completion.type === 'throw' ? 'JSON.parse runs outside any try: a line that is not JSON crashes the server' : 'a line that is not JSON gets no -32700 Parse error reply';
    out.push({ rule: 'parse-error-unanswered', node: parse.call, mod: parse.frame.mod, message });
  }
  void paths;
  return out;
}

function errorCodeOf(facts: FileFacts, state: Parameters<FileFacts['interp']['getFields']>[1], e: Extract<Event, { e: 'write' }>): unknown {
  const value = (e.data as Extract<WriteData, { kind: 'json' }>).value;
  const fields = value.k === 'obj' ? facts.interp.getFields(value, state, e.frame) : null;
  const error = fields?.get('error');
  const errorFields = error ? facts.interp.getFields(error, state, e.frame) : null;
  const code = errorFields?.get('code');
  return code?.k === 'lit' ? code.value : undefined;
}

function checkUnknownMethod(paths: MessagePath[], sites: ReplySites): RawFinding[] {
  const out: RawFinding[] = [];
  for (const path of paths) {
    if (path.notification || path.method !== null || path.methodFree) continue;
    if (path.path.state.cons.get('method')?.prefixes.some(([p, yes]) => yes && p.startsWith('notifications'))) continue;
    const reply = sites.all.find((s) => s.path === path);
    if (!reply) {
      const where = lastFrameNode(path);
      if (where) out.push({ rule: 'unknown-method-unanswered', node: where.node, mod: where.mod, message: 'a request for a method the server does not know gets no reply: the client waits until it times out' });
      continue;
    }
    if (!reply.fields.has('error')) {
      out.push({ rule: 'unknown-method-unanswered', node: reply.node, mod: reply.mod, message: 'a request for an unknown method is answered with a result instead of a -32601 error' });
      continue;
    }
    const code = field(reply, 'error');
    const codeNode = code && code.node.type === 'ObjectExpression' ? getFieldNode(code.node, null, code.mod, 'code') : null;
    const value = reply.fields.get('error');
    const literal = codeNode && codeNode.node.type === 'UnaryExpression' && codeNode.node.argument.type === 'NumericLiteral' ? -codeNode.node.argument.value : codeNode?.node.type === 'NumericLiteral' ? codeNode.node.value : null;
    if (literal !== null && literal !== -32601) {
      out.push({ rule: 'unknown-method-unanswered', node: reply.node, mod: reply.mod, message: `a request for an unknown method is answered with code ${literal} instead of -32601` });
    } else if (value && value.k !== 'obj') {
      out.push({ rule: 'unknown-method-unanswered', node: reply.node, mod: reply.mod, message: 'a request for an unknown method is answered without the -32601 code' });
    }
  }
  return out;
}

/** Where a path's handling ended: the statement that returned from the dispatch, or the function. */
function lastFrameNode(path: MessagePath): { node: t.Node; mod: ModuleUnit } | null {
  for (let i = path.events.length - 1; i > path.parseIndex; i--) {
    const e = path.events[i]!;
    if (e.e === 'leave' && e.frame.fn) return { node: e.node ?? e.frame.fn, mod: e.frame.mod };
  }
  const parse = path.events[path.parseIndex] as Extract<Event, { e: 'parse' }>;
  return { node: parse.call, mod: parse.frame.mod };
}

function checkStdoutPollution(facts: FileFacts, paths: MessagePath[]): RawFinding[] {
  // what each write carried on the paths that ran it; a write no path reached is judged by its text
  const kinds = new Map<t.Node, Set<WriteData['kind']>>();
  for (const path of facts.paths) {
    for (const e of path.state.events) {
      if (e.e !== 'write') continue;
      const set = kinds.get(e.call) ?? new Set();
      set.add(e.data.kind);
      kinds.set(e.call, set);
    }
  }
  const out: RawFinding[] = [];
  for (const sink of facts.sinks) {
    const seen = kinds.get(sink.call);
    let text: boolean;
    if (seen) text = seen.has('text');
    else {
      const args = sink.call.arguments;
      const payload = sink.channel === 'writeSync' ? args[1] : args[0];
      const value = payload && payload.type !== 'SpreadElement' && payload.type !== 'ArgumentPlaceholder' ? facts.interp.evalStatic(payload, sink.mod) : null;
      const built = payload !== undefined && (payload.type === 'TemplateLiteral' || (payload.type === 'BinaryExpression' && payload.operator === '+')) && !sourceOf(sink.mod, payload).includes('JSON.stringify');
      text = value !== null && (value.k === 'lit' || value.k === 'text' || (value.k === 'unknown' && built)) && !(value.k === 'lit' && typeof value.value === 'string' && /^\r?\n$/.test(value.value));
      if (sink.channel === 'console' && args.length !== 1) text = true;
    }
    if (!text) continue;
    out.push({ rule: 'stdout-pollution', node: sink.call, mod: sink.mod, message: `\`${shorten(sourceOf(sink.mod, sink.call))}\` writes text that is not a protocol message to stdout` });
  }
  void paths;
  return out;
}

function checkSdkBypassed(facts: FileFacts): RawFinding[] {
  return facts.sinks.map((sink) => ({ rule: 'sdk-transport-bypassed' as const, node: sink.call, mod: sink.mod, message: `\`${shorten(sourceOf(sink.mod, sink.call))}\` writes to stdout past the SDK's StdioServerTransport` }));
}

function shorten(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

// ---------------------------------------------------------------- fixed by the rewrite

/**
 * Marks each finding fixed when the rewrite that was decided removes it. The SDK rewrite is offered
 * only when its output passed the re-check (on the SDK, nothing written to stdout past it), so every
 * hand-rolled finding is gone. The envelope's output routes every write through the helper; unknown
 * methods are fixed only where it knows the server's methods or where the silent ends were found.
 */
export function markFixed(findings: Finding[], decision: Decision, model: ServerModel | null): Finding[] {
  return findings.map((finding) => ({ ...finding, fixed: isFixed(finding.rule, decision, model) }));
}

function isFixed(rule: string, decision: Decision, model: ServerModel | null): boolean {
  if (!isRuleId(rule)) return false;
  const fixedBy: readonly string[] = RULES[rule].fixedBy;
  switch (decision.kind) {
    case 'sdk':
      return fixedBy.includes('sdk');
    case 'envelope':
      if (rule === 'unknown-method-unanswered') return model !== null && (model.envelope.methods !== null || model.envelope.unansweredEnds.length > 0);
      return fixedBy.includes('envelope');
    case 'leave':
    case 'none':
      return false;
    default:
      return assertNever(decision);
  }
}
