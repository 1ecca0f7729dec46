// The compute half of a run: discover -> read -> prefilter -> pipeline (inline or on worker threads)
// -> plan the package.json and companion-file changes. Everything a review needs comes back as data;
// nothing is written, printed or prompted here (commit.ts writes, src/cli talks to the user).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { FileResult, ManifestChange, ModuleKind, PipelineOptions, RefusedRewrites, SdkTarget, Style } from '../model/types.js';
import { ENTRY_WORDS } from '../prefilter.js';
import { getHint } from '../model/reasons.js';
import { describeFsError, discoverFiles, resolveGitRoot, isInside, MAX_SOURCE_BYTES, toPosix, type ExcludedDirectory, type Problem } from './discover.js';
import { addDependencies, getMissingDependencies, hasDependency, INSTALLED_FIELDS, LOCKFILE_NAMES, ManifestCache, resolveSdkTarget, SDK_DEPENDENCIES, type Manifest } from './manifest.js';
import { createWorkerPool, getWorkerUrl, type WorkerPool } from './pool.js';
import { readModuleSync } from './read-module.js';
import { createScope, type SkippedTree } from './scope.js';
import { getWriteRefusal, type WriteBounds } from './confine.js';
import { WriteChecks } from './write-checks.js';
import { WorkspaceCache, type Workspace } from './workspaces.js';
import { findCodemod } from './codemod.js';
import { findMissingInLockfile, type StaleLockfile } from './lockfile-state.js';
import { compareStrings, expandRelated, isPartOfImporter, resolveSharedModules } from './shared-modules.js';
import { findStdinImporters, type Importer, readCandidate } from './stdin-importers.js';

/**
 * The pipeline in this thread, loaded on first need: the parser and the analysis stay unloaded on a run
 * whose files the prefilter all rejects (their load is most of what such a run would cost).
 */
async function loadInlinePipeline(): Promise<ProcessFile> {
  const { processSource } = await import('../pipeline.js');
  return (p, s, o) => processSource(p, s, o, readModuleSync);
}

/** The pipeline entry, injectable so tests can feed deterministic results (defaults to `processSource`). */
export type ProcessFile = (path: string, source: string, options: PipelineOptions) => FileResult | Promise<FileResult>;

/** How long the read loop runs before it lets the candidates it started reach the workers. */
const YIELD_EVERY_MS = 8;

export interface ScanOptions {
  paths: readonly string[];
  cwd: string;
  sdk: SdkTarget | 'auto';
  style: Style;
  /** See PipelineOptions.guardStdout (default true). */
  guardStdout?: boolean;
  /** Worker threads; 1 processes inline. Default: the number of cores. */
  jobs?: number;
  /** When given, files are processed inline with it (functions cannot cross into workers). */
  process?: ProcessFile;
  /** When given (absolute paths: --changed-since), discovered files outside it are not looked at. */
  only?: ReadonlySet<string>;
  onProgress?: (progress: ScanProgress) => void;
  /** Rewrites a side-by-side run refused, per file (absolute path): the plan goes on down the chain. */
  refused?: ReadonlyMap<string, RefusedRewrites>;
  /** `--ignore` / `--include` globs (gitignore syntax, relative to the scanned directory). */
  ignore?: readonly string[];
  include?: readonly string[];
}

export interface ScanProgress {
  scanned: number;
  candidates: number;
}

/** A package.json change, with what the review and the install hint need. Paths are absolute. */
export interface PlannedManifest {
  change: ManifestChange;
  /** The package directory (where the package.json is). */
  packageDir: string;
  /** Where the install command should run (lockfile directory or workspace root). */
  installDir: string;
  /** The command that updates the lockfile in installDir after the package.json is written (when there is one). */
  lockfile?: string[];
  /** Migrated files that need the change, sorted. */
  files: string[];
}

/** A new file the pipeline asked for, written once however many files asked. */
export interface PlannedCompanion {
  path: string;
  content: string;
  files: string[];
}

export interface PackageGroup {
  /** Directory of the package.json, or null for files with no package.json above them. */
  dir: string | null;
  name: string | null;
  files: string[];
}

