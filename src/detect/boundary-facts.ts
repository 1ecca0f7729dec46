// What the SDK at the boundary needs (detect/server.ts): where messages come in and go out, the methods
// the server answers and the names its handlers are built from, or why the boundary cannot be put there.
import { t } from '../babel.js';
import { type AstIndex, getBindingWrites, getNumericValue, getStringValue, getLine, resolveIdentifier, unwrapExpression } from '../analysis/ast.js';
import { type FileFacts } from '../analysis/facts.js';
import { ENVELOPE_BASENAME, importsCompanion } from '../analysis/companions.js';
import type { ModuleUnit } from '../analysis/program.js';
import { isMcpRequestMethod, isMcpVocabularyMethod } from '../model/mcp-methods.js';
import type { BoundaryFacts, ServerModel } from '../model/server-model.js';


/**
 * The SDK at the boundary takes a newline-framed server whose stdin it can replace: the program names
 * the process's stdin (every way it reads its messages starts there), and it writes to stdout where the
 * analysis sees it (a write to fd 1, or a place that names the stream).
 */
export function getBoundaryFacts(facts: FileFacts, framing: ServerModel['framing'], parses: { call: t.CallExpression; mod: ModuleUnit }[], methods: string[], answered: string[] | null): BoundaryFacts {
  const line = facts.consumers[0] ? getLine(facts.consumers[0].node) : 0;
  if (facts.program.modules.some((m) => importsCompanion(m, ENVELOPE_BASENAME))) return { available: false, reason: 'ENVELOPE_IN_PLACE', detail: 'the server already uses the envelope helper', line };
  if (framing === 'content-length') return { available: false, reason: 'CONTENT_LENGTH_FRAMING', detail: 'messages are framed with Content-Length headers', line };
  const stdin = facts.stdio.filter((r) => r.stream === 'stdin');
  if (stdin.length === 0) return { available: false, reason: 'STDIN_ELSEWHERE', detail: 'no module of the program names process.stdin', line };
  const stdout = facts.stdio.filter((r) => r.stream === 'stdout');
  if (facts.sinks.length === 0 && stdout.length === 0) return { available: false, reason: 'STDIN_ELSEWHERE', detail: 'no write to stdout was found in the modules the analysis reads', line };
  // What the boundary refuses (-32601) rather than hand to the server. Where every method the server
  // answers is known (it is silent on the others): any other than those and the ones it names. Where that
  // is not known: a namespaced method outside MCP's namespaces (`mcp-migrate/no-such-method`) that no
  // string of the program names, which no code of it can answer; where the program builds member names
  // from text (`this['handle_' + m.replace('/', '_')]`), also none such a name can reach; where it builds
  // them in a way the analysis cannot invert, nothing is refused.
  const named = getNamedMethods(facts);
  const known = answered === null ? null : [...new Set([...answered, ...named])];
  const built = answered === null ? getBuiltNameStems(facts) : null;
  const namespaced = answered !== null || built === 'open' ? null : named.filter((m) => !isMcpVocabularyMethod(m));
  const stems = built === null || built === 'open' ? null : built;
  return { available: true, stdin, stdout, sinks: facts.sinks, parses, methods: methods.filter((m) => isMcpRequestMethod(m)), known, namespaced, stems };
}

/**
 * What member names the program builds from text can reach. A read `obj[key]` whose key is built from
 * one value by operations that keep its letters and digits in order (`'handle_' + m.split('/').join('_')`,
 * `` `on_${m.replace('/', '_')}` ``, `m.toLowerCase()`; through a constant that holds such a key) reaches
 * a name of the program only if that name's letters and digits are the key's constant parts around the
 * value's: the stems are those middles, lower-cased (`tools/list` reaches `handle_tools_list` through the
 * stem `toolslist`). Null when the program builds no key; 'open' when one is built some other way
 * (two values, `slice`, a replacement function), or when the stems are too many to list.
 */
