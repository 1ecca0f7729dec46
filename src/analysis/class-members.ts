// Class-member resolution for the interpreter: what a member of an instance holds (a method, a field
// initializer, a field the constructor or one method assigns), the listeners an EventEmitter subclass
// emits to, and promise-queue fields. Memoized per class; recursion through a field defined by itself
// reads as unknown.
// Deliberately not: a model of prototype chains beyond `extends` of a class the program defines.
import type * as t from '@babel/types';
import { type FunctionNode, getEnclosingClass, getMemberName, getStaticKey, resolveIdentifier, unwrapExpression } from './ast.js';
import { type ClassNode, type Frame, UNDEFINED, UNKNOWN, type Val } from './values.js';
import { type PathState } from './interp-types.js';
import { findEnclosingFunction, LISTEN_METHODS, nextFrameId, queueFieldsOf } from './interp-helpers.js';
import type { Evaluator } from './evaluator.js';
import { getCallsOfMember, getPrototypeAssignmentsOf, getThisAssignments, isMutatedMember } from './lookups.js';
import type { ModuleUnit } from './program.js';

export class ClassMembers {
  constructor(private readonly interp: Evaluator) {}

  /** The listeners registered for an event on the instances of an EventEmitter subclass (null: not all known). */
  private readonly listenerMemo = new Map<ClassNode, Map<string, Extract<Val, { k: 'func' }>[] | null>>();
  private readonly queueFields = new Map<ClassNode, Set<string>>();

  instanceMember(object: Extract<Val, { k: 'inst' }>, name: string, s: PathState, frame: Frame): Val {
    const cell = this.interp.readCell(s, object.cell);
    if (cell?.has(name)) return cell.get(name)!;
    // `this.emit('message', msg)` in an EventEmitter subclass: its listeners are called, in order
    if (name === 'emit' && !this.findMember(object.cls, object.mod, 'emit', false) && this.extendsEventEmitter(object.cls, object.mod)) return { k: 'native', name: 'emitter.emit', self: object };
    // a promise queue in a field (`this.work = Promise.resolve()` ... `this.work = this.work.then(...)`)
    if (this.isQueueField(object.cls, object.mod, name)) return { k: 'promise', value: UNKNOWN, queue: true };
    return this.openIfMutated(this.instanceMemberStatic(object, name, s, frame), name, object.mod);
  }

  /**
   * A table held in a field and filled at run time (`this.tools.set(name, tool)` in a register method):
   * its entries are not the ones it was created with.
   */
  private openIfMutated(value: Val, name: string, mod: ModuleUnit): Val {
    if (value.k !== 'map' && value.k !== 'obj') return value;
    if (value.k === 'map' && value.entries === null) return value;
    for (const m of this.interp.program.modules) {
      if (isMutatedMember(m.index, name)) return value.k === 'map' ? { ...value, entries: null } : UNKNOWN;
    }
    void mod;
    return value;
  }

  private instanceMemberStatic(object: Extract<Val, { k: 'inst' }>, name: string, s: PathState, frame: Frame): Val {
    const member = this.findMember(object.cls, object.mod, name, false, object);
    if (member && (member.k !== 'func' || member.fn.type === 'ClassMethod' || member.fn.type === 'ClassPrivateMethod') && !this.isFieldMember(object.cls, name)) return member;
    if (member) {
      // a field with an initializer that a method replaces (`onMessage = () => {}` set by listen())
      if (!this.assignedElsewhere(object.cls, object.mod, name)) return member;
      if (member.k === 'map' || member.k === 'obj' || member.k === 'arr') return member;
      return this.fieldFromMethod(object, object.cls, object.mod, name) ?? UNKNOWN;
    }
    return this.fieldFromConstructor(object, name, s);
  }

  /** The fields of a class that are promise queues (see queueFieldsOf), found once per class. */
  private isQueueField(cls: ClassNode, mod: ModuleUnit, name: string): boolean {
    let fields = this.queueFields.get(cls);
    if (!fields) this.queueFields.set(cls, (fields = queueFieldsOf(cls, mod)));
    return fields.has(name);
  }

  private isFieldMember(cls: ClassNode, name: string): boolean {
    return cls.body.body.some((m) => (m.type === 'ClassProperty' || m.type === 'ClassPrivateProperty') && !m.static && (m.type === 'ClassPrivateProperty' ? `#${m.key.id.name}` : getStaticKey(m)) === name);
  }

