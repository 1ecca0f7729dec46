// The facts about one candidate file, computed once and read by every phase (the audit, the SDK
// plan, the envelope plan): the program it belongs to, every write to fd 1 in it, every JSON.parse,
// where stdin enters (the consumers), whether it is already on the SDK, and the interpreted paths of
// an incoming message from each consumer to stdout.
// Deliberately not: judging what the paths mean (detect/ builds the server model from them).
import { t } from '../babel.js';
import { type Binding, forEachChild, type FunctionNode, getBindingWrites, getEnclosingClass, getMemberName, isFunctionNode, isModuleExports, resolveIdentifier, unwrapExpression } from './ast.js';
import { findEnclosingFunction, Interpreter, LISTEN_METHODS, type PathResult } from './interp.js';
import { type ModuleUnit, Program } from './program.js';
import type { ReadModule } from './read-module.js';
import type { Constraint, Val } from './values.js';
import { getClassBindingName } from './class-members.js';
import { STDIN_EVENTS } from './inert.js';
import { findSdkWiring, type SdkWiring } from './sdk-wiring.js';
import { findStdioRefs, type StdioRef } from './stdio-refs.js';
import { speaksMcp } from './vocabulary.js';

export type ConsumerKind = (typeof STDIN_EVENTS)[number] | 'for-await';

/** One place where stdin enters the program. */
export interface StdinConsumer {
  kind: ConsumerKind;
  mod: ModuleUnit;
  /** `rl.on('line', cb)` (the call) or the `for await` loop. */
  node: t.CallExpression | t.ForOfStatement;
  /** The handler that receives each chunk or line (null for `for await`). */
  handler: Val | null;
  /** What is read: stdin itself or a readline interface over it. */
  source: Val;
}

/** One call that writes to fd 1. */
export interface SinkCall {
  call: t.CallExpression;
  mod: ModuleUnit;
  channel: 'stdout.write' | 'console' | 'writeSync';
  fn: FunctionNode | null;
  /** It writes `JSON.stringify(...)` text (a message), not a log line. */
  json: boolean;
}

/**
 * What an outbox is made of (`outbox.push(json); flush()`): the pushes (writes, in effect) and the calls
 * of its flushes that are not inside a flush themselves.
 */
export interface OutboxFacts {
  pushes: ReadonlySet<t.CallExpression>;
  flushCalls: { call: t.CallExpression; mod: ModuleUnit }[];
}

export interface FileFacts {
  program: Program;
  interp: Interpreter;
  entry: ModuleUnit;
  consumers: StdinConsumer[];
  sinks: SinkCall[];
  parses: { call: t.CallExpression; mod: ModuleUnit }[];
  /** The modules the entry loads only through a literal `import()` (a CLI's `serve` command loading its server), not on every run. */
  onDemand: ReadonlySet<ModuleUnit>;
  /** Every place the program names the process's stdin or stdout (what the SDK at the boundary replaces). */
  stdio: StdioRef[];
  outbox: OutboxFacts;
  /** The SDK import of the entry, when it already uses the official SDK. */
  sdkImport: t.Node | null;
  /** A module of the program names the resource-not-found code -32002 (the server answers a resource miss with it). */
  namesResourceMissCode: boolean;
  /** How a program already on the SDK is wired to stdio (null when it does not import the SDK). */
  sdkWiring: SdkWiring | null;
  /** Every interpreted path, from every consumer. */
  paths: PathResult[];
  /** The interpreter gave up somewhere (too many paths): the paths are not the whole story. */
  incomplete: boolean;
  /** The paths of a message whose method is `method` (a fresh run from every consumer). */
  runWithMethod(method: string): PathResult[];
}

const SDK_PACKAGES = /^@modelcontextprotocol\/(sdk|server)(\/|$)/;

