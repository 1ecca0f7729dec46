// The proof: before anything is written, each rewritten server is run twice — as it is and as the
// rewrite would leave it — each in a trial copy of its package (./sandbox.ts: writes confined to the
// trial, no network), and the two are compared request by request (src/verify/compare.ts); a rewrite
// that serves the 2026-07-28 era is asked again by a client pinned to it (src/verify/era.ts). A rewrite
// whose server answers differently is refused, and the chain goes on past it (runner/prove.ts: SDK at
// the dispatcher -> at the boundary -> envelope -> left alone). Files in, verdicts out; nothing is
// printed here, and nothing outside the trial is written.
//
// It deliberately runs only what it can run as the project would: `node <file>` for JavaScript, the
// project's own tsx for TypeScript (never `npx`, which may download one), with the dependencies the
// project has installed. Anything else is "not verified", with the reason.
import { existsSync, readFileSync, readdirSync, lstatSync, realpathSync } from 'node:fs';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { type FileResult, isEraUpgrade, servesBothEras } from '../model/types.js';
import { getHint } from '../model/reasons.js';
import { MCP_METHOD_NAMES } from '../model/mcp-methods.js';
import { compareContracts, compareServers, type CompareResult, type ContractDiff, withPackagePath } from '../verify/compare.js';
import type { Framing } from '../verify/framing.js';
import { describeWireChange, type WireChange } from '../model/wire-changes.js';
import { askModernEra, type EraAnswers, judgeModernEra, MODERN_REVISION } from '../verify/era.js';
import { type VerifyOptions, verifyServer } from '../verify/probe.js';
import { VERIFY_RUN_TIMEOUT_MS } from '../verify/timeouts.js';
import { isInside } from './discover.js';
import { copyPackage, createTrial, getTrialEnv, isNodeModulesCache, placeInSurroundings, realpathSafe, removeStaleTrials, safeReaddir, type Trial } from './sandbox.js';
import { findDocumentedLaunch } from './launch.js';
import { SDK_DEPENDENCIES } from './manifest.js';
import { findLentPackage } from '../vendor.js';
import type { ScanResult } from './scan.js';

/** A package with more files than this (node_modules and .git aside) is not copied. */
const MAX_COPY_FILES = 20_000;
/** Nor one with more bytes than this: it is copied twice into the temp directory (a 1 GB data file was). */
export const MAX_COPY_BYTES = 200 * 1024 * 1024;
/** Directories never copied (node_modules is linked instead). */
const SKIPPED_DIRS = new Set(['node_modules', '.git']);

export type VerifyVerdict =
  /** `modern`: the listings a client pinned to the 2026-07-28 revision was offered as a 2025-era one (set when the rewrite serves that era). */
  /** `startedAs`: the documented command the servers were started with, when not the entry file alone (launch.ts). */
  | { kind: 'equal'; path: string; diff: ContractDiff; ms: number; modern?: string[]; modernProblem?: string; startedAs?: string }
  | { kind: 'different'; path: string; diff: ContractDiff | null; why: string; ms: number }
  | { kind: 'not-verified'; path: string; reason: string; ms: number };

export interface VerifyRunOptions {
  timeoutMs?: number;
  /** The servers' environment (default: this process's); HOME and the XDG directories are replaced. */
  env?: NodeJS.ProcessEnv;
  /** Servers verified at once (default: the cores, at least 2: most of the time goes to waiting). */
  concurrency?: number;
  clientInfo: { name: string; version: string };
  signal?: AbortSignal;
  /** Called when a server's proof starts. */
  onStart?: (target: FileResult) => void;
  /** Called when a server's verdict is in, with the result it was given. */
  onVerdict?: (verdict: VerifyVerdict, target: FileResult) => void;
  /** `safe` (default): no tool is called with valid arguments; `calls`: one valid call per tool. */
  calls?: 'safe' | 'calls';
  /** Verify only these results (default: every target of the scan). */
  targets?: readonly FileResult[];
}

/**
 * The results --verify runs: rewritten entry points (a file another rewrite changes goes with that one),
 * an entry whose rewrite changes only modules it imports included (its own text stays as it is).
 */
