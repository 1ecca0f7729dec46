// The command line: flags -> safety checks (terminal, git) -> scan -> review/apply -> summary, report
// and exit code. The only module that decides what goes to stdout/stderr; it never calls process.exit
// (bin/mcp-migrate.js sets process.exitCode from the returned code). Every outside effect the tests
// need to control — streams, terminal, environment, cwd, the prompt, git, the pipeline — is a CliDeps.
import { lstat, realpath, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { assertNever } from '../model/assert-never.js';
import { resolveChangedScope } from '../runner/changed.js';
import {
  acquireWriteLock,
  findStaleTempFiles,
  getWriteScope,
  LockBusyError,
  recoverJournals,
  removeStaleLock,
  removeStaleTempFiles,
  resolveLockPath,
  writeReportFile,
  type LockOwner,
  type WriteLock,
} from '../runner/commit.js';
import { isCandidatePath, isInside, resolveGitRoot, toPosix } from '../runner/discover.js';
import { escapeText } from './escape.js';
import { checkCleanTree, createGitClient, type CleanTreeCheck, type GitClient } from '../runner/git.js';
import { type LockfileRunner, runLockfileCommand, updateLockfiles } from '../runner/lockfile.js';
import type { ProcessFile, ScanOptions, ScanResult } from '../runner/scan.js';
import { createWorkspacePath, isGitHubActions, renderAnnotations } from './annotations.js';
import { parseCliArgs, USAGE, VERIFY_USAGE, type CliOptions } from './args.js';
import { createProgressLine, createProofProgress } from './progress.js';
import { createTerminalPager, type Pager } from './pager.js';
import { createTerminalPrompt } from './prompt.js';
import { createTerminalEditor } from './editor.js';
import { createPaint, shouldColor } from './render.js';
import { getToolVersion } from './version.js';
import { renderReport } from './report/index.js';
import type { Editor, EditProof } from './review.js';
import type { ReviewOutcome, ReviewPrompt } from './review-types.js';
import type { FileResult, ProofRecord } from '../model/types.js';
import { buildRunSummary, collectErrors, getNonCompliant, getPendingFiles, getUnfollowed, renderFileLines, renderSummary } from './summary.js';
import { buildPatch, getPatchEntries } from './patch.js';

/** Warnings printed one by one; past twice as many, the first this many and a count. */
const MAX_WARNINGS_SHOWN = 10;

export const EXIT_OK = 0;
export const EXIT_PENDING = 1;
export const EXIT_USAGE = 2;
export const EXIT_FAILED = 3;
/** Ctrl-C at a review question (128 + SIGINT, what a shell reports for a process stopped by Ctrl-C). */
export const EXIT_INTERRUPTED = 130;

/** Where text goes. `isTTY` decides colors (and, for stderr, the progress line). */
export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface CliDeps {
  stdout: OutputStream;
  stderr: OutputStream;
  /** Whether the user can be asked (stdin and the stream the review is printed on are terminals). */
  isTTY: boolean;
  /** Read for NO_COLOR, GITHUB_ACTIONS and GITHUB_WORKSPACE. */
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Asks about one file or one hunk (default: a one-key question on the terminal). */
  prompt: ReviewPrompt;
  /** Shows a diff taller than the terminal (default: `$PAGER`, else `less -R`, on the review's terminal). */
  pager: Pager;
  /** The git safety check and --changed-since. */
  git: GitClient;
  /** The pipeline. When injected, files are processed inline with it; by default `processSource`, on worker threads for big runs. */
  process?: ProcessFile;
  /** How long to wait for another run's write lock before refusing (default LOCK_WAIT_MS). */
  lockWaitMs?: number;
  /** The review's `e` (default: $VISUAL / $EDITOR on the terminal). */
  editor?: Editor;
  /** Updates a lockfile after its package.json is written (default: runs the package manager). */
  lockfile?: LockfileRunner;
}

export async function main(argv: string[], deps: Partial<CliDeps> = {}): Promise<number> {
  // `mcp-migrate --dry-run | head` closes the pipe early; that is not an error worth a stack trace.
  if (deps.stdout === undefined) process.stdout.on('error', ignoreBrokenPipe);
  const stdout = deps.stdout ?? process.stdout;
  const stderr = deps.stderr ?? process.stderr;
  const parsed = parseCliArgs(argv, availableParallelism());
  switch (parsed.kind) {
    case 'help':
      stdout.write(parsed.topic === 'verify' ? VERIFY_USAGE : USAGE);
      return EXIT_OK;
    case 'version':
      stdout.write(`${getToolVersion()}\n`);
      return EXIT_OK;
    case 'usage-error':
      stderr.write(`mcp-migrate: ${parsed.message}\nRun "mcp-migrate ${parsed.topic === 'verify' ? 'verify ' : ''}--help" for usage.\n`);
      return EXIT_USAGE;
    case 'verify': {
      // Loaded here: the migration path never needs the probe engine, nor verify the parser.
      const { runVerify } = await import('./verify.js');
      try {
        return await runVerify(parsed.options, { stdout, stderr, env: deps.env ?? process.env, cwd: deps.cwd ?? process.cwd() });
      } catch (err) {
        stderr.write(`mcp-migrate: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
        return EXIT_FAILED;
      }
    }
    case 'run':
      break;
  }
  const options = parsed.options;
  // With a report on stdout, stdout carries only the report; everything for humans goes to stderr.
  const human = (options.report !== null && options.output === null) || options.patch === '-' ? stderr : stdout;
  const resolved: CliDeps = {
    stdout,
    stderr,
    // The review is shown (and asked) on the human stream, so that one and stdin must be terminals.
    isTTY: deps.isTTY ?? Boolean(process.stdin.isTTY && human.isTTY),
    env: deps.env ?? process.env,
    cwd: deps.cwd ?? process.cwd(),
    prompt: deps.prompt ?? createTerminalPrompt(human === stderr ? process.stderr : process.stdout, process.stdin),
    pager: deps.pager ?? createTerminalPager(human === stderr ? process.stderr : process.stdout, deps.env ?? process.env),
    git: deps.git ?? createGitClient(),
    process: deps.process,
    lockWaitMs: deps.lockWaitMs,
    lockfile: deps.lockfile,
    // the terminal editor goes with the terminal prompt (an injected prompt brings its own editor, or none)
    editor: deps.editor ?? (deps.prompt === undefined ? createTerminalEditor(deps.env ?? process.env) : undefined),
  };
  try {
    return await runCli(options, resolved, human);
  } catch (err) {
    stderr.write(`mcp-migrate: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return EXIT_FAILED;
  }
}

async function runCli(options: CliOptions, deps: CliDeps, human: OutputStream): Promise<number> {
  const { stderr, cwd } = deps;
  const out = (text: string): void => void human.write(text);
  const paint = createPaint(shouldColor(human.isTTY, deps.env));

  // 1. Usage errors that need no scan: nobody to ask, a --changed-since ref git does not know, or a dirty work tree.
  if (options.mode === 'apply' && !options.yes && !deps.isTTY) {
    stderr.write(
      'mcp-migrate: no terminal to review the changes on (stdin or stdout is not a TTY).\n' +
        'Pass --yes to apply without asking, --dry-run to only print the diffs, or --check to exit 1 while a migration is pending.\n',
    );
    return EXIT_USAGE;
  }
  // A path that does not exist is a typo on the command line (usage), not a file that failed (3).
  for (const path of options.paths) {
    // (a name Node.js could not decode is left to discovery, which says why)
    if (!path.includes('\uFFFD') && (await lstat(resolve(cwd, path)).catch(() => null)) === null) {
      stderr.write(`mcp-migrate: ${path}: no such file or directory\nRun "mcp-migrate --help" for usage.\n`);
      return EXIT_USAGE;
    }
  }
  const reportTarget = options.output === null ? null : resolve(cwd, options.output);
  const patchTarget = options.patch === null || options.patch === '-' ? null : resolve(cwd, options.patch);
  for (const [flag, target] of [['--output', reportTarget], ['--patch', patchTarget]] as const) {
    if (target === null) continue;
    const refusal = await getOutputRefusal(target, options.paths.map((path) => resolve(cwd, path)), []);
    if (refusal !== null) {
      stderr.write(`mcp-migrate: ${flag} ${toPosix(relative(cwd, target))}: ${refusal}\n`);
      return EXIT_USAGE;
    }
  }
  let only: ReadonlySet<string> | undefined;
  if (options.changedSince !== null) {
    const changed = await getChangedFiles(deps, options.paths, options.changedSince);
    if (changed === null) return EXIT_USAGE;
    only = changed;
    out(`Looking only at files changed since ${options.changedSince} (${changed.size} changed in the work tree).\n`);
  }
  // A run killed between the renames of a rewrite of several files left a journal: finish it first, so
  // that neither the clean-tree check nor the scan sees half a migration.
  const journalDir = options.mode === 'apply' ? dirname(await resolveLockPath(await getTargetDirs(options.paths, cwd))) : undefined;
  if (journalDir !== undefined) {
    const recovered = await recoverJournals(journalDir);
    if (recovered.finished.length > 0) out(`Finished writing ${recovered.finished.length} file(s) an interrupted run had begun: ${recovered.finished.map((p) => escapeText(toPosix(relative(cwd, p)))).join(', ')}\n`);
    for (const failure of recovered.failed) stderr.write(paint.warn(`warning: ${escapeText(toPosix(relative(cwd, failure.path)))}: ${failure.message}\n`));
  }
  if (options.mode === 'apply' && !options.force) {
    const { dirty, refused } = await getDirtyTargets(deps.git, options.paths, cwd);
    if (refused.length > 0) {
      stderr.write(
        'mcp-migrate: git will not vouch for the work tree, so the changes could not be reviewed and reverted with git; fix the repository, or pass --force:\n' +
          `${refused.map((line) => `  ${escapeText(line)}`).join('\n')}\n`,
      );
      return EXIT_USAGE;
    }
    if (dirty.length > 0) {
      const listed = dirty.map((path) => `  ${escapeText(toPosix(relative(cwd, path)) || '.')}`).join('\n');
      stderr.write(
        'mcp-migrate: the git work tree has uncommitted changes; commit or stash them first so the migration can be reviewed and reverted, or pass --force:\n' +
          `${listed}\n`,
      );
      return EXIT_USAGE;
    }
  }

  // 2. Compute every change.
  const progress = createProgressLine((text) => void stderr.write(text), stderr.isTTY === true);
  // Loaded here, not at the top: --help, --version and usage errors should not pay for the parser.
  const { scanFiles } = await import('../runner/scan.js');
  const scanOptions: ScanOptions = {
    paths: options.paths,
    cwd,
    sdk: options.sdk,
    style: options.style,
    guardStdout: options.guardStdout,
    jobs: options.jobs ?? undefined,
    process: deps.process,
    only,
    ignore: options.ignore,
    include: options.include,
  };
  let scan: ScanResult;
  try {
    scan = await scanFiles({ ...scanOptions, onProgress: (p) => progress.update(p) });
  } finally {
    progress.clear();
  }
  // Names come from the scanned tree: every printed one is escaped (no newline, ESC or other control
  // character reaches the terminal or a CI log raw). Reports get them as they are (their formats quote).
  const relativeName = (path: string): string => toPosix(relative(scan.root, path)) || '.';
  const display = (path: string): string => escapeText(relativeName(path));
  // (a tree that warns of thousands of things, a workspace of 100,000 patterns that match nothing: the first ten and a count)
  const shownWarnings = scan.warnings.length > MAX_WARNINGS_SHOWN * 2 ? scan.warnings.slice(0, MAX_WARNINGS_SHOWN) : scan.warnings;
  for (const warning of shownWarnings) stderr.write(paint.warn(`warning: ${escapeText(warning)}\n`));
  if (shownWarnings.length < scan.warnings.length) stderr.write(paint.warn(`warning: … and ${(scan.warnings.length - shownWarnings.length).toLocaleString('en-US')} more warnings like these\n`));
  // 2b. The proof (default for a run that writes; --verify for --check and --dry-run): each rewritten
  //     server runs next to its original in temp copies; a rewrite that answers worse is replaced by the
  //     next option of the chain here, before the review sees it.
  let refused = 0;
  /** The proof's verdicts as the reports carry them, when it ran in this run. */
  let proofs: Map<string, ProofRecord> | null = null;
  if (options.verify !== 'off') {
    const { runVerifyStep } = await import('./verify-step.js');
    const step = await runVerifyStep({
      scan,
      out,
      paint,
      display,
      timeoutMs: options.verifyTimeoutMs,
      calls: options.verify,
      withholdUnverified: options.mode === 'apply' && options.yes && !options.allowUnverified,
      ...(options.jobs === null ? {} : { concurrency: options.jobs }),
      rescan: (refusedRewrites) => scanFiles({ ...scanOptions, refused: refusedRewrites }),
      progress: createProofProgress((text) => void stderr.write(text), stderr.isTTY === true, display),
    });
    if (step.interrupted) {
      stderr.write('mcp-migrate: interrupted while verifying; nothing was written.\n');
      return EXIT_INTERRUPTED;
    }
    scan = step.scan;
    refused = step.refused + step.withheld;
    proofs = step.proofs;
  }

  const scope = getWriteScope(scan);
  for (const [flag, target] of [['--output', reportTarget], ['--patch', patchTarget]] as const) {
    if (target === null) continue;
    // Now that the scan knows every file it read and would write, the exact check.
    const refusal = await getOutputRefusal(target, [], [...scan.results.map((r) => r.path), ...scope.paths]);
    if (refusal !== null) {
      stderr.write(`mcp-migrate: ${flag} ${toPosix(relative(cwd, target))}: ${refusal}\n`);
      return EXIT_USAGE;
    }
  }
  // The patch is what the run would write, taken before anything is: paths relative to the repository's
  // top (where `git apply` reads them from), else to the run's root.
  const patchBase = (await resolveGitRoot(scan.root)) ?? scan.root;
  const patchText = options.patch === null ? '' : buildPatch(getPatchEntries(scan, (path) => toPosix(relative(patchBase, path))));

  // 3. Show (and in a real run, apply) each change. A real run writes under the tree's write lock, after
  //    removing the temp files an interrupted run left (a dry run only names them).
  const stale = await findStaleTempFiles(scope.dirs);
  let lock: WriteLock | null = null;
  if (options.mode === 'apply' && scope.dirs.length > 0) {
    const lockPath = await resolveLockPath(scope.dirs);
    const describeOwner = (owner: LockOwner | null): string => (owner === null ? '' : ` (pid ${owner.pid}, since ${owner.since})`);
    if (getPendingFiles(scan).length > 0 || stale.length > 0) {
      try {
        lock = await acquireWriteLock(lockPath, { waitMs: deps.lockWaitMs, scope: scope.dirs });
      } catch (err) {
        if (!(err instanceof LockBusyError)) throw err;
        stderr.write(
          `mcp-migrate: another run is writing in this tree: ${escapeText(err.message)}. Nothing was written.\n` +
            `Run again once it has finished (if no run is going on, delete ${escapeText(err.lockPath)}; a lock from another host counts as left over after 6 hours).\n`,
        );
        return EXIT_FAILED;
      }
      if (lock.tookOverFrom !== null) out(`Took over the write lock ${lockPath} left by an interrupted run${describeOwner(lock.tookOverFrom)}.\n`);
    } else {
      // Nothing to write, so no lock to take; but a lock a killed run left is not left behind.
      const removed = await removeStaleLock(lockPath);
      if (removed !== undefined) out(`Removed the write lock ${lockPath} left by an interrupted run${describeOwner(removed)}.\n`);
    }
  }
  let outcome: ReviewOutcome;
  try {
    if (stale.length > 0) {
      if (lock === null) {
        stderr.write(paint.warn(`warning: ${stale.length} temp file(s) left by an interrupted run (the next run that applies changes removes them): ${stale.map(display).join(', ')}\n`));
      } else {
        const swept = await removeStaleTempFiles(stale);
        if (swept.removed.length > 0) out(`Removed ${swept.removed.length} temp file(s) left by an interrupted run: ${swept.removed.map(display).join(', ')}\n`);
        for (const failure of swept.failed) stderr.write(paint.warn(`warning: ${display(failure.path)}: temp file left by an interrupted run; ${failure.message}\n`));
      }
    }
    // loaded here: --help, --version and usage errors never need it
    const { reviewChanges } = await import('./review.js');
    outcome = await reviewChanges({
      scan,
      mode: options.mode,
      yes: options.yes,
      prompt: deps.prompt,
      pager: deps.pager,
      options: { sdk: options.sdk, style: options.style, guardStdout: options.guardStdout },
      process: deps.process,
      out,
      paint,
      display,
      journalDir,
      fullDiff: options.fullDiff,
      quiet: options.summary,
      editor: deps.editor,
      ...(options.verify === 'off' ? {} : { verifyEdit: (result: FileResult, text: string) => proveEdit(scan, result, text, options, deps.env) }),
    });
  } finally {
    await lock?.release();
  }

  // The lockfiles of the package.json files written, brought up to date by their package manager.
  if (options.mode === 'apply' && options.lockfile && outcome.written.length > 0 && !outcome.interrupted) {
    const updates = await updateLockfiles(scan.manifests, new Set(outcome.written), deps.lockfile ?? runLockfileCommand);
    for (const update of updates) {
      const where = display(update.dir) || '.';
      if (update.outcome.ok) out(`Updated the lockfile in ${where} (\`${update.command.join(' ')}\`).\n`);
      else stderr.write(paint.warn(`warning: the lockfile in ${where} was not updated (\`${update.command.join(' ')}\`: ${escapeText(update.outcome.reason)}); run \`${update.installCommand}\` there before \`npm ci\` or a pull request's checks.\n`));
    }
  }

  // 4. Errors, summary, exit code, report.
  const errors = collectErrors(scan, options.mode === 'apply' ? outcome : null).map((error) => ({ ...error, message: escapeText(error.message) }));
  const errorPaint = createPaint(shouldColor(stderr.isTTY, deps.env));
  for (const error of errors) stderr.write(errorPaint.error(`error: ${display(error.path)}: ${error.message}\n`));
  // --check fails while a migration is pending, a server left alone still breaks the protocol, or one was not followed
  // (and while a lockfile lacks the SDK its package.json declares: `npm ci` fails there)
  const pending = getPendingFiles(scan).length > 0 || scan.manifests.length > 0 || getNonCompliant(scan).length > 0 || getUnfollowed(scan).length > 0 || (scan.staleLockfiles ?? []).length > 0;
  // a rewrite the proof refused or withheld is a migration that did not happen: 1, as for --check, unless only a dry run
  const notMigrated = options.mode === 'check' ? pending || refused > 0 : options.mode === 'apply' && refused > 0;
  let exitCode = errors.length > 0 ? EXIT_FAILED : notMigrated ? EXIT_PENDING : EXIT_OK;
  const scanned = only === undefined ? options.paths.map((path) => resolve(cwd, path)) : undefined;
  const summaryInput = { scan, mode: options.mode, outcome: options.mode === 'apply' ? outcome : null, errors, display, paint, scanned, proven: options.verify !== 'off' };
  out(options.summary ? renderFileLines(summaryInput) : renderSummary(summaryInput));
  // Ctrl-C: stop here; no report, no annotations for a run the user broke off.
  if (outcome.interrupted) return EXIT_INTERRUPTED;
  // Workflow commands ride with the human text: on stdout, or on stderr when stdout carries the report
  // (the runner reads commands from both).
  if (isGitHubActions(deps.env)) {
    out(renderAnnotations({ results: scan.results, errors, applied: new Set(outcome.applied), path: createWorkspacePath(deps.env, cwd) }));
  }

  if (options.patch === '-') deps.stdout.write(patchText);
  else if (patchTarget !== null) {
    try {
      await writeReportFile(patchTarget, patchText);
      out(`Patch written to ${toPosix(relative(cwd, patchTarget))}${patchText === '' ? ' (empty: nothing to change)' : ` (apply it with \`git apply\` in ${toPosix(relative(cwd, patchBase)) || '.'})`}.\n`);
    } catch (err) {
      stderr.write(`mcp-migrate: cannot write the patch to ${options.patch}: ${err instanceof Error ? err.message : String(err)}\n`);
      exitCode = EXIT_FAILED;
    }
  }

  if (options.report !== null) {
    const report = renderReport(options.report, buildRunSummary(scan, options.mode, options.mode === 'apply' ? outcome : null, exitCode, relativeName, proofs));
    if (options.output === null) {
      deps.stdout.write(report);
    } else if (reportTarget !== null) {
      try {
        await writeReportFile(reportTarget, report);
        out(`Report written to ${toPosix(relative(cwd, reportTarget))}.\n`);
      } catch (err) {
        stderr.write(`mcp-migrate: cannot write the report to ${options.output}: ${err instanceof Error ? err.message : String(err)}\n`);
        exitCode = EXIT_FAILED;
      }
    }
  }
  return exitCode;
}

/**
 * Why --output may not name `target`, or null. Never a package.json; never a file the run reads or
 * writes: before the scan, a JavaScript/TypeScript path inside (or equal to) a scanned target; after it,
 * any path in `files`. Compared both as given and with symbolic links resolved.
 */
async function getOutputRefusal(target: string, scanned: readonly string[], files: readonly string[]): Promise<string | null> {
  const real = await realpath(target).catch(async () => join(await realpath(dirname(target)).catch(() => dirname(target)), basename(target)));
  const forms = [target, real];
  if (forms.some((form) => basename(form) === 'package.json')) return 'is a package.json; refusing to replace it with the report (name a report file such as mcp-migrate-report.json)';
  const sources = await Promise.all(scanned.map(async (path) => [path, await realpath(path).catch(() => path)]));
  const inScan = forms.some((form) => isCandidatePath(form) && sources.some((pair) => pair.some((source) => isInside(source, form))));
  const own = new Set(files);
  if (inScan || forms.some((form) => own.has(form))) {
    return 'is a source file this run scans or writes; refusing to replace it with the report (name a report file outside the sources, such as mcp-migrate-report.json)';
  }
  return null;
}

/** The proof a write gets, for the user's edit of a proposal: null when it answers as well as the original, else the differences. */
async function proveEdit(scan: ScanResult, result: FileResult, text: string, options: CliOptions, env: NodeJS.ProcessEnv): Promise<EditProof> {
  const { verifyRewrites, describeVerdictDifferences } = await import('../runner/verify-run.js');
  const target: FileResult = { ...result, after: text };
  const edited: ScanResult = { ...scan, results: scan.results.map((r) => (r.path === result.path ? target : r)) };
  const [verdict] = await verifyRewrites(edited, {
    targets: [target],
    env,
    clientInfo: { name: 'mcp-migrate', version: getToolVersion() },
    calls: options.verify === 'calls' ? 'calls' : 'safe',
    ...(options.verifyTimeoutMs === undefined ? {} : { timeoutMs: options.verifyTimeoutMs }),
  });
  if (verdict === undefined) return { ok: 'not run' };
  switch (verdict.kind) {
    case 'equal':
      return { ok: 'proven: run next to the original, it answers as well' };
    case 'different':
      return { refused: describeVerdictDifferences(verdict) };
    case 'not-verified':
      // as for the tool's own proposal: shown with the reason, the user decides
      return { ok: `NOT_VERIFIED: it could not be run (${verdict.reason})` };
    default:
      return assertNever(verdict);
  }
}

function ignoreBrokenPipe(err: NodeJS.ErrnoException): void {
  if (err.code !== 'EPIPE') throw err;
}

/** --changed-since: the files changed since `ref` (absolute paths), or null after saying on stderr why there are none to ask for. */
async function getChangedFiles(deps: CliDeps, paths: readonly string[], ref: string): Promise<ReadonlySet<string> | null> {
  const scope = await resolveChangedScope(deps.git, paths, deps.cwd, ref);
  const shown = (path: string): string => toPosix(relative(deps.cwd, path)) || '.';
  switch (scope.kind) {
    case 'ok':
      return scope.files;
    case 'not-a-repo':
      deps.stderr.write(`mcp-migrate: --changed-since needs a git work tree, and ${shown(scope.path)} is not inside one.\n`);
      return null;
    case 'unknown-ref':
      deps.stderr.write(
        `mcp-migrate: --changed-since: unknown git ref "${ref}" (no such branch, tag or commit in the repository of ${shown(scope.path)}).\n` +
          'In CI, fetch it first: check out with the full history (actions/checkout with fetch-depth: 0) or run `git fetch origin <branch>`.\n',
      );
      return null;
    default:
      return assertNever(scope);
  }
}

/** Dirty entries of the git work trees holding the targets (targets that do not exist are skipped). */
async function getDirtyTargets(git: GitClient, paths: readonly string[], cwd: string): Promise<CleanTreeCheck> {
  return checkCleanTree(git, await getTargetDirs(paths, cwd));
}

/** The directories the given paths name (a file: its directory); paths that do not exist are skipped. */
async function getTargetDirs(paths: readonly string[], cwd: string): Promise<string[]> {
  const dirs: string[] = [];
  for (const path of paths) {
    const target = resolve(cwd, path);
    const stats = await stat(target).catch(() => null);
    if (stats === null) continue;
    dirs.push(stats.isDirectory() ? target : dirname(target));
  }
  return dirs.length > 0 ? dirs : [cwd];
}