export function buildFacts(path: string, source: string, ast: t.File, read: ReadModule | null): FileFacts {
  const program = new Program(path, source, ast, read);
  const modules = program.loadReachable();
  // (every module is loaded by now: the static walk reads nothing more)
  const everyRun = new Set(program.loadReachable({ onDemand: false }));
  const onDemand = new Set(modules.filter((mod) => !everyRun.has(mod)));
  const interp = new Interpreter(program);
  if (isInert(program, modules)) {
    return { program, interp, entry: program.entry, consumers: [], sinks: [], parses: [], onDemand, stdio: [], outbox: { pushes: new Set(), flushCalls: [] }, sdkImport: null, namesResourceMissCode: false, sdkWiring: null, paths: [], incomplete: false, runWithMethod: () => [] };
  }
  const sinks: SinkCall[] = [];
  const parses: { call: t.CallExpression; mod: ModuleUnit }[] = [];
  const consumers: StdinConsumer[] = [];

  // 1. The static scan: every write to fd 1 and every JSON.parse, by what their callee evaluates to.
  for (const mod of modules) {
    for (const call of mod.index.calls) {
      const callee = interp.evalStatic(call.callee, mod);
      if (callee.k !== 'native') continue;
      const fn = findEnclosingFunction(mod, call);
      if (callee.name === 'JSON.parse') {
        parses.push({ call, mod });
        if (fn) interp.parseFunctions.add(fn);
        continue;
      }
      const channel = getSinkChannel(callee, call, mod, interp);
      if (channel) {
        sinks.push({ call, mod, channel, fn, json: false });
        if (fn) interp.sinkFunctions.add(fn);
      }
    }
  }

  // an outbox: an array whose items are written to fd 1 and read nowhere else (`outbox.push(json); flush()`)
  const pushes = new Set<t.CallExpression>();
  for (const outbox of findOutboxes(sinks, interp)) {
    interp.outboxes.set(outbox.binding, outbox.channel);
    for (const push of outbox.pushes) {
      pushes.add(push);
      const fn = findEnclosingFunction(outbox.mod, push);
      if (fn) interp.sinkFunctions.add(fn);
    }
    for (const drain of outbox.drains) interp.outboxDrains.add(drain);
  }

  // what the scan evaluated before every write was known may have been judged without it
  interp.resetReach();

  // a console write whose text is a message (`console.log(JSON.stringify(reply))`), not a log line
  for (const sink of sinks) {
    const first = sink.call.arguments[0];
    sink.json = sink.call.arguments.length === 1 && first !== undefined && first.type !== 'SpreadElement' && first.type !== 'ArgumentPlaceholder' && interp.evalStatic(first, sink.mod).k === 'json';
  }

  // 2. Where stdin enters: `.on('data' | 'readable' | 'line', handler)` on stdin or a readline over it, `for await`.
  consumers.push(...findConsumers(modules, interp));

  // 3. The paths of a message, from each consumer.
  // Nothing can come of exploring them where no module names `JSON`: no path could parse a message, and
  // a path without a parse is no message path (detect and the audit read nothing else from them).
  const canParse = modules.some((m) => m.source.includes('JSON'));
  const runAll = (preset?: Map<string, Constraint>): { paths: PathResult[]; incomplete: boolean } => {
    const out: PathResult[] = [];
    let incomplete = false;
    if (!canParse) return { paths: out, incomplete };
    for (const consumer of consumers) {
      let results: PathResult[] = [];
      if (consumer.node.type === 'ForOfStatement') {
        const loop = consumer.node;
        const target = loop.left.type === 'VariableDeclaration' ? loop.left.declarations[0]!.id : loop.left;
        const bindings = new Map();
        if (target.type === 'Identifier') {
          const binding = resolveIdentifier(consumer.mod.index, target);
          if (binding) bindings.set(binding, { k: 'text' });
        }
        const body = loop.body.type === 'BlockStatement' ? loop.body.body : [loop.body];
        results = interp.runStatements(body, consumer.mod, findEnclosingFunction(consumer.mod, loop), bindings, preset);
      } else if (consumer.handler?.k === 'func') {
        results = interp.runFunction(consumer.handler, consumer.kind === 'readable' ? [] : [{ k: 'text' }], undefined, preset);
      }
      if (interp.exhausted) incomplete = true;
      out.push(...results);
    }
    return { paths: out, incomplete };
  };
  const { paths, incomplete } = runAll();
  const runWithMethod = (method: string): PathResult[] => runAll(new Map([['method', { eq: method, neq: [], prefixes: [], defined: true }]])).paths;

  // a program that already imports the SDK (in any of its modules, the entry first: loadReachable lists it first) is on the SDK
  // (the SDK boundary module the tool writes beside a server is not read as a module of the program: program.ts)
  let sdkImport: t.Node | null = null;
  for (const mod of modules) if ((sdkImport = findSdkImport(mod)) !== null) break;
  const outbox: OutboxFacts = { pushes, flushCalls: findFlushCalls(modules, interp) };
  return { program, interp, entry: program.entry, consumers, sinks, parses, onDemand, stdio: findStdioRefs(modules, interp), outbox, sdkImport, namesResourceMissCode: modules.some((mod) => RESOURCE_MISS_CODE.test(mod.source)), sdkWiring: sdkImport === null ? null : findSdkWiring(modules), paths, incomplete, runWithMethod };
}