export function getVerifyTargets(scan: ScanResult): FileResult[] {
  return scan.results.filter((r) => r.partOf === undefined && r.decision.kind !== 'none' && r.decision.kind !== 'leave' && (r.after !== undefined || scan.results.some((o) => isPartOf(o, r.path) && o.after !== undefined)));
}

/** Everything a target's rewrite writes, as one text: a verdict holds for exactly this. */
export function getRewriteSignature(scan: ScanResult, target: FileResult): string {
  const changes = scan.results.filter((r) => (r.path === target.path || isPartOf(r, target.path)) && r.after !== undefined).map((r) => [r.path, r.after]);
  return JSON.stringify(changes.sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0)));
}

export async function verifyRewrites(scan: ScanResult, options: VerifyRunOptions): Promise<VerifyVerdict[]> {
  // what a run that was killed left behind (its trials, their servers) goes first
  await removeStaleTrials();
  const targets = options.targets ?? getVerifyTargets(scan);
  const verdicts: VerifyVerdict[] = new Array(targets.length);
  const concurrency = Math.max(1, options.concurrency ?? Math.max(2, availableParallelism()));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < targets.length && options.signal?.aborted !== true) {
      const index = next++;
      options.onStart?.(targets[index]!);
      const verdict = await verifyRewrite(scan, targets[index]!, options);
      verdicts[index] = verdict;
      options.onVerdict?.(verdict, targets[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, targets.length) }, worker));
  return verdicts.filter((v) => v !== undefined);
}

/** A verdict some side's silence makes: initialize unanswered on either side, or a difference where only the migrated server left a request unanswered (an exchange, or a rule's probe). */
function restsOnTimeout(compared: Extract<CompareResult, { kind: 'compared' }>): boolean {
  if (compared.original.contract.initialize === null || compared.migrated.contract.initialize === null) return true;
  if (compared.equal) return false;
  // a rule only the migrated server breaks by a missing reply (ping, an unknown method: not waited for
  // once a later request came back, syncUnanswered)
  if (compared.differences.some((d) => d.aspect === 'rule' && /: no reply\b/.test(d.migrated))) return true;
  return compared.migrated.contract.exchanges.some((e) => e.outcome.kind === 'no-reply' && compared.original.contract.exchanges.some((o) => o.key === e.key && o.outcome.kind !== 'no-reply'));
}

/** Where the package's surroundings in the trial start: the outermost folder the run's writes are bounded by (the repository, else the scanned folder). */
function getAnchor(scan: ScanResult, packageDir: string): string {
  const real = realpathSafe(packageDir);
  const outer = (scan.bounds?.sources ?? []).filter((bound) => isInside(bound.dir, real)).sort((a, b) => a.dir.length - b.dir.length)[0];
  return outer?.dir ?? packageDir;
}

