// Following values inside one file: which calls reach a function, and which expressions a value
// can come from (a `const`'s initialiser, a `let`'s assignments, a parameter's arguments at each
// call site, a called function's `return`s). Bounded in depth and fan-out; never guesses across files.
import type * as t from '@babel/types';
import {
  type AstIndex,
  type Binding,
  type FunctionNode,
  getEnclosingFunction,
  getMemberName,
  getStaticKey,
  isFunctionNode,
  resolveIdentifier,
  resolveName,
  unwrapExpression,
} from '../analysis/ast.js';

/** The call that entered a function, so its parameters can be read from that call's arguments. */
export interface Frame {
  call: t.CallExpression | t.NewExpression;
  env: Env;
}

export type Env = ReadonlyMap<FunctionNode, Frame>;

export const EMPTY_ENV: Env = new Map();

/** One expression a value can be, the frames to read its parameters in, and the calls it came through. */
export interface Value {
  node: t.Node;
  env: Env;
  via: t.Node[];
}

export interface CallSites {
  calls: t.CallExpression[];
  /** The function is also referenced in ways we cannot follow (passed as a callback, exported, ...). */
  escapes: boolean;
}

const MAX_DEPTH = 8;
const MAX_VALUES = 64;
export const MAX_CALLERS = 30;

/** Lazily computed lookups shared by the checks of one file. */
export class Flow {
  private readonly callSites = new Map<FunctionNode, CallSites>();
  private readonly returnsOf = new Map<FunctionNode, t.Node[]>();
  private identifiersByName: Map<string, t.Identifier[]> | null = null;
  private assignmentsByBinding: Map<Binding, t.AssignmentExpression[]> | null = null;

  constructor(readonly index: AstIndex) {}

  getReferences(binding: Binding): t.Identifier[] {
    if (!this.identifiersByName) {
      this.identifiersByName = new Map();
      for (const id of this.index.identifiers) {
        const list = this.identifiersByName.get(id.name);
        if (list) list.push(id);
        else this.identifiersByName.set(id.name, [id]);
      }
    }
    const out: t.Identifier[] = [];
    for (const id of this.identifiersByName.get(binding.name) ?? []) {
      if (isReferencePosition(this.index, id) && resolveIdentifier(this.index, id) === binding) out.push(id);
    }
    return out;
  }

  getAssignments(binding: Binding): t.AssignmentExpression[] {
    if (!this.assignmentsByBinding) {
      this.assignmentsByBinding = new Map();
      for (const assignment of this.index.assignments) {
        const left = assignment.left;
        if (left.type !== 'Identifier') continue;
        const target = resolveIdentifier(this.index, left);
        if (!target) continue;
        const list = this.assignmentsByBinding.get(target);
        if (list) list.push(assignment);
        else this.assignmentsByBinding.set(target, [assignment]);
      }
    }
    return this.assignmentsByBinding.get(binding) ?? [];
  }

  /** The `return` arguments (and an arrow's expression body) of a function, not of functions inside it. */
  getReturns(fn: FunctionNode): t.Node[] {
    let list = this.returnsOf.get(fn);
    if (list) return list;
    list = [];
    if (fn.body.type !== 'BlockStatement') list.push(fn.body);
    for (const ret of this.index.returns) {
      if (ret.argument && getEnclosingFunction(this.index, ret) === fn) list.push(ret.argument);
    }
    this.returnsOf.set(fn, list);
    return list;
  }

  /** The function a call invokes, when it is declared in this file and not reassigned. */
  resolveCallee(call: t.CallExpression | t.NewExpression): FunctionNode | null {
    const callee = unwrapExpression(call.callee);
    if (callee.type === 'Identifier') return this.getFunctionOfBinding(resolveIdentifier(this.index, callee));
    if (callee.type === 'MemberExpression') {
      const name = getMemberName(callee);
      if (name === null) return null;
      const object = unwrapExpression(callee.object);
      if (object.type === 'ThisExpression') return findClassMember(this.index, call, name);
      if (object.type === 'Identifier') {
        const binding = resolveIdentifier(this.index, object);
        if (binding?.kind !== 'const' || binding.pattern.length > 0) return null;
        const init = binding.declarator.init ? unwrapExpression(binding.declarator.init) : null;
        if (init?.type === 'ObjectExpression') return findObjectMember(init, name);
        // const server = new Server(); server.handle(...)
        const body = this.getInstanceClassBody(init);
        return body ? findMethodInBody(body, name) : null;
      }
    }
    if (isFunctionNode(callee)) return callee;
    return null;
  }

