// Finding the dispatch on the incoming message's `method` and splitting it into one branch per method.
// Shapes: if / else-if chains, bare ifs, `switch`, and an object map of handlers looked up by method.
import * as t from '@babel/types';
import type { MessageBinding } from '../model/server-model.js';
import { getBlockStatements, getKeyName, getMemberChain, getStaticString, unwrapExpression, walk } from './ast.js';

export interface RawBranch {
  methods: string[];
  line: number;
  statements: t.Statement[];
  /** For handler-map entries: the entry's parameter (bound to the lookup call's argument). */
  param: t.Node | null;
  /** For expression-bodied arrow entries. */
  expressionBody: t.Expression | null;
  /** The node the branch hangs from (if statement, switch case, map entry). */
  node: t.Node;
}

export interface HandlerMapCall {
  /** `handlers` */
  map: t.VariableDeclaration;
  /** `handler(message.params ?? {})`: the argument text the entries receive. */
  argument: t.Node | null;
  /** The error code the catch around the call answers with (null: the error's own code, else -32603). */
  errorCode: number | null | 'unknown';
}

export interface FoundDispatch {
  kind: 'if-chain' | 'switch' | 'handler-map';
  line: number;
  branches: RawBranch[];
  fallback: RawBranch | null;
  /** Statements of the scanned list that are not part of the dispatch. */
  others: t.Statement[];
  handlerMap: HandlerMapCall | null;
}

export type DispatchSearch = { kind: 'found'; dispatch: FoundDispatch } | { kind: 'none' } | { kind: 'unsupported'; line: number; reason: string; detail: string };

/** Does `node` read the incoming message's method? (`msg.method`, or `method` destructured from it) */
export function isMethodExpression(node: t.Node, binding: MessageBinding): boolean {
  const inner = unwrapExpression(node);
  if (binding.kind === 'identifier') {
    const alias = binding.aliases?.get('method');
    return getMemberChain(inner) === `${binding.name}.method` || (alias !== undefined && t.isIdentifier(inner, { name: alias }));
  }
  const local = binding.properties.get('method');
  return local !== undefined && t.isIdentifier(inner) && inner.name === local;
}

/** `msg.method === 'x'` (either side, `==` too) → 'x'. Also `||` of such tests → several. */
function getTestedMethods(test: t.Node, binding: MessageBinding): string[] | null {
  const inner = unwrapExpression(test);
  if (t.isLogicalExpression(inner) && inner.operator === '||') {
    const left = getTestedMethods(inner.left, binding);
    const right = getTestedMethods(inner.right, binding);
    return left && right ? [...left, ...right] : null;
  }
  if (!t.isBinaryExpression(inner) || (inner.operator !== '===' && inner.operator !== '==')) return null;
  if (isMethodExpression(inner.left, binding)) {
    const value = getStaticString(inner.right);
    return value === null ? null : [value];
  }
  if (isMethodExpression(inner.right, binding)) {
    const value = getStaticString(inner.left);
    return value === null ? null : [value];
  }
  return null;
}