/** Runs one rewritten server and its original in temp copies, and compares them. */
export async function verifyRewrite(scan: ScanResult, result: FileResult, options: VerifyRunOptions): Promise<VerifyVerdict> {
  const started = Date.now();
  const path = result.path;
  const notVerified = (reason: string): VerifyVerdict => ({ kind: 'not-verified', path, reason, ms: Date.now() - started });
  const packageDir = findPackageDir(path);
  const size = measurePackage(packageDir, MAX_COPY_FILES, MAX_COPY_BYTES);
  if (size.files > MAX_COPY_FILES) return notVerified(`its package has more than ${MAX_COPY_FILES} files to copy`);
  if (size.bytes > MAX_COPY_BYTES) return notVerified(`its package holds more than ${MAX_COPY_BYTES / 1024 / 1024} MB to copy (twice) into the temp directory`);
  if (size.special !== null) return notVerified(`its package holds ${size.special}, which is not copied`);
  const nodeModules = findNodeModules(packageDir);
  const runner = getRunner(path, nodeModules);
  if (typeof runner === 'string') return notVerified(runner);
  // The SDK the migrated server imports: the project's own when it has one installed, else the copy
  // this tool ships with (../vendor.ts; linked into the migrated copy only; nothing is installed in the user's tree).
  const lent: Array<{ name: string; dir: string }> = [];
  if (result.decision.kind === 'sdk' || result.decision.kind === 'boundary') {
    for (const name of Object.keys(SDK_DEPENDENCIES[result.decision.sdk])) {
      if (nodeModules.some((dir) => existsSync(join(dir, name, 'package.json')))) continue;
      const own = findLentPackage(result.decision.sdk, name);
      if (own === null) return notVerified(`the migrated server needs ${name}, installed neither for ${basename(packageDir)} nor with mcp-migrate`);
      lent.push({ name, dir: own });
    }
  }
  // What the rewrite writes besides this file: the files it also changes, the helper module it needs.
  const parts = scan.results.filter((r) => isPartOf(r, path) && r.after !== undefined);
  const extra = [
    ...parts.map((r) => ({ path: r.path, content: r.after as string })),
    ...scan.companions.filter((c) => c.files.includes(path) || parts.some((r) => c.files.includes(r.path))).map((c) => ({ path: c.path, content: c.content })),
  ];
  const outside = extra.find((file) => !isInside(packageDir, file.path));
  if (outside !== undefined) return notVerified(`its rewrite also writes ${outside.path}, outside its package`);

  // the trial: the servers write only inside it (./sandbox.ts)
  // (a trial that cannot be made is a server not verified, not a failed run)
  let trial: Trial;
  try {
    trial = await createTrial();
  } catch (err) {
    return notVerified(`could not set up the temp copy: ${err instanceof Error ? err.message : String(err)}`);
  }
  const root = trial.root;
  let stopEra = async (): Promise<void> => undefined;
  try {
    const copy = async (side: string): Promise<string> => {
      const dir = await placeInSurroundings(getAnchor(scan, packageDir), packageDir, join(root, side));
      await copyPackage(packageDir, dir, SKIPPED_DIRS);
      await linkNodeModules(dir, nodeModules);
      if (side !== 'original') await lendPackages(dir, lent);
      return dir;
    };
    // a rewrite that serves the 2026-07-28 era too is asked by a client pinned to it, in a copy of its
    // own, beside the 2025-era comparison (judged against it once that is in)
    const bothEras = servesBothEras(result.decision);
    const [original, migrated, modern] = await Promise.all([copy('original'), copy('migrated'), bothEras ? copy('modern') : null]);
    for (const dir of modern === null ? [migrated] : [migrated, modern]) {
      const inCopy = (file: string): string => join(dir, relative(packageDir, file));
      if (result.after !== undefined) await writeFile(inCopy(path), result.after);
      for (const file of extra) {
        await mkdir(dirname(inCopy(file.path)), { recursive: true });
        await writeFile(inCopy(file.path), file.content);
      }
    }
    // The entry file alone, or first as the package documents starting it (launch.ts); a documented
    // command whose original does not start falls back to the entry alone.
    const plain: Start = { command: runner.command, args: [...runner.args, relative(packageDir, path)], label: [runner.label, relative(packageDir, path)].join(' ') };
    let start = getDocumentedStart(packageDir, path, getAnchor(scan, packageDir), nodeModules) ?? plain;
    const side = (cwd: string): VerifyOptions => ({
      command: start.command,
      args: start.args,
      cwd,
      env: getTrialEnv(options.env ?? process.env, trial, cwd),
      framing: getFraming(result),
      timeoutMs: options.timeoutMs ?? VERIFY_RUN_TIMEOUT_MS,
      clientInfo: options.clientInfo,
      methods: getCustomMethods(result),
      calls: options.calls ?? 'safe',
      signal: options.signal,
      syncUnanswered: true,
    });
    // the wire changes the rewrite lists in its header (--style mcp-server) are expected; nothing else is
    // and, seen only here, fields of the server's own in its initialize answer, which the SDK does not send
    const expected: WireChange[] = result.decision.kind === 'sdk' || result.decision.kind === 'boundary' ? [...(result.decision.wireChanges ?? []), 'INITIALIZE_OWN_FIELDS'] : [];
    const base = options.timeoutMs ?? VERIFY_RUN_TIMEOUT_MS;
    // (stopped, its server with it, when the proof ends before it is judged)
    const askEra = (): Promise<EraAnswers> | null => {
      if (modern === null) return null;
      const stop = new AbortController();
      const signal = options.signal === undefined ? stop.signal : AbortSignal.any([options.signal, stop.signal]);
      const asked = askModernEra(side(modern), base, signal);
      stopEra = async () => {
        stop.abort();
        await asked;
      };
      return asked;
    };
    let eraAnswers = askEra();
    let compared = await compareServers({ original: side(original), migrated: side(migrated), expected });
    if (compared.kind === 'not-started' && compared.side === 'original' && start !== plain) {
      start = plain;
      await stopEra();
      eraAnswers = askEra();
      compared = await compareServers({ original: side(original), migrated: side(migrated), expected });
    }
    // A reply that did not come within the wait is no evidence on a loaded machine (a TypeScript server
    // starting under tsx while other servers start): a difference that rests on one is measured again,
    // the two servers one after the other, with twice the wait for each reply and three times as long
    // for the start, each reply awaited for the whole wait (a server that leaves many requests unanswered
    // pays the wait once per request, within the exploration's time limit).
    const slower = (dir: string): VerifyOptions => ({ ...side(dir), timeoutMs: base * 2, startTimeoutMs: base * 9, syncUnanswered: false });
    if (compared.kind === 'compared' && restsOnTimeout(compared)) {
      compared = await compareServers({ original: slower(original), migrated: slower(migrated), parallel: false, expected });
    }
    // An answer that changes from run to run (an id or a time a tool made up when called without its
    // required arguments) is no difference the rewrite made: the original is run once more, and what it
    // answers differently from itself is taken out of the comparison.
    if (compared.kind === 'compared' && !compared.equal && compared.differences.some((d) => d.aspect === 'result' || d.aspect === 'error message' || d.aspect === 'error data')) {
      const rerun = await verifyServer(slower(original));
      const again = rerun.kind === 'checked' ? withPackagePath(rerun, original) : rerun;
      if (again.kind === 'checked') {
        const volatile = new Set(compareContracts(compared.original, again).differences.map((d) => d.what));
        const differences = compared.differences.filter((d) => !volatile.has(d.what));
        if (differences.length < compared.differences.length) {
          compared = { ...compared, differences, equal: differences.length === 0, notes: [...compared.notes, `answers the original gives differently from run to run, not compared: ${[...volatile].join(', ')}`] };
        }
      }
    }
    const ms = Date.now() - started;
    switch (compared.kind) {
      case 'aborted':
        return notVerified('interrupted');
      case 'not-started':
        // The original does not start here (it needs arguments, configuration, a service): nothing to
        // compare with. The migrated one does not start while the original does: the rewrite broke it.
        if (compared.side === 'original' && /ERR_DLOPEN_DISABLED|Cannot load native addon/.test(compared.stderrTail)) {
          return notVerified('the original loads a native addon, which does not load where the proof confines its writes (Node\'s permission model); --no-verify writes without the proof');
        }
        return compared.side === 'original'
          ? notVerified(`the original does not start as ${describeStart(start) ?? `\`${start.label}\``}: ${compared.reason}`)
          : { kind: 'different', path, diff: null, why: `the migrated server does not start (the original does): ${compared.reason}${compared.stderrTail === '' ? '' : `; its stderr ended with: ${compared.stderrTail.split('\n').slice(-3).join(' / ')}`}`, ms };
      case 'compared': {
        // an exploration cut short by the overall limit compared only part of the contract
        const cut = compared.original.contract.cutShort ?? compared.migrated.contract.cutShort;
        if (cut !== undefined) return notVerified(`the proof did not finish: ${cut} (a server that leaves requests unanswered; --verify-timeout shortens each wait)`);
        // no request answered by both (both too slow for the wait, say): equal only because nothing was seen
        if (compared.compared === 0 && compared.equal) return notVerified(`no request was answered by both servers within the wait (${options.timeoutMs ?? VERIFY_RUN_TIMEOUT_MS} ms per reply, --verify-timeout): nothing was compared`);
        // the original never answered initialize, even with the longer wait: there is nothing to compare with
        if (compared.original.contract.initialize === null) return notVerified(`the original did not answer initialize within ${base * 9} ms: nothing to compare with`);
        if (!compared.equal) return { kind: 'different', path, diff: compared, why: `${compared.differences.length} difference(s)`, ms };
        // a rewrite that serves the 2026-07-28 era too is asked again by a client pinned to it
        if (eraAnswers !== null) {
          const era = judgeModernEra(await eraAnswers, compared.migrated.contract);
          if (era.kind === 'aborted') return notVerified('interrupted');
          // A listing the SDK fails or cuts short (it rejects what the server answers, in either era) is a
          // rewrite that answers worse. A client of the new era that cannot connect is not: the original
          // serves that era no client at all; the rewrite is written and says so, unless it is the era
          // upgrade, made for that client alone.
          if (era.kind === 'refused') {
            if (era.stage === 'listing' || isEraUpgrade(result.decision)) return { kind: 'different', path, diff: null, why: era.why, ms: Date.now() - started };
            return { kind: 'equal', path, diff: compared, ms: Date.now() - started, modernProblem: era.why, startedAs: describeStart(start) };
          }
          return { kind: 'equal', path, diff: compared, ms: Date.now() - started, modern: era.asked, startedAs: describeStart(start) };
        }
        return { kind: 'equal', path, diff: compared, ms, startedAs: describeStart(start) };
      }
    }
  } catch (err) {
    return notVerified(`could not set up the temp copy: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    await stopEra();
    await rm(root, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * Refuses the rewrites whose server answered differently: the file and the files its rewrite changes
 * keep their text, are left alone with reason VERIFY_DIFFERENT and the diff in their diagnostics; the
 * package.json changes and helper modules only they needed are dropped. Verified rewrites get a
 * diagnostic that says so. Mutates `scan` (before anything is reviewed or written).
 */
export function applyVerifyVerdicts(scan: ScanResult, verdicts: readonly VerifyVerdict[]): void {
  for (const verdict of verdicts) {
    const result = scan.results.find((r) => r.path === verdict.path);
    if (result === undefined) continue;
    switch (verdict.kind) {
      case 'equal': {
        const fixes = verdict.diff.fixes.length === 0 ? '' : `; fixes ${verdict.diff.fixes.map((f) => f.what).join(', ')}`;
        const modern =
          verdict.modernProblem !== undefined
            ? `; a client of the ${MODERN_REVISION} era is not served (the original serves that era no client at all): ${verdict.modernProblem}`
            : verdict.modern === undefined
              ? ''
              : `; a client of the ${MODERN_REVISION} revision connects${verdict.modern.length === 0 ? '' : ` and is offered the same ${verdict.modern.join(', ')}`}`;
        // a wire change only the proof saw is listed with the others, for every file of the rewrite (header, reports)
        for (const part of [result, ...scan.results.filter((r) => isPartOf(r, result.path))]) listSeenWireChanges(part, verdict.diff);
        const startedAs = verdict.startedAs === undefined ? '' : `, both started as ${verdict.startedAs}`;
        const verified = { code: 'VERIFIED', message: `run side by side with the original${startedAs}: answers like it (${verdict.diff.compared} requests compared${fixes})${modern}` };
        // said where the change is shown: on the entry, and on the files it changes when it is itself unchanged
        const shown = result.after !== undefined ? [result] : [result, ...scan.results.filter((r) => isPartOf(r, result.path) && r.after !== undefined)];
        for (const file of shown) file.diagnostics = [...file.diagnostics, verified];
        break;
      }
      case 'not-verified':
        result.diagnostics = [...result.diagnostics, { code: 'NOT_VERIFIED', message: `not verified: ${verdict.reason}` }];
        break;
      case 'different': {
        const message = `run side by side with the original, the migrated server answers differently, so it is not written: ${describeVerdictDifferences(verdict)}`;
        for (const refused of getRefusedWith(scan.results, result)) {
          delete refused.after;
          delete refused.companions;
          refused.decision = { kind: 'leave', reason: 'VERIFY_DIFFERENT', hint: getHint('VERIFY_DIFFERENT') };
          refused.diagnostics = [...refused.diagnostics, { code: 'VERIFY_DIFFERENT', message }];
          for (const finding of refused.findings) finding.fixed = false;
          refused.fixes = [];
        }
        break;
      }
    }
  }
  // What only refused files needed is not planned any more.
  const live = new Set(scan.results.filter((r) => r.after !== undefined).map((r) => r.path));
  scan.companions = scan.companions.map((c) => ({ ...c, files: c.files.filter((f) => live.has(f)) })).filter((c) => c.files.length > 0);
  scan.manifests = scan.manifests.map((m) => ({ ...m, files: m.files.filter((f) => live.has(f)) })).filter((m) => m.files.length > 0);
}

/** Adds to a result's decision the wire changes its proof saw that the plan did not list (INITIALIZE_OWN_FIELDS), each with what was seen. */
function listSeenWireChanges(result: FileResult, diff: ContractDiff): void {
  const decision = result.decision;
  if (decision.kind !== 'sdk' && decision.kind !== 'boundary') return;
  const listed = decision.wireChanges ?? [];
  const seen = [...new Set(diff.expected.map((e) => e.change))].filter((change) => !listed.includes(change));
  if (seen.length === 0) return;
  const notes = seen.map((change) => `wire change: ${describeWireChange(change, decision.sdk)} (the proof saw: ${diff.expected.filter((e) => e.change === change).map((e) => e.what).join(', ')})`);
  result.decision = { ...decision, wireChanges: [...listed, ...seen], notes: [...decision.notes, ...notes] };
}

/** Whether `result` exists because the rewrite of `entry` changes it (alone, or as a module shared with other entries). */
function isPartOf(result: FileResult, entry: string): boolean {
  return result.partOf === entry || (result.alsoPartOf ?? []).includes(entry);
}

/**
 * A refused rewrite takes the files it changes with it, and a module shared with other entries takes
 * those entries too: each was planned against that one change of the module (nothing is written half).
 */
export function getRefusedWith(results: readonly FileResult[], refused: FileResult): FileResult[] {
  const out = new Set<FileResult>([refused]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of results) {
      if (out.has(r)) continue;
      const owners = [r.partOf, ...(r.alsoPartOf ?? [])].filter((p): p is string => p !== undefined);
      const taken = [...out].some((o) => owners.includes(o.path) || (isPartOf(o, r.path) && (o.alsoPartOf ?? []).length > 0));
      if (taken) {
        out.add(r);
        grew = true;
      }
    }
  }
  return [...out];
}

/** One line: the differences, each as `what (aspect): original -> migrated`. */
export function describeVerdictDifferences(verdict: Extract<VerifyVerdict, { kind: 'different' }>): string {
  if (verdict.diff === null) return verdict.why;
  return verdict.diff.differences.map((d) => `${d.what} (${d.aspect}): ${d.original} -> ${d.migrated}`).join('; ');
}

/** Links each lent package into the copy's node_modules (replacing nothing the project has). */
async function lendPackages(copy: string, lent: ReadonlyArray<{ name: string; dir: string }>): Promise<void> {
  for (const { name, dir } of lent) {
    const target = join(copy, 'node_modules', name);
    await mkdir(dirname(target), { recursive: true });
    await symlink(dir, target, 'dir').catch(() => undefined);
  }
}

/** The nearest directory with a package.json, else the file's own. */
function findPackageDir(path: string): string {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return dirname(path);
  }
}

/** Files under `dir` (skipped directories aside), counted up to `limit + 1`. */
/**
 * The files and bytes of a package as the copy would take them (node_modules and .git aside), counted up
 * to just past the limits; `special`: the first FIFO, socket or device found (a copy would block on it or fail).
 */
function measurePackage(dir: string, maxFiles: number, maxBytes: number): { files: number; bytes: number; special: string | null } {
  let files = 0;
  let bytes = 0;
  const stack = [dir];
  while (stack.length > 0 && files <= maxFiles && bytes <= maxBytes) {
    const current = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) stack.push(join(current, entry.name));
      } else if (entry.isFile()) {
        files++;
        bytes += lstatSync(join(current, entry.name), { throwIfNoEntry: false })?.size ?? 0;
      } else if (entry.isSymbolicLink()) {
        files++;
      } else {
        return { files, bytes, special: `${relative(dir, join(current, entry.name))} (a FIFO, socket or device)` };
      }
    }
  }
  return { files, bytes, special: null };
}

