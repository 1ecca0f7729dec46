// Call-site search for the interpreter: the one call of a function, a method of a class, or the one
// `new` of a class in the program, with its arguments evaluated where it is made. A parameter read
// outside a call, a field a method stores and the instance a class method sees are taken from it.
// Deliberately not: choosing among several callers (more than one call site is no answer).
import type * as t from '@babel/types';
import {
  type Binding,
  type FunctionNode,
  getEnclosingClass,
  getStaticKey,
  resolveIdentifier,
  unwrapExpression,
} from './ast.js';
import { type ClassNode, type NewSite, UNKNOWN } from './values.js';
import type { Evaluator } from './evaluator.js';
import { getCallsOfBinding, getCallsOfMember } from './lookups.js';
import type { ModuleUnit } from './program.js';

export class CallSites {
  constructor(private readonly interp: Evaluator) {}

  /** The only call of a function in the program (by its name, as a method of its class, or `new` of its class), with its arguments. */
  findUniqueCallSite(fn: FunctionNode, mod: ModuleUnit): NewSite | null {
    let target: Binding | null = null;
    let cls: ClassNode | null = null;
    if (fn.type === 'FunctionDeclaration' && fn.id) target = resolveIdentifier(mod.index, fn.id);
    else if (fn.type === 'ClassMethod' && fn.kind === 'constructor') cls = getEnclosingClass(mod.index, fn);
    else if (fn.type === 'ClassMethod' && fn.kind === 'method' && !fn.static) {
      // `channel.open(onMessage)` on an instance of the class, or `this.open(...)` inside it
      const owner = getEnclosingClass(mod.index, fn);
      const name = getStaticKey(fn);
      return owner && name !== null ? this.findMethodCallSite(owner, mod, name) : null;
    } else {
      const parent = mod.index.parent.get(fn);
      if (parent?.type === 'VariableDeclarator' && parent.id.type === 'Identifier') target = resolveIdentifier(mod.index, parent.id);
    }
    if (cls) {
      const site = this.findNewSite(cls, mod);
      return site;
    }
    if (!target) return null;
    const sites: { call: t.CallExpression; mod: ModuleUnit }[] = [];
    for (const m of this.interp.program.modules) {
      if (m === mod) {
        // in its own module a call names the function's binding: only calls of that name can
        for (const call of getCallsOfBinding(m.index, target)) sites.push({ call, mod: m });
        continue;
      }
      for (const call of m.index.calls) {
        const callee = unwrapExpression(call.callee);
        if (callee.type === 'Identifier') {
          const v = this.interp.evalStatic(callee, m);
          if (v.k === 'func' && v.fn === fn) sites.push({ call, mod: m });
        }
      }
    }
    if (sites.length !== 1) return null;
    const { call, mod: siteMod } = sites[0]!;
    const s = this.interp.newState();
    const frame = this.interp.frameAt(siteMod, call, this.interp.topFrame(siteMod));
    return { node: call, args: call.arguments.map((a) => (a.type === 'SpreadElement' || a.type === 'ArgumentPlaceholder' ? UNKNOWN : this.interp.evalPure(a, s, frame))) };
  }

  /** The one statement in the program that calls `fn` (by name, as a method of its class, or `new`), or null. */
  findCaller(fn: FunctionNode, mod: ModuleUnit): { call: t.CallExpression | t.NewExpression; mod: ModuleUnit } | null {
    if (fn.type === 'ClassMethod' && fn.kind !== 'constructor') {
      const cls = getEnclosingClass(mod.index, fn);
      const name = getStaticKey(fn);
      if (!cls || name === null) return null;
      const site = this.findMethodCallSite(cls, mod, name);
      return site?.node ? { call: site.node, mod: this.interp.moduleOf(site.node) ?? mod } : null;
    }
    const site = this.findUniqueCallSite(fn, mod);
    return site?.node ? { call: site.node, mod: this.interp.moduleOf(site.node) ?? mod } : null;
  }

  private readonly newSites = new Map<ClassNode, NewSite | null>();

  findNewSite(cls: ClassNode, mod: ModuleUnit): NewSite | null {
    if (this.newSites.has(cls)) return this.newSites.get(cls)!;
    this.newSites.set(cls, null);
    const found: { node: t.NewExpression; mod: ModuleUnit }[] = [];
    for (const m of this.interp.program.modules) {
      for (const node of m.index.news) {
        const callee = this.interp.evalStatic(node.callee, m);
        if (callee.k === 'class' && callee.node === cls) found.push({ node, mod: m });
      }
    }
    let site: NewSite | null = null;
    if (found.length === 1) {
      const { node, mod: siteMod } = found[0]!;
      const s = this.interp.newState();
      const frame = this.interp.frameAt(siteMod, node, this.interp.topFrame(siteMod));
      site = { node, args: node.arguments.map((a) => (a.type === 'SpreadElement' || a.type === 'ArgumentPlaceholder' ? UNKNOWN : this.interp.evalPure(a, s, frame))) };
    }
    void mod;
    this.newSites.set(cls, site);
    return site;
  }

  /** The one call `x.method(...)` in the program whose receiver is an instance of `cls`. */
  findMethodCallSite(cls: ClassNode, mod: ModuleUnit, methodName: string): NewSite | null {
    const found: { call: t.CallExpression; mod: ModuleUnit }[] = [];
    for (const m of this.interp.program.modules) {
      for (const call of getCallsOfMember(m.index, methodName)) {
        const callee = unwrapExpression(call.callee) as t.MemberExpression;
        const enclosing = callee.object.type === 'ThisExpression' ? getEnclosingClass(m.index, call) : null;
        const receiver = enclosing === cls ? cls : null;
        if (receiver === null) {
          // an instance of a subclass has the method too (`new EchoServer().listen()`, listen() inherited)
          const value = this.interp.evalStatic(callee.object, m);
          if (value.k !== 'inst' || !this.interp.members.isSameOrSubclass(value.cls, value.mod, cls)) continue;
        }
        found.push({ call, mod: m });
      }
    }
    if (found.length !== 1) return null;
    const { call, mod: siteMod } = found[0]!;
    const s = this.interp.newState();
    const frame = this.interp.frameAt(siteMod, call, this.interp.topFrame(siteMod));
    void mod;
    return { node: call, args: call.arguments.map((a) => (a.type === 'SpreadElement' || a.type === 'ArgumentPlaceholder' ? UNKNOWN : this.interp.evalPure(a, s, frame))) };
  }
}
