// The interpreter: runs a hand-rolled server's code symbolically, from where stdin enters to where
// replies reach fd 1. Values are abstract (see values.ts); the incoming message is symbolic, and
// every test of one of its members (`method === 'tools/list'`, `handlers[method]`, `id === undefined`)
// forks the path and records the constraint, so one run yields every way a message can be handled:
// per path the constraints (which method, request or notification) and the events (each write to
// stdout with what it carries, each call it could not follow, each frame it entered and left).
//
// Deliberately not: a general JavaScript evaluator. Loops run their body once (one message), calls
// into code that neither reaches stdout nor receives the message are opaque (they may throw, and are
// recorded as effects), and anything it cannot follow becomes `unknown` rather than a guess.
import { t } from '../babel.js';
import {
  type Binding,
  forEachChild,
  type FunctionNode,
  getBindingWrites,
  getEnclosingClass,
  getMemberName,
  getStaticKey,
  getThisScope,
  isFunctionNode,
  isInside,
  resolveIdentifier,
  unwrapExpression,
} from './ast.js';
import { CallSites } from './call-sites.js';
import { ClassMembers } from './class-members.js';
import {
  classifyWrite,
  evalBinary,
  EXIT,
  fdOf,
  findEnclosingFunction,
  getClassMethodNames,
  getEnumMemberValue,
  getFixedEnds,
  getTemplateTail,
  getTextHead,
  isChainOnto,
  isInLoopBody,
  isStatementOfBody,
  isTruthy,
  LISTEN_METHODS,
  MAX_COMPUTED_ENTRIES,
  getInteropArgument,
  nextFrameId,
  runsCode,
  typeOf,
} from './interp-helpers.js';
import type { Evaluator } from './evaluator.js';
import { type Channel, type Outcome, type PathResult, type PathState, type Res } from './interp-types.js';
import { getCallsOfMember, getMemberAssignmentsOf } from './lookups.js';
import { ModuleValues } from './module-values.js';
import type { ModuleUnit, Program } from './program.js';
import { getImportedSpecifier, getRequiredSpecifier } from './program.js';
import {
  type ClassNode,
  type Constraint,
  type Frame,
  FROM_METHOD,
  isFromMethod,
  isShallowMessageValue,
  type Lit,
  lit,
  type NewSite,
  type Origin,
  type SymKey,
  UNDEFINED,
  UNKNOWN,
  type Val,
} from './values.js';
import { WriterAnalysis } from './writers.js';

// what other modules import from the interpreter, as before the split
export type { Channel, Completion, Event, PathResult, PathState, WriteData } from './interp-types.js';
export { classifyWrite, findEnclosingFunction, LISTEN_METHODS } from './interp-helpers.js';

const MAX_PATHS = 600;
const MAX_DEPTH = 24;

const GLOBAL_NAMES = new Set([
  'process', 'console', 'JSON', 'Object', 'Buffer', 'Promise', 'Error', 'TypeError', 'SyntaxError', 'RangeError',
  'Map', 'Set', 'Math', 'Number', 'String', 'Boolean', 'Array', 'Date', 'Symbol', 'require', 'module', 'exports',
  'setTimeout', 'setImmediate', 'setInterval', 'queueMicrotask', 'clearTimeout', 'globalThis', 'undefined', 'NaN', 'Infinity',
  'parseInt', 'parseFloat', 'isNaN', 'TextDecoder', 'TextEncoder', 'RegExp', 'Reflect',
]);

const STDOUT_CONSOLE = new Set(['log', 'info', 'debug', 'dir', 'table', 'trace', 'dirxml', 'group', 'groupCollapsed', 'timeLog', 'count']);
const STDERR_CONSOLE = new Set(['error', 'warn', 'assert', 'timeEnd']);
const STRING_METHODS = new Set([
  'trim', 'trimStart', 'trimEnd', 'slice', 'substring', 'substr', 'split', 'replace', 'replaceAll', 'toLowerCase', 'toUpperCase',
  'charAt', 'indexOf', 'lastIndexOf', 'includes', 'startsWith', 'endsWith', 'toString', 'concat', 'padStart', 'padEnd', 'match', 'at',
  'normalize', 'repeat', 'charCodeAt', 'codePointAt', 'search', 'valueOf',
]);

let cellCounter = 0;

export class Interpreter implements Evaluator {
  private paths = 0;
  private readonly staticValues = new Map<Binding, Val>();
  private readonly staticInProgress = new Set<Binding>();
  private readonly classInstances = new Map<ClassNode, Val>();
  private readonly topFrames = new Map<ModuleUnit, Frame>();
  /** Functions that write to stdout directly (filled by the caller's static scan). */
  readonly sinkFunctions = new Set<FunctionNode>();
  /** Arrays whose items go to fd 1 and nowhere else (filled by the caller's static scan): a push onto one is a write. */
  readonly outboxes = new Map<Binding, Channel>();
  /** The functions that flush an outbox: what they write was written where it was pushed. */
  readonly outboxDrains = new Set<FunctionNode>();
  /** Functions that hold a `JSON.parse` (candidates for the message parse). */
  readonly parseFunctions = new Set<FunctionNode>();

  /** Which functions reach fd 1, only log, or serialize (see writers.ts). */
  readonly writers = new WriterAnalysis(this);
  /** The one call of a function, a method or a class (see call-sites.ts). */
  readonly sites = new CallSites(this);
  /** What a member of an instance holds (see class-members.ts). */
  readonly members = new ClassMembers(this);
  /** What imports, requires and exports evaluate to (see module-values.ts). */
  readonly modules = new ModuleValues(this);

  constructor(readonly program: Program) {}

  /** `fn` writes to stdout or parses JSON, directly or through the functions it calls. */
  mayWrite(fn: FunctionNode): boolean {
    return this.writers.mayWrite(fn);
  }

  /** A call of `fn` can do nothing but log to stderr (see WriterAnalysis.onlyLogs). */
  onlyLogs(fn: FunctionNode): boolean {
    return this.writers.onlyLogs(fn);
  }

  /** Forgets what mayWrite() answered: the scan that fills sinkFunctions and parseFunctions has moved on. */
  resetReach(): void {
    this.writers.resetReach();
  }

  /** The one statement in the program that calls `fn` (by name, as a method of its class, or `new`), or null. */
  findCaller(fn: FunctionNode, mod: ModuleUnit): { call: t.CallExpression | t.NewExpression; mod: ModuleUnit } | null {
    return this.sites.findCaller(fn, mod);
  }

  // ---------------------------------------------------------------- states

  newState(): PathState {
    return { env: new Map(), heap: new Map(), owned: new Set(), cons: new Map(), events: [], parsed: false, active: new Set(), pre: new Map() };
  }

  private fork(s: PathState): PathState {
    this.paths++;
    return {
      env: new Map(s.env),
      heap: new Map(s.heap),
      owned: new Set(),
      cons: new Map(s.cons),
      events: [...s.events],
      parsed: s.parsed,
      active: new Set(s.active),
      pre: new Map(s.pre),
    };
  }

  get exhausted(): boolean {
    return this.paths > MAX_PATHS;
  }

  topFrame(mod: ModuleUnit): Frame {
    let frame = this.topFrames.get(mod);
    if (!frame) {
      frame = { id: nextFrameId(), fn: null, mod, thisVal: undefined, call: null, caller: null };
      this.topFrames.set(mod, frame);
    }
    return frame;
  }

  private newCell(s: PathState, fields: Map<string, Val>): number {
    const id = ++cellCounter;
    s.heap.set(id, fields);
    s.owned.add(id);
    return id;
  }

  readCell(s: PathState, cell: number): Map<string, Val> | undefined {
    return s.heap.get(cell);
  }

  private writeCell(s: PathState, cell: number, key: string, value: Val): void {
    let fields = s.heap.get(cell);
    if (!s.owned.has(cell)) {
      fields = new Map(fields ?? []);
      s.heap.set(cell, fields);
      s.owned.add(cell);
    }
    fields!.set(key, value);
  }

  // ---------------------------------------------------------------- entry points

  /** Calls `fn` with `args` on a fresh path and returns every way it completes. */
  runFunction(fn: Val, args: Val[], thisVal?: Val, preset?: Map<SymKey, Constraint>): PathResult[] {
    this.paths = 0;
    const s = this.newState();
    if (preset) s.cons = new Map(preset);
    if (fn.k !== 'func') return [];
    const outcomes = this.callFunction(fn, args, thisVal, null, s, null, true);
    return outcomes.map((o) => ({ state: o.s, completion: 'thrown' in o ? { type: 'throw', value: o.thrown, node: o.node } : { type: 'return', value: o.v, node: null } }));
  }

  /** Runs statements of `fn` (or of a module top level) with extra bindings, e.g. the body of a `for await` loop. */
  runStatements(statements: t.Statement[], mod: ModuleUnit, fn: FunctionNode | null, bindings: Map<Binding, Val>, preset?: Map<SymKey, Constraint>): PathResult[] {
    this.paths = 0;
    const s = this.newState();
    if (preset) s.cons = new Map(preset);
    for (const [b, v] of bindings) s.env.set(b, v);
    const frame: Frame = { id: nextFrameId(), fn, mod, thisVal: fn ? this.getStaticThis(mod, fn) : undefined, call: null, caller: null };
    s.events.push({ e: 'enter', frame, args: [] });
    return this.execList(statements, s, frame).map((r) => ({ state: r.s, completion: r.c }));
  }

  /** The value of an expression, evaluated without a path (module-level constants, classes, streams). */
  evalStatic(node: t.Node, mod: ModuleUnit): Val {
    const s = this.newState();
    const fn = findEnclosingFunction(mod, node);
    const frame: Frame = { id: nextFrameId(), fn, mod, thisVal: fn ? this.getStaticThis(mod, node) : undefined, call: null, caller: null };
    return this.evalPure(node, s, frame);
  }

  // ---------------------------------------------------------------- statements

  /**
   * Runs `list` from `from` on. Function declarations are hoisted: `hoisted` (a switch's, found once for
   * all its cases), else those of the list, are bound before the first statement runs. Stops once no
   * path goes on normally (a case that breaks does not walk the rest of a long switch).
   */
  private execList(list: readonly t.Statement[], s: PathState, frame: Frame, from = 0, hoisted?: readonly t.FunctionDeclaration[]): Res[] {
    let live: Res[] = [{ s, c: { type: 'normal' } }];
    for (const statement of hoisted ?? list) {
      if (statement.type === 'FunctionDeclaration' && statement.id) this.bindHoisted(statement, s, frame);
    }
    for (let i = from; i < list.length; i++) {
      if (!live.some((r) => r.c.type === 'normal')) break;
      const statement = list[i]!;
      const next: Res[] = [];
      for (const r of live) {
        if (r.c.type !== 'normal') {
          next.push(r);
          continue;
        }
        if (this.exhausted) {
          r.s.events.push({ e: 'incomplete', node: statement, why: 'too many paths' });
          next.push({ s: r.s, c: { type: 'return', value: UNKNOWN, node: null } });
          continue;
        }
        next.push(...this.exec(statement, r.s, frame));
      }
      live = next;
    }
    return live;
  }

  private bindHoisted(statement: t.FunctionDeclaration, s: PathState, frame: Frame): void {
    const binding = resolveIdentifier(frame.mod.index, statement.id!);
    if (binding) s.env.set(binding, { k: 'func', fn: statement, mod: frame.mod, thisVal: frame.thisVal });
  }

  private exec(node: t.Statement, s: PathState, frame: Frame): Res[] {
    switch (node.type) {
      case 'ExpressionStatement':
        return this.evalFork(node.expression, s, frame).map((o) => this.toRes(o));
      case 'VariableDeclaration':
        return this.execDeclaration(node, s, frame);
      case 'ReturnStatement': {
        if (!node.argument) return [{ s, c: { type: 'return', value: UNDEFINED, node } }];
        return this.evalFork(node.argument, s, frame).map((o) => ('thrown' in o ? this.toRes(o) : { s: o.s, c: { type: 'return', value: o.v, node } }));
      }
      case 'ThrowStatement':
        return this.evalFork(node.argument, s, frame).map((o) => ('thrown' in o ? this.toRes(o) : { s: o.s, c: { type: 'throw', value: o.v, node } }));
      case 'IfStatement': {
        const out: Res[] = [];
        for (const branch of this.cond(node.test, s, frame)) {
          if (branch.s.parsed) branch.s.events.push({ e: 'branch', node, truth: branch.truth });
          if (branch.truth) out.push(...this.exec(node.consequent, branch.s, frame));
          else if (node.alternate) out.push(...this.exec(node.alternate, branch.s, frame));
          else out.push({ s: branch.s, c: { type: 'normal' } });
        }
        return out;
      }
      case 'BlockStatement':
        return this.execList(node.body, s, frame);
      case 'EmptyStatement':
      case 'DebuggerStatement':
        return [{ s, c: { type: 'normal' } }];
      case 'SwitchStatement':
        return this.execSwitch(node, s, frame);
      case 'TryStatement':
        return this.execTry(node, s, frame);
      case 'BreakStatement':
        return [{ s, c: { type: 'break', label: node.label?.name ?? null } }];
      case 'ContinueStatement':
        return [{ s, c: { type: 'continue', label: node.label?.name ?? null } }];
      case 'LabeledStatement':
        return this.exec(node.body, s, frame).map((r) =>
          (r.c.type === 'break' || r.c.type === 'continue') && r.c.label === node.label.name ? { s: r.s, c: { type: 'normal' } } : r,
        );
      case 'ForStatement':
      case 'WhileStatement':
      case 'DoWhileStatement':
      case 'ForOfStatement':
      case 'ForInStatement':
        return this.execLoop(node, s, frame);
      case 'FunctionDeclaration':
      case 'ClassDeclaration':
      case 'TSInterfaceDeclaration':
      case 'TSTypeAliasDeclaration':
      case 'TSEnumDeclaration':
      case 'TSModuleDeclaration':
      case 'TSDeclareFunction':
      case 'ImportDeclaration':
      case 'ExportAllDeclaration':
        if (node.type === 'ClassDeclaration' && node.id) {
          const binding = resolveIdentifier(frame.mod.index, node.id);
          if (binding) s.env.set(binding, { k: 'class', node, mod: frame.mod });
        }
        return [{ s, c: { type: 'normal' } }];
      case 'ExportNamedDeclaration':
      case 'ExportDefaultDeclaration':
        if (node.declaration && t.isStatement(node.declaration)) return this.exec(node.declaration, s, frame);
        return [{ s, c: { type: 'normal' } }];
      default:
        s.events.push({ e: 'incomplete', node, why: `statement ${node.type}` });
        return [{ s, c: { type: 'normal' } }];
    }
  }

  private toRes(o: Outcome): Res {
    if ('thrown' in o) return { s: o.s, c: o.thrown.k === 'lit' && o.thrown.value === EXIT ? { type: 'exit' } : { type: 'throw', value: o.thrown, node: o.node } };
    return { s: o.s, c: { type: 'normal' } };
  }

