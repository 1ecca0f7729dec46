// Text edits on source offsets: the rewrite computes them all first, then applies them in one go,
// so every byte outside an edit stays as it was (comments, quotes, CRLF, BOM, shebang).

export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

export function buildInsertion(offset: number, text: string): TextEdit {
  return { start: offset, end: offset, text };
}

export function buildReplacement(range: { start?: number | null; end?: number | null }, text: string): TextEdit {
  if (range.start == null || range.end == null) throw new Error('node without a source range');
  return { start: range.start, end: range.end, text };
}

/**
 * Applies edits given in any order. At one offset, insertions come before a replacement that starts
 * there, in the order they were given. Overlapping replacements are a bug in the caller: throws.
 */
export function applyEdits(source: string, edits: readonly TextEdit[]): string {
  const ordered = edits
    .map((edit, index) => ({ edit, index }))
    .sort((a, b) => a.edit.start - b.edit.start || isInsertion(b.edit) - isInsertion(a.edit) || a.index - b.index)
    .map(({ edit }) => edit);
  let out = '';
  let cursor = 0;
  for (const edit of ordered) {
    if (edit.start < cursor) throw new Error(`overlapping edits at offset ${edit.start}`);
    out += source.slice(cursor, edit.start) + edit.text;
    cursor = edit.end;
  }
  return out + source.slice(cursor);
}

function isInsertion(edit: TextEdit): number {
  return edit.start === edit.end ? 1 : 0;
}
