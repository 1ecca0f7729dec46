// Modules shared by several servers' rewrites (./scan.ts): one rewrite per module, or every importer that
// would change it differently refused with the reason, with the importers that come with it.
import { basename } from 'node:path';
import type { FileResult, PipelineOptions } from '../model/types.js';
import { getHint } from '../model/reasons.js';

/**
 * Entry files that start one server from a shared module (`bin/serve.js` and `src/main.js` both running
 * the class in `src/app.js`) each plan a rewrite of that module; the module is planned once, per module
 * and not per entry. Entries are grouped by the modules their rewrites change (transitively), and each
 * group is decided as a whole:
 * 1. every shared module is changed identically by all its entries (same before, same after): that is one
 *    change, and every entry's own edits stand (expandRelated writes it once);
 * 2. otherwise (one entry's rewrite is the SDK, another's the envelope, say) the group's entries are
 *    processed again with the SDK rewrite declined (ENTRIES_DIFFER): the envelope works at the module's
 *    own I/O, so its changes of a shared module do not depend on the entry as often;
 * 3. still different: no one rewrite fits every entry, and an entry left as it is would start a module
 *    rewritten for another one, so nothing of the group is written: its entries and shared modules are
 *    left alone with SHARED_MODULE_CONFLICT.
 */
export async function resolveSharedModules(results: FileResult[], retry: (path: string, sdkDeclined: NonNullable<PipelineOptions['sdkDeclined']>) => Promise<FileResult>): Promise<FileResult[]> {
  const groups = findConflictingGroups(results);
  if (groups.length === 0) return results;
  const out = [...results];
  for (const group of groups) {
    const entries = group.owners.map((o) => o.path);
    const detail = `${describeEntries(entries)} need different SDK rewrites of ${describeModules(group.modules)}`;
    const retried = await Promise.all(group.owners.map((owner) => retry(owner.path, { reason: 'ENTRIES_DIFFER', detail })));
    for (const [i, owner] of group.owners.entries()) out[out.indexOf(owner)] = retried[i]!;
  }
  for (const group of findConflictingGroups(out)) {
    const message = `${describeEntries(group.owners.map((o) => o.path))} start the same server, but their rewrites of ${describeModules(group.modules)} differ (the SDK and the envelope alike): none is written`;
    const modules = new Set(group.modules);
    for (const result of out) {
      if (!group.owners.includes(result) && !modules.has(result.path)) continue;
      delete result.after;
      delete result.companions;
      result.related = [];
      result.fixes = [];
      for (const finding of result.findings) finding.fixed = false;
      result.decision = { kind: 'leave', reason: 'SHARED_MODULE_CONFLICT', hint: getHint('SHARED_MODULE_CONFLICT'), line: result.decision.kind === 'none' || result.decision.kind === 'sdk' ? undefined : result.decision.line };
      result.diagnostics = [...result.diagnostics, { code: 'SHARED_MODULE_CONFLICT', message }];
    }
  }
  return out;
}

/**
 * A candidate whose stdin loop runs only when an importer calls it (startedByImporter), imported by an
 * entry whose rewrite changes the module holding that loop (the candidate itself, or the framework module
 * a file that only registers tools on the app imports): part of that entry's server, not an entry of its
 * own. Analysed alone, the function starting its loop is never called (NO_DISPATCH, or a boundary around
 * a loop that never runs, and a rewrite of the shared modules that differs from the entry's); what of it
 * changes comes from the entry's result (expandRelated).
 */
export function isPartOfImporter(result: FileResult, results: readonly FileResult[]): boolean {
  if (result.startedByImporter === undefined || result.error !== undefined) return false;
  const loop = new Set([result.path, ...result.startedByImporter]);
  return results.some((other) => other !== result && other.error === undefined && other.startedByImporter === undefined && (other.related ?? []).some((r) => loop.has(r.path)));
}

interface SharedGroup {
  /** The entry results whose rewrites change the shared modules, in path order. */
  owners: FileResult[];
  /** The modules more than one of them changes, in path order. */
  modules: string[];
}

