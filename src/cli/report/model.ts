// What every report derives from a RunSummary the same way: each file's status and package, the
// totals, the tool's version. Pure functions over the summary (the version lookup reads our own
// package.json once); the renderers only lay these out.
import { sep } from 'node:path';
import { RULE_IDS, type RuleId } from '../../model/audit-rules.js';
import type { FileResult, RunSummary } from '../../model/types.js';

export const TOOL_NAME = 'mcp-migrate';

/**
 * - `pending`: a change is planned and was not written in this run (dry-run, check, or skipped in review);
 * - `written`: the change was written in this run;
 * - `unchanged`: nothing to change (left alone, not a server, or findings only);
 * - `error`: the file could not be processed or written.
 */
export type FileStatus = 'pending' | 'written' | 'unchanged' | 'error';

export function getFileStatus(summary: RunSummary, file: FileResult): FileStatus {
  if (file.error !== undefined) return 'error';
  if (summary.written.includes(file.path)) return 'written';
  if (file.after !== undefined) return 'pending';
  return 'unchanged';
}

/** Directories that hold a package.json the run knows about (from its manifest changes), deepest first. */
export function getPackageDirs(summary: RunSummary): string[] {
  const dirs = new Set<string>();
  for (const manifest of summary.manifests) {
    const path = toPosix(manifest.path);
    if (path === 'package.json') dirs.add('.');
    else if (path.endsWith('/package.json')) dirs.add(path.slice(0, -'/package.json'.length));
  }
  return [...dirs].sort((a, b) => b.length - a.length || a.localeCompare(b));
}

/** The nearest package directory above `path` among `dirs` (`.` for the root package), or null when unknown. */
export function getPackageOf(path: string, dirs: readonly string[]): string | null {
  const posix = toPosix(path);
  for (const dir of dirs) {
    if (dir === '.' ? !posix.startsWith('../') && !posix.startsWith('/') : posix.startsWith(`${dir}/`)) return dir;
  }
  return null;
}

export interface Totals {
  /** Files in the report (files with nothing to say are not in the summary). */
  files: number;
  pending: number;
  written: number;
  sdk: number;
  /** Servers moved onto the SDK at the boundary (counted apart from `sdk`, the dispatcher-level rewrite). */
  boundary: number;
  envelope: number;
  leave: number;
  errors: number;
  findings: number;
  /** Findings the decided rewrite fixes (`fixed: true`). */
  findingsFixed: number;
  byRule: Record<RuleId, number>;
}

export function getTotals(summary: RunSummary): Totals {
  const byRule = Object.fromEntries(RULE_IDS.map((id) => [id, 0])) as Record<RuleId, number>;
  const totals: Totals = { files: summary.files.length, pending: 0, written: 0, sdk: 0, boundary: 0, envelope: 0, leave: 0, errors: 0, findings: 0, findingsFixed: 0, byRule };
  for (const file of summary.files) {
    const status = getFileStatus(summary, file);
    if (status === 'pending') totals.pending++;
    if (status === 'written') totals.written++;
    if (status === 'error') totals.errors++;
    if (file.decision.kind === 'sdk') totals.sdk++;
    if (file.decision.kind === 'boundary') totals.boundary++;
    if (file.decision.kind === 'envelope') totals.envelope++;
    if (file.decision.kind === 'leave') totals.leave++;
    for (const finding of file.findings) {
      totals.findings++;
      if (finding.fixed) totals.findingsFixed++;
      if (Object.prototype.hasOwnProperty.call(byRule, finding.rule)) byRule[finding.rule as RuleId]++;
    }
  }
  return totals;
}

/**
 * A path with `/` separators. Only the platform separator is one: on POSIX a backslash is an ordinary
 * character of a file name (`a\\b.js` is one file) and must stay as it is.
 */
export function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

export { getToolVersion } from '../version.js';
