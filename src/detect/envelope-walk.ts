// A small read-only AST walker with ancestors, plus the node tests the envelope analysis shares.
// Deliberately no scope analysis: callers check that the names they rely on are declared once.
import { VISITOR_KEYS, type Node, type File, type Expression, type Function as FunctionNode } from '@babel/types';

export type Visitor = (node: Node, ancestors: readonly Node[]) => void | 'skip';

/** Visits every node in source order; returning 'skip' does not descend into that node. */
export function walk(root: Node, visit: Visitor): void {
  const ancestors: Node[] = [];
  const step = (node: Node): void => {
    if (visit(node, ancestors) === 'skip') return;
    ancestors.push(node);
    for (const key of VISITOR_KEYS[node.type] ?? []) {
      const child = (node as unknown as Record<string, unknown>)[key];
      if (Array.isArray(child)) {
        for (const item of child) if (isNode(item)) step(item);
      } else if (isNode(child)) {
        step(child);
      }
    }
    ancestors.pop();
  };
  step(root);
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** Parent of every node, for walking up from a site found earlier. */
export function buildParentMap(root: Node): Map<Node, Node> {
  const parents = new Map<Node, Node>();
  walk(root, (node, ancestors) => {
    const parent = ancestors[ancestors.length - 1];
    if (parent !== undefined) parents.set(node, parent);
  });
  return parents;
}

/** Ancestors of a node, outermost first (the same order `walk` gives). */
export function getAncestors(parents: Map<Node, Node>, node: Node): Node[] {
  const out: Node[] = [];
  for (let p = parents.get(node); p !== undefined; p = parents.get(p)) out.push(p);
  return out.reverse();
}

const FUNCTION_TYPES = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
  'ClassMethod',
  'ClassPrivateMethod',
  'ObjectMethod',
]);

export function isFunctionNode(node: Node): node is FunctionNode {
  return FUNCTION_TYPES.has(node.type);
}

/** Innermost enclosing function of a node, from its ancestors (null at module level). */
export function getEnclosingFunction(ancestors: readonly Node[]): FunctionNode | null {
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const node = ancestors[i]!;
    if (isFunctionNode(node)) return node;
  }
  return null;
}

/** Strips `(x)`, `x as T`, `x!`, `<T>x` and `x satisfies T` wrappers. */
export function unwrapExpression(node: Node): Node {
  let current = node;
  for (;;) {
    switch (current.type) {
      case 'ParenthesizedExpression':
      case 'TSAsExpression':
      case 'TSNonNullExpression':
      case 'TSTypeAssertion':
      case 'TSSatisfiesExpression':
        current = current.expression;
        continue;
      default:
        return current;
    }
  }
}

export function isIdentifierNamed(node: Node | null | undefined, name: string): boolean {
  return node?.type === 'Identifier' && node.name === name;
}

/** `object.property` with a plain (non-computed) property name, e.g. `process.stdout`. */
export function isMemberNamed(node: Node | null | undefined, object: string, property: string): boolean {
  if (node?.type !== 'MemberExpression' || node.computed) return false;
  if (!isIdentifierNamed(node.property, property)) return false;
  return node.object.type === 'Identifier' ? node.object.name === object : false;
}

/** The non-computed property name of a member expression (`a.b` -> 'b', `a['b']` -> 'b'). */
export function getPropertyName(node: Node): string | null {
  if (node.type !== 'MemberExpression' && node.type !== 'OptionalMemberExpression') return null;
  if (!node.computed && node.property.type === 'Identifier') return node.property.name;
  if (node.property.type === 'StringLiteral') return node.property.value;
  return null;
}

export function isProcessStdout(node: Node): boolean {
  return isMemberNamed(node, 'process', 'stdout');
}

/** `JSON.stringify(x, ...)`: returns x. */
export function getStringifyArgument(node: Node): Expression | null {
  const inner = unwrapExpression(node);
  if (inner.type !== 'CallExpression' || !isMemberNamed(inner.callee, 'JSON', 'stringify')) return null;
  const first = inner.arguments[0];
  return first && first.type !== 'SpreadElement' && first.type !== 'ArgumentPlaceholder' ? (first as Expression) : null;
}

export function isJsonParseCall(node: Node): boolean {
  return node.type === 'CallExpression' && isMemberNamed(node.callee, 'JSON', 'parse');
}

export function contains(outer: Node, inner: Node): boolean {
  return (outer.start ?? 0) <= (inner.start ?? 0) && (inner.end ?? 0) <= (outer.end ?? 0);
}

/** How many times `name` is declared (function, class, variable, parameter, import, catch binding). */
export function countDeclarations(ast: File, name: string): number {
  let count = 0;
  walk(ast, (node, ancestors) => {
    if (node.type === 'Identifier' && node.name === name && isBindingPosition(node, ancestors)) count++;
  });
  return count;
}

function isBindingPosition(node: Node, ancestors: readonly Node[]): boolean {
  const parent = ancestors[ancestors.length - 1];
  if (parent === undefined) return false;
  switch (parent.type) {
    case 'VariableDeclarator':
      return parent.id === node;
    case 'FunctionDeclaration':
    case 'FunctionExpression':
      return parent.id === node || parent.params.includes(node as never);
    case 'ArrowFunctionExpression':
    case 'ClassMethod':
    case 'ClassPrivateMethod':
    case 'ObjectMethod':
      return parent.params.includes(node as never);
    case 'ClassDeclaration':
      return parent.id === node;
    case 'CatchClause':
      return parent.param === node;
    case 'ImportSpecifier':
    case 'ImportDefaultSpecifier':
    case 'ImportNamespaceSpecifier':
      return parent.local === node;
    case 'ObjectProperty':
      // `const { send } = x`: the value of a property of a pattern (object literals share the node type)
      return parent.value === node && ancestors[ancestors.length - 2]?.type === 'ObjectPattern';
    case 'AssignmentPattern':
      return parent.left === node;
    case 'ArrayPattern':
    case 'RestElement':
      return true;
    default:
      return false;
  }
}

/** Every identifier in the file (bindings, references, property names): for picking unused names. */
export function collectIdentifierNames(ast: File): Set<string> {
  const names = new Set<string>();
  walk(ast, (node) => {
    if (node.type === 'Identifier') names.add(node.name);
  });
  return names;
}
