// Patches in git's format, for `--patch FILE|-`, the JSON report (each file's `patch`) and the Markdown
// report (each file's diff in a <details> block):
//
//   diff --git a/src/server.js b/src/server.js
//   --- a/src/server.js
//   +++ b/src/server.js
//   @@ -1,3 +1,4 @@
//
// and for a new file `new file mode 100644` with `--- /dev/null`. Bytes are kept as they are (CRLF lines
// keep their `\r`, a file without a final newline gets git's `\ No newline at end of file`), so
// `git apply` gives exactly the text the run would write. Pure: strings in, strings out.
import { loadDiff } from '../text-diff.js';
import type { ScanResult } from '../runner/scan.js';

export interface PatchEntry {
  /** `/`-separated path, relative to where the patch is applied. */
  path: string;
  /** null: a new file. */
  before: string | null;
  after: string;
}

/** One file's change as a git patch; '' when nothing changes. */
export function buildFilePatch(entry: PatchEntry): string {
  if (entry.before === entry.after) return '';
  const isNew = entry.before === null;
  const patch = loadDiff().structuredPatch(`a/${entry.path}`, `b/${entry.path}`, entry.before ?? '', entry.after, '', '', { context: 3 });
  const quoted = (prefix: string): string => quotePath(`${prefix}${entry.path}`);
  const lines: string[] = [`diff --git ${quoted('a/')} ${quoted('b/')}`];
  if (isNew) lines.push('new file mode 100644');
  lines.push(isNew ? '--- /dev/null' : `--- ${quoted('a/')}`, `+++ ${quoted('b/')}`);
  for (const hunk of patch.hunks) {
    // An empty side starts at line 0 (`@@ -0,0 +1,3 @@`), as git writes it.
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    lines.push(`@@ -${oldStart}${hunk.oldLines === 1 ? '' : `,${hunk.oldLines}`} +${newStart}${hunk.newLines === 1 ? '' : `,${hunk.newLines}`} @@`);
    lines.push(...hunk.lines);
  }
  return `${lines.join('\n')}\n`;
}

/** Several files' patches, in the given order. */
export function buildPatch(entries: readonly PatchEntry[]): string {
  return entries.map(buildFilePatch).join('');
}

/**
 * Everything `scan` would write (the pending source files, the package.json changes, the new companion
 * files), paths given by `path` (absolute -> relative to where the patch applies), sorted by path.
 */
export function getPatchEntries(scan: ScanResult, path: (absolute: string) => string): PatchEntry[] {
  const entries: PatchEntry[] = [];
  for (const result of scan.results) if (result.after !== undefined && result.after !== result.before) entries.push({ path: path(result.path), before: result.before, after: result.after });
  for (const manifest of scan.manifests) entries.push({ path: path(manifest.change.path), before: manifest.change.before, after: manifest.change.after });
  for (const companion of scan.companions) entries.push({ path: path(companion.path), before: null, after: companion.content });
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * A path as git writes it (core.quotePath, its default): unchanged when plain; otherwise a C string in
 * which `"`, `\\`, the control characters and every byte of a non-ASCII character are escaped
 * (`"a/f\\033]0.js"`, `"a/\\342\\200\\256x.js"`), so nothing of a name reaches a terminal or a report raw.
 * (A space quotes the path too: `git apply` reads either form.)
 */
function quotePath(path: string): string {
  if (!/[\s"\\\x00-\x1f\x7f-\uffff]/.test(path)) return path;
  let out = '';
  for (const byte of Buffer.from(path, 'utf8')) {
    const named = GIT_ESCAPES[byte];
    if (named !== undefined) out += named;
    else if (byte < 0x20 || byte >= 0x7f) out += `\\${byte.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(byte);
  }
  return `"${out}"`;
}

const GIT_ESCAPES: Record<number, string> = { 0x07: '\\a', 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0b: '\\v', 0x0c: '\\f', 0x0d: '\\r', 0x22: '\\"', 0x5c: '\\\\' };
