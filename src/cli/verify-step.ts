// The proof step of a migration run, between the scan and the review (on by default for a run that
// writes, `--verify` for --check and --dry-run): says what is about to run, runs src/runner/prove.ts
// (each rewritten server against its original, in temp copies, the chain going on past a rewrite that
// answers worse), prints one verdict per run as it comes in and a summary with the cost per server.
// Returns the scan to review, how many servers no rewrite could take, how many were withheld as
// unverified, and whether Ctrl-C stopped it.
import { getVerifyTargets, describeVerdictDifferences, type VerifyVerdict } from '../runner/verify-run.js';
import { proveRewrites, type ProveOptions } from '../runner/prove.js';
import { isConfined } from '../runner/sandbox.js';
import type { FileResult, ProofRecord } from '../model/types.js';
import type { ScanResult } from '../runner/scan.js';
import { assertNever } from '../model/assert-never.js';
import { renderDiffLines } from './compare.js';
import { escapeServerText } from './escape.js';
import type { Paint } from './render.js';
import { withInterruptSignal } from './verify.js';
import type { ProofProgress } from './progress.js';
import { getToolVersion } from './version.js';

export interface VerifyStepContext {
  scan: ScanResult;
  out: (text: string) => void;
  paint: Paint;
  display: (path: string) => string;
  /** The scan again with some rewrites refused (the chain goes on past them). */
  rescan: ProveOptions['rescan'];
  /** `safe`: no tool is called with valid arguments; `calls`: one valid call per tool. */
  calls: 'safe' | 'calls';
  /** Withhold what could not be run (`--yes` without `--allow-unverified`). */
  withholdUnverified: boolean;
  /** The servers' environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Per reply (`--verify-timeout`); the runner's default when not given. */
  timeoutMs?: number;
  /** Servers proven at once (`--jobs`). */
  concurrency?: number;
  /** The live line while servers are proven (a terminal's; silent elsewhere). */
  progress?: ProofProgress;
}

export interface VerifyStepOutcome {
  /** The scan to review and write (planned again when a rewrite was refused). */
  scan: ScanResult;
  verdicts: VerifyVerdict[];
  /** The verdicts as the reports carry them, by entry path. */
  proofs: Map<string, ProofRecord>;
  /** Servers that end with no rewrite because every rewrite answered worse. */
  refused: number;
  /** Rewrites not written because they could not be run. */
  withheld: number;
  interrupted: boolean;
}

export async function runVerifyStep(ctx: VerifyStepContext): Promise<VerifyStepOutcome> {
  const { scan, out, paint, display } = ctx;
  const targets = getVerifyTargets(scan);
  if (targets.length === 0) return { scan, verdicts: [], proofs: new Map(), refused: 0, withheld: 0, interrupted: false };
  out(
    paint.bold(`Proving ${targets.length} rewrite(s): each migrated server runs next to its original in a trial copy of its package, ${isConfined() ? 'writing only inside the trial, with no network' : 'with a temp HOME and no network (this Node has no permission model: writes are not confined)'}.\n`) +
      paint.dim(
        ctx.calls === 'calls'
          ? 'Their code runs: every tool is called once with arguments made up from its schema (--verify=calls).\n'
          : 'Their start-up code runs; no tool is called with valid arguments (--verify=calls adds one call per tool; --no-verify skips the proof).\n',
      ),
  );
  const started = Date.now();
  let runs = 0;
  const times: Array<{ path: string; ms: number }> = [];
  const progress = ctx.progress;
  const outcome = await withInterruptSignal(ctx.signal, (signal) =>
    proveRewrites(scan, {
      env: ctx.env,
      ...(ctx.timeoutMs === undefined ? {} : { timeoutMs: ctx.timeoutMs }),
      ...(ctx.concurrency === undefined ? {} : { concurrency: ctx.concurrency }),
      clientInfo: { name: 'mcp-migrate', version: getToolVersion() },
      calls: ctx.calls,
      signal,
      rescan: ctx.rescan,
      withholdUnverified: ctx.withholdUnverified,
      onStart: (target) => progress?.start(target.path),
      onVerdict: (verdict, target) => {
        progress?.done(target.path);
        if (signal.aborted) return;
        runs++;
        times.push({ path: verdict.path, ms: verdict.ms });
        progress?.clear();
        out(renderVerdict(verdict, paint, display, describeRewrite(target)));
      },
    }),
  ).finally(() => progress?.stop());
  if (outcome.interrupted) return { scan: outcome.scan, verdicts: [], proofs: new Map(), refused: 0, withheld: 0, interrupted: true };
  const elapsed = Date.now() - started;
  const fellBack = new Set(outcome.refused.filter((r) => r.rewrite === 'sdk' || r.rewrite === 'boundary').map((r) => r.path));
  const landed = (kind: string): number => [...fellBack].filter((path) => outcome.scan.results.find((r) => r.path === path)?.decision.kind === kind).length;
  const bounded = landed('boundary');
  const enveloped = landed('envelope');
  const parts = [
    `${outcome.verdicts.filter((v) => v.kind === 'equal').length} answer like the original`,
    ...(bounded > 0 ? [`${bounded} moved from the dispatcher-level rewrite to the SDK at the boundary`] : []),
    ...(enveloped > 0 ? [`${enveloped} moved from the SDK to the envelope`] : []),
    ...(outcome.leftAlone > 0 ? [paint.removed(`${outcome.leftAlone} left alone (no rewrite answered as well)`)] : []),
    ...(outcome.verdicts.some((v) => v.kind === 'not-verified') ? [paint.warn(`${outcome.verdicts.filter((v) => v.kind === 'not-verified').length} not verified${outcome.withheld > 0 ? ', not written (--allow-unverified writes them)' : ''}`)] : []),
  ];
  out(`Proved ${targets.length} server(s) in ${seconds(elapsed)} (${describeProofTimes(times, runs, display)}): ${parts.join('; ')}.\n`);
  const proofs = new Map(outcome.verdicts.map((verdict) => [verdict.path, toProofRecord(verdict)]));
  return { scan: outcome.scan, verdicts: outcome.verdicts, proofs, refused: outcome.leftAlone, withheld: outcome.withheld, interrupted: false };
}

