// The review: every pending change is shown with a header (decision, reasons, what was dropped) and its
// diff, with the package.json change and new companion files it brings. --dry-run and --check only show;
// --yes applies all. An interactive run asks one hunk at a time (`git add -p`): line numbers, the changed
// words highlighted, one key per answer, a pager when the diff is taller than the terminal. Hunks that
// cannot be applied apart are asked about together, and whatever subset is accepted is re-parsed and
// re-analysed before it is written: a half-migrated server is never written (the file-level question is
// asked instead). Quitting applies what was accepted; Ctrl-C stops at once and writes nothing more.
import { assertNever } from '../model/assert-never.js';
import type { FileResult, PipelineOptions, SdkTarget, Style } from '../model/types.js';
import { ChangeApplier } from '../runner/commit.js';
import { applyHunks, groupHunks, splitChange, type SplitChange } from '../runner/hunks.js';
import type { createPartialChecker } from '../runner/partial.js';
import type { ProcessFile, ScanResult } from '../runner/scan.js';
import type { RunMode } from './args.js';
import { isTallerThan, NO_PAGER, type Pager } from './pager.js';
import { describeQuestion, getShownKeys } from './prompt.js';
import { describeCompanionRole, renderDiff, renderFileHeader, renderNumberedHunks, type Paint } from './render.js';
import type { ReviewAnswer, ReviewOutcome, ReviewPrompt, ReviewQuestion } from './review-types.js';
import { getPendingFiles } from './summary.js';

export interface ReviewContext {
  scan: ScanResult;
  mode: RunMode;
  yes: boolean;
  prompt: ReviewPrompt;
  out: (text: string) => void;
  paint: Paint;
  /** Absolute path -> what the user sees (root-relative). */
  display: (path: string) => string;
  /** Shows a diff taller than the terminal (interactive runs only). */
  pager?: Pager;
  /** The run's pipeline options and pipeline, for re-analysing a partly applied file. */
  options?: { sdk: SdkTarget | 'auto'; style: Style; guardStdout?: boolean };
  process?: ProcessFile;
  /** Where a rewrite of several files journals its renames (the write lock's directory). */
  journalDir?: string;
  /** `--full-diff`: new helper files the tool vendors (the envelope module) in full; by default one line each. */
  fullDiff?: boolean;
  /** `--summary`: no headers nor diffs (a run that does not ask); the caller prints one line per file. */
  quiet?: boolean;
  /** Opens a text in the user's editor (`e`); without it, `e` is not offered. */
  editor?: Editor;
  /**
   * The proof a write gets (the side-by-side run), for an edited file: null when it answers as well as
   * the original, else why not. Left out when the run does not prove (--no-verify).
   */
  verifyEdit?: (result: FileResult, text: string) => Promise<EditProof>;
}

/** The proof of an edit: `ok` with what to say about it, or `refused` with the differences. */
export type EditProof = { ok: string } | { refused: string };

/** Lets the user edit `text` (the proposed content of `path`); resolves with the saved text, or null when no editor ran. */
export interface Editor {
  edit(path: string, text: string): Promise<{ text: string } | { error: string }>;
}

// (in summary.ts, which the CLI loads on every run)
export { getPendingFiles };

/** What to write for one file: all of it, none of it, or an accepted subset of its hunks. */
type FileChoice =
  | { kind: 'all' }
  | { kind: 'none' }
  /** `migrated`: the file is migrated without the skipped hunks; `original`: still the original server with some fixes. */
  | { kind: 'partial'; text: string; state: 'migrated' | 'original'; accepted: number; hunks: number }
  /** The user's edit of the proposal, re-checked (and proven when the run proves). */
  | { kind: 'edited'; text: string };

interface FileReview {
  choice: FileChoice;
  /** What happens after this file. */
  next: 'ask' | 'all' | 'quit' | 'interrupt';
}

