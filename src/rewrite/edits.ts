// Text edits on source offsets: the rewrite is computed as a list of edits and applied once,
// so every byte outside an edit stays exactly as the user wrote it.
// Deliberately knows nothing about ASTs or MCP.

export interface Edit {
  start: number;
  end: number;
  text: string;
}

export class EditList {
  private readonly edits: Edit[] = [];

  replace(start: number, end: number, text: string): void {
    this.edits.push({ start, end, text });
  }

  insert(at: number, text: string): void {
    this.edits.push({ start: at, end: at, text });
  }

  remove(start: number, end: number): void {
    this.edits.push({ start, end, text: '' });
  }

  copy(): EditList {
    const copy = new EditList();
    copy.edits.push(...this.edits);
    return copy;
  }

  /** A copy without the edits that lie inside [start, end) (their text moved elsewhere). */
  without(start: number, end: number): EditList {
    const copy = new EditList();
    copy.edits.push(...this.edits.filter((e) => !(e.start >= start && e.end <= end)));
    return copy;
  }

  get size(): number {
    return this.edits.length;
  }

  /** The edits, in the order they were made (apply sorts them). */
  get all(): readonly Edit[] {
    return this.edits;
  }

  /**
   * Removes [start, end), joined with the removals it overlaps (a comment between two removed
   * declarations: their removal ranges share the blank lines around it); nothing when it overlaps an
   * edit that writes text.
   */
  removeJoined(start: number, end: number): void {
    const overlapping = this.edits.filter((e) => e.start < end && e.end > start);
    if (overlapping.some((e) => e.text !== '')) return;
    for (const e of overlapping) this.edits.splice(this.edits.indexOf(e), 1);
    this.edits.push({ start: Math.min(start, ...overlapping.map((e) => e.start)), end: Math.max(end, ...overlapping.map((e) => e.end)), text: '' });
  }

  /** True when an edit touches [start, end). */
  touches(start: number, end: number): boolean {
    return this.edits.some((e) => e.start < end && e.end > start);
  }

  /**
   * The text of source[start, end) with every edit inside that range applied.
   * Edits crossing the range boundary, or overlapping each other, are a bug of the caller.
   */
  apply(source: string, start = 0, end = source.length): string {
    const inside = this.edits
      .filter((e) => e.start >= start && e.end <= end)
      .sort((a, b) => a.start - b.start || a.end - b.end);
    let out = '';
    let cursor = start;
    for (const edit of inside) {
      if (edit.start < cursor) {
        throw new Error(`overlapping edits at offset ${edit.start}`);
      }
      out += source.slice(cursor, edit.start) + edit.text;
      cursor = edit.end;
    }
    return out + source.slice(cursor, end);
  }
}

