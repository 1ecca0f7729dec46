// After the rewrite: declarations the removed loop/writer/branches were the only users of
// (`readline`, `send`, `let buffer`, `PROTOCOL_VERSION`) go too. Only declarations the original used
// and that have no side effects; anything the user left unused on purpose stays.
import * as t from '@babel/types';
import { parseSource } from '../parse.js';
import { traverse } from '../detect/ast.js';
import { EditList } from './edits.js';
import { widenToLines } from './text.js';

export function pruneUnusedDeclarations(path: string, original: string, rewritten: string): string {
  const usedBefore = countReferences(parseSource(path, original));
  let current = rewritten;
  for (let round = 0; round < 5; round++) {
    const ast = parseSource(path, current);
    const counts = countReferences(ast);
    const edits = new EditList();
    for (const statement of ast.program.body) {
      const names = getPureDeclaredNames(statement);
      if (names && names.length > 0 && names.every((n) => (counts.get(n) ?? 0) === 0 && (usedBefore.get(n) ?? 0) > 0)) {
        // The node alone: a comment above it may be the file's header.
        const wide = widenToLines(current, statement.start!, statement.end!);
        edits.remove(wide.start, wide.end);
        continue;
      }
      if (t.isImportDeclaration(statement) && statement.specifiers.length > 0) {
        const dead = statement.specifiers.filter((s) => (counts.get(s.local.name) ?? 0) === 0 && (usedBefore.get(s.local.name) ?? 0) > 0);
        if (dead.length === statement.specifiers.length) {
          const range = widenToLines(current, statement.start!, statement.end!);
          edits.remove(range.start, range.end);
        } else {
          for (const specifier of dead) {
            const next = current.slice(specifier.end!).match(/^\s*,\s*/);
            edits.remove(specifier.start!, specifier.end! + (next ? next[0].length : 0));
          }
        }
      }
    }
    if (edits.size === 0) break;
    current = edits.apply(current);
  }
  return current;
}

function countReferences(ast: t.File): Map<string, number> {
  const counts = new Map<string, number>();
  traverse(ast, {
    Program(path) {
      for (const [name, binding] of Object.entries(path.scope.bindings)) {
        counts.set(name, binding.referencePaths.length + binding.constantViolations.length);
      }
      path.stop();
    },
  });
  return counts;
}

/** Names declared by a top-level statement whose evaluation has no side effects worth keeping. */
function getPureDeclaredNames(statement: t.Statement): string[] | null {
  if (t.isFunctionDeclaration(statement) && statement.id) return [statement.id.name];
  if (!t.isVariableDeclaration(statement)) return null;
  const names: string[] = [];
  for (const declarator of statement.declarations) {
    if (!t.isIdentifier(declarator.id) && !t.isObjectPattern(declarator.id)) return null;
    if (declarator.init && !isPure(declarator.init)) return null;
    if (t.isIdentifier(declarator.id)) names.push(declarator.id.name);
    else
      for (const prop of declarator.id.properties) {
        if (t.isObjectProperty(prop) && t.isIdentifier(prop.value)) names.push(prop.value.name);
        else return null;
      }
  }
  return names;
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
