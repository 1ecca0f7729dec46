// Small read-only AST predicates shared by the detectors.
import traverseModule, { type NodePath, type TraverseOptions } from '@babel/traverse';
import * as t from '@babel/types';

type TraverseFn = (parent: t.Node, options: TraverseOptions) => void;
// @babel/traverse is CommonJS; under NodeNext its default export arrives wrapped once more.
const traverseExport = traverseModule as unknown as { default?: TraverseFn } & TraverseFn;
export const traverse: TraverseFn = traverseExport.default ?? traverseExport;

export type { NodePath };

/** `a.b.c` for a chain of non-computed (or string-literal) member accesses on an identifier, else null. */
export function getMemberChain(node: t.Node | null | undefined): string | null {
  if (!node) return null;
  if (t.isIdentifier(node)) return node.name;
  if (t.isThisExpression(node)) return 'this';
  if (t.isMemberExpression(node) || t.isOptionalMemberExpression(node)) {
    const object = getMemberChain(node.object);
    if (object === null) return null;
    const property = getPropertyName(node);
    return property === null ? null : `${object}.${property}`;
  }
  return null;
}

export function getPropertyName(node: t.MemberExpression | t.OptionalMemberExpression): string | null {
  if (!node.computed && t.isIdentifier(node.property)) return node.property.name;
  if (t.isStringLiteral(node.property)) return node.property.value;
  return null;
}

/** Key of an object property or method (`a`, `'a'`, `"tools/list"`), else null for computed keys. */
export function getKeyName(node: t.ObjectProperty | t.ObjectMethod | t.ClassMethod | t.ClassPrivateMethod): string | null {
  if (t.isClassPrivateMethod(node)) return null;
  if (node.computed) return t.isStringLiteral(node.key) ? node.key.value : null;
  if (t.isIdentifier(node.key)) return node.key.name;
  if (t.isStringLiteral(node.key)) return node.key.value;
  if (t.isNumericLiteral(node.key)) return String(node.key.value);
  return null;
}

export function getStaticString(node: t.Node | null | undefined): string | null {
  if (!node) return null;
  if (t.isStringLiteral(node)) return node.value;
  if (t.isTemplateLiteral(node) && node.expressions.length === 0) return node.quasis[0]!.value.cooked ?? null;
  return null;
}

/** Numeric literal value, including a leading minus (`-32601`). */
export function getStaticNumber(node: t.Node | null | undefined): number | null {
  if (!node) return null;
  if (t.isNumericLiteral(node)) return node.value;
  if (t.isUnaryExpression(node) && node.operator === '-' && t.isNumericLiteral(node.argument)) return -node.argument.value;
  return null;
}

export function unwrapExpression(node: t.Node): t.Node {
  let current = node;
  while (
    t.isTSAsExpression(current) ||
    t.isTSNonNullExpression(current) ||
    t.isTSSatisfiesExpression(current) ||
    t.isTSTypeAssertion(current) ||
    t.isParenthesizedExpression(current) ||
    t.isAwaitExpression(current)
  ) {
    current = t.isAwaitExpression(current) ? current.argument : current.expression;
  }
  return current;
}

/** The statements of a block, or the single statement when there is no block. */
export function getBlockStatements(node: t.Statement): t.Statement[] {
  return t.isBlockStatement(node) ? node.body : [node];
}

/** Line (1-based) and column (1-based) of a node's start. */
export function getPosition(node: t.Node): { line: number; column: number } {
  return { line: node.loc?.start.line ?? 0, column: (node.loc?.start.column ?? 0) + 1 };
}

/** Writes to the process's standard output: `process.stdout.write(x)`, `console.log(x)`, `fs.writeSync(1, x)`. */
export type StdoutWriteKind = 'stdout.write' | 'console' | 'writeSync';

export function getStdoutWriteKind(call: t.Node): StdoutWriteKind | null {
  if (!t.isCallExpression(call)) return null;
  const callee = getMemberChain(call.callee);
  if (callee === 'process.stdout.write') return 'stdout.write';
  if (callee === 'console.log' || callee === 'console.info' || callee === 'console.debug') return 'console';
  if ((callee === 'fs.writeSync' || callee === 'writeSync') && t.isNumericLiteral(call.arguments[0]) && call.arguments[0].value === 1) {
    return 'writeSync';
  }
  return null;
}

