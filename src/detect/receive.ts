// How the envelope receives each message parse (read by the envelope rewrite and by the audit's "fixed"
// mark): where the parse's error is caught (in its function or by a caller) the parse keeps throwing to
// that handling; elsewhere `JSON.parse` becomes `envelope.receive` with a guard after the statement (a bad
// line ends that handling, not the server), or the parse is first received into a name of its own when it
// is an argument of a call; where neither fits, or where leaving the function early would hand its caller
// undefined instead of the error, the line is answered with -32700 and the parse still throws, as it did.
import { t } from '../babel.js';
import { getCatchClause, isFunctionNode } from '../analysis/ast.js';
import type { ModuleUnit } from '../analysis/program.js';
import type { Frame } from '../analysis/values.js';
import type { ParseReceipt } from '../model/server-model.js';

/** `frames`: every frame the analysis saw the parse run in (one per message path through it). */
export function getParseReceipt(mod: ModuleUnit, call: t.CallExpression, frames: readonly Frame[]): ParseReceipt {
  if (getCatchClause(mod.index, call) !== null) return { kind: 'try' };
  // a caller that catches what the parse throws handles a bad line itself: the parse keeps throwing to it
  const caught = frames.filter(isCaughtByCaller).length;
  if (caught > 0) return caught === frames.length ? { kind: 'try' } : { kind: 'unguarded' };
  const guard = getParseGuard(mod, call);
  const hoisted = guard === null ? getHoistedParse(mod, call) : null;
  const placed: ParseReceipt | null = guard !== null ? { kind: 'guard', ...guard } : hoisted !== null ? { kind: 'hoisted', ...hoisted } : null;
  // a guard that returns ends the handling only where the function's result goes nowhere: elsewhere
  // (`msg = parseMessage(line)`) the caller would go on with undefined where the error stopped it
  if (placed === null || (placed.exit === 'return' && !frames.every(dropsResult))) return { kind: 'unguarded' };
  return placed;
}

/** Some call on the way to the frame sits inside a try (with a catch) of its caller's function. */
function isCaughtByCaller(frame: Frame): boolean {
  for (let f: Frame = frame; f.caller !== null && f.call !== null; f = f.caller) {
    if (getCatchClause(f.caller.mod.index, f.call) !== null) return true;
  }
  return false;
}

/**
 * What the frame's function returns goes nowhere: it is a root (a listener, the loop's own function), an
 * event listener run by emit(), a call that is a statement of its own, or returned (or an arrow's body) by
 * a function whose result goes nowhere either.
 */
function dropsResult(frame: Frame): boolean {
  if (frame.caller === null || frame.call === null || frame.indirect === true) return true;
  const mod = frame.caller.mod;
  let node: t.Node = frame.call;
  let parent = mod.index.parent.get(node);
  while (parent && (parent.type === 'AwaitExpression' || parent.type === 'ParenthesizedExpression' || (parent.type === 'UnaryExpression' && parent.operator === 'void'))) {
    if (parent.type === 'UnaryExpression') return true;
    node = parent;
    parent = mod.index.parent.get(node);
  }
  if (parent?.type === 'ExpressionStatement') return true;
  if (parent?.type === 'ReturnStatement' || (parent?.type === 'ArrowFunctionExpression' && parent.body === node)) return dropsResult(frame.caller);
  return false;
}

/**
 * `const msg = JSON.parse(line);` outside a try: with `receive` a bad line is undefined, and a guard
 * after the statement leaves the message's handling the way the surrounding code does (return from the
 * handler, or continue the loop over lines).
 */
function getParseGuard(mod: ModuleUnit, call: t.CallExpression): { statement: t.Statement; target: string; exit: string } | null {
  let node: t.Node = call;
  let parent = mod.index.parent.get(node);
  while (parent && (parent.type === 'TSAsExpression' || parent.type === 'ParenthesizedExpression' || parent.type === 'TSNonNullExpression')) {
    node = parent;
    parent = mod.index.parent.get(node);
  }
  let target: string | null = null;
  let statement: t.Node | undefined;
  if (parent?.type === 'VariableDeclarator' && parent.init === node && parent.id.type === 'Identifier') {
    target = parent.id.name;
    statement = mod.index.parent.get(parent);
  } else if (parent?.type === 'AssignmentExpression' && parent.right === node && parent.left.type === 'Identifier') {
    target = parent.left.name;
    statement = mod.index.parent.get(parent);
  }
  if (target === null || !statement || !t.isStatement(statement)) return null;
  const exit = getGuardExit(mod, statement);
  return exit === null ? null : { statement, target, exit };
}