/** Every node_modules directory Node would look in from `dir`, nearest first. */
function findNodeModules(dir: string): string[] {
  const found: string[] = [];
  for (let current = resolve(dir); ; current = dirname(current)) {
    const candidate = join(current, 'node_modules');
    if (existsSync(candidate)) found.push(candidate);
    if (dirname(current) === current) return found;
  }
}

/**
 * The copy's node_modules: a directory of links to every package the original resolves (its own
 * node_modules first, then those above it, as Node looks them up), so that a hoisted workspace install
 * still resolves from the temp copy. Scoped packages are linked one by one inside their scope.
 */
async function linkNodeModules(copy: string, sources: readonly string[]): Promise<void> {
  if (sources.length === 0) return;
  const target = join(copy, 'node_modules');
  await mkdir(target, { recursive: true });
  const linked = new Set<string>();
  for (const source of sources) {
    for (const name of safeReaddir(source)) {
      if (name.startsWith('@')) {
        for (const inner of safeReaddir(join(source, name))) {
          const id = `${name}/${inner}`;
          if (linked.has(id)) continue;
          linked.add(id);
          await mkdir(join(target, name), { recursive: true });
          await symlink(realpathSafe(join(source, name, inner)), join(target, name, inner), 'dir').catch(() => undefined);
        }
      } else if (!linked.has(name) && !isNodeModulesCache(name)) {
        linked.add(name);
        await symlink(realpathSafe(join(source, name)), join(target, name), 'dir').catch(() => undefined);
      }
    }
  }
}

