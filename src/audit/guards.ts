// Whether code only runs for requests (messages with an `id`), as the notification rule needs:
//   if (msg.id === undefined) return;   ...   reply(...)     -> guarded
//   const isNotification = message.id === undefined; if (!isNotification) reply(...)  -> guarded
//   if (msg.method.startsWith('notifications/')) return;     -> not an id check
// A function's body is guarded when every call of it that this file shows is.
import type * as t from '@babel/types';
import { type AstIndex, getMemberName, getMemberPath, isFunctionNode, resolveIdentifier, unwrapExpression } from '../analysis/ast.js';
import { endsWithExit, getStatementList } from './dispatch.js';
import type { Flow } from './flow.js';

/** `msg.id`, `id` destructured from a message, `const id = msg.id`. */
export function isIdExpression(index: AstIndex, node: t.Node, depth = 0): boolean {
  const expr = unwrapExpression(node);
  if ((expr.type === 'MemberExpression' || expr.type === 'OptionalMemberExpression') && getMemberName(expr) === 'id') return true;
  if (expr.type !== 'Identifier' || depth > 3) return false;
  const binding = resolveIdentifier(index, expr);
  if (!binding || (binding.kind !== 'param' && binding.kind !== 'const' && binding.kind !== 'let' && binding.kind !== 'var')) return false;
  if (binding.pattern.length > 0) return binding.pattern[binding.pattern.length - 1] === 'id';
  if (binding.kind !== 'param' && binding.declarator.init) return isIdExpression(index, binding.declarator.init, depth + 1);
  return false;
}

function isNullish(node: t.Node): boolean {
  const expr = unwrapExpression(node);
  if (expr.type === 'NullLiteral') return true;
  if (expr.type === 'Identifier') return expr.name === 'undefined';
  return expr.type === 'UnaryExpression' && expr.operator === 'void';
}

/** The test is true exactly when the message has no id (it is a notification). */
export function isIdAbsenceTest(index: AstIndex, node: t.Node, depth = 0): boolean {
  const expr = unwrapExpression(node);
  if (depth > 4) return false;
  switch (expr.type) {
    case 'UnaryExpression':
      return expr.operator === '!' && (isIdExpression(index, expr.argument) || isIdPresenceTest(index, expr.argument, depth + 1));
    case 'BinaryExpression': {
      if (expr.left.type === 'PrivateName') return false;
      const { left, right, operator } = expr;
      if (operator === '===' || operator === '==') {
        if ((isIdExpression(index, left) && isNullish(right)) || (isIdExpression(index, right) && isNullish(left))) return true;
        return isTypeofUndefined(index, left, right) || isTypeofUndefined(index, right, left);
      }
      return false;
    }
    case 'LogicalExpression':
      return expr.operator === '||' && (isIdAbsenceTest(index, expr.left, depth + 1) || isIdAbsenceTest(index, expr.right, depth + 1));
    case 'Identifier': {
      const init = getConstInit(index, expr);
      return init !== null && isIdAbsenceTest(index, init, depth + 1);
    }
    case 'CallExpression': {
      const body = getPredicateBody(index, expr);
      return body !== null && isIdAbsenceTest(index, body, depth + 1);
    }
    default:
      return false;
  }
}

/** The test is true only when the message has an id (it is a request). */
export function isIdPresenceTest(index: AstIndex, node: t.Node, depth = 0): boolean {
  const expr = unwrapExpression(node);
  if (depth > 4) return false;
  if (isIdExpression(index, expr)) return true;
  switch (expr.type) {
    case 'UnaryExpression':
      return expr.operator === '!' && isIdAbsenceTest(index, expr.argument, depth + 1);
    case 'BinaryExpression': {
      if (expr.left.type === 'PrivateName') return false;
      const { left, right, operator } = expr;
      if (operator === '!==' || operator === '!=') {
        if ((isIdExpression(index, left) && isNullish(right)) || (isIdExpression(index, right) && isNullish(left))) return true;
        return isTypeofUndefined(index, left, right) || isTypeofUndefined(index, right, left);
      }
      // 'id' in msg
      return operator === 'in' && left.type === 'StringLiteral' && left.value === 'id';
    }
    case 'LogicalExpression':
      return expr.operator === '&&' && (isIdPresenceTest(index, expr.left, depth + 1) || isIdPresenceTest(index, expr.right, depth + 1));
    case 'CallExpression': {
      // msg.hasOwnProperty('id'), Object.hasOwn(msg, 'id'), Object.prototype.hasOwnProperty.call(msg, 'id')
      const path = getMemberPath(expr.callee) ?? '';
      const last = expr.arguments[expr.arguments.length - 1];
      if (/(^|\.)(hasOwnProperty(\.call)?|hasOwn)$/.test(path) && last?.type === 'StringLiteral' && last.value === 'id') return true;
      const body = getPredicateBody(index, expr);
      return body !== null && isIdPresenceTest(index, body, depth + 1);
    }
    case 'Identifier': {
      const init = getConstInit(index, expr);
      return init !== null && isIdPresenceTest(index, init, depth + 1);
    }
    default:
      return false;
  }
}

