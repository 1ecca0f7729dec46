// Turning one dispatch branch into the body of an SDK request handler:
// its statements are kept, replies become `return <result>` / `throw <error>`, and the text is
// re-indented for its new place. Pure text edits on the original source; no AST mutation.
import * as t from '@babel/types';
import type { MethodBranch, Reply, ReplyProtocol } from '../model/server-model.js';
import type { SdkTarget } from '../model/types.js';
import { RPC_ERRORS } from '../model/mcp-methods.js';
import { getMemberChain, getStdoutWriteKind, unwrapExpression, walk } from '../detect/ast.js';
import { endsAbruptly } from '../detect/dispatch.js';
import { EditList } from './edits.js';
import { quoted, semi, type CodeStyle } from './style.js';
import { getLineIndent, getLineStart, getNodeRange, renderRange } from './text.js';

export interface BranchContext {
  source: string;
  style: CodeStyle;
  protocol: ReplyProtocol;
  protectedLineStarts: Set<number>;
  /** Indentation of the handler body lines. */
  bodyIndent: string;
  /** How the handler names the request, e.g. `msg` (used in the fallthrough error). */
  paramsExpression: string;
  typescript: boolean;
  sdk: SdkTarget;
  /** Collects compliance fixes the branch rewrite makes (shown in the diff header). */
  fixes?: string[];
  /** Message of the error thrown where the original sent nothing (default: per method). */
  noReplyMessage?: string;
  /** A notification handler: replies (bugs) are dropped, nothing is returned or thrown for silence. */
  notification?: boolean;
}

export type BranchBody = { text: string } | { failed: string; line: number; reason: string };

/**
 * Throw statement text for an error reply; the SDK answers with the error's code and message as they are.
 *   v1: throw Object.assign(new Error(message), { code })   (McpError would prefix the message)
 *   v2: throw new ProtocolError(code, message)
 */
export function buildThrow(ctx: Pick<BranchContext, 'style' | 'sdk'>, code: string, message: string, data: string | null = null): string {
  if (ctx.sdk === 'v2') return `throw new ProtocolError(${code}, ${message}${data ? `, ${data}` : ''})${semi(ctx.style)}`;
  const extra = data ? `, data: ${data}` : '';
  return `throw Object.assign(new Error(${message}), { code: ${code}${extra} })${semi(ctx.style)}`;
}

/** What a handler does when the original sent nothing: the request would have hung, now it gets an error. */
export function buildNoReplyThrow(ctx: BranchContext, method: string): string {
  if (ctx.noReplyMessage) return buildThrow(ctx, String(RPC_ERRORS.internalError), quoted(ctx.style, ctx.noReplyMessage));
  if (method === 'tools/call') {
    return buildThrow(ctx, String(RPC_ERRORS.invalidParams), '`Unknown tool: ${' + ctx.paramsExpression + '.name}`');
  }
  return buildThrow(ctx, String(RPC_ERRORS.internalError), quoted(ctx.style, `No result for ${method}`));
}