export interface ScanResult {
  /** Directory report paths are relative to: the cwd, or the targets' common ancestor when they lie outside it. */
  root: string;
  scanned: number;
  candidates: number;
  /** One result per candidate, absolute paths, sorted. `after` is only set when the file is to change. */
  results: FileResult[];
  /** Paths that could not be looked at (missing, unreadable, invalid package.json), each with the reason. */
  problems: Problem[];
  warnings: string[];
  manifests: PlannedManifest[];
  /** Lockfiles that lack SDK packages their package.json declares (not those of a package.json this run plans to change: their update follows the write). */
  staleLockfiles?: StaleLockfile[];
  companions: PlannedCompanion[];
  packages: PackageGroup[];
  workspace: Workspace | null;
  /** Directories discovery did not enter because of their name (node_modules, build output outside git). */
  excluded: ExcludedDirectory[];
  /** Where the run may write (confine.ts): checked here when planning, and again by each write. */
  bounds?: WriteBounds;
  /** Nested git checkouts and non-member packages inside a scanned directory, not looked into (scope.ts). */
  skippedTrees?: SkippedTree[];
  /** Discovered files `--ignore` / `--include` left out. */
  ignoredByPattern?: number;
}

/** Computes every change a run would make, without writing anything. */
export async function scanFiles(options: ScanOptions): Promise<ScanResult> {
  const root = await resolveRoot(options.paths, options.cwd);
  // On worker threads, the first worker starts now: it loads the parser on another core while this thread
  // walks and reads the tree (a tree with no candidate stops it unused).
  const jobs = Math.max(1, options.jobs ?? availableParallelism());
  const workerUrl = options.process === undefined && jobs > 1 ? getWorkerUrl() : null;
  const pool: WorkerPool | null = workerUrl === null ? null : createWorkerPool(jobs, workerUrl);
  pool?.start();
  try {
    return await scanWith(options, root, pool);
  } finally {
    await pool?.close();
  }
}