  /** `class X extends EventEmitter` (from node:events), directly or through a class of the program. */
  private extendsEventEmitter(cls: ClassNode, mod: ModuleUnit, depth = 0): boolean {
    if (!cls.superClass || depth > 8) return false;
    const parent = this.interp.evalStatic(cls.superClass, mod);
    if (parent.k === 'class') return this.extendsEventEmitter(parent.node, parent.mod, depth + 1);
    const name = cls.superClass.type === 'Identifier' ? cls.superClass.name : cls.superClass.type === 'MemberExpression' ? getMemberName(cls.superClass) : null;
    return name === 'EventEmitter' && (parent.k === 'unknown' || parent.k === 'native' || parent.k === 'global' || parent.k === 'builtin');
  }

  /**
   * The listeners of `event` on instances of the class: `x.on(event, fn)` on a value that is one
   * (`transport.on('message', ...)`), or `this.on(event, fn)` in the class. Null when a listener is not a
   * function the program defines (then the emit is an opaque call).
   */
  findListeners(inst: Extract<Val, { k: 'inst' }>, event: string): Extract<Val, { k: 'func' }>[] | null {
    let byEvent = this.listenerMemo.get(inst.cls);
    if (!byEvent) this.listenerMemo.set(inst.cls, (byEvent = new Map()));
    if (byEvent.has(event)) return byEvent.get(event)!;
    byEvent.set(event, null);
    const out: Extract<Val, { k: 'func' }>[] = [];
    for (const mod of this.interp.program.modules) {
      // the calls of on/addListener/once/... in document order
      const listens = [...LISTEN_METHODS].flatMap((method) => getCallsOfMember(mod.index, method)).sort((a, b) => mod.index.order.get(a)! - mod.index.order.get(b)!);
      for (const call of listens) {
        const callee = unwrapExpression(call.callee) as t.MemberExpression;
        const [name, handler] = call.arguments;
        if (name?.type !== 'StringLiteral' || name.value !== event || !handler || handler.type === 'SpreadElement' || handler.type === 'ArgumentPlaceholder') continue;
        const receiver = unwrapExpression(callee.object);
        const isThis = receiver.type === 'ThisExpression' && getEnclosingClass(mod.index, receiver) === inst.cls;
        const target = isThis ? inst : this.interp.evalStatic(receiver, mod);
        if (target.k !== 'inst' || target.cls !== inst.cls) continue;
        const listener = this.interp.evalStatic(handler, mod);
        if (listener.k !== 'func') return null;
        out.push(isThis && listener.fn.type === 'ArrowFunctionExpression' ? { ...listener, thisVal: inst } : listener);
      }
    }
    byEvent.set(event, out);
    return out;
  }

  /** A method or a field initializer of a class (or its superclasses). */
  findMember(cls: ClassNode, mod: ModuleUnit, name: string, isStatic: boolean, inst?: Val): Val | null {
    // installed on the prototype after the class was made: it replaces a method of the class body
    const installed = isStatic ? null : this.findPrototypeMember(cls, mod, name, inst);
    if (installed) return installed;
    for (const member of cls.body.body) {
      if ((member.type === 'ClassMethod' || member.type === 'ClassPrivateMethod') && member.kind !== 'constructor' && Boolean(member.static) === isStatic) {
        const key = member.type === 'ClassPrivateMethod' ? `#${member.key.id.name}` : getStaticKey(member);
        if (key === name) return { k: 'func', fn: member, mod, thisVal: inst };
      }
      if ((member.type === 'ClassProperty' || member.type === 'ClassPrivateProperty') && Boolean(member.static) === isStatic) {
        const key = member.type === 'ClassPrivateProperty' ? `#${member.key.id.name}` : getStaticKey(member);
        if (key === name && member.value) {
          const frame: Frame = { id: nextFrameId(), fn: null, mod, thisVal: inst, call: null, caller: null };
          const value = this.interp.evalPure(member.value, this.interp.newState(), frame);
          return value.k === 'func' && value.fn.type === 'ArrowFunctionExpression' ? { ...value, thisVal: inst } : value;
        }
      }
    }
    if (cls.superClass) {
      const parent = this.interp.evalStatic(cls.superClass, mod);
      if (parent.k === 'class') return this.findMember(parent.node, parent.mod, name, isStatic, inst);
    }
    return null;
  }

