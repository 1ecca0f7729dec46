// Detection entry point: AST -> what the server is (ServerModel), or why it is not one we can move.
// READ-ONLY. The planner decides what to do; the rewriter does it.
import * as t from '@babel/types';
import type { Detection, InitializeInfo, MessageBinding, MethodBranch, ReplyProtocol, ServerModel } from '../model/server-model.js';
import { MCP_METHOD_NAMES } from '../model/mcp-methods.js';
import { containsNode, findNamedFunctions, getKeyName, getMemberChain, getStdoutWriteKind, unwrapExpression, walk, type StdoutWriteKind } from './ast.js';
import { findDispatch, getCatchErrorCode, type FoundDispatch, type RawBranch } from './dispatch.js';
import { findInputLoop, type FoundLoop } from './input-loop.js';
import { analyzeReplyCall, findWriterHelpers, getReplyFromValue, type WriterHelper } from './replies.js';

export const IGNORE_COMMENT = 'mcp-migrate-ignore';
const SDK_PACKAGES = /^@modelcontextprotocol\/(sdk|server)(\/|$)/;

type Fail = { kind: 'unsupported'; reason: string; line: number; detail: string };
const fail = (reason: string, line: number, detail: string): Fail => ({ kind: 'unsupported', reason, line, detail });

export function detectServer(ast: t.File): Detection {
  const program = ast.program;
  const sdkImport = findSdkImport(program);
  if (sdkImport) return { kind: 'sdk-server', line: sdkImport.loc!.start.line, writesStdout: writesStdoutOutsideSdk(program) };
  if (!mentionsMcpMethods(program)) return { kind: 'none' };

  const search = findInputLoop(program);
  if (search.kind === 'none') return { kind: 'none' };
  if (search.kind === 'unsupported') return fail('UNSUPPORTED_INPUT_LOOP', search.line, search.detail);
  const loop = search.loop;
  if (hasIgnoreComment(ast)) return fail('IGNORED', loop.line, 'mcp-migrate-ignore comment');

  const parsed = findMessageParse(loop.body);
  if (!parsed) return fail('UNSUPPORTED_INPUT_LOOP', loop.line, 'no JSON.parse of the incoming line was found');
  const writers = findWriterHelpers(program);
  const found = findDispatchFrom(parsed, loop, writers, program);
  if (found.kind === 'unsupported') return found;
  return buildModel(program, loop, writers, found);
}

function findSdkImport(program: t.Program): t.Node | null {
  let hit: t.Node | null = null;
  walk(program, (node) => {
    if (hit) return false;
    if (t.isImportDeclaration(node) && SDK_PACKAGES.test(node.source.value)) hit = node;
    if (t.isCallExpression(node) && t.isIdentifier(node.callee, { name: 'require' }) && t.isStringLiteral(node.arguments[0]) && SDK_PACKAGES.test(node.arguments[0].value)) hit = node;
    return true;
  });
  return hit;
}

function writesStdoutOutsideSdk(program: t.Program): boolean {
  return containsNode(program, (node) => getStdoutWriteKind(node) !== null);
}

/**
 * A JSON-RPC program is MCP when it names an MCP-specific method, or builds MCP-only shapes
 * (`serverInfo`, `protocolVersion`, `inputSchema`) — routing by computed names hides the method strings.
 */
function mentionsMcpMethods(program: t.Program): boolean {
  const specific = MCP_METHOD_NAMES.filter((m) => m.includes('/'));
  const mcpKeys = ['serverInfo', 'protocolVersion', 'inputSchema'];
  return containsNode(
    program,
    (node) =>
      (t.isStringLiteral(node) && specific.includes(node.value)) ||
      (t.isObjectProperty(node) && mcpKeys.includes(getKeyName(node) ?? '')),
  );
}

function hasIgnoreComment(ast: t.File): boolean {
  return (ast.comments ?? []).some((c) => c.value.trim().startsWith(IGNORE_COMMENT));
}

interface ParsedMessage {
  binding: MessageBinding;
  /** `handle(JSON.parse(line))`: the dispatcher gets the parsed value directly. */
  directCall?: { callee: string; statement: t.Statement };
  /** The statements after the parse, in the block that holds it: where dispatch happens. */
  region: t.Statement[];
  /** Statements before the parse in the loop (empty-line checks, buffering): dropped with the loop. */
  before: t.Statement[];
}

