// The re-check of a rewrite, before it is offered (ESLint's fix loop re-lints the same way): the new
// texts are analysed again with the same facts layer. A rewrite is refused when a changed module still
// writes to stdout, or reads a name that is bound nowhere (a binding the moved code relied on was
// removed), or when the program is not on the SDK afterwards.
import type * as t from '@babel/types';
import { buildIndex, isReferenceIdentifier, resolveIdentifier } from './ast.js';
import { buildFacts } from './facts.js';
import type { ReadModule } from './program.js';
import { parseSource } from '../parse.js';

export interface CheckProblem {
  path: string;
  line: number;
  message: string;
}

/** Names JavaScript and Node provide without a declaration. */
const GLOBALS = new Set(Object.getOwnPropertyNames(globalThis).concat(['require', 'module', 'exports', '__dirname', '__filename', 'undefined', 'arguments']));

export function checkRewrite(
  entry: { path: string; source: string; ast: t.File },
  changes: ReadonlyMap<string, { before: string; after: string }>,
  read: ReadModule | null,
  expectSdk: boolean,
  bindingsOnly = false,
): CheckProblem | null {
  const asts = new Map<string, t.File>();
  for (const [path, change] of changes) {
    let ast: t.File;
    let original: t.File;
    try {
      ast = parseSource(path, change.after);
      original = parseSource(path, change.before);
    } catch (err) {
      return { path, line: 0, message: `does not parse: ${(err as Error).message}` };
    }
    asts.set(path, ast);
    const before = unboundNames(original, change.before);
    const index = buildIndex(ast, change.after);
    for (const id of index.identifiers) {
      if (!isReferenceIdentifier(index, id) || resolveIdentifier(index, id) !== null) continue;
      if (GLOBALS.has(id.name) || before.has(id.name)) continue;
      return { path, line: id.loc?.start.line ?? 0, message: `\`${id.name}\` would not be defined` };
    }
  }
  if (bindingsOnly) return null;
  const readNew: ReadModule = (path) => changes.get(path)?.after ?? read?.(path) ?? null;
  const changed = changes.get(entry.path);
  const facts = buildFacts(entry.path, changed?.after ?? entry.source, asts.get(entry.path) ?? entry.ast, readNew);
  for (const sink of facts.sinks) {
    if (!changes.has(sink.mod.path)) continue;
    return { path: sink.mod.path, line: sink.call.loc?.start.line ?? 0, message: `still writes to stdout at line ${sink.call.loc?.start.line ?? 0}` };
  }
  if (expectSdk && facts.sdkImport === null) return { path: entry.path, line: 0, message: 'the rewritten server does not import the SDK' };
  return null;
}

function unboundNames(ast: t.File, source: string): Set<string> {
  const index = buildIndex(ast, source);
  const out = new Set<string>();
  for (const id of index.identifiers) {
    if (isReferenceIdentifier(index, id) && resolveIdentifier(index, id) === null) out.add(id.name);
  }
  return out;
}