const RESOURCE_MISS_CODE = /-\s*32002\b/;

/** Where stdin enters: `.on('data' | 'readable' | 'line', handler)` on stdin or a readline over it, `for await`. */
function findConsumers(modules: readonly ModuleUnit[], interp: Interpreter): StdinConsumer[] {
  const consumers: StdinConsumer[] = [];
  for (const mod of modules) {
    for (const call of mod.index.calls) {
      const callee = unwrapExpression(call.callee);
      if (callee.type !== 'MemberExpression') continue;
      const name = getMemberName(callee);
      if (name === null || !LISTEN_METHODS.has(name)) continue;
      const event = call.arguments[0];
      if (!event || event.type !== 'StringLiteral' || !(STDIN_EVENTS as readonly string[]).includes(event.value)) continue;
      const target = interp.evalStatic(callee.object, mod);
      if (!readsStdin(target, event.value)) continue;
      const handler = call.arguments[1] ? interp.evalStatic(call.arguments[1], mod) : null;
      consumers.push({ kind: event.value as ConsumerKind, mod, node: call, handler, source: target });
    }
    walkForAwait(mod, (loop) => {
      const target = interp.evalStatic(loop.right, mod);
      if (!(target.k === 'readline' ? isStdin(target.input) : isStdin(target))) return;
      // a loop over stdin in an async generator that yields what it reads (`async function* lines(stream)`):
      // the messages arrive in the loops over that generator
      const generator = findEnclosingFunction(mod, loop);
      if (generator && (generator as { generator?: boolean }).generator && containsYield(generator)) {
        const outer = findLoopsOver(generator, modules, interp);
        if (outer.length > 0) {
          for (const o of outer) consumers.push({ kind: 'for-await', mod: o.mod, node: o.loop, handler: null, source: target });
          return;
        }
      }
      consumers.push({ kind: 'for-await', mod, node: loop, handler: null, source: target });
    });
  }
  return consumers;
}

/**
 * Whether nothing can come of exploring a program: no module names MCP's vocabulary, not even in a
 * comment (without it an input loop that is not followed is not named, and no Deno or Bun server is), none names the SDK, and
 * stdin enters it nowhere (the consumers found by an interpreter of its own, before any write is known:
 * it follows every function the scan's would, and more). A big library that mentions stdin (a CLI
 * parser's `return process.stdin`) is then done without evaluating every call it makes. (The pipeline
 * asks the same of the program's texts first: inert.ts; this answers for what text alone cannot tell.)
 */
function isInert(program: Program, modules: readonly ModuleUnit[]): boolean {
  if (modules.some((m) => speaksMcp(m.source))) return false;
  return findConsumers(modules, new Interpreter(program)).length === 0;
}

/** The calls of an outbox's flushes that are not made inside a flush (`send(m) { outbox.push(m); flush(); }`). */
function findFlushCalls(modules: readonly ModuleUnit[], interp: Interpreter): { call: t.CallExpression; mod: ModuleUnit }[] {
  const drains = interp.outboxDrains;
  if (drains.size === 0) return [];
  const out: { call: t.CallExpression; mod: ModuleUnit }[] = [];
  for (const mod of modules) {
    for (const call of mod.index.calls) {
      const target = interp.evalStatic(call.callee, mod);
      if (target.k !== 'func' || !drains.has(target.fn)) continue;
      const owner = findEnclosingFunction(mod, call);
      if (owner === null || !drains.has(owner)) out.push({ call, mod });
    }
  }
  return out;
}

/**
 * Arrays that hold messages on their way to fd 1: every item leaves through `X.shift()` as the payload of
 * a write to fd 1 (`stdout.write(outbox.shift())`, or `const chunk = outbox.shift(); stdout.write(chunk)`),
 * and the array is otherwise only pushed onto and measured. Pushing onto one writes what is pushed, in
 * order (a flush that waits for 'drain' delays it, never drops it).
 */