/** `msg = JSON.parse(line)` in a try, or `const msg = JSON.parse(line)`, somewhere in the per-line code. */
function findMessageParse(body: t.Statement[]): ParsedMessage | null {
  for (let i = 0; i < body.length; i++) {
    const statement = body[i]!;
    const passed = getParsePassedTo(statement) ?? (t.isTryStatement(statement) && statement.block.body.length === 1 ? getParsePassedTo(statement.block.body[0]!) : null);
    if (passed) {
      return { binding: { kind: 'identifier', name: '' }, directCall: { callee: passed, statement }, region: [statement], before: body.slice(0, i) };
    }
    const direct = getParsedName(statement);
    if (direct) return { binding: { kind: 'identifier', name: direct }, region: body.slice(i + 1), before: body.slice(0, i) };
    if (t.isTryStatement(statement) && statement.block.body.some((s) => getParsedName(s))) {
      const inner = statement.block.body.findIndex((s) => getParsedName(s));
      const name = getParsedName(statement.block.body[inner]!)!;
      // const msg = JSON.parse(line) inside the try: the dispatch follows it inside the try.
      const rest = statement.block.body.slice(inner + 1);
      const region = rest.length > 0 ? rest : body.slice(i + 1);
      return { binding: { kind: 'identifier', name }, region, before: body.slice(0, i) };
    }
    // for (const line of lines) { ... } inside a 'data' handler
    if ((t.isForOfStatement(statement) || t.isForStatement(statement) || t.isWhileStatement(statement)) && t.isBlockStatement(statement.body)) {
      const inner = findMessageParse(statement.body.body);
      if (inner) return inner;
    }
  }
  return null;
}

/** `handle(JSON.parse(line))` -> 'handle' */
function getParsePassedTo(statement: t.Statement): string | null {
  if (!t.isExpressionStatement(statement)) return null;
  const call = unwrapExpression(statement.expression);
  if (!t.isCallExpression(call) || call.arguments.length !== 1 || !isJsonParse(call.arguments[0]!)) return null;
  return getMemberChain(call.callee);
}

function getParsedName(statement: t.Statement): string | null {
  if (t.isVariableDeclaration(statement) && statement.declarations.length === 1) {
    const d = statement.declarations[0]!;
    if (t.isIdentifier(d.id) && d.init && isJsonParse(d.init)) return d.id.name;
  }
  if (t.isExpressionStatement(statement) && t.isAssignmentExpression(statement.expression) && statement.expression.operator === '=') {
    const { left, right } = statement.expression;
    if (t.isIdentifier(left) && isJsonParse(right)) return left.name;
  }
  return null;
}

function isJsonParse(node: t.Node): boolean {
  const inner = unwrapExpression(node);
  return t.isCallExpression(inner) && getMemberChain(inner.callee) === 'JSON.parse';
}

interface DispatchFound {
  kind: 'found';
  binding: MessageBinding;
  dispatch: FoundDispatch;
  protocol: ReplyProtocol;
  container: t.Node | null;
  dropped: t.Node[];
  prelude: t.VariableDeclaration[];
}

function findDispatchFrom(parsed: ParsedMessage, loop: FoundLoop, writers: Map<string, WriterHelper>, program: t.Program): DispatchFound | Fail {
  if (parsed.directCall) {
    return followDispatcher(parsed.directCall.callee, { kind: 'write' }, parsed.directCall.statement, [], loop, program);
  }
  const inline = findDispatch(parsed.region, parsed.binding, program);
  if (inline.kind === 'unsupported') return fail(inline.reason, inline.line, inline.detail);
  if (inline.kind === 'found') {
    const blocking = inline.dispatch.others.find((s) => !isDroppable(s, parsed.binding));
    if (blocking) return fail('LOOP_SIDE_EFFECTS', blocking.loc!.start.line, 'the loop does more than parse and dispatch');
    const protocol: ReplyProtocol = inline.dispatch.handlerMap
      ? { kind: 'return-result', errorCode: normalizeCode(numericOrNull(inline.dispatch.handlerMap.errorCode)) }
      : { kind: 'write' };
    return { kind: 'found', binding: parsed.binding, dispatch: inline.dispatch, protocol, container: null, dropped: inline.dispatch.others, prelude: [] };
  }

  // The whole if-chain sits in a try whose catch answers errors, and one write sends `response` afterwards.
  const assigned = findAssignedResponseDispatch(parsed, writers, program);
  if (assigned) return assigned;

  // The loop hands the message to a dispatcher function.
  for (const statement of parsed.region) {
    const call = getDispatcherCall(statement, parsed.binding, writers);
    if (!call) continue;
    const others = parsed.region.filter((s) => s !== statement);
    const blocking = others.find((s) => !isDroppable(s, parsed.binding));
    if (blocking) return fail('LOOP_SIDE_EFFECTS', blocking.loc!.start.line, 'the loop does more than parse and dispatch');
    return followDispatcher(call.callee, call.protocol, statement, others, loop, program);
  }
  return fail('NO_DISPATCH', loop.line, 'no dispatch on the message method was found');
}