const JS_EXTENSIONS = new Set(['.js', '.mjs', '.cjs']);
const TS_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx']);

/** How a verdict names a documented start: `` `node bin/x.js serve` (as README.md starts it) ``. */
function describeStart(start: Start): string | undefined {
  return start.documentedIn === undefined ? undefined : `\`${start.label}\` (as ${start.documentedIn} starts it)`;
}

/** A command that starts a server: what runs, and how the messages name it. */
interface Start {
  command: string;
  args: string[];
  label: string;
  /** The document that gives this command (`README.md`), when it is not the entry file alone. */
  documentedIn?: string;
}

/** The documented command that starts `entry` (launch.ts), as this Node or the project's tsx runs its file; null when none or it cannot run. */
function getDocumentedStart(packageDir: string, entry: string, stopDir: string, nodeModules: readonly string[]): Start | null {
  const launch = findDocumentedLaunch(packageDir, entry, stopDir);
  if (launch === null) return null;
  const runner = getRunner(launch.file, nodeModules);
  if (typeof runner === 'string') return null;
  const file = relative(packageDir, launch.file);
  return { command: runner.command, args: [...runner.args, file, ...launch.args], label: [runner.label, file, ...launch.args].join(' '), documentedIn: launch.source };
}

/** How the entry point is run: this Node for JavaScript, the project's tsx for TypeScript; else why not. */
function getRunner(path: string, nodeModules: readonly string[]): { command: string; args: string[]; label: string } | string {
  const ext = extname(path);
  if (JS_EXTENSIONS.has(ext)) return { command: process.execPath, args: [], label: 'node' };
  if (!TS_EXTENSIONS.has(ext)) return `cannot run a ${ext || 'extension-less'} file`;
  for (const dir of nodeModules) {
    const cli = getTsxCli(join(dir, 'tsx'));
    if (cli !== null) return { command: process.execPath, args: [cli], label: 'tsx' };
  }
  // Node 22.18+/23.6+ strips types itself (`process.features.typescript`); Node 20 does not.
  const features = process.features as { typescript?: string | false };
  if (typeof features.typescript === 'string') return { command: process.execPath, args: [], label: 'node' };
  return 'a TypeScript entry point, and neither the project has tsx installed nor does this Node strip types (add tsx to its devDependencies to verify it)';
}

/** The tsx CLI script in an installed tsx package, from its package.json `bin`. */
function getTsxCli(dir: string): string | null {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
    const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.tsx;
    return bin === undefined ? null : join(realpathSync(dir), bin);
  } catch {
    return null;
  }
}

/** Content-Length framing for a server the envelope keeps in it (the SDK rewrite never is). */
function getFraming(result: FileResult): Framing {
  if (result.decision.kind === 'envelope' && result.decision.reason === 'CONTENT_LENGTH_FRAMING') return 'content-length';
  return result.decision.kind === 'envelope' && /content-length/i.test(result.before) && /\\r\\n\\r\\n/.test(result.before) ? 'content-length' : 'ndjson';
}

/** The methods detection saw the server answer that MCP does not define. */
function getCustomMethods(result: FileResult): string[] {
  return (result.methods ?? []).filter((method) => !MCP_METHOD_NAMES.includes(method) && !method.startsWith('notifications/'));
}