  /**
   * A method installed on the class's prototype at the top of its module, after the class:
   * `Logger.prototype.info = function (msg) { ... }`, or in a loop over constant names
   * (`for (const level of ['debug', 'info']) Logger.prototype[level] = function (msg) { ... }`), the
   * last such assignment winning. UNKNOWN where one might install `name` and it cannot be told whether
   * or with what (inside a function or a condition, a key not from a constant list); null where none does.
   */
  private findPrototypeMember(cls: ClassNode, mod: ModuleUnit, name: string, inst?: Val): Val | null {
    const className = getClassBindingName(cls, mod);
    if (className === null) return null;
    let found: Val | null = null;
    for (const assignment of getPrototypeAssignmentsOf(mod.index, className)) {
      const left = assignment.left as t.MemberExpression;
      const owner = this.interp.evalStatic((left.object as t.MemberExpression).object, mod);
      if (owner.k !== 'class' || owner.node !== cls) continue;
      const keys = this.getInstalledKeys(left, mod);
      if (keys !== null && !keys.includes(name)) continue;
      if (keys === null || assignment.operator !== '=' || !isRunOnceAtTop(mod, assignment)) return UNKNOWN;
      const value = this.interp.evalStatic(assignment.right, mod);
      found = value.k === 'func' && value.fn.type !== 'ArrowFunctionExpression' ? { ...value, thisVal: inst } : value;
    }
    return found;
  }

  /** The names `X.prototype.<key> = ...` installs: its static key, or the items of the constant list a loop takes the key from (null: not known). */
  private getInstalledKeys(left: t.MemberExpression, mod: ModuleUnit): string[] | null {
    const key = getMemberName(left);
    if (key !== null) return [key];
    if (left.property.type !== 'Identifier') return null;
    const binding = resolveIdentifier(mod.index, left.property);
    const declarator = binding && 'declarator' in binding ? binding.declarator : null;
    const declaration = declarator ? mod.index.parent.get(declarator) : null;
    const loop = declaration ? mod.index.parent.get(declaration) : null;
    if (loop?.type !== 'ForOfStatement' || loop.left !== declaration || declaration?.type !== 'VariableDeclaration' || declaration.kind !== 'const') return null;
    if (declarator?.type !== 'VariableDeclarator' || declarator.id.type !== 'Identifier') return null;
    const list = this.interp.evalStatic(loop.right, mod);
    if (list.k !== 'arr' || list.items === null) return null;
    const names = list.items.map((item) => (item.k === 'lit' && typeof item.value === 'string' ? item.value : null));
    return names.every((n): n is string => n !== null) ? names : null;
  }

  /** `this.name = <expr>` in the constructor, evaluated with the constructor's arguments at the `new` site. */
  /** Fields being read from a constructor right now: a field defined through itself reads as unknown. */
  private readonly ctorFieldsInProgress = new Set<string>();

  private fieldFromConstructor(object: Extract<Val, { k: 'inst' }>, name: string, s: PathState): Val {
    // `new Router({ getPath: this.getPath })` inside Router: the field is defined through itself
    const key = `${object.mod.path}:${object.cls.start}:${object.site?.node?.start ?? -1}:${name}`;
    if (this.ctorFieldsInProgress.has(key) || this.ctorFieldsInProgress.size > 64) return UNKNOWN;
    this.ctorFieldsInProgress.add(key);
    try {
      return this.fieldFromConstructorOnce(object, name, s);
    } finally {
      this.ctorFieldsInProgress.delete(key);
    }
  }

