// Read-only: why a hand-rolled JSON-RPC server cannot be moved onto the SDK one-to-one, as one of
// the ENVELOPE_REASONS codes, with the line that shows it. Called only on files already known to be
// hand-rolled servers, and checked in the table's order (framing first: it decides the transport).
// Deliberately not: whether the file is a server at all, or anything the SDK rewrite can follow —
// a plain `handlers[msg.method]` lookup or a tool array filtered from config is not a reason.
import type { CallExpression, Expression, File, Node } from '@babel/types';
import type { EnvelopeReason } from '../model/envelope-reasons.js';
import { findReplyWrites, findStdoutWrites } from './envelope-io.js';
import { buildParentMap, getPropertyName, isFunctionNode, isIdentifierNamed, unwrapExpression, walk } from './envelope-walk.js';

export interface EnvelopeSignal {
  reason: EnvelopeReason;
  line: number;
  detail: string;
}

export function findEnvelopeReason(ast: File, source: string): EnvelopeSignal | null {
  return (
    getContentLengthSignal(ast) ??
    getComputedDispatchSignal(ast, source) ??
    getToolListSignal(ast, source) ??
    getMultipleWritesSignal(ast, source)
  );
}

// ---------------------------------------------------------------- CONTENT_LENGTH_FRAMING

const CONTENT_LENGTH = /content-length/i;
/** The header as it is on the wire: `Content-Length:` (an HTTP `setHeader('Content-Length', n)` has no colon). */
const CONTENT_LENGTH_HEADER = /content-length\s*:/i;

function getContentLengthSignal(ast: File): EnvelopeSignal | null {
  let written: number | null = null;
  for (const write of findStdoutWrites(ast)) {
    if (written === null && mentions(write.call, CONTENT_LENGTH)) written = lineOf(write.call);
  }
  let parsed: number | null = null;
  walk(ast, (node) => {
    if (parsed !== null) return 'skip';
    if (node.type === 'RegExpLiteral' && CONTENT_LENGTH.test(node.pattern)) parsed = lineOf(node);
    if (node.type === 'StringLiteral' && CONTENT_LENGTH_HEADER.test(node.value)) parsed = lineOf(node);
    if (node.type === 'TemplateElement' && CONTENT_LENGTH_HEADER.test(node.value.raw)) written ??= lineOf(node);
    return undefined;
  });
  if (written === null && parsed === null) return null;
  const parts = [written === null ? null : `header written at line ${written}`, parsed === null ? null : `read at line ${parsed}`].filter((p) => p !== null);
  return {
    reason: 'CONTENT_LENGTH_FRAMING',
    line: Math.min(...[written, parsed].filter((n): n is number => n !== null)),
    detail: `messages are framed with Content-Length headers (${parts.join(', ')}), which the SDK stdio transport does not speak`,
  };
}

function mentions(root: Node, pattern: RegExp): boolean {
  let found = false;
  walk(root, (node) => {
    if (found) return 'skip';
    if (node.type === 'StringLiteral' && pattern.test(node.value)) found = true;
    if (node.type === 'TemplateElement' && pattern.test(node.value.raw)) found = true;
    return undefined;
  });
  return found;
}

// ---------------------------------------------------------------- COMPUTED_DISPATCH

/**
 * `this['on' + camel(msg.method)]`, `handlers[msg.method.toLowerCase()]`, or `handlers[key]` with
 * `const key = 'on' + camel(method)`: a handler looked up by a name computed from the method, and
 * then called. A plain `handlers[msg.method]` is not computed: the SDK rewrite follows it.
 */
function getComputedDispatchSignal(ast: File, source: string): EnvelopeSignal | null {
  const parents = buildParentMap(ast);
  const computedKeys = getComputedKeyVariables(ast);
  let found: EnvelopeSignal | null = null;
  walk(ast, (node) => {
    if (found !== null) return 'skip';
    if ((node.type !== 'MemberExpression' && node.type !== 'OptionalMemberExpression') || !node.computed) return undefined;
    const key = unwrapExpression(node.property);
    const computed = (isTransformed(key) && mentionsMethod(key)) || (key.type === 'Identifier' && computedKeys.has(key.name));
    if (!computed || !isCalledLater(node, parents)) return undefined;
    found = {
      reason: 'COMPUTED_DISPATCH',
      line: lineOf(node),
      detail: `handlers are looked up by a computed name: ${snippet(source, node)} (line ${lineOf(node)})`,
    };
    return 'skip';
  });
  return found;
}