async function scanWith(options: ScanOptions, root: string, pool: WorkerPool | null): Promise<ScanResult> {
  const workspaces = new WorkspaceCache();
  const targets = (options.paths.length === 0 ? ['.'] : options.paths).map((p) => resolve(options.cwd, p));
  const only = options.only;
  const problems: Problem[] = [];
  const progress: ScanProgress = { scanned: 0, candidates: 0 };
  const report = (): void => options.onProgress?.({ ...progress });

  // 1. Read every file discovery finds, as it finds it, and keep the ones that may hold a server (the
  //    cheap text prefilter).
  // 2. Run the pipeline on each candidate. On worker threads (a run of more than one job from the compiled
  //    tool), a candidate goes to the workers as soon as it is read, while this thread walks and reads on
  //    (more workers start while many wait: pool.ts). Inline (one job, the tests), the candidates run once
  //    every file is read, and a tree without candidates never loads the parser.
  // Outside any repository the package.json search stops at the scanned root; inside one, at its root.
  const manifests = new ManifestCache((await resolveGitRoot(root)) === null ? root : null);
  const checks = new WriteChecks(root);
  let inline: Promise<ProcessFile> | null = null;
  const getRun = async (): Promise<ProcessFile> => {
    if (options.process !== undefined) return options.process;
    if (pool === null) return (inline ??= loadInlinePipeline());
    return (p, s, o) => pool.run(p, s, o);
  };
  const sources = new Map<string, string>();
  const codemods = new Map<string, string | null>();
  const getCodemod = (dir: string): string | null => {
    if (!codemods.has(dir)) codemods.set(dir, findCodemod(dir));
    return codemods.get(dir)!;
  };
  const processCandidate = async (path: string, extra: Partial<PipelineOptions> = {}): Promise<FileResult> => {
    const source = sources.get(path) ?? '';
    const manifest = await manifests.getNearest(dirname(path));
    const sdk = options.sdk === 'auto' ? resolveSdkTarget(manifest) : options.sdk;
    const moduleKind = resolveModuleKind(path, manifest);
    const fileOptions: PipelineOptions = { sdk, style: options.style, moduleKind, guardStdout: options.guardStdout ?? true, upgradeSdk: options.sdk !== 'v1', ...refusedFor(options.refused, path) };
    // `--sdk v2` asks for the current generation everywhere: a server on SDK v1 moves with the official
    // codemod, where one is installed (asked only of files naming v1). `auto` keeps a package on v1 there.
    if (options.sdk === 'v2' && source.includes('@modelcontextprotocol/sdk')) {
      const codemod = getCodemod(manifest?.dir ?? dirname(path));
      if (codemod !== null) fileOptions.codemod = codemod;
    }
    const run = await getRun();
    const result = normalizeResult(path, source, await runSafely(run, path, source, { ...fileOptions, ...extra }));
    checks.prepare(result, manifest);
    return result;
  };
  const started = new Map<string, Promise<FileResult>>();
  const start = (path: string): void => {
    const task = processCandidate(path);
    // awaited with the others below; until then a failure (the pipeline cannot load) is not unhandled
    task.catch(() => undefined);
    started.set(path, task);
  };
  const early: FileResult[] = [];
  // files that import relative modules but do not pass the prefilter themselves: an entry whose server
  // and stdin loop live in a module it imports (`createServer(info).start()` in a two-line entry)
  const importers = new Map<string, Importer>();
  const stdinModules = new Set<string>();
  let lastYield = performance.now();
  const tooLarge: { path: string; reason: string }[] = [];
  const readFiles = async (files: readonly string[]): Promise<void> => {
    for (const path of files) {
      const read = readCandidate(path);
      if (read.kind === 'too-large') {
        tooLarge.push({ path, reason: read.reason });
        continue;
      }
      progress.scanned++;
      if (read.kind === 'problem') problems.push({ path, message: read.message });
      else if (read.kind === 'candidate') {
        progress.candidates++;
        if (read.error !== undefined) early.push(errorResult(path, read.source, read.error));
        else {
          sources.set(path, read.source);
          if (pool !== null) start(path);
        }
      } else if (read.kind === 'importer') {
        importers.set(path, { specifiers: read.specifiers, barrel: read.barrel });
      }
      if (read.kind !== 'problem' && read.readsStdin === true) stdinModules.add(path);
      report();
      // the reads are synchronous: let the started candidates find their package.json and reach a worker
      if (started.size > 0 && performance.now() - lastYield > YIELD_EVERY_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        lastYield = performance.now();
      }
    }
  };
  const scope = await createScope(targets, options.cwd, { ignore: options.ignore, include: options.include }, workspaces);
  const discovery = await discoverFiles(options.paths, options.cwd, async (found, walked) => {
    const files = await scope.filter(found, walked);
    await readFiles(only === undefined ? files : files.filter((path) => only.has(path)));
  });
  const scoped = scope.result();
  problems.unshift(...discovery.problems);
  const warnings: string[] = [...discovery.warnings, ...notePythonServers(discovery.python, options.cwd)];
  // the candidates read last reach the worker before the import graph is searched
  if (started.size > 0) await new Promise((resolve) => setImmediate(resolve));
  for (const { path, depth } of findStdinImporters(importers, stdinModules)) {
    if (sources.has(path)) continue;
    // (its bytes were not kept: read again, now that it may be one)
    let source: string;
    try {
      source = readFileSync(path, 'utf8');
    } catch (err) {
      problems.push({ path, message: `cannot read: ${describeFsError(err)}` });
      continue;
    }
    // one import away it is a candidate whatever it says (a two-line entry); further, when it speaks JSON-RPC itself
    if (depth > 1 && !ENTRY_WORDS.test(source)) continue;
    progress.candidates++;
    sources.set(path, source);
  }
  importers.clear();
  // (with discovery's own warnings: the files it would have left out itself had it looked at their size)
  warnings.splice(discovery.warnings.length, 0, ...tooLarge.sort((a, b) => compareStrings(a.path, b.path)).map(({ path, reason }) => `${toPosix(relative(options.cwd, path)) || '.'}: ${reason}`));

  const candidates = [...sources.keys()].sort();
  let results = await Promise.all(candidates.map((path) => started.get(path) ?? processCandidate(path)));
  results = results.map((r) => (isPartOfImporter(r, results) ? { path: r.path, before: r.before, decision: { kind: 'none' }, fixes: [], findings: [], diagnostics: [] } : r));
  results = await resolveSharedModules(results, (path, sdkDeclined) => processCandidate(path, { sdkDeclined }));
  // no file goes to a worker after this: they stop while the plans below are worked out (scanFiles waits)
  void pool?.close();
  results = results.map(preferSources);
  results = expandRelated([...results, ...early]).sort((a, b) => compareStrings(a.path, b.path));

  // 3. Every file a rewrite changes must lie inside the bounds and hold exactly the bytes it was read
  //    from (valid UTF-8); else its whole rewrite (entry and modules) is refused.
  const bounds = await checks.bounds;
  await refuseUnwritable(results, checks);

  // 4. Plan the package.json changes and the companion files; refuse what cannot be done.
  const plannedCompanions = await planCompanions(results, root, bounds);
  const plannedManifests = await planManifests(results, manifests, root, problems, checks);
  // Either planner may refuse a file; what only refused files needed is not planned.
  const live = new Set(results.filter((r) => r.after !== undefined).map((r) => r.path));
  const companions = plannedCompanions.map((c) => ({ ...c, files: c.files.filter((f) => live.has(f)) })).filter((c) => c.files.length > 0);
  const manifestPlan = plannedManifests.map((m) => ({ ...m, files: m.files.filter((f) => live.has(f)) })).filter((m) => m.files.length > 0);
  const staleLockfiles = await findStaleLockfiles(results, manifests, manifestPlan, checks);
  const packages = await groupByPackage(results, manifests);
  const gitRoot = await resolveGitRoot(root);
  // never above the repository, nor, outside one, above the scanned root
  const workspace = await workspaces.resolve(root, gitRoot ?? root);
  if (workspace !== null) warnings.push(...workspace.warnings);
  for (const group of packages) {
    if (group.name === null && group.dir !== null) group.name = workspace?.packages.find((p) => p.dir === group.dir)?.name ?? null;
  }

  return {
    root,
    scanned: progress.scanned,
    candidates: progress.candidates,
    results,
    problems: problems.sort((a, b) => compareStrings(a.path, b.path)),
    warnings,
    manifests: manifestPlan,
    staleLockfiles,
    companions,
    packages,
    workspace,
    excluded: discovery.excluded,
    bounds,
    skippedTrees: scoped.skippedTrees,
    ignoredByPattern: scoped.ignored,
  };
}