function followDispatcher(callee: string, callProtocol: ReplyProtocol, statement: t.Statement, dropped: t.Node[], loop: FoundLoop, program: t.Program): DispatchFound | Fail {
  const target = resolveFunction(callee, program, loop.ownerClass);
  if (!target) return fail('NO_DISPATCH', statement.loc!.start.line, `cannot follow ${callee}()`);
  const param = getParamBinding(target.fn.params[0]);
  if (!param) return fail('NO_DISPATCH', target.fn.loc!.start.line, 'the dispatcher parameter is not a plain name or object pattern');
  const body = t.isBlockStatement(target.fn.body) ? target.fn.body.body : [];
  const { binding, prelude } = withPrelude(param, body);
  const found = findDispatch(body, binding, program);
  if (found.kind === 'unsupported') return fail(found.reason, found.line, found.detail);
  if (found.kind === 'none') return fail('NO_DISPATCH', target.fn.loc!.start.line, `${callee}() does not switch on the method`);
  let protocol = callProtocol;
  if (found.dispatch.handlerMap) protocol = { kind: 'return-result', errorCode: normalizeCode(numericOrNull(found.dispatch.handlerMap.errorCode)) };
  else {
    const blockingInner = found.dispatch.others.find((s) => !prelude.includes(s as t.VariableDeclaration) && !isDroppable(s, binding));
    if (blockingInner) return fail('LOOP_SIDE_EFFECTS', blockingInner.loc!.start.line, 'the dispatcher does more than switch on the method');
  }
  if (protocol.kind === 'return-result') protocol = { ...protocol, errorCode: normalizeCode(protocol.errorCode) };
  return { kind: 'found', binding, dispatch: found.dispatch, protocol, container: target.declaration, dropped, prelude };
}

/** -32603 with the error's message is what the SDK answers for a plain thrown Error anyway. */
function normalizeCode(code: number | null): number | null {
  return code === -32603 ? null : code;
}

/**
 * `const { id, method, params = {} } = msg` / `const params = msg.params || {}` before the dispatch:
 * names for the message's members. The method alias is how branches are found; the others are copied
 * into the handlers that use them.
 */
function withPrelude(binding: MessageBinding, body: t.Statement[]): { binding: MessageBinding; prelude: t.VariableDeclaration[] } {
  if (binding.kind !== 'identifier') return { binding, prelude: [] };
  const aliases = new Map<string, string>();
  const prelude: t.VariableDeclaration[] = [];
  const name = binding.name;
  for (const statement of body) {
    if (!t.isVariableDeclaration(statement) || statement.declarations.length !== 1) continue;
    const declarator = statement.declarations[0]!;
    if (!declarator.init || !containsNode(declarator.init, (n) => t.isIdentifier(n, { name })) || containsNode(declarator.init, (n) => t.isCallExpression(n))) continue;
    prelude.push(statement);
    if (t.isObjectPattern(declarator.id) && t.isIdentifier(declarator.init, { name })) {
      for (const prop of declarator.id.properties) {
        if (!t.isObjectProperty(prop)) continue;
        const key = getKeyName(prop);
        const value = t.isAssignmentPattern(prop.value) ? prop.value.left : prop.value;
        if (key && t.isIdentifier(value)) aliases.set(key, value.name);
      }
    } else if (t.isIdentifier(declarator.id)) {
      const member = getMemberChain(unwrapExpression(declarator.init));
      if (member === `${name}.method`) aliases.set('method', declarator.id.name);
      else if (containsNode(declarator.init, (n) => getMemberChain(n) === `${name}.id`)) aliases.set('id', declarator.id.name);
    }
  }
  return { binding: { kind: 'identifier', name, aliases }, prelude };
}

