// Per-hunk review support: one file's change split into unified-diff hunks (3 lines of context), any
// subset of them applied to the original text byte for byte (EOLs, BOM and a missing final newline kept),
// and the hunks grouped so that every group can be applied without the others. Pure text and data: whether
// a partial text is acceptable is decided by a PartialChecker (partial.ts); nothing here prints or writes.
import { loadDiff } from '../text-diff.js';

/** Lines of unchanged context around each change, as in `diff -u`. */
export const HUNK_CONTEXT = 3;

export interface DiffLine {
  kind: 'context' | 'removed' | 'added';
  /** The line as in the file, with its line ending (if it has one). */
  text: string;
  /** 1-based line number in the original (context and removed lines), else null. */
  oldLine: number | null;
  /** 1-based line number in the result (context and added lines), else null. */
  newLine: number | null;
}

export interface Hunk {
  /** 0-based position among the file's hunks. */
  index: number;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: DiffLine[];
}

/** The original text as runs of unchanged text and edits; an edit belongs to one hunk. */
type Segment = { kind: 'same'; text: string } | { kind: 'edit'; hunk: number; removed: string; added: string };

export interface SplitChange {
  hunks: Hunk[];
  segments: Segment[];
}

/** Splits `before` -> `after` into hunks. Applying every hunk gives `after`, applying none gives `before`. */
export function splitChange(before: string, after: string): SplitChange {
  const lines: DiffLine[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const change of loadDiff().diffLines(before, after)) {
    for (const text of splitKeepingEol(change.value)) {
      if (change.added) lines.push({ kind: 'added', text, oldLine: null, newLine: newLine++ });
      else if (change.removed) lines.push({ kind: 'removed', text, oldLine: oldLine++, newLine: null });
      else lines.push({ kind: 'context', text, oldLine: oldLine++, newLine: newLine++ });
    }
  }
  // 1. Runs of changed lines.
  const runs: { start: number; end: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.kind === 'context') continue;
    const last = runs[runs.length - 1];
    if (last !== undefined && last.end === i) last.end = i + 1;
    else runs.push({ start: i, end: i + 1 });
  }
  // 2. Runs closer than twice the context share a hunk (their context would overlap).
  const hunkOfRun: number[] = [];
  const spans: { start: number; end: number }[] = [];
  for (const [r, run] of runs.entries()) {
    const previous = spans[spans.length - 1];
    if (previous !== undefined && run.start - runs[r - 1]!.end <= 2 * HUNK_CONTEXT) previous.end = run.end;
    else spans.push({ start: run.start, end: run.end });
    hunkOfRun.push(spans.length - 1);
  }
  const hunks: Hunk[] = spans.map((span, index) => {
    const slice = lines.slice(Math.max(0, span.start - HUNK_CONTEXT), Math.min(lines.length, span.end + HUNK_CONTEXT));
    const olds = slice.filter((l) => l.oldLine !== null);
    const news = slice.filter((l) => l.newLine !== null);
    // Unified diff convention: an empty side starts at the line before ("@@ -0,0 +1,3 @@").
    const oldStart = olds[0]?.oldLine ?? (lines.slice(0, span.start).filter((l) => l.oldLine !== null).length);
    const newStart = news[0]?.newLine ?? (lines.slice(0, span.start).filter((l) => l.newLine !== null).length);
    return { index, oldStart, oldLines: olds.length, newStart, newLines: news.length, lines: slice };
  });
  // 3. The segments, for applying a subset.
  const segments: Segment[] = [];
  let cursor = 0;
  for (const [r, run] of runs.entries()) {
    if (run.start > cursor) segments.push({ kind: 'same', text: join(lines.slice(cursor, run.start)) });
    const changed = lines.slice(run.start, run.end);
    segments.push({
      kind: 'edit',
      hunk: hunkOfRun[r]!,
      removed: join(changed.filter((l) => l.kind === 'removed')),
      added: join(changed.filter((l) => l.kind === 'added')),
    });
    cursor = run.end;
  }
  if (cursor < lines.length) segments.push({ kind: 'same', text: join(lines.slice(cursor)) });
  return { hunks, segments };
}

/** The original text with only the hunks in `accepted` applied. */
export function applyHunks(split: SplitChange, accepted: ReadonlySet<number>): string {
  let out = '';
  for (const segment of split.segments) {
    if (segment.kind === 'same') out += segment.text;
    else out += accepted.has(segment.hunk) ? segment.added : segment.removed;
  }
  return out;
}

function splitKeepingEol(value: string): string[] {
  return value.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function join(lines: DiffLine[]): string {
  return lines.map((l) => l.text).join('');
}

/** What a partial text is, re-parsed and re-analysed (see partial.ts). */
export type PartialVerdict =
  /** Still the original server: the tool would offer the same migration again (some independent fixes applied). */
  | { kind: 'original' }
  /** The migrated server, as the full rewrite would leave it (some independent hunks left out). */
  | { kind: 'migrated' }
  /** Neither: does not parse, loses a binding, or a half-migrated server. `reason` is one line. */
  | { kind: 'invalid'; reason: string };

export interface PartialChecker {
  check(text: string): PartialVerdict;
}

/**
 * Groups the hunks so that each group can be accepted or skipped on its own (`git add -p`, but a hunk
 * that cannot be applied alone goes with what it needs). Every hunk that is not acceptable alone joins one
 * core group, and so does every hunk the rest cannot do without; the others stay single. When the core
 * is not acceptable by itself, everything is one group (the file-level choice).
 * Costs at most 2n+1 checks for n hunks. Groups are sorted by their first hunk.
 */
export function groupHunks(split: SplitChange, checker: PartialChecker): number[][] {
  const all = split.hunks.map((h) => h.index);
  if (all.length <= 1) return all.length === 0 ? [] : [all];
  const isOk = (accepted: number[]): boolean => checker.check(applyHunks(split, new Set(accepted))).kind !== 'invalid';
  const core = new Set(all.filter((i) => !isOk([i])));
  for (const i of all) {
    if (!core.has(i) && !isOk(all.filter((j) => j !== i))) core.add(i);
  }
  if (core.size === all.length) return [all];
  if (core.size > 0 && !isOk([...core])) return [all];
  const groups: number[][] = all.filter((i) => !core.has(i)).map((i) => [i]);
  if (core.size > 0) groups.push([...core].sort((a, b) => a - b));
  return groups.sort((a, b) => a[0]! - b[0]!);
}
