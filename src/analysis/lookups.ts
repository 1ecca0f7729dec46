// Lookups derived from a module's index, built once per index on first use: calls grouped by the
// function they are made in and by the name they call, assignments grouped by the name they assign.
// Each list keeps document order, so a scan over one group sees the nodes a scan over the whole
// module would have seen, in the same order, minus the ones it would have skipped.
// Deliberately not: anything that evaluates code (these are facts of the syntax only).
import type * as t from '@babel/types';
import { type AstIndex, type Binding, type FunctionNode, getEnclosingFunction, getMemberName, resolveIdentifier, unwrapExpression } from './ast.js';

interface Lookups {
  /** Calls by the function they are made in (not counting functions nested in it); null: the top level. */
  callsIn: Map<FunctionNode | null, t.CallExpression[]>;
  /** Calls of a plain name (`send(...)`, `(send as F)(...)`) by that name. */
  callsByName: Map<string, t.CallExpression[]>;
  /** The same calls by the binding the name resolves to, per name (filled for a name on first use). */
  callsByBinding: Map<string, Map<Binding, t.CallExpression[]>>;
  /** Calls of a member (`x.send(...)`, `this.#send(...)`) by its static name. */
  callsByMember: Map<string, t.CallExpression[]>;
  /** Assignments to a member of a plain name (`handlers.x = ...`, `handlers[k] = ...`) by that name. */
  memberAssignmentsByObject: Map<string, t.AssignmentExpression[]>;
  /** Assignments to a member of a name's prototype (`Logger.prototype.info = ...`, `Logger.prototype[k] = ...`) by that name. */
  prototypeAssignments: Map<string, t.AssignmentExpression[]>;
  /** Assignments to a member of `this` (`this.x = ...`) by the member's static name. */
  thisAssignments: Map<string, t.AssignmentExpression[]>;
  /**
   * Names of members whose own members change: `<a>.X.set|delete|clear|add(...)` or `<a>.X.<k> = ...`
   * (a table held in a field and filled at run time).
   */
  mutatedMembers: Set<string>;
}

const cache = new WeakMap<AstIndex, Lookups>();
const NONE: never[] = [];
const TABLE_MUTATORS = new Set(['set', 'delete', 'clear', 'add']);

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function getLookups(index: AstIndex): Lookups {
  let lookups = cache.get(index);
  if (lookups) return lookups;
  lookups = { callsIn: new Map(), callsByName: new Map(), callsByBinding: new Map(), callsByMember: new Map(), memberAssignmentsByObject: new Map(), prototypeAssignments: new Map(), thisAssignments: new Map(), mutatedMembers: new Set() };
  for (const call of index.calls) {
    push(lookups.callsIn, getEnclosingFunction(index, call), call);
    const callee = unwrapExpression(call.callee);
    if (callee.type === 'Identifier') push(lookups.callsByName, callee.name, call);
    else if (callee.type === 'MemberExpression') {
      const name = getMemberName(callee);
      if (name !== null) push(lookups.callsByMember, name, call);
      const target = unwrapExpression(callee.object);
      if (TABLE_MUTATORS.has(name ?? '') && target.type === 'MemberExpression') {
        const field = getMemberName(target);
        if (field !== null) lookups.mutatedMembers.add(field);
      }
    }
  }
  for (const assignment of index.assignments) {
    const left = assignment.left;
    if (left.type !== 'MemberExpression') continue;
    if (left.object.type === 'Identifier') push(lookups.memberAssignmentsByObject, left.object.name, assignment);
    if (left.object.type === 'MemberExpression' && left.object.object.type === 'Identifier' && getMemberName(left.object) === 'prototype') push(lookups.prototypeAssignments, left.object.object.name, assignment);
    if (left.object.type === 'ThisExpression') {
      const name = getMemberName(left);
      if (name !== null) push(lookups.thisAssignments, name, assignment);
    }
    const target = unwrapExpression(left.object);
    if (target.type === 'MemberExpression') {
      const field = getMemberName(target);
      if (field !== null) lookups.mutatedMembers.add(field);
    }
  }
  cache.set(index, lookups);
  return lookups;
}

/** The calls made in `fn` itself (not in functions nested in it), or at the top level for null; document order. */
export function getCallsIn(index: AstIndex, fn: FunctionNode | null): readonly t.CallExpression[] {
  return getLookups(index).callsIn.get(fn) ?? NONE;
}

/** The calls whose callee is the plain name `name` (parentheses and casts aside); document order. */
export function getCallsOfName(index: AstIndex, name: string): readonly t.CallExpression[] {
  return getLookups(index).callsByName.get(name) ?? NONE;
}

/**
 * The calls whose callee is a plain name that resolves to `binding` (in minified code one name is many
 * bindings: the calls of a name are resolved once, not once per question); document order.
 */
export function getCallsOfBinding(index: AstIndex, binding: Binding): readonly t.CallExpression[] {
  const lookups = getLookups(index);
  let byBinding = lookups.callsByBinding.get(binding.name);
  if (!byBinding) {
    byBinding = new Map();
    for (const call of getCallsOfName(index, binding.name)) {
      const resolved = resolveIdentifier(index, unwrapExpression(call.callee) as t.Identifier);
      if (resolved) push(byBinding, resolved, call);
    }
    lookups.callsByBinding.set(binding.name, byBinding);
  }
  return byBinding.get(binding) ?? NONE;
}

/** The calls whose callee is a member with the static name `name`; document order. */
export function getCallsOfMember(index: AstIndex, name: string): readonly t.CallExpression[] {
  return getLookups(index).callsByMember.get(name) ?? NONE;
}

/** The assignments to a member of the plain name `object` (`object.x = ...`, `object[k] = ...`); document order. */
export function getMemberAssignmentsOf(index: AstIndex, object: string): readonly t.AssignmentExpression[] {
  return getLookups(index).memberAssignmentsByObject.get(object) ?? NONE;
}

/** The assignments `this.<name> = ...` (any operator); document order. */
export function getThisAssignments(index: AstIndex, name: string): readonly t.AssignmentExpression[] {
  return getLookups(index).thisAssignments.get(name) ?? NONE;
}

/** Whether a member named `name` holds a table that code changes (`this.tools.set(...)`, `state.tools[k] = ...`). */
export function isMutatedMember(index: AstIndex, name: string): boolean {
  return getLookups(index).mutatedMembers.has(name);
}

/** The assignments to a member of `<object>.prototype` (`Logger.prototype.info = ...`); document order. */
export function getPrototypeAssignmentsOf(index: AstIndex, object: string): readonly t.AssignmentExpression[] {
  return getLookups(index).prototypeAssignments.get(object) ?? NONE;
}