/**
 * let response; try { if (msg.method === ...) response = {...}; else ... } catch (e) { response = {...error} }
 * process.stdout.write(JSON.stringify(response) + '\n');
 */
function findAssignedResponseDispatch(parsed: ParsedMessage, writers: Map<string, WriterHelper>, program: t.Program): DispatchFound | null {
  const region = parsed.region;
  const tryIndex = region.findIndex((s) => t.isTryStatement(s));
  if (tryIndex === -1) return null;
  const tryStatement = region[tryIndex] as t.TryStatement;
  const found = findDispatch(tryStatement.block.body, parsed.binding, program);
  if (found.kind !== 'found' || found.dispatch.others.length > 0) return null;
  const write = region.slice(tryIndex + 1).find((s) => t.isExpressionStatement(s) && t.isCallExpression(s.expression));
  if (!write || !t.isExpressionStatement(write) || !t.isCallExpression(write.expression)) return null;
  const call = write.expression;
  const kind = getStdoutWriteKind(call);
  const writtenArg = kind ? (call.arguments[kind === 'writeSync' ? 1 : 0]) : (writers.has(getMemberChain(call.callee) ?? '') ? call.arguments[0] : undefined);
  const serialized = kind ? unwrapSerialized(writtenArg) : writtenArg;
  if (!serialized || !t.isIdentifier(serialized)) return null;
  const errorCode = tryStatement.handler ? getCatchErrorCode(tryStatement.handler) : null;
  if (errorCode === 'unknown') return null;
  const others = region.filter((s) => s !== tryStatement && s !== write);
  const variable = serialized.name;
  const blocking = others.find((s) => !isDroppable(s, parsed.binding) && !(t.isVariableDeclaration(s) && t.isIdentifier(s.declarations[0]?.id, { name: variable })));
  if (blocking) return null;
  return {
    kind: 'found',
    binding: parsed.binding,
    dispatch: found.dispatch,
    protocol: { kind: 'assign-envelope', variable, errorCode: normalizeCode(errorCode) },
    container: null,
    dropped: others,
    prelude: [],
  };
}

function unwrapSerialized(node: t.Node | undefined): t.Node | null {
  if (!node) return null;
  const inner = unwrapExpression(node);
  if (t.isBinaryExpression(inner) && inner.operator === '+') return unwrapSerialized(inner.left);
  if (t.isCallExpression(inner) && getMemberChain(inner.callee) === 'JSON.stringify') return inner.arguments[0] ? unwrapExpression(inner.arguments[0]) : null;
  return null;
}

function numericOrNull(code: number | null | 'unknown'): number | null {
  return code === 'unknown' ? null : code;
}

interface DispatcherCall {
  callee: string;
  protocol: ReplyProtocol;
}

/**
 * How the loop calls the dispatcher, and so how replies leave it:
 *   handle(msg)                        -> the dispatcher writes itself
 *   out(await handle(msg))             -> the dispatcher returns whole reply objects
 *   this.dispatch(msg).then(ok, fail)  -> the dispatcher returns results; `fail` maps errors to codes
 */