/**
 * Refuses every rewrite that would write a file outside its bounds (confine.ts) or a file whose bytes on
 * disk are not the UTF-8 text the rewrite was computed from (invalid UTF-8 would be written back as
 * U+FFFD in code nobody touched), with all the results of the same rewrite: an entry and the modules it
 * changes are written together or not at all.
 */
async function refuseUnwritable(results: FileResult[], checks: WriteChecks): Promise<void> {
  for (const result of results) {
    if (result.after === undefined) continue;
    const why = await checks.getFileRefusal(result.path, result.before);
    if (why !== null) refuseGroup(results, result, why);
  }
}

/** Refuses `result` for `why`, and every other result of the same rewrite (its entry, the entry's other modules). */
function refuseGroup(results: FileResult[], result: FileResult, why: string): void {
  const owners = new Set([result.partOf ?? result.path, ...(result.alsoPartOf ?? [])]);
  for (const other of results) {
    if (other === result) refuseResult(other, why);
    else if (other.after !== undefined && (owners.has(other.path) || (other.partOf !== undefined && owners.has(other.partOf)))) {
      refuseResult(other, `its rewrite also changes ${basename(result.path)}, which ${why.replace(/; left untouched$/, '')}; left untouched`);
    }
  }
}

function refuseResult(result: FileResult, why: string): void {
  result.error = why;
  delete result.after;
  delete result.companions;
}

function refusedFor(refused: ScanOptions['refused'], path: string): Pick<PipelineOptions, 'refused'> {
  const entry = refused?.get(path);
  return entry === undefined ? {} : { refused: entry };
}

async function runSafely(run: ProcessFile, path: string, source: string, options: PipelineOptions): Promise<FileResult> {
  try {
    return await run(path, source, options);
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return errorResult(path, source, `internal error while processing this file: ${message}`);
  }
}

function errorResult(path: string, source: string, error: string): FileResult {
  return { path, before: source, decision: { kind: 'none' }, fixes: [], findings: [], diagnostics: [], error };
}

/** Our path and text win over whatever the pipeline echoed; an error or an unchanged text means no write. */
function normalizeResult(path: string, source: string, result: FileResult): FileResult {
  const normalized: FileResult = {
    ...result,
    path,
    before: source,
    fixes: result.fixes ?? [],
    findings: result.findings ?? [],
    diagnostics: result.diagnostics ?? [],
  };
  if (normalized.error !== undefined || normalized.after === source) delete normalized.after;
  if (normalized.after === undefined && !(normalized.related ?? []).length) delete normalized.companions;
  if (normalized.companions !== undefined) {
    normalized.companions = normalized.companions.map((c) => ({ path: resolve(dirname(path), c.path), content: c.content }));
  }
  return normalized;
}

