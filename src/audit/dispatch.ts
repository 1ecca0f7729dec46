// Where a file dispatches on the incoming message's `method`, its branches and its fallback.
//   switch (msg.method) { case 'initialize': ...; default: ... }          -> switch, fallback = default
//   if (m === 'initialize') {...} else if (...) {...} else {...}           -> if-chain, fallback = final else
//   if (msg.method === 'a') return ...; if (...) return ...; return fail() -> if-run, fallback = what follows
//   const handler = handlers[msg.method]; if (!handler) {...}              -> map, fallback = the missing-handler branch
import type * as t from '@babel/types';
import { type AstIndex, getEnclosingFunction, getMemberName, getMemberPath, resolveIdentifier, unwrapExpression } from '../analysis/ast.js';

export interface DispatchBranch {
  method: string;
  /** The statements run for this method. */
  body: t.Node[];
}

export interface Dispatch {
  kind: 'switch' | 'if' | 'map';
  node: t.Node;
  branches: DispatchBranch[];
  /** Statements run for every other method; null when the dispatch has none (nothing runs). */
  fallback: t.Node[] | null;
  /** Could not tell whether a fallback exists (e.g. a write after branches that fall through). */
  uncertain: boolean;
  /** The dispatch's last statement: what follows it runs after a branch that does not exit. */
  last: t.Node;
}

/** `msg.method`, `method` destructured from a message, or `const m = msg.method`. */
export function isMethodExpression(index: AstIndex, node: t.Node, depth = 0): boolean {
  const expr = unwrapExpression(node);
  if ((expr.type === 'MemberExpression' || expr.type === 'OptionalMemberExpression') && getMemberName(expr) === 'method') return true;
  if (expr.type === 'CallExpression' && depth < 3) {
    // String(msg.method)
    const callee = unwrapExpression(expr.callee);
    if (callee.type === 'Identifier' && callee.name === 'String' && expr.arguments[0]) return isMethodExpression(index, expr.arguments[0], depth + 1);
    return false;
  }
  if (expr.type !== 'Identifier' || depth > 3) return false;
  const binding = resolveIdentifier(index, expr);
  if (!binding || (binding.kind !== 'param' && binding.kind !== 'const' && binding.kind !== 'let' && binding.kind !== 'var')) return false;
  if (binding.pattern.length > 0) return binding.pattern[binding.pattern.length - 1] === 'method';
  if (binding.kind === 'const' && binding.declarator.init) return isMethodExpression(index, binding.declarator.init, depth + 1);
  return false;
}

/** The method names an `if` test compares against: `m === 'a' || m === 'b'` -> ['a', 'b']. */
export function getComparedMethods(index: AstIndex, test: t.Node): string[] {
  const out: string[] = [];
  const stack: t.Node[] = [test];
  while (stack.length > 0) {
    const expr = unwrapExpression(stack.pop()!);
    if (expr.type === 'LogicalExpression') {
      stack.push(expr.right, expr.left);
    } else if (expr.type === 'BinaryExpression' && (expr.operator === '===' || expr.operator === '==') && expr.left.type !== 'PrivateName') {
      const { left, right } = expr;
      if (right.type === 'StringLiteral' && isMethodExpression(index, left)) out.push(right.value);
      else if (left.type === 'StringLiteral' && isMethodExpression(index, right)) out.push(left.value);
    }
  }
  return out;
}

export function findDispatches(index: AstIndex): Dispatch[] {
  return [...findSwitchDispatches(index), ...findIfDispatches(index), ...findMapDispatches(index)];
}