/** How a guard after `statement` ends the handling of a bad line: `continue` in a loop, `return` in a function; null outside a block. */
function getGuardExit(mod: ModuleUnit, statement: t.Statement): 'continue' | 'return' | null {
  const holder = mod.index.parent.get(statement);
  if (holder?.type !== 'BlockStatement' && holder?.type !== 'SwitchCase') return null;
  // the nearest loop inside the same function: a guard there continues it, else it returns
  for (let p: t.Node | undefined = holder; p; p = mod.index.parent.get(p)) {
    if (p.type === 'ForStatement' || p.type === 'ForOfStatement' || p.type === 'ForInStatement' || p.type === 'WhileStatement' || p.type === 'DoWhileStatement') return 'continue';
    if (isFunctionNode(p)) return 'return';
  }
  return null;
}

/**
 * The parse is the first code its statement runs: `handle(JSON.parse(line));`, `this.emit('message',
 * JSON.parse(line));`, `const { id, method } = JSON.parse(line);`, `msg = normalize(JSON.parse(line));`
 * outside a try. On the way from the parse up to its statement nothing evaluated before it can do anything
 * (a callee that is a name or a member chain of names and `this`, arguments before it that are names or
 * literals; an await, a type assertion, the right side of `name = ...`). Received into a name just before
 * the statement, the message can be guarded like a declared one; the order of what runs does not change.
 */
function getHoistedParse(mod: ModuleUnit, call: t.CallExpression): { statement: t.Statement; text: t.Node; exit: string } | null {
  const [text] = call.arguments;
  if (call.arguments.length !== 1 || !text || t.isSpreadElement(text)) return null;
  for (let node: t.Node = call; ; ) {
    const parent = mod.index.parent.get(node);
    if (!parent) return null;
    let statement: t.Statement | null = null;
    // (`JSON.parse(line);` alone hands the message to nothing)
    if ((parent.type === 'ExpressionStatement' && node !== call) || parent.type === 'ReturnStatement') statement = parent;
    else if (parent.type === 'VariableDeclarator' && parent.init === node) {
      const declaration = mod.index.parent.get(parent);
      if (declaration?.type === 'VariableDeclaration' && declaration.declarations.length === 1) statement = declaration;
    } else if (evaluatesFirst(parent, node)) {
      node = parent;
      continue;
    }
    if (statement === null) return null;
    const exit = getGuardExit(mod, statement);
    return exit === null ? null : { statement, text, exit };
  }
}

/** `child` is the first thing `parent` evaluates that can run code (see getHoistedParse). */
function evaluatesFirst(parent: t.Node, child: t.Node): boolean {
  switch (parent.type) {
    case 'CallExpression':
    case 'NewExpression': {
      const at = parent.arguments.indexOf(child as (typeof parent.arguments)[number]);
      return at !== -1 && runsNoCode(parent.callee) && parent.arguments.slice(0, at).every((arg) => runsNoCode(arg));
    }
    case 'AwaitExpression':
    case 'ParenthesizedExpression':
    case 'TSAsExpression':
    case 'TSNonNullExpression':
    case 'TSSatisfiesExpression':
      return true;
    case 'UnaryExpression':
      return parent.operator === 'void';
    case 'AssignmentExpression':
      return parent.operator === '=' && parent.right === child && parent.left.type === 'Identifier';
    default:
      return false;
  }
}

/** A name, `this`, a literal, or a member chain of those with plain property names: evaluating it runs no code of the program's. */
function runsNoCode(node: t.Node): boolean {
  if (node.type === 'Identifier' || node.type === 'ThisExpression' || t.isLiteral(node)) return node.type !== 'TemplateLiteral' || node.expressions.length === 0;
  return node.type === 'MemberExpression' && !node.computed && runsNoCode(node.object);
}
