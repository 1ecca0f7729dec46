// Text for humans: colors, unified diffs, and the header shown above each file's diff.
// Returns strings; the caller decides where they go.
import { structuredPatch } from 'diff';
import { assertNever } from '../model/assert-never.js';
import type { Decision, FileResult } from '../model/types.js';

export interface Paint {
  enabled: boolean;
  added(text: string): string;
  removed(text: string): string;
  hunk(text: string): string;
  bold(text: string): string;
  dim(text: string): string;
  warn(text: string): string;
  error(text: string): string;
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
  };
}

/**
 * A unified diff of `before` -> `after` (3 lines of context). `before === null` shows a new file
 * (`--- /dev/null`). Carriage returns are not printed (CRLF files diff like LF files on screen).
 */
export function renderDiff(path: string, before: string | null, after: string, paint: Paint): string {
  const patch = structuredPatch(before === null ? '/dev/null' : `a/${path}`, `b/${path}`, before ?? '', after, '', '', { context: 3 });
  if (patch === undefined) return '';
  const lines: string[] = [paint.bold(`--- ${patch.oldFileName}`), paint.bold(`+++ ${patch.newFileName}`)];
  for (const hunk of patch.hunks) {
    // Unified diff convention: an empty side starts at line 0 ("@@ -0,0 +1,3 @@").
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    lines.push(paint.hunk(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`));
    for (const raw of hunk.lines) {
      const line = raw.replace(/\r$/, '');
      if (line.startsWith('+')) lines.push(paint.added(line));
      else if (line.startsWith('-')) lines.push(paint.removed(line));
      else if (line.startsWith('\\')) lines.push(paint.dim(line));
      else lines.push(line);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** One line: what the tool decided for the file, with its reason code and hint. */
export function describeDecision(decision: Decision): string {
  switch (decision.kind) {
    case 'sdk': {
      const pkg = decision.sdk === 'v1' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/server';
      const style = decision.style === 'server' ? 'Server + setRequestHandler' : 'McpServer.registerTool';
      return `sdk: moved onto ${pkg} (${style})`;
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
export function renderFileHeader(path: string, result: FileResult, paint: Paint): string {
  const lines = [paint.bold(`━━ ${path}`), `   ${describeDecision(result.decision)}`];
  if (result.decision.kind === 'sdk') for (const note of result.decision.notes) lines.push(`   note: ${note}`);
  if (result.detected !== undefined && result.detected !== '') lines.push(`   detected: ${result.detected}`);
  const fixer = result.decision.kind === 'envelope' ? 'the envelope' : 'the SDK';
  for (const fix of result.fixes) lines.push(paint.added(`   fixed by ${fixer}: ${fix}`));
  for (const d of result.diagnostics) {
    const where = d.line === undefined ? '' : ` (line ${d.line}${d.column === undefined ? '' : `:${d.column}`})`;
    lines.push(paint.warn(`   ${d.code}: ${d.message}${where}`));
  }
  // The audit: every JSON-RPC envelope violation, and whether this file's rewrite fixes it.
  for (const f of result.findings) {
    const status = f.fixed ? paint.added('fixed by this rewrite') : paint.warn('not fixed');
    lines.push(`   ${path}:${f.line}:${f.column} ${f.rule}: ${f.message} [${status}]`);
  }
  return `${lines.join('\n')}\n`;
}