function findSwitchDispatches(index: AstIndex): Dispatch[] {
  const out: Dispatch[] = [];
  for (const node of index.switches) {
    if (!isMethodExpression(index, node.discriminant)) continue;
    const branches: DispatchBranch[] = [];
    let fallback: t.Node[] | null = null;
    node.cases.forEach((c, i) => {
      // An empty case falls through to the next non-empty one.
      let body: t.Node[] = c.consequent;
      for (let j = i + 1; body.length === 0 && j < node.cases.length; j++) body = node.cases[j]!.consequent;
      if (c.test === null || c.test === undefined) fallback = body;
      else if (c.test.type === 'StringLiteral') branches.push({ method: c.test.value, body });
    });
    let uncertain = false;
    if (fallback === null) {
      const after = getFollowingStatements(index, node);
      if (after.length > 0) {
        if (node.cases.every((c) => c.consequent.length === 0 || endsWithExit(c.consequent[c.consequent.length - 1]!, false))) fallback = after;
        else uncertain = true;
      }
    }
    if (branches.length > 0) out.push({ kind: 'switch', node, branches, fallback, uncertain, last: node });
  }
  return out;
}

function findIfDispatches(index: AstIndex): Dispatch[] {
  const out: Dispatch[] = [];
  const chained = new Set<t.Node>();
  for (const node of index.ifs) {
    if (node.alternate?.type === 'IfStatement' && getComparedMethods(index, node.test).length > 0) chained.add(node.alternate);
  }
  const done = new Set<t.Node>();
  for (const node of index.ifs) {
    if (chained.has(node) || done.has(node) || getComparedMethods(index, node.test).length === 0) continue;
    // A run: this `if` and the method-testing `if`s right after it in the same statement list.
    const list = getStatementList(index, node);
    const run: t.IfStatement[] = [node];
    if (list) {
      for (let i = list.indexOf(node) + 1; i < list.length; i++) {
        const next = list[i]!;
        if (next.type === 'EmptyStatement') continue;
        if (next.type !== 'IfStatement' || getComparedMethods(index, next.test).length === 0) break;
        run.push(next);
      }
    }
    for (const r of run) done.add(r);
    const branches: DispatchBranch[] = [];
    let finalElse: t.Statement | null = null;
    let allExit = true;
    run.forEach((root, i) => {
      let current: t.IfStatement | null = root;
      while (current) {
        const methods = getComparedMethods(index, current.test);
        for (const method of methods) branches.push({ method, body: [current.consequent] });
        if (!endsWithExit(current.consequent, true)) allExit = false;
        const alternate: t.Statement | null | undefined = current.alternate;
        // `else if (<not a method test>)` starts the fallback: everything else goes there.
        if (alternate?.type === 'IfStatement' && getComparedMethods(index, alternate.test).length > 0) {
          current = alternate;
        } else {
          if (alternate && i === run.length - 1) finalElse = alternate;
          current = null;
        }
      }
    });
    // `if (m === 'a') {...}` alone is a check, not a dispatch.
    if (branches.length < 2 && !finalElse) continue;
    let fallback: t.Node[] | null = finalElse ? [finalElse] : null;
    let uncertain = false;
    if (!fallback) {
      const last = run[run.length - 1]!;
      const after = getFollowingStatements(index, last);
      if (after.length > 0) {
        if (allExit) fallback = after;
        else uncertain = true;
      }
    }
    out.push({ kind: 'if', node, branches, fallback, uncertain, last: run[run.length - 1]! });
  }
  return out;
}

function findMapDispatches(index: AstIndex): Dispatch[] {
  const out: Dispatch[] = [];
  for (const member of index.members) {
    if (!member.computed || !containsMethodExpression(index, member.property)) continue;
    addMapDispatch(index, member, out);
  }
  // const handler = registry.get(msg.method)
  for (const call of index.calls) {
    const callee = unwrapExpression(call.callee);
    if (callee.type !== 'MemberExpression' || getMemberName(callee) !== 'get' || !call.arguments[0]) continue;
    if (isMethodExpression(index, call.arguments[0])) addMapDispatch(index, call, out);
  }
  return out;
}

/** `const handler = <lookup>` followed by `if (!handler) <fallback>` in the same function. */
function addMapDispatch(index: AstIndex, lookup: t.Node, out: Dispatch[]): void {
  const parent = index.parent.get(lookup);
  if (parent?.type !== 'VariableDeclarator' || parent.id.type !== 'Identifier' || parent.init !== lookup) return;
  const name = parent.id.name;
  const fn = getEnclosingFunction(index, lookup);
  for (const node of index.ifs) {
    if (getEnclosingFunction(index, node) !== fn || (node.start ?? 0) < (lookup.end ?? 0)) continue;
    if (!isMissingCheck(node.test, name)) continue;
    out.push({ kind: 'map', node: lookup, branches: [], fallback: [node.consequent], uncertain: false, last: node });
    return;
  }
}

