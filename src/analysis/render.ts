// Turns an abstract value back into source text that means the same at another place: the result a
// helper was handed (`respond(id, { tools })` -> `{ tools }` at the call site), a code built from a
// helper's parameters (`code: code ?? -32603` -> `-32602 ?? -32603`), a constant. Read-only: it
// returns text or null (the value cannot be written at that place), and the rewrite decides.
import type * as t from '@babel/types';
import { type Binding, type FunctionNode, forEachChild, isFunctionNode, isReferenceIdentifier, resolveIdentifier, resolveName, unwrapExpression } from './ast.js';
import type { ModuleUnit } from './program.js';
import type { Frame, Val } from './values.js';

/** Where the text will stand: a node of a module, inside a function (or at the top level). */
export interface RenderPlace {
  mod: ModuleUnit;
  node: t.Node;
  /** Names the rewrite gives to values at that place (the message parameter of a handler, ...). */
  names?: Map<Binding, string>;
}

export function renderVal(value: Val, place: RenderPlace, depth = 0): string | null {
  if (depth > 8) return null;
  const origin = value.origin;
  if (!origin) {
    if (value.k === 'lit') return renderLiteral(value.value);
    return null;
  }
  return renderNodeAt(origin.node, origin.frame, place, depth);
}

/** The text of `node` (evaluated in `frame`) as it would read at `place`, or null. */
export function renderNodeAt(node: t.Node, frame: Frame | null, place: RenderPlace, depth = 0, nodeMod?: ModuleUnit): string | null {
  const mod = frame?.mod ?? nodeMod ?? place.mod;
  if (node.start == null || node.end == null) return null;
  const replacements: { start: number; end: number; text: string }[] = [];
  let failed = false;
  const visit = (n: t.Node): void => {
    if (failed) return;
    if (n.type === 'Identifier' && isReferenceIdentifier(mod.index, n)) {
      const text = renderIdentifier(n, mod, frame, place, node, depth);
      if (text === null) {
        failed = true;
        return;
      }
      if (text !== n.name) {
        const parent = mod.index.parent.get(n);
        if (parent?.type === 'ObjectProperty' && parent.shorthand && parent.value === n && n !== node) replacements.push({ start: parent.start!, end: parent.end!, text: `${n.name}: ${text}` });
        else replacements.push({ start: n.start!, end: n.end!, text: needsParens(text) && !isListPlace(n, parent, node) ? `(${text})` : text });
      }
      return;
    }
    // a field of a helper's parameter that was handed an object literal (`err.code` of
    // `reply({ code: -32602, message })`): the field's own text, not the whole literal again
    if (n.type === 'MemberExpression' && !n.computed && n.property.type === 'Identifier' && n.object.type === 'Identifier' && isHandedLiteral(n.object, mod, frame, place, node)) {
      const field = getFieldNode(n.object, frame, mod, n.property.name);
      if (field !== null) {
        const text = renderNodeAt(field.node, field.frame, place, depth + 1, field.mod);
        if (text === null) {
          failed = true;
          return;
        }
        replacements.push({ start: n.start!, end: n.end!, text: needsParens(text) && !isListPlace(n, mod.index.parent.get(n), node) ? `(${text})` : text });
        return;
      }
    }
    // `x ?? fallback` where x comes out a number or a string: x; where x is a field handed in as
    // `y ?? fallback` with the same literal fallback: that field alone
    if (n.type === 'LogicalExpression' && n.operator === '??') {
      const inner = n.left.type === 'MemberExpression' && !n.left.computed && n.left.property.type === 'Identifier' && n.left.object.type === 'Identifier' && isHandedLiteral(n.left.object, mod, frame, place, node) ? getFieldNode(n.left.object, frame, mod, n.left.property.name) : null;
      const same = inner !== null && inner.node.type === 'LogicalExpression' && inner.node.operator === '??' && isSameLiteral(inner.node.right, n.right);
      const left = same ? renderNodeAt(inner.node, inner.frame, place, depth + 1, inner.mod) : renderNodeAt(n.left, frame, place, depth + 1, mod);
      if (same && left !== null) {
        replacements.push({ start: n.start!, end: n.end!, text: needsParens(left) && n !== node ? `(${left})` : left });
        return;
      }
      if (left !== null && /^(?:-?\d+(?:\.\d+)?|'[^'\\\n]*'|"[^"\\\n]*")$/.test(left)) {
        replacements.push({ start: n.start!, end: n.end!, text: left });
        return;
      }
    }
    if (n.type === 'ThisExpression' && !insideOwnThis(mod, n, node)) {
      if (!sameThis(mod, n, place)) {
        failed = true;
        return;
      }
    }
    forEachChild(n, visit);
  };
  visit(node);
  if (failed) return null;
  let text = '';
  let cursor = node.start;
  for (const r of replacements.sort((a, b) => a.start - b.start)) {
    text += mod.source.slice(cursor, r.start) + r.text;
    cursor = r.end;
  }
  return text + mod.source.slice(cursor, node.end);
}