function getBuiltNameStems(facts: FileFacts): string[] | 'open' | null {
  const forms: { prefix: string; suffix: string }[] = [];
  for (const mod of facts.program.modules) {
    for (const member of mod.index.members) {
      if (!member.computed) continue;
      const key = getBuiltKey(mod.index, member.property);
      if (key === null) continue;
      const form = getKeyForm(mod.index, key);
      if (form === null) return 'open';
      forms.push({ prefix: toStem(form.prefix), suffix: toStem(form.suffix) });
    }
  }
  if (forms.length === 0) return null;
  const names = new Set<string>();
  for (const mod of facts.program.modules) {
    for (const id of mod.index.identifiers) names.add(id.name);
    for (const value of mod.index.stringValues) names.add(value);
  }
  const stems = new Set<string>();
  for (const name of names) {
    const stem = toStem(name);
    for (const { prefix, suffix } of forms) {
      if (stem.length > prefix.length + suffix.length && stem.startsWith(prefix) && stem.endsWith(suffix)) stems.add(stem.slice(prefix.length, stem.length - suffix.length));
    }
  }
  return stems.size > MAX_STEMS ? 'open' : [...stems].sort();
}

const MAX_STEMS = 2000;

/** The letters and digits of a name, lower-cased: what operations that keep them in order cannot change. */
function toStem(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The key of a computed member read when the program builds it from text (directly, or in a constant it reads), else null. */
function getBuiltKey(index: AstIndex, property: t.Node, depth = 0): t.Node | null {
  const key = unwrapExpression(property);
  if (key.type === 'Identifier' && depth < 3) {
    const binding = resolveIdentifier(index, key);
    if (binding === null || (binding.kind !== 'const' && binding.kind !== 'let') || binding.pattern.length > 0) return null;
    const init = binding.declarator.init;
    if (!init || getBindingWrites(index, binding).length > 0) return null;
    return getBuiltKey(index, init, depth + 1);
  }
  return isBuiltName(index, key) ? key : null;
}

/** A built key's constant text before and after the value it is built from, or null when it is built some other way. */
function getKeyForm(index: AstIndex, key: t.Node): { prefix: string; suffix: string } | null {
  const parts = getConcatParts(index, key);
  if (parts === null) return null;
  const values = parts.flatMap((p, i) => (typeof p === 'string' ? [] : [i]));
  if (values.length === 0 || !keepsLettersOfParts(index, parts, null)) return null;
  return { prefix: parts.slice(0, values[0]).join(''), suffix: parts.slice(values[values.length - 1]! + 1).join('') };
}

/** The texts and values a string concatenation (`+`, a template) is made of, in order; null for a template that does not cook. */
function getConcatParts(index: AstIndex, node: t.Node): (string | t.Node)[] | null {
  const parts: (string | t.Node)[] = [];
  const flatten = (node: t.Node): boolean => {
    const inner = unwrapExpression(node);
    const text = getConstantText(index, inner);
    if (text !== null) return parts.push(text) > 0;
    if (inner.type === 'TemplateLiteral') {
      if (inner.quasis.some((q) => typeof q.value.cooked !== 'string')) return false;
      inner.quasis.forEach((quasi, i) => {
        parts.push(quasi.value.cooked!);
        if (i < inner.expressions.length) parts.push(inner.expressions[i]!);
      });
      return true;
    }
    if (inner.type === 'BinaryExpression' && inner.operator === '+') return flatten(inner.left) && flatten(inner.right);
    return parts.push(inner) > 0;
  };
  return flatten(node) ? parts : null;
}

/**
 * Whether a concatenation keeps the letters and digits of one value in order: one value (kept in order),
 * or one value cut in two at the same place and put back (`p.charAt(0).toUpperCase() + p.slice(1)`),
 * with no letters between them. `base`: the name the value must be read from (null: any).
 */
function keepsLettersOfParts(index: AstIndex, parts: (string | t.Node)[], base: string | null): boolean {
  const values = parts.flatMap((p) => (typeof p === 'string' ? [] : [p]));
  const first = parts.findIndex((p) => typeof p !== 'string');
  const last = parts.length - 1 - [...parts].reverse().findIndex((p) => typeof p !== 'string');
  if (parts.slice(first, last + 1).some((p) => typeof p === 'string' && toStem(p) !== '')) return false;
  if (values.length === 1) return keepsLettersInOrder(index, values[0]!, base);
  if (values.length !== 2) return false;
  const head = getCut(values[0]!, 'head');
  const tail = getCut(values[1]!, 'tail');
  return head !== null && tail !== null && head.at === tail.at && head.base === tail.base && (base === null || head.base === base);
}

/**
 * A value's first `at` characters (`p.charAt(0)`, `p[0]`, `p.slice(0, 2)`, case changed or not) or the
 * rest from `at` (`p.slice(1)`, `p.substring(1)`): the name it is read from and the place of the cut.
 */
function getCut(node: t.Node, side: 'head' | 'tail'): { base: string; at: number } | null {
  let inner = unwrapExpression(node);
  while (isCaseChange(inner)) inner = unwrapExpression(((inner as t.CallExpression).callee as t.MemberExpression).object);
  if (side === 'head' && inner.type === 'MemberExpression' && inner.computed && inner.object.type === 'Identifier' && getNumericValue(inner.property) === 0) return { base: inner.object.name, at: 1 };
  if (inner.type !== 'CallExpression' || inner.callee.type !== 'MemberExpression' || inner.callee.computed || inner.callee.property.type !== 'Identifier' || inner.callee.object.type !== 'Identifier') return null;
  const base = inner.callee.object.name;
  const method = inner.callee.property.name;
  const args = inner.arguments.map((a) => getNumericValue(a));
  if (args.some((a) => a === null || a < 0 || !Number.isInteger(a))) return null;
  if (side === 'head') {
    if ((method === 'charAt' || method === 'at') && args.length === 1 && args[0] === 0) return { base, at: 1 };
    if ((method === 'slice' || method === 'substring' || method === 'substr') && args.length === 2 && args[0] === 0 && args[1]! > 0) return { base, at: args[1]! };
    return null;
  }
  if ((method === 'slice' || method === 'substring' || method === 'substr') && args.length === 1 && args[0]! > 0) return { base, at: args[0]! };
  return null;
}

function isCaseChange(node: t.Node): boolean {
  if (node.type !== 'CallExpression' || node.arguments.length > 0) return false;
  const callee = node.callee;
  return callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier' && CASE_CHANGES.has(callee.property.name);
}

const CASE_CHANGES = new Set(['toLowerCase', 'toUpperCase', 'toLocaleLowerCase', 'toLocaleUpperCase']);

/**
 * A value, or one derived from it by operations that keep its letters and digits in order and add none:
 * case changes, `trim`, replacing punctuation by punctuation, `split(sep)` then `join(other)`, with a
 * `map` between them whose function keeps each part's letters so. `base`: the name the value must be read from (null: any).
 */
function keepsLettersInOrder(index: AstIndex, node: t.Node, base: string | null, depth = 0): boolean {
  const inner = unwrapExpression(node);
  if (inner.type === 'Identifier') return base === null ? isReadValue(index, inner, depth) : inner.name === base;
  // a field of an object (`msg.method`): the value as it was read
  if ((inner.type === 'MemberExpression' || inner.type === 'OptionalMemberExpression') && !inner.computed) return base === null;
  if (inner.type === 'BinaryExpression' || inner.type === 'TemplateLiteral') {
    const parts = inner.type === 'TemplateLiteral' || inner.operator === '+' ? getConcatParts(index, inner) : null;
    return parts !== null && keepsLettersOfParts(index, parts, base);
  }
  if (inner.type !== 'CallExpression' && inner.type !== 'OptionalCallExpression') return false;
  const callee = inner.callee;
  if ((callee.type !== 'MemberExpression' && callee.type !== 'OptionalMemberExpression') || callee.computed || callee.property.type !== 'Identifier') return false;
  const args = inner.arguments;
  switch (callee.property.name) {
    case 'toLowerCase':
    case 'toUpperCase':
    case 'toLocaleLowerCase':
    case 'toLocaleUpperCase':
    case 'trim':
      return args.length === 0 && keepsLettersInOrder(index, callee.object, base, depth);
    case 'replace':
    case 'replaceAll':
      return args.length === 2 && matchesNoLetters(args[0]!) && addsNoLetters(args[1]!) && keepsLettersInOrder(index, callee.object, base, depth);
    case 'join': {
      // parts.split(sep)[.map(part => ...)].join(other): the letters in order, the separators changed
      if (args.length > 1 || (args.length === 1 && !addsNoLetters(args[0]!))) return false;
      let split = unwrapExpression(callee.object);
      if (isMemberCall(split, 'map')) {
        const fn = split.arguments.length === 1 ? split.arguments[0]! : null;
        if (fn === null || !mapsKeepLetters(index, fn)) return false;
        split = unwrapExpression((split.callee as t.MemberExpression).object);
      }
      return isMemberCall(split, 'split') && split.arguments.length === 1 && matchesNoLetters(split.arguments[0]!) && keepsLettersInOrder(index, (split.callee as t.MemberExpression).object, base, depth);
    }
    default:
      return false;
  }
}

/**
 * A name holding a value as it was read (a parameter, a destructured field, a catch or loop variable), or
 * a constant whose value keeps the letters of one so (`const name = method.replace('/', '_')`); not one
 * computed some other way (`const name = method.split('/')[1]`, `ALIASES[method]`) or assigned again.
 */
function isReadValue(index: AstIndex, id: t.Identifier, depth: number): boolean {
  const binding = resolveIdentifier(index, id);
  if (binding === null) return false;
  if (getBindingWrites(index, binding).length > 0) return false;
  if (binding.kind === 'param' || binding.kind === 'catch') return true;
  if (binding.kind !== 'const' && binding.kind !== 'let' && binding.kind !== 'var') return false;
  if (binding.pattern.length > 0) return true;
  const init = binding.declarator.init;
  if (init === null || init === undefined) return binding.declarator.id.type === 'Identifier' && isLoopVariable(index, binding.declarator);
  return depth < 4 && keepsLettersInOrder(index, init, null, depth + 1);
}

/** A declarator of a `for (const x of ...)` / `for (const x in ...)` loop: its value is read from what it loops over. */
function isLoopVariable(index: AstIndex, declarator: t.VariableDeclarator): boolean {
  const declaration = index.parent.get(declarator);
  const loop = declaration === undefined ? undefined : index.parent.get(declaration);
  return loop !== undefined && (loop.type === 'ForOfStatement' || loop.type === 'ForInStatement') && loop.left === declaration;
}

function isMemberCall(node: t.Node, name: string): node is t.CallExpression {
  return node.type === 'CallExpression' && node.callee.type === 'MemberExpression' && !node.callee.computed && node.callee.property.type === 'Identifier' && node.callee.property.name === name;
}

/** A function given to `map` that keeps the letters of the part it is given in order (`(p) => p.charAt(0).toUpperCase() + p.slice(1)`). */
function mapsKeepLetters(index: AstIndex, fn: t.Node): boolean {
  if (fn.type !== 'ArrowFunctionExpression' && fn.type !== 'FunctionExpression') return false;
  const param = fn.params[0];
  if (param === undefined || param.type !== 'Identifier') return false;
  const body = fn.body.type === 'BlockStatement' ? (fn.body.body.length === 1 && fn.body.body[0]!.type === 'ReturnStatement' ? fn.body.body[0]!.argument : null) : fn.body;
  return body !== null && body !== undefined && keepsLettersInOrder(index, body, param.name);
}

/** A string or pattern argument that can only match characters other than letters and digits. */
function matchesNoLetters(node: t.Node): boolean {
  const text = getStringValue(node);
  if (text !== null) return text.length > 0 && toStem(text) === '';
  // escaped punctuation and sets of it (`/\//g`, `/[\/.]/g`): no letter, digit or class escape (`\w`)
  // anywhere, no wildcard (`.`) or negated set (`[^_]`) outside escapes
  if (node.type === 'RegExpLiteral') {
    if (/[A-Za-z0-9]/.test(node.pattern)) return false;
    const unescaped = node.pattern.replace(/\\./g, '').replace(/\[[^\]]*\]/g, (set) => (set.startsWith('[^') ? '.' : ''));
    return !unescaped.includes('.');
  }
  return false;
}

