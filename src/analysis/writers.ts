// Writer detection for the interpreter: which functions reach fd 1 or a JSON parse (directly or
// through the functions they call), which only log to stderr, and which serialize with JSON.stringify.
// The interpreter asks these to decide which calls to follow; the answers are memoized per function.
// Deliberately not: running anything. The questions are answered from the module's calls, statically.
import type * as t from '@babel/types';
import { forEachChild, type FunctionNode, getEnclosingFunction, getMemberName, isInside, resolveIdentifier, sliceInside, unwrapExpression } from './ast.js';
import { VALUE_METHODS } from './interp-helpers.js';
import type { Evaluator } from './evaluator.js';
import type { ModuleUnit } from './program.js';

/** How deep a chain of calls onlyLogs follows (each level costs stack frames of the walk). */
const MAX_LOG_DEPTH = 100;

export class WriterAnalysis {
  constructor(private readonly interp: Evaluator) {}

  private readonly reachMemo = new Map<FunctionNode, boolean>();
  private readonly logMemo = new Map<FunctionNode, boolean>();
  private readonly stringifyCallers = new Map<ModuleUnit, Set<FunctionNode>>();

  /** Forgets what mayWrite() answered: the scan that fills sinkFunctions and parseFunctions has moved on. */
  resetReach(): void {
    this.reachMemo.clear();
  }

  /** `fn` writes to stdout or parses JSON, directly or through the functions it calls. */
  mayWrite(fn: FunctionNode): boolean {
    const memo = this.reachMemo.get(fn);
    if (memo !== undefined) return memo;
    this.reachMemo.set(fn, false);
    let result = this.interp.sinkFunctions.has(fn) || this.interp.parseFunctions.has(fn);
    if (!result) {
      const mod = this.interp.moduleOf(fn);
      if (mod) {
        // the calls inside fn (at any depth), in document order: one slice of the module's calls
        for (const call of sliceInside(mod.index, mod.index.calls, fn)) {
          const target = this.interp.evalStatic(call.callee, mod);
          if (target.k === 'func' && target.fn !== fn && this.mayWrite(target.fn)) {
            result = true;
            break;
          }
        }
      }
    }
    this.reachMemo.set(fn, result);
    return result;
  }

  /**
   * A call of `fn` can do nothing but log to stderr (`function log(...a) { console.error('[srv]', ...a) }`):
   * every call in it is a stderr write, a value-only builtin (`JSON.stringify`, `new Date().toISOString()`)
   * or another such function, and it assigns only its own variables. Dropping such a call loses a log line.
   */
  onlyLogs(fn: FunctionNode): boolean {
    const memo = this.logMemo.get(fn);
    if (memo !== undefined) return memo;
    // a chain of calls deeper than this is not followed (a file of thousands of helpers calling one
    // another overflowed the stack): such a function counts as doing more than logging
    if (this.logDepth >= MAX_LOG_DEPTH) return false;
    this.logDepth++;
    try {
      return this.computeOnlyLogs(fn);
    } finally {
      this.logDepth--;
    }
  }

  private logDepth = 0;

  private computeOnlyLogs(fn: FunctionNode): boolean {
    this.logMemo.set(fn, false);
    const mod = this.interp.moduleOf(fn);
    let ok = mod !== null && !(fn as { generator?: boolean }).generator;
    const isOwn = (target: t.Node): boolean => {
      if (target.type !== 'Identifier') return false;
      const binding = resolveIdentifier(mod!.index, target);
      return binding !== null && binding.kind !== 'import' && 'declarator' in binding ? isInside(mod!.index, binding.declarator, fn) : binding?.kind === 'param' && binding.fn === fn;
    };
    const visit = (node: t.Node): void => {
      if (!ok) return;
      switch (node.type) {
        case 'AssignmentExpression':
          if (!isOwn(node.left)) ok = false;
          break;
        case 'UpdateExpression':
          if (!isOwn(node.argument)) ok = false;
          break;
        case 'AwaitExpression':
        case 'YieldExpression':
        case 'ThrowStatement':
          ok = false;
          break;
        case 'UnaryExpression':
          if (node.operator === 'delete') ok = false;
          break;
        case 'NewExpression':
          if (node.callee.type !== 'Identifier' || node.callee.name !== 'Date') ok = false;
          break;
        case 'CallExpression':
        case 'OptionalCallExpression':
          if (!this.isLoggingCall(node, mod!)) ok = false;
          break;
      }
      // nested functions too (a callback handed to `map` runs)
      forEachChild(node, visit);
    };
    if (ok) visit(fn.body);
    this.logMemo.set(fn, ok);
    return ok;
  }

  private isLoggingCall(call: t.CallExpression | t.OptionalCallExpression, mod: ModuleUnit): boolean {
    const target = this.interp.evalStatic(call.callee, mod);
    if (target.k === 'native') {
      if (target.name === 'console.err' || target.name === 'noop' || target.name === 'JSON.stringify' || target.name.startsWith('pure')) return true;
      // `LEVELS.indexOf(level)` on an array the program holds: a value only
      if (target.name.startsWith('array.') && VALUE_METHODS.has(target.name.slice('array.'.length))) return true;
      if (target.name === 'stream.write' && call.callee.type === 'MemberExpression') {
        const stream = this.interp.evalStatic(call.callee.object, mod);
        return stream.k === 'stream' && stream.fd === 2;
      }
      return false;
    }
    if (target.k === 'func') return this.onlyLogs(target.fn);
    if (target.k === 'global') return target.name === 'String' || target.name === 'Number' || target.name === 'Boolean';
    // value methods: `new Date().toISOString()`, `args.map(String).join(' ')`
    const callee = unwrapExpression(call.callee);
    return callee.type === 'MemberExpression' && VALUE_METHODS.has(getMemberName(callee) ?? '');
  }

  /** `fn` (not counting the functions nested in it) calls `JSON.stringify`: from one pass over its module's calls. */
  callsStringify(fn: FunctionNode): boolean {
    if ((fn as { async?: boolean }).async || (fn as { generator?: boolean }).generator) return false;
    const mod = this.interp.moduleOf(fn);
    if (!mod) return false;
    let callers = this.stringifyCallers.get(mod);
    if (!callers) {
      callers = new Set();
      for (const call of mod.index.calls) {
        const callee = unwrapExpression(call.callee);
        if (callee.type !== 'MemberExpression' || getMemberName(callee) !== 'stringify') continue;
        const target = this.interp.evalStatic(callee, mod);
        const enclosing = target.k === 'native' && target.name === 'JSON.stringify' ? getEnclosingFunction(mod.index, call) : null;
        if (enclosing) callers.add(enclosing);
      }
      this.stringifyCallers.set(mod, callers);
    }
    return callers.has(fn);
  }
}