async function planManifests(results: FileResult[], cache: ManifestCache, root: string, problems: Problem[], checks: WriteChecks): Promise<PlannedManifest[]> {
  const wanted = new Map<string, { manifest: Manifest; add: Record<string, string>; files: string[] }>();
  const invalid = new Set<string>();
  for (const result of results) {
    if (result.after === undefined || (result.decision.kind !== 'sdk' && result.decision.kind !== 'boundary')) continue;
    // a server already on the SDK imports nothing new: its manifest gains nothing (one moved from v1 gains v2)
    if (result.decision.kind === 'sdk' && result.decision.already !== undefined && result.decision.already !== 'v1') continue;
    const manifest = await cache.getNearest(dirname(result.path));
    if (manifest === null) {
      const names = Object.keys(SDK_DEPENDENCIES[result.decision.sdk]).join(' and ');
      result.diagnostics = [...result.diagnostics, { code: 'NO_PACKAGE_JSON', message: `no package.json above this file: add ${names} to your dependencies yourself` }];
      continue;
    }
    const outside = manifest.json === null ? null : await checks.getManifestRefusal(manifest.path);
    if (manifest.json === null || outside !== null) {
      const why = outside ?? manifest.unreadable;
      refuseForManifest(result, manifest, root, why);
      if (!invalid.has(manifest.path)) {
        invalid.add(manifest.path);
        problems.push({ path: manifest.path, message: `${why ?? `is not valid JSON (${manifest.parseError ?? 'unknown error'})`}; files under it were not migrated` });
      }
      continue;
    }
    const entry = wanted.get(manifest.path) ?? { manifest, add: {}, files: [] };
    Object.assign(entry.add, getMissingDependencies(manifest.json, SDK_DEPENDENCIES[result.decision.sdk]));
    entry.files.push(result.path);
    wanted.set(manifest.path, entry);
  }

  // each package's plan on its own: all at once, not one after another, what their ancestors say asked once
  const planned = await Promise.all(
    [...wanted.values()].map(async ({ manifest, add, files }): Promise<PlannedManifest | null> => {
      if (Object.keys(add).length === 0) return null;
      let after: string;
      try {
        after = addDependencies(manifest.text, add);
      } catch (err) {
        problems.push({ path: manifest.path, message: `cannot add the SDK dependency: ${(err as Error).message}` });
        for (const result of results) if (files.includes(result.path)) refuseForManifest(result, manifest, root, (err as Error).message);
        return null;
      }
      const install = await checks.getInstallPlan(manifest.dir);
      return {
        change: { path: manifest.path, before: manifest.text, after, added: sortRecord(add), installCommand: install.command },
        packageDir: manifest.dir,
        installDir: install.dir,
        ...(install.lockfile === undefined ? {} : { lockfile: install.lockfile }),
        files: [...files].sort(),
      };
    }),
  );
  return planned.filter((p): p is PlannedManifest => p !== null).sort((a, b) => compareStrings(a.change.path, b.change.path));
}

/**
 * The lockfile of each package a candidate belongs to, when its package.json declares an SDK package the
 * lockfile does not list: `npm ci` fails there until the package manager updates it (an earlier run's
 * update could not run: offline, no package manager).
 */
async function findStaleLockfiles(results: FileResult[], cache: ManifestCache, planned: PlannedManifest[], checks: WriteChecks): Promise<StaleLockfile[]> {
  const plannedPaths = new Set(planned.map((m) => m.change.path));
  const ours = [...new Set([...Object.keys(SDK_DEPENDENCIES.v1), ...Object.keys(SDK_DEPENDENCIES.v2)])].sort();
  const seen = new Set<string>();
  const stale: StaleLockfile[] = [];
  for (const result of results) {
    const manifest = await cache.getNearest(dirname(result.path));
    if (manifest === null || manifest.json === null || seen.has(manifest.path) || plannedPaths.has(manifest.path)) continue;
    seen.add(manifest.path);
    // (installed dependencies only: a peer dependency is the consumer's to install, and a yarn lockfile does not list it)
    const names = ours.filter((name) => hasDependency(manifest.json!, name, INSTALLED_FIELDS));
    if (!names.some((name) => name.startsWith('@modelcontextprotocol/'))) continue;
    const plan = await checks.getInstallPlan(manifest.dir);
    if (plan.lockfile === undefined) continue;
    // (the one the install plan found there)
    const lockPath = LOCKFILE_NAMES.map((name) => join(plan.dir, name)).find((path) => existsSync(path));
    if (lockPath === undefined) continue;
    const missing = await findMissingInLockfile(lockPath, manifest.dir, names);
    if (missing !== null && missing.length > 0) stale.push({ path: lockPath, manifest: manifest.path, missing, command: plan.lockfile, dir: plan.dir });
  }
  return stale.sort((a, b) => compareStrings(a.path, b.path));
}