  /** The body of the local class that `new X()` instantiates, or null. */
  getInstanceClassBody(init: t.Node | null): t.ClassBody | null {
    if (init?.type !== 'NewExpression') return null;
    const callee = unwrapExpression(init.callee);
    if (callee.type === 'ClassExpression') return callee.body;
    if (callee.type !== 'Identifier') return null;
    const binding = resolveIdentifier(this.index, callee);
    if (binding?.kind === 'class') return binding.node.body;
    if (binding?.kind === 'const' && binding.declarator.init) {
      const value = unwrapExpression(binding.declarator.init);
      if (value.type === 'ClassExpression') return value.body;
    }
    return null;
  }

  getFunctionOfBinding(binding: Binding | null): FunctionNode | null {
    if (!binding) return null;
    if (binding.kind === 'function') return binding.fn;
    if (binding.kind === 'function-name') return binding.fn;
    if ((binding.kind === 'const' || binding.kind === 'let' || binding.kind === 'var') && binding.pattern.length === 0) {
      const init = binding.declarator.init ? unwrapExpression(binding.declarator.init) : null;
      if (init && isFunctionNode(init) && (binding.kind === 'const' || this.getAssignments(binding).length === 0)) return init;
    }
    return null;
  }

  /** Where a function is called from, as far as this file shows. */
  getCallSites(fn: FunctionNode): CallSites {
    let sites = this.callSites.get(fn);
    if (!sites) {
      sites = this.findCallSites(fn);
      this.callSites.set(fn, sites);
    }
    return sites;
  }

  private findCallSites(fn: FunctionNode): CallSites {
    const parent = this.index.parent.get(fn);
    const calls: t.CallExpression[] = [];
    let escapes = false;
    const addReferences = (binding: Binding | null): void => {
      if (!binding) {
        escapes = true;
        return;
      }
      for (const ref of this.getReferences(binding)) {
        const refParent = this.index.parent.get(ref);
        if (refParent?.type === 'CallExpression' && refParent.callee === ref) calls.push(refParent);
        else escapes = true;
      }
    };
    if (fn.type === 'FunctionDeclaration') {
      if (!fn.id || parent?.type === 'ExportNamedDeclaration' || parent?.type === 'ExportDefaultDeclaration') escapes = true;
      if (fn.id) addReferences(resolveName(this.index, parent ?? fn, fn.id.name));
      return { calls, escapes };
    }
    if (fn.type === 'ClassMethod' || fn.type === 'ClassPrivateMethod' || (parent?.type === 'ClassProperty' && parent.value === fn)) {
      const owner = fn.type === 'ClassMethod' || fn.type === 'ClassPrivateMethod' ? fn : (parent as t.ClassProperty);
      const name = owner.key.type === 'PrivateName' ? `#${owner.key.id.name}` : getStaticKey(owner as { key: t.Node; computed?: boolean });
      const body = this.index.parent.get(owner);
      if (name === null || body?.type !== 'ClassBody' || (fn.type === 'ClassMethod' && fn.kind !== 'method')) {
        return { calls, escapes: true };
      }
      for (const member of this.index.members) {
        const object = unwrapExpression(member.object);
        const memberName = member.property.type === 'PrivateName' ? `#${member.property.id.name}` : getMemberName(member);
        if (memberName !== name) continue;
        if (object.type === 'ThisExpression') {
          if (!isWithin(member, body)) continue;
        } else if (object.type === 'Identifier') {
          // server.handle(...) with const server = new ThisClass()
          const binding = resolveIdentifier(this.index, object);
          const init = binding?.kind === 'const' && binding.pattern.length === 0 && binding.declarator.init ? unwrapExpression(binding.declarator.init) : null;
          if (this.getInstanceClassBody(init) !== body) continue;
        } else {
          continue;
        }
        const memberParent = this.index.parent.get(member);
        if (memberParent?.type === 'CallExpression' && memberParent.callee === member) calls.push(memberParent);
        else escapes = true;
      }
      return { calls, escapes };
    }
    if (parent?.type === 'VariableDeclarator' && parent.init && unwrapExpression(parent.init) === fn && parent.id.type === 'Identifier') {
      addReferences(resolveName(this.index, parent, parent.id.name));
      return { calls, escapes };
    }
    if (parent?.type === 'CallExpression' && unwrapExpression(parent.callee) === fn) return { calls: [parent], escapes: false };
    return { calls, escapes: true };
  }