/** The groups of entries sharing modules in which some shared module is not changed identically by all. */
function findConflictingGroups(results: readonly FileResult[]): SharedGroup[] {
  const claims = getClaims(results);
  const root = new Map<FileResult, FileResult>();
  const find = (r: FileResult): FileResult => {
    let at = r;
    while (root.get(at) !== undefined && root.get(at) !== at) at = root.get(at)!;
    root.set(r, at);
    return at;
  };
  for (const owners of claims.values()) {
    for (const owner of owners) if (!root.has(owner)) root.set(owner, owner);
    for (const other of owners.slice(1)) root.set(find(other), find(owners[0]!));
  }
  const conflicting = new Set<FileResult>();
  const groups = new Map<FileResult, SharedGroup>();
  for (const [path, owners] of claims) {
    if (owners.length < 2) continue;
    const group = find(owners[0]!);
    if (!groups.has(group)) groups.set(group, { owners: [], modules: [] });
    groups.get(group)!.modules.push(path);
    const first = getClaimedChange(owners[0]!, path);
    if (owners.some((o) => { const c = getClaimedChange(o, path); return c.before !== first.before || c.after !== first.after; })) conflicting.add(group);
  }
  for (const owner of root.keys()) groups.get(find(owner))?.owners.push(owner);
  return [...conflicting].map((g) => groups.get(g)!).map((g) => ({ owners: [...new Set(g.owners)].sort((a, b) => compareStrings(a.path, b.path)), modules: g.modules.sort(compareStrings) }));
}

/** Module path -> the results whose rewrites change it (results that could not be processed claim nothing). */
function getClaims(results: readonly FileResult[]): Map<string, FileResult[]> {
  const claims = new Map<string, FileResult[]>();
  for (const result of results) {
    if (result.error !== undefined) continue;
    for (const related of result.related ?? []) claims.set(related.path, [...(claims.get(related.path) ?? []), result]);
  }
  return claims;
}

function getClaimedChange(owner: FileResult, path: string): { before: string; after: string } {
  return owner.related!.find((r) => r.path === path)!;
}

function describeEntries(paths: readonly string[]): string {
  return `the entry files ${paths.map((p) => basename(p)).join(' and ')}`;
}

function describeModules(paths: readonly string[]): string {
  return paths.map((p) => basename(p)).join(', ');
}

/**
 * A rewrite that changes other files of its server (a dispatcher in an imported module) gets one result
 * per file. Entries that change a module identically share one result for it (resolveSharedModules made
 * every shared change agree, or refused its group); two that still want different changes of one file
 * refuse both: nothing is written half.
 */
export function expandRelated(results: FileResult[]): FileResult[] {
  const byPath = new Map(results.map((r) => [r.path, r]));
  const claims = getClaims(results);
  const out = [...results];
  for (const [path, claimants] of claims) {
    // a module that is also a candidate of its own: the rewrite of the file that imports it saw the whole
    // program (who constructs it, who calls it) and wins
    const own = byPath.get(path);
    const owners = [...claimants].sort((a, b) => compareStrings(a.path, b.path));
    const owner = owners[0]!;
    const change = getClaimedChange(owner, path);
    if (owners.some((o) => getClaimedChange(o, path).after !== change.after || getClaimedChange(o, path).before !== change.before)) {
      for (const o of owners) refuseRelated(o, `its rewrite also changes ${path}, which another rewrite changes differently; left untouched`);
      continue;
    }
    const result: FileResult = {
      path,
      before: change.before,
      after: change.after,
      decision: owner.decision,
      detected: owner.detected,
      fixes: [],
      findings: [],
      diagnostics: [],
      partOf: owner.path,
    };
    if (owners.length > 1) result.alsoPartOf = owners.slice(1).map((o) => o.path);
    // the helper module the rewrite needs goes with whichever of its files changes
    if (owner.companions !== undefined && owner.companions.length > 0) result.companions = owner.companions;
    if (own) out[out.indexOf(own)] = result;
    else out.push(result);
  }
  for (const result of out) delete result.related;
  return out;
}

function refuseRelated(result: FileResult, why: string): void {
  result.error = why;
  delete result.after;
  delete result.companions;
  result.related = [];
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
