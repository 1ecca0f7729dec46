// Line-oriented helpers over the original source text: ranges that include a node's comments and
// whole lines, indentation, and the lines whose leading whitespace is part of a string (never reindented).
import { babelParser, t } from '../babel.js';

import { forEachChild } from '../analysis/ast.js';
import { EditList } from './edits.js';

export function getLineStart(source: string, offset: number): number {
  return source.lastIndexOf('\n', offset - 1) + 1;
}

/** The leading whitespace of the line that holds `offset`. */
export function getLineIndent(source: string, offset: number): string {
  const start = getLineStart(source, offset);
  return /^[ \t]*/.exec(source.slice(start))![0];
}

/** [start, end) of a node including comments directly above it (no blank line between) and a trailing same-line comment. */
export function getNodeRange(source: string, node: t.Node, floor = 0): { start: number; end: number } {
  let start = node.start!;
  for (const comment of [...(node.leadingComments ?? [])].reverse()) {
    const gap = source.slice(comment.end!, start);
    if (comment.start! < floor || /\n[ \t]*\r?\n/.test(gap) || /[^\s]/.test(gap)) break;
    // a comment that ends the previous statement's line belongs to that statement
    if (/\S/.test(source.slice(getLineStart(source, comment.start!), comment.start!))) break;
    start = comment.start!;
  }
  let end = node.end!;
  for (const comment of node.trailingComments ?? []) {
    const gap = source.slice(end, comment.start);
    if (gap.includes('\n') || /[^\s]/.test(gap)) break;
    end = comment.end!;
  }
  return { start, end };
}

/** Widens [start, end) to whole lines when nothing else shares them (so a removal leaves no blank stub). */
export function widenToLines(source: string, start: number, end: number): { start: number; end: number } {
  const lineStart = getLineStart(source, start);
  const newline = source.indexOf('\n', end);
  const lineEnd = newline === -1 ? source.length : newline + 1;
  const after = source.slice(end, lineEnd);
  if (/\S/.test(source.slice(lineStart, start))) {
    // the last statement of a line it shares (`send(x); break;`): the spaces before it go too
    if (!/\S/.test(after)) return { start: start - /[ \t]*$/.exec(source.slice(lineStart, start))![0].length, end };
    return { start, end };
  }
  if (/\S/.test(after)) return { start, end };
  return { start: lineStart, end: lineEnd };
}

/**
 * The range to cut to remove [start, end): whole lines when nothing else shares them, plus one blank
 * line when the removal would otherwise leave two blank lines in a row or a blank line after a `{`.
 */
export function getRemovalRange(source: string, start: number, end: number): { start: number; end: number } {
  const range = widenToLines(source, start, end);
  if (range.start !== getLineStart(source, start)) return range;
  const before = source.slice(0, range.start);
  // a blank line before, or the opening of a block (`switch (x) {` then the removed first case)
  const blankBefore = range.start === 0 || /\n[ \t]*\r?\n$/.test(before) || /^[ \t]*\r?\n$/.test(before) || /[{[(][ \t]*\r?\n$/.test(before);
  const next = /^[ \t]*\r?\n/.exec(source.slice(range.end));
  if (blankBefore && next) return { start: range.start, end: range.end + next[0].length };
  // the last item of a block after a blank line: the blank line goes too (no blank line before the `}`)
  const blank = /\n([ \t]*\r?\n)$/.exec(before);
  if (blank && /^[ \t]*[}\])]/.test(source.slice(range.end))) return { start: range.start - blank[1]!.length, end: range.end };
  return range;
}

/** Offsets of line starts that lie inside a multi-line string or template: their whitespace is content. */
export function findProtectedLineStarts(root: t.Node, source: string): Set<number> {
  const protectedStarts = new Set<number>();
  const stack: t.Node[] = [root.type === 'File' ? root.program : root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    forEachChild(node, (child) => stack.push(child));
    if (t.isTemplateElement(node) || t.isStringLiteral(node)) {
      // TemplateElement ranges exclude the backticks; anything after a newline inside is content.
      for (let i = source.indexOf('\n', node.start!); i !== -1 && i < node.end!; i = source.indexOf('\n', i + 1)) {
        protectedStarts.add(i + 1);
      }
    }
  }
  return protectedStarts;
}

/**
 * An expression's text moved from a line indented `from` to one indented `to`: its later lines move
 * with it, except those that begin inside a string or template (their whitespace is content). Text that
 * does not parse as an expression is returned as it is.
 */
export function reindentExpression(text: string, from: string, to: string): string {
  if (!text.includes('\n')) return text;
  // a literal closes on a line indented like the one it opened on: the surest measure of `from`
  const closing = /\n([ \t]*)[}\])][^\n]*$/.exec(text);
  if (closing) from = closing[1]!;
  if (from === to) return text;
  let expression: t.Node;
  try {
    expression = babelParser.parseExpression(text, { plugins: ['typescript'] });
  } catch {
    return text;
  }
  const protectedStarts = findProtectedLineStarts(expression, text);
  return renderRange(text, 0, text.length, from, to, protectedStarts);
}



/**
 * source[start, end) with `edits` applied and every line after the first moved from indentation `from`
 * to `to` — except lines that begin inside a string or template (their whitespace is content) and lines
 * an edit already rewrites.
 */
export function renderRange(
  source: string,
  start: number,
  end: number,
  from: string,
  to: string,
  protectedStarts: Set<number>,
  edits: EditList = new EditList(),
): string {
  const all = edits.copy();
  for (let newline = source.indexOf('\n', start); newline !== -1 && newline < end; newline = source.indexOf('\n', newline + 1)) {
    const lineStart = newline + 1;
    if (lineStart >= end || protectedStarts.has(lineStart)) continue;
    const indent = /^[ \t]*/.exec(source.slice(lineStart, end))![0];
    if (all.touches(lineStart, lineStart + indent.length)) continue;
    const lineEnd = source.indexOf('\n', lineStart);
    const blank = !/\S/.test(source.slice(lineStart, lineEnd === -1 || lineEnd > end ? end : lineEnd));
    const replacement = blank ? '' : indent.startsWith(from) ? to + indent.slice(from.length) : to;
    if (replacement !== indent) all.replace(lineStart, lineStart + indent.length, replacement);
  }
  return all.apply(source, start, end);
}