/** A replacement or separator that adds no letters or digits (`'_'`, `''`, `'-'`; no `$1`). */
function addsNoLetters(node: t.Node): boolean {
  const text = getStringValue(node);
  return text !== null && toStem(text) === '' && !text.includes('$');
}

const STRING_BUILDERS = new Set(['replace', 'replaceAll', 'join', 'concat', 'toLowerCase', 'toUpperCase', 'slice', 'substring', 'substr', 'trim', 'padStart', 'padEnd']);

/** A member key built from text (`'on' + name`, `` `handle_${m}` ``, `name.replace(...)`), not an index (`d.getDay()`). */
function isBuiltName(index: AstIndex, key: t.Node): boolean {
  if (key.type === 'TemplateLiteral') return key.expressions.length > 0;
  // a string operation's result (`name.replace('/', '_')`, `parts.join('')`), not an index (`d.getDay()`)
  if (key.type === 'CallExpression') {
    const callee = key.callee;
    return callee.type === 'MemberExpression' && callee.property.type === 'Identifier' && STRING_BUILDERS.has(callee.property.name);
  }
  // text joined to something (`'on' + name`, `PREFIX + name`), not a sum (`i + 1`)
  if (key.type === 'BinaryExpression' && key.operator === '+') return [key.left, key.right].some((side) => side.type === 'StringLiteral' || side.type === 'TemplateLiteral' || holdsText(index, side) || isBuiltName(index, side));
  return false;
}

