// Messages handled one at a time through a promise queue (`queue = queue.then(() => handle(line))`):
// whether the handling shares state across an await. The original never starts a message before the
// one ahead of it is done; the SDK runs request handlers concurrently. That is the same behaviour
// unless a handler suspends (an `await`) while state another request reads or writes is half changed:
// so the SDK rewrite keeps behaviour when the queued code either never awaits or writes no state
// beyond its own locals.
// Deliberately not: an alias analysis. Every write to a binding declared outside the writing
// function, to a member of `this` or of such a binding, and every mutating method call on one counts
// as shared state; every `await` anywhere in the queued code counts as a suspension.
import { t } from '../babel.js';
import { forEachChild, type FunctionNode, getMemberName, isInside, resolveIdentifier, unwrapExpression } from './ast.js';
import type { Interpreter, PathResult } from './interp.js';
import type { ModuleUnit } from './program.js';
import type { Frame } from './values.js';

/** Where queued handling writes shared state, and an await that lets another message run in between. */
export interface SharedAcrossAwait {
  write: { node: t.Node; mod: ModuleUnit };
  suspend: { node: t.Node; mod: ModuleUnit };
}

const MUTATORS = new Set(['push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'set', 'add', 'delete', 'clear']);

/** Null when no path runs through a promise queue, or when the queued code cannot interleave on shared state. */
export function findStateSharedAcrossAwait(interp: Interpreter, paths: PathResult[]): SharedAcrossAwait | null {
  // 1. The functions the queued callbacks ran (on any path), and those they call by a name known statically.
  const fns = new Map<FunctionNode, ModuleUnit>();
  for (const p of paths) {
    for (const e of p.state.events) {
      if (e.e === 'enter' && e.frame.fn && isHeldByQueue(e.frame)) fns.set(e.frame.fn, e.frame.mod);
    }
  }
  if (fns.size === 0) return null;
  const work = [...fns];
  while (work.length > 0) {
    const [fn, mod] = work.pop()!;
    for (const callee of getStaticCallees(interp, fn, mod)) {
      if (fns.has(callee.fn)) continue;
      fns.set(callee.fn, callee.mod);
      work.push([callee.fn, callee.mod]);
    }
  }
  // 2. An await and a shared write among them.
  let suspend: SharedAcrossAwait['suspend'] | null = null;
  let write: SharedAcrossAwait['write'] | null = null;
  for (const [fn, mod] of fns) {
    const found = scanFunction(fn, mod);
    suspend ??= found.suspend ? { node: found.suspend, mod } : null;
    write ??= found.write ? { node: found.write, mod } : null;
  }
  return suspend && write ? { write, suspend } : null;
}

/**
 * Run by a callback of the queue, and held by it until done: no async function on the way was called
 * with its promise dropped (`this.onMessage(msg);` as a statement). Past such a call the queue holds
 * the function only up to its first await, and after that the original runs it concurrently already.
 */
function isHeldByQueue(frame: Frame): boolean {
  for (let f: Frame | null = frame; f; f = f.caller) {
    if (f.queued) return true;
    if (f.fn && f.call && f.caller && isDroppedAsyncCall(f.caller.mod, f.call, f.fn)) return false;
  }
  return false;
}

/** `handle(msg);` (a statement, or `void handle(msg)`) where `handle` is async: nothing waits for it. */
function isDroppedAsyncCall(mod: ModuleUnit, call: t.Node, fn: FunctionNode): boolean {
  if (!(fn as { async?: boolean }).async) return false;
  let node: t.Node = call;
  let parent = mod.index.parent.get(node);
  while (parent && (parent.type === 'ParenthesizedExpression' || parent.type === 'TSAsExpression' || parent.type === 'TSNonNullExpression')) {
    node = parent;
    parent = mod.index.parent.get(node);
  }
  return parent?.type === 'ExpressionStatement' || (parent?.type === 'UnaryExpression' && parent.operator === 'void');
}

/** Functions a function calls whose callee the analysis knows without running it (a name, a method of a known object). */
function getStaticCallees(interp: Interpreter, fn: FunctionNode, mod: ModuleUnit): { fn: FunctionNode; mod: ModuleUnit }[] {
  const out: { fn: FunctionNode; mod: ModuleUnit }[] = [];
  const visit = (node: t.Node): void => {
    if (node.type === 'CallExpression' || node.type === 'NewExpression') {
      const callee = unwrapExpression(node.callee);
      const value = interp.evalStatic(callee, mod);
      if (value.k === 'func' && !isDroppedAsyncCall(mod, node, value.fn)) out.push({ fn: value.fn, mod: value.mod });
      // `handlers[name](args)`: any function of the table may run
      if (callee.type === 'MemberExpression' && callee.computed) {
        const table = interp.evalStatic(callee.object, mod);
        if (table.k === 'obj' && table.node && table.mod) {
          for (const prop of table.node.properties) {
            if (prop.type === 'ObjectMethod') out.push({ fn: prop, mod: table.mod });
            else if (prop.type === 'ObjectProperty') {
              const v = interp.evalStatic(prop.value, table.mod);
              if (v.k === 'func') out.push({ fn: v.fn, mod: v.mod });
            }
          }
        }
      }
    }
    forEachChild(node, visit);
  };
  visit(fn.body);
  return out;
}

/** The first await and the first write of state declared outside `fn` (its nested functions included). */
function scanFunction(fn: FunctionNode, mod: ModuleUnit): { suspend: t.Node | null; write: t.Node | null } {
  let suspend: t.Node | null = null;
  let write: t.Node | null = null;
  const isShared = (target: t.Node): boolean => {
    let root = unwrapExpression(target);
    while (root.type === 'MemberExpression' || root.type === 'OptionalMemberExpression') root = unwrapExpression(root.object);
    if (root.type === 'ThisExpression') return !(fn.type === 'ClassMethod' && fn.kind === 'constructor');
    if (root.type !== 'Identifier') return false;
    const binding = resolveIdentifier(mod.index, root);
    if (!binding) return false;
    if (binding.kind === 'param') return !isAtOrInside(mod, binding.fn, fn);
    if ('declarator' in binding && binding.declarator) return !isAtOrInside(mod, binding.declarator, fn);
    return binding.kind !== 'catch' && binding.kind !== 'function' && binding.kind !== 'class';
  };
  const visit = (node: t.Node): void => {
    if ((node.type === 'AwaitExpression' && !isTrailing(mod, node, fn)) || (node.type === 'ForOfStatement' && node.await)) suspend ??= node;
    if (node.type === 'AssignmentExpression' && isShared(node.left)) write ??= node;
    if (node.type === 'UpdateExpression' && isShared(node.argument)) write ??= node;
    if (node.type === 'UnaryExpression' && node.operator === 'delete' && isShared(node.argument)) write ??= node;
    if (node.type === 'CallExpression') {
      const callee = unwrapExpression(node.callee);
      if (callee.type === 'MemberExpression' && MUTATORS.has(getMemberName(callee) ?? '') && isShared(callee.object)) write ??= node;
    }
    forEachChild(node, visit);
  };
  visit(fn.body);
  return { suspend, write };
}

/**
 * Whether nothing of `fn` runs after the await resumes (`await onMessage(msg)` as its last statement,
 * `return await handle(msg)`): the function completes at once, and the await of its caller is judged
 * on its own; what the awaited call does is scanned as a function of the queue.
 */
function isTrailing(mod: ModuleUnit, node: t.AwaitExpression, fn: FunctionNode): boolean {
  const parent = mod.index.parent.get(node);
  if (parent === fn) return true;
  if (!parent || (parent.type !== 'ExpressionStatement' && parent.type !== 'ReturnStatement')) return false;
  let statement: t.Node = parent;
  for (;;) {
    const block = mod.index.parent.get(statement);
    if (!block) return false;
    if (block.type === 'IfStatement') {
      statement = block;
      continue;
    }
    if (block.type !== 'BlockStatement' || block.body[block.body.length - 1] !== statement) return false;
    const owner = mod.index.parent.get(block);
    if (owner === fn) return true;
    if (!owner || owner.type !== 'IfStatement') {
      if (owner?.type !== 'BlockStatement') return false;
      statement = block;
      continue;
    }
    statement = owner;
  }
}

/** `node` is `fn` or lies inside it. */
function isAtOrInside(mod: ModuleUnit, node: t.Node, fn: FunctionNode): boolean {
  return node === fn || isInside(mod.index, node, fn);
}

