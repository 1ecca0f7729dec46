// The tree of an edited text without parsing all of it again. The SDK rewrite changes a few statements of
// a module (the loop, the writers, the imports) and leaves the rest as it was: for a 1 MB module the prune
// parsed ~1 MB again (~0.6 s with the collections its tree costs) to read the same statements at other
// offsets. Here the statements no edit touches are the original's own nodes, moved to their offsets and
// lines in the edited text, and only the text between them that the edits changed is parsed.
//
// The tree is the one a parse of the whole text gives wherever the prune looks (node types, names, start,
// end, start line), or there is none (null: the caller parses the text):
// - a statement ends where it ended, so the text after it cannot continue it: the statement before a
//   changed range, and the last statement of a changed range, ends in `;`, or in the `}` of a declaration or
//   block that nothing can extend (`function f() {}`, `class C {}`, `interface I {}`, `{}`, `try`, `switch`, a
//   loop or an `if` whose last part is a block: an `else`, `catch` or `finally` that would extend one does
//   not parse alone), or, without a semicolon, before a word on a later line (endsForGood);
// - a changed range is parsed as the whole text is: its positions, the module's source type, strict mode
//   when the module is; it has no directive or `#!` line unless it starts the text, and no HTML comment
//   (`<!--`, `-->`: read differently at the start of a line);
// - the text's source type is the original's: a module keeps an import or export, and a script gains none
//   (a range of a script that imports does not parse as a script).
// The moved nodes are the original tree's: `restore()` puts their offsets and lines back, and the caller
// calls it (in a `finally`) before anything else reads the original tree.
import type { t } from '../babel.js';
import { getLine, movePositions } from '../analysis/ast.js';
import { parseRange } from '../parse.js';
import type { Edit } from './edits.js';

export interface EditedTree {
  ast: t.File;
  /** Puts the moved statements of the original tree back where they were. */
  restore(): void;
}

/** A statement kept from the original, and how far it moves. */
interface Kept {
  index: number;
  node: t.Statement;
  delta: number;
}

/**
 * The tree of `text` (`source` with `edits` applied: EditList.apply's order) from `original` (the tree
 * of `source`), or null when it cannot be shown to be a parse's (see the top of this file).
 */
export function buildEditedTree(path: string, original: t.File, source: string, edits: readonly Edit[], text: string): EditedTree | null {
  const body = original.program.body;
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  // the statements no edit touches (an insertion at a statement's start or end is outside it), with the
  // length the edits before each add (edits do not overlap: sorted by start, they are sorted by end)
  const kept: Kept[] = [];
  let e = 0;
  let delta = 0;
  for (let i = 0; i < body.length; i++) {
    const node = body[i]!;
    while (e < sorted.length && sorted[e]!.end <= node.start!) {
      delta += sorted[e]!.text.length - (sorted[e]!.end - sorted[e]!.start);
      e++;
    }
    if (e === sorted.length || sorted[e]!.start >= node.end!) kept.push({ index: i, node, delta });
  }
  if (kept.length === 0) return null;
  const { sourceType } = original.program;
  const wasStrict = sourceType === 'module' || isStrict(original.program.directives);
  let directives = original.program.directives;
  let interpreter = original.program.interpreter;
  const lines = new LineCounter(text);
  const merged: t.Statement[] = [];
  const moves: { node: t.Statement; delta: number; lineDelta: number }[] = [];
  let g = 0;
  // in the text's order: the range before each kept statement when the edits changed it, then the statement
  for (let k = 0; k <= kept.length; k++) {
    const before = k > 0 ? kept[k - 1]! : null;
    const after = k < kept.length ? kept[k]! : null;
    const gapStart = before ? before.node.end! : 0;
    const gapEnd = after ? after.node.start! : source.length;
    while (g < sorted.length && sorted[g]!.start < gapStart) g++;
    const adjacent = (before ? before.index + 1 : 0) === (after ? after.index : body.length);
    if (!adjacent || (g < sorted.length && sorted[g]!.end <= gapEnd)) {
      const from = before ? gapStart + before.delta : 0;
      const to = after ? gapEnd + after.delta : text.length;
      const range = text.slice(from, to);
      if (range.includes('<!--') || range.includes('-->')) return null;
      // (a range that starts the text reads its own directives)
      const strict = sourceType === 'module' || (from > 0 && isStrict(directives));
      const ast = parseRange(path, range, { index: from, line: lines.lineAt(from), column: from - lines.lineStartAt(from), sourceType, strict });
      if (ast === null) return null;
      if (from === 0) {
        directives = ast.program.directives;
        interpreter = ast.program.interpreter;
      } else if (ast.program.directives.length > 0 || ast.program.interpreter) {
        return null;
      }
      const statements = ast.program.body;
      // the statement before the range, and the range's last one, end where a parse of the text ends them
      const last = statements.length > 0 ? statements[statements.length - 1]! : null;
      if (before && (last || after) && !endsForGood(before.node, text, before.node.end! + before.delta)) return null;
      if (last && after && !endsForGood(last, text, last.end!)) return null;
      merged.push(...statements);
    }
    if (after) {
      const lineDelta = lines.lineAt(after.node.start! + after.delta) - getLine(after.node);
      if (after.delta !== 0 || lineDelta !== 0) moves.push({ node: after.node, delta: after.delta, lineDelta });
      merged.push(after.node);
    }
  }
  // the text parses as the original did: strict as it was, a module still imports or exports, and no
  // string statement became the first (a directive, in a parse of the text)
  if ((sourceType === 'module' || isStrict(directives)) !== wasStrict) return null;
  if (sourceType === 'module' && !merged.some((s) => s.type === 'ImportDeclaration' || s.type.startsWith('Export'))) return null;
  const first = merged[0];
  if (first && first.type === 'ExpressionStatement' && first.expression.type === 'StringLiteral') return null;
  for (const { node, delta, lineDelta } of moves) movePositions(node, delta, lineDelta);
  const program = { type: 'Program', start: 0, end: text.length, loc: 1, sourceType, interpreter, directives, body: merged } as unknown as t.Program;
  const ast = { type: 'File', start: 0, end: text.length, loc: 1, program, comments: [] } as unknown as t.File;
  let restored = false;
  return {
    ast,
    restore() {
      if (restored) return;
      restored = true;
      for (const { node, delta, lineDelta } of moves) movePositions(node, -delta, -lineDelta);
    },
  };
}