/** A name declared with text (`const PREFIX = 'handle_'`; also `let prefix = 'on'`, whatever it is given later). */
function holdsText(index: AstIndex, node: t.Node): boolean {
  if (node.type !== 'Identifier') return false;
  const binding = resolveIdentifier(index, node);
  if (binding === null || (binding.kind !== 'const' && binding.kind !== 'let' && binding.kind !== 'var') || binding.pattern.length > 0) return false;
  const init = binding.declarator.init;
  return init !== null && init !== undefined && (getStringValue(init) !== null || init.type === 'TemplateLiteral');
}

/** The text a node holds for certain: a string literal, or a name declared with one and never assigned again. */
function getConstantText(index: AstIndex, node: t.Node): string | null {
  const text = getStringValue(node);
  if (text !== null || node.type !== 'Identifier') return text;
  const binding = resolveIdentifier(index, node);
  if (binding === null || (binding.kind !== 'const' && binding.kind !== 'let' && binding.kind !== 'var') || binding.pattern.length > 0) return null;
  const init = binding.declarator.init;
  if (init === null || init === undefined || getBindingWrites(index, binding).length > 0) return null;
  return getStringValue(init);
}

/** Every string of the program that could name a method (`tools/list`, `notes/search`, `ping`): the boundary never refuses one. */
export function getNamedMethods(facts: FileFacts): string[] {
  const named = new Set<string>();
  for (const mod of facts.program.modules) for (const value of mod.index.stringValues) if (METHOD_LIKE.test(value) || isMcpRequestMethod(value)) named.add(value);
  return [...named].sort();
}

const METHOD_LIKE = /^[A-Za-z_$][\w.$-]*(?:\/[\w.$-]+)+$/;