  private fieldFromConstructorOnce(object: Extract<Val, { k: 'inst' }>, name: string, s: PathState): Val {
    let cls: ClassNode | null = object.cls;
    let mod = object.mod;
    while (cls) {
      const ctor = cls.body.body.find((m): m is t.ClassMethod => m.type === 'ClassMethod' && m.kind === 'constructor');
      if (ctor) {
        const env = this.interp.newState();
        const frame: Frame = { id: nextFrameId(), fn: ctor, mod, thisVal: object, call: null, caller: null };
        ctor.params.forEach((param, i) => {
          const arg = object.site?.args[i] ?? (object.site ? UNDEFINED : UNKNOWN);
          if (param.type === 'TSParameterProperty') {
            const inner = param.parameter;
            const id = inner.type === 'AssignmentPattern' ? inner.left : inner;
            if (id.type === 'Identifier' && id.name === name) {
              // constructor(private output = process.stdout)
              this.interp.bindPattern(inner, arg, env, frame);
            } else this.interp.bindPattern(inner, arg, env, frame);
          } else if (param.type !== 'RestElement') this.interp.bindPattern(param, arg, env, frame);
        });
        for (const param of ctor.params) {
          if (param.type === 'TSParameterProperty') {
            const inner = param.parameter.type === 'AssignmentPattern' ? param.parameter.left : param.parameter;
            if (inner.type === 'Identifier' && inner.name === name) return this.interp.readIdentifier(inner, env, frame);
          }
        }
        let found: Val | null = null;
        let count = 0;
        for (const statement of ctor.body.body) {
          if (statement.type !== 'ExpressionStatement' || statement.expression.type !== 'AssignmentExpression') continue;
          const left = statement.expression.left;
          if (left.type === 'MemberExpression' && left.object.type === 'ThisExpression' && getMemberName(left) === name) {
            found = this.interp.evalPure(statement.expression.right, env, frame);
            count++;
          }
        }
        if (found && count === 1) {
          if (!this.assignedElsewhere(cls, mod, name)) return found;
          if (found.k === 'map' || found.k === 'obj' || found.k === 'arr') return found;
          return this.fieldFromMethod(object, cls, mod, name) ?? UNKNOWN;
        }
        const superCall = ctor.body.body.find((st) => st.type === 'ExpressionStatement' && st.expression.type === 'CallExpression' && st.expression.callee.type === 'Super');
        if (name === 'message' && superCall) {
          const call = (superCall as t.ExpressionStatement).expression as t.CallExpression;
          return call.arguments[0] ? this.interp.evalPure(call.arguments[0], env, frame) : UNDEFINED;
        }
        if (found) return UNKNOWN;
      }
      if (!cls.superClass) break;
      const parent = this.interp.evalStatic(cls.superClass, mod);
      if (parent.k !== 'class') {
        if (parent.k === 'global' && parent.name.endsWith('Error') && name === 'message') return UNKNOWN;
        break;
      }
      cls = parent.node;
      mod = parent.mod;
    }
    void s;
    // a field a method writes: a method of the instance's class or of a superclass (`this.rl = ...` in an
    // inherited listen(), in another module), `this` being the instance either way
    for (const { cls: owner, mod: ownerMod } of this.classChain(object.cls, object.mod)) {
      if (this.assignedElsewhere(owner, ownerMod, name)) return this.fieldFromMethod(object, owner, ownerMod, name) ?? UNKNOWN;
    }
    return UNDEFINED;
  }

  /** The class and its superclasses the program defines, nearest first. */
  classChain(cls: ClassNode, mod: ModuleUnit): { cls: ClassNode; mod: ModuleUnit }[] {
    const out = [{ cls, mod }];
    let current = { cls, mod };
    while (current.cls.superClass && out.length < 8) {
      const parent = this.interp.evalStatic(current.cls.superClass, current.mod);
      if (parent.k !== 'class') break;
      current = { cls: parent.node, mod: parent.mod };
      out.push(current);
    }
    return out;
  }

  /** Whether instances of `sub` are instances of `cls` (the same class, or one that extends it). */
  isSameOrSubclass(sub: ClassNode, subMod: ModuleUnit, cls: ClassNode): boolean {
    return this.classChain(sub, subMod).some((c) => c.cls === cls);
  }

  private readonly onlySubclass = new Map<ClassNode, { cls: ClassNode; mod: ModuleUnit } | null>();

  /**
   * A base class never instantiated itself whose instances are all of one subclass (`new EchoServer()`,
   * EchoServer extending LineServer): `this` in the base class's methods is that subclass's instance, so
   * its fields and its overrides are the ones read. Null when the class is instantiated itself, or by
   * several subclasses.
   */
  findOnlyInstantiatedSubclass(cls: ClassNode, mod: ModuleUnit): { cls: ClassNode; mod: ModuleUnit } | null {
    if (this.onlySubclass.has(cls)) return this.onlySubclass.get(cls)!;
    this.onlySubclass.set(cls, null);
    let found: { cls: ClassNode; mod: ModuleUnit } | null = null;
    let several = false;
    for (const m of this.interp.program.modules) {
      for (const node of m.index.news) {
        const callee = this.interp.evalStatic(node.callee, m);
        if (callee.k !== 'class' || !this.isSameOrSubclass(callee.node, callee.mod, cls)) continue;
        if (callee.node === cls || (found !== null && found.cls !== callee.node)) several = true;
        else found = { cls: callee.node, mod: callee.mod };
      }
    }
    void mod;
    const result = several ? null : found;
    this.onlySubclass.set(cls, result);
    return result;
  }

