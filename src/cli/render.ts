// Text for humans: colors, unified diffs (plain for logs and pipes; numbered, word-highlighted hunks for the
// interactive review), and the header shown above each file's diff. Returns strings; the caller decides
// where they go.
import { describeCompanionRole } from '../analysis/companions.js';
import { loadDiff } from '../text-diff.js';
import { escapeCodeLine } from './escape.js';
import { assertNever } from '../model/assert-never.js';
import { type Decision, type FileResult, isEraUpgrade } from '../model/types.js';
import type { DiffLine, Hunk } from '../runner/hunks.js';

export interface Paint {
  enabled: boolean;
  added(text: string): string;
  removed(text: string): string;
  hunk(text: string): string;
  bold(text: string): string;
  dim(text: string): string;
  warn(text: string): string;
  error(text: string): string;
  /** The changed words inside a changed line (reverse video). */
  strong(text: string): string;
}

function sgr(open: number, close: number, enabled: boolean): (text: string) => string {
  return enabled ? (text) => `\x1b[${open}m${text}\x1b[${close}m` : (text) => text;
}

/** Colors only when the stream is a terminal and NO_COLOR is unset or empty (https://no-color.org). */
export function shouldColor(isTTY: boolean | undefined, env: Readonly<Record<string, string | undefined>>): boolean {
  return isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

export function createPaint(enabled: boolean): Paint {
  return {
    enabled,
    added: sgr(32, 39, enabled),
    removed: sgr(31, 39, enabled),
    hunk: sgr(36, 39, enabled),
    bold: sgr(1, 22, enabled),
    dim: sgr(2, 22, enabled),
    warn: sgr(33, 39, enabled),
    error: sgr(31, 39, enabled),
    strong: sgr(7, 27, enabled),
  };
}

/**
 * A unified diff of `before` -> `after` (3 lines of context). `before === null` shows a new file
 * (`--- /dev/null`). Carriage returns are not printed (CRLF files diff like LF files on screen).
 */
export function renderDiff(path: string, before: string | null, after: string, paint: Paint): string {
  const patch = loadDiff().structuredPatch(before === null ? '/dev/null' : `a/${path}`, `b/${path}`, before ?? '', after, '', '', { context: 3 });
  if (patch === undefined) return '';
  const lines: string[] = [paint.bold(`--- ${patch.oldFileName}`), paint.bold(`+++ ${patch.newFileName}`)];
  for (const hunk of patch.hunks) {
    // Unified diff convention: an empty side starts at line 0 ("@@ -0,0 +1,3 @@").
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    lines.push(paint.hunk(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`));
    for (const raw of hunk.lines) {
      const line = escapeCodeLine(raw.replace(/\r$/, ''));
      if (line.startsWith('+')) lines.push(paint.added(line));
      else if (line.startsWith('-')) lines.push(paint.removed(line));
      else if (line.startsWith('\\')) lines.push(paint.dim(line));
      else lines.push(line);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** A server already on the SDK whose only change is its own stdout writes moving to stderr: it is on the SDK already. */
export function isStdoutOnlyRewrite(decision: Decision): boolean {
  return decision.kind === 'sdk' && decision.already === 'stdout';
}

/** What an era upgrade starts from, for its one-line descriptions (`code` writes a package name: a Markdown code span, say). */
export function describeEraStart(decision: Decision, code: (name: string) => string = (name) => name): string {
  return decision.kind === 'sdk' && decision.already === 'v1' ? `on SDK v1 (${code('@modelcontextprotocol/sdk')}), moved to v2 by the official codemod` : `already on ${code('@modelcontextprotocol/server')}`;
}

export { describeCompanionRole };

/** Who fixes what a rewrite fixes, for the header's `fixed by ...` lines. */
export function getFixer(decision: Decision): string {
  return decision.kind === 'envelope' ? 'the envelope' : 'the SDK';
}

/** One line: what the tool decided for the file, with its reason code and hint. */
export function describeDecision(decision: Decision): string {
  switch (decision.kind) {
    case 'sdk': {
      if (isStdoutOnlyRewrite(decision)) return 'sdk: already on the SDK; its own stdout writes move to stderr';
      if (isEraUpgrade(decision)) return `sdk: ${describeEraStart(decision)}; upgraded to the 2026-07-28 era (serveStdio serves 2025-era and 2026-07-28 clients)`;
      const pkg = decision.sdk === 'v1' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/server';
      const style = decision.style === 'server' ? 'Server + setRequestHandler' : 'McpServer.registerTool';
      return `sdk: moved onto ${pkg} (${style})`;
    }
    case 'boundary': {
      const pkg = decision.sdk === 'v1' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/server';
      return `sdk at the boundary: ${pkg} on the wire, the server's own handling behind it; not at the dispatcher: ${decision.reason} — ${decision.hint}${decision.line === undefined ? '' : ` (line ${decision.line})`}`;
    }
    case 'envelope':
      return `envelope: ${decision.reason} — ${decision.hint}${decision.line === undefined ? '' : ` (line ${decision.line})`}`;
    case 'leave':
      return `left alone: ${decision.reason} — ${decision.hint}${decision.line === undefined ? '' : ` (line ${decision.line})`}`;
    case 'none':
      return 'no change';
    default:
      return assertNever(decision);
  }
}

/** The lines above a file's diff: path, decision and reasons, what was detected, what the rewrite fixes. */
export function renderFileHeader(path: string, result: FileResult, paint: Paint, display: (path: string) => string = (p) => p): string {
  const lines = [paint.bold(`━━ ${path}`), `   ${describeDecision(result.decision)}`];
  if (result.decision.kind === 'sdk' || result.decision.kind === 'boundary') for (const note of result.decision.notes) lines.push(`   note: ${note}`);
  if (result.detected !== undefined && result.detected !== '') lines.push(`   detected: ${escapeCodeLine(result.detected)}`);
  // User code the rewrite removes (a `notifications/initialized` branch that did more than return) is named.
  for (const dropped of result.dropped ?? []) lines.push(paint.warn(`   dropped: ${escapeCodeLine(dropped)}`));
  const fixer = getFixer(result.decision);
  for (const fix of result.fixes) lines.push(paint.added(`   fixed by ${fixer}: ${fix}`));
  for (const d of result.diagnostics) {
    const where = d.line === undefined ? '' : ` (line ${d.line}${d.column === undefined ? '' : `:${d.column}`})`;
    lines.push(paint.warn(`   ${d.code}: ${escapeCodeLine(d.message)}${where}`));
  }
  // The audit: every JSON-RPC envelope violation, and whether this file's rewrite fixes it.
  for (const f of result.findings) {
    const status = f.fixed ? paint.added('fixed by this rewrite') : paint.warn('not fixed');
    lines.push(`   ${f.file === undefined ? path : display(f.file)}:${f.line}:${f.column} ${f.rule}: ${escapeCodeLine(f.message)} [${status}]`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Hunks for the interactive review: old and new line numbers in a gutter, and within a removed line and the
 * added line paired with it, the changed words highlighted. `label` goes on each hunk's `@@` line;
 * `gutter` is the width of a line number (default: the widest in these hunks).
 *
 *   @@ -40,3 +40,3 @@ hunk 2/4
 *   40 40 │   if (msg.method === 'tools/list') {
 *   41    │-    console.log(JSON.stringify(reply));
 *      41 │+    console.error(JSON.stringify(reply));
 */
export function renderNumberedHunks(hunks: readonly Hunk[], paint: Paint, label: (hunk: Hunk) => string = () => '', gutter?: number): string {
  // One gutter width for a whole file (`gutter`), so its hunks line up when asked about one by one.
  const widest = gutter ?? Math.max(1, ...hunks.map((h) => String(Math.max(h.oldStart + h.oldLines, h.newStart + h.newLines)).length));
  const out: string[] = [];
  for (const hunk of hunks) {
    const title = label(hunk);
    out.push(paint.hunk(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@${title === '' ? '' : ` ${title}`}`));
    const words = pairChangedWords(hunk.lines, paint);
    for (const [i, line] of hunk.lines.entries()) {
      const gutter = paint.dim(`${pad(line.oldLine, widest)} ${pad(line.newLine, widest)} │`);
      const text = words.get(i) ?? escapeCodeLine(stripEol(line.text));
      if (line.kind === 'removed') out.push(gutter + paint.removed(`-${text}`));
      else if (line.kind === 'added') out.push(gutter + paint.added(`+${text}`));
      else out.push(`${gutter} ${text}`);
      if (!line.text.endsWith('\n') && line.kind !== 'context') out.push(paint.dim('\\ No newline at end of file'));
    }
  }
  return `${out.join('\n')}\n`;
}

function pad(n: number | null, width: number): string {
  return (n === null ? '' : String(n)).padStart(width);
}

function stripEol(text: string): string {
  return text.replace(/\r?\n$/, '');
}

/** Below this share of unchanged characters a pair of lines is shown without word highlights (it is a rewrite, not an edit). */
const MIN_SHARED = 0.4;

/**
 * For each run of removed lines followed by added lines, pairs them in order and highlights the words
 * that differ (git's diff-highlight, word-wise). Returns line index -> the line's text with highlights.
 */
function pairChangedWords(lines: readonly DiffLine[], paint: Paint): Map<number, string> {
  const out = new Map<number, string>();
  if (!paint.enabled) return out;
  for (let i = 0; i < lines.length; ) {
    if (lines[i]!.kind !== 'removed') {
      i++;
      continue;
    }
    const removed: number[] = [];
    while (i < lines.length && lines[i]!.kind === 'removed') removed.push(i++);
    const added: number[] = [];
    while (i < lines.length && lines[i]!.kind === 'added') added.push(i++);
    for (let k = 0; k < Math.min(removed.length, added.length); k++) {
      const before = stripEol(lines[removed[k]!]!.text);
      const after = stripEol(lines[added[k]!]!.text);
      const parts = loadDiff().diffWordsWithSpace(before, after);
      const shared = parts.filter((p) => !p.added && !p.removed).reduce((n, p) => n + p.value.trim().length, 0);
      if (shared < MIN_SHARED * Math.max(before.trim().length, after.trim().length)) continue;
      out.set(removed[k]!, parts.filter((p) => !p.added).map((p) => (p.removed ? paint.strong(escapeCodeLine(p.value)) : escapeCodeLine(p.value))).join(''));
      out.set(added[k]!, parts.filter((p) => !p.removed).map((p) => (p.added ? paint.strong(escapeCodeLine(p.value)) : escapeCodeLine(p.value))).join(''));
    }
  }
  return out;
}