export async function reviewChanges(ctx: ReviewContext): Promise<ReviewOutcome> {
  const { scan, paint, out, display } = ctx;
  const pending = getPendingFiles(scan);
  const outcome: ReviewOutcome = { written: [], applied: [], partial: [], skipped: [], failed: [], quit: false, interrupted: false };
  const applier = new ChangeApplier(scan, display, { journalDir: ctx.journalDir });
  const shownManifests = new Set<string>();
  const shownCompanions = new Set<string>();
  let applyAll = ctx.yes;
  // A rewrite that changes several files (an entry and the modules it changes) is one unit: shown
  // together, asked about once, written all or nothing.
  const units = groupUnits(pending);

  for (const [i, unit] of units.entries()) {
    if (outcome.quit || outcome.interrupted) {
      outcome.skipped.push(...unit.map((r) => r.path));
      continue;
    }
    if (unit.length > 1) {
      const next = await reviewUnit(ctx, applier, outcome, unit, i + 1, units.length, applyAll, shownManifests, shownCompanions);
      if (next === 'all') applyAll = true;
      if (next === 'quit') outcome.quit = true;
      if (next === 'interrupt') outcome.interrupted = true;
      continue;
    }
    const result = unit[0]!;
    const extras = renderExtras(ctx, applier, result, shownManifests, shownCompanions);
    if (ctx.mode !== 'apply' || applyAll) {
      if (ctx.quiet !== true) {
        out(`\n${renderFileHeader(display(result.path), result, paint, display)}`);
        out(renderDiff(display(result.path), result.before, result.after ?? result.before, paint));
        out(extras);
      }
      if (ctx.mode === 'apply') await applyChoice(ctx, applier, outcome, result, { kind: 'all' });
      continue;
    }

    const review = await reviewFile(ctx, result, i + 1, units.length, extras);
    if (review.next === 'interrupt') {
      outcome.interrupted = true;
      outcome.skipped.push(result.path);
      continue;
    }
    await applyChoice(ctx, applier, outcome, result, review.choice);
    if (review.next === 'all') applyAll = true;
    if (review.next === 'quit') outcome.quit = true;
  }
  if (outcome.interrupted) out(`\n${paint.warn(`Interrupted: nothing more was written${describeWritten(outcome, display)}.`)}\n`);
  else if (outcome.quit) out(`\nQuit: ${describeWritten(outcome, display).replace(/^; /, '') || 'nothing was applied'}; the other files were not changed.\n`);
  return outcome;
}

/**
 * The pending results grouped by rewrite: a result with `partOf` (and `alsoPartOf`) goes with the entry
 * (or entries) whose rewrite changes it, transitively. Units keep the order of their first file.
 */
export function groupUnits(pending: readonly FileResult[]): FileResult[][] {
  const parent = new Map<string, string>();
  const find = (path: string): string => {
    let root = path;
    while (parent.has(root) && parent.get(root) !== root) root = parent.get(root)!;
    parent.set(path, root);
    return root;
  };
  const union = (a: string, b: string): void => {
    const [ra, rb] = [find(a), find(b)];
    if (ra !== rb) parent.set(rb, ra);
  };
  const paths = new Set(pending.map((r) => r.path));
  for (const result of pending) {
    find(result.path);
    for (const owner of [result.partOf, ...(result.alsoPartOf ?? [])]) if (owner !== undefined && paths.has(owner)) union(owner, result.path);
  }
  const units = new Map<string, FileResult[]>();
  for (const result of pending) {
    const key = find(result.path);
    units.set(key, [...(units.get(key) ?? []), result]);
  }
  return [...units.values()];
}