  private execDeclaration(node: t.VariableDeclaration, s: PathState, frame: Frame): Res[] {
    let live: Outcome[] = [{ s, v: UNDEFINED }];
    for (const declarator of node.declarations) {
      const next: Outcome[] = [];
      for (const o of live) {
        if ('thrown' in o) {
          next.push(o);
          continue;
        }
        if (!declarator.init) {
          this.bindPattern(declarator.id, UNDEFINED, o.s, frame);
          next.push(o);
          continue;
        }
        for (const r of this.evalFork(declarator.init, o.s, frame)) {
          if ('thrown' in r) next.push(r);
          else {
            this.bindPattern(declarator.id, r.v, r.s, frame);
            next.push(r);
          }
        }
      }
      live = next;
    }
    return live.map((o) => this.toRes(o));
  }

  /** Binds the names of a pattern to the parts of `value` they destructure. */
  /** `strict`: only undefined takes a default (an unknown value may be anything a caller passed). */
  bindPattern(pattern: t.Node, value: Val, s: PathState, frame: Frame, strict = false): void {
    switch (pattern.type) {
      case 'Identifier': {
        const binding = resolveIdentifier(frame.mod.index, pattern);
        if (binding) s.env.set(binding, value);
        return;
      }
      case 'AssignmentPattern': {
        const useDefault = value.k === 'lit' ? value.value === undefined : value.k === 'unknown' && !strict;
        if (useDefault) this.bindPattern(pattern.left, this.evalPure(pattern.right, s, frame), s, frame, strict);
        else this.bindPattern(pattern.left, value, s, frame, strict);
        return;
      }
      case 'ObjectPattern':
        for (const prop of pattern.properties) {
          if (prop.type === 'RestElement') {
            this.bindPattern(prop.argument, UNKNOWN, s, frame, strict);
            continue;
          }
          const key = getStaticKey(prop);
          const part = key === null ? UNKNOWN : this.member(value, key, s, frame, prop);
          this.bindPattern(prop.value, part, s, frame, strict);
        }
        return;
      case 'ArrayPattern':
        pattern.elements.forEach((el, i) => {
          if (!el) return;
          if (el.type === 'RestElement') this.bindPattern(el.argument, UNKNOWN, s, frame, strict);
          else this.bindPattern(el, value.k === 'arr' && value.items ? (value.items[i] ?? UNDEFINED) : value.k === 'text' ? value : UNKNOWN, s, frame, strict);
        });
        return;
      case 'RestElement':
        this.bindPattern(pattern.argument, UNKNOWN, s, frame);
        return;
      case 'TSParameterProperty':
        this.bindPattern(pattern.parameter, value, s, frame, strict);
        return;
      case 'MemberExpression': {
        this.assignMember(pattern, value, s, frame);
        return;
      }
      default:
        return;
    }
  }

  private execSwitch(node: t.SwitchStatement, s: PathState, frame: Frame): Res[] {
    const discriminant = this.evalPure(node.discriminant, s, frame);
    const out: Res[] = [];
    // Which case each path starts at: test the cases in order, forking where the answer is open.
    let pending: PathState[] = [s];
    const starts: { s: PathState; index: number }[] = [];
    node.cases.forEach((kase, index) => {
      if (!kase.test) return;
      const next: PathState[] = [];
      for (const ps of pending) {
        // `switch (true) { case method === 'tools/list': ... }`: each case is a condition
        const branches =
          discriminant.k === 'lit' && typeof discriminant.value === 'boolean'
            ? this.cond(kase.test!, ps, frame).map((b) => ({ s: b.s, truth: b.truth === discriminant.value }))
            : this.compare(discriminant, this.evalPure(kase.test!, ps, frame), '===', ps);
        for (const branch of branches) {
          if (branch.truth) starts.push({ s: branch.s, index });
          else next.push(branch.s);
        }
      }
      pending = next;
    });
    const defaultIndex = node.cases.findIndex((c) => !c.test);
    for (const ps of pending) {
      if (defaultIndex === -1) out.push({ s: ps, c: { type: 'normal' } });
      else starts.push({ s: ps, index: defaultIndex });
    }
    // the statements of every case in one list, and where each case begins in it
    const statements = node.cases.flatMap((c) => c.consequent);
    const begins: number[] = [];
    node.cases.reduce((at, c) => (begins.push(at), at + c.consequent.length), 0);
    const hoisted = statements.filter((st): st is t.FunctionDeclaration => st.type === 'FunctionDeclaration');
    for (const start of starts) {
      // fall through from the starting case to the end or a break
      for (const r of this.execList(statements, start.s, frame, begins[start.index]!, hoisted)) {
        if (r.c.type === 'break' && r.c.label === null) out.push({ s: r.s, c: { type: 'normal' } });
        else out.push(r);
      }
    }
    return out;
  }

  private execTry(node: t.TryStatement, s: PathState, frame: Frame): Res[] {
    const before = s.events.length;
    const entry = this.fork(s);
    const results = this.exec(node.block, s, frame);
    const out: Res[] = [];
    const handle = (r: Res): Res[] => {
      if (r.c.type !== 'throw' || !node.handler) return [r];
      if (node.handler.param) this.bindPattern(node.handler.param, r.c.value, r.s, frame);
      return this.exec(node.handler.body, r.s, frame);
    };
    let opaque = false;
    for (const r of results) {
      if (r.s.events.slice(before).some((e) => e.e === 'effect' && e.what === 'call')) opaque = true;
      out.push(...handle(r));
    }
    // Something the path could not follow threw: the handler runs with an unknown error.
    if (opaque && node.handler) out.push(...handle({ s: entry, c: { type: 'throw', value: UNKNOWN, node: null } }));
    if (!node.finalizer) return out;
    const finalized: Res[] = [];
    for (const r of out) {
      for (const f of this.exec(node.finalizer, r.s, frame)) finalized.push(f.c.type === 'normal' ? { s: f.s, c: r.c } : f);
    }
    return finalized;
  }