  /**
   * The expressions `node` can evaluate to. Identifiers are followed to their initialisers and
   * assignments, parameters to the arguments of the frame in `env` (or of every call site when
   * `expandCallers`), calls to local functions to their returns (when `followCalls`).
   * `split` also takes both sides of `a ? b : c`, `a || b`, `a ?? b`.
   */
  getValues(node: t.Node, env: Env, options: ValueOptions, via: t.Node[] = [], depth = 0): Value[] {
    const out: Value[] = [];
    this.collectValues(node, env, options, via, depth, out);
    return out;
  }

  private collectValues(node: t.Node, env: Env, options: ValueOptions, via: t.Node[], depth: number, out: Value[]): void {
    if (out.length >= MAX_VALUES) return;
    const expr = unwrapExpression(node);
    const leaf = (): void => {
      out.push({ node: expr, env, via });
    };
    if (depth > MAX_DEPTH) return leaf();
    switch (expr.type) {
      case 'Identifier': {
        const binding = resolveIdentifier(this.index, expr);
        if (!binding) return leaf();
        if (binding.kind === 'param' && binding.pattern.length === 0 && !binding.rest) {
          const frame = env.get(binding.fn);
          if (frame) {
            const arg = frame.call.arguments[binding.index];
            if (!arg || arg.type === 'SpreadElement' || arg.type === 'ArgumentPlaceholder') return leaf();
            return this.collectValues(arg, frame.env, options, [...via, frame.call], depth + 1, out);
          }
          if (options.expandCallers) {
            const sites = this.getCallSites(binding.fn);
            if (sites.calls.length > 0 && sites.calls.length <= MAX_CALLERS) {
              for (const call of sites.calls) {
                const arg = call.arguments[binding.index];
                if (!arg || arg.type === 'SpreadElement' || arg.type === 'ArgumentPlaceholder') continue;
                this.collectValues(arg, EMPTY_ENV, options, [...via, call], depth + 1, out);
              }
              if (sites.escapes) leaf();
              return;
            }
          }
          return leaf();
        }
        if ((binding.kind === 'const' || binding.kind === 'let' || binding.kind === 'var') && binding.pattern.length === 0) {
          const init = binding.declarator.init;
          const assignments = binding.kind === 'const' ? [] : this.getAssignments(binding);
          if (assignments.some((a) => a.operator !== '=')) return leaf();
          if (!init && assignments.length === 0) return leaf();
          if (init) this.collectValues(init, env, options, via, depth + 1, out);
          for (const assignment of assignments) this.collectValues(assignment.right, env, options, via, depth + 1, out);
          return;
        }
        return leaf();
      }
      case 'ConditionalExpression':
        if (!options.split) return leaf();
        this.collectValues(expr.consequent, env, options, via, depth + 1, out);
        this.collectValues(expr.alternate, env, options, via, depth + 1, out);
        return;
      case 'LogicalExpression':
        if (!options.split) return leaf();
        this.collectValues(expr.left, env, options, via, depth + 1, out);
        this.collectValues(expr.right, env, options, via, depth + 1, out);
        return;
      case 'AwaitExpression':
        return this.collectValues(expr.argument, env, options, via, depth + 1, out);
      case 'SequenceExpression': {
        const last = expr.expressions[expr.expressions.length - 1];
        return last ? this.collectValues(last, env, options, via, depth + 1, out) : leaf();
      }
      case 'CallExpression': {
        if (!options.followCalls) return leaf();
        const fn = this.resolveCallee(expr);
        if (!fn || env.has(fn)) return leaf();
        const returns = this.getReturns(fn);
        if (returns.length === 0) return leaf();
        const inner = new Map(env);
        inner.set(fn, { call: expr, env });
        for (const ret of returns) this.collectValues(ret, inner, options, [...via, expr], depth + 1, out);
        return;
      }
      default:
        return leaf();
    }
  }
}

