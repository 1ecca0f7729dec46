// TypeScript text -> JavaScript text, by removing the type syntax and nothing else: every byte that is
// not a type (comments, blank lines, quotes, layout) stays where it was. The companion modules the
// tool writes next to a server (the SDK boundary) are kept as one typed text; the JavaScript a `.js`
// server imports is that text without its types.
// Deliberately not a general compiler: it handles the type syntax those texts use (annotations, `as`,
// `!`, type arguments and parameters, interfaces, type aliases, optional parameters, type-only imports)
// and refuses anything else it meets (enums, namespaces, parameter properties, decorators), so that a
// text using more fails its tests instead of being emitted half-stripped.
import type * as t from '@babel/types';
import { getLine } from '../analysis/ast.js';
import { VISITOR_KEYS } from '../babel-visitor-keys.js';
import { parseSource } from '../parse.js';
import { EditList } from './edits.js';

export function stripTypes(source: string): string {
  const ast = parseSource('strip.ts', source);
  const edits = new EditList();
  const remove = (start: number, end: number): void => {
    if (end > start) edits.replace(start, end, '');
  };
  // a statement removed whole takes its line, and the comment lines right above it, with it
  const removeStatement = (node: t.Node): void => {
    let start = node.start!;
    for (const comment of node.leadingComments ?? []) start = Math.min(start, comment.start!);
    const lineStart = source.lastIndexOf('\n', start - 1) + 1;
    const onlyIndent = /^[ \t]*$/.test(source.slice(lineStart, start));
    let end = node.end!;
    const rest = /^[ \t]*\r?\n/.exec(source.slice(end));
    if (onlyIndent && rest) end += rest[0].length;
    remove(onlyIndent ? lineStart : start, end);
  };
  const visit = (node: t.Node): void => {
    switch (node.type) {
      case 'TSInterfaceDeclaration':
      case 'TSTypeAliasDeclaration':
      case 'TSDeclareFunction':
        return removeStatement(node);
      case 'ImportDeclaration':
        if (node.importKind === 'type') return removeStatement(node);
        break;
      case 'ExportNamedDeclaration':
        if (node.exportKind === 'type' || (node.declaration && /^TS(Interface|TypeAlias)Declaration$/.test(node.declaration.type))) return removeStatement(node);
        break;
      case 'TSTypeAnnotation':
      case 'TSTypeParameterDeclaration':
      case 'TSTypeParameterInstantiation':
        return remove(node.start!, node.end!);
      case 'TSAsExpression':
      case 'TSSatisfiesExpression': {
        // from the keyword (after the parenthesis that may close the expression) to the end of the type
        visit(node.expression);
        const head = source.slice(node.expression.end!, node.typeAnnotation.start!);
        const keyword = /\s*\b(?:as|satisfies)\s*$/.exec(head)!;
        return remove(node.expression.end! + keyword.index, node.end!);
      }
      case 'TSNonNullExpression':
        visit(node.expression);
        return remove(node.end! - 1, node.end!);
      case 'Identifier':
        // `x?: T`: the `?` (the annotation goes as a child)
        if (node.optional === true) {
          const after = node.start! + node.name.length;
          const question = source.indexOf('?', after);
          if (question !== -1 && question < (node.typeAnnotation?.start ?? node.end!)) remove(question, question + 1);
        }
        break;
      case 'TSEnumDeclaration':
      case 'TSModuleDeclaration':
      case 'TSParameterProperty':
      case 'Decorator':
      case 'TSImportEqualsDeclaration':
      case 'TSExportAssignment':
        throw new Error(`stripTypes: ${node.type} at line ${getLine(node)} is not plain type syntax`);
    }
    if ('declare' in node && node.declare === true) throw new Error(`stripTypes: a declare at line ${getLine(node)}`);
    for (const key of VISITOR_KEYS[node.type] ?? []) {
      const value = (node as unknown as Record<string, unknown>)[key];
      for (const child of Array.isArray(value) ? value : [value]) if (isNode(child)) visit(child);
    }
  };
  visit(ast.program);
  return edits.apply(source);
}

function isNode(value: unknown): value is t.Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}
