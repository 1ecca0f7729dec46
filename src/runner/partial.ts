// Whether a partly applied change (some hunks accepted, others not) may be written: the partial text is
// run through the pipeline again, like any output (ESLint re-lints after a fix). It must parse, keep every
// binding its code reads, and be one of two whole states: still the original server (the same migration
// would be offered again), or the migrated server as the full rewrite leaves it. Anything in between is a
// half-migrated server and is refused. Deliberately no I/O of its own beyond what the pipeline reads.
import { checkRewrite } from '../analysis/check.js';
import { assertNever } from '../model/assert-never.js';
import type { Decision, FileResult, PipelineOptions } from '../model/types.js';
import { parseSource } from '../parse.js';
import { processSource } from '../pipeline.js';
import type { PartialChecker, PartialVerdict } from './hunks.js';
import { readModuleSync } from './read-module.js';
import type { ProcessFile } from './scan.js';

/**
 * A checker for partial versions of `result` (which must have `after`). `process` is the pipeline the run
 * used (the real one by default); its verdicts are cached per text.
 */
export function createPartialChecker(result: FileResult, options: PipelineOptions, process: ProcessFile = defaultProcess): PartialChecker {
  const after = result.after ?? result.before;
  const cache = new Map<string, PartialVerdict>([
    [result.before, { kind: 'original' }],
    [after, { kind: 'migrated' }],
  ]);
  let migrated: FileResult | null = null;
  const beforeImports = getImportSpecifiers(result.before);
  return {
    check(text) {
      const cached = cache.get(text);
      if (cached !== undefined) return cached;
      migrated ??= runSync(process, result.path, after, options);
      const verdict = judge(result, migrated, beforeImports, text, runSync(process, result.path, text, options));
      cache.set(text, verdict);
      return verdict;
    },
  };
}

function judge(original: FileResult, migrated: FileResult, beforeImports: ReadonlySet<string>, text: string, partial: FileResult): PartialVerdict {
  if (partial.error !== undefined) return { kind: 'invalid', reason: partial.error };
  const unbound = getNewUnboundName(original.path, original.before, text);
  if (unbound !== null) return { kind: 'invalid', reason: unbound };
  // 1. Still the original server: same decision, same detected shape, no new finding, no new import.
  if (
    partial.after !== undefined &&
    isSameDecision(partial.decision, original.decision) &&
    partial.detected === original.detected &&
    hasNoNewFinding(partial, original) &&
    [...getImportSpecifiers(text)].every((s) => beforeImports.has(s))
  ) {
    return { kind: 'original' };
  }
  // 2. The migrated server: re-analysed, it says what the full rewrite's output says.
  if (
    (partial.after === undefined) === (migrated.after === undefined) &&
    isSameDecision(partial.decision, migrated.decision) &&
    partial.detected === migrated.detected &&
    hasNoNewFinding(partial, migrated)
  ) {
    return { kind: 'migrated' };
  }
  return { kind: 'invalid', reason: `it would be a half-migrated server (re-analysed: ${summarize(partial)})` };
}

function runSync(process: ProcessFile, path: string, text: string, options: PipelineOptions): FileResult {
  const result = process(path, text, options);
  // The review asks one question at a time; an asynchronous pipeline (worker threads) is not used here.
  if (result instanceof Promise) throw new Error('internal error: the partial check needs a synchronous pipeline');
  return result;
}

function defaultProcess(path: string, source: string, options: PipelineOptions): FileResult {
  return processSource(path, source, options, readModuleSync);
}

/** A name the partial text reads that nothing binds (and the original did not read unbound either). */
function getNewUnboundName(path: string, before: string, text: string): string | null {
  let ast;
  try {
    ast = parseSource(path, before);
  } catch {
    return null;
  }
  const problem = checkRewrite({ path, source: before, ast }, new Map([[path, { before, after: text }]]), null, false, true);
  return problem === null ? null : `${problem.message}${problem.line > 0 ? ` (line ${problem.line})` : ''}`;
}

function isSameDecision(a: Decision, b: Decision): boolean {
  if (a.kind !== b.kind) return false;
  if ((a.kind === 'boundary' || a.kind === 'envelope' || a.kind === 'leave') && (b.kind === 'boundary' || b.kind === 'envelope' || b.kind === 'leave')) return a.reason === b.reason;
  return true;
}

function hasNoNewFinding(partial: FileResult, reference: FileResult): boolean {
  const known = new Set(reference.findings.map((f) => f.rule));
  return partial.findings.every((f) => known.has(f.rule));
}

function summarize(result: FileResult): string {
  switch (result.decision.kind) {
    case 'sdk':
      return result.after === undefined ? 'on the SDK' : 'a server the SDK rewrite would still change';
    case 'boundary':
      return result.after === undefined ? 'at the SDK boundary' : `a server the boundary rewrite would still change (${result.decision.reason})`;
    case 'envelope':
      return `envelope ${result.decision.reason}`;
    case 'leave':
      return `left alone: ${result.decision.reason}`;
    case 'none':
      return 'not a server any more';
    default:
      return assertNever(result.decision);
  }
}

/** Module specifiers the text imports or requires (a cheap text scan: enough to see a new SDK import). */
function getImportSpecifiers(text: string): Set<string> {
  const out = new Set<string>();
  for (const match of text.matchAll(/(?:\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(\s*|^\s*import\s*)(['"])([^'"\n]+)\1/gm)) out.add(match[2]!);
  return out;
}
