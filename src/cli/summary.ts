// End of a run: the human summary (counts, files left alone and why, errors, install commands, per
// package in a monorepo) and the RunSummary the reporters render. Returns data and strings only.
import { type FileResult, isEraUpgrade, type ManifestChange, type ProofRecord, type RunSummary } from '../model/types.js';
import { isInside, type ExcludedDirectory, type Problem } from '../runner/discover.js';
import type { ScanResult } from '../runner/scan.js';
import type { SkippedTree } from '../runner/scope.js';
import type { RunMode } from './args.js';
import { describeDecision, isStdoutOnlyRewrite, type Paint } from './render.js';
import type { ReviewOutcome } from './review-types.js';

/** The files a run would change (their rewrite is pending). */
export function getPendingFiles(scan: ScanResult): FileResult[] {
  return scan.results.filter((r) => r.after !== undefined);
}

/** Everything that could not be processed or written, in one list (each makes the run exit 3). */
export function collectErrors(scan: ScanResult, outcome: ReviewOutcome | null): Problem[] {
  return [
    ...scan.problems,
    ...scan.results.filter((r) => r.error !== undefined).map((r) => ({ path: r.path, message: r.error ?? '' })),
    ...(outcome?.failed ?? []),
  ];
}

/** Results worth reporting: anything but a plain "not a server" with nothing to say. */
function isReportable(result: FileResult): boolean {
  return result.decision.kind !== 'none' || result.error !== undefined || result.after !== undefined || result.findings.length > 0 || result.diagnostics.length > 0;
}

/**
 * `proofs`: the proof's verdicts on what is planned now, by entry path (verify-step.ts); null when the
 * proof did not run in this run. A file the rewrite of another entry changes gets that entry's.
 */