/** Names of variables that hold a name computed from the method: `const name = 'on' + camel(method)`. */
function getComputedKeyVariables(ast: File): Set<string> {
  const names = new Set<string>();
  walk(ast, (node) => {
    if (node.type === 'VariableDeclarator' && node.id.type === 'Identifier' && node.init) {
      const init = unwrapExpression(node.init);
      if (isTransformed(init) && mentionsMethod(init)) names.add(node.id.name);
    }
  });
  return names;
}

/** The key is built from something (concatenation, template, function call), not the value itself. */
function isTransformed(key: Node): boolean {
  return key.type === 'BinaryExpression' || key.type === 'CallExpression' || (key.type === 'TemplateLiteral' && key.expressions.length > 0);
}

function mentionsMethod(root: Node): boolean {
  let found = false;
  walk(root, (node) => {
    if (found) return 'skip';
    if ((node.type === 'MemberExpression' || node.type === 'OptionalMemberExpression') && getPropertyName(node) === 'method') found = true;
    if (isIdentifierNamed(node, 'method')) found = true;
    return undefined;
  });
  return found;
}

/** The looked-up value is called: directly, through .call/.apply, or via a variable that is called. */
function isCalledLater(member: Node, parents: Map<Node, Node>): boolean {
  const parent = parents.get(member);
  if (parent === undefined) return false;
  if ((parent.type === 'CallExpression' || parent.type === 'OptionalCallExpression') && parent.callee === member) return true;
  if (parent.type === 'MemberExpression' && parent.object === member && ['call', 'apply', 'bind'].includes(getPropertyName(parent) ?? '')) return true;
  let variable: string | null = null;
  if (parent.type === 'VariableDeclarator' && parent.init === member && parent.id.type === 'Identifier') variable = parent.id.name;
  if (parent.type === 'AssignmentExpression' && parent.right === member && parent.left.type === 'Identifier') variable = parent.left.name;
  if (variable === null) return false;
  let scope: Node | undefined = parent;
  while (scope !== undefined && !isFunctionNode(scope) && scope.type !== 'Program') scope = parents.get(scope);
  if (scope === undefined) return false;
  const name = variable;
  let called = false;
  walk(scope, (node) => {
    if (called) return 'skip';
    if ((node.type === 'CallExpression' || node.type === 'OptionalCallExpression') && isIdentifierNamed(node.callee, name)) called = true;
    if (node.type === 'MemberExpression' && isIdentifierNamed(node.object, name) && ['call', 'apply'].includes(getPropertyName(node) ?? '')) called = true;
    return undefined;
  });
  return called;
}

// ---------------------------------------------------------------- UNFOLLOWABLE_TOOL_LIST

/**
 * `Object.entries(require('./lib/tools'))` (directly or through a variable), a namespace import fed
 * to Object.entries/keys/values, or modules loaded from a computed path: the tool list is whatever
 * another module exports at run time.
 */
function getToolListSignal(ast: File, source: string): EnvelopeSignal | null {
  const modules = getModuleBindings(ast);
  let found: EnvelopeSignal | null = null;
  walk(ast, (node) => {
    if (found !== null) return 'skip';
    if (node.type !== 'CallExpression') return undefined;
    const dynamic = getDynamicLoad(node);
    if (dynamic !== null) {
      found = { reason: 'UNFOLLOWABLE_TOOL_LIST', line: lineOf(node), detail: `modules are loaded from a computed path: ${snippet(source, node)} (line ${lineOf(node)})` };
      return 'skip';
    }
    const enumerated = getEnumeratedObject(node);
    if (enumerated === null) return undefined;
    const target = unwrapExpression(enumerated);
    let origin: string | null = null;
    if (isModuleLoad(target)) origin = snippet(source, target);
    else if (target.type === 'Identifier' && modules.has(target.name)) origin = `${target.name} = ${modules.get(target.name)!}`;
    if (origin === null) return undefined;
    found = {
      reason: 'UNFOLLOWABLE_TOOL_LIST',
      line: lineOf(node),
      detail: `the tool table is built at run time from ${snippet(source, node)} (line ${lineOf(node)}; ${origin})`,
    };
    return 'skip';
  });
  return found;
}