export interface ValueOptions {
  split: boolean;
  followCalls: boolean;
  expandCallers: boolean;
}

function isWithin(node: t.Node, container: t.Node): boolean {
  return node.start != null && container.start != null && node.end != null && container.end != null
    && node.start >= container.start && node.end <= container.end;
}

/** Identifiers that read a binding (not property keys, not declarations' own names, not labels). */
function isReferencePosition(index: AstIndex, id: t.Identifier): boolean {
  const parent = index.parent.get(id);
  if (!parent) return false;
  switch (parent.type) {
    case 'MemberExpression':
    case 'OptionalMemberExpression':
      return parent.object === id || parent.computed;
    case 'ObjectProperty':
      return parent.value === id && !(index.parent.get(parent)?.type === 'ObjectPattern');
    case 'ClassProperty':
    case 'ClassMethod':
    case 'ObjectMethod':
    case 'ClassPrivateProperty':
      return parent.key !== id || Boolean((parent as { computed?: boolean }).computed);
    case 'VariableDeclarator':
      return parent.init === id;
    case 'FunctionDeclaration':
    case 'FunctionExpression':
    case 'ArrowFunctionExpression':
    case 'ClassDeclaration':
    case 'ClassExpression':
      return false;
    case 'LabeledStatement':
    case 'BreakStatement':
    case 'ContinueStatement':
    case 'ImportSpecifier':
    case 'ImportDefaultSpecifier':
    case 'ImportNamespaceSpecifier':
    case 'ExportSpecifier':
    case 'CatchClause':
    case 'RestElement':
    case 'ArrayPattern':
      return false;
    case 'AssignmentPattern':
      return parent.right === id;
    case 'AssignmentExpression':
      return parent.right === id;
    default:
      return !parent.type.startsWith('TS');
  }
}

function findClassMember(index: AstIndex, from: t.Node, name: string): FunctionNode | null {
  let current = index.parent.get(from);
  while (current && current.type !== 'ClassBody') current = index.parent.get(current);
  if (!current || current.type !== 'ClassBody') return null;
  return findMethodInBody(current, name);
}

function findMethodInBody(body: t.ClassBody, name: string): FunctionNode | null {
  for (const member of body.body) {
    if ((member.type === 'ClassMethod' && member.kind === 'method') || member.type === 'ClassPrivateMethod') {
      const key = member.key.type === 'PrivateName' ? `#${member.key.id.name}` : getStaticKey(member as { key: t.Node; computed?: boolean });
      if (key === name) return member;
    }
    if (member.type === 'ClassProperty' && member.value && getStaticKey(member) === name) {
      const value = unwrapExpression(member.value);
      if (isFunctionNode(value)) return value;
    }
  }
  return null;
}

function findObjectMember(object: t.ObjectExpression, name: string): FunctionNode | null {
  for (const prop of object.properties) {
    if (prop.type === 'ObjectMethod' && prop.kind === 'method' && getStaticKey(prop) === name) return prop;
    if (prop.type === 'ObjectProperty' && getStaticKey(prop) === name) {
      const value = unwrapExpression(prop.value);
      if (isFunctionNode(value)) return value;
    }
  }
  return null;
}
