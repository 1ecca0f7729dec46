// Where the program names the process's own stdin and stdout: the expressions whose value comes
// straight from the process object (`process.stdin`, `import_node_process.default.stdout`,
// `__importDefault(require('node:process')).default.stdin`) and the reads of names bound to them by an
// import or a destructuring (`import { stdin } from 'node:process'`, `const { stdout } = process`).
// Every other way of reaching the streams (an alias, a parameter, a class field) starts at one of
// these, so a rewrite that replaces them all replaces every stream the program reads or writes.
// Deliberately not: following values (the interpreter does that); this is where they come from.
import type * as t from '@babel/types';
import { type Binding, getBindingWrites, getMemberName, isReferenceIdentifier, resolveIdentifier, unwrapExpression } from './ast.js';
import type { Interpreter } from './interp.js';
import type { ModuleUnit } from './program.js';

export type StdioStream = 'stdin' | 'stdout';

export interface StdioRef {
  stream: StdioStream;
  mod: ModuleUnit;
  /** The member expression, or the identifier read (a name bound by an import or a destructuring). */
  node: t.MemberExpression | t.Identifier;
  /** `{ stdin }` in an object literal: the name is also the property's key. */
  shorthand: boolean;
}

const PROCESS_MODULE = /^(?:node:)?process$/;
const STREAMS: ReadonlySet<string> = new Set(['stdin', 'stdout']);

/** Every place a module of the program names the process's stdin or stdout, in source order per module. */
export function findStdioRefs(modules: readonly ModuleUnit[], interp: Interpreter): StdioRef[] {
  const out: StdioRef[] = [];
  for (const mod of modules) {
    const refs: StdioRef[] = [];
    for (const node of mod.index.members) {
      if (node.type !== 'MemberExpression') continue;
      const name = getMemberName(node);
      if (name === null || !STREAMS.has(name)) continue;
      if (!isProcessValue(mod, node.object, 0) && !isProcessObject(interp, mod, node.object)) continue;
      // `process.stdout = x` replaces the stream: not a read of it
      const parent = mod.index.parent.get(node);
      if (parent?.type === 'AssignmentExpression' && parent.left === node) continue;
      refs.push({ stream: name as StdioStream, mod, node, shorthand: false });
    }
    // names bound to a stream (`import { stdin as input } from 'node:process'`, `const { stdout } = process`)
    const names = getStreamNames(mod);
    if (names.size > 0) {
      for (const id of mod.index.identifiers) {
        const stream = names.get(id.name);
        if (stream === undefined || !isReferenceIdentifier(mod.index, id)) continue;
        const binding = resolveIdentifier(mod.index, id);
        if (binding === null || getBoundStream(mod, binding) !== stream) continue;
        const parent = mod.index.parent.get(id);
        const shorthand = parent?.type === 'ObjectProperty' && parent.shorthand && parent.value === id;
        refs.push({ stream, mod, node: id, shorthand });
      }
    }
    refs.sort((a, b) => a.node.start! - b.node.start!);
    out.push(...refs);
  }
  return out;
}

/** The local names a module binds to the streams, by import or destructuring (before scoping). */
function getStreamNames(mod: ModuleUnit): Map<string, StdioStream> {
  const names = new Map<string, StdioStream>();
  for (const statement of mod.ast.program.body) {
    if (statement.type !== 'ImportDeclaration' || !PROCESS_MODULE.test(statement.source.value)) continue;
    for (const spec of statement.specifiers) {
      if (spec.type !== 'ImportSpecifier') continue;
      const imported = spec.imported.type === 'Identifier' ? spec.imported.name : spec.imported.value;
      if (STREAMS.has(imported)) names.set(spec.local.name, imported as StdioStream);
    }
  }
  for (const scope of mod.index.scopes.values()) {
    for (const [name, binding] of scope) {
      const stream = binding.kind === 'import' ? null : getBoundStream(mod, binding);
      if (stream !== null) names.set(name, stream);
    }
  }
  return names;
}

/** The stream a binding holds: `import { stdin } from 'node:process'`, `const { stdin } = process` (never reassigned). */
function getBoundStream(mod: ModuleUnit, binding: Binding): StdioStream | null {
  if (binding.kind === 'import') return PROCESS_MODULE.test(binding.source) && STREAMS.has(binding.imported) ? (binding.imported as StdioStream) : null;
  if (binding.kind !== 'const' && binding.kind !== 'let' && binding.kind !== 'var') return null;
  const step = binding.pattern[0];
  if (binding.pattern.length !== 1 || typeof step !== 'string' || !STREAMS.has(step) || binding.declarator.init == null) return null;
  if (binding.kind !== 'const' && getBindingWrites(mod.index, binding).length > 0) return null;
  return isProcessValue(mod, binding.declarator.init, 0) ? (step as StdioStream) : null;
}

function isProcessObject(interp: Interpreter, mod: ModuleUnit, node: t.Node): boolean {
  const value = interp.evalStatic(node, mod);
  return (value.k === 'global' || value.k === 'builtin') && value.name === 'process';
}

/** Whether an expression is the process object by its syntax: the global, `.default` of one, a binding or call built from `require('node:process')`. */
export function isProcessValue(mod: ModuleUnit, node: t.Node, depth: number): boolean {
  if (depth > 4) return false;
  const expr = unwrapExpression(node);
  if (expr.type === 'MemberExpression' && getMemberName(expr) === 'default') return isProcessValue(mod, expr.object, depth + 1);
  if (expr.type === 'Identifier') {
    const binding = resolveIdentifier(mod.index, expr);
    if (binding === null) return expr.name === 'process';
    if (binding.kind === 'import') return PROCESS_MODULE.test(binding.source);
    if ((binding.kind === 'const' || binding.kind === 'let' || binding.kind === 'var') && binding.declarator.id.type === 'Identifier' && binding.declarator.init) return isProcessValue(mod, binding.declarator.init, depth + 1);
    return false;
  }
  if (expr.type === 'CallExpression') {
    const callee = unwrapExpression(expr.callee);
    if (callee.type === 'Identifier' && callee.name === 'require') return expr.arguments[0]?.type === 'StringLiteral' && PROCESS_MODULE.test(expr.arguments[0].value);
    // an interop wrapper around the require (`__importDefault(require(...))`, `__toESM(require(...))`)
    return expr.arguments[0] !== undefined && isProcessValue(mod, expr.arguments[0], depth + 1);
  }
  return false;
}