function isStrict(directives: t.Program['directives']): boolean {
  return directives.some((d) => d.value.value === 'use strict');
}

/**
 * Whether the statement `node`, which ends at `end` in `text`, ends there in a parse of the whole text
 * too (see the top of this file): it ends in `;` or in a block nothing can extend, or it is one that ends
 * at a line break before a word (automatic semicolon insertion: no word continues an expression on the
 * next line, `in` and `instanceof` start no statement, and TypeScript's `as` and `satisfies` need the
 * same line). A lone name (`let`, `async`) and `export { a }` (then `from`) are not.
 */
function endsForGood(node: t.Statement, text: string, end: number): boolean {
  const last = text[end - 1];
  if (last === ';') return true;
  if (last === '}' && endsInBlock(node)) return true;
  switch (node.type) {
    case 'ExpressionStatement':
      if (node.expression.type === 'Identifier') return false;
      break;
    case 'ExportNamedDeclaration':
      if (!node.source) return false;
      break;
    case 'VariableDeclaration':
    case 'ImportDeclaration':
    case 'TSImportEqualsDeclaration':
    case 'ExportAllDeclaration':
    case 'ReturnStatement':
    case 'ThrowStatement':
    case 'BreakStatement':
    case 'ContinueStatement':
      break;
    default:
      return false;
  }
  return isWordOnNextLine(text, end);
}

/** Whether the next token after `at` in `text` is a word (ASCII) on a later line, or there is none. */
function isWordOnNextLine(text: string, at: number): boolean {
  let broken = false;
  for (let i = at; i < text.length; ) {
    const code = text.charCodeAt(i);
    if (isLineBreak(code)) {
      broken = true;
      i++;
    } else if (code === 32 || code === 9 || code === 11 || code === 12 || code === 0xfeff || code === 0xa0) {
      i++;
    } else if (text.startsWith('//', i)) {
      while (i < text.length && !isLineBreak(text.charCodeAt(i))) i++;
    } else if (text.startsWith('/*', i)) {
      const close = text.indexOf('*/', i + 2);
      if (close === -1) return false;
      for (let j = i + 2; j < close; j++) if (isLineBreak(text.charCodeAt(j))) broken = true;
      i = close + 2;
    } else {
      return broken && /[A-Za-z_$]/.test(text[i]!);
    }
  }
  return true;
}

function endsInBlock(node: t.Node): boolean {
  switch (node.type) {
    case 'BlockStatement':
    case 'FunctionDeclaration':
    case 'ClassDeclaration':
    case 'TryStatement':
    case 'SwitchStatement':
    case 'TSInterfaceDeclaration':
    case 'TSEnumDeclaration':
    case 'TSModuleDeclaration':
      return true;
    case 'IfStatement':
      return endsInBlock(node.alternate ?? node.consequent);
    case 'ForStatement':
    case 'ForInStatement':
    case 'ForOfStatement':
    case 'WhileStatement':
    case 'LabeledStatement':
      return endsInBlock(node.body);
    case 'ExportNamedDeclaration':
    case 'ExportDefaultDeclaration':
      return node.declaration !== null && node.declaration !== undefined && endsInBlock(node.declaration);
    default:
      return false;
  }
}

function isLineBreak(code: number): boolean {
  return code === 10 || code === 13 || code === 0x2028 || code === 0x2029;
}

/**
 * The 1-based line of offsets of a text, asked in increasing order (one pass over the text), with
 * Babel's line breaks: \n, \r\n, a lone \r, U+2028, U+2029.
 */
class LineCounter {
  private at = 0;
  private line = 1;
  private start = 0;

  constructor(private readonly text: string) {}

  lineAt(offset: number): number {
    this.advance(offset);
    return this.line;
  }

  lineStartAt(offset: number): number {
    this.advance(offset);
    return this.start;
  }

  private advance(offset: number): void {
    if (offset < this.at) throw new Error(`LineCounter: offset ${offset} asked after ${this.at}`);
    const text = this.text;
    for (; this.at < offset; this.at++) {
      const code = text.charCodeAt(this.at);
      if (isLineBreak(code) && !(code === 13 && text.charCodeAt(this.at + 1) === 10)) {
        this.line++;
        this.start = this.at + 1;
      }
    }
  }
}