/** The argument that carries the written text. */
export function getWrittenArgument(call: t.CallExpression, kind: StdoutWriteKind): t.Node | undefined {
  return kind === 'writeSync' ? call.arguments[1] : call.arguments[0];
}

/**
 * The value serialised by `JSON.stringify(x)`, `JSON.stringify(x) + '\n'` or `${JSON.stringify(x)}\n`; else null.
 * Pretty-printed JSON (a third argument) is not a protocol message on a line-delimited transport.
 */
export function getSerializedValue(node: t.Node | undefined): t.Expression | null {
  if (!node) return null;
  const inner = unwrapExpression(node);
  if (t.isBinaryExpression(inner) && inner.operator === '+' && getStaticString(inner.right) === '\n') {
    return getSerializedValue(inner.left);
  }
  if (t.isTemplateLiteral(inner) && inner.expressions.length === 1 && inner.quasis[0]!.value.cooked === '' && inner.quasis[1]!.value.cooked === '\n') {
    return getSerializedValue(inner.expressions[0] as t.Node);
  }
  if (t.isCallExpression(inner) && getMemberChain(inner.callee) === 'JSON.stringify' && inner.arguments.length === 1) {
    const arg = inner.arguments[0]!;
    return t.isExpression(arg) ? arg : null;
  }
  return null;
}

/** Does any node under `root` satisfy `test`? (plain walk, no scopes) */
export function containsNode(root: t.Node, test: (node: t.Node) => boolean): boolean {
  let found = false;
  walk(root, (node) => {
    if (found) return false;
    if (test(node)) {
      found = true;
      return false;
    }
    return true;
  });
  return found;
}

/** Depth-first walk; the visitor returns false to skip a node's children. */
export function walk(root: t.Node, visit: (node: t.Node, parent: t.Node | null) => boolean | void): void {
  const stack: [t.Node, t.Node | null][] = [[root, null]];
  while (stack.length > 0) {
    const [node, parent] = stack.pop()!;
    if (visit(node, parent) === false) continue;
    const keys = t.VISITOR_KEYS[node.type] ?? [];
    for (let k = keys.length - 1; k >= 0; k--) {
      const value = (node as unknown as Record<string, unknown>)[keys[k]!];
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) {
          const child = value[i] as t.Node | null;
          if (child && typeof child.type === 'string') stack.push([child, node]);
        }
      } else if (value && typeof (value as t.Node).type === 'string') {
        stack.push([value as t.Node, node]);
      }
    }
  }
}

export interface NamedFunction {
  fn: t.Function;
  /** The statement that declares it (removed when the function goes). */
  declaration: t.Statement;
}

/**
 * Functions declared by name anywhere in the file (`function f() {}`, `const f = () => {}`), by name.
 * A name declared twice (in different scopes) maps to null: resolving it would be a guess.
 */
export function findNamedFunctions(program: t.Program): Map<string, NamedFunction | null> {
  const found = new Map<string, NamedFunction | null>();
  const add = (name: string, entry: NamedFunction) => found.set(name, found.has(name) ? null : entry);
  const scan = (statements: t.Statement[]) => {
    for (const statement of statements) {
      const inner = (t.isExportNamedDeclaration(statement) || t.isExportDefaultDeclaration(statement)) && statement.declaration ? statement.declaration : statement;
      if (t.isFunctionDeclaration(inner) && inner.id) add(inner.id.name, { fn: inner, declaration: statement });
      if (t.isVariableDeclaration(inner) && inner.declarations.length === 1) {
        const d = inner.declarations[0]!;
        if (t.isIdentifier(d.id) && (t.isArrowFunctionExpression(d.init) || t.isFunctionExpression(d.init))) add(d.id.name, { fn: d.init, declaration: statement });
      }
    }
  };
  scan(program.body);
  walk(program, (node) => {
    if (t.isFunction(node) && t.isBlockStatement(node.body)) scan(node.body.body);
    return true;
  });
  return found;
}