function getDispatcherCall(statement: t.Statement, binding: MessageBinding, writers: Map<string, WriterHelper>): DispatcherCall | null {
  if (!t.isExpressionStatement(statement)) return null;
  let expression: t.Node = statement.expression;
  if (t.isUnaryExpression(expression) && expression.operator === 'void') expression = expression.argument;
  expression = unwrapExpression(expression);
  if (!t.isCallExpression(expression)) return null;
  const passesMessage = (call: t.CallExpression) =>
    binding.kind === 'identifier' && call.arguments.length === 1 && t.isIdentifier(call.arguments[0], { name: binding.name });

  if (passesMessage(expression)) {
    const callee = getMemberChain(expression.callee);
    return callee ? { callee, protocol: { kind: 'write' } } : null;
  }
  // out(await handle(msg)) / process.stdout.write(JSON.stringify(await handle(msg)) + '\n')
  const writerName = getMemberChain(expression.callee);
  const isWriter = (writerName && writers.has(writerName)) || getStdoutWriteKind(expression) !== null;
  if (isWriter) {
    let inner: t.Node | undefined = expression.arguments[getStdoutWriteKind(expression) === 'writeSync' ? 1 : 0];
    if (inner && getStdoutWriteKind(expression)) {
      const serialized = inner && t.isCallExpression(unwrapExpression(inner)) ? unwrapExpression(inner) : null;
      inner = serialized && t.isCallExpression(serialized) && getMemberChain(serialized.callee) === 'JSON.stringify' ? serialized.arguments[0] : inner;
    }
    const call = inner ? unwrapExpression(inner) : null;
    if (call && t.isCallExpression(call) && passesMessage(call)) {
      const callee = getMemberChain(call.callee);
      return callee ? { callee, protocol: { kind: 'return-envelope' } } : null;
    }
  }
  // this.dispatch(msg).then(onResult, onError)
  if (t.isMemberExpression(expression.callee) && t.isIdentifier(expression.callee.property, { name: 'then' })) {
    const inner = expression.callee.object;
    if (t.isCallExpression(inner) && passesMessage(inner) && expression.arguments.length === 2) {
      const callee = getMemberChain(inner.callee);
      const errorCode = getCatchErrorCode(expression.arguments[1]!);
      if (!callee || errorCode === 'unknown') return null;
      return { callee, protocol: { kind: 'return-result', errorCode } };
    }
  }
  return null;
}

function resolveFunction(callee: string, program: t.Program, ownerClass: FoundLoop['ownerClass']): { fn: t.Function; declaration: t.Node } | null {
  if (callee.startsWith('this.')) {
    const member = ownerClass?.body.body.find((m) => t.isClassMethod(m) && getKeyName(m) === callee.slice(5));
    return member && t.isClassMethod(member) ? { fn: member, declaration: member } : null;
  }
  return findNamedFunctions(program).get(callee) ?? null;
}

function getParamBinding(param: t.Node | undefined): MessageBinding | null {
  if (!param) return null;
  const inner = t.isAssignmentPattern(param) ? param.left : param;
  if (t.isIdentifier(inner)) return { kind: 'identifier', name: inner.name };
  if (t.isObjectPattern(inner)) {
    const properties = new Map<string, string>();
    for (const prop of inner.properties) {
      if (!t.isObjectProperty(prop) || !t.isIdentifier(prop.value)) return null;
      const key = getKeyName(prop);
      if (!key) return null;
      properties.set(key, prop.value.name);
    }
    return { kind: 'pattern', pattern: inner, properties };
  }
  return null;
}

/** Statements around the dispatch that the SDK makes unnecessary: logging, notification/empty-line checks, id copies. */
function isDroppable(statement: t.Statement, binding: MessageBinding): boolean {
  if (t.isEmptyStatement(statement)) return true;
  if (t.isExpressionStatement(statement) && t.isCallExpression(statement.expression)) {
    const callee = getMemberChain(statement.expression.callee) ?? '';
    return callee.startsWith('console.');
  }
  if (t.isIfStatement(statement) && !statement.alternate) {
    const exits = t.isBlockStatement(statement.consequent) ? statement.consequent.body : [statement.consequent];
    return exits.every(
      (s) => (t.isReturnStatement(s) && !s.argument) || t.isContinueStatement(s) || (t.isExpressionStatement(s) && (getMemberChain((s.expression as t.CallExpression).callee) ?? '').startsWith('console.')),
    );
  }
  if (t.isVariableDeclaration(statement) && statement.declarations.length === 1) {
    const init = statement.declarations[0]!.init;
    const name = binding.kind === 'identifier' ? binding.name : null;
    return !!init && !!name && containsNode(init, (n) => t.isIdentifier(n, { name })) && !containsNode(init, (n) => t.isCallExpression(n));
  }
  return false;
}