  private execLoop(node: t.Loop, s: PathState, frame: Frame): Res[] {
    let starts: PathState[] = [s];
    if (node.type === 'ForStatement' && node.init) {
      const init = t.isVariableDeclaration(node.init) ? this.exec(node.init, s, frame) : this.evalFork(node.init, s, frame).map((o) => this.toRes(o));
      starts = init.filter((r) => r.c.type === 'normal').map((r) => r.s);
    }
    const out: Res[] = [];
    for (const start of starts) {
      const bodies: PathState[] = [];
      if (node.type === 'ForOfStatement' || node.type === 'ForInStatement') {
        const iterable = this.evalPure(node.right, start, frame);
        const item = node.type === 'ForInStatement' ? UNKNOWN : iterable.k === 'text' ? iterable : iterable.k === 'arr' && iterable.items?.length === 1 ? iterable.items[0]! : iterable.k === 'readline' ? { k: 'text' as const } : iterable.k === 'arr' && iterable.items === null ? UNKNOWN : UNKNOWN;
        const target = node.left.type === 'VariableDeclaration' ? node.left.declarations[0]!.id : node.left;
        this.bindPattern(target, item, start, frame);
        bodies.push(start);
        out.push({ s: this.fork(start), c: { type: 'normal' } });
      } else if (node.type === 'DoWhileStatement') {
        bodies.push(start);
      } else {
        const test = node.type === 'ForStatement' ? node.test : node.test;
        if (!test) bodies.push(start);
        else {
          for (const branch of this.cond(test, start, frame)) {
            if (branch.truth) bodies.push(branch.s);
            else out.push({ s: branch.s, c: { type: 'normal' } });
          }
        }
      }
      for (const b of bodies) {
        for (const r of this.exec(node.body, b, frame)) {
          // One iteration is one message: break and continue both end it.
          if ((r.c.type === 'break' || r.c.type === 'continue') && r.c.label === null) out.push({ s: r.s, c: { type: 'normal' } });
          else out.push(r);
        }
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- conditions

  /** The ways `node` can be truthy or falsy on this path, with what each way implies. */
  cond(node: t.Node, s: PathState, frame: Frame): { s: PathState; truth: boolean }[] {
    const expr = unwrapExpression(node);
    if (expr.type === 'UnaryExpression' && expr.operator === '!') {
      return this.cond(expr.argument, s, frame).map((b) => ({ s: b.s, truth: !b.truth }));
    }
    if (expr.type === 'LogicalExpression' && (expr.operator === '&&' || expr.operator === '||')) {
      const out: { s: PathState; truth: boolean }[] = [];
      for (const left of this.cond(expr.left, s, frame)) {
        if (expr.operator === '&&' ? !left.truth : left.truth) out.push(left);
        else out.push(...this.cond(expr.right, left.s, frame));
      }
      return out;
    }
    if (expr.type === 'BinaryExpression') {
      const op = expr.operator;
      if (op === '===' || op === '!==' || op === '==' || op === '!=') {
        const loose = op === '==' || op === '!=';
        const negate = op === '!==' || op === '!=';
        const test = (left: Val, at: PathState): { s: PathState; truth: boolean }[] =>
          this.compare(left, this.evalTypeofAware(expr.right, at, frame), loose ? '==' : '===', at).map((b) => ({ s: b.s, truth: negate ? !b.truth : b.truth }));
        if (expr.left.type === 'AssignmentExpression') {
          // `(msg = reader.next()) !== null`: every way the call can end is tested (a reader that returns
          // null while its buffer is empty and the parsed message otherwise), not only the last one
          return this.evalFork(expr.left, s, frame).flatMap((o) => ('thrown' in o ? [] : test(o.v, o.s)));
        }
        return test(this.evalTypeofAware(expr.left, s, frame), s);
      }
      if (op === 'in' && expr.left.type !== 'PrivateName') {
        const key = this.evalPure(expr.left, s, frame);
        const target = this.evalPure(expr.right, s, frame);
        return this.hasKey(target, key, s, frame, expr);
      }
    }
    if (expr.type === 'CallExpression') {
      const callee = unwrapExpression(expr.callee);
      // hasOwnProperty(obj, key) in its several spellings
      const fnVal = callee.type === 'MemberExpression' || callee.type === 'Identifier' ? this.evalPure(callee, s, frame) : UNKNOWN;
      if (fnVal.k === 'native') {
        if ((fnVal.name === 'hasOwnProperty.call' || fnVal.name === 'Object.hasOwn') && expr.arguments.length === 2) {
          return this.hasKey(this.evalPure(expr.arguments[0]!, s, frame), this.evalPure(expr.arguments[1]!, s, frame), s, frame, expr);
        }
        if (fnVal.name === 'hasOwnProperty' && fnVal.self && expr.arguments.length === 1) {
          return this.hasKey(fnVal.self, this.evalPure(expr.arguments[0]!, s, frame), s, frame, expr);
        }
        if (fnVal.name === 'map.has' && fnVal.self && expr.arguments.length === 1) {
          return this.hasKey(fnVal.self, this.evalPure(expr.arguments[0]!, s, frame), s, frame, expr);
        }
        if ((fnVal.name === 'string.startsWith' || fnVal.name === 'string.endsWith' || fnVal.name === 'string.includes') && fnVal.self?.k === 'sym') {
          const arg = this.evalPure(expr.arguments[0]!, s, frame);
          if (arg.k === 'lit' && typeof arg.value === 'string' && fnVal.name === 'string.startsWith') return this.testPrefix(fnVal.self.key, arg.value, s);
        }
      }
    }
    if (expr.type === 'AssignmentExpression' || expr.type === 'AwaitExpression' || expr.type === 'CallExpression') {
      // `(chunk = stream.read()) !== null` and `if (await check())`: follow the expression, then test it
      return this.evalFork(expr, s, frame).flatMap((o) => ('thrown' in o ? [] : this.truthiness(o.v, o.s)));
    }
    return this.truthiness(this.evalPure(expr, s, frame), s);
  }

  private evalTypeofAware(node: t.Node, s: PathState, frame: Frame): Val {
    const expr = unwrapExpression(node);
    if (expr.type === 'UnaryExpression' && expr.operator === 'typeof') {
      const v = this.evalPure(expr.argument, s, frame);
      if (v.k === 'sym') return { k: 'sym', key: `typeof:${v.key}` };
      const type = typeOf(v);
      return type === null ? UNKNOWN : lit(type);
    }
    return this.evalPure(node, s, frame);
  }

  /** Truthiness of a value; a message member's presence forks the path. */
  private truthiness(v: Val, s: PathState): { s: PathState; truth: boolean }[] {
    switch (v.k) {
      case 'lit':
        return [{ s, truth: Boolean(v.value) }];
      case 'unknown':
      case 'text':
        return this.split(s);
      case 'sym': {
        const c = s.cons.get(v.key);
        if (c?.eq !== undefined) return [{ s, truth: Boolean(c.eq) }];
        if (c?.defined === false) return [{ s, truth: false }];
        if (v.key === 'method' || v.key === 'jsonrpc') return [{ s, truth: true }];
        if (v.key === 'id' && c?.defined === true) return [{ s, truth: true }];
        const [a, b] = [this.fork(s), this.fork(s)];
        if (v.key === 'id') {
          this.constrain(a, 'id', { defined: true });
          this.constrain(b, 'id', { defined: false });
        }
        return [
          { s: a, truth: true },
          { s: b, truth: false },
        ];
      }
      case 'promise':
      case 'json':
        return [{ s, truth: true }];
      case 'pred':
        return this.cond(v.node, s, v.frame);
      default:
        return [{ s, truth: true }];
    }
  }

  private split(s: PathState): { s: PathState; truth: boolean }[] {
    return [
      { s: this.fork(s), truth: true },
      { s: this.fork(s), truth: false },
    ];
  }

  private constrain(s: PathState, key: SymKey, change: Partial<Constraint> & { addNeq?: Lit; addPrefix?: [string, boolean] }): void {
    const old = s.cons.get(key) ?? { neq: [], prefixes: [] };
    const next: Constraint = { eq: old.eq, neq: [...old.neq], prefixes: [...old.prefixes], defined: old.defined };
    if (change.eq !== undefined) next.eq = change.eq;
    if (change.defined !== undefined) next.defined = change.defined;
    if (change.addNeq !== undefined) next.neq.push(change.addNeq);
    if (change.addPrefix) next.prefixes.push(change.addPrefix);
    if (next.eq !== undefined && next.eq !== null) next.defined = true;
    s.cons.set(key, next);
  }

  /** `a === b` (or `==`) where one side may be a message member: decide from the path, or fork and record. */
  private compare(a: Val, b: Val, op: '===' | '==', s: PathState): { s: PathState; truth: boolean }[] {
    if (a.k === 'lit' && b.k === 'lit') return [{ s, truth: op === '===' ? a.value === b.value : a.value == b.value }];
    const sym = a.k === 'sym' ? a : b.k === 'sym' ? b : null;
    const other = sym === a ? b : a;
    if (sym && other.k === 'lit') return this.compareSym(sym.key, other.value, op, s);
    if (a.k === 'msg' || b.k === 'msg') {
      if (other.k === 'lit') return [{ s, truth: false }];
    }
    // an object compared with undefined/null
    if (other.k === 'lit' && (other.value === undefined || other.value === null)) {
      const v = sym === null ? (a === other ? b : a) : sym;
      if (v.k !== 'unknown' && v.k !== 'text') return [{ s, truth: false }];
    }
    return this.split(s);
  }

  private compareSym(key: SymKey, value: Lit, op: '===' | '==', s: PathState): { s: PathState; truth: boolean }[] {
    if (key.startsWith('typeof:')) {
      const base = key.slice('typeof:'.length);
      if (value === 'undefined') return this.compareSym(base, undefined, '===', s);
      if (base === 'method' && value === 'string') return [{ s, truth: true }];
      const c = s.cons.get(base);
      if (c?.defined === false) return [{ s, truth: false }];
      return this.split(s);
    }
    const c = s.cons.get(key);
    const nullish = value === undefined || value === null;
    if (nullish) {
      // presence: `id === undefined`, `msg.id == null`, `params === undefined`
      if (key === 'method') return [{ s, truth: false }];
      if (c?.defined !== undefined) {
        const absent = !c.defined;
        if (op === '==' || value === undefined) return [{ s, truth: absent }];
        return [{ s, truth: false }];
      }
      const [yes, no] = [this.fork(s), this.fork(s)];
      if (op === '==' || value === undefined) this.constrain(yes, key, { defined: false });
      this.constrain(no, key, { defined: true });
      return [
        { s: yes, truth: true },
        { s: no, truth: false },
      ];
    }
    if (c?.eq !== undefined) return [{ s, truth: op === '===' ? c.eq === value : c.eq == value }];
    if (c?.neq.includes(value)) return [{ s, truth: false }];
    if (c?.defined === false) return [{ s, truth: false }];
    if (typeof value === 'string' && c?.prefixes.some(([p, yes]) => value.startsWith(p) !== yes)) return [{ s, truth: false }];
    const [yes, no] = [this.fork(s), this.fork(s)];
    this.constrain(yes, key, { eq: value });
    this.constrain(no, key, { addNeq: value });
    return [
      { s: yes, truth: true },
      { s: no, truth: false },
    ];
  }

  private testPrefix(key: SymKey, prefix: string, s: PathState): { s: PathState; truth: boolean }[] {
    const c = s.cons.get(key);
    if (typeof c?.eq === 'string') return [{ s, truth: c.eq.startsWith(prefix) }];
    const known = c?.prefixes.find(([p]) => p === prefix);
    if (known) return [{ s, truth: known[1] }];
    const [yes, no] = [this.fork(s), this.fork(s)];
    this.constrain(yes, key, { addPrefix: [prefix, true] });
    this.constrain(no, key, { addPrefix: [prefix, false] });
    return [
      { s: yes, truth: true },
      { s: no, truth: false },
    ];
  }

  /** `key in obj`, `hasOwnProperty`, `map.has(key)`: over the table's known keys when the key is a message member. */
  private hasKey(target: Val, key: Val, s: PathState, frame: Frame, node: t.Node): { s: PathState; truth: boolean }[] {
    if (target.k === 'msg' && key.k === 'lit' && typeof key.value === 'string') {
      return this.truthiness({ k: 'sym', key: key.value }, s).map((b) => b);
    }
    const keys = this.getTableKeys(target, s, frame);
    if (keys === null) {
      s.events.push({ e: 'runtime-table', node, frame });
      return this.split(s);
    }
    if (key.k === 'lit') return [{ s, truth: keys.includes(String(key.value)) }];
    if (key.k === 'sym') return this.forkOverKeys(key.key, keys, s).map((b) => ({ s: b.s, truth: b.key !== null }));
    return this.split(s);
  }

  /** Forks a path per key the message member may equal, plus one for none of them. */
  private forkOverKeys(symKey: SymKey, keys: string[], s: PathState): { s: PathState; key: string | null }[] {
    const c = s.cons.get(symKey);
    if (c?.eq !== undefined) return [{ s, key: keys.includes(String(c.eq)) ? String(c.eq) : null }];
    const out: { s: PathState; key: string | null }[] = [];
    for (const key of keys) {
      if (c?.neq.includes(key)) continue;
      if (c?.prefixes.some(([p, yes]) => key.startsWith(p) !== yes)) continue;
      const branch = this.fork(s);
      this.constrain(branch, symKey, { eq: key });
      out.push({ s: branch, key });
    }
    const none = this.fork(s);
    for (const key of keys) this.constrain(none, symKey, { addNeq: key });
    out.push({ s: none, key: null });
    return out;
  }

  // ---------------------------------------------------------------- expressions that may fork

  /** Evaluates an expression whose calls may be followed (statements, assignments, awaited calls). */
  evalFork(node: t.Node, s: PathState, frame: Frame): Outcome[] {
    const expr = unwrapExpression(node);
    switch (expr.type) {
      case 'CallExpression':
      case 'OptionalCallExpression':
        return this.evalCall(expr, s, frame);
      case 'NewExpression':
        return this.evalNew(expr, s, frame);
      case 'AwaitExpression':
        return this.evalFork(expr.argument, s, frame).flatMap((o): Outcome[] => {
          if ('thrown' in o) return [o];
          if (o.v.k === 'promise') return o.v.rejected ? [{ s: o.s, thrown: o.v.value, node: expr }] : [{ s: o.s, v: o.v.value }];
          return [o];
        });
      case 'AssignmentExpression':
        return this.evalAssignment(expr, s, frame);
      case 'SequenceExpression': {
        let live: Outcome[] = [{ s, v: UNDEFINED }];
        for (const part of expr.expressions) live = live.flatMap((o) => ('thrown' in o ? [o] : this.evalFork(part, o.s, frame)));
        return live;
      }
      case 'ConditionalExpression':
        return this.cond(expr.test, s, frame).flatMap((b) => this.evalFork(b.truth ? expr.consequent : expr.alternate, b.s, frame));
      case 'LogicalExpression': {
        if (!this.containsCall(expr.right)) return [{ s, v: this.evalPure(expr, s, frame) }];
        return this.evalFork(expr.left, s, frame).flatMap((o) => {
          if ('thrown' in o) return [o];
          const truth = this.truthiness(o.v, o.s);
          return truth.flatMap((b) => {
            const takeLeft = expr.operator === '&&' ? !b.truth : expr.operator === '||' ? b.truth : o.v.k !== 'lit' || (o.v.value !== undefined && o.v.value !== null);
            return takeLeft ? [{ s: b.s, v: o.v }] : this.evalFork(expr.right, b.s, frame);
          });
        });
      }
      case 'UnaryExpression':
        if (expr.operator === 'void' || expr.operator === 'delete') return this.evalFork(expr.argument, s, frame).map((o) => ('thrown' in o ? o : { s: o.s, v: UNDEFINED }));
        return [{ s, v: this.evalPure(expr, s, frame) }];
      case 'MemberExpression':
      case 'OptionalMemberExpression':
        if (expr.computed && (!t.isLiteral(expr.property) || (expr.property.type === 'TemplateLiteral' && expr.property.expressions.length > 0))) {
          // handlers[method], this[`handle_${method}`]: a path per handler
          const table = this.evalPure(expr.object, s, frame);
          const key = this.evalPure(expr.property, s, frame);
          return this.lookupDynamic(table, key, s, frame, expr);
        }
        return this.evalDeep(expr, s, frame);
      case 'UpdateExpression':
        this.recordWrite(expr.argument, s, frame, expr);
        if (expr.argument.type === 'Identifier') {
          const binding = resolveIdentifier(frame.mod.index, expr.argument);
          if (binding) s.env.set(binding, UNKNOWN);
        } else if (expr.argument.type === 'MemberExpression') this.assignMember(expr.argument, UNKNOWN, s, frame);
        return [{ s, v: UNKNOWN }];
      default:
        return this.evalDeep(expr, s, frame);
    }
  }

  /**
   * An expression with calls inside (`send({ id, result: await handler(params) })`): the calls are
   * evaluated first, in source order and followed where they matter, then the expression around them.
   * Branches of `?:`, `&&`, `||` are not entered (their calls stay opaque).
   */
  private evalDeep(node: t.Node, s: PathState, frame: Frame): Outcome[] {
    const calls: t.Node[] = [];
    const collect = (n: t.Node): void => {
      const expr = unwrapExpression(n);
      if (expr.type === 'CallExpression' || expr.type === 'OptionalCallExpression' || expr.type === 'AwaitExpression' || expr.type === 'NewExpression') {
        calls.push(expr);
        return;
      }
      if ((expr.type === 'MemberExpression' || expr.type === 'OptionalMemberExpression') && expr.computed && !t.isLiteral(expr.property) && n !== node) {
        calls.push(expr);
        return;
      }
      if (isFunctionNode(expr) || expr.type === 'ClassExpression' || expr.type === 'ConditionalExpression' || expr.type === 'LogicalExpression') return;
      forEachChild(expr, collect);
    };
    collect(node);
    let live: Outcome[] = [{ s, v: UNDEFINED }];
    for (const call of calls) {
      live = live.flatMap((o) => {
        if ('thrown' in o) return [o];
        return this.evalFork(call, o.s, frame).map((r) => {
          if (!('thrown' in r)) r.s.pre.set(call, { frame: frame.id, v: r.v });
          return r;
        });
      });
    }
    return live.map((o) => ('thrown' in o ? o : { s: o.s, v: this.evalPure(node, o.s, frame) }));
  }

  private containsCall(node: t.Node): boolean {
    const expr = unwrapExpression(node);
    if (expr.type === 'CallExpression' || expr.type === 'AwaitExpression' || expr.type === 'AssignmentExpression') return true;
    if (expr.type === 'LogicalExpression') return this.containsCall(expr.left) || this.containsCall(expr.right);
    if (expr.type === 'ConditionalExpression') return this.containsCall(expr.consequent) || this.containsCall(expr.alternate);
    return false;
  }

  private evalAssignment(expr: t.AssignmentExpression, s: PathState, frame: Frame): Outcome[] {
    return this.evalFork(expr.right, s, frame).map((o) => {
      if ('thrown' in o) return o;
      let value = o.v;
      if (expr.operator !== '=') {
        const old = expr.left.type === 'Identifier' || expr.left.type === 'MemberExpression' ? this.evalPure(expr.left, o.s, frame) : UNKNOWN;
        value = expr.operator === '+=' ? this.concat(old, value) : expr.operator === '??=' || expr.operator === '||=' ? (old.k === 'lit' && !old.value ? value : old) : UNKNOWN;
      }
      this.recordWrite(expr.left, o.s, frame, expr);
      this.bindPattern(expr.left, value, o.s, frame);
      return { s: o.s, v: value };
    });
  }

  /** Assignments to state outside the running frames are effects (a request counter, a log level). */
  private recordWrite(target: t.Node, s: PathState, frame: Frame, node: t.Node): void {
    if (target.type === 'Identifier') {
      const binding = resolveIdentifier(frame.mod.index, target);
      if (!binding || !this.isLocalTo(binding, frame)) s.events.push({ e: 'effect', node, frame, what: 'assign' });
      return;
    }
    if (target.type === 'MemberExpression') {
      const object = this.evalPure(target.object, s, frame);
      if (object.k === 'obj' && this.isPathCell(object, s)) return;
      s.events.push({ e: 'effect', node, frame, what: 'assign' });
    }
  }

  private isPathCell(value: Val, s: PathState): boolean {
    return value.k === 'obj' && value.cell !== 0 && s.heap.has(value.cell);
  }

  private isLocalTo(binding: Binding, frame: Frame): boolean {
    // At module level (a top-level `for await` over stdin), a let/const declared in a loop's body is
    // fresh for each message: the message handling's own state, not the server's.
    if (frame.fn === null) return (binding.kind === 'let' || binding.kind === 'const') && isInLoopBody(binding.declarator, frame.mod.index.parent);
    if (binding.kind === 'param') return binding.fn === frame.fn;
    if (binding.kind === 'var' || binding.kind === 'let' || binding.kind === 'const') {
      let node: t.Node | undefined = binding.declarator;
      while (node && node !== frame.fn) node = frame.mod.index.parent.get(node);
      return node === frame.fn;
    }
    return binding.kind === 'catch';
  }

  private assignMember(target: t.MemberExpression, value: Val, s: PathState, frame: Frame): void {
    const object = this.evalPure(target.object, s, frame);
    const key = target.computed ? this.keyOf(this.evalPure(target.property, s, frame)) : getMemberName(target);
    if (key === null) return;
    if (object.k === 'obj' || object.k === 'inst' || object.k === 'error') this.writeCell(s, object.cell, key, value);
  }

  private keyOf(v: Val): string | null {
    if (v.k === 'lit' && (typeof v.value === 'string' || typeof v.value === 'number')) return String(v.value);
    return null;
  }

  private concat(a: Val, b: Val): Val {
    if (a.k === 'lit' && b.k === 'lit' && (typeof a.value === 'string' || typeof b.value === 'string')) return lit(String(a.value) + String(b.value));
    if (isFromMethod(a) || isFromMethod(b)) return FROM_METHOD;
    if (a.k === 'text' || b.k === 'text') return { k: 'text' };
    if (a.k === 'json' && b.k === 'lit' && typeof b.value === 'string') return { ...a, suffix: a.suffix + b.value };
    // the literal start of a string: a header built with `+` ('Content-Length: ' + n + '\r\n\r\n' + json) is one
    const head = a.k === 'lit' && typeof a.value === 'string' ? a.value : a.k === 'unknown' ? a.head : undefined;
    if (b.k === 'json' && head !== undefined && /content-length/i.test(head)) return { ...b, header: true };
    return head ? { k: 'unknown', head } : UNKNOWN;
  }

  // ---------------------------------------------------------------- calls

  /** The arguments of a call, in order; calls inside them are followed (see evalDeep). */
  private evalArgs(args: t.CallExpression['arguments'], s: PathState, frame: Frame): Outcome[] {
    let live: { s: PathState; values: Val[] }[] = [{ s, values: [] }];
    const thrown: Outcome[] = [];
    for (const arg of args) {
      const next: { s: PathState; values: Val[] }[] = [];
      for (const l of live) {
        if (arg.type === 'SpreadElement' || arg.type === 'ArgumentPlaceholder') {
          next.push({ s: l.s, values: [...l.values, UNKNOWN] });
          continue;
        }
        for (const o of this.evalFork(arg, l.s, frame)) {
          if ('thrown' in o) thrown.push(o);
          else next.push({ s: o.s, values: [...l.values, o.v] });
        }
      }
      live = next;
    }
    return [...thrown, ...live.map((l) => ({ s: l.s, v: { k: 'arr', items: l.values } as Val }))];
  }

  private evalCall(expr: t.CallExpression | t.OptionalCallExpression, s: PathState, frame: Frame): Outcome[] {
    const wrapped = getInteropArgument(expr);
    if (wrapped) return this.evalFork(wrapped, s, frame);
    const callee = unwrapExpression(expr.callee);
    if (callee.type === 'Import') return [{ s, v: this.dynamicImport(expr, frame) }];
    if ((callee.type === 'MemberExpression' || callee.type === 'OptionalMemberExpression') && this.hasInnerCall(callee.object)) {
      // `handle(msg).catch(...)`, `(await getServer()).send(...)`: the receiver's calls first
      return this.evalFork(callee.object, s, frame).flatMap((o) => {
        if ('thrown' in o) return [o];
        o.s.pre.set(unwrapExpression(callee.object), { frame: frame.id, v: o.v });
        return this.evalCallOn(expr, callee, o.v, o.s, frame);
      });
    }
    if (callee.type === 'MemberExpression' || callee.type === 'OptionalMemberExpression') return this.evalCallOn(expr, callee, this.evalPure(callee.object, s, frame), s, frame);
    return this.applyCall(this.evalPure(callee, s, frame), undefined, expr, s, frame);
  }

  /** `import('./x.js')`: a promise of the module's namespace when the specifier is a literal; else unknown. */
  private dynamicImport(expr: t.CallExpression | t.OptionalCallExpression, frame: Frame): Val {
    const spec = getImportedSpecifier(expr);
    return spec === null ? UNKNOWN : this.modules.dynamicImportValue(spec, frame.mod);
  }

  private hasInnerCall(node: t.Node): boolean {
    const expr = unwrapExpression(node);
    if (expr.type === 'CallExpression' || expr.type === 'OptionalCallExpression' || expr.type === 'AwaitExpression') return true;
    if (expr.type === 'MemberExpression' || expr.type === 'OptionalMemberExpression') return this.hasInnerCall(expr.object);
    return false;
  }

  private evalCallOn(expr: t.CallExpression | t.OptionalCallExpression, callee: t.MemberExpression | t.OptionalMemberExpression, receiver: Val, s: PathState, frame: Frame): Outcome[] {
    let fnVal: Val;
    let thisVal: Val | undefined;
    {
      thisVal = receiver;
      const key = callee.computed ? this.evalPure(callee.property, s, frame) : lit(getMemberName(callee) ?? undefined);
      if (key.k === 'sym' || (callee.computed && key.k !== 'lit')) {
        // obj[method](...) / this[`handle_${x}`](...)
        return this.lookupDynamic(thisVal, key, s, frame, callee).flatMap((l) => this.applyCall(l.v, thisVal, expr, l.s, frame));
      }
      fnVal = this.member(thisVal, String((key as { value: Lit }).value), s, frame, callee);
    }
    // `outbox.push(JSON.stringify(msg) + '\n')`: the flush that shifts it off writes exactly that
    const outbox = callee.object.type === 'Identifier' && !callee.computed && getMemberName(callee) === 'push' ? resolveIdentifier(frame.mod.index, callee.object) : null;
    const channel = outbox ? this.outboxes.get(outbox) : undefined;
    if (channel && expr.type === 'CallExpression') {
      return this.evalArgs(expr.arguments, s, frame).map((a) => {
        if ('thrown' in a) return a;
        const payload = (a.v as { items: Val[] }).items[0] ?? UNDEFINED;
        a.s.events.push({ e: 'write', call: expr, frame, channel, data: classifyWrite(payload, channel === 'console') });
        return { s: a.s, v: UNKNOWN };
      });
    }
    return this.applyCall(fnVal, thisVal, expr, s, frame);
  }

  private applyCall(fnVal: Val, thisVal: Val | undefined, expr: t.CallExpression | t.OptionalCallExpression, s: PathState, frame: Frame): Outcome[] {
    const argOutcomes = this.evalArgs(expr.arguments, s, frame);
    const out: Outcome[] = [];
    for (const a of argOutcomes) {
      if ('thrown' in a) {
        out.push(a);
        continue;
      }
      const args = (a.v as { items: Val[] }).items;
      if (fnVal.k === 'native') out.push(...this.callNative(fnVal, args, expr as t.CallExpression, a.s, frame));
      else if (fnVal.k === 'func') out.push(...this.callFunction(fnVal, args, fnVal.thisVal ?? thisVal, expr as t.CallExpression, a.s, frame, false));
      else if (fnVal.k === 'class') out.push(...this.construct(fnVal, args, expr as t.CallExpression, a.s, frame));
      else if (isFromMethod(fnVal)) out.push({ s: a.s, v: FROM_METHOD });
      // `String(x)`, `Number(x)`, `Boolean(x)`: conversions, no effect
      else if (fnVal.k === 'global' && (fnVal.name === 'String' || fnVal.name === 'Number' || fnVal.name === 'Boolean')) out.push({ s: a.s, v: this.pureNative(`pure.${fnVal.name}`, args) });
      else out.push(...this.opaqueCall(expr, args, a.s, frame));
    }
    return out;
  }

  /** A call the interpreter does not follow: unknown result, may throw, and an effect on the path. */
  private opaqueCall(expr: t.Node, args: Val[], s: PathState, frame: Frame): Outcome[] {
    s.events.push({ e: 'effect', node: expr, frame, what: 'call' });
    if (args.some((a) => a.k === 'func' && this.writers.mayWrite(a.fn))) s.events.push({ e: 'effect', node: expr, frame, what: 'callback' });
    return [{ s, v: UNKNOWN }];
  }

  /** Whether a call of `fn` is followed: it reaches stdout or a parse, or it is handed the message. */
  private shouldFollow(fn: FunctionNode, args: Val[], root: boolean, caller: Frame | null): boolean {
    if (root) return true;
    if (fn.type === 'FunctionDeclaration' || fn.type === 'FunctionExpression' || fn.type === 'ClassMethod' || fn.type === 'ObjectMethod' || fn.type === 'ArrowFunctionExpression') {
      if ((fn as { generator?: boolean }).generator) return false;
    }
    if (this.writers.mayWrite(fn)) return true;
    if (args.some((a) => isShallowMessageValue(a))) return true;
    // a closure of the code handling the message (`const ok = (result) => ({ jsonrpc: '2.0', id, result })`
    // inside the dispatcher): it reads the message through that code's variables, not its arguments
    return caller !== null && caller.fn !== null && isInside(caller.mod.index, fn, caller.fn);
  }

  moduleOf(node: t.Node): ModuleUnit | null {
    for (const mod of this.program.modules) if (mod.index.parent.has(node) || mod.ast.program === node) return mod;
    return null;
  }

  callFunction(fnVal: Extract<Val, { k: 'func' }>, args: Val[], thisVal: Val | undefined, call: t.CallExpression | t.NewExpression | null, s: PathState, caller: Frame | null, root: boolean, mark: Pick<Frame, 'indirect' | 'queued'> = {}): Outcome[] {
    const fn = fnVal.fn;
    const allArgs = [...(fnVal.bound ?? []), ...args];
    if (!root && this.outboxDrains.has(fn)) return [{ s, v: (fn as { async?: boolean }).async ? { k: 'promise', value: UNDEFINED } : UNDEFINED }];
    if (s.active.has(fn) || s.active.size >= MAX_DEPTH || this.exhausted) return this.opaqueCall(call ?? fn, allArgs, s, caller ?? this.topFrame(fnVal.mod));
    if (!this.shouldFollow(fn, allArgs, root, caller)) {
      const serialized = this.callSerializer(fnVal, args, thisVal, call, s, caller);
      if (serialized) return serialized;
      // a helper that only builds a value (`const fail = (detail) => ({ error: { code: -32602, ... } })`):
      // its value, as where it is called inside an expression
      if (call?.type === 'CallExpression' && caller && this.isReturnOnly(fn)) {
        const value = this.callFunctionPure(fnVal, allArgs, s, caller, call);
        if (value) return [{ s, v: value }];
      }
      return this.opaqueCall(call ?? fn, allArgs, s, caller ?? this.topFrame(fnVal.mod));
    }
    return this.followCall(fnVal, args, thisVal, call, s, caller, mark);
  }

  /** Runs `fn` on the path: its parameters bound to the arguments, one outcome per way out. */
  private followCall(fnVal: Extract<Val, { k: 'func' }>, args: Val[], thisVal: Val | undefined, call: t.CallExpression | t.NewExpression | null, s: PathState, caller: Frame | null, mark: Pick<Frame, 'indirect' | 'queued'> = {}): Outcome[] {
    const fn = fnVal.fn;
    const allArgs = [...(fnVal.bound ?? []), ...args];
    const frame: Frame = { id: nextFrameId(), fn, mod: fnVal.mod, thisVal: fn.type === 'ArrowFunctionExpression' ? fnVal.thisVal : (fnVal.thisVal ?? thisVal), call, caller, args: allArgs, ...mark };
    s.active.add(fn);
    s.events.push({ e: 'enter', frame, args: allArgs });
    fn.params.forEach((param, i) => {
      if (param.type === 'RestElement') this.bindPattern(param.argument, { k: 'arr', items: allArgs.slice(i) }, s, frame);
      else this.bindPattern(param, allArgs[i] ?? UNDEFINED, s, frame);
    });
    let results: Outcome[];
    if (fn.body.type === 'BlockStatement') {
      results = this.execList(fn.body.body, s, frame).map((r) => {
        if (r.c.type === 'throw') return { s: r.s, thrown: r.c.value, node: r.c.node };
        if (r.c.type === 'exit') return { s: r.s, thrown: lit(EXIT), node: null };
        return { s: r.s, v: r.c.type === 'return' ? r.c.value : UNDEFINED, ret: r.c.type === 'return' ? r.c.node : null } as Outcome;
      });
    } else {
      results = this.evalFork(fn.body, s, frame);
    }
    const async = (fn as { async?: boolean }).async === true;
    return results.map((o) => {
      o.s.active.delete(fn);
      o.s.events.push({ e: 'leave', frame, how: 'thrown' in o ? 'throw' : 'return', node: 'thrown' in o ? o.node : ((o as { ret?: t.Node | null }).ret ?? null) });
      if (!async) return o;
      if ('thrown' in o) return o.thrown.k === 'lit' && o.thrown.value === EXIT ? o : { s: o.s, v: { k: 'promise', value: o.thrown, rejected: true } };
      return { s: o.s, v: o.v.k === 'promise' ? o.v : { k: 'promise', value: o.v } };
    });
  }

  /**
   * A serializer of the program's own (`const encode = (msg) => JSON.stringify(msg) + '\n'`, a function
   * that builds the text in steps): followed on a copy of the path, and taken only if every way through it
   * returns a JSON text and does nothing else, so `write(encode(msg))` writes `msg`. Anything else (a
   * helper that also logs, stores or returns an object) stays an opaque call. Null: not a serializer.
   */
  private callSerializer(fnVal: Extract<Val, { k: 'func' }>, args: Val[], thisVal: Val | undefined, call: t.CallExpression | t.NewExpression | null, s: PathState, caller: Frame | null): Outcome[] | null {
    if (!this.writers.callsStringify(fnVal.fn)) return null;
    const before = s.events.length;
    const outcomes = this.followCall(fnVal, args, thisVal, call, this.fork(s), caller);
    const isJsonText = (o: Outcome): boolean => !('thrown' in o) && o.v.k === 'json' && !o.s.events.slice(before).some((e) => e.e === 'effect' || e.e === 'write' || e.e === 'parse' || e.e === 'log' || e.e === 'incomplete');
    return outcomes.length > 0 && outcomes.every(isJsonText) ? outcomes : null;
  }

  private evalNew(expr: t.NewExpression, s: PathState, frame: Frame): Outcome[] {
    const callee = this.evalPure(expr.callee, s, frame);
    const args = expr.arguments.map((a) => (a.type === 'SpreadElement' || a.type === 'ArgumentPlaceholder' ? UNKNOWN : this.evalPure(a, s, frame)));
    if (callee.k === 'class') return this.construct(callee, args, expr, s, frame);
    return [{ s, v: this.evalPure(expr, s, frame) }];
  }

  private construct(cls: Extract<Val, { k: 'class' }>, args: Val[], node: t.NewExpression | t.CallExpression, s: PathState, frame: Frame): Outcome[] {
    const inst = this.makeInstance(cls.node, cls.mod, { node, args }, s);
    const ctor = this.members.findMethod(cls.node, cls.mod, 'constructor');
    if (ctor && this.writers.mayWrite(ctor.fn)) {
      return this.callFunction({ k: 'func', fn: ctor.fn, mod: ctor.mod, thisVal: inst }, args, inst, node, s, frame, false).map((o) => ('thrown' in o ? o : { s: o.s, v: inst }));
    }
    return [{ s, v: inst }];
  }

  private makeInstance(cls: ClassNode, mod: ModuleUnit, site: NewSite | null, s: PathState | null): Val {
    const cell = ++cellCounter;
    if (s) {
      s.heap.set(cell, new Map());
      s.owned.add(cell);
    }
    return { k: 'inst', cls, mod, cell, site };
  }

  private callNative(fnVal: Extract<Val, { k: 'native' }>, args: Val[], expr: t.CallExpression, s: PathState, frame: Frame): Outcome[] {
    const name = fnVal.name;
    const self = fnVal.self;
    const arg = (i: number): Val => args[i] ?? UNDEFINED;
    switch (name) {
      case 'JSON.parse': {
        if (s.parsed) return [{ s, v: UNKNOWN }];
        const ok = this.fork(s);
        ok.parsed = true;
        // the requests the analysis follows are valid JSON-RPC 2.0 (the SDK transport drops the others)
        this.constrain(ok, 'jsonrpc', { eq: '2.0' });
        ok.events.push({ e: 'parse', call: expr, frame, ok: true });
        s.events.push({ e: 'parse', call: expr, frame, ok: false });
        return [
          { s: ok, v: { k: 'msg', origin: { node: expr, frame } } },
          { s, thrown: { k: 'error', cell: this.newCell(s, new Map([['message', lit('Unexpected token')]])) }, node: expr },
        ];
      }
      case 'JSON.stringify':
        return [{ s, v: { k: 'json', value: arg(0), suffix: '', header: false, origin: { node: expr, frame } } }];
      case 'console.out':
      case 'stream.write':
      case 'fs.writeSync':
      case 'fs.write': {
        const fd = name === 'stream.write' ? (self?.k === 'stream' ? self.fd : -1) : name === 'console.out' ? 1 : fdOf(arg(0));
        if (fd === 2) {
          s.events.push({ e: 'log', node: expr, frame });
          return [{ s, v: lit(true) }];
        }
        if (fd !== 1) return this.opaqueCall(expr, args, s, frame);
        const channel: Channel = name === 'console.out' ? 'console' : name === 'stream.write' ? 'stdout.write' : 'writeSync';
        const payload = name === 'fs.writeSync' || name === 'fs.write' ? arg(1) : arg(0);
        let data = classifyWrite(payload, channel === 'console');
        if (channel === 'console' && args.length !== 1) data = { kind: 'text' };
        s.events.push({ e: 'write', call: expr, frame, channel, data });
        return [{ s, v: lit(true) }];
      }
      case 'console.err':
        s.events.push({ e: 'log', node: expr, frame });
        return [{ s, v: UNDEFINED }];
      case 'process.exit':
        s.events.push({ e: 'effect', node: expr, frame, what: 'exit' });
        return [{ s, thrown: lit(EXIT), node: expr }];
      case 'Object.assign': {
        const target = arg(0);
        if (target.k === 'error' || (target.k === 'obj' && this.isPathCell(target, s))) {
          for (const source of args.slice(1)) {
            const fields = this.getFields(source, s, frame);
            if (fields === null) continue;
            for (const [k, v] of fields) this.writeCell(s, target.cell, k, v);
          }
        }
        return [{ s, v: target }];
      }
      case 'Promise.resolve':
        return [{ s, v: { k: 'promise', value: arg(0) } }];
      case 'Promise.reject':
        return [{ s, v: { k: 'promise', value: arg(0), rejected: true } }];
      case 'func.bind':
        if (self?.k === 'func') return [{ s, v: { ...self, thisVal: self.thisVal ?? arg(0), bound: [...(self.bound ?? []), ...args.slice(1)] } }];
        return [{ s, v: UNKNOWN }];
      case 'func.call':
        if (self?.k === 'func') return this.callFunction(self, args.slice(1), arg(0), expr, s, frame, false);
        if (self?.k === 'native') return this.callNative({ ...self, self: arg(0) }, args.slice(1), expr, s, frame);
        return this.opaqueCall(expr, args, s, frame);
      case 'func.apply':
        if (self?.k === 'func') return this.callFunction(self, arg(1).k === 'arr' ? ((arg(1) as { items: Val[] | null }).items ?? []) : [], arg(0), expr, s, frame, false);
        return this.opaqueCall(expr, args, s, frame);
      case 'map.get':
        if (self?.k === 'map') return this.lookupDynamic(self, arg(0), s, frame, expr);
        return [{ s, v: UNKNOWN }];
      case 'map.set':
        if (self?.k === 'map') s.events.push({ e: 'effect', node: expr, frame, what: 'call' });
        return [{ s, v: self ?? UNKNOWN }];
      case 'map.has': {
        const branches = this.hasKey(self ?? UNKNOWN, arg(0), s, frame, expr);
        return branches.map((b) => ({ s: b.s, v: lit(b.truth) }));
      }
      case 'emitter.emit': {
        // emit() calls each listener at once, with the arguments after the event name, and returns whether there was one
        const event = arg(0);
        const listeners = self?.k === 'inst' && event.k === 'lit' && typeof event.value === 'string' ? this.members.findListeners(self, event.value) : null;
        if (listeners === null) return this.opaqueCall(expr, args, s, frame);
        let live: Outcome[] = [{ s, v: lit(listeners.length > 0) }];
        for (const listener of listeners) {
          live = live.flatMap((o) => ('thrown' in o ? [o] : this.callFunction(listener, args.slice(1), listener.thisVal ?? self, expr, o.s, frame, false, { indirect: true }).map((r): Outcome => ('thrown' in r ? r : { s: r.s, v: lit(true) }))));
        }
        return live;
      }
      case 'hasOwnProperty.call':
      case 'Object.hasOwn':
      case 'hasOwnProperty': {
        // a test of the message kept for later (`const isRequest = Object.hasOwn(msg, 'id')`): the path forks
        // here, as where the test is written in an `if`
        const [target, key] = name === 'hasOwnProperty' ? [self ?? UNKNOWN, arg(0)] : [arg(0), arg(1)];
        if (target.k === 'msg') return this.hasKey(target, key, s, frame, expr).map((b) => ({ s: b.s, v: lit(b.truth) }));
        return this.opaqueCall(expr, args, s, frame);
      }
      case 'readline.createInterface': {
        const options = arg(0);
        const input = options.k === 'stream' ? options : this.member(options, 'input', s, frame, expr);
        return [{ s, v: { k: 'readline', input, origin: { node: expr, frame } } }];
      }
      case 'require': {
        const spec = getRequiredSpecifier(expr);
        return [{ s, v: spec === null ? UNKNOWN : this.modules.requireValue(spec, frame.mod) }];
      }
      case 'noop':
        return [{ s, v: UNDEFINED }];
      case 'stream.read':
        return [{ s, v: self?.k === 'stream' && self.fd === 0 ? { k: 'text', origin: { node: expr, frame } } : UNKNOWN }];
      case 'stream.on':
      case 'readline.on':
        return [{ s, v: self ?? UNKNOWN }];
      case 'promise.then':
      case 'promise.catch':
      case 'promise.finally': {
        if (self?.k === 'promise' && args.some((a) => a.k === 'func' && this.writers.mayWrite(a.fn))) {
          const handler = name === 'promise.then' ? (self.rejected ? arg(1) : arg(0)) : name === 'promise.catch' ? (self.rejected ? arg(0) : UNDEFINED) : arg(0);
          // a callback chained onto a promise queue runs once the messages before it are handled (`queued`)
          if (handler.k === 'func') return this.callFunction(handler, [self.value], undefined, expr, s, frame, false, self.queue ? { queued: true } : {}).map((o) => ('thrown' in o ? o : { s: o.s, v: { k: 'promise', value: o.v } }));
        }
        if (self?.k === 'promise' && name === 'promise.catch') return [{ s, v: { k: 'promise', value: self.rejected ? UNKNOWN : self.value } }];
        return [{ s, v: self?.k === 'promise' && name !== 'promise.then' ? self : { k: 'promise', value: UNKNOWN } }];
      }
      case 'string.op':
        return [{ s, v: this.stringOp(self ?? UNKNOWN, expr, args, s) }];
      case 'timer':
        return this.opaqueCall(expr, args, s, frame);
      case 'array.join':
      case 'array.pop':
      case 'array.shift':
      case 'array.map':
      case 'array.includes':
      case 'array.indexOf':
        return [{ s, v: this.arrayOp(name.slice('array.'.length), self as Extract<Val, { k: 'arr' }>, args, s, frame, expr) }];
      case 'pure':
        return [{ s, v: name === 'pure' && args.some((a) => a.k === 'text') ? { k: 'text' } : UNKNOWN }];
      default:
        if (name.startsWith('pure.')) return [{ s, v: this.pureNative(name, args) }];
        return this.opaqueCall(expr, args, s, frame);
    }
  }

  /** Array methods on arrays the interpreter knows (a method name split into parts, a list of lines). */
  private arrayOp(op: string, self: Extract<Val, { k: 'arr' }>, args: Val[], s: PathState, frame: Frame, expr: t.CallExpression): Val {
    if (self.items === null) return op === 'pop' || op === 'shift' || op === 'join' ? { k: 'text' } : UNKNOWN;
    const items = self.items;
    switch (op) {
      case 'join': {
        const separator = args[0] ?? lit(',');
        if (separator.k !== 'lit' || !items.every((i) => i.k === 'lit')) return items.some(isFromMethod) ? FROM_METHOD : UNKNOWN;
        return lit(items.map((i) => String((i as { value: Lit }).value)).join(String(separator.value)));
      }
      case 'map': {
        const fn = args[0];
        if (fn?.k !== 'func' || !this.isReturnOnly(fn.fn)) return UNKNOWN;
        const out: Val[] = [];
        for (let i = 0; i < items.length; i++) {
          const value = this.callFunctionPure(fn, [items[i]!, lit(i)], s, frame, expr);
          if (value === null) return UNKNOWN;
          out.push(value);
        }
        return { k: 'arr', items: out };
      }
      case 'includes':
      case 'indexOf': {
        const target = args[0];
        if (target?.k !== 'lit' || !items.every((i) => i.k === 'lit')) return UNKNOWN;
        const index = items.findIndex((i) => (i as { value: Lit }).value === target.value);
        return op === 'includes' ? lit(index !== -1) : lit(index);
      }
      default:
        return UNKNOWN;
    }
  }

  private pureNative(name: string, args: Val[]): Val {
    const a = args[0] ?? UNDEFINED;
    if (name === 'pure.String') {
      if (a.k === 'lit') return lit(String(a.value));
      // `String(msg.method)` is the method (a string already); anything built from it stays tied to it
      if (a.k === 'text' || a.k === 'json' || (a.k === 'sym' && a.key === 'method')) return a;
      return isFromMethod(a) ? FROM_METHOD : UNKNOWN;
    }
    // the bytes of a JSON text are that JSON text (`write(Buffer.from(JSON.stringify(msg)))`)
    if (name === 'pure.Buffer.from') return a.k === 'json' || a.k === 'text' ? a : UNKNOWN;
    if (name === 'pure.Buffer') return args.some((x) => x.k === 'text') ? { k: 'text' } : UNKNOWN;
    if (name === 'pure.Error') return UNKNOWN;
    if (name === 'pure.identity') return a;
    return UNKNOWN;
  }

  private stringOp(self: Val, expr: t.CallExpression, args: Val[], s: PathState): Val {
    const callee = unwrapExpression(expr.callee);
    const op = callee.type === 'MemberExpression' ? getMemberName(callee) : null;
    if (self.k === 'text' || self.k === 'json') return op === 'split' ? { k: 'arr', items: null } : self.k === 'json' && op !== 'toString' ? UNKNOWN : self;
    let base: string | null = null;
    if (self.k === 'lit' && typeof self.value === 'string') base = self.value;
    if (self.k === 'sym') {
      const c = s.cons.get(self.key);
      if (typeof c?.eq === 'string') base = c.eq;
    }
    if (base === null && (isFromMethod(self) || (self.k === 'sym' && self.key === 'method'))) return FROM_METHOD;
    if (base === null || op === null) return UNKNOWN;
    // Arguments must be known: literals, or regular expression literals written in place.
    const params: unknown[] = [];
    for (let i = 0; i < args.length; i++) {
      const node = expr.arguments[i];
      if (node?.type === 'RegExpLiteral') params.push(new RegExp(node.pattern, node.flags));
      else if (args[i]!.k === 'lit') params.push((args[i] as { value: Lit }).value);
      else return UNKNOWN;
    }
    try {
      const fn = (String.prototype as unknown as Record<string, (...xs: unknown[]) => unknown>)[op];
      if (typeof fn !== 'function') return UNKNOWN;
      const result = fn.apply(base, params);
      if (Array.isArray(result)) return { k: 'arr', items: result.map((x) => lit(x as Lit)) };
      if (result === null || ['string', 'number', 'boolean'].includes(typeof result)) return lit(result as Lit);
    } catch {
      return UNKNOWN;
    }
    return UNKNOWN;
  }

  /** `obj[key]` / `map.get(key)`: a path per table entry when the key is a message member. */
  private lookupDynamic(table: Val, key: Val, s: PathState, frame: Frame, node: t.Node): { s: PathState; v: Val }[] {
    if (key.k === 'lit' && (typeof key.value === 'string' || typeof key.value === 'number')) {
      return [{ s, v: table.k === 'map' ? (table.entries?.get(String(key.value)) ?? (table.entries ? UNDEFINED : UNKNOWN)) : this.member(table, String(key.value), s, frame, node) }];
    }
    if (key.k === 'sym') {
      const c = s.cons.get(key.key);
      if (c?.eq !== undefined) return this.lookupDynamic(table, lit(c.eq), s, frame, node);
      const keys = this.getTableKeys(table, s, frame);
      if (keys === null) {
        s.events.push({ e: 'runtime-table', node, frame });
        return [{ s, v: UNKNOWN }];
      }
      return this.forkOverKeys(key.key, keys, s).map((b) => ({ s: b.s, v: b.key === null ? UNDEFINED : this.lookupDynamic(table, lit(b.key), b.s, frame, node)[0]!.v }));
    }
    if (key.k === 'unknown' && key.fromMethod && (table.k === 'inst' || table.k === 'obj' || table.k === 'map' || table.k === 'unknown')) {
      s.events.push({ e: 'computed-key', node, frame });
      const forks = this.forkOverComputedKey(table, node, s, frame);
      if (forks) return forks;
    }
    return [{ s, v: UNKNOWN }];
  }

  /**
   * A name computed from the method with a fixed part (`this['on' + camel(method)]`, `handlers[`${m}_handler`]`):
   * a path per entry of the table whose name has that fixed part, and one where none is found. The method
   * stays unknown on them (which method reaches which entry is not known), but what each entry does, and
   * what happens when nothing is found, is followed. Without a fixed part every entry could be reached
   * (helpers too): no paths.
   */
  private forkOverComputedKey(table: Val, node: t.Node, s: PathState, frame: Frame): { s: PathState; v: Val }[] | null {
    const keyNode = node.type === 'MemberExpression' || node.type === 'OptionalMemberExpression' ? node.property : node.type === 'CallExpression' ? node.arguments[0] : undefined;
    const fixed = keyNode ? getFixedEnds(keyNode) : null;
    if (!fixed || fixed.prefix.length + fixed.suffix.length === 0) return null;
    const keys = table.k === 'inst' ? getClassMethodNames(table.cls) : table.k === 'unknown' ? null : this.getTableKeys(table, s, frame);
    if (!keys) return null;
    const matching = keys.filter((k) => k.length > fixed.prefix.length + fixed.suffix.length && k.startsWith(fixed.prefix) && k.endsWith(fixed.suffix));
    if (matching.length === 0 || matching.length > MAX_COMPUTED_ENTRIES) return null;
    const out = matching.map((k) => {
      const branch = this.fork(s);
      return { s: branch, v: this.lookupDynamic(table, lit(k), branch, frame, node)[0]!.v };
    });
    out.push({ s: this.fork(s), v: UNDEFINED });
    return out;
  }

  /** The static keys of a lookup table (object literal, Map with known entries, class instance methods), or null. */
  private getTableKeys(table: Val, s: PathState, frame: Frame): string[] | null {
    if (table.k === 'map') return table.entries ? [...table.entries.keys()] : null;
    if (table.k === 'obj') {
      const fields = this.getFields(table, s, frame);
      return fields ? [...fields.keys()] : null;
    }
    return null;
  }

  // ---------------------------------------------------------------- pure evaluation

  /** The value of an expression without following calls into user code (those are opaque effects). */
  evalPure(node: t.Node, s: PathState, frame: Frame): Val {
    const expr = unwrapExpression(node);
    const origin: Origin = { node: expr, frame };
    const pre = s.pre.get(expr);
    if (pre && pre.frame === frame.id) return pre.v;
    switch (expr.type) {
      case 'StringLiteral':
        return lit(expr.value, origin);
      case 'NumericLiteral':
        return lit(expr.value, origin);
      case 'BooleanLiteral':
        return lit(expr.value, origin);
      case 'NullLiteral':
        return lit(null, origin);
      case 'TemplateLiteral': {
        if (expr.expressions.length === 0) return lit(expr.quasis[0]?.value.cooked ?? '', origin);
        const parts = expr.expressions.map((e) => this.evalPure(e, s, frame));
        const at = parts.findIndex((p) => p.k === 'json');
        const json = parts[at];
        if (json && json.k === 'json') {
          // What stands before the JSON decides what the string is: nothing (`${body}\n`) is the message
          // itself; a Content-Length header (`Content-Length: ${n}\r\n\r\n${body}`, `${header}${body}`)
          // frames it; any other text (`[${ts}] got ${JSON.stringify(x)}`) is a line that quotes JSON,
          // not a message, however many substitutions it has.
          const before = [expr.quasis[0]?.value.cooked ?? ''];
          for (let i = 0; i < at; i++) before.push(getTextHead(parts[i]!) ?? '?', expr.quasis[i + 1]?.value.cooked ?? '');
          const text = before.join('');
          if (/content-length/i.test(text)) return { ...json, suffix: expr.quasis[expr.quasis.length - 1]?.value.cooked ?? '', header: true, origin };
          if (text.trim() === '' && at === 0) return { ...json, suffix: getTemplateTail(expr, parts, at), header: false, origin };
        }
        if (parts.every((p) => p.k === 'lit')) {
          let text = expr.quasis[0]?.value.cooked ?? '';
          parts.forEach((p, i) => {
            text += String((p as { value: Lit }).value) + (expr.quasis[i + 1]?.value.cooked ?? '');
          });
          return lit(text, origin);
        }
        if (parts.some((p) => p.k === 'text')) return { k: 'text', origin };
        if (parts.some(isFromMethod)) return { k: 'unknown', origin, fromMethod: true };
        const head = expr.quasis[0]?.value.cooked;
        return head ? { k: 'unknown', origin, head } : { k: 'unknown', origin };
      }
      case 'Identifier':
        return this.withOrigin(this.readIdentifier(expr, s, frame), origin);
      case 'ThisExpression':
        return frame.thisVal ?? this.getStaticThis(frame.mod, expr) ?? UNKNOWN;
      case 'MemberExpression':
      case 'OptionalMemberExpression': {
        const object = this.evalPure(expr.object, s, frame);
        const key = expr.computed ? this.evalPure(expr.property, s, frame) : lit(getMemberName(expr) ?? undefined);
        if (key.k === 'lit' && key.value !== undefined) return this.withOrigin(this.member(object, String(key.value), s, frame, expr), origin);
        if (key.k === 'sym') {
          const c = s.cons.get(key.key);
          if (c?.eq !== undefined) return this.withOrigin(this.member(object, String(c.eq), s, frame, expr), origin);
        }
        if (object.k === 'text') return { k: 'text', origin };
        if (key.k === 'unknown' && key.fromMethod && (object.k === 'inst' || object.k === 'obj' || object.k === 'map')) s.events.push({ e: 'computed-key', node: expr, frame });
        return { k: 'unknown', origin };
      }
      case 'ObjectExpression':
        return this.buildObject(expr, s, frame, origin);
      case 'ArrayExpression':
        return { k: 'arr', items: expr.elements.map((el) => (el === null || el.type === 'SpreadElement' ? UNKNOWN : this.evalPure(el, s, frame))), origin };
      case 'FunctionExpression':
      case 'ArrowFunctionExpression':
        return { k: 'func', fn: expr, mod: frame.mod, thisVal: expr.type === 'ArrowFunctionExpression' ? (frame.thisVal ?? this.getStaticThis(frame.mod, expr)) : undefined, origin };
      case 'ClassExpression':
        return { k: 'class', node: expr, mod: frame.mod, origin };
      case 'NewExpression': {
        const callee = this.evalPure(expr.callee, s, frame);
        const args = expr.arguments.map((a) => (a.type === 'SpreadElement' || a.type === 'ArgumentPlaceholder' ? UNKNOWN : this.evalPure(a, s, frame)));
        if (callee.k === 'class') return { ...this.makeInstance(callee.node, callee.mod, { node: expr, args }, s), origin } as Val;
        if (callee.k === 'global') {
          if (callee.name === 'Map') return { k: 'map', entries: this.mapEntriesFromArgs(args), origin };
          if (callee.name.endsWith('Error')) return { k: 'error', cell: this.newCell(s, new Map([['message', args[0] ?? lit('')]])), origin };
          if (callee.name === 'Promise') return { k: 'promise', value: UNKNOWN, origin };
          if (callee.name === 'Set') return { k: 'map', entries: null, origin };
          if (callee.name === 'TextEncoder') return { k: 'global', name: 'TextEncoder.instance', origin };
        }
        return { k: 'unknown', origin };
      }
      case 'CallExpression':
      case 'OptionalCallExpression': {
        // Only built-ins are evaluated here; user functions are opaque (evalFork follows them).
        const outcomes = this.evalCallPure(expr, s, frame);
        return outcomes;
      }
      case 'BinaryExpression': {
        if (expr.left.type === 'PrivateName') return UNKNOWN;
        const left = this.evalPure(expr.left, s, frame);
        const right = this.evalPure(expr.right, s, frame);
        if (expr.operator === '+') return this.withOrigin(this.concat(left, right), origin);
        // a test of the message kept for later: evaluated again (with the path's constraints) where it is used
        if (['===', '!==', '==', '!=', 'in'].includes(expr.operator) && [left, right].some((v) => v.k === 'sym' || v.k === 'msg' || v.k === 'pred') && !(left.k === 'lit' && right.k === 'lit')) {
          return { k: 'pred', node: expr, frame, origin };
        }
        if (left.k === 'lit' && right.k === 'lit') {
          try {
            return lit(evalBinary(expr.operator, left.value, right.value), origin);
          } catch {
            return { k: 'unknown', origin };
          }
        }
        return { k: 'unknown', origin };
      }
      case 'LogicalExpression': {
        const left = this.evalPure(expr.left, s, frame);
        const truthy = isTruthy(left, s);
        if (expr.operator === '??') {
          if (left.k === 'lit') return left.value === undefined || left.value === null ? this.evalPure(expr.right, s, frame) : left;
          if (left.k === 'sym' || left.k === 'unknown') return left.k === 'sym' ? left : this.evalPure(expr.right, s, frame).k === 'text' ? { k: 'text', origin } : { k: 'unknown', origin };
          return left;
        }
        if (truthy === true) return expr.operator === '||' ? left : this.evalPure(expr.right, s, frame);
        if (truthy === false) return expr.operator === '||' ? this.evalPure(expr.right, s, frame) : left;
        if (left.k === 'sym' && expr.operator === '||') return left;
        if (left.k === 'text') return left;
        const right = this.evalPure(expr.right, s, frame);
        if (right.k === 'stream' || right.k === 'text') return right;
        // tests of the message joined (`msg.id !== undefined && msg.id !== null`), kept for later: tested again where used
        if (left.k === 'pred' || right.k === 'pred') return { k: 'pred', node: expr, frame, origin };
        return { k: 'unknown', origin };
      }
      case 'ConditionalExpression': {
        const test = this.evalPure(expr.test, s, frame);
        const truthy = isTruthy(test, s);
        if (truthy === true) return this.evalPure(expr.consequent, s, frame);
        if (truthy === false) return this.evalPure(expr.alternate, s, frame);
        const a = this.evalPure(expr.consequent, s, frame);
        const b = this.evalPure(expr.alternate, s, frame);
        if (a.k === 'func' && b.k === 'lit' && b.value === undefined) return { k: 'unknown', origin };
        return { k: 'unknown', origin };
      }
      case 'UnaryExpression': {
        const arg = this.evalPure(expr.argument, s, frame);
        if (expr.operator === '!') {
          if (arg.k === 'pred') return { k: 'pred', node: expr, frame, origin };
          const truthy = isTruthy(arg, s);
          return truthy === null ? { k: 'unknown', origin } : lit(!truthy, origin);
        }
        if (expr.operator === '-' && arg.k === 'lit' && typeof arg.value === 'number') return lit(-arg.value, origin);
        if (expr.operator === '+' && arg.k === 'lit' && typeof arg.value === 'number') return lit(arg.value, origin);
        if (expr.operator === 'typeof') {
          const type = typeOf(arg);
          return type === null ? { k: 'unknown', origin } : lit(type, origin);
        }
        if (expr.operator === 'void') return lit(undefined, origin);
        return { k: 'unknown', origin };
      }
      case 'AwaitExpression': {
        const v = this.evalPure(expr.argument, s, frame);
        return v.k === 'promise' ? v.value : v;
      }
      case 'AssignmentExpression':
        return this.evalPure(expr.right, s, frame);
      case 'SequenceExpression':
        return this.evalPure(expr.expressions[expr.expressions.length - 1]!, s, frame);
      case 'RegExpLiteral':
        return { k: 'unknown', origin };
      default:
        return { k: 'unknown', origin };
    }
  }

  private withOrigin(value: Val, origin: Origin): Val {
    if (value.origin) return value;
    return { ...value, origin } as Val;
  }

  private evalCallPure(expr: t.CallExpression | t.OptionalCallExpression, s: PathState, frame: Frame): Val {
    const wrapped = getInteropArgument(expr);
    if (wrapped) return this.evalPure(wrapped, s, frame);
    const callee = unwrapExpression(expr.callee);
    if (callee.type === 'Import') return this.dynamicImport(expr, frame);
    let fnVal: Val;
    if (callee.type === 'MemberExpression' || callee.type === 'OptionalMemberExpression') {
      const object = this.evalPure(callee.object, s, frame);
      const key = callee.computed ? this.evalPure(callee.property, s, frame) : lit(getMemberName(callee) ?? undefined);
      fnVal = key.k === 'lit' ? this.member(object, String(key.value), s, frame, callee) : UNKNOWN;
    } else {
      fnVal = this.evalPure(callee, s, frame);
    }
    const origin: Origin = { node: expr, frame };
    if (fnVal.k === 'native') {
      const pureNames = new Set(['JSON.stringify', 'Promise.resolve', 'Promise.reject', 'func.bind', 'readline.createInterface', 'require', 'string.op', 'Object.assign', 'pure.String', 'pure.Buffer', 'pure.Buffer.from', 'map.get', 'array.join', 'array.map', 'array.includes', 'array.indexOf', 'array.pop', 'array.shift']);
      if (pureNames.has(fnVal.name) || fnVal.name.startsWith('pure')) {
        const args = expr.arguments.map((a) => (a.type === 'SpreadElement' || a.type === 'ArgumentPlaceholder' ? UNKNOWN : this.evalPure(a, s, frame)));
        const outcomes = this.callNative(fnVal, args, expr as t.CallExpression, s, frame);
        const first = outcomes[0];
        if (outcomes.length === 1 && first && !('thrown' in first)) return this.withOrigin(first.v, origin);
        return { k: 'unknown', origin };
      }
      // a write or other effect inside an expression
      if (fnVal.name === 'console.out' || fnVal.name === 'stream.write' || fnVal.name === 'fs.writeSync' || fnVal.name === 'console.err') {
        const args = expr.arguments.map((a) => (a.type === 'SpreadElement' || a.type === 'ArgumentPlaceholder' ? UNKNOWN : this.evalPure(a, s, frame)));
        this.callNative(fnVal, args, expr as t.CallExpression, s, frame);
        return { k: 'unknown', origin };
      }
    }
    if (fnVal.k === 'func' && this.isReturnOnly(fnVal.fn)) {
      // a helper that only builds a value: `textResult(text)` -> its object, built from the arguments
      const args = expr.arguments.map((a) => (a.type === 'SpreadElement' || a.type === 'ArgumentPlaceholder' ? UNKNOWN : this.evalPure(a, s, frame)));
      const inner = this.callFunctionPure(fnVal, args, s, frame, expr as t.CallExpression);
      if (inner) return inner;
    }
    const made = fnVal.k === 'func' ? this.getFactoryResult(fnVal.fn, fnVal.mod) : null;
    if (made && fnVal.k === 'func') {
      // `const app = createRouter()` with `return { handle: processMessage }`: the object it returns, whose
      // functions are the closures it declares
      const inner: Frame = { id: nextFrameId(), fn: fnVal.fn, mod: fnVal.mod, thisVal: undefined, call: expr as t.CallExpression, caller: frame, args: [] };
      return this.withOrigin(this.evalPure(made, s, inner), origin);
    }
    if (fnVal.k === 'class') {
      return { k: 'unknown', origin };
    }
    // `String(x)`, `Number(x)`, `Boolean(x)`: conversions, no effect
    if (fnVal.k === 'global' && (fnVal.name === 'String' || fnVal.name === 'Number' || fnVal.name === 'Boolean')) {
      const args = expr.arguments.map((a) => (a.type === 'SpreadElement' || a.type === 'ArgumentPlaceholder' ? UNKNOWN : this.evalPure(a, s, frame)));
      return this.withOrigin(this.pureNative(`pure.${fnVal.name}`, args), origin);
    }
    if (isFromMethod(fnVal)) return { k: 'unknown', origin, fromMethod: true };
    s.events.push({ e: 'effect', node: expr, frame, what: 'call' });
    return { k: 'unknown', origin };
  }

  /**
   * The object literal a factory returns: a function of no parameters whose body only declares (functions,
   * classes, types, variables initialised without a call) and ends in `return { ... }`. Null otherwise.
   */
  private getFactoryResult(fn: FunctionNode, mod: ModuleUnit): t.ObjectExpression | null {
    if ((fn as { async?: boolean }).async || (fn as { generator?: boolean }).generator || fn.params.length > 0 || fn.body.type !== 'BlockStatement') return null;
    const body = fn.body.body;
    const last = body[body.length - 1];
    if (last?.type !== 'ReturnStatement' || !last.argument || unwrapExpression(last.argument).type !== 'ObjectExpression') return null;
    const declares = body.slice(0, -1).every((st) => {
      if (st.type === 'FunctionDeclaration' || st.type === 'ClassDeclaration' || st.type === 'TSInterfaceDeclaration' || st.type === 'TSTypeAliasDeclaration' || st.type === 'EmptyStatement') return true;
      if (st.type === 'ExpressionStatement') return this.isCollectionFill(st.expression, fn, mod);
      if (st.type !== 'VariableDeclaration') return false;
      return st.declarations.every((d) => !d.init || !runsCode(d.init, (id) => resolveIdentifier(mod.index, id) === null));
    });
    return declares ? (unwrapExpression(last.argument) as t.ObjectExpression) : null;
  }

  /**
   * `handlers.set('tools/list', onList)` in a factory's body: a Map (or Set) the factory declares from a
   * built-in constructor, filled with a key and a value that run no code.
   */
  private isCollectionFill(expr: t.Expression, fn: FunctionNode, mod: ModuleUnit): boolean {
    const call = unwrapExpression(expr);
    if (call.type !== 'CallExpression' || call.callee.type !== 'MemberExpression' || call.callee.object.type !== 'Identifier') return false;
    const name = getMemberName(call.callee);
    if (name !== 'set' && name !== 'add') return false;
    const binding = resolveIdentifier(mod.index, call.callee.object);
    if (!binding || binding.kind !== 'const' || findEnclosingFunction(mod, binding.declarator) !== fn) return false;
    const init = binding.declarator.init ? unwrapExpression(binding.declarator.init) : null;
    const isGlobal = (id: t.Identifier): boolean => resolveIdentifier(mod.index, id) === null;
    if (init?.type !== 'NewExpression' || init.callee.type !== 'Identifier' || !['Map', 'Set'].includes(init.callee.name) || !isGlobal(init.callee)) return false;
    return call.arguments.every((arg) => arg.type !== 'SpreadElement' && arg.type !== 'ArgumentPlaceholder' && !runsCode(arg, isGlobal));
  }

  /** Functions whose body is one `return <expression>` (or an arrow with an expression body) and no calls into user code. */
  private isReturnOnly(fn: FunctionNode): boolean {
    if ((fn as { async?: boolean }).async || (fn as { generator?: boolean }).generator) return false;
    if (this.writers.mayWrite(fn)) return false;
    if (fn.body.type !== 'BlockStatement') return true;
    return fn.body.body.length === 1 && fn.body.body[0]!.type === 'ReturnStatement';
  }

  private callFunctionPure(fnVal: Extract<Val, { k: 'func' }>, args: Val[], s: PathState, caller: Frame, call: t.CallExpression): Val | null {
    const fn = fnVal.fn;
    if (s.active.has(fn) || s.active.size >= MAX_DEPTH) return null;
    const body = fn.body.type === 'BlockStatement' ? (fn.body.body[0] as t.ReturnStatement | undefined)?.argument : fn.body;
    if (!body) return UNDEFINED;
    const frame: Frame = { id: nextFrameId(), fn, mod: fnVal.mod, thisVal: fnVal.thisVal, call, caller, args };
    s.active.add(fn);
    fn.params.forEach((param, i) => {
      if (param.type !== 'RestElement') this.bindPattern(param, args[i] ?? UNDEFINED, s, frame);
    });
    const before = s.events.length;
    const value = this.evalPure(body, s, frame);
    s.active.delete(fn);
    // the helper did something besides building a value: treat the call as opaque after all
    if (s.events.slice(before).some((e) => e.e === 'effect' || e.e === 'write')) {
      s.events.length = before;
      return null;
    }
    return value;
  }

  readIdentifier(id: t.Identifier, s: PathState, frame: Frame): Val {
    const binding = resolveIdentifier(frame.mod.index, id);
    if (!binding) {
      if (id.name === 'undefined') return UNDEFINED;
      if (id.name === 'require') return { k: 'native', name: 'require' };
      if (GLOBAL_NAMES.has(id.name)) return { k: 'global', name: id.name };
      return UNKNOWN;
    }
    const known = s.env.get(binding);
    if (known) return known;
    return this.staticBinding(binding, frame.mod);
  }

  /** The value a binding holds wherever it is read: declarations, imports, parameters with one caller. */
  staticBinding(binding: Binding, mod: ModuleUnit): Val {
    const cached = this.staticValues.get(binding);
    if (cached) return cached;
    if (this.staticInProgress.has(binding)) return UNKNOWN;
    this.staticInProgress.add(binding);
    let value: Val = UNKNOWN;
    try {
      value = this.computeStaticBinding(binding, mod);
    } finally {
      this.staticInProgress.delete(binding);
    }
    this.staticValues.set(binding, value);
    return value;
  }

  private computeStaticBinding(binding: Binding, mod: ModuleUnit): Val {
    const top = this.topFrame(mod);
    const s = this.newState();
    switch (binding.kind) {
      case 'function':
        return { k: 'func', fn: binding.fn, mod };
      case 'function-name':
        return { k: 'func', fn: binding.fn, mod };
      case 'class':
        return { k: 'class', node: binding.node, mod };
      case 'enum':
        return binding.node.type === 'TSEnumDeclaration' ? { k: 'enum', node: binding.node } : UNKNOWN;
      case 'import':
        return this.modules.importValue(binding.source, binding.imported, mod);
      case 'const':
      case 'let':
      case 'var': {
        const declarator = binding.declarator;
        const writes = getBindingWrites(mod.index, binding);
        const parent = mod.index.parent.get(declarator);
        const loop = parent ? mod.index.parent.get(parent) : undefined;
        if (loop && (loop.type === 'ForOfStatement' || loop.type === 'ForInStatement')) return UNKNOWN;
        if (!declarator.init) {
          // `let transport; ... transport = new Transport()`: one assignment is the value
          if (writes.length === 1 && writes[0]!.type === 'AssignmentExpression' && (writes[0] as t.AssignmentExpression).operator === '=') {
            return this.projectPattern(binding.pattern, this.evalPure((writes[0] as t.AssignmentExpression).right, s, this.frameAt(mod, writes[0]!, top)), s, top);
          }
          return writes.length === 0 ? UNDEFINED : UNKNOWN;
        }
        if (writes.length > 0 && binding.kind !== 'const') {
          const init = this.evalPure(declarator.init, s, this.frameAt(mod, declarator, top));
          // a promise queue (`let queue = Promise.resolve()` ... `queue = queue.then(() => handle(line))`): every
          // write chains onto the binding itself, so it always holds a promise and a `.then` on it runs its callback
          if (init.k === 'promise' && !init.rejected && writes.every((w) => isChainOnto(mod, w, binding))) return { k: 'promise', value: UNKNOWN, queue: true };
          // state that code reassigns (a log level, a buffer) is not a constant; the containers it holds still are
          if (init.k === 'text' || init.k === 'lit') return init.k === 'text' ? init : UNKNOWN;
          return UNKNOWN;
        }
        let value = this.evalPure(declarator.init, s, this.frameAt(mod, declarator, top));
        if (value.k === 'map' && value.entries !== null) value = { ...value, entries: this.withMapSets(value.entries, binding, mod, s, top) };
        if (value.k === 'obj' && value.node) this.collectStaticMemberWrites(value, binding, mod);
        return this.projectPattern(binding.pattern, value, s, top);
      }
      case 'param':
        return this.staticParam(binding, mod);
      case 'catch':
        return UNKNOWN;
      default:
        return UNKNOWN;
    }
  }

  /** A frame for static evaluation at a node: its enclosing function with the static `this`. */
  frameAt(mod: ModuleUnit, node: t.Node, top: Frame): Frame {
    const fn = findEnclosingFunction(mod, node);
    if (!fn) return top;
    return { id: nextFrameId(), fn, mod, thisVal: this.getStaticThis(mod, node), call: null, caller: null };
  }

  private projectPattern(pattern: (string | number | null)[], value: Val, s: PathState, frame: Frame): Val {
    let current = value;
    for (const step of pattern) {
      if (step === null) return UNKNOWN;
      current = this.member(current, String(step), s, frame, null);
    }
    return current;
  }

  /**
   * `handlers.set('tools/list', fn)` statements at the top level of the module that declares the Map,
   * or in a loop there over a constant list or object (`for (const [m, fn] of Object.entries(ROUTES)) handlers.set(m, fn)`).
   */
  private withMapSets(entries: Map<string, Val>, binding: Binding, mod: ModuleUnit, s: PathState, top: Frame): Map<string, Val> | null {
    const out = new Map(entries);
    // a Map a factory declares is filled by statements of the factory's own body (getFactoryResult)
    const owner = 'declarator' in binding ? findEnclosingFunction(mod, binding.declarator) : null;
    for (const call of getCallsOfMember(mod.index, 'set')) {
      const callee = unwrapExpression(call.callee) as t.MemberExpression;
      if (callee.object.type !== 'Identifier') continue;
      if (resolveIdentifier(mod.index, callee.object) !== binding) continue;
      const runs = owner === null ? this.getTopLevelRuns(call, mod, s, top) : isStatementOfBody(mod, call, owner) ? [s] : null;
      if (runs === null) return null;
      for (const run of runs) {
        const key = this.evalPure(call.arguments[0]!, run, top);
        if (key.k !== 'lit' || typeof key.value !== 'string') return null;
        out.set(key.value, call.arguments[1] ? this.evalPure(call.arguments[1], run, top) : UNDEFINED);
      }
    }
    return out;
  }

  /**
   * The states code at the top of the module runs in: the one given, for code outside loops; one per
   * iteration, its loop variable bound, for a statement of the body of a `for...of` over a constant list
   * (or `Object.entries/keys/values` of a constant object) or a `for...in` over a constant object, a body of
   * plain expression statements. Null: it runs in a function, or in a loop that cannot be unrolled so.
   */
  private getTopLevelRuns(node: t.Node, mod: ModuleUnit, s: PathState, top: Frame): PathState[] | null {
    if (findEnclosingFunction(mod, node) !== null) return null;
    let loop: t.ForOfStatement | t.ForInStatement | null = null;
    let child: t.Node = node;
    for (let parent = mod.index.parent.get(node); parent && parent.type !== 'Program'; child = parent, parent = mod.index.parent.get(parent)) {
      if (!t.isLoop(parent)) continue;
      if (loop !== null || (parent.type !== 'ForOfStatement' && parent.type !== 'ForInStatement') || parent.body !== child) return null;
      loop = parent;
    }
    if (loop === null) return [s];
    // the loop body: the statement itself, or a block of expression statements (no condition, no early exit)
    const body = loop.body.type === 'BlockStatement' ? loop.body.body : [loop.body];
    if (!body.every((st) => st.type === 'ExpressionStatement') || !body.some((st) => isInside(mod.index, node, st) || st === node)) return null;
    if (mod.index.parent.get(loop)?.type !== 'Program' || (loop.type === 'ForOfStatement' && loop.await)) return null;
    const items = this.getConstantIterations(loop, mod, top);
    if (items === null) return null;
    const target = loop.left.type === 'VariableDeclaration' ? loop.left.declarations[0]!.id : loop.left;
    return items.map((item) => {
      const run = this.fork(s);
      this.bindPattern(target, item, run, top);
      return run;
    });
  }

  /** What each iteration of a loop at the top level binds: the items of a constant list, or the keys / entries / values of a constant object. */
  private getConstantIterations(loop: t.ForOfStatement | t.ForInStatement, mod: ModuleUnit, top: Frame): Val[] | null {
    const fieldsOf = (node: t.Node): Map<string, Val> | null => {
      const fields = this.getFields(this.evalStatic(node, mod), this.newState(), top);
      return fields === null || fields.has('\0spread') ? null : fields;
    };
    if (loop.type === 'ForInStatement') {
      const fields = fieldsOf(loop.right);
      return fields && [...fields.keys()].map((k) => lit(k));
    }
    const right = unwrapExpression(loop.right);
    if (right.type === 'CallExpression' && right.arguments.length === 1 && right.arguments[0]!.type !== 'SpreadElement' && right.callee.type === 'MemberExpression') {
      const owner = this.evalStatic(right.callee.object, mod);
      const name = getMemberName(right.callee);
      if (owner.k === 'global' && owner.name === 'Object' && (name === 'entries' || name === 'keys' || name === 'values')) {
        const fields = fieldsOf(right.arguments[0]!);
        if (fields === null) return null;
        return [...fields].map(([k, v]): Val => (name === 'keys' ? lit(k) : name === 'values' ? v : { k: 'arr', items: [lit(k), v] }));
      }
    }
    const list = this.evalStatic(loop.right, mod);
    return list.k === 'arr' && list.items !== null ? list.items : null;
  }

  private readonly staticMemberWrites = new Map<t.ObjectExpression, Map<string, Val> | null>();

  /** `handlers['tools/list'] = fn` at the top level, for an object literal held by a const. */
  private collectStaticMemberWrites(value: Extract<Val, { k: 'obj' }>, binding: Binding, mod: ModuleUnit): void {
    if (!value.node || this.staticMemberWrites.has(value.node)) return;
    const extra = new Map<string, Val>();
    let open = false;
    const top = this.topFrame(mod);
    for (const assignment of getMemberAssignmentsOf(mod.index, binding.name)) {
      const left = assignment.left as t.MemberExpression;
      if (resolveIdentifier(mod.index, left.object as t.Identifier) !== binding) continue;
      // at the top, or once per iteration of a loop there over a constant list (`for (const k in X) table[k] = X[k]`)
      const runs = this.getTopLevelRuns(assignment, mod, this.newState(), top);
      if (runs === null) {
        open = true;
        continue;
      }
      for (const run of runs) {
        const key = left.computed ? this.evalPure(left.property, run, top) : lit(getMemberName(left) ?? undefined);
        if (key.k !== 'lit') {
          open = true;
          continue;
        }
        extra.set(String(key.value), this.evalPure(assignment.right, run, top));
      }
    }
    this.staticMemberWrites.set(value.node, open ? null : extra);
  }

  private mapEntriesFromArgs(args: Val[]): Map<string, Val> | null {
    const init = args[0];
    if (!init) return new Map();
    if (init.k !== 'arr' || init.items === null) return null;
    const out = new Map<string, Val>();
    for (const item of init.items) {
      if (item.k !== 'arr' || item.items === null || item.items[0]?.k !== 'lit') return null;
      out.set(String(item.items[0].value), item.items[1] ?? UNDEFINED);
    }
    return out;
  }

  /** A parameter read outside a call: its one caller's argument, else its default. */
  private staticParam(binding: Extract<Binding, { kind: 'param' }>, mod: ModuleUnit): Val {
    const fn = binding.fn;
    const param = fn.params[binding.index];
    const site = this.sites.findUniqueCallSite(fn, mod);
    let value: Val = UNKNOWN;
    if (site) value = site.args[binding.index] ?? UNDEFINED;
    if (binding.rest) return UNKNOWN;
    if (param?.type === 'AssignmentPattern' && (value.k === 'unknown' || (value.k === 'lit' && value.value === undefined))) {
      if (!site && value.k === 'unknown') return UNKNOWN;
      value = this.evalPure(param.right, this.newState(), this.topFrame(mod));
    }
    if (param?.type === 'TSParameterProperty' && param.parameter.type === 'AssignmentPattern' && value.k === 'lit' && value.value === undefined) {
      value = this.evalPure(param.parameter.right, this.newState(), this.topFrame(mod));
    }
    // with the one call known, the parameter is bound as the call binds it, defaults inside a
    // destructuring pattern included (`function start({ input = process.stdin } = {})` called as `start()`)
    if (site && param && param.type !== 'TSParameterProperty' && binding.pattern.length > 0) {
      const s = this.newState();
      this.bindPattern(param.type === 'AssignmentPattern' ? param.left : param, value, s, this.topFrame(mod), true);
      const bound = s.env.get(binding);
      if (bound) return bound;
    }
    return this.projectPattern(binding.pattern, value, this.newState(), this.topFrame(mod));
  }

  /** The instance of a class that `this` is where no call says which: made where the program makes one (one per class). */
  private getStaticInstance(cls: ClassNode, mod: ModuleUnit): Val {
    // a base class only its one subclass is instantiated from: `this` is that subclass's instance
    const actual = this.members.findOnlyInstantiatedSubclass(cls, mod) ?? { cls, mod };
    let inst = this.classInstances.get(actual.cls);
    if (!inst) {
      inst = this.makeInstance(actual.cls, actual.mod, this.sites.findNewSite(actual.cls, actual.mod), null);
      this.classInstances.set(actual.cls, inst);
    }
    return inst;
  }

  /** `this` where no call says what it is: the instance of the enclosing class, or the enclosing object literal. */
  getStaticThis(mod: ModuleUnit, node: t.Node): Val | undefined {
    const scope = isFunctionNode(node) && node.type !== 'ArrowFunctionExpression' ? node : getThisScope(mod.index, node);
    if (!scope) return undefined;
    const cls = getEnclosingClass(mod.index, scope);
    if (cls && (scope.type === 'ClassMethod' || scope.type === 'ClassPrivateMethod' || scope.type === 'ClassProperty' || scope.type === 'ClassPrivateProperty')) {
      if ((scope as { static?: boolean }).static) return { k: 'class', node: cls, mod };
      return this.getStaticInstance(cls, mod);
    }
    const parent = mod.index.parent.get(scope);
    // `Logger.prototype.info = function () { this.write(...) }`: an instance of the class
    if (scope.type === 'FunctionExpression' && parent?.type === 'AssignmentExpression' && parent.right === scope && parent.left.type === 'MemberExpression') {
      const holder = unwrapExpression(parent.left.object);
      const owner = holder.type === 'MemberExpression' && getMemberName(holder) === 'prototype' ? this.evalStatic(holder.object, mod) : null;
      if (owner?.k === 'class') return this.getStaticInstance(owner.node, owner.mod);
    }
    if (scope.type === 'ObjectMethod' && parent?.type === 'ObjectExpression') return this.buildObject(parent, this.newState(), this.topFrame(mod), { node: parent, frame: null }, true);
    if (parent?.type === 'ObjectProperty') {
      const holder = mod.index.parent.get(parent);
      if (holder?.type === 'ObjectExpression') return this.buildObject(holder, this.newState(), this.topFrame(mod), { node: holder, frame: null }, true);
    }
    return undefined;
  }

  private buildObject(node: t.ObjectExpression, s: PathState, frame: Frame, origin: Origin, staticOnly = false): Val {
    // Objects built on a path get their fields now (they capture the path's values); static ones are read lazily.
    if (staticOnly || frame.fn === null) return { k: 'obj', cell: 0, node, mod: frame.mod, origin };
    const fields = new Map<string, Val>();
    for (const prop of node.properties) {
      if (prop.type === 'SpreadElement') {
        const inner = this.evalPure(prop.argument, s, frame);
        const innerFields = this.getFields(inner, s, frame);
        if (innerFields === null) fields.set('\0spread', UNKNOWN);
        else for (const [k, v] of innerFields) fields.set(k, v);
        continue;
      }
      const key = this.getPropertyKey(prop, s, frame);
      if (key === null) {
        fields.set('\0spread', UNKNOWN);
        continue;
      }
      if (prop.type === 'ObjectMethod') fields.set(key, { k: 'func', fn: prop, mod: frame.mod });
      else fields.set(key, this.evalPure(prop.value, s, frame));
    }
    const cell = this.newCell(s, fields);
    if (fields.has('result') || fields.has('error') || fields.has('jsonrpc')) s.events.push({ e: 'construct', node, frame });
    return { k: 'obj', cell, node, mod: frame.mod, origin };
  }

  /** A property's key: as written, or a computed one that evaluates to a constant (`[INIT]`, `[Method.List]`). */
  private getPropertyKey(prop: t.ObjectProperty | t.ObjectMethod, s: PathState, frame: Frame): string | null {
    const key = getStaticKey(prop);
    if (key !== null || !prop.computed) return key;
    const value = this.evalPure(prop.key, s, frame);
    return value.k === 'lit' && (typeof value.value === 'string' || typeof value.value === 'number') ? String(value.value) : null;
  }

  /** The fields of an object value, or null when they cannot be listed. */
  getFields(value: Val, s: PathState, frame: Frame): Map<string, Val> | null {
    if (value.k === 'obj') {
      const cell = this.readCell(s, value.cell);
      if (cell) return cell.has('\0spread') ? null : cell;
      if (!value.node || !value.mod) return null;
      const out = new Map<string, Val>();
      const top = this.topFrame(value.mod);
      for (const prop of value.node.properties) {
        if (prop.type === 'SpreadElement') {
          const inner = this.getFields(this.evalPure(prop.argument, s, top), s, frame);
          if (inner === null) return null;
          for (const [k, v] of inner) out.set(k, v);
          continue;
        }
        const key = this.getPropertyKey(prop, s, this.frameAt(value.mod, prop, top));
        if (key === null) return null;
        out.set(key, prop.type === 'ObjectMethod' ? { k: 'func', fn: prop, mod: value.mod, thisVal: value } : this.evalPure(prop.value, s, this.frameAt(value.mod, prop, top)));
      }
      const extra = this.staticMemberWrites.get(value.node);
      if (extra === null) return null;
      if (extra) for (const [k, v] of extra) out.set(k, v);
      return out;
    }
    if (value.k === 'error' || value.k === 'inst') return this.readCell(s, value.cell) ?? null;
    return null;
  }

  // ---------------------------------------------------------------- members

  /** `object.name` for every kind of value the interpreter knows. */
  member(object: Val, name: string, s: PathState, frame: Frame, node: t.Node | null): Val {
    switch (object.k) {
      case 'enum': {
        const value = getEnumMemberValue(object.node, name);
        return value === undefined ? UNKNOWN : lit(value);
      }
      case 'global':
        return this.globalMember(object.name, name);
      case 'builtin':
        return this.builtinMember(object.name, name);
      case 'stream':
        if (name === 'write' || name === 'end') return { k: 'native', name: 'stream.write', self: object };
        if (name === 'fd') return lit(object.fd);
        if (LISTEN_METHODS.has(name)) return { k: 'native', name: 'stream.on', self: object };
        if (['setEncoding', 'resume', 'pause', 'setDefaultEncoding', 'cork', 'uncork', 'removeListener', 'off'].includes(name)) return { k: 'native', name: 'noop', self: object };
        if (name === 'read') return { k: 'native', name: 'stream.read', self: object };
        return UNKNOWN;
      case 'readline':
        if (LISTEN_METHODS.has(name)) return { k: 'native', name: 'readline.on', self: object };
        if (['close', 'pause', 'resume', 'setPrompt', 'removeListener', 'off'].includes(name)) return { k: 'native', name: 'noop', self: object };
        return UNKNOWN;
      case 'func':
        if (name === 'bind') return { k: 'native', name: 'func.bind', self: object };
        if (name === 'call') return { k: 'native', name: 'func.call', self: object };
        if (name === 'apply') return { k: 'native', name: 'func.apply', self: object };
        return UNKNOWN;
      case 'native':
        if (name === 'call') return { k: 'native', name: object.name === 'hasOwnProperty' ? 'hasOwnProperty.call' : 'func.call', self: object };
        if (name === 'bind') return object;
        return UNKNOWN;
      case 'class': {
        const method = this.members.findMember(object.node, object.mod, name, true);
        return method ?? UNKNOWN;
      }
      case 'inst':
        return this.members.instanceMember(object, name, s, frame);
      case 'obj': {
        const cell = this.readCell(s, object.cell);
        if (cell) {
          if (cell.has(name)) return cell.get(name)!;
          if (cell.has('\0spread')) return UNKNOWN;
          if (name === 'hasOwnProperty') return { k: 'native', name: 'hasOwnProperty', self: object };
          return object.node ? this.staticObjectMember(object, name, s, frame) : UNDEFINED;
        }
        if (name === 'hasOwnProperty') return { k: 'native', name: 'hasOwnProperty', self: object };
        return this.staticObjectMember(object, name, s, frame);
      }
      case 'error': {
        const cell = this.readCell(s, object.cell);
        if (cell?.has(name)) return cell.get(name)!;
        return name === 'message' ? UNKNOWN : UNDEFINED;
      }
      case 'arr':
        if (/^\d+$/.test(name)) return object.items ? (object.items[Number(name)] ?? UNDEFINED) : UNKNOWN;
        if (name === 'length') return object.items ? lit(object.items.length) : UNKNOWN;
        return { k: 'native', name: `array.${name}`, self: object };
      case 'map':
        if (name === 'get') return { k: 'native', name: 'map.get', self: object };
        if (name === 'has') return { k: 'native', name: 'map.has', self: object };
        if (name === 'set' || name === 'add') return { k: 'native', name: 'map.set', self: object };
        return UNKNOWN;
      case 'ns':
        return this.modules.exportValue(object.mod, name);
      case 'msg':
        if (name === 'hasOwnProperty') return { k: 'native', name: 'hasOwnProperty', self: object };
        return { k: 'sym', key: name };
      case 'sym': {
        const c = s.cons.get(object.key);
        if (STRING_METHODS.has(name) && (object.key === 'method' || typeof c?.eq === 'string')) {
          if (name === 'startsWith' || name === 'endsWith' || name === 'includes') return { k: 'native', name: `string.${name}`, self: object };
          return { k: 'native', name: 'string.op', self: object };
        }
        if (object.key === 'method' || object.key === 'id' || object.key === 'jsonrpc') return UNKNOWN;
        return { k: 'sym', key: `${object.key}.${name}` };
      }
      case 'lit':
        if (typeof object.value === 'string') {
          if (name === 'length') return lit(object.value.length);
          if (name === 'startsWith' || name === 'endsWith' || name === 'includes' || STRING_METHODS.has(name)) return { k: 'native', name: 'string.op', self: object };
        }
        return UNKNOWN;
      case 'text':
        if (STRING_METHODS.has(name) || name === 'toString' || name === 'subarray' || name === 'slice') return { k: 'native', name: 'string.op', self: object };
        if (name === 'length') return UNKNOWN;
        return UNKNOWN;
      case 'json':
        if (name === 'length') return UNKNOWN;
        return { k: 'native', name: 'string.op', self: object };
      case 'promise':
        if (name === 'then' || name === 'catch' || name === 'finally') return { k: 'native', name: `promise.${name}`, self: object };
        return UNKNOWN;
      case 'unknown':
        return object.fromMethod ? FROM_METHOD : UNKNOWN;
      default:
        void node;
        return UNKNOWN;
    }
  }

  private staticObjectMember(object: Extract<Val, { k: 'obj' }>, name: string, s: PathState, frame: Frame): Val {
    const fields = this.getFields({ ...object, cell: 0 }, s, frame);
    if (fields === null) {
      // an open object literal: find the property itself
      if (!object.node || !object.mod) return UNKNOWN;
      const top = this.topFrame(object.mod);
      for (const prop of [...object.node.properties].reverse()) {
        if (prop.type === 'SpreadElement') return UNKNOWN;
        if (getStaticKey(prop) === name) return prop.type === 'ObjectMethod' ? { k: 'func', fn: prop, mod: object.mod, thisVal: object } : this.evalPure(prop.value, s, this.frameAt(object.mod, prop, top));
      }
      return UNKNOWN;
    }
    const value = fields.get(name);
    if (!value) return name === 'hasOwnProperty' ? { k: 'native', name: 'hasOwnProperty', self: object } : UNDEFINED;
    if (value.k === 'func' && !value.thisVal) return { ...value, thisVal: object };
    return value;
  }

  private consoleAssignments: Map<string, t.Expression> | null = null;

  /**
   * The value a program gives `console.<name>` (`console.log = console.info = console.error`), or
   * undefined when it never assigns it. Read statically: an assignment anywhere counts (they sit at the
   * top of an entry point, before anything is written).
   */
  private getConsoleAssignment(name: string): Val | undefined {
    if (this.consoleAssignments === null) {
      this.consoleAssignments = new Map();
      for (const mod of this.program.modules) {
        for (const node of mod.index.parent.keys()) {
          if (node.type !== 'AssignmentExpression' || node.operator !== '=' || node.left.type !== 'MemberExpression') continue;
          const object = node.left.object;
          const member = getMemberName(node.left);
          if (object.type !== 'Identifier' || object.name !== 'console' || member === null || !STDOUT_CONSOLE.has(member)) continue;
          // the innermost right-hand side of a chain `a = b = console.error`
          let value: t.Expression = node.right;
          while (value.type === 'AssignmentExpression') value = value.right;
          this.consoleAssignments.set(member, value);
        }
      }
    }
    const value = this.consoleAssignments.get(name);
    if (value === undefined) return undefined;
    const target = value.type === 'MemberExpression' && value.object.type === 'Identifier' && value.object.name === 'console' ? getMemberName(value) : null;
    if (target !== null) return STDERR_CONSOLE.has(target) ? { k: 'native', name: 'console.err' } : STDOUT_CONSOLE.has(target) ? { k: 'native', name: 'console.out' } : { k: 'native', name: 'noop' };
    // a function of the program's own: followed like any other call
    const mod = this.moduleOf(value);
    if (mod && isFunctionNode(value)) return this.evalStatic(value, mod);
    return { k: 'native', name: 'noop' };
  }

  private globalMember(global: string, name: string): Val {
    switch (global) {
      case 'process':
        return this.builtinMember('process', name);
      case 'console': {
        // `console.log = console.error` somewhere in the program (a stdout guard): what it was set to
        const assigned = this.getConsoleAssignment(name);
        if (assigned !== undefined) return assigned;
        if (STDOUT_CONSOLE.has(name)) return { k: 'native', name: 'console.out' };
        if (STDERR_CONSOLE.has(name)) return { k: 'native', name: 'console.err' };
        return { k: 'native', name: 'noop' };
      }
      case 'JSON':
        if (name === 'parse') return { k: 'native', name: 'JSON.parse' };
        if (name === 'stringify') return { k: 'native', name: 'JSON.stringify' };
        return UNKNOWN;
      case 'Object':
        if (name === 'prototype') return { k: 'global', name: 'Object.prototype' };
        if (name === 'assign') return { k: 'native', name: 'Object.assign' };
        if (name === 'hasOwn') return { k: 'native', name: 'Object.hasOwn' };
        // `Object.freeze({ LIST: 'tools/list' })` is the object it freezes
        if (name === 'freeze') return { k: 'native', name: 'pure.identity' };
        return { k: 'native', name: 'pure.Object' };
      case 'Object.prototype':
        if (name === 'hasOwnProperty') return { k: 'native', name: 'hasOwnProperty' };
        return UNKNOWN;
      case 'Promise':
        if (name === 'resolve') return { k: 'native', name: 'Promise.resolve' };
        if (name === 'reject') return { k: 'native', name: 'Promise.reject' };
        return UNKNOWN;
      case 'Buffer':
        return { k: 'native', name: name === 'from' ? 'pure.Buffer.from' : 'pure.Buffer' };
      // `new TextEncoder().encode(text)`: the UTF-8 bytes of the text, read like `Buffer.from(text)`
      case 'TextEncoder.instance':
        return name === 'encode' ? { k: 'native', name: 'pure.Buffer.from' } : UNKNOWN;
      case 'Math':
      case 'Number':
      case 'String':
      case 'Array':
      case 'Date':
        return { k: 'native', name: `pure.${global}` };
      case 'globalThis':
        return this.globalMember(name, '') === UNKNOWN ? UNKNOWN : { k: 'global', name };
      case 'module':
      case 'exports':
        return UNKNOWN;
      default:
        return UNKNOWN;
    }
  }

  builtinMember(module: string, name: string): Val {
    switch (module) {
      case 'process':
        if (name === 'stdin') return { k: 'stream', fd: 0 };
        if (name === 'stdout') return { k: 'stream', fd: 1 };
        if (name === 'stderr') return { k: 'stream', fd: 2 };
        if (name === 'exit') return { k: 'native', name: 'process.exit' };
        if (name === 'default') return { k: 'global', name: 'process' };
        if (name === 'nextTick') return { k: 'native', name: 'timer' };
        return UNKNOWN;
      case 'fs':
        if (name === 'writeSync') return { k: 'native', name: 'fs.writeSync' };
        if (name === 'write') return { k: 'native', name: 'fs.write' };
        if (name === 'default') return { k: 'builtin', name: 'fs' };
        return UNKNOWN;
      case 'readline':
        if (name === 'createInterface') return { k: 'native', name: 'readline.createInterface' };
        if (name === 'default') return { k: 'builtin', name: 'readline' };
        return UNKNOWN;
      case 'timers':
        return { k: 'native', name: 'timer' };
      default:
        if (name === 'default') return { k: 'builtin', name: module };
        return UNKNOWN;
    }
  }

  // ---------------------------------------------------------------- modules

}