function findOutboxes(sinks: SinkCall[], interp: Interpreter): Outbox[] {
  const candidates = new Map<Binding, { mod: ModuleUnit; channel: SinkCall['channel']; shifts: Set<t.Node>; sinks: SinkCall[] }>();
  for (const sink of sinks) {
    let payload: t.Node | undefined = sink.call.arguments[sink.channel === 'writeSync' ? 1 : 0];
    if (!payload) continue;
    payload = unwrapExpression(payload);
    if (payload.type === 'Identifier') {
      const held = resolveIdentifier(sink.mod.index, payload);
      payload = held?.kind === 'const' && held.declarator.id.type === 'Identifier' && held.declarator.init ? unwrapExpression(held.declarator.init) : undefined;
    }
    if (payload?.type !== 'CallExpression' || payload.arguments.length > 0) continue;
    const callee = unwrapExpression(payload.callee);
    if (callee.type !== 'MemberExpression' || getMemberName(callee) !== 'shift' || callee.object.type !== 'Identifier') continue;
    const binding = resolveIdentifier(sink.mod.index, callee.object);
    if (!binding || (binding.kind !== 'const' && binding.kind !== 'let') || binding.declarator.id.type !== 'Identifier') continue;
    const init = binding.declarator.init ? unwrapExpression(binding.declarator.init) : null;
    if (init?.type !== 'ArrayExpression' || init.elements.length > 0) continue;
    const known = candidates.get(binding);
    if (known && known.channel !== sink.channel) candidates.delete(binding);
    else if (known) {
      known.shifts.add(payload);
      known.sinks.push(sink);
    } else candidates.set(binding, { mod: sink.mod, channel: sink.channel, shifts: new Set([payload]), sinks: [sink] });
  }
  const out: Outbox[] = [];
  for (const [binding, { mod, channel, shifts, sinks: drainSinks }] of candidates) {
    if (getBindingWrites(mod.index, binding).length > 0) continue;
    const pushes: t.CallExpression[] = [];
    let only = true;
    for (const id of mod.index.identifiers) {
      if (id === (binding as { declarator: t.VariableDeclarator }).declarator.id || resolveIdentifier(mod.index, id) !== binding) continue;
      const member = mod.index.parent.get(id);
      const name = member?.type === 'MemberExpression' && member.object === id && !member.computed ? getMemberName(member) : null;
      const call = member ? mod.index.parent.get(member) : undefined;
      const called = call?.type === 'CallExpression' && call.callee === member ? call : null;
      if (name === 'length' && !called) continue;
      if (name === 'push' && called && called.arguments.length === 1 && called.arguments[0]!.type !== 'SpreadElement') pushes.push(called);
      else if (!(name === 'shift' && called && shifts.has(called))) only = false;
    }
    // (an outbox exported or read anywhere else may be written by other code: not one)
    if (!only || pushes.length === 0) continue;
    const drains = new Set<FunctionNode>();
    for (const sink of drainSinks) if (sink.fn) drains.add(sink.fn);
    if ([...drains].every((fn) => onlyDrains(fn, mod, drains, drainSinks, interp))) out.push({ binding, mod, channel, pushes, drains: [...drains] });
  }
  return out;
}

interface Outbox {
  binding: Binding;
  mod: ModuleUnit;
  channel: SinkCall['channel'];
  pushes: t.CallExpression[];
  /** The functions that shift the items off and write them (a flush): calling one writes nothing new. */
  drains: FunctionNode[];
}

const DRAIN_CALLS = new Set(['shift', 'once', 'on', 'off', 'removeListener', 'resolve']);

/**
 * Whether a flush does nothing but write the outbox: its calls are the outbox writes, `X.shift()`, a
 * wait for 'drain' (`await once(stdout, 'drain')`, `stdout.once('drain', ...)`, `new Promise(...)`) and
 * the flushes themselves; it may keep flags (`flushing = true`) and loop.
 */
function onlyDrains(fn: FunctionNode, mod: ModuleUnit, drains: Set<FunctionNode>, drainSinks: SinkCall[], interp: Interpreter): boolean {
  const sinkCalls = new Set<t.Node>(drainSinks.map((s) => s.call));
  let ok = true;
  const visit = (node: t.Node): void => {
    if (!ok) return;
    if (node.type === 'CallExpression' && !sinkCalls.has(node)) {
      const callee = unwrapExpression(node.callee);
      const name = callee.type === 'Identifier' ? callee.name : callee.type === 'MemberExpression' && !callee.computed ? getMemberName(callee) : null;
      const value = interp.evalStatic(callee, mod);
      if (!(name !== null && DRAIN_CALLS.has(name)) && !(value.k === 'func' && drains.has(value.fn))) ok = false;
    }
    forEachChild(node, visit);
  };
  visit(fn.body);
  return ok;
}

function isStdin(v: Val): boolean {
  return v.k === 'stream' && v.fd === 0;
}

