// The review: every pending change is shown as a header and a unified diff (with the package.json change
// and new companion files it brings), then — in an interactive run — the user decides per file:
// apply / skip / apply all remaining / quit. `--yes` applies all; --dry-run and --check only show.
import type { FileResult } from '../model/types.js';
import { ChangeApplier } from '../runner/commit.js';
import type { Problem } from '../runner/discover.js';
import type { ScanResult } from '../runner/scan.js';
import type { RunMode } from './args.js';
import { renderDiff, renderFileHeader, type Paint } from './render.js';

export type ReviewAnswer = 'apply' | 'skip' | 'all' | 'quit';

export interface ReviewQuestion {
  /** Root-relative path of the file being asked about. */
  path: string;
  /** 1-based position among the files to review. */
  index: number;
  total: number;
}

/** Asks what to do with one file. Every answer has a flag: --yes (all), --dry-run / --check (none). */
export type ReviewPrompt = (question: ReviewQuestion) => Promise<ReviewAnswer>;

export interface ReviewContext {
  scan: ScanResult;
  mode: RunMode;
  yes: boolean;
  prompt: ReviewPrompt;
  out: (text: string) => void;
  paint: Paint;
  /** Absolute path -> what the user sees (root-relative). */
  display: (path: string) => string;
}

export interface ReviewOutcome {
  /** Every path written (package.json files, companions, source files), absolute, in write order. */
  written: string[];
  /** Source files applied. */
  applied: string[];
  /** Source files with a pending change that were not applied (skipped, or left when the user quit). */
  skipped: string[];
  /** Files whose write was refused or failed, with the reason. */
  failed: Problem[];
  quit: boolean;
}

export function getPendingFiles(scan: ScanResult): FileResult[] {
  return scan.results.filter((r) => r.after !== undefined);
}

export async function reviewChanges(ctx: ReviewContext): Promise<ReviewOutcome> {
  const { scan, paint, out, display } = ctx;
  const pending = getPendingFiles(scan);
  const outcome: ReviewOutcome = { written: [], applied: [], skipped: [], failed: [], quit: false };
  const applier = new ChangeApplier(scan, display);
  const shownManifests = new Set<string>();
  const shownCompanions = new Set<string>();
  let applyAll = ctx.yes;

  for (const [i, result] of pending.entries()) {
    if (outcome.quit) {
      outcome.skipped.push(result.path);
      continue;
    }
    out(`\n${renderFileHeader(display(result.path), result, paint)}`);
    out(renderDiff(display(result.path), result.before, result.after ?? result.before, paint));
    // In a dry run everything is shown once; in a real run, whatever is still unwritten is shown
    // with each file that would write it.
    const manifest = ctx.mode === 'apply' ? applier.pendingManifestFor(result.path) : (scan.manifests.find((m) => m.files.includes(result.path) && !shownManifests.has(m.change.path)) ?? null);
    if (manifest !== null) {
      shownManifests.add(manifest.change.path);
      const names = Object.keys(manifest.change.added).join(', ');
      out(`\n${paint.bold(`   ${display(manifest.change.path)}: adds ${names}`)}${ctx.mode === 'apply' ? ' (written with this file)' : ''}\n`);
      out(renderDiff(display(manifest.change.path), manifest.change.before, manifest.change.after, paint));
    }
    const companions = ctx.mode === 'apply' ? applier.pendingCompanionsFor(result.path) : scan.companions.filter((c) => c.files.includes(result.path) && !shownCompanions.has(c.path));
    for (const companion of companions) {
      shownCompanions.add(companion.path);
      out(`\n${paint.bold(`   new file ${display(companion.path)}`)}${ctx.mode === 'apply' ? ' (written with this file)' : ''}\n`);
      out(renderDiff(display(companion.path), null, companion.content, paint));
    }
    if (ctx.mode !== 'apply') continue;

    let answer: ReviewAnswer = 'apply';
    if (!applyAll) answer = await ctx.prompt({ path: display(result.path), index: i + 1, total: pending.length });
    if (answer === 'quit') {
      outcome.quit = true;
      outcome.skipped.push(result.path);
      continue;
    }
    if (answer === 'skip') {
      outcome.skipped.push(result.path);
      continue;
    }
    if (answer === 'all') applyAll = true;
    const applied = await applier.apply(result);
    outcome.written.push(...applied.written);
    if (applied.error === undefined) {
      outcome.applied.push(result.path);
      out(paint.added(`   applied ${display(result.path)}\n`));
    } else {
      outcome.failed.push({ path: result.path, message: applied.error });
      out(paint.error(`   not applied: ${display(result.path)}: ${applied.error}\n`));
    }
  }
  return outcome;
}
