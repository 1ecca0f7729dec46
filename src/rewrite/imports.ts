// Where a rewrite puts what it adds at the top of a module (the SDK's imports, the stdout guard, a
// companion module's import and its creation): after the module's imports and requires. One finder for
// every rewrite, so that the modules of one run all get the same placement.
import type * as t from '@babel/types';
import type { ModuleUnit } from '../analysis/program.js';
import type { ModuleKind } from '../model/types.js';
import { isTypeScriptPath } from '../parse.js';
import type { EditList } from './edits.js';
import { getLineStart, getNodeRange } from './text.js';

/**
 * After the module's imports and requires, else after its directives, at the start of the next line;
 * else before its first statement. When the statement after them starts on that same line (a module of
 * one line, minified code), the next line would be past code that uses the imports (`Server` read before
 * its `const` ran): they go right after, on a line of their own (`lineBreak`: the text inserted starts
 * with one).
 */
export function getImportOffset(mod: ModuleUnit): { offset: number; lineBreak: boolean } {
  const body = mod.ast.program.body;
  let last: t.Node | null = null;
  // (`at`: the first statement after the imports, or after the strings that open the module)
  let at = 0;
  for (; at < body.length; at++) {
    const statement = body[at]!;
    if (statement.type === 'ImportDeclaration' || statement.type === 'TSImportEqualsDeclaration' || isRequireStatement(statement)) last = statement;
    else if (last !== null) break;
    else if (statement.type !== 'ExpressionStatement' || statement.expression.type !== 'StringLiteral') break;
  }
  const next = body[at];
  const directive = mod.ast.program.directives[mod.ast.program.directives.length - 1];
  const end = last ? getNodeRange(mod.source, last).end : directive ? directive.end! : null;
  if (end === null) {
    const first = body[0];
    return { offset: first ? getLineStart(mod.source, getNodeRange(mod.source, first).start) : mod.source.length, lineBreak: false };
  }
  const newline = mod.source.indexOf('\n', end);
  const lineEnd = newline === -1 ? mod.source.length : newline + 1;
  if (next !== undefined && next.start! < lineEnd) return { offset: end, lineBreak: true };
  return { offset: lineEnd, lineBreak: newline === -1 };
}

/** Inserts `text` (whole lines, each ending with `eol`) where getImportOffset says, starting a line of its own. */
export function insertAtImports(list: EditList, mod: ModuleUnit, text: string, eol: string): void {
  const { offset, lineBreak } = getImportOffset(mod);
  list.insert(offset, lineBreak ? eol + text : text);
}

/**
 * A block of lines at the top (a companion module's import and creation): right after the imports; after
 * the directives with a blank line above it when there are only those; else above the first statement
 * with a blank line below it.
 */
export function insertBlockAtImports(list: EditList, mod: ModuleUnit, lines: readonly string[], eol: string): void {
  const block = lines.join(eol) + eol;
  if (hasTopImports(mod)) return insertAtImports(list, mod, block, eol);
  const directive = mod.ast.program.directives[mod.ast.program.directives.length - 1];
  const { offset, lineBreak } = getImportOffset(mod);
  if (directive !== undefined) list.insert(offset, lineBreak ? eol + eol + block : eol + block);
  else list.insert(offset, block + eol);
}

/** Whether the module has imports or requires at its top. */
export function hasTopImports(mod: ModuleUnit): boolean {
  return mod.ast.program.body.some((st) => st.type === 'ImportDeclaration' || st.type === 'TSImportEqualsDeclaration' || isRequireStatement(st));
}

/** `const x = require('x')`, `const { a } = require('x').b`, `const y = require('x')(options)`. */
export function isRequireStatement(statement: t.Statement): boolean {
  if (statement.type !== 'VariableDeclaration') return false;
  return statement.declarations.every((d) => {
    let init: t.Node | null | undefined = d.init;
    while (init && (init.type === 'MemberExpression' || init.type === 'CallExpression') && !(init.type === 'CallExpression' && init.callee.type === 'Identifier' && init.callee.name === 'require')) {
      init = init.type === 'MemberExpression' ? init.object : init.callee;
    }
    return init?.type === 'CallExpression' && init.callee.type === 'Identifier' && init.callee.name === 'require';
  });
}

/**
 * Whether what a rewrite adds to `mod` is written with `import` (else `require`): an ES module, or a
 * TypeScript module written with imports (tsc compiles them to whatever the package needs).
 */
export function writesImports(kind: ModuleKind, mod: ModuleUnit): boolean {
  return kind === 'esm' || (isTypeScriptPath(mod.path) && mod.syntax === 'esm');
}