function isTypeofUndefined(index: AstIndex, a: t.Node, b: t.Node): boolean {
  return a.type === 'UnaryExpression' && a.operator === 'typeof' && isIdExpression(index, a.argument)
    && b.type === 'StringLiteral' && b.value === 'undefined';
}

/** `isNotification(msg)` with `function isNotification(m) { return m.id === undefined }`: the returned test. */
function getPredicateBody(index: AstIndex, call: t.CallExpression): t.Node | null {
  const callee = unwrapExpression(call.callee);
  if (callee.type !== 'Identifier') return null;
  const binding = resolveIdentifier(index, callee);
  let fn: t.Node | null = null;
  if (binding?.kind === 'function') fn = binding.fn;
  else if (binding?.kind === 'const' && binding.pattern.length === 0 && binding.declarator.init) fn = unwrapExpression(binding.declarator.init);
  if (!fn || (fn.type !== 'FunctionDeclaration' && fn.type !== 'FunctionExpression' && fn.type !== 'ArrowFunctionExpression')) return null;
  if (fn.body.type !== 'BlockStatement') return fn.body;
  const only = fn.body.body.length === 1 ? fn.body.body[0] : undefined;
  return only?.type === 'ReturnStatement' && only.argument ? only.argument : null;
}

function getConstInit(index: AstIndex, id: t.Identifier): t.Node | null {
  const binding = resolveIdentifier(index, id);
  if (binding?.kind === 'const' && binding.pattern.length === 0 && binding.declarator.init) return binding.declarator.init;
  return null;
}

export type Polarity = 'request' | 'notification';

/** Whether code only runs for requests (messages with an id), or only for notifications. */
export class IdGuards {
  private readonly memo = new Map<string, Map<t.Node, boolean>>([['request', new Map()], ['notification', new Map()]]);

  constructor(
    private readonly index: AstIndex,
    private readonly flow: Flow,
  ) {}

  /** `node` runs only when the message has an id. */
  isGuarded(node: t.Node): boolean {
    return this.check(node, 'request', 0);
  }

  /** `node` runs only when the message has no id. */
  isNotificationOnly(node: t.Node): boolean {
    return this.check(node, 'notification', 0);
  }

  private check(node: t.Node, polarity: Polarity, depth: number): boolean {
    const memo = this.memo.get(polarity)!;
    const known = memo.get(node);
    if (known !== undefined) return known;
    // Cycles (recursion) count as unguarded while being computed.
    memo.set(node, false);
    const result = this.compute(node, polarity, depth);
    memo.set(node, result);
    return result;
  }

  private compute(node: t.Node, polarity: Polarity, depth: number): boolean {
    const index = this.index;
    // For requests, code after `if (<no id>) return` is guarded; for notifications, after `if (<id>) return`.
    const holds = (test: t.Node): boolean => (polarity === 'request' ? isIdPresenceTest(index, test) : isIdAbsenceTest(index, test));
    const fails = (test: t.Node): boolean => (polarity === 'request' ? isIdAbsenceTest(index, test) : isIdPresenceTest(index, test));
    let current = node;
    for (;;) {
      const parent = index.parent.get(current);
      if (!parent) return false;
      if (isFunctionNode(parent)) {
        if (depth >= 4) return false;
        const sites = this.flow.getCallSites(parent);
        if (sites.calls.length === 0) return false;
        return sites.calls.every((call) => this.check(call, polarity, depth + 1));
      }
      switch (parent.type) {
        case 'IfStatement':
        case 'ConditionalExpression':
          if (current === parent.consequent && holds(parent.test)) return true;
          if (current === parent.alternate && fails(parent.test)) return true;
          break;
        case 'LogicalExpression':
          if (current === parent.right && parent.operator === '&&' && holds(parent.left)) return true;
          if (current === parent.right && parent.operator === '||' && fails(parent.left)) return true;
          break;
        default:
          break;
      }
      const list = getStatementList(index, current);
      if (list) {
        for (const statement of list) {
          if (statement === current) break;
          if (statement.type === 'IfStatement' && fails(statement.test) && endsWithExit(statement.consequent, true)) return true;
        }
      }
      current = parent;
    }
  }
}