function refuseForManifest(result: FileResult, manifest: Manifest, root: string, why?: string): void {
  const rel = toPosix(relative(root, manifest.path)) || 'package.json';
  result.error = why === undefined ? `cannot add the SDK dependency: ${rel} is not valid JSON` : `cannot add the SDK dependency to ${rel}: ${why}`;
  delete result.after;
  delete result.companions;
}

async function planCompanions(results: FileResult[], root: string, bounds: WriteBounds): Promise<PlannedCompanion[]> {
  const byPath = new Map<string, PlannedCompanion>();
  for (const result of results) {
    if (result.after === undefined || result.companions === undefined) continue;
    for (const companion of result.companions) {
      const outside = await getWriteRefusal(companion.path, bounds.sources);
      if (outside !== null) {
        refuseGroup(results, result, `needs ${toPosix(relative(root, companion.path))}, which ${outside}`);
        break;
      }
      const planned = byPath.get(companion.path);
      if (planned === undefined) {
        byPath.set(companion.path, { path: companion.path, content: companion.content, files: [result.path] });
      } else if (planned.content === companion.content) {
        planned.files.push(result.path);
      } else {
        const rel = (p: string): string => toPosix(relative(root, p));
        result.error = `needs ${rel(companion.path)} with other content than ${rel(planned.files[0])} does; left untouched`;
        delete result.after;
        delete result.companions;
        break;
      }
    }
  }
  // A companion that already exists with the same content needs no write; with other content it is
  // never overwritten, and the files that need it are refused.
  const planned: PlannedCompanion[] = [];
  for (const companion of byPath.values()) {
    let existing: string | null = null;
    try {
      existing = await readFile(companion.path, 'utf8');
    } catch {
      existing = null;
    }
    if (existing === null) planned.push(companion);
    else if (existing !== companion.content) {
      for (const result of results) {
        if (!companion.files.includes(result.path)) continue;
        result.error = `needs to create ${toPosix(relative(root, companion.path))}, which already exists with other content; left untouched`;
        delete result.after;
        delete result.companions;
      }
    } else {
      for (const result of results) {
        if (result.companions !== undefined) result.companions = result.companions.filter((c) => c.path !== companion.path);
      }
    }
  }
  return planned.sort((a, b) => compareStrings(a.path, b.path));
}

async function groupByPackage(results: FileResult[], cache: ManifestCache): Promise<PackageGroup[]> {
  const groups = new Map<string, PackageGroup>();
  for (const result of results) {
    const manifest = await cache.getNearest(dirname(result.path));
    const key = manifest?.dir ?? '';
    const group = groups.get(key) ?? { dir: manifest?.dir ?? null, name: typeof manifest?.json?.name === 'string' ? manifest.json.name : null, files: [] };
    group.files.push(result.path);
    groups.set(key, group);
  }
  return [...groups.values()].sort((a, b) => compareStrings(a.dir ?? '', b.dir ?? ''));
}

/** The cwd when every target is inside it, else the deepest directory holding all targets. */
export async function resolveRoot(paths: readonly string[], cwd: string): Promise<string> {
  const targets = (paths.length === 0 ? ['.'] : paths).map((p) => resolve(cwd, p));
  if (targets.every((t) => isInside(cwd, t))) return cwd;
  let common = targets[0];
  for (const target of targets) {
    while (!isInside(common, target)) common = dirname(common);
  }
  const isDirectory = await stat(common).then((s) => s.isDirectory(), () => false);
  return isDirectory ? common : dirname(common);
}


function sortRecord(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compareStrings(a, b)));
}