/** `Object.entries(x)` / `Object.keys(x)` / `Object.values(x)`: returns x. */
function getEnumeratedObject(call: CallExpression): Expression | null {
  if (call.callee.type !== 'MemberExpression' || !isIdentifierNamed(call.callee.object, 'Object')) return null;
  if (!['entries', 'keys', 'values'].includes(getPropertyName(call.callee) ?? '')) return null;
  const first = call.arguments[0];
  return first !== undefined && first.type !== 'SpreadElement' && first.type !== 'ArgumentPlaceholder' ? (first as Expression) : null;
}

/** `require('./x')` or `import('./x')` of code (a `.json` file is data, and followable). */
function isModuleLoad(node: Node): boolean {
  const inner = node.type === 'AwaitExpression' ? unwrapExpression(node.argument) : node;
  if (inner.type === 'CallExpression' && (isIdentifierNamed(inner.callee, 'require') || inner.callee.type === 'Import')) {
    const arg = inner.arguments[0];
    return arg?.type === 'StringLiteral' && !arg.value.endsWith('.json');
  }
  return inner.type === 'ImportExpression' && inner.source.type === 'StringLiteral' && !inner.source.value.endsWith('.json');
}

/** `require(path.join(dir, file))`, `import(url)`: a module chosen at run time. */
function getDynamicLoad(call: CallExpression): Node | null {
  if (!isIdentifierNamed(call.callee, 'require') && call.callee.type !== 'Import') return null;
  const arg = call.arguments[0];
  if (arg === undefined || arg.type === 'StringLiteral') return null;
  if (arg.type === 'TemplateLiteral' && arg.expressions.length === 0) return null;
  return arg;
}

/** Variables holding a whole module: `const tools = require('./tools')`, `import * as tools from './tools.js'`. */
function getModuleBindings(ast: File): Map<string, string> {
  const modules = new Map<string, string>();
  walk(ast, (node) => {
    if (node.type === 'VariableDeclarator' && node.id.type === 'Identifier' && node.init && isModuleLoad(unwrapExpression(node.init))) {
      const init = unwrapExpression(node.init);
      const call = init.type === 'AwaitExpression' ? init.argument : init;
      const arg = call.type === 'CallExpression' ? call.arguments[0] : call.type === 'ImportExpression' ? call.source : undefined;
      modules.set(node.id.name, `${call.type === 'CallExpression' && isIdentifierNamed(call.callee, 'require') ? 'require' : 'import'}(${arg?.type === 'StringLiteral' ? `'${arg.value}'` : '...'})`);
    }
    if (node.type === 'ImportDeclaration' && node.source.value.startsWith('.')) {
      for (const specifier of node.specifiers) {
        if (specifier.type === 'ImportNamespaceSpecifier') modules.set(specifier.local.name, `import * from '${node.source.value}'`);
      }
    }
  });
  return modules;
}

// ---------------------------------------------------------------- MULTIPLE_WRITES_PER_REQUEST

/** Two replies written one after the other in the same block: one request, two answers. */
function getMultipleWritesSignal(ast: File, source: string): EnvelopeSignal | null {
  const writes = new Set<Node>(findReplyWrites(ast, source));
  if (writes.size < 2) return null;
  let found: EnvelopeSignal | null = null;
  walk(ast, (node) => {
    if (found !== null) return 'skip';
    const list = node.type === 'BlockStatement' || node.type === 'Program' ? node.body : node.type === 'SwitchCase' ? node.consequent : null;
    if (list === null) return undefined;
    const writing = list.filter((statement) => {
      if (statement.type !== 'ExpressionStatement') return false;
      const expression = unwrapExpression(statement.expression);
      return writes.has(expression.type === 'AwaitExpression' ? unwrapExpression(expression.argument) : expression);
    });
    if (writing.length < 2) return undefined;
    found = {
      reason: 'MULTIPLE_WRITES_PER_REQUEST',
      line: lineOf(writing[1]!),
      detail: `one branch writes ${writing.length} replies (lines ${writing.map(lineOf).join(', ')})`,
    };
    return 'skip';
  });
  return found;
}

// ---------------------------------------------------------------- helpers

function lineOf(node: Node): number {
  return node.loc?.start.line ?? 0;
}

function snippet(source: string, node: Node): string {
  const text = source.slice(node.start ?? 0, node.end ?? 0).replace(/\s+/g, ' ');
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
