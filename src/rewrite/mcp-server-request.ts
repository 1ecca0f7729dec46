// What `--style mcp-server` (./mcp-server.ts) reads in the dispatcher: how a branch names the request and
// what it reads of it, the method branches, and the refusal that keeps the server style.
import { t } from '../babel.js';
import { getLine, getMemberName, resolveIdentifier, unwrapExpression, getBindingWrites, type AstIndex, type FunctionNode } from '../analysis/ast.js';
import { type StyleReason } from '../model/reasons.js';

export class Refusal extends Error {
  constructor(
    readonly reason: StyleReason,
    readonly detail: string,
    readonly line: number,
  ) {
    super(detail);
  }
}

export const refuse = (reason: StyleReason, detail: string, node?: t.Node | null): never => {
  throw new Refusal(reason, detail, node ? getLine(node) : 0);
};

/** What the request is reached through, in the dispatcher, and how to name what a branch reads of it. */
export interface Scope {
  index: AstIndex;
  dispatcher: FunctionNode;
}

export interface ToolEntry {
  name: string;
  node: t.ObjectExpression;
  fields: Map<string, t.Node>;
  schema: unknown;
}

export interface ToolBranch {
  name: string;
  /** The statements that become the handler body, in order (a copy of the shared tail included). */
  pieces: t.Statement[][];
  /** A `break;` that ends the branch and leads to the tail: not copied. */
  skip: t.Statement | null;
}

export interface Branch {
  /** The statements of the branch (`case 'tools/call': { ... }` or `if (method === 'tools/call') { ... }`). */
  body: t.Statement[];
  /** How to take it out of the dispatcher. */
  arm: { kind: 'case'; node: t.SwitchCase } | { kind: 'if'; chain: t.IfStatement; test: t.Expression };
}



/**
 * The property path from the request an expression holds: `msg.params.name`, `params.arguments || {}`,
 * `name` from `const { name } = request.params`, ... -> ['params', 'name']. Null when it is not a plain
 * reading of the request (a call, a reassigned variable, a variable outside the dispatcher).
 */
export function getRequestPath(scope: Scope, node: t.Node): string[] | null {
  const expression = unwrapExpression(node);
  switch (expression.type) {
    case 'Identifier': {
      const binding = resolveIdentifier(scope.index, expression);
      if (!binding) return null;
      if (binding.kind === 'param') {
        if (binding.fn !== scope.dispatcher || binding.index !== 0 || binding.rest) return null;
        return stringSteps(binding.pattern);
      }
      if (binding.kind !== 'const' && binding.kind !== 'let' && binding.kind !== 'var') return null;
      if (!isInside(binding.declarator, scope.dispatcher) || !binding.declarator.init || getBindingWrites(scope.index, binding).length > 0) return null;
      const base = getRequestPath(scope, binding.declarator.init);
      const steps = stringSteps(binding.pattern);
      return base === null || steps === null ? null : [...base, ...steps];
    }
    case 'MemberExpression':
    case 'OptionalMemberExpression': {
      const name = getMemberName(expression);
      const base = name === null ? null : getRequestPath(scope, expression.object);
      return base === null ? null : [...base, name!];
    }
    case 'LogicalExpression': {
      // `params || {}`, `request.params.arguments ?? {}`: the same value for every request the SDK routes here
      const right = unwrapExpression(expression.right);
      if (expression.operator === '&&' || right.type !== 'ObjectExpression' || right.properties.length > 0) return null;
      return getRequestPath(scope, expression.left);
    }
    default:
      return null;
  }
}

export function stringSteps(pattern: readonly (string | number | null)[]): string[] | null {
  return pattern.every((step): step is string => typeof step === 'string') ? [...pattern] as string[] : null;
}

export const isPath = (path: readonly string[] | null, ...want: string[]): boolean => path !== null && path.length === want.length && path.every((step, i) => step === want[i]);

// ---- the method branches ----------------------------------------------------------------------------------

/** The branch of `method` in a switch or if-chain on the request's method among `statements`. */
export function findMethodBranch(scope: Scope, statements: readonly t.Statement[], method: string): Branch | null {
  for (const statement of statements) {
    if (statement.type === 'SwitchStatement' && isPath(getRequestPath(scope, statement.discriminant), 'method')) {
      for (const item of statement.cases) {
        if (item.test?.type !== 'StringLiteral' || item.test.value !== method) continue;
        // a case that shares its body with the case after it (`case 'tools/list': case 'x':`) is not its own
        if (item.consequent.length === 0) return null;
        const only = item.consequent.length === 1 ? item.consequent[0]! : null;
        return { body: only?.type === 'BlockStatement' ? only.body : item.consequent, arm: { kind: 'case', node: item } };
      }
    }
    if (statement.type === 'IfStatement') {
      for (let arm: t.Statement | null | undefined = statement; arm?.type === 'IfStatement'; arm = arm.alternate) {
        if (getComparedName(scope, arm.test, 'method') !== method) continue;
        return { body: arm.consequent.type === 'BlockStatement' ? arm.consequent.body : [arm.consequent], arm: { kind: 'if', chain: statement, test: arm.test } };
      }
    }
  }
  return null;
}

/** `x === 'lit'` / `'lit' == x` where x reads the request at `...path`: the literal. */
export function getComparedName(scope: Scope, test: t.Node, ...path: string[]): string | null {
  const expression = unwrapExpression(test);
  if (expression.type !== 'BinaryExpression' || (expression.operator !== '===' && expression.operator !== '==')) return null;
  const [a, b] = [unwrapExpression(expression.left), unwrapExpression(expression.right)];
  if (b.type === 'StringLiteral' && isPath(getRequestPath(scope, a), ...path)) return b.value;
  if (a.type === 'StringLiteral' && isPath(getRequestPath(scope, b), ...path)) return a.value;
  return null;
}

export function isInside(node: t.Node, outer: t.Node): boolean {
  return node.start! >= outer.start! && node.end! <= outer.end!;
}
