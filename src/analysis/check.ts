// The re-check of a rewrite, before it is offered (ESLint's fix loop re-lints the same way): the new
// texts are analysed again with the same facts layer. A rewrite is refused when a changed module still
// writes to stdout, or reads a name that is bound nowhere (a binding the moved code relied on was
// removed), or when the program is not on the SDK afterwards (or, at the boundary, still names the
// process's stdin or stdout).
import type * as t from '@babel/types';
import { buildIndex, type FunctionNode, getLine, isModuleExports, isReferenceIdentifier, resolveIdentifier } from './ast.js';
import { buildFacts } from './facts.js';
import type { ModuleUnit } from './program.js';
import type { ReadModule } from './read-module.js';
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
  /** The SDK at the boundary: no changed module may name the process's stdin or stdout any more. */
  noStdio = false,
): CheckProblem | null {
  const asts = new Map<string, t.File>();
  for (const [path, change] of changes) {
    let ast: t.File;
    let original: t.File;
    try {
      ast = parseSource(path, change.after);
      // the entry's original is the tree the analysis read (indexed already)
      original = path === entry.path && change.before === entry.source ? entry.ast : parseSource(path, change.before);
    } catch (err) {
      return { path, line: 0, message: `does not parse: ${(err as Error).message}` };
    }
    asts.set(path, ast);
    const before = unboundNames(original, change.before);
    const index = buildIndex(ast, change.after);
    for (const id of index.identifiers) {
      if (!isReferenceIdentifier(index, id) || resolveIdentifier(index, id) !== null) continue;
      if (GLOBALS.has(id.name) || before.has(id.name)) continue;
      return { path, line: getLine(id), message: `\`${id.name}\` would not be defined` };
    }
  }
  if (bindingsOnly) return null;
  const readNew: ReadModule = (path) => changes.get(path)?.after ?? read?.(path) ?? null;
  const changed = changes.get(entry.path);
  const facts = buildFacts(entry.path, changed?.after ?? entry.source, asts.get(entry.path) ?? entry.ast, readNew);
  for (const sink of facts.sinks) {
    if (!changes.has(sink.mod.path)) continue;
    // a writer the rewritten program never calls, kept only because its module exports it
    if (sink.fn && isOnlyExported(sink.mod, sink.fn, facts.program.modules)) continue;
    return { path: sink.mod.path, line: getLine(sink.call), message: `still writes to stdout at line ${getLine(sink.call)}` };
  }
  if (noStdio) {
    const left = facts.stdio.find((ref) => changes.has(ref.mod.path));
    if (left !== undefined) return { path: left.mod.path, line: getLine(left.node), message: `still names process.${left.stream} at line ${getLine(left.node)}` };
  }
  if (expectSdk && facts.sdkImport === null) return { path: entry.path, line: 0, message: 'the rewritten server does not import the SDK' };
  return null;
}

/**
 * A module-level function (`function emit(m) {...}`, `const emit = (m) => ...`) whose only references are
 * its module's exports, and that no other module of the program names: nothing calls it any more.
 */
function isOnlyExported(mod: ModuleUnit, fn: FunctionNode, modules: ModuleUnit[]): boolean {
  const parent = mod.index.parent.get(fn);
  const id = fn.type === 'FunctionDeclaration' ? fn.id : parent?.type === 'VariableDeclarator' && parent.init === fn && parent.id.type === 'Identifier' ? parent.id : null;
  if (!id) return false;
  const statement = fn.type === 'FunctionDeclaration' ? fn : mod.index.parent.get(parent!);
  if (!statement || mod.index.parent.get(statement) !== mod.ast.program) return false;
  const binding = resolveIdentifier(mod.index, id);
  if (!binding) return false;
  for (const ref of mod.index.identifiers) {
    if (ref === id || ref.name !== id.name || !isReferenceIdentifier(mod.index, ref) || resolveIdentifier(mod.index, ref) !== binding) continue;
    if (ref.start! >= fn.start! && ref.end! <= fn.end!) continue;
    if (!isExportPosition(mod, ref)) return false;
  }
  // another module of the program that still reads the name (an import alone does not count)
  for (const other of modules) {
    if (other === mod) continue;
    for (const ref of other.index.identifiers) {
      if (ref.name !== id.name || !isReferenceIdentifier(other.index, ref)) continue;
      const holder = other.index.parent.get(ref);
      if (holder?.type === 'ObjectProperty' && other.index.parent.get(holder)?.type === 'ObjectPattern') continue;
      return false;
    }
  }
  return true;
}

/** `module.exports = { emit }`, `exports.emit = emit`, `export { emit }`. */
function isExportPosition(mod: ModuleUnit, ref: t.Identifier): boolean {
  let node: t.Node = ref;
  let parent = mod.index.parent.get(node);
  if (parent?.type === 'ExportSpecifier') return true;
  if (parent?.type === 'ObjectProperty' && parent.value === node) {
    node = mod.index.parent.get(parent)!;
    parent = mod.index.parent.get(node);
  }
  if (parent?.type !== 'AssignmentExpression' || parent.right !== node) return false;
  const left = parent.left;
  if (left.type !== 'MemberExpression') return false;
  const object = left.object;
  // `module.exports.emit = emit`, `exports.emit = emit`, `module.exports = emit`
  return isModuleExports(object) || (object.type === 'Identifier' && object.name === 'exports') || isModuleExports(left);
}

function unboundNames(ast: t.File, source: string): Set<string> {
  const index = buildIndex(ast, source);
  const out = new Set<string>();
  for (const id of index.identifiers) {
    if (isReferenceIdentifier(index, id) && resolveIdentifier(index, id) === null) out.add(id.name);
  }
  return out;
}