/** Shows a unit of several files, asks about it once (unless --yes / `A` said so), and writes it whole or not at all. */
async function reviewUnit(
  ctx: ReviewContext,
  applier: ChangeApplier,
  outcome: ReviewOutcome,
  unit: FileResult[],
  index: number,
  total: number,
  applyAll: boolean,
  shownManifests: Set<string>,
  shownCompanions: Set<string>,
): Promise<'ask' | 'all' | 'quit' | 'interrupt'> {
  const { paint, out, display } = ctx;
  const owner = unit.find((r) => r.partOf === undefined) ?? unit[0]!;
  const others = unit.filter((r) => r !== owner).map((r) => display(r.path));
  let text = `\n${paint.dim(`   ${display(owner.path)} is migrated together with ${others.join(', ')}: the files are shown, asked about and written as one change`)}\n`;
  for (const result of unit) {
    text += `\n${renderFileHeader(display(result.path), result, paint, display)}`;
    text += renderDiff(display(result.path), result.before, result.after ?? result.before, paint);
    text += renderExtras(ctx, applier, result, shownManifests, shownCompanions);
  }
  let next: 'ask' | 'all' | 'quit' | 'interrupt' = 'ask';
  if (ctx.mode === 'apply' && !applyAll) {
    const paged = await showTall(ctx, text);
    if (paged) out(`${paint.bold(`━━ ${display(owner.path)} (+${others.length})`)} (shown in the pager)\n`);
    const review = fromFileAnswer(await ctx.prompt({ kind: 'file', path: display(owner.path), index, total, why: `written together with ${others.join(', ')}` }));
    next = review.next;
    if (review.choice.kind === 'none') {
      outcome.skipped.push(...unit.map((r) => r.path));
      return next;
    }
  } else {
    out(text);
  }
  if (ctx.mode !== 'apply') return next;
  const applied = await applier.applyUnit(unit);
  outcome.written.push(...applied.written);
  if (applied.error !== undefined) {
    for (const result of unit) outcome.failed.push({ path: result.path, message: applied.error });
    out(`${paint.error(`   not applied: ${display(owner.path)} and ${others.join(', ')}: ${applied.error}`)}\n`);
    return next;
  }
  outcome.applied.push(...unit.map((r) => r.path));
  out(`${paint.added(`   applied ${display(owner.path)} with ${others.join(', ')}`)}\n`);
  return next;
}

function describeWritten(outcome: ReviewOutcome, display: (path: string) => string): string {
  const parts: string[] = [];
  if (outcome.applied.length > 0) parts.push(`applied ${outcome.applied.map(display).join(', ')}`);
  if (outcome.partial.length > 0) parts.push(`applied the accepted hunks of ${outcome.partial.map(display).join(', ')}`);
  return parts.length === 0 ? '' : `; ${parts.join('; ')}`;
}

/** The package.json change and new files that go with `result` (shown once; in a real run, while unwritten). */
function renderExtras(ctx: ReviewContext, applier: ChangeApplier, result: FileResult, shownManifests: Set<string>, shownCompanions: Set<string>): string {
  const { scan, paint, display } = ctx;
  let text = '';
  const manifest = ctx.mode === 'apply' ? applier.pendingManifestFor(result.path) : (scan.manifests.find((m) => m.files.includes(result.path) && !shownManifests.has(m.change.path)) ?? null);
  if (manifest !== null) {
    shownManifests.add(manifest.change.path);
    const names = Object.keys(manifest.change.added).join(', ');
    text += `\n${paint.bold(`   ${display(manifest.change.path)}: adds ${names}`)}${ctx.mode === 'apply' ? " (written with this file's migration)" : ''}\n`;
    text += renderDiff(display(manifest.change.path), manifest.change.before, manifest.change.after, paint);
  }
  const companions = ctx.mode === 'apply' ? applier.pendingCompanionsFor(result.path) : scan.companions.filter((c) => c.files.includes(result.path) && !shownCompanions.has(c.path));
  for (const companion of companions) {
    shownCompanions.add(companion.path);
    text += `\n${paint.bold(`   new file ${display(companion.path)}`)}${ctx.mode === 'apply' ? " (written with this file's migration)" : ''}\n`;
    text += ctx.fullDiff === true ? renderDiff(display(companion.path), null, companion.content, paint) : `${describeVendored(companion.content, paint)}\n`;
  }
  return text;
}

/** The one line a vendored helper file gets in a diff (its content is the tool's, the same in every repository). */
export function describeVendored(content: string, paint: Paint): string {
  const lines = content.split('\n').length - (content.endsWith('\n') ? 1 : 0);
  return paint.dim(`   +${lines} lines: ${describeCompanionRole(content)} mcp-migrate vendors (the same in every repository; --full-diff shows it)`);
}