function readsStdin(target: Val, event: string): boolean {
  if (event === 'line') return target.k === 'readline' && isStdin(target.input);
  return isStdin(target);
}

/** Which channel a call writes to fd 1 through, or null. */
function getSinkChannel(callee: Extract<Val, { k: 'native' }>, call: t.CallExpression, mod: ModuleUnit, interp: Interpreter): SinkCall['channel'] | null {
  if (callee.name === 'console.out') return 'console';
  if (callee.name === 'stream.write') return callee.self?.k === 'stream' && callee.self.fd === 1 ? 'stdout.write' : null;
  if (callee.name === 'fs.writeSync' || callee.name === 'fs.write') {
    const fd = call.arguments[0] ? interp.evalStatic(call.arguments[0], mod) : null;
    if (fd?.k === 'lit' && fd.value === 1) return 'writeSync';
    if (fd?.k === 'stream' && fd.fd === 1) return 'writeSync';
  }
  return null;
}

/** Whether a generator yields in its own body (not in a function nested in it). */
function containsYield(fn: FunctionNode): boolean {
  let found = false;
  const visit = (node: t.Node): void => {
    if (found) return;
    if (node.type === 'YieldExpression') found = true;
    else if (node === fn || !isFunctionNode(node)) forEachChild(node, visit);
  };
  visit(fn);
  return found;
}

/** The `for await` loops, in any module of the program, over a call of `generator`. */
function findLoopsOver(generator: FunctionNode, modules: readonly ModuleUnit[], interp: Interpreter): { mod: ModuleUnit; loop: t.ForOfStatement }[] {
  const out: { mod: ModuleUnit; loop: t.ForOfStatement }[] = [];
  for (const mod of modules) {
    walkForAwait(mod, (loop) => {
      const right = unwrapExpression(loop.right);
      if (right.type !== 'CallExpression') return;
      const callee = interp.evalStatic(right.callee, mod);
      if (callee.k === 'func' && callee.fn === generator) out.push({ mod, loop });
    });
  }
  return out;
}

function walkForAwait(mod: ModuleUnit, visit: (loop: t.ForOfStatement) => void): void {
  for (const node of mod.index.loopsOverTargets) if (node.type === 'ForOfStatement' && node.await) visit(node);
}

function findSdkImport(mod: ModuleUnit): t.Node | null {
  for (const statement of mod.ast.program.body) {
    if (statement.type === 'ImportDeclaration' && SDK_PACKAGES.test(statement.source.value)) return statement;
  }
  // require('@modelcontextprotocol/sdk/...'), or a require made with createRequire: the module's last
  // (from its index, in source order; the walk it replaced met the last one first)
  const calls = mod.index.calls;
  for (let i = calls.length - 1; i >= 0; i--) {
    const first = calls[i]!.arguments[0];
    if (first?.type === 'StringLiteral' && SDK_PACKAGES.test(first.value)) return calls[i]!;
  }
  return null;
}

/**
 * Whether the program's stdin loop only runs when an importer calls into it: every consumer lies in a
 * function of the entry module whose outermost enclosing function is named and never referenced in the
 * program other than where it is declared or exported (`export async function startGateway() { ... }`,
 * a method no code of the program calls). Anything else (a loop at top level, a function called or
 * handed on anywhere, an anonymous function) starts with the file itself. With no consumer followed,
 * the places naming stdin decide alike (`createApp(input = process.stdin)` in a module whose
 * `createApp` the program never calls: a file that only registers tools on the app).
 */
export function isStartedByImporter(facts: FileFacts): boolean {
  return getLoopModulesStartedElsewhere(facts) !== null;
}

/**
 * The paths of the modules holding the program's stdin loop when that loop only runs when an importer
 * calls into it (isStartedByImporter); null when the program starts it itself or never names stdin.
 */
export function getLoopModulesStartedElsewhere(facts: FileFacts): string[] | null {
  const places = facts.consumers.length > 0 ? facts.consumers : facts.stdio.filter((ref) => ref.stream === 'stdin');
  if (places.length === 0 || !places.every((place) => isStartedElsewhere(facts, place.mod, place.node))) return null;
  return [...new Set(places.map((place) => place.mod.path))];
}

/**
 * Whether code of the program runs only when something outside it calls it: it lies in a named function
 * (or class method) at the top of its nesting that no module of the program names except to export it
 * (in the entry, or in a module it imports: `App.listen()` that only the file which starts the app calls).
 */