export function renderBranchBody(branch: MethodBranch, ctx: BranchContext): BranchBody {
  const { source } = ctx;
  const statements = dropTrailingBreak(branch.statements);
  if (statements.length === 0) return { text: '' };
  const synthetic = statements[0]!.start === undefined || statements[0]!.start === null;
  if (synthetic) {
    // `() => ({ ... })` map entries: the body is the expression.
    const only = statements[0] as t.ReturnStatement;
    const expression = only.argument!;
    const text = renderRange(source, expression.start!, expression.end!, getLineIndent(source, expression.start!), ctx.bodyIndent, ctx.protectedLineStarts);
    return { text: `${ctx.bodyIndent}return ${text}${semi(ctx.style)}` };
  }
  const first = statements[0]!;
  const last = statements[statements.length - 1]!;
  const range = { start: getNodeRange(source, first, branch.line === first.loc!.start.line ? first.start! : 0).start, end: getNodeRange(source, last).end };
  const baseIndent = getLineIndent(source, range.start);
  const edits = new EditList();
  const parents = buildParentMap(statements);

  if (ctx.notification) return renderNotificationBody(branch, ctx, statements, range, baseIndent);
  for (const reply of branch.replies) {
    const problem = checkLeavesAfterReply(reply.site, parents, statements);
    if (problem) return { failed: problem, line: reply.site.loc!.start.line, reason: 'UNSUPPORTED_CONTROL_FLOW' };
    const siteIndent = getLineIndent(source, reply.site.start!);
    const targetIndent = ctx.bodyIndent + siteIndent.slice(Math.min(baseIndent.length, siteIndent.length));
    edits.replace(reply.site.start!, reply.site.end!, buildReplyStatement(reply, ctx, branch.method, targetIndent));
    for (const dead of getDeadFollowers(reply.site, parents)) {
      const lineStart = getLineStart(source, dead.start!);
      const onlyOnLine = !/\S/.test(source.slice(lineStart, dead.start!));
      const newline = source.indexOf('\n', dead.end!);
      const restOfLine = newline === -1 ? source.slice(dead.end!) : source.slice(dead.end!, newline);
      if (onlyOnLine && !/\S/.test(restOfLine)) edits.remove(lineStart, newline === -1 ? source.length : newline + 1);
      else edits.remove(dead.start!, dead.end!);
    }
  }

  // Early exits that sent nothing: the request would never have been answered.
  for (const exit of findSilentExits(statements, branch.replies, parents)) {
    if (edits.touches(exit.start!, exit.end!)) continue;
    edits.replace(exit.start!, exit.end!, buildNoReplyThrow(ctx, branch.method));
  }
  // TypeScript: the SDK's result types carry an index signature that interfaces lack, so a value typed
  // by the file's own interface is returned as a plain copy: `return { ...(await x) }`.
  if (ctx.typescript && ctx.protocol.kind === 'return-result') {
    for (const ret of findValueReturns(statements)) {
      if (edits.touches(ret.start!, ret.end!)) continue;
      const argument = ret.argument!;
      edits.replace(argument.start!, argument.end!, `{ ...(await ${source.slice(argument.start!, argument.end!)}) }`);
    }
  }
  // Logging that is not a reply goes to stderr.
  for (const call of findStdoutLogging(statements, branch.replies)) {
    if (edits.touches(call.start!, call.end!)) continue;
    const callee = call.callee as t.MemberExpression;
    if (getMemberChain(callee) === 'process.stdout.write') edits.replace(callee.object.start!, callee.object.end!, 'process.stderr');
    else edits.replace(callee.property.start!, callee.property.end!, 'error');
  }

  // Every line of the range that no edit rewrites moves to the handler's indentation.
  let text = ctx.bodyIndent + renderRange(source, range.start, range.end, baseIndent, ctx.bodyIndent, ctx.protectedLineStarts, edits);
  if (!endsAbruptlyAfterEdits(statements, branch)) {
    text += ctx.style.eol + ctx.bodyIndent + buildNoReplyThrow(ctx, branch.method);
  }
  return { text };
}

/** Notification handlers keep their statements; a reply the original sent to the notification is removed. */
function renderNotificationBody(branch: MethodBranch, ctx: BranchContext, statements: t.Statement[], range: { start: number; end: number }, baseIndent: string): BranchBody {
  const { source } = ctx;
  const edits = new EditList();
  for (const reply of branch.replies) {
    const site = reply.site;
    if (t.isReturnStatement(site)) {
      edits.replace(site.start!, site.end!, `return${semi(ctx.style)}`);
      continue;
    }
    const lineStart = getLineStart(source, site.start!);
    const newline = source.indexOf('\n', site.end!);
    const alone = !/\S/.test(source.slice(lineStart, site.start!)) && !/\S/.test(source.slice(site.end!, newline === -1 ? source.length : newline));
    if (alone) edits.remove(lineStart, newline === -1 ? source.length : newline + 1);
    else edits.remove(site.start!, site.end!);
  }
  if (branch.replies.length > 0) ctx.fixes?.push(`${branch.method} is no longer answered (it is a notification)`);
  return { text: ctx.bodyIndent + renderRange(source, range.start, range.end, baseIndent, ctx.bodyIndent, ctx.protectedLineStarts, edits) };
}

/** A case's closing `break` has no meaning inside a handler. */
function dropTrailingBreak(statements: t.Statement[]): t.Statement[] {
  const last = statements[statements.length - 1];
  return last && t.isBreakStatement(last) && !last.label ? statements.slice(0, -1) : statements;
}