/** Asks about one file: per part when it has parts that can be applied apart, else as a whole. */
async function reviewFile(ctx: ReviewContext, result: FileResult, index: number, total: number, extras: string): Promise<FileReview> {
  const { paint, out } = ctx;
  const path = ctx.display(result.path);
  const after = result.after ?? result.before;
  const split = splitChange(result.before, after);
  // loaded with the first file asked about: it loads the parser, which a run with nothing to review never needs
  const { createPartialChecker } = await import('../runner/partial.js');
  const checker = createPartialChecker(result, getPipelineOptions(ctx, result), ctx.process);
  const groups = getGroups(result, split, checker);
  const header = renderFileHeader(path, result, paint, ctx.display);
  const gutter = String(Math.max(countLines(result.before), countLines(after))).length;
  const editable = ctx.editor !== undefined;
  // Hunks are labelled with the part they are asked in (`part 2/3`), never with a count of their own:
  // the questions count parts and files.
  const partOf = new Map<number, number>();
  groups.forEach((group, g) => group.forEach((h) => partOf.set(h, g)));
  const label = (h: { index: number }): string => (groups.length > 1 ? paint.dim(`part ${(partOf.get(h.index) ?? 0) + 1}/${groups.length}`) : '');
  const diff = renderNumberedHunks(split.hunks, paint, label, gutter);
  const fileQuestion: ReviewQuestion = { kind: 'file', path, index, total, ...(editable ? { editable } : {}) };

  // 1. The whole change: paged when taller than the terminal, so the header and findings are not lost.
  //    The pager's last line says how to answer, and the question follows once it is closed.
  const whole = `\n${header}${groups.length > 1 ? `   ${describeParts(split, groups)}\n` : ''}${extras}`;
  const firstQuestion: ReviewQuestion = groups.length > 1 ? { kind: 'hunk', path, index, total, group: 1, groups: groups.length, groupSize: groups[0]!.length, ...(editable ? { editable } : {}) } : fileQuestion;
  const paged = await showTall(ctx, `${whole}${groups.length > 1 ? '' : diff}`, groups.length > 1 ? `${whole}${diff}` : undefined, firstQuestion);
  if (groups.length <= 1) {
    if (paged) out(`${paint.bold(`━━ ${path}`)} (shown in the pager)\n`);
    const answer = await ctx.prompt(fileQuestion);
    return answer === 'edit' ? editLoop(ctx, result, fileQuestion, checker) : fromFileAnswer(answer);
  }

  // 2. Part by part.
  const accepted = new Set<number>();
  let next: FileReview['next'] = 'ask';
  for (const [g, group] of groups.entries()) {
    const hunks = group.map((h) => split.hunks[h]!);
    const question: ReviewQuestion = { kind: 'hunk', path, index, total, group: g + 1, groups: groups.length, groupSize: group.length, ...(editable ? { editable } : {}) };
    await showTall(ctx, renderNumberedHunks(hunks, paint, (h) => paint.dim(`part ${g + 1}/${groups.length}${group.length > 1 ? `, hunk ${group.indexOf(h.index) + 1} of the ${group.length} that go together` : ''}`), gutter), undefined, question);
    const answer = await ctx.prompt(question);
    if (answer === 'interrupt') return { choice: { kind: 'none' }, next: 'interrupt' };
    // `e` edits the whole proposed file; what is answered then is about the whole file
    if (answer === 'edit') return editLoop(ctx, result, fileQuestion, checker);
    if (answer === 'apply' || answer === 'rest' || answer === 'all') group.forEach((h) => accepted.add(h));
    if (answer === 'rest' || answer === 'all') for (const rest of groups.slice(g + 1)) rest.forEach((h) => accepted.add(h));
    if (answer === 'all') next = 'all';
    if (answer === 'quit') next = 'quit';
    if (answer === 'rest' || answer === 'none' || answer === 'all' || answer === 'quit') break;
  }

  // 3. What the accepted hunks give, re-analysed.
  if (accepted.size === 0) return { choice: { kind: 'none' }, next };
  if (accepted.size === split.hunks.length) return { choice: { kind: 'all' }, next };
  const text = applyHunks(split, accepted);
  const verdict = checker.check(text);
  if (verdict.kind !== 'invalid') return { choice: { kind: 'partial', text, state: verdict.kind, accepted: accepted.size, hunks: split.hunks.length }, next };
  out(`${paint.warn(`   The accepted hunks cannot be applied without the others: ${verdict.reason}.`)}\n`);
  const answer = await ctx.prompt({ ...fileQuestion, why: 'the accepted hunks cannot be applied alone' });
  const whole2 = answer === 'edit' ? await editLoop(ctx, result, fileQuestion, checker) : fromFileAnswer(answer);
  // Quitting mid-file still ends the run after this answer.
  return next === 'quit' && whole2.next === 'ask' ? { ...whole2, next: 'quit' } : whole2;
}

