// The JSON report: a stable, documented schema (docs/reports.md, `schemaVersion: 1`) for scripts and
// batch-change engines. Every key is always present (null or [] when empty), so consumers never probe.
// Adding keys keeps schemaVersion 1; renaming or removing one, or changing a meaning, bumps it.
import { isRuleId, RULES, type Severity } from '../../model/audit-rules.js';
import { assertNever } from '../../model/assert-never.js';
import type { Decision, RunSummary } from '../../model/types.js';
import { buildFilePatch } from '../patch.js';
import { type FileStatus, getFileStatus, getPackageDirs, getPackageOf, getToolVersion, getTotals, TOOL_NAME, toPosix, type Totals } from './model.js';

export interface JsonFinding {
  rule: string;
  severity: Severity;
  line: number;
  column: number;
  message: string;
  hint: string;
  /** The module the finding is in when it is not this file (one it imports); line and column are in it. */
  file: string | null;
  fixed: boolean;
}

/** A Decision with every key present: null (or []) where the kind does not use it. */
export interface JsonDecision {
  kind: Decision['kind'];
  reason: string | null;
  hint: string | null;
  line: number | null;
  sdk: 'v1' | 'v2' | null;
  style: 'server' | 'mcp-server' | null;
  notes: string[];
  /** An `sdk` decision for a server that was on the SDK before: `stdout` (its stdout writes move), `era` (upgraded to serveStdio). */
  already: 'stdout' | 'era' | 'v1' | null;
}

export interface JsonFile {
  path: string;
  package: string | null;
  status: FileStatus;
  decision: JsonDecision;
  detected: string | null;
  fixes: string[];
  /** User code the rewrite removes beyond the I/O it takes over, with why (empty when none). */
  dropped: string[];
  findings: JsonFinding[];
  diagnostics: { code: string; message: string; line: number | null; column: number | null }[];
  error: string | null;
  companions: string[];
  /** What the proof said of the file's rewrite in this run; null for a file with no rewrite. */
  proof: { status: 'same' | 'differs' | 'not-verified' | 'not-run'; detail: string | null; seconds: number | null } | null;
  /**
   * The file's change as a git patch (paths relative to `root`), with the new companion files it is the
   * first to list; null when the run has no change for it (left alone, unchanged, error).
   */
  patch: string | null;
}

export interface JsonReport {
  schemaVersion: 1;
  tool: { name: string; version: string };
  mode: RunSummary['mode'];
  exitCode: number;
  root: string;
  totals: Totals;
  files: JsonFile[];
  manifests: { path: string; package: string | null; added: Record<string, string>; installCommand: string; written: boolean; patch: string }[];
}

export function buildJsonReport(summary: RunSummary): JsonReport {
  const packages = getPackageDirs(summary);
  // A companion two files share is created by the patch of the first that lists it, once.
  const companionsPatched = new Set<string>();
  const patchOf = (file: RunSummary['files'][number]): string | null => {
    if (file.after === undefined || file.error !== undefined) return null;
    let patch = buildFilePatch({ path: toPosix(file.path), before: file.before, after: file.after });
    for (const companion of file.companions ?? []) {
      if (companionsPatched.has(companion.path)) continue;
      companionsPatched.add(companion.path);
      patch += buildFilePatch({ path: toPosix(companion.path), before: null, after: companion.content });
    }
    return patch === '' ? null : patch;
  };
  return {
    schemaVersion: 1,
    tool: { name: TOOL_NAME, version: getToolVersion() },
    mode: summary.mode,
    exitCode: summary.exitCode,
    root: summary.root,
    totals: getTotals(summary),
    files: summary.files.map((file) => ({
      path: file.path,
      package: getPackageOf(file.path, packages),
      status: getFileStatus(summary, file),
      decision: buildDecision(file.decision),
      detected: file.detected ?? null,
      fixes: file.fixes,
      dropped: file.dropped ?? [],
      findings: file.findings.map((f) => ({
        rule: f.rule,
        severity: isRuleId(f.rule) ? RULES[f.rule].severity : 'warning',
        line: f.line,
        column: f.column,
        message: f.message,
        hint: f.hint,
        file: f.file ?? null,
        fixed: f.fixed,
      })),
      diagnostics: file.diagnostics.map((d) => ({ code: d.code, message: d.message, line: d.line ?? null, column: d.column ?? null })),
      error: file.error ?? null,
      companions: (file.companions ?? []).map((c) => c.path),
      proof: summary.proofs?.[file.path] ?? null,
      patch: patchOf(file),
    })),
    manifests: summary.manifests.map((m) => ({
      path: m.path,
      package: getPackageOf(m.path, packages),
      added: m.added,
      installCommand: m.installCommand,
      written: summary.written.includes(m.path),
      patch: buildFilePatch({ path: toPosix(m.path), before: m.before, after: m.after }),
    })),
  };
}

function buildDecision(decision: Decision): JsonDecision {
  const out: JsonDecision = { kind: decision.kind, reason: null, hint: null, line: null, sdk: null, style: null, notes: [], already: null };
  switch (decision.kind) {
    case 'sdk':
      return { ...out, sdk: decision.sdk, style: decision.style, notes: decision.notes, already: decision.already ?? null };
    case 'boundary':
      return { ...out, sdk: decision.sdk, reason: decision.reason, hint: decision.hint, line: decision.line ?? null, notes: decision.notes };
    case 'envelope':
    case 'leave':
      return { ...out, reason: decision.reason, hint: decision.hint, line: decision.line ?? null };
    case 'none':
      return out;
    default:
      return assertNever(decision);
  }
}

export function renderJson(summary: RunSummary): string {
  return `${JSON.stringify(buildJsonReport(summary), null, 2)}\n`;
}