function buildModel(program: t.Program, loop: FoundLoop, writers: Map<string, WriterHelper>, found: DispatchFound): Detection {
  const { dispatch, protocol, binding } = found;
  const methods: MethodBranch[] = [];
  const writeKinds = new Set<StdoutWriteKind>();
  let initialize: InitializeInfo | null = null;
  const notificationReplies: string[] = [];

  for (const raw of dispatch.branches) {
    if (raw.methods.length !== 1) {
      return fail('SHARED_BRANCH', raw.line, `one branch serves ${raw.methods.join(', ')}`);
    }
    const method = raw.methods[0]!;
    const replies = collectReplies(raw, protocol, writers, writeKinds);
    if ('reason' in replies) return fail(replies.reason, replies.line, replies.detail);
    const branch: MethodBranch = {
      method,
      line: raw.line,
      statements: raw.statements,
      prologue: raw.param && dispatch.handlerMap?.argument ? { param: raw.param, init: dispatch.handlerMap.argument } : null,
      replies: replies.replies,
    };
    if (raw.expressionBody) branch.statements = [t.returnStatement(raw.expressionBody)];
    if (method === 'initialize') initialize = getInitializeInfo(branch, raw, protocol);
    if (method.startsWith('notifications/') && branch.replies.length > 0) notificationReplies.push(method);
    methods.push(branch);
  }
  let fallback: ServerModel['fallback'] = null;
  if (dispatch.fallback) {
    const replies = collectReplies(dispatch.fallback, protocol, writers, writeKinds);
    const error = 'replies' in replies ? replies.replies.find((r) => r.kind === 'error') : undefined;
    let code = error && error.kind === 'error' && error.code ? numberOf(error.code) : null;
    if (code === null) {
      const literal = getCatchErrorCode(dispatch.fallback.node);
      code = typeof literal === 'number' ? literal : null;
    }
    fallback = { line: dispatch.fallback.line, code };
  }
  const usesThis = methods.some((m) => m.statements.some((s) => containsThis(s)));
  const model: ServerModel = {
    syntax: getModuleSyntax(program),
    input: { kind: loop.kind, line: loop.line, removals: loop.removals, anchor: loop.anchor, anchorInFunction: loop.anchorInFunction },
    writerNames: [...writers.keys()],
    writerDeclarations: [...writers.values()].map((w) => w.declaration),
    writeKinds: [...writeKinds],
    message: binding,
    dispatch: { kind: dispatch.kind, line: dispatch.line, container: found.container, protocol },
    methods,
    prelude: found.prelude,
    fallback,
    initialize,
    notificationReplies,
    droppedInLoop: found.dropped,
    registrationAnchor: pickRegistrationAnchor(found, loop),
    usesThis,
  };
  return { kind: 'server', model };
}

/** Registrations go where the dispatcher was; into the loop's place when it lives in a class. */
function pickRegistrationAnchor(found: DispatchFound, loop: FoundLoop): t.Node {
  if (found.dispatch.handlerMap) return found.dispatch.handlerMap.map;
  if (found.container && !t.isClassMethod(found.container)) return found.container;
  return loop.anchor;
}

function numberOf(node: t.Node): number | null {
  const inner = unwrapExpression(node);
  if (t.isNumericLiteral(inner)) return inner.value;
  if (t.isUnaryExpression(inner) && inner.operator === '-' && t.isNumericLiteral(inner.argument)) return -inner.argument.value;
  return null;
}

function containsThis(node: t.Node): boolean {
  let found = false;
  walk(node, (n) => {
    if (found) return false;
    if (t.isThisExpression(n)) found = true;
    // A plain function has its own `this`.
    return !(t.isFunctionExpression(n) || t.isFunctionDeclaration(n));
  });
  return found;
}

type ReplyCollection = { replies: MethodBranch['replies'] } | { reason: string; line: number; detail: string };