function countLines(text: string): number {
  return text.split('\n').length;
}

function fromFileAnswer(answer: ReviewAnswer): FileReview {
  switch (answer) {
    case 'apply':
    case 'rest':
      return { choice: { kind: 'all' }, next: 'ask' };
    case 'skip':
    case 'none':
      return { choice: { kind: 'none' }, next: 'ask' };
    case 'all':
      return { choice: { kind: 'all' }, next: 'all' };
    case 'quit':
      return { choice: { kind: 'none' }, next: 'quit' };
    case 'interrupt':
      return { choice: { kind: 'none' }, next: 'interrupt' };
    case 'edit':
      // only reachable when the prompt offers `e` without an editor: nothing to edit with, so nothing applied
      return { choice: { kind: 'none' }, next: 'ask' };
    default:
      return assertNever(answer);
  }
}

/**
 * `e`: the proposed file opens in the editor; what is saved is checked as any output is (it parses, and
 * re-analysed it is the migrated server: src/runner/partial.ts) and, when the run proves its writes,
 * run next to the original. A text that passes is offered again (its diff, then the same question);
 * one that does not is not offered, the last good proposal is, and `e` opens the edit again.
 */
async function editLoop(ctx: ReviewContext, result: FileResult, question: ReviewQuestion & { kind: 'file' }, checker: ReturnType<typeof createPartialChecker>): Promise<FileReview> {
  const { paint, out } = ctx;
  const proposal = result.after ?? result.before;
  let offered = proposal;
  let editing = proposal;
  for (;;) {
    if (ctx.editor === undefined) return fromFileAnswer('skip');
    const edit = await ctx.editor.edit(result.path, editing);
    if ('error' in edit) {
      out(`${paint.warn(`   The editor did not run: ${edit.error}. The proposal stands.`)}\n`);
    } else {
      editing = edit.text;
      const check = await checkEdit(ctx, result, edit.text, checker);
      if ('ok' in check) {
        offered = edit.text;
        out(`\n${paint.bold(`━━ ${question.path}`)} (your edit)\n${paint.added('   re-checked: it parses and, re-analysed, is the migrated server')}${check.ok === '' ? '' : `\n   ${check.ok}`}\n`);
        const gutter = String(Math.max(countLines(result.before), countLines(offered))).length;
        await showTall(ctx, renderNumberedHunks(splitChange(result.before, offered).hunks, paint, () => '', gutter), undefined, { ...question, edited: true });
      } else {
        out(`${paint.warn(`   Your edit is not offered: ${check.refused}. ${offered === proposal ? "The tool's proposal" : 'Your last good edit'} is; e opens your edit again.`)}\n`);
      }
    }
    const answer = await ctx.prompt(offered === proposal ? question : { ...question, edited: true });
    if (answer === 'edit') continue;
    const review = fromFileAnswer(answer);
    if (offered === proposal || review.choice.kind !== 'all') return review;
    return { ...review, choice: { kind: 'edited', text: offered } };
  }
}