function renderIdentifier(id: t.Identifier, mod: ModuleUnit, frame: Frame | null, place: RenderPlace, root: t.Node, depth: number): string | null {
  const binding = resolveIdentifier(mod.index, id);
  if (binding === null) return isGlobalName(id.name) && resolveName(place.mod.index, place.node, id.name) === null ? id.name : null;
  // declared inside the rendered node itself (an arrow's parameter, a nested const)
  if (isDeclaredWithin(mod, binding, root)) return id.name;
  const renamed = place.names?.get(binding);
  if (renamed !== undefined) return renamed;
  // the same binding is visible where the text goes
  if (mod === place.mod && resolveName(place.mod.index, place.node, id.name) === binding) return id.name;
  // a parameter of a helper frame: what the caller wrote as the argument
  const arg = frame ? getArgument(frame, binding) : null;
  if (arg) return arg.node === null ? 'undefined' : renderNodeAt(arg.node, arg.frame, place, depth + 1, arg.mod);
  return null;
}

/** The argument node a parameter of `frame` was called with (or its default), in the frame that holds it. */
function getArgument(frame: Frame, binding: Binding): { node: t.Node | null; frame: Frame | null; mod: ModuleUnit } | null {
  if (binding.kind !== 'param' || binding.fn !== frame.fn || binding.pattern.length > 0 || binding.rest) return null;
  const call = frame.call;
  const param = frame.fn.params[binding.index];
  if (!call) return null;
  const args = call.arguments;
  if (args.slice(0, binding.index + 1).some((a) => a.type === 'SpreadElement')) return null;
  const arg = args[binding.index];
  if (arg && arg.type !== 'ArgumentPlaceholder' && !(arg.type === 'Identifier' && arg.name === 'undefined')) return { node: arg, frame: frame.caller, mod: frame.caller?.mod ?? frame.mod };
  if (param?.type === 'AssignmentPattern') return { node: param.right, frame, mod: frame.mod };
  return { node: null, frame: null, mod: frame.mod };
}

/**
 * Follows an expression to the node that holds its value: a parameter to its argument at the call,
 * a `const` to its initializer. Stops at anything else.
 */
export function resolveExpr(node: t.Node, frame: Frame | null, mod: ModuleUnit): { node: t.Node; frame: Frame | null; mod: ModuleUnit } {
  let current = unwrapExpression(node);
  let currentFrame = frame;
  let currentMod = mod;
  for (let i = 0; i < 12 && current.type === 'Identifier'; i++) {
    const binding = resolveIdentifier(currentMod.index, current);
    if (!binding) break;
    if (binding.kind === 'param' && currentFrame) {
      const arg = getArgument(currentFrame, binding);
      if (!arg || arg.node === null) break;
      current = unwrapExpression(arg.node);
      currentFrame = arg.frame;
      currentMod = arg.mod;
      continue;
    }
    if ((binding.kind === 'const' || (binding.kind === 'let' && !hasWrites(currentMod, binding))) && binding.pattern.length === 0 && binding.declarator.init) {
      current = unwrapExpression(binding.declarator.init);
      continue;
    }
    break;
  }
  return { node: current, frame: currentFrame, mod: currentMod };
}

function hasWrites(mod: ModuleUnit, binding: Binding): boolean {
  return mod.index.assignments.some((a) => a.left.type === 'Identifier' && resolveIdentifier(mod.index, a.left) === binding);
}

/** The node of property `name` in an object literal (through spreads of other literals), or null. */
export function getFieldNode(object: t.Node, frame: Frame | null, mod: ModuleUnit, name: string): { node: t.Node; frame: Frame | null; mod: ModuleUnit } | null {
  const resolved = resolveExpr(object, frame, mod);
  if (resolved.node.type !== 'ObjectExpression') return null;
  for (const prop of [...resolved.node.properties].reverse()) {
    if (prop.type === 'SpreadElement') {
      const inner = getFieldNode(prop.argument, resolved.frame, resolved.mod, name);
      if (inner) return inner;
      const spread = resolveExpr(prop.argument, resolved.frame, resolved.mod);
      if (spread.node.type !== 'ObjectExpression') return null;
      continue;
    }
    if (prop.computed && prop.key.type !== 'StringLiteral') continue;
    const key = prop.key.type === 'Identifier' ? prop.key.name : prop.key.type === 'StringLiteral' ? prop.key.value : null;
    if (key !== name) continue;
    if (prop.type === 'ObjectMethod') return null;
    return { node: prop.value, frame: resolved.frame, mod: resolved.mod };
  }
  return null;
}

function isSameLiteral(a: t.Node, b: t.Node): boolean {
  const [x, y] = [unwrapExpression(a), unwrapExpression(b)];
  if (x.type === 'NumericLiteral' && y.type === 'NumericLiteral') return x.value === y.value;
  if (x.type === 'StringLiteral' && y.type === 'StringLiteral') return x.value === y.value;
  if (x.type === 'UnaryExpression' && y.type === 'UnaryExpression' && x.operator === '-' && y.operator === '-') return isSameLiteral(x.argument, y.argument);
  return false;
}