export function findDispatch(statements: t.Statement[], binding: MessageBinding, program: t.Program): DispatchSearch {
  const branches: RawBranch[] = [];
  let fallback: RawBranch | null = null;
  const others: t.Statement[] = [];
  let kind: FoundDispatch['kind'] | null = null;
  let line = 0;
  let handlerMap: HandlerMapCall | null = null;
  let handlerLocal = '';

  for (const statement of statements) {
    if (t.isIfStatement(statement) && getTestedMethods(statement.test, binding)) {
      if (kind === 'switch') return unsupported(statement, 'mixed switch and if dispatch');
      kind = 'if-chain';
      line ||= statement.loc!.start.line;
      let current: t.Statement | null | undefined = statement;
      while (current && t.isIfStatement(current)) {
        const methods = getTestedMethods(current.test, binding);
        if (!methods) return unsupported(current, 'an else-if that does not test the method');
        branches.push({ methods, line: current.loc!.start.line, statements: getBlockStatements(current.consequent), param: null, expressionBody: null, node: current });
        current = current.alternate;
      }
      if (current) {
        if (fallback) return unsupported(current, 'two fallback branches');
        fallback = { methods: [], line: current.loc!.start.line, statements: getBlockStatements(current), param: null, expressionBody: null, node: current };
      }
      continue;
    }
    if (t.isSwitchStatement(statement) && isMethodExpression(statement.discriminant, binding)) {
      if (kind) return unsupported(statement, 'more than one dispatch');
      kind = 'switch';
      line = statement.loc!.start.line;
      const split = splitSwitch(statement);
      if ('error' in split) return { kind: 'unsupported', line: split.line, reason: split.reason, detail: split.error };
      branches.push(...split.branches);
      fallback = split.fallback;
      continue;
    }
    const lookup = getHandlerMapLookup(statement, binding, program);
    if (lookup) {
      if (kind) return unsupported(statement, 'more than one dispatch');
      kind = 'handler-map';
      line = statement.loc!.start.line;
      const entries = getHandlerMapEntries(lookup.map);
      if ('error' in entries) return { kind: 'unsupported', line: entries.line, reason: 'UNKNOWN_REPLY_SHAPE', detail: entries.error };
      branches.push(...entries.branches);
      handlerMap = { map: lookup.map, argument: null, errorCode: 'unknown' };
      handlerLocal = lookup.local;
      others.push(statement);
      continue;
    }
    others.push(statement);
  }
  if (!kind) return { kind: 'none' };
  // if (m === 'a') return ...; if (m === 'b') return ...; return send(id, { error: ... })
  // Every bare-if branch returns, so the statements after the last one are the fallback.
  if (kind === 'if-chain' && !fallback) {
    const lastIf = statements.findLastIndex((s: t.Statement) => t.isIfStatement(s) && getTestedMethods(s.test, binding) !== null);
    const trailing = statements.slice(lastIf + 1);
    const allReturn = branches.every((b) => b.statements.length > 0 && endsAbruptly(b.statements[b.statements.length - 1]!) && !t.isBreakStatement(b.statements[b.statements.length - 1]!));
    if (trailing.length > 0 && allReturn && endsAbruptly(trailing[trailing.length - 1]!)) {
      fallback = { methods: [], line: trailing[0]!.loc!.start.line, statements: trailing, param: null, expressionBody: null, node: trailing[0]! };
      for (const s of trailing) others.splice(others.indexOf(s), 1);
    }
  }
  if (handlerMap) {
    const call = findHandlerCall(others, handlerLocal);
    if (!call) return { kind: 'unsupported', line, reason: 'UNKNOWN_REPLY_SHAPE', detail: 'the looked-up handler is not called in a way the rewrite understands' };
    handlerMap.argument = call.argument;
    handlerMap.errorCode = call.errorCode;
    // if (!handler) { replyError(id, -32000, `Unknown method: ...`) }: the unknown-method branch.
    const missing = others.find((s): s is t.IfStatement => t.isIfStatement(s) && t.isUnaryExpression(s.test, { operator: '!' }) && t.isIdentifier(s.test.argument, { name: handlerLocal }));
    if (missing) fallback = { methods: [], line: missing.loc!.start.line, statements: getBlockStatements(missing.consequent), param: null, expressionBody: null, node: missing };
  }
  return { kind: 'found', dispatch: { kind, line, branches, fallback, others, handlerMap } };
}

function unsupported(node: t.Node, detail: string): DispatchSearch {
  return { kind: 'unsupported', line: node.loc!.start.line, reason: 'UNSUPPORTED_CONTROL_FLOW', detail };
}