function containsMethodExpression(index: AstIndex, node: t.Node): boolean {
  const stack: t.Node[] = [node];
  let budget = 50;
  while (stack.length > 0 && budget-- > 0) {
    const current = unwrapExpression(stack.pop()!);
    if (isMethodExpression(index, current)) return true;
    switch (current.type) {
      case 'BinaryExpression':
        stack.push(current.left, current.right);
        break;
      case 'CallExpression':
        // camel(msg.method), msg.method.replace('/', '_')
        stack.push(current.callee);
        for (const arg of current.arguments) stack.push(arg);
        break;
      case 'MemberExpression':
        stack.push(current.object);
        break;
      case 'TemplateLiteral':
        stack.push(...current.expressions);
        break;
      default:
        break;
    }
  }
  return false;
}

/** `!h`, `typeof h !== 'function'`, `h === undefined`, `h == null`. */
function isMissingCheck(test: t.Node, name: string): boolean {
  const expr = unwrapExpression(test);
  const isName = (n: t.Node): boolean => {
    const e = unwrapExpression(n);
    return e.type === 'Identifier' && e.name === name;
  };
  if (expr.type === 'UnaryExpression' && expr.operator === '!') return isName(expr.argument);
  if (expr.type === 'BinaryExpression' && expr.left.type !== 'PrivateName') {
    const { left, right, operator } = expr;
    if ((operator === '!==' || operator === '!=') && left.type === 'UnaryExpression' && left.operator === 'typeof' && isName(left.argument)) {
      return right.type === 'StringLiteral' && right.value === 'function';
    }
    if (operator === '===' || operator === '==') {
      const nullish = (n: t.Node): boolean => n.type === 'NullLiteral' || (n.type === 'Identifier' && n.name === 'undefined');
      return (isName(left) && nullish(right)) || (isName(right) && nullish(left));
    }
  }
  if (expr.type === 'LogicalExpression' && expr.operator === '||') return isMissingCheck(expr.left, name) || isMissingCheck(expr.right, name);
  return false;
}

/** The statement list (block body, switch case, program) that directly holds `node`. */
export function getStatementList(index: AstIndex, node: t.Node): t.Node[] | null {
  const parent = index.parent.get(node);
  if (!parent) return null;
  if (parent.type === 'BlockStatement' || parent.type === 'Program' || parent.type === 'StaticBlock') return parent.body;
  if (parent.type === 'SwitchCase') return parent.consequent;
  return null;
}

export function getFollowingStatements(index: AstIndex, node: t.Node): t.Node[] {
  const list = getStatementList(index, node);
  if (!list) return [];
  return list.slice(list.indexOf(node) + 1).filter((s) => s.type !== 'EmptyStatement' && s.type !== 'FunctionDeclaration');
}

/** Control never falls out of the end of `node` (return, throw; `continue`/`break` when `loopExits`). */
export function endsWithExit(node: t.Node, loopExits: boolean): boolean {
  switch (node.type) {
    case 'ReturnStatement':
    case 'ThrowStatement':
      return true;
    case 'ContinueStatement':
    case 'BreakStatement':
      return loopExits;
    case 'BlockStatement': {
      const last = node.body[node.body.length - 1];
      return last !== undefined && endsWithExit(last, loopExits);
    }
    case 'IfStatement':
      return node.alternate != null && endsWithExit(node.consequent, loopExits) && endsWithExit(node.alternate, loopExits);
    case 'ExpressionStatement': {
      // process.exit(...)
      const expr = unwrapExpression(node.expression);
      return expr.type === 'CallExpression' && getMemberPath(expr.callee) === 'process.exit';
    }
    default:
      return false;
  }
}