/** Whether an edited text may be offered: the re-check, then the proof when the run proves. */
async function checkEdit(ctx: ReviewContext, result: FileResult, text: string, checker: ReturnType<typeof createPartialChecker>): Promise<EditProof> {
  if (text === result.before) return { refused: 'it is the original file again (n skips the file)' };
  let verdict;
  try {
    verdict = checker.check(text);
  } catch (err) {
    return { refused: `it could not be re-analysed: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (verdict.kind === 'invalid') return { refused: verdict.reason };
  if (verdict.kind === 'original') return { refused: 're-analysed, it is still the original server (the migration would be offered again)' };
  if (ctx.verifyEdit === undefined) return { ok: '' };
  const proof = await ctx.verifyEdit(result, text);
  return 'ok' in proof ? proof : { refused: `run next to the original, it answers differently: ${proof.refused}` };
}

/**
 * The parts of a file that can be applied apart. Files that change together with other files (`related`,
 * `partOf`) are one part: their hunks cannot be re-checked one file at a time.
 */
function getGroups(result: FileResult, split: SplitChange, checker: ReturnType<typeof createPartialChecker>): number[][] {
  const all = split.hunks.map((h) => h.index);
  if (split.hunks.length <= 1 || (result.related?.length ?? 0) > 0 || result.partOf !== undefined) return [all];
  try {
    return groupHunks(split, checker);
  } catch {
    // a pipeline that cannot re-check (asynchronous, or crashing on a partial text): the file as a whole
    return [all];
  }
}

function describeParts(split: SplitChange, groups: number[][]): string {
  const together = groups.filter((g) => g.length > 1);
  const note = together.length === 0 ? '' : `; hunks ${together.map((g) => g.map((h) => h + 1).join('+')).join(', ')} only go together`;
  return `${split.hunks.length} hunks, asked in ${groups.length} parts${note} (y/n per part, a/d for the rest of the file, ? for help)`;
}

function getPipelineOptions(ctx: ReviewContext, result: FileResult): PipelineOptions {
  if (result.decision.kind === 'sdk') return { sdk: result.decision.sdk, style: result.decision.style, guardStdout: ctx.options?.guardStdout ?? true };
  if (result.decision.kind === 'boundary') return { sdk: result.decision.sdk, style: ctx.options?.style ?? 'server', guardStdout: ctx.options?.guardStdout ?? true };
  const sdk = ctx.options?.sdk;
  return { sdk: sdk === undefined || sdk === 'auto' ? 'v2' : sdk, style: ctx.options?.style ?? 'server', guardStdout: ctx.options?.guardStdout ?? true };
}

/**
 * Prints `text`, or shows it in the pager when it is taller than the terminal (`pagedText` instead, when
 * given: the pager can hold more than the screen). Returns whether it was paged.
 */
async function showTall(ctx: ReviewContext, text: string, pagedText?: string, question?: ReviewQuestion): Promise<boolean> {
  const pager = ctx.pager ?? NO_PAGER;
  const candidate = pagedText ?? text;
  // The pager hides the question: its last line says what comes after it.
  const footer = question === undefined ? '' : `\n${ctx.paint.bold(`── Leave the pager (q) to answer: ${describeQuestion(question)} [${getShownKeys(question).map((k) => k.key).join(',')},?]`)}\n`;
  if (isTallerThan(candidate, pager.rows(), pager.columns()) && (await pager.show(`${candidate}${footer}`))) return true;
  ctx.out(text);
  return false;
}

async function applyChoice(ctx: ReviewContext, applier: ChangeApplier, outcome: ReviewOutcome, result: FileResult, choice: FileChoice): Promise<void> {
  const { paint, out, display } = ctx;
  if (choice.kind === 'none') {
    outcome.skipped.push(result.path);
    return;
  }
  // A partial result that is still the original server needs neither the SDK dependency nor the envelope helper.
  const target = choice.kind === 'all' ? result : { ...result, after: choice.text };
  const applied = await applier.apply(target, { dependencies: choice.kind !== 'partial' || choice.state === 'migrated' });
  outcome.written.push(...applied.written);
  if (applied.error !== undefined) {
    outcome.failed.push({ path: result.path, message: applied.error });
    out(`${paint.error(`   not applied: ${display(result.path)}: ${applied.error}`)}\n`);
    return;
  }
  if (choice.kind === 'all') {
    outcome.applied.push(result.path);
    out(`${paint.added(`   applied ${display(result.path)}`)}\n`);
  } else if (choice.kind === 'edited') {
    outcome.applied.push(result.path);
    out(`${paint.added(`   applied your edited ${display(result.path)}`)}\n`);
  } else if (choice.state === 'migrated') {
    outcome.applied.push(result.path);
    out(`${paint.added(`   applied ${choice.accepted} of ${choice.hunks} hunks of ${display(result.path)} (migrated without the others)`)}\n`);
  } else {
    outcome.partial.push(result.path);
    out(`${paint.added(`   applied ${choice.accepted} of ${choice.hunks} hunks of ${display(result.path)}; the migration itself is still pending (its package.json change and new files were not written)`)}\n`);
  }
}
