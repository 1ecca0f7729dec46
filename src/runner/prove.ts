// The proof of a run: before anything is offered, each rewritten server runs next to its original
// (./verify-run.ts, temp copies, a temp HOME) and the two are compared. A rewrite that answers worse
// is not offered: the file is planned again with that rewrite refused, so the chain goes on
// (SDK -> SDK at the boundary -> envelope -> left alone with VERIFY_DIFFERENT), and what the next option writes is proven
// in turn. What could not be run is kept and marked NOT_VERIFIED, or withheld when the run writes
// without asking (`--yes` without `--allow-unverified`).
//
// Data in, data out: it prints nothing (src/cli/verify-step.ts says each verdict as it comes in) and
// writes nothing outside the temp copies.
import type { FileResult, RefusedRewrites } from '../model/types.js';
import { getHint } from '../model/reasons.js';
import { applyVerifyVerdicts, describeVerdictDifferences, getRefusedWith, getRewriteSignature, getVerifyTargets, verifyRewrites, type VerifyRunOptions, type VerifyVerdict } from './verify-run.js';
import type { ScanResult } from './scan.js';

export interface ProveOptions extends Omit<VerifyRunOptions, 'targets'> {
  /** The scan again, with these rewrites refused (the runner's scanFiles with `refused`). */
  rescan: (refused: ReadonlyMap<string, RefusedRewrites>) => Promise<ScanResult>;
  /** Withhold what could not be run (a run that writes without asking, no --allow-unverified). */
  withholdUnverified: boolean;
}

export interface ProveOutcome {
  /** The scan the review and the writes go on with (a rescan when a rewrite was refused). */
  scan: ScanResult;
  /** The verdicts on what is now planned, one per rewritten server. */
  verdicts: VerifyVerdict[];
  /** Every rewrite that answered worse, the ones the chain replaced included. */
  refused: Array<Extract<VerifyVerdict, { kind: 'different' }> & { rewrite: keyof RefusedRewrites }>;
  /** Servers left alone because nothing the tool could write answered as well as the original. */
  leftAlone: number;
  /** Rewrites not written because they could not be run (withholdUnverified). */
  withheld: number;
  interrupted: boolean;
}

/** McpServer form -> SDK server style -> SDK at the boundary -> envelope -> left alone: at most this many rounds of proof. */
const MAX_ROUNDS = 5;

/** Which rewrite of the chain a planned result is (what a refusal of it refuses). */
function getRewriteKey(target: FileResult): keyof RefusedRewrites {
  switch (target.decision.kind) {
    case 'envelope':
      return 'envelope';
    case 'boundary':
      return 'boundary';
    default:
      return target.decision.kind === 'sdk' && target.decision.style === 'mcp-server' ? 'mcpServer' : 'sdk';
  }
}

export async function proveRewrites(initial: ScanResult, options: ProveOptions): Promise<ProveOutcome> {
  const refusals = new Map<string, RefusedRewrites>();
  const refused: ProveOutcome['refused'] = [];
  // a verdict holds for the exact texts it was given: the same path planned the same way is not run again
  const proven = new Map<string, { signature: string; verdict: VerifyVerdict }>();
  let scan = initial;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const targets = getVerifyTargets(scan).filter((target) => proven.get(target.path)?.signature !== getRewriteSignature(scan, target));
    if (targets.length === 0) break;
    const verdicts = await verifyRewrites(scan, { ...options, targets });
    if (options.signal?.aborted === true) return { scan, verdicts: [], refused, leftAlone: 0, withheld: 0, interrupted: true };
    let replan = false;
    for (const verdict of verdicts) {
      const target = targets.find((t) => t.path === verdict.path)!;
      proven.set(verdict.path, { signature: getRewriteSignature(scan, target), verdict });
      if (verdict.kind !== 'different') continue;
      const rewrite = getRewriteKey(target);
      refused.push({ ...verdict, rewrite });
      const before = refusals.get(verdict.path) ?? {};
      if (before[rewrite] !== undefined) continue; // the plan did not move past it: it is refused below
      refusals.set(verdict.path, { ...before, [rewrite]: describeVerdictDifferences(verdict) });
      replan = true;
    }
    if (!replan) break;
    scan = await options.rescan(refusals);
  }

  // The verdicts on what is planned now; a rewrite that still answers worse (a pipeline that did not
  // take the refusal) is refused here.
  const planned = getVerifyTargets(scan).flatMap((target) => {
    const entry = proven.get(target.path);
    return entry !== undefined && entry.signature === getRewriteSignature(scan, target) ? [entry.verdict] : [];
  });
  const verdicts = dropCovered(scan, planned);
  applyVerifyVerdicts(scan, verdicts);
  const withheld = options.withholdUnverified ? withholdUnverified(scan, verdicts) : 0;
  const leftAlone = scan.results.filter((r) => r.decision.kind === 'leave' && r.decision.reason === 'VERIFY_DIFFERENT' && r.partOf === undefined).length;
  return { scan, verdicts, refused, leftAlone, withheld, interrupted: false };
}

/**
 * A candidate whose rewrite changes only modules another entry's rewrite changes the same way (a module of
 * the server that imports the framework the entry starts: `lib/tools.js` beside `bin/cli.js`) is no server
 * of its own: run alone it starts nothing. When it could not be run and an entry whose rewrite holds all
 * of its changes was proven, that proof is its: its not-verified verdict goes.
 */
function dropCovered(scan: ScanResult, verdicts: VerifyVerdict[]): VerifyVerdict[] {
  const changesOf = (path: string): string[] => scan.results.filter((r) => (r.path === path || r.partOf === path || (r.alsoPartOf ?? []).includes(path)) && r.after !== undefined).map((r) => r.path);
  const proven = verdicts.filter((v) => v.kind === 'equal').map((v) => new Set(changesOf(v.path)));
  return verdicts.filter((verdict) => {
    if (verdict.kind !== 'not-verified') return true;
    const own = scan.results.find((r) => r.path === verdict.path);
    if (own === undefined || own.after !== undefined) return true;
    const changes = changesOf(verdict.path);
    return !proven.some((set) => changes.length > 0 && changes.every((path) => set.has(path)));
  });
}

/** Drops the rewrites that could not be run (and what only they needed); returns how many. */
function withholdUnverified(scan: ScanResult, verdicts: readonly VerifyVerdict[]): number {
  let withheld = 0;
  for (const verdict of verdicts) {
    if (verdict.kind !== 'not-verified') continue;
    withheld++;
    const result = scan.results.find((r) => r.path === verdict.path);
    if (result !== undefined) for (const taken of getRefusedWith(scan.results, result)) withhold(taken);
  }
  const live = new Set(scan.results.filter((r) => r.after !== undefined).map((r) => r.path));
  scan.companions = scan.companions.map((c) => ({ ...c, files: c.files.filter((f) => live.has(f)) })).filter((c) => c.files.length > 0);
  scan.manifests = scan.manifests.map((m) => ({ ...m, files: m.files.filter((f) => live.has(f)) })).filter((m) => m.files.length > 0);
  return withheld;
}

function withhold(result: FileResult): void {
  delete result.after;
  delete result.companions;
  result.decision = { kind: 'leave', reason: 'NOT_VERIFIED', hint: getHint('NOT_VERIFIED') };
  for (const finding of result.findings) finding.fixed = false;
  result.fixes = [];
}