/** The replies of one branch under the dispatcher's protocol; fails on replies the rewrite cannot turn into return/throw. */
function collectReplies(raw: RawBranch, protocol: ReplyProtocol, writers: Map<string, WriterHelper>, writeKinds: Set<StdoutWriteKind>): ReplyCollection {
  const replies: MethodBranch['replies'] = [];
  let problem: ReplyCollection | null = null;
  const visit = (node: t.Node, depth: number, statementParent: t.Node | null): void => {
    if (problem) return;
    if (t.isFunction(node)) depth++;
    if (protocol.kind === 'write' && t.isCallExpression(node)) {
      const analysis = analyzeReplyCall(node, statementParent ?? node, writers);
      if (analysis.kind === 'unknown-shape') {
        problem = { reason: 'UNKNOWN_REPLY_SHAPE', line: node.loc!.start.line, detail: 'a reply that is not a literal { id, result | error } object' };
        return;
      }
      if (analysis.kind === 'reply') {
        if (depth > 0) {
          problem = { reason: 'REPLY_IN_CALLBACK', line: node.loc!.start.line, detail: 'a reply written from a callback' };
          return;
        }
        const site = statementParent;
        const isStatement =
          site && ((t.isExpressionStatement(site) && unwrapExpression(site.expression) === node) || (t.isReturnStatement(site) && site.argument && unwrapExpression(site.argument) === node));
        if (!isStatement) {
          problem = { reason: 'REPLY_NOT_STATEMENT', line: node.loc!.start.line, detail: 'a reply written inside an expression' };
          return;
        }
        writeKinds.add(analysis.writeKind);
        replies.push(analysis.reply);
        return;
      }
    }
    if (protocol.kind === 'assign-envelope' && t.isAssignmentExpression(node) && t.isIdentifier(node.left, { name: protocol.variable })) {
      const site = statementParent;
      const reply = t.isObjectExpression(unwrapExpression(node.right)) ? getReplyFromValue(unwrapExpression(node.right), new Map(), site ?? node) : null;
      if (!reply || !site || !t.isExpressionStatement(site) || site.expression !== node || depth > 0) {
        problem = { reason: 'UNKNOWN_REPLY_SHAPE', line: node.loc!.start.line, detail: `an assignment to ${protocol.variable} that is not a literal reply` };
        return;
      }
      replies.push(reply);
      return;
    }
    if (protocol.kind === 'return-envelope' && t.isReturnStatement(node) && depth === 0) {
      const reply = node.argument && t.isObjectExpression(unwrapExpression(node.argument)) ? getReplyFromValue(unwrapExpression(node.argument), new Map(), node) : null;
      if (!reply) {
        problem = { reason: 'UNKNOWN_REPLY_SHAPE', line: node.loc!.start.line, detail: 'a returned reply that is not a literal { id, result | error } object' };
        return;
      }
      replies.push(reply);
      return;
    }
    const keys = t.VISITOR_KEYS[node.type] ?? [];
    for (const key of keys) {
      const value = (node as unknown as Record<string, unknown>)[key];
      const children = Array.isArray(value) ? value : [value];
      for (const child of children) {
        if (child && typeof (child as t.Node).type === 'string') {
          const c = child as t.Node;
          visit(c, depth, t.isStatement(c) ? c : statementParent);
        }
      }
    }
  };
  for (const statement of raw.statements) visit(statement, 0, statement);
  if (raw.expressionBody) visit(raw.expressionBody, 0, null);
  return problem ?? { replies };
}

function getInitializeInfo(branch: MethodBranch, raw: RawBranch, protocol: ReplyProtocol): InitializeInfo {
  let result: t.Node | null = null;
  if (protocol.kind === 'return-result') {
    if (raw.expressionBody) result = raw.expressionBody;
    walk({ type: 'BlockStatement', body: raw.statements, directives: [] } as t.BlockStatement, (node) => {
      if (result) return false;
      if (t.isReturnStatement(node) && node.argument) result = node.argument;
      return !t.isFunction(node);
    });
  } else {
    const reply = branch.replies.find((r) => r.kind === 'result');
    result = reply && reply.kind === 'result' ? reply.value : null;
  }
  const info: InitializeInfo = { serverInfo: null, capabilities: null, instructions: null, protocolVersion: null };
  const object = result ? unwrapExpression(result) : null;
  if (object && t.isObjectExpression(object)) {
    for (const prop of object.properties) {
      if (!t.isObjectProperty(prop)) continue;
      const key = getKeyName(prop);
      if (key === 'serverInfo') info.serverInfo = prop.value;
      if (key === 'capabilities') info.capabilities = prop.value;
      if (key === 'instructions') info.instructions = prop.value;
      if (key === 'protocolVersion') info.protocolVersion = prop.value;
    }
  }
  return info;
}

function getModuleSyntax(program: t.Program): ServerModel['syntax'] {
  if (program.body.some((s) => t.isImportDeclaration(s) || t.isExportDeclaration(s))) return 'import';
  const requires = containsNode(program, (n) => t.isCallExpression(n) && t.isIdentifier(n.callee, { name: 'require' }));
  return requires ? 'require' : 'none';
}