export function buildRunSummary(scan: ScanResult, mode: RunMode, outcome: ReviewOutcome | null, exitCode: number, display: (path: string) => string, proofs: ReadonlyMap<string, ProofRecord> | null = null): RunSummary {
  const failed = new Map((outcome?.failed ?? []).map((f) => [f.path, f.message]));
  const files: FileResult[] = scan.results.filter(isReportable).map((result) => {
    const copy: FileResult = { ...result, path: display(result.path), findings: result.findings.map((f) => (f.file === undefined ? f : { ...f, file: display(f.file) })) };
    if (result.companions !== undefined) copy.companions = result.companions.map((c) => ({ path: display(c.path), content: c.content }));
    const writeError = failed.get(result.path);
    if (writeError !== undefined) copy.error = writeError;
    return copy;
  });
  for (const problem of scan.problems) {
    files.push({ path: display(problem.path), before: '', decision: { kind: 'none' }, fixes: [], findings: [], diagnostics: [], error: problem.message });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const manifests: ManifestChange[] = scan.manifests.map((m) => ({ ...m.change, path: display(m.change.path) }));
  const proofOf: Record<string, ProofRecord> = {};
  for (const result of scan.results) {
    const proof = proofs?.get(result.partOf ?? result.path);
    if (proof !== undefined && (result.after !== undefined || result.partOf === undefined)) proofOf[display(result.path)] = proof;
    else if (result.after !== undefined && result.error === undefined) proofOf[display(result.path)] = { status: 'not-run', detail: null, seconds: null };
  }
  return {
    root: scan.root,
    mode,
    files,
    manifests,
    written: (outcome?.written ?? []).map(display),
    exitCode,
    proofs: proofOf,
  };
}


export interface SummaryInput {
  scan: ScanResult;
  mode: RunMode;
  outcome: ReviewOutcome | null;
  errors: Problem[];
  display: (path: string) => string;
  paint: Paint;
  /**
   * The targets scanned in full (absolute). Workspace packages under them that produced no result are
   * summed up as having nothing to migrate. Left out when only some files were looked at (--changed-since).
   */
  scanned?: readonly string[];
  /** Whether the proof ran in this run (a dry run or check without --verify shows proposals not yet proven). */
  proven?: boolean;
}

export function renderSummary({ scan, mode, outcome, errors, display, paint, scanned, proven }: SummaryInput): string {
  const lines: string[] = [];
  // A few paths on the label's line; more, one per line under it.
  const list = (paths: string[]): string => (paths.length <= 3 ? paths.map(display).join(', ') : paths.map((p) => `\n    ${display(p)}`).join(''));
  const applied = new Set(outcome?.applied ?? []);
  const pending = scan.results.filter((r) => r.after !== undefined);
  const sdk = pending.filter((r) => r.decision.kind === 'sdk' && r.decision.already === undefined);
  const upgraded = pending.filter((r) => isEraUpgrade(r.decision));
  const stdoutOnly = pending.filter((r) => isStdoutOnlyRewrite(r.decision));
  const boundary = pending.filter((r) => r.decision.kind === 'boundary');
  const envelope = pending.filter((r) => r.decision.kind === 'envelope');
  const leave = scan.results.filter((r) => r.decision.kind === 'leave' && r.error === undefined);
  const dry = mode !== 'apply';

  lines.push(paint.bold(`\nScanned ${plural(scan.scanned, 'file')}, ${plural(scan.candidates, 'candidate')}.`));
  const excluded = getExcludedDirectories(scan);
  if (excluded.length > 0) lines.push(`  not scanned, by rule: ${describeExcluded(excluded, display)}`);
  const trees = scan.skippedTrees ?? [];
  if (trees.length > 0) lines.push(`  not scanned, not part of this project: ${describeSkippedTrees(trees, display)} (name it or --include it to scan it)`);
  if ((scan.ignoredByPattern ?? 0) > 0) lines.push(`  left out by --ignore/--include: ${plural(scan.ignoredByPattern ?? 0, 'file')}`);
  const counted = (label: string, files: FileResult[]): void => {
    const shown = dry ? files : files.filter((f) => applied.has(f.path));
    if (shown.length > 0) lines.push(`  ${label} (${shown.length}): ${list(shown.map((f) => f.path))}`);
  };
  counted(dry ? 'would move to the SDK' : 'moved to the SDK', sdk);
  counted(dry ? 'would be upgraded to the 2026-07-28 era' : 'upgraded to the 2026-07-28 era', upgraded);
  counted(dry ? 'already on the SDK, stdout writes would move to stderr' : 'already on the SDK, stdout writes moved to stderr', stdoutOnly);
  counted(dry ? 'would move to the SDK at the boundary' : 'moved to the SDK at the boundary', boundary);
  counted(dry ? 'would get the JSON-RPC envelope' : 'got the JSON-RPC envelope', envelope);
  // Files whose change is pending but none of the rewrites (a pipeline may still set `after`).
  counted(dry ? 'would change' : 'changed', pending.filter((r) => r.decision.kind !== 'sdk' && r.decision.kind !== 'boundary' && r.decision.kind !== 'envelope'));
  if (outcome !== null && outcome.partial.length > 0) {
    lines.push(`  partly applied, migration still pending (${outcome.partial.length}): ${list(outcome.partial)}`);
  }
  if (outcome !== null && outcome.skipped.length > 0) lines.push(`  not applied (${outcome.skipped.length}): ${list(outcome.skipped)}`);
  if (leave.length > 0) {
    lines.push(`  left alone (${leave.length}):`);
    for (const r of leave) {
      lines.push(`    ${display(r.path)}: ${describeDecision(r.decision).replace(/^left alone: /, '')}`);
      // what stays broken, so it can be fixed by hand
      for (const f of r.findings.filter((x) => !x.fixed)) lines.push(`      ${display(f.file ?? r.path)}:${f.line}:${f.column} ${f.rule}: ${f.message}`);
    }
  }
  // The reasons are on stderr too ("error: <path>: <reason>"); repeated here, since a log's tail is often
  // all a reader sees of a run (a CI step, a batch runner).
  if (errors.length > 0) {
    const reasons = new Map<string, string>();
    for (const e of errors) if (!reasons.has(e.path)) reasons.set(e.path, e.message);
    lines.push(paint.error(`  could not be processed (${reasons.size}):`));
    for (const [path, why] of reasons) lines.push(paint.error(`    ${display(path)}: ${why}`));
  }
  for (const stale of scan.staleLockfiles ?? []) {
    lines.push(`  lockfile out of date: ${display(stale.path)} lacks ${stale.missing.join(', ')}, which ${display(stale.manifest)} declares (\`npm ci\` fails there); run \`${stale.command.join(' ')}\` in ${display(stale.dir) || '.'}`);
  }
  if (pending.length === 0 && errors.length === 0 && (scan.staleLockfiles ?? []).length === 0) lines.push('  Nothing to migrate.');

  const packages = scan.packages.filter((p) => p.files.some((f) => isReportableOrError(scan, f)));
  // Workspace packages that were scanned but had nothing to say: named when few, counted when many.
  const listedDirs = new Set(packages.map((p) => p.dir));
  const quiet = (scan.workspace?.packages ?? []).filter((p) => !listedDirs.has(p.dir) && (scanned ?? []).some((target) => isInside(target, p.dir)));
  if ((scan.packages.length > 1 || packages.length + quiet.length > 1) && packages.length > 0) {
    lines.push('Packages:');
    for (const group of packages) {
      const label = group.dir === null ? '(no package.json)' : `${group.name ?? '(unnamed)'} (${display(group.dir) || '.'})`;
      lines.push(`  ${label}: ${describeGroup(scan, group.files, errors, outcome)}`);
    }
    if (quiet.length > 0 && quiet.length <= 3) lines.push(`  nothing to migrate: ${quiet.map((p) => `${p.name ?? '(unnamed)'} (${display(p.dir) || '.'})`).join(', ')}`);
    else if (quiet.length > 3) lines.push(`  nothing to migrate in the ${quiet.length} other workspace packages`);
  }

  // One line per install command and package set; several directories (independent packages) are listed under it.
  const prefix = dry ? 'After applying, run' : 'Next, run';
  for (const install of groupInstalls(scan, mode, outcome)) {
    const dirs = install.dirs.map((dir) => display(dir) || '.');
    if (dirs.length === 1) lines.push(paint.bold(`${prefix} \`${install.command}\` in ${dirs[0]} to install ${install.names.join(', ')}.`));
    else lines.push(paint.bold(`${prefix} \`${install.command}\` to install ${install.names.join(', ')} in each of:`), ...dirs.map((dir) => `  ${dir}`));
  }
  if (mode === 'check' && pending.length > 0) {
    lines.push(`${plural(pending.length, 'file')} ${pending.length === 1 ? 'has' : 'have'} a pending migration; run mcp-migrate without --check to review and apply.`);
  }
  const broken = getNonCompliant(scan);
  if (mode === 'check' && broken.length > 0) {
    lines.push(`${plural(broken.length, 'server')} left alone ${broken.length === 1 ? 'breaks' : 'break'} the protocol (findings above); fix ${broken.length === 1 ? 'it' : 'them'} by hand or add // mcp-migrate-ignore.`);
  }
  const unfollowed = getUnfollowed(scan);
  if (mode === 'check' && unfollowed.length > 0) {
    const reasons = [...new Set(unfollowed.map((r) => (r.decision.kind === 'leave' ? r.decision.reason : '')))].join(', ');
    lines.push(`${plural(unfollowed.length, 'file')} ${unfollowed.length === 1 ? 'looks' : 'look'} like a hand-rolled MCP server the tool cannot take (${reasons} above); migrate ${unfollowed.length === 1 ? 'it' : 'them'} by hand or add // mcp-migrate-ignore.`);
  }
  if (mode === 'dry-run' && pending.length > 0) lines.push('Dry run: nothing was written.');
  // what --yes would write can still change: the proof decides, and it has not run here
  if (mode !== 'apply' && proven === false && pending.some((r) => r.decision.kind !== 'none')) {
    lines.push('These proposals are not proven yet: `--yes` runs each migrated server next to its original first and writes only what answers as well (a refused form gives way to the next); `--verify` proves them in this run.');
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Files that look like hand-rolled MCP servers the tool cannot take: their input is not followed, they run
 * on a runtime it does not rewrite (Deno, Bun), or entries that share a server module need rewrites of it
 * no one change fits. Neither migrated nor known compliant, so `--check` fails on them rather than pass a
 * server it never moved.
 */
export function getUnfollowed(scan: ScanResult): FileResult[] {
  return scan.results.filter((r) => r.decision.kind === 'leave' && r.error === undefined && UNTAKEN.has(r.decision.reason));
}

const UNTAKEN: ReadonlySet<string> = new Set(['UNFOLLOWED_INPUT', 'UNSUPPORTED_RUNTIME', 'SHARED_MODULE_CONFLICT']);

/**
 * `--summary`: one line per file with something to say, then one totals line and the install commands.
 *   packages/a/server.js: would move to the SDK (v1, Server); 3 findings, 3 fixed
 *   packages/b/server.js: left alone (UNSUPPORTED_RUNTIME); 1 finding, 0 fixed
 */
export function renderFileLines({ scan, mode, outcome, errors, display, paint }: SummaryInput): string {
  const dry = mode !== 'apply';
  const applied = new Set(outcome?.applied ?? []);
  const partial = new Set(outcome?.partial ?? []);
  const failed = new Map(errors.map((e) => [e.path, e.message]));
  const lines: string[] = [];
  const rows = [...scan.results.filter(isReportable).map((r) => r.path), ...scan.problems.map((p) => p.path)];
  for (const path of [...new Set(rows)].sort()) {
    const result = scan.results.find((r) => r.path === path);
    const error = failed.get(path) ?? result?.error;
    let what: string;
    if (error !== undefined) what = paint.error(`error: ${error}`);
    else if (result === undefined) continue;
    else if (result.after !== undefined) {
      const state = dry ? 'would ' : applied.has(path) ? '' : partial.has(path) ? 'partly applied, still pending: would ' : 'not applied: would ';
      const done = state === '';
      switch (result.decision.kind) {
        case 'sdk':
          what = isStdoutOnlyRewrite(result.decision)
            ? `already on the SDK: stdout writes ${done ? 'moved' : `${state}move`} to stderr`
            : isEraUpgrade(result.decision)
              ? `${done ? 'upgraded' : `${state}upgrade`} to the 2026-07-28 era (serveStdio)`
              : `${done ? 'moved' : `${state}move`} to the SDK (${result.decision.sdk}, ${result.decision.style === 'server' ? 'Server' : 'McpServer'})`;
          break;
        case 'boundary':
          what = `${done ? 'moved' : `${state}move`} to the SDK at the boundary (${result.decision.sdk}, ${result.decision.reason})`;
          break;
        case 'envelope':
          what = `${done ? 'got' : `${state}get`} the JSON-RPC envelope (${result.decision.reason})`;
          break;
        default:
          what = done ? 'changed' : `${state}change`;
      }
    } else if (result.decision.kind === 'leave') what = `left alone (${result.decision.reason})`;
    else what = 'no change';
    const findings = result?.findings ?? [];
    const counts = findings.length === 0 ? '' : `; ${plural(findings.length, 'finding')}, ${findings.filter((f) => f.fixed).length} fixed`;
    lines.push(`${display(path)}: ${what}${counts}`);
  }
  const pending = scan.results.filter((r) => r.after !== undefined);
  const written = pending.filter((r) => applied.has(r.path)).length;
  const left = scan.results.filter((r) => r.decision.kind === 'leave' && r.error === undefined).length;
  const totals = [`${plural(scan.scanned, 'file')} scanned`, dry ? `${pending.length} pending` : `${written} written, ${pending.length - written} not`, `${left} left alone`, plural(errors.length, 'error')];
  const trees = scan.skippedTrees ?? [];
  if (trees.length > 0) totals.push(`${trees.length} nested ${trees.length === 1 ? 'tree' : 'trees'} not scanned`);
  lines.push(paint.bold(`mcp-migrate: ${totals.join(', ')}.`));
  const prefix = dry ? 'After applying, run' : 'Next, run';
  for (const install of groupInstalls(scan, mode, outcome)) {
    const dirs = install.dirs.map((dir) => display(dir) || '.');
    lines.push(`${prefix} \`${install.command}\` in ${dirs.join(', ')} to install ${install.names.join(', ')}.`);
  }
  return `${lines.join('\n')}\n`;
}

/** Directories discovery did not enter because of their name (DiscoveryResult.excluded). */
export function getExcludedDirectories(scan: ScanResult): readonly ExcludedDirectory[] {
  return scan.excluded ?? [];
}

/**
 * Servers left alone that still break the protocol: their findings no rewrite fixes. `--check` fails on
 * them (a gate that passed them would hide a server clients hang on), except those the user excluded
 * with `// mcp-migrate-ignore`, which are listed but do not fail the run.
 */
export function getNonCompliant(scan: ScanResult): FileResult[] {
  // (a transport nothing here starts is judged with the server that starts it, not alone)
  return scan.results.filter((r) => r.decision.kind === 'leave' && r.error === undefined && r.decision.reason !== 'IGNORED' && r.decision.reason !== 'NOT_STARTED' && r.findings.some((f) => !f.fixed));
}

const EXCLUDED_WHY: Readonly<Record<string, string>> = { node_modules: 'dependencies', dist: 'build output', build: 'build output', coverage: 'coverage output' };

/** `node_modules/ (dependencies), web/dist/ (build output)`; past three directories, counted per rule. */
export function describeExcluded(excluded: readonly ExcludedDirectory[], display: (path: string) => string): string {
  const why = (rule: string): string => EXCLUDED_WHY[rule] ?? 'by name';
  let text: string;
  if (excluded.length <= 3) {
    text = excluded.map((e) => `${display(e.path)}/ (${why(e.rule)})`).join(', ');
  } else {
    const counts = new Map<string, number>();
    for (const e of excluded) counts.set(e.rule, (counts.get(e.rule) ?? 0) + 1);
    text = [...counts].map(([rule, n]) => `${n} ${rule}/ (${why(rule)})`).join(', ');
  }
  // Build output is only skipped by name outside a git work tree; inside one, git decides.
  const byName = excluded.some((e) => e.rule !== 'node_modules');
  return byName ? `${text}; not in a git work tree, so build folders are skipped by name (in one, committed files there are scanned)` : text;
}

/** `vendor/tool/ (nested git checkout), test/fixtures/pkg/ (package, not a workspace member)`; past three, counted. */
export function describeSkippedTrees(trees: readonly SkippedTree[], display: (path: string) => string): string {
  const why = (kind: SkippedTree['kind']): string => (kind === 'git' ? 'nested git checkout' : 'package, not a workspace member');
  if (trees.length <= 3) return trees.map((t) => `${display(t.path)}/ (${why(t.kind)})`).join(', ');
  const git = trees.filter((t) => t.kind === 'git');
  const pkg = trees.filter((t) => t.kind === 'package');
  const parts: string[] = [];
  if (git.length > 0) parts.push(`${plural(git.length, 'nested git checkout')} (${git.slice(0, 2).map((t) => `${display(t.path)}/`).join(', ')}${git.length > 2 ? ', …' : ''})`);
  if (pkg.length > 0) parts.push(`${plural(pkg.length, 'package')} that are not workspace members (${pkg.slice(0, 2).map((t) => `${display(t.path)}/`).join(', ')}${pkg.length > 2 ? ', …' : ''})`);
  return parts.join(', ');
}

function isReportableOrError(scan: ScanResult, path: string): boolean {
  const result = scan.results.find((r) => r.path === path);
  return result !== undefined && isReportable(result);
}

function describeGroup(scan: ScanResult, files: string[], errors: Problem[], outcome: ReviewOutcome | null): string {
  // In a real run, count what was applied; in a dry run, what would be.
  const results = scan.results.filter((r) => files.includes(r.path) && (r.after === undefined || outcome === null || outcome.applied.includes(r.path)));
  const parts: string[] = [];
  const count = (n: number, label: string): void => {
    if (n > 0) parts.push(`${n} ${label}`);
  };
  count(results.filter((r) => r.after !== undefined && r.decision.kind === 'sdk').length, 'to the SDK');
  count(results.filter((r) => r.after !== undefined && r.decision.kind === 'boundary').length, 'to the SDK at the boundary');
  count(results.filter((r) => r.after !== undefined && r.decision.kind === 'envelope').length, 'envelope');
  count(results.filter((r) => r.decision.kind === 'leave' && r.error === undefined).length, 'left alone');
  const failed = errors.filter((e) => files.includes(e.path)).length;
  count(failed, failed === 1 ? 'error' : 'errors');
  return parts.length > 0 ? parts.join(', ') : 'nothing to do';
}

/** Install commands: one per directory, then directories with the same command and packages merged. In a real run, only for written manifests. */
function groupInstalls(scan: ScanResult, mode: RunMode, outcome: ReviewOutcome | null): { command: string; names: string[]; dirs: string[] }[] {
  const written = new Set(outcome?.written ?? []);
  const byDir = new Map<string, { command: string; dir: string; names: string[] }>();
  for (const manifest of scan.manifests) {
    if (mode === 'apply' && !written.has(manifest.change.path)) continue;
    const key = `${manifest.installDir}\0${manifest.change.installCommand}`;
    const entry = byDir.get(key) ?? { command: manifest.change.installCommand, dir: manifest.installDir, names: [] };
    for (const name of Object.keys(manifest.change.added)) if (!entry.names.includes(name)) entry.names.push(name);
    byDir.set(key, entry);
  }
  const merged = new Map<string, { command: string; names: string[]; dirs: string[] }>();
  for (const entry of byDir.values()) {
    const names = [...entry.names].sort();
    const key = `${entry.command}\0${names.join(',')}`;
    const group = merged.get(key) ?? { command: entry.command, names, dirs: [] };
    group.dirs.push(entry.dir);
    merged.set(key, group);
  }
  return [...merged.values()];
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