function buildReplyStatement(reply: Reply, ctx: BranchContext, method: string, targetIndent: string): string {
  // A value's continuation lines keep their depth relative to the line it starts on.
  const valueEdits = method === 'resources/read' && reply.kind === 'result' && reply.value ? addMissingResourceUris(reply.value, ctx) : new EditList();
  const text = (node: t.Node) => renderRange(ctx.source, node.start!, node.end!, getLineIndent(ctx.source, node.start!), targetIndent, ctx.protectedLineStarts, valueEdits);
  if (reply.kind === 'result') {
    return reply.value ? `return ${text(reply.value)}${semi(ctx.style)}` : `return {}${semi(ctx.style)}`;
  }
  if (reply.rawText !== null) {
    const code = method === 'tools/call' ? RPC_ERRORS.invalidParams : RPC_ERRORS.internalError;
    return buildThrow(ctx, String(code), quoted(ctx.style, reply.rawText));
  }
  const code = reply.code ? text(reply.code) : String(RPC_ERRORS.internalError);
  const message = reply.message ? text(reply.message) : quoted(ctx.style, 'Internal error');
  return buildThrow(ctx, code, message, reply.data ? text(reply.data) : null);
}

/**
 * `resources/read` contents must carry the `uri` they were read from (the SDK client rejects them
 * otherwise): `{ contents: [{ text }] }` -> `{ contents: [{ uri: msg.params.uri, text }] }`.
 */
function addMissingResourceUris(value: t.Node, ctx: BranchContext): EditList {
  const edits = new EditList();
  walk(value, (node) => {
    if (!t.isObjectProperty(node) || getKeyNameSafe(node) !== 'contents' || !t.isArrayExpression(node.value)) return true;
    for (const element of node.value.elements) {
      if (!t.isObjectExpression(element) || element.properties.length === 0) continue;
      if (element.properties.some((p) => (t.isObjectProperty(p) && getKeyNameSafe(p) === 'uri') || t.isSpreadElement(p))) continue;
      const first = element.properties[0]!;
      const sameLine = !ctx.source.slice(element.start!, first.start!).includes('\n');
      const separator = sameLine ? ', ' : ',' + ctx.style.eol + getLineIndent(ctx.source, first.start!);
      edits.insert(first.start!, `uri: ${ctx.paramsExpression}.uri${separator}`);
      ctx.fixes?.push('resources/read contents carry the requested uri (the SDK client rejects contents without one)');
    }
    return false;
  });
  return edits;
}

function getKeyNameSafe(node: t.ObjectProperty): string | null {
  if (node.computed) return t.isStringLiteral(node.key) ? node.key.value : null;
  return t.isIdentifier(node.key) ? node.key.name : t.isStringLiteral(node.key) ? node.key.value : null;
}

type ParentMap = Map<t.Node, t.Node>;

function buildParentMap(statements: t.Statement[]): ParentMap {
  const parents: ParentMap = new Map();
  const root = { type: 'BlockStatement', body: statements, directives: [] } as unknown as t.BlockStatement;
  walk(root, (node, parent) => {
    if (parent) parents.set(node, parent);
  });
  return parents;
}

/** The statement list a statement sits in, and its index there. */
function getSiblings(node: t.Node, parents: ParentMap): { list: t.Statement[]; index: number } | null {
  const parent = parents.get(node);
  if (!parent) return null;
  const list = t.isBlockStatement(parent) || t.isProgram(parent) ? parent.body : t.isSwitchCase(parent) ? parent.consequent : null;
  if (!list) return null;
  return { list, index: list.indexOf(node as t.Statement) };
}

/** `return;` / `break;` right after a reply: unreachable once the reply is a return/throw. */
function getDeadFollowers(site: t.Node, parents: ParentMap): t.Statement[] {
  const siblings = getSiblings(site, parents);
  if (!siblings) return [];
  const next = siblings.list[siblings.index + 1];
  if (next && ((t.isReturnStatement(next) && !next.argument) || (t.isBreakStatement(next) && !next.label))) return [next];
  return [];
}

/**
 * After a reply, the original must leave the branch (only `return;`/`break;` or the end of the branch may
 * follow). Otherwise code ran after the reply, and a return/throw would skip it.
 */
function checkLeavesAfterReply(site: t.Node, parents: ParentMap, top: t.Statement[]): string | null {
  if (t.isReturnStatement(site)) return null;
  let current: t.Node = site;
  for (;;) {
    const parent = parents.get(current);
    if (!parent) return null; // reached the branch's own statement list
    if (t.isBlockStatement(parent) || t.isSwitchCase(parent)) {
      const list = t.isBlockStatement(parent) ? parent.body : parent.consequent;
      const next = list[list.indexOf(current as t.Statement) + 1];
      if (next) {
        if (t.isReturnStatement(next) && !next.argument) return null;
        if (t.isBreakStatement(next) && !next.label) {
          if (list === top || isDirectCaseLevel(parent, parents, top)) return null;
          return 'a reply is followed by a break out of an inner loop or switch';
        }
        return 'code runs after a reply';
      }
    } else if (t.isLoop(parent)) {
      return 'a reply is written inside a loop';
    } else if (t.isSwitchStatement(parent)) {
      return 'a reply is written inside an inner switch that continues afterwards';
    } else if (t.isFunction(parent)) {
      return 'a reply is written from a callback';
    }
    current = parent;
  }
}