/** Cases grouped by fall-through labels; a case that runs into the next one is not supported. */
function splitSwitch(statement: t.SwitchStatement): { branches: RawBranch[]; fallback: RawBranch | null } | { error: string; line: number; reason: string } {
  const branches: RawBranch[] = [];
  let fallback: RawBranch | null = null;
  let pending: string[] = [];
  let pendingDefault = false;
  for (const switchCase of statement.cases) {
    if (switchCase.test === null || switchCase.test === undefined) {
      pendingDefault = true;
    } else {
      const value = getStaticString(switchCase.test);
      if (value === null) return { error: 'a case label that is not a string', line: switchCase.loc!.start.line, reason: 'UNSUPPORTED_CONTROL_FLOW' };
      pending.push(value);
    }
    if (switchCase.consequent.length === 0) continue;
    const statements = switchCase.consequent.length === 1 && t.isBlockStatement(switchCase.consequent[0]) ? switchCase.consequent[0].body : switchCase.consequent;
    const last = statements[statements.length - 1];
    const isLastCase = switchCase === statement.cases[statement.cases.length - 1];
    if (!isLastCase && !(last && endsAbruptly(last))) {
      return { error: 'a case falls through into the next one', line: switchCase.loc!.start.line, reason: 'UNSUPPORTED_CONTROL_FLOW' };
    }
    const branch: RawBranch = { methods: pending, line: switchCase.loc!.start.line, statements, param: null, expressionBody: null, node: switchCase };
    if (pendingDefault) {
      if (pending.length > 0) return { error: 'a default label shares its body with a method', line: switchCase.loc!.start.line, reason: 'SHARED_BRANCH' };
      fallback = branch;
    } else {
      branches.push(branch);
    }
    pending = [];
    pendingDefault = false;
  }
  return { branches, fallback };
}

/** `const handler = handlers[msg.method]` where `handlers` is a top-level object literal. */
function getHandlerMapLookup(statement: t.Statement, binding: MessageBinding, program: t.Program): { map: t.VariableDeclaration; local: string } | null {
  if (!t.isVariableDeclaration(statement) || statement.declarations.length !== 1) return null;
  const declarator = statement.declarations[0]!;
  if (!t.isIdentifier(declarator.id) || !declarator.init) return null;
  const init = unwrapExpression(declarator.init);
  if (!t.isMemberExpression(init) || !init.computed || !t.isIdentifier(init.object)) return null;
  if (!isMethodExpression(init.property, binding)) return null;
  const mapName = init.object.name;
  const map = program.body.find(
    (s): s is t.VariableDeclaration =>
      t.isVariableDeclaration(s) && s.declarations.length === 1 && t.isIdentifier(s.declarations[0]!.id) && s.declarations[0]!.id.name === mapName && t.isObjectExpression(s.declarations[0]!.init),
  );
  return map ? { map, local: declarator.id.name } : null;
}

function getHandlerMapEntries(map: t.VariableDeclaration): { branches: RawBranch[] } | { error: string; line: number } {
  const object = map.declarations[0]!.init as t.ObjectExpression;
  const branches: RawBranch[] = [];
  for (const prop of object.properties) {
    if (t.isSpreadElement(prop)) return { error: 'the handler map spreads another object', line: prop.loc!.start.line };
    const key = getKeyName(prop);
    if (key === null) return { error: 'a handler-map key is computed', line: prop.loc!.start.line };
    let fn: t.Function | null = null;
    if (t.isObjectMethod(prop) && prop.kind === 'method') fn = prop;
    else if (t.isObjectProperty(prop) && (t.isArrowFunctionExpression(prop.value) || t.isFunctionExpression(prop.value))) fn = prop.value;
    if (!fn) return { error: `handler "${key}" is not a function literal`, line: prop.loc!.start.line };
    if (fn.params.length > 1) return { error: `handler "${key}" takes more than one parameter`, line: prop.loc!.start.line };
    const statements = t.isBlockStatement(fn.body) ? fn.body.body : [];
    const expressionBody = t.isBlockStatement(fn.body) ? null : fn.body;
    branches.push({ methods: [key], line: prop.loc!.start.line, statements, param: fn.params[0] ?? null, expressionBody, node: prop });
  }
  return { branches };
}