/** ESM or CommonJS, as Node (and TypeScript's NodeNext) decide it: the extension, else the package `type`. */
export function resolveModuleKind(path: string, manifest: Manifest | null): ModuleKind {
  if (/\.m[jt]s$/i.test(path)) return 'esm';
  if (/\.c[jt]s$/i.test(path)) return 'cjs';
  return manifest?.json?.['type'] === 'module' ? 'esm' : 'cjs';
}

/** A Python file that imports json, reads sys.stdin and names MCP's handshake or tools list: most likely an MCP server. */
const PYTHON_MCP_SERVER = [/^\s*(?:import\s+[\w, ]*\bjson\b|from\s+json\s+import)/m, /\bsys\.stdin\b/, /['"](?:initialize|tools\/list)['"]/];

/** One line per Python file that looks like an MCP server: the tool handles JavaScript and TypeScript only, and says so rather than pass it over. */
function notePythonServers(paths: readonly string[], cwd: string): string[] {
  const out: string[] = [];
  for (const path of paths) {
    let source: string;
    try {
      if (statSync(path).size > MAX_SOURCE_BYTES) continue;
      source = readFileSync(path, 'utf8');
    } catch {
      continue;
    }
    if (PYTHON_MCP_SERVER.every((re) => re.test(source))) out.push(`${toPosix(relative(cwd, path)) || path}: looks like an MCP server written in Python; not handled (mcp-migrate rewrites JavaScript and TypeScript servers only)`);
  }
  return out;
}

/** Folders compilers write to: a file in one whose source is in the tree is not the file to migrate. */
const BUILD_FOLDER = /[\\/](?:dist|build|out|lib)[\\/]/;
const SOURCE_EXTENSIONS = ['.ts', '.mts', '.cts', '.tsx'];

/**
 * A server found in build output (a committed `dist/server.js`) whose TypeScript source is in the tree
 * (named by its `//# sourceMappingURL` map, or the same path under `src/`): the source is what gets
 * migrated (it is scanned like any other file); the build output is left alone with COMPILED_OUTPUT,
 * named as compiled output of that source, so a rebuild makes it again rather than overwrite the rewrite.
 */
function preferSources(result: FileResult): FileResult {
  if (result.decision.kind === 'none' || result.error !== undefined || !BUILD_FOLDER.test(result.path)) return result;
  const source = findCompiledSource(result.path, result.before);
  if (source === null) return result;
  // named from the folder holding the build folder (`src/server.ts` for `dist/server.js`)
  const shown = toPosix(relative(result.path.slice(0, BUILD_FOLDER.exec(result.path)!.index) || '/', source));
  const { after: _after, related: _related, companions: _companions, ...rest } = result;
  return {
    ...rest,
    decision: { kind: 'leave', reason: 'COMPILED_OUTPUT', hint: getHint('COMPILED_OUTPUT') },
    fixes: [],
    diagnostics: [...result.diagnostics, { code: 'COMPILED_OUTPUT', message: `compiled output of ${shown}: the source is what gets migrated; rebuild to update this file` }],
  };
}

/** The TypeScript source a compiled file was built from, when it is in the tree: its source map's first source, or the same path under src/. */
function findCompiledSource(path: string, text: string): string | null {
  const mapUrl = /\/\/[#@] sourceMappingURL=([^\s'"]+)\s*$/.exec(text)?.[1];
  if (mapUrl !== undefined && !mapUrl.startsWith('data:')) {
    try {
      const mapPath = resolve(dirname(path), mapUrl);
      const map = JSON.parse(readFileSync(mapPath, 'utf8')) as { sources?: unknown; sourceRoot?: unknown };
      const first = Array.isArray(map.sources) && typeof map.sources[0] === 'string' ? map.sources[0] : null;
      const root = typeof map.sourceRoot === 'string' ? map.sourceRoot : '';
      const candidate = first === null ? null : resolve(dirname(mapPath), root, first);
      if (candidate !== null && SOURCE_EXTENSIONS.some((ext) => candidate.endsWith(ext)) && isFile(candidate)) return candidate;
    } catch {
      // no readable map: try the conventional layout
    }
  }
  const match = BUILD_FOLDER.exec(path);
  if (match === null) return null;
  const stem = `${path.slice(0, match.index)}${path[match.index]}src${path.slice(match.index + match[0].length - 1)}`.replace(/\.[cm]?js$/, '');
  for (const ext of SOURCE_EXTENSIONS) if (isFile(stem + ext)) return stem + ext;
  return null;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