function isDirectCaseLevel(block: t.Node, parents: ParentMap, top: t.Statement[]): boolean {
  // A block that is (transitively, through ifs/blocks/try) part of the branch without a loop or switch in between.
  let current: t.Node | undefined = block;
  while (current) {
    const parent = parents.get(current);
    if (!parent) return top.includes(current as t.Statement) || true;
    if (t.isLoop(parent) || t.isSwitchStatement(parent) || t.isFunction(parent)) return false;
    current = parent;
  }
  return true;
}

/** `return;` and dispatch-level `break;` that are not right after a reply: the original answered nothing. */
function findSilentExits(statements: t.Statement[], replies: Reply[], parents: ParentMap): t.Statement[] {
  const exits: t.Statement[] = [];
  const dead = new Set(replies.flatMap((r) => getDeadFollowers(r.site, parents)));
  const visit = (node: t.Node, inBreakable: boolean): void => {
    if (t.isFunction(node)) return;
    if (t.isReturnStatement(node) && !node.argument && !dead.has(node)) exits.push(node);
    if (t.isBreakStatement(node) && !node.label && !inBreakable && !dead.has(node)) exits.push(node);
    const breakable = inBreakable || t.isLoop(node) || t.isSwitchStatement(node);
    for (const key of t.VISITOR_KEYS[node.type] ?? []) {
      const value = (node as unknown as Record<string, unknown>)[key];
      for (const child of Array.isArray(value) ? value : [value]) {
        if (child && typeof (child as t.Node).type === 'string') visit(child as t.Node, breakable);
      }
    }
  };
  // A trailing `break` was already dropped; a trailing bare `return` is a silent exit too.
  for (const statement of statements) visit(statement, false);
  return exits;
}

/** `return x` of the branch itself (not of nested functions) where x is not an object literal. */
function findValueReturns(statements: t.Statement[]): t.ReturnStatement[] {
  const returns: t.ReturnStatement[] = [];
  const root = { type: 'BlockStatement', body: statements, directives: [] } as unknown as t.BlockStatement;
  walk(root, (node) => {
    if (t.isFunction(node)) return false;
    if (t.isReturnStatement(node) && node.argument && !t.isObjectExpression(unwrapExpression(node.argument))) returns.push(node);
    return true;
  });
  return returns;
}

/** console.log / console.info / process.stdout.write calls that are not replies. */
function findStdoutLogging(statements: t.Statement[], replies: Reply[]): t.CallExpression[] {
  const sites = new Set(replies.map((r) => r.site));
  const calls: t.CallExpression[] = [];
  const root = { type: 'BlockStatement', body: statements, directives: [] } as unknown as t.BlockStatement;
  walk(root, (node) => {
    if (sites.has(node)) return false;
    if (t.isCallExpression(node) && getStdoutWriteKind(node) && getStdoutWriteKind(node) !== 'writeSync') calls.push(unwrapExpression(node) as t.CallExpression);
    return true;
  });
  return calls;
}

/** Whether the converted body can run off its end (then the original sent nothing in that path). */
function endsAbruptlyAfterEdits(statements: t.Statement[], branch: MethodBranch): boolean {
  const sites = new Set(branch.replies.map((r) => r.site));
  const abrupt = (statement: t.Statement): boolean => {
    if (sites.has(statement)) return true;
    if (t.isBlockStatement(statement)) {
      const last = statement.body[statement.body.length - 1];
      return last !== undefined && (abrupt(last) || (sites.has(statement.body[statement.body.length - 2]!) && isBareExit(last)));
    }
    if (t.isIfStatement(statement)) return !!statement.alternate && abrupt(statement.consequent) && abrupt(statement.alternate);
    if (t.isTryStatement(statement)) {
      return abrupt(statement.block) && (!statement.handler || abrupt(statement.handler.body));
    }
    return endsAbruptly(statement) && !isBareExit(statement);
  };
  const last = statements[statements.length - 1];
  if (!last) return false;
  if (isBareExit(last) && sites.has(statements[statements.length - 2]!)) return true;
  return abrupt(last);
}

function isBareExit(statement: t.Statement): boolean {
  return (t.isReturnStatement(statement) && !statement.argument) || (t.isBreakStatement(statement) && !statement.label);
}
