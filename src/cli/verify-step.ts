// The `--verify` step of a migration run, between the scan and the review: says what is about to
// run, runs src/runner/verify-run.ts (each rewritten server against its original, in temp copies),
// prints one verdict per server as it comes in, and refuses the rewrites that answer differently
// before the review sees them. Returns how many were refused (the run then exits 1 unless it is a
// dry run) and whether Ctrl-C stopped it.
import { applyVerifyVerdicts, getVerifyTargets, verifyRewrites, describeVerdictDifferences, type VerifyVerdict } from '../runner/verify-run.js';
import type { ScanResult } from '../runner/scan.js';
import { assertNever } from '../model/assert-never.js';
import { renderDiffLines } from './compare.js';
import type { Paint } from './render.js';
import { withInterruptSignal } from './verify.js';
import { getToolVersion } from './version.js';

export interface VerifyStepContext {
  scan: ScanResult;
  out: (text: string) => void;
  paint: Paint;
  display: (path: string) => string;
  /** The servers' environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Per reply (`--verify-timeout`); the runner's default when not given. */
  timeoutMs?: number;
}

export interface VerifyStepOutcome {
  verdicts: VerifyVerdict[];
  refused: number;
  interrupted: boolean;
}

export async function runVerifyStep(ctx: VerifyStepContext): Promise<VerifyStepOutcome> {
  const { scan, out, paint, display } = ctx;
  const targets = getVerifyTargets(scan);
  if (targets.length === 0) return { verdicts: [], refused: 0, interrupted: false };
  out(
    paint.bold(`Verifying ${targets.length} rewritten server(s): each runs next to its original in a temp copy of its package, with a temp HOME.\n`) +
      paint.dim('Their code runs: every tool is called with made-up arguments.\n'),
  );
  const started = Date.now();
  let interrupted = false;
  const verdicts = await withInterruptSignal(ctx.signal, (signal) =>
    verifyRewrites(scan, {
      env: ctx.env,
      ...(ctx.timeoutMs === undefined ? {} : { timeoutMs: ctx.timeoutMs }),
      clientInfo: { name: 'mcp-migrate', version: getToolVersion() },
      signal,
      onVerdict: (verdict) => {
        if (signal.aborted) interrupted = true;
        out(renderVerdict(verdict, paint, display));
      },
    }).then((all) => {
      interrupted ||= signal.aborted;
      return all;
    }),
  );
  if (interrupted) return { verdicts, refused: 0, interrupted };
  applyVerifyVerdicts(scan, verdicts);
  const refused = verdicts.filter((v) => v.kind === 'different').length;
  out(
    `Verified ${verdicts.length} server(s) in ${seconds(Date.now() - started)}` +
      (refused > 0 ? paint.removed(`; ${refused} rewrite(s) answer differently and will not be written.\n`) : '.\n'),
  );
  return { verdicts, refused, interrupted };
}

/** One verdict: a line, and for a refused rewrite the diff under it. */
export function renderVerdict(verdict: VerifyVerdict, paint: Paint, display: (path: string) => string): string {
  const time = paint.dim(` [${seconds(verdict.ms)}]`);
  switch (verdict.kind) {
    case 'equal': {
      const fixes = verdict.diff.fixes.length === 0 ? '' : `; fixes: ${verdict.diff.fixes.map((f) => f.what).join(', ')}`;
      return `  ${paint.added('same')}     ${display(verdict.path)}: answers like the original (${verdict.diff.compared} requests compared${fixes})${time}\n`;
    }
    case 'different': {
      const lines = [`  ${paint.removed('DIFFERS')}  ${display(verdict.path)}: not written, it answers differently from the original${time}`];
      if (verdict.diff === null) lines.push(`      ${describeVerdictDifferences(verdict)}`);
      else lines.push(...renderDiffLines(verdict.diff, paint, '      '));
      return `${lines.join('\n')}\n`;
    }
    case 'not-verified':
      return `  ${paint.warn('unverified')} ${display(verdict.path)}: ${verdict.reason} (the rewrite is kept)${time}\n`;
    default:
      return assertNever(verdict);
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