export function isStartedElsewhere(facts: FileFacts, mod: ModuleUnit, node: t.Node): boolean {
  let outer: FunctionNode | null = findEnclosingFunction(mod, node);
  if (outer === null) return false;
  for (let up = findEnclosingFunction(mod, outer); up !== null; up = findEnclosingFunction(mod, up)) outer = up;
  // a constructor runs when its class is instantiated: `new Reader(process.stdin)` names the class
  const cls = outer.type === 'ClassMethod' && outer.kind === 'constructor' ? getEnclosingClass(mod.index, outer) : null;
  if (cls !== null) {
    const name = getClassBindingName(cls, mod);
    return name !== null && !isReferenced(facts, name, cls, mod);
  }
  const name = getFunctionName(mod, outer);
  return name !== null && !isReferenced(facts, name, outer, mod);
}

function getImportedName(specifier: t.ImportSpecifier): string {
  return specifier.imported.type === 'Identifier' ? specifier.imported.name : specifier.imported.value;
}

/** A function's own name: its declaration, the variable or the method key it is declared under. */
function getFunctionName(mod: ModuleUnit, fn: FunctionNode): string | null {
  if ((fn.type === 'FunctionDeclaration' || fn.type === 'FunctionExpression') && fn.id) return fn.id.name;
  if (fn.type === 'ClassMethod' || fn.type === 'ObjectMethod') return fn.key.type === 'Identifier' && !fn.computed ? fn.key.name : null;
  const parent = mod.index.parent.get(fn);
  if (parent?.type === 'VariableDeclarator' && parent.id.type === 'Identifier') return parent.id.name;
  return null;
}

/** Whether `property` belongs to the object literal assigned to `module.exports`. */
function isModuleExportsObject(mod: ModuleUnit, property: t.ObjectProperty): boolean {
  const object = mod.index.parent.get(property);
  const holder = object === undefined ? undefined : mod.index.parent.get(object);
  return holder?.type === 'AssignmentExpression' && holder.right === object && isModuleExports(holder.left);
}

/**
 * Whether the name is read anywhere in the program outside the function (or class) itself and its export
 * (a call, a member call, `new`, a reference).
 */
function isReferenced(facts: FileFacts, name: string, fn: FunctionNode | t.ClassDeclaration | t.ClassExpression, fnMod: ModuleUnit): boolean {
  for (const mod of facts.program.modules) {
    for (const id of mod.index.identifiers) {
      if (id.name !== name) continue;
      const parent = mod.index.parent.get(id);
      if (!parent) continue;
      // the declaration itself, `export { name }`, a method or property key
      if (parent === fn || (parent.type === 'VariableDeclarator' && parent.id === id)) continue;
      // imported under its own name (its uses are its local name's), or named in a type (`typeof name`): not started
      if (parent.type === 'ImportSpecifier' && getImportedName(parent) === parent.local.name) continue;
      if (parent.type === 'TSTypeQuery' || parent.type === 'TSTypeReference' || parent.type === 'TSQualifiedName') continue;
      // `export { name }`, `export default name`, `module.exports = name`: exported, not started
      if (parent.type === 'ExportSpecifier' || parent.type === 'ExportDefaultDeclaration') continue;
      if (parent.type === 'AssignmentExpression' && parent.right === id && isModuleExports(parent.left)) continue;
      if ((parent.type === 'ClassMethod' || parent.type === 'ObjectMethod' || parent.type === 'ClassProperty' || parent.type === 'ObjectProperty') && parent.key === id && !parent.computed) {
        if (parent.type !== 'ObjectProperty' || !parent.shorthand) continue;
      }
      // inside the function (recursion) does not start it
      if (mod === fnMod && fn.start !== null && fn.end !== null && id.start !== null && id.start! >= fn.start! && id.end! <= fn.end!) continue;
      // `exports.name = name` / `module.exports = { name }`: exported, not started
      if (parent.type === 'MemberExpression' && parent.property === id) {
        const holder = mod.index.parent.get(parent);
        if (holder?.type === 'AssignmentExpression' && holder.left === parent && holder.right.type === 'Identifier' && holder.right.name === name) continue;
      }
      if (parent.type === 'AssignmentExpression' && parent.right === id && parent.left.type === 'MemberExpression' && getMemberName(parent.left) === name) continue;
      // `module.exports = { name }` / `{ start: name }`: exported, not started
      if (parent.type === 'ObjectProperty' && (parent.value === id || parent.shorthand) && isModuleExportsObject(mod, parent)) continue;
      return true;
    }
  }
  return false;
}