  /**
   * `listen(onMessage) { this.onMessage = onMessage; ... }`: a component a method stores, when one method
   * of the class stores it and that method has one caller (whose argument is the value).
   */
  private readonly fieldsInProgress = new Set<string>();

  private fieldFromMethod(object: Extract<Val, { k: 'inst' }>, cls: ClassNode, mod: ModuleUnit, name: string): Val | null {
    const key = `${cls.start}:${mod.path}:${name}`;
    if (this.fieldsInProgress.has(key)) return null;
    this.fieldsInProgress.add(key);
    try {
      return this.computeFieldFromMethod(object, cls, mod, name);
    } finally {
      this.fieldsInProgress.delete(key);
    }
  }

  private computeFieldFromMethod(object: Extract<Val, { k: 'inst' }>, cls: ClassNode, mod: ModuleUnit, name: string): Val | null {
    const writes: { assignment: t.AssignmentExpression; method: t.ClassMethod }[] = [];
    for (const assignment of getThisAssignments(mod.index, name)) {
      const fn = findEnclosingFunction(mod, assignment);
      if (!fn || fn.type !== 'ClassMethod' || fn.kind === 'constructor' || getEnclosingClass(mod.index, assignment) !== cls) continue;
      writes.push({ assignment, method: fn });
    }
    if (writes.length !== 1) return null;
    const { assignment, method } = writes[0]!;
    const methodName = getStaticKey(method);
    if (methodName === null) return null;
    const site = this.interp.sites.findMethodCallSite(cls, mod, methodName);
    if (!site) return null;
    const env = this.interp.newState();
    const frame: Frame = { id: nextFrameId(), fn: method, mod, thisVal: object, call: null, caller: null };
    method.params.forEach((param, i) => {
      if (param.type !== 'RestElement') this.interp.bindPattern(param, site.args[i] ?? UNDEFINED, env, frame);
    });
    const value = this.interp.evalPure(assignment.right, env, frame);
    return ['func', 'obj', 'map', 'stream', 'inst', 'readline', 'class'].includes(value.k) ? value : null;
  }

  private assignedElsewhere(cls: ClassNode, mod: ModuleUnit, name: string): boolean {
    for (const assignment of getThisAssignments(mod.index, name)) {
      const fn = findEnclosingFunction(mod, assignment);
      if (fn && fn.type === 'ClassMethod' && fn.kind === 'constructor') continue;
      if (getEnclosingClass(mod.index, assignment) === cls) return true;
    }
    return false;
  }

  findMethod(cls: ClassNode, mod: ModuleUnit, name: string): { fn: FunctionNode; mod: ModuleUnit } | null {
    for (const member of cls.body.body) {
      if (member.type === 'ClassMethod' && (name === 'constructor' ? member.kind === 'constructor' : getStaticKey(member) === name)) return { fn: member, mod };
    }
    if (cls.superClass) {
      const parent = this.interp.evalStatic(cls.superClass, mod);
      if (parent.k === 'class') return this.findMethod(parent.node, parent.mod, name);
    }
    return null;
  }
}

/** The name a class is bound to in its module: `class Logger {}`, `const Logger = class {}`. */
export function getClassBindingName(cls: ClassNode, mod: ModuleUnit): string | null {
  if (cls.type === 'ClassDeclaration' && cls.id) return cls.id.name;
  const parent = mod.index.parent.get(cls);
  return parent?.type === 'VariableDeclarator' && parent.id.type === 'Identifier' ? parent.id.name : null;
}

/**
 * The assignment runs once when the module loads, whatever happens: a statement at the top of the
 * module, or the body of a `for...of` there (the loop's list is constant: see getInstalledKeys).
 */
function isRunOnceAtTop(mod: ModuleUnit, assignment: t.AssignmentExpression): boolean {
  let node: t.Node = assignment;
  let parent = mod.index.parent.get(node);
  if (parent?.type !== 'ExpressionStatement') return false;
  for (node = parent, parent = mod.index.parent.get(node); parent && parent.type !== 'Program'; node = parent, parent = mod.index.parent.get(node)) {
    if (parent.type === 'BlockStatement' && mod.index.parent.get(parent)?.type === 'ForOfStatement') continue;
    if (parent.type === 'ForOfStatement' && parent.body === node && !parent.await) continue;
    return false;
  }
  return parent?.type === 'Program';
}