/**
 * Inside the dispatcher: `const result = await handler(ARG)` in a try whose catch answers with an error.
 * Returns ARG and the catch's error code.
 */
function findHandlerCall(statements: t.Statement[], local: string): { argument: t.Node | null; errorCode: number | null | 'unknown' } | null {
  for (const statement of statements) {
    if (!t.isTryStatement(statement)) continue;
    let argument: t.Node | null | undefined;
    walk(statement.block, (node) => {
      if (argument !== undefined) return false;
      if (t.isCallExpression(node) && t.isIdentifier(node.callee) && node.callee.name === local && node.arguments.length <= 1) {
        argument = node.arguments[0] ?? null;
        return false;
      }
      return !t.isFunction(node);
    });
    if (argument === undefined) continue;
    const errorCode = statement.handler ? getCatchErrorCode(statement.handler) : null;
    return { argument, errorCode };
  }
  return null;
}

/** The code a catch clause answers with: a literal, or null for `err.code ?? -32603`-like fallbacks. */
export function getCatchErrorCode(handler: t.Node): number | null | 'unknown' {
  let code: number | null | 'unknown' = 'unknown';
  const root = t.isCatchClause(handler) ? handler.body : handler;
  if (containsOwnCodeFallback(root)) return null;
  walk(root, (node) => {
    if (code !== 'unknown') return false;
    if (t.isCallExpression(node)) {
      for (const arg of node.arguments) {
        const value = numericValue(arg);
        if (value !== null) {
          code = value;
          return false;
        }
      }
    }
    if (t.isObjectProperty(node) && getKeyName(node) === 'code') {
      const value = numericValue(node.value);
      if (value !== null) code = value;
      else if (isOwnCodeFallback(node.value)) code = null;
      return false;
    }
    return true;
  });
  return code;
}

function numericValue(node: t.Node): number | null {
  const inner = unwrapExpression(node);
  if (t.isNumericLiteral(inner)) return inner.value;
  if (t.isUnaryExpression(inner) && inner.operator === '-' && t.isNumericLiteral(inner.argument)) return -inner.argument.value;
  return null;
}

/** `err.code ?? -32603`, `err.code || -32603`, `err instanceof X ? err.code : -32603`: what the SDK does anyway. */
function isOwnCodeFallback(node: t.Node): boolean {
  const inner = unwrapExpression(node);
  const isInternal = (n: t.Node) => numericValue(n) === -32603;
  const isCode = (n: t.Node) => (getMemberChain(unwrapExpression(n)) ?? '').endsWith('.code');
  if (t.isLogicalExpression(inner)) return isCode(inner.left) && isInternal(inner.right);
  if (t.isConditionalExpression(inner)) return isCode(inner.consequent) && isInternal(inner.alternate);
  return false;
}

/** Control never runs past this statement (return, throw, break, continue on every path). */
export function endsAbruptly(statement: t.Statement): boolean {
  if (t.isReturnStatement(statement) || t.isThrowStatement(statement) || t.isBreakStatement(statement) || t.isContinueStatement(statement)) return true;
  if (t.isBlockStatement(statement)) {
    const last = statement.body[statement.body.length - 1];
    return last !== undefined && endsAbruptly(last);
  }
  if (t.isIfStatement(statement)) return !!statement.alternate && endsAbruptly(statement.consequent) && endsAbruptly(statement.alternate);
  if (t.isTryStatement(statement)) {
    if (statement.finalizer && endsAbruptly(statement.finalizer)) return true;
    return endsAbruptly(statement.block) && (!statement.handler || endsAbruptly(statement.handler.body));
  }
  return false;
}

function containsOwnCodeFallback(root: t.Node): boolean {
  let found = false;
  walk(root, (node) => {
    if (found) return false;
    if ((t.isConditionalExpression(node) || t.isLogicalExpression(node)) && isOwnCodeFallback(node)) found = true;
    return true;
  });
  return found;
}