/** A verdict as the JSON report carries it. */
export function toProofRecord(verdict: VerifyVerdict): ProofRecord {
  const seconds = Math.round(verdict.ms / 100) / 10;
  switch (verdict.kind) {
    case 'equal':
      return { status: 'same', detail: `${verdict.diff.compared} requests compared`, seconds };
    case 'different':
      return { status: 'differs', detail: describeVerdictDifferences(verdict), seconds };
    case 'not-verified':
      return { status: 'not-verified', detail: verdict.reason, seconds };
    default:
      return assertNever(verdict);
  }
}

/** `3 side-by-side runs; per server: median 2.1 s, longest 3.4 s (server.js)`: each run's own time, not the wall time shared out. */
export function describeProofTimes(times: ReadonlyArray<{ path: string; ms: number }>, runs: number, display: (path: string) => string): string {
  const head = `${runs} side-by-side run${runs === 1 ? '' : 's'}`;
  if (times.length === 0) return head;
  const sorted = [...times].sort((a, b) => a.ms - b.ms);
  const longest = sorted[sorted.length - 1]!;
  if (sorted.length === 1) return `${head}, ${seconds(longest.ms)}`;
  const middle = sorted.length / 2;
  const median = sorted.length % 2 === 1 ? sorted[Math.floor(middle)]!.ms : (sorted[middle - 1]!.ms + sorted[middle]!.ms) / 2;
  return `${head}; per server: median ${seconds(median)}, longest ${seconds(longest.ms)} (${display(longest.path)})`;
}

function describeRewrite(target: FileResult): string {
  if (target.decision.kind === 'sdk' && target.decision.style === 'mcp-server') return 'the McpServer form';
  if (target.decision.kind === 'boundary') return 'the SDK at the boundary';
  return target.decision.kind === 'envelope' ? 'the envelope' : 'the SDK rewrite';
}

/** One verdict: a line, and for a refused rewrite the diff under it. */
export function renderVerdict(verdict: VerifyVerdict, paint: Paint, display: (path: string) => string, rewrite = 'the rewrite'): string {
  const time = paint.dim(` [${seconds(verdict.ms)}]`);
  switch (verdict.kind) {
    case 'equal': {
      const fixes = verdict.diff.fixes.length === 0 ? '' : `; fixes: ${verdict.diff.fixes.map((f) => f.what).join(', ')}`;
      const expected = verdict.diff.expected.length === 0 ? '' : `; ${verdict.diff.expected.length} expected: the wire changes its header lists`;
      return `  ${paint.added('same')}     ${display(verdict.path)}: answers like the original (${verdict.diff.compared} requests compared${fixes}${expected})${time}\n`;
    }
    case 'different': {
      const lines = [`  ${paint.removed('DIFFERS')}  ${display(verdict.path)}: ${rewrite} is not offered, it answers differently from the original${time}`];
      if (verdict.diff === null) lines.push(`      ${escapeServerText(describeVerdictDifferences(verdict), 1000)}`);
      else lines.push(...renderDiffLines(verdict.diff, paint, '      '));
      return `${lines.join('\n')}\n`;
    }
    case 'not-verified':
      return `  ${paint.warn('unverified')} ${display(verdict.path)}: ${rewrite} could not be run: ${escapeServerText(verdict.reason, 1000)}${time}\n`;
    default:
      return assertNever(verdict);
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