/** A helper's parameter that the text stands in for by its argument (not a name visible at the place, not one the rewrite renames). */
function isHandedLiteral(id: t.Identifier, mod: ModuleUnit, frame: Frame | null, place: RenderPlace, root: t.Node): boolean {
  if (frame === null || !isReferenceIdentifier(mod.index, id)) return false;
  const binding = resolveIdentifier(mod.index, id);
  if (binding === null || binding.kind !== 'param' || isDeclaredWithin(mod, binding, root) || place.names?.get(binding) !== undefined) return false;
  return !(mod === place.mod && resolveName(place.mod.index, place.node, id.name) === binding);
}

function isDeclaredWithin(mod: ModuleUnit, binding: Binding, root: t.Node): boolean {
  const declaration: t.Node | null =
    binding.kind === 'param' ? binding.fn : binding.kind === 'var' || binding.kind === 'let' || binding.kind === 'const' ? binding.declarator : binding.kind === 'catch' ? binding.clause : null;
  if (declaration === null) return false;
  let current: t.Node | undefined = declaration;
  while (current) {
    if (current === root) return true;
    current = mod.index.parent.get(current);
  }
  return false;
}

function insideOwnThis(mod: ModuleUnit, node: t.Node, root: t.Node): boolean {
  let current = mod.index.parent.get(node);
  while (current && current !== root) {
    if (isFunctionNode(current) && current.type !== 'ArrowFunctionExpression') return true;
    current = mod.index.parent.get(current);
  }
  return false;
}

/** `this` means the same object at both places: the same class method context (or object literal). */
function sameThis(mod: ModuleUnit, node: t.Node, place: RenderPlace): boolean {
  if (mod !== place.mod) return false;
  return thisOwner(mod, node) === thisOwner(place.mod, place.node);
}

function thisOwner(mod: ModuleUnit, node: t.Node): t.Node | null {
  let current = mod.index.parent.get(node);
  while (current) {
    if (current.type === 'ClassDeclaration' || current.type === 'ClassExpression') return current;
    if (isFunctionNode(current) && current.type !== 'ArrowFunctionExpression' && current.type !== 'ClassMethod' && current.type !== 'ClassPrivateMethod') return current;
    current = mod.index.parent.get(current);
  }
  return null;
}

const SIMPLE = /^(?:[\w$.]+|'[^'\\]*'|"[^"\\]*"|-?\d+(?:\.\d+)?|[\w$.]+\([^()]*\)|`[^`$]*`)$/;

/** An identifier in a place that takes any expression but a comma one (an argument, a property value, the whole node). */
function isListPlace(n: t.Node, parent: t.Node | undefined, whole: t.Node): boolean {
  if (n === whole || !parent) return true;
  if ((parent.type === 'CallExpression' || parent.type === 'NewExpression') && parent.arguments.includes(n as t.Expression)) return true;
  if (parent.type === 'ObjectProperty' && parent.value === n) return true;
  if (parent.type === 'ArrayExpression' || parent.type === 'TemplateLiteral') return true;
  return false;
}

function needsParens(text: string): boolean {
  return !SIMPLE.test(text.trim()) && !/^\{[\s\S]*\}$|^\[[\s\S]*\]$/.test(text.trim());
}

export function renderLiteral(value: unknown): string | null {
  if (value === undefined) return 'undefined';
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
  return null;
}

const GLOBALS = new Set(['undefined', 'NaN', 'Infinity', 'JSON', 'Object', 'Array', 'String', 'Number', 'Boolean', 'Math', 'Date', 'Error', 'Promise', 'Buffer', 'process', 'console', 'Map', 'Set', 'Symbol', 'RegExp', 'parseInt', 'parseFloat', 'isNaN', 'encodeURIComponent', 'decodeURIComponent', 'globalThis', 'TypeError', 'RangeError', 'URL', 'BigInt', 'structuredClone', 'setTimeout', 'clearTimeout']);

function isGlobalName(name: string): boolean {
  return GLOBALS.has(name);
}

/** The source text of a node as written. */
export function sourceOf(mod: ModuleUnit, node: t.Node): string {
  return mod.source.slice(node.start!, node.end!);
}

/**
 * The text a string expression builds, with `hole` for each part only known at run time:
 * `` `Method ${m} not found` `` and `'Method ' + m + ' not found'` are both `Method x not found`.
 */
export function sketchString(node: t.Node, hole = 'x'): string {
  const expr = unwrapExpression(node);
  if (expr.type === 'StringLiteral') return expr.value;
  if (expr.type === 'TemplateLiteral') return expr.quasis.map((q) => q.value.cooked ?? '').join(hole);
  if (expr.type === 'BinaryExpression' && expr.operator === '+' && expr.left.type !== 'PrivateName') return sketchString(expr.left, hole) + sketchString(expr.right, hole);
  return hole;
}

/** Source text on one line, cut to `max` characters (for messages and headers). */
export function shorten(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}


export type { FunctionNode };
export { unwrapExpression };
