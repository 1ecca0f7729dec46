// How code at another place calls a function the analysis saw called: by the name it is declared with
// (`this.name` inside its own class), else as its caller named it, with the arguments its caller handed
// it written at that place (./render.ts), the message as the place names it. Text or null (the function
// or an argument cannot be named there), like ./render.ts; the rewrite decides what to do with it.
import type * as t from '@babel/types';
import { type Binding, type FunctionNode, getEnclosingClass, getThisScope, resolveIdentifier, resolveName, unwrapExpression } from './ast.js';
import type { ModuleUnit } from './program.js';
import { renderNodeAt, type RenderPlace } from './render.js';

/** A function handed the parsed message by a call of the input side (the dispatcher). */
export interface CalledFunction {
  fn: FunctionNode;
  mod: ModuleUnit;
  /** The call that hands it the message. */
  call: t.CallExpression;
  callMod: ModuleUnit;
  /** The `JSON.parse` call, and the variable it is stored in. */
  parseCall: t.CallExpression;
  messageBinding: Binding | null;
  /** Arguments of `call` that are the parsed message itself, handed on by name. */
  messageArgs?: ReadonlySet<t.Node>;
}

/**
 * `handle(request)` at `place`: the function named as it is declared, called with the arguments the input
 * side gave it, the message written as `message`; an argument `spent(index)` says the place no longer
 * needs is `undefined` (left out at the end). Null when the function is not visible there by its own
 * name, or an argument cannot be written there.
 */
export function renderCallAt(d: CalledFunction, place: RenderPlace, message: string, spent: (index: number) => boolean = () => false): string | null {
  const ref = renderFunctionRef(d, place);
  if (ref === null) return null;
  const names = new Map<Binding, string>();
  if (d.messageBinding) names.set(d.messageBinding, message);
  const args: string[] = [];
  for (const [i, arg] of d.call.arguments.entries()) {
    if (arg === d.parseCall || d.messageArgs?.has(arg)) {
      args.push(message);
      continue;
    }
    if (spent(i)) {
      args.push('undefined');
      continue;
    }
    // the arguments are written where the input side called the function: only the message and what is visible at `place`
    const text = renderNodeAt(arg, null, { ...place, names }, 0, d.callMod);
    if (text === null) return null;
    args.push(text);
  }
  // (spent arguments at the end are left out, not passed as undefined)
  while (args.length > 0 && args[args.length - 1] === 'undefined' && spent(args.length - 1)) args.pop();
  return `${ref}(${args.join(', ')})`;
}

/** How code at `place` names the function by its declaration, else as its caller named it, or null. */
export function renderFunctionRef(d: CalledFunction, place: RenderPlace): string | null {
  const fn = d.fn;
  const mod = d.mod;
  // else named as the input side called it: `import { dispatch } from './lib/dispatch.js'`, `server.handleRequest`
  const asCalled = (): string | null => {
    const callee = unwrapExpression(d.call.callee);
    if (place.mod !== d.callMod || (callee.type !== 'Identifier' && callee.type !== 'MemberExpression')) return null;
    return renderNodeAt(callee, null, place, 0, d.callMod);
  };
  if (place.mod !== mod) return asCalled();
  const declared = (id: t.Identifier): string | null => (resolveName(mod.index, place.node, id.name) === resolveIdentifier(mod.index, id) ? id.name : null);
  // (a closure a factory returns, `return { handle: processMessage }`, is not visible by its name: as called, `app.handle`)
  if (fn.type === 'FunctionDeclaration' && fn.id) return declared(fn.id) ?? asCalled();
  const parent = mod.index.parent.get(fn);
  if (parent?.type === 'VariableDeclarator' && parent.id.type === 'Identifier' && parent.init === fn) return declared(parent.id) ?? asCalled();
  const member = fn.type === 'ClassMethod' ? fn : parent?.type === 'ClassProperty' && parent.value === fn ? parent : null;
  if (member && !member.static && !member.computed && member.key.type === 'Identifier') {
    const cls = getEnclosingClass(mod.index, member);
    const scope = getThisScope(mod.index, place.node);
    if (cls && scope && scope.type === 'ClassMethod' && !scope.static && getEnclosingClass(mod.index, scope) === cls) return `this.${member.key.name}`;
  }
  return asCalled();
}
