// Protocol plumbing of a server's modules: functions that write to stdout themselves, functions that only
// call writer helpers (`sendResult(id, r) { this.emit({ id, result: r }) }`), and the functions that parse
// incoming messages. The dispatcher-level rewrite removes them once nothing calls them, even when the
// original never called them either (or they are methods of an exported class): the SDK reads and writes
// now, and a stray call would corrupt its transport. READ-ONLY: names, per module, for the prune.
import type * as t from '@babel/types';
import { type FunctionNode, getEnclosingFunction, getMemberName, resolveIdentifier } from '../analysis/ast.js';
import type { FileFacts } from '../analysis/facts.js';
import { getCallsIn } from '../analysis/lookups.js';
import type { ModuleUnit } from '../analysis/program.js';

/** Globals a writer may call while building its message (`String(id)`, `Number(id)`) without doing anything else. */
const PURE_GLOBALS = new Set(['String', 'Number', 'Boolean', 'Array', 'Object']);

/** Each module's plumbing, by the names its declarations go by (`send`, `#send`, `sendResult`). */
export function findPlumbing(facts: FileFacts, parses: readonly { call: t.CallExpression; mod: ModuleUnit }[]): Map<ModuleUnit, Set<string>> {
  const out = new Map<ModuleUnit, Set<string>>();
  for (const mod of facts.program.modules) out.set(mod, findPlumbingNames(facts, parses, mod));
  return out;
}

function findPlumbingNames(facts: FileFacts, parses: readonly { call: t.CallExpression; mod: ModuleUnit }[], mod: ModuleUnit): Set<string> {
  const writers = new Set<FunctionNode>(facts.sinks.filter((s) => s.mod === mod && s.fn).map((s) => s.fn!));
  // the functions that parse incoming messages are protocol plumbing too: the SDK transport parses now
  for (const { call, mod: parseMod } of parses) {
    if (parseMod !== mod) continue;
    const fn = getEnclosingFunction(mod.index, call);
    if (fn) writers.add(fn);
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const fn of mod.index.functions) {
      if (writers.has(fn) || fn.body.type !== 'BlockStatement' || fn.body.body.length === 0) continue;
      const calls = getCallsIn(mod.index, fn);
      if (calls.length === 0) continue;
      const onlyWriters = calls.every((c) => {
        const target = facts.interp.evalStatic(c.callee, mod);
        return (target.k === 'func' && writers.has(target.fn)) || (target.k === 'native' && target.name === 'JSON.stringify') || (target.k === 'global' && PURE_GLOBALS.has(target.name)) || isOutboxPush(facts, mod, c);
      });
      if (onlyWriters && fn.body.body.every((st) => st.type === 'ExpressionStatement' || st.type === 'ReturnStatement' || st.type === 'VariableDeclaration')) {
        writers.add(fn);
        changed = true;
      }
    }
  }
  const names = new Set<string>();
  for (const fn of writers) {
    if ((fn.type === 'FunctionDeclaration' || fn.type === 'FunctionExpression') && fn.id) names.add(fn.id.name);
    if ((fn.type === 'ClassMethod' || fn.type === 'ObjectMethod') && fn.key.type === 'Identifier') names.add(fn.key.name);
    // a private writer (`#send(msg) { ... }`, `#send = (msg) => ...`) is named as prune keys it
    if (fn.type === 'ClassPrivateMethod') names.add(`#${fn.key.id.name}`);
    const parent = mod.index.parent.get(fn);
    if (parent?.type === 'VariableDeclarator' && parent.id.type === 'Identifier') names.add(parent.id.name);
    if (parent?.type === 'ClassProperty' && parent.key.type === 'Identifier') names.add(parent.key.name);
    if (parent?.type === 'ClassPrivateProperty') names.add(`#${parent.key.id.name}`);
  }
  return names;
}

/** `outbox.push(json)` onto an array the analysis knows is flushed to stdout: a write. */
function isOutboxPush(facts: FileFacts, mod: ModuleUnit, call: t.CallExpression): boolean {
  const callee = call.callee;
  if (callee.type !== 'MemberExpression' || callee.computed || callee.object.type !== 'Identifier' || getMemberName(callee) !== 'push') return false;
  const binding = resolveIdentifier(mod.index, callee.object);
  return binding !== null && facts.interp.outboxes.has(binding);
}
