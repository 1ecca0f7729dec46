// After the rewrite: declarations the removed loop/writer/branches were the only users of
// (`readline`, `send`, `let buffer`, `PROTOCOL_VERSION`) go too, at any depth. Only declarations the
// original used and that have no side effects; anything the user left unused on purpose stays.
import * as t from '@babel/types';
import { parseSource } from '../parse.js';
import { traverse, type NodePath } from '../detect/ast.js';
import { EditList } from './edits.js';
import { widenToLines } from './text.js';

interface BindingInfo {
  references: number;
  /** The node to remove: the declaration statement, or an import specifier. */
  node: t.Node;
  removable: boolean;
}

/** `original` is the file's AST as the pipeline parsed it (traversal does not change it). */
export function pruneUnusedDeclarations(path: string, original: t.File, rewritten: string): string {
  const before = collectBindings(original);
  let current = rewritten;
  for (let round = 0; round < 5; round++) {
    const after = collectBindings(parseSource(path, current));
    const edits = new EditList();
    const importsTouched = new Map<t.ImportDeclaration, t.Node[]>();
    for (const [key, info] of after) {
      if (info.references > 0 || !info.removable || (before.get(key)?.references ?? 0) === 0) continue;
      if (t.isImportSpecifier(info.node) || t.isImportDefaultSpecifier(info.node) || t.isImportNamespaceSpecifier(info.node)) {
        const declaration = (info.node as t.Node & { _parent?: t.ImportDeclaration })._parent!;
        importsTouched.set(declaration, [...(importsTouched.get(declaration) ?? []), info.node]);
        continue;
      }
      const range = widenToLines(current, info.node.start!, info.node.end!);
      if (!edits.touches(range.start, range.end)) edits.remove(range.start, range.end);
    }
    for (const [declaration, dead] of importsTouched) {
      if (dead.length === declaration.specifiers.length) {
        const range = widenToLines(current, declaration.start!, declaration.end!);
        edits.remove(range.start, range.end);
      } else {
        for (const specifier of dead) {
          const next = current.slice(specifier.end!).match(/^\s*,\s*/);
          edits.remove(specifier.start!, specifier.end! + (next ? next[0].length : 0));
        }
      }
    }
    if (edits.size === 0) break;
    current = edits.apply(current);
  }
  return current;
}

/** Every binding of every scope, keyed by the chain of named functions around it plus its name. */
function collectBindings(ast: t.File): Map<string, BindingInfo> {
  const bindings = new Map<string, BindingInfo>();
  traverse(ast, {
    Scopable(path: NodePath<t.Scopable>) {
      if (path.scope.block !== path.node) return;
      const owner = getOwnerChain(path);
      for (const [name, binding] of Object.entries(path.scope.bindings)) {
        const key = `${owner}>${name}`;
        const references = binding.referencePaths.length + binding.constantViolations.length;
        bindings.set(key, { references, ...getRemovable(binding.path) });
      }
    },
  });
  return bindings;
}

function getOwnerChain(path: NodePath): string {
  const names: string[] = [];
  let current: NodePath | null = path;
  while (current) {
    const node = current.node;
    if ((t.isFunctionDeclaration(node) || t.isClassDeclaration(node)) && node.id) names.push(node.id.name);
    else if (t.isClassMethod(node) && t.isIdentifier(node.key)) names.push(node.key.name);
    else if (t.isVariableDeclarator(node) && t.isIdentifier(node.id)) names.push(node.id.name);
    else if (t.isFunction(node)) names.push(`@${node.loc?.start.line ?? 0}`);
    current = current.parentPath;
  }
  return names.reverse().join('>');
}

function getRemovable(path: NodePath): { node: t.Node; removable: boolean } {
  const node = path.node;
  if (t.isFunctionDeclaration(node)) return { node, removable: t.isBlockStatement(path.parent) || t.isProgram(path.parent) };
  if (t.isImportSpecifier(node) || t.isImportDefaultSpecifier(node) || t.isImportNamespaceSpecifier(node)) {
    (node as t.Node & { _parent?: t.Node })._parent = path.parent;
    return { node, removable: true };
  }
  if (t.isVariableDeclarator(node) && t.isVariableDeclaration(path.parent) && path.parent.declarations.length === 1) {
    const declaration = path.parent;
    const pure = (!node.init || isPure(node.init)) && (t.isIdentifier(node.id) || isSimplePattern(node.id));
    const inStatementList = t.isBlockStatement(path.parentPath?.parent) || t.isProgram(path.parentPath?.parent);
    return { node: declaration, removable: pure && inStatementList && (!t.isObjectPattern(node.id) || node.id.properties.length === 1) };
  }
  return { node, removable: false };
}

function isSimplePattern(node: t.Node): boolean {
  return t.isObjectPattern(node) && node.properties.every((p) => t.isObjectProperty(p) && t.isIdentifier(p.value));
}

function isPure(node: t.Node): boolean {
  if (t.isLiteral(node) && !t.isTemplateLiteral(node)) return true;
  if (t.isTemplateLiteral(node)) return node.expressions.every(isPure);
  if (t.isArrowFunctionExpression(node) || t.isFunctionExpression(node) || t.isIdentifier(node)) return true;
  if (t.isObjectExpression(node)) return node.properties.every((p) => t.isObjectProperty(p) && !p.computed && isPure(p.value));
  if (t.isArrayExpression(node)) return node.elements.every((e) => e !== null && isPure(e));
  if (t.isMemberExpression(node)) return isPure(node.object);
  // require('readline') / require('node:fs')
  if (t.isCallExpression(node) && t.isIdentifier(node.callee, { name: 'require' }) && node.arguments.length === 1 && t.isStringLiteral(node.arguments[0])) return true;
  if (t.isTSAsExpression(node)) return isPure(node.expression);
  return false;
}
