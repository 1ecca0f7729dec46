// Recognising replies: writer helpers (`send(msg)`, `reply(id, result)`, `out(obj)`) and the
// `{ jsonrpc, id, result | error }` objects that reach stdout through them. Read-only.
import * as t from '@babel/types';
import type { Reply } from '../model/server-model.js';
import {
  getKeyName,
  getMemberChain,
  getSerializedValue,
  getStaticNumber,
  getStdoutWriteKind,
  findNamedFunctions,
  walk,
  getWrittenArgument,
  unwrapExpression,
  type StdoutWriteKind,
} from './ast.js';

/** A function whose whole job is to serialise something to stdout. */
export interface WriterHelper {
  /** `send` for a function, `this.send` for a class method. */
  name: string;
  declaration: t.Node;
  params: string[];
  /** The serialised expression, in terms of the parameters. */
  template: t.Expression;
  writeKind: StdoutWriteKind;
}

/** Finds writer helpers: named functions anywhere in the file (unambiguous names) and class methods. */
export function findWriterHelpers(program: t.Program): Map<string, WriterHelper> {
  const writers = new Map<string, WriterHelper>();
  const candidates: [string, t.Node, t.Function][] = [];
  const consider = (name: string, declaration: t.Node, fn: t.Function) => {
    candidates.push([name, declaration, fn]);
    const helper = getWriterHelper(name, declaration, fn);
    if (helper) writers.set(name, helper);
  };
  for (const [name, entry] of findNamedFunctions(program)) {
    if (entry) consider(name, entry.declaration, entry.fn);
  }
  walk(program, (node) => {
    if (!t.isClassDeclaration(node) && !t.isClassExpression(node)) return true;
    for (const member of node.body.body) {
      if (t.isClassMethod(member) && member.kind === 'method') {
        const key = getKeyName(member);
        if (key) consider(`this.${key}`, member, member);
      }
    }
    return true;
  });
  // A helper whose name is assigned elsewhere (`send = other`) might not be the function we read: not proven.
  const reassigned = new Set<string>();
  walk(program, (node) => {
    if (t.isAssignmentExpression(node) && t.isIdentifier(node.left)) reassigned.add(node.left.name);
    return true;
  });
  for (const name of reassigned) writers.delete(name);
  // ok(id, result) { write({ jsonrpc: '2.0', id, result }) } where write(message) serialises its argument.
  for (let changed = true; changed; ) {
    changed = false;
    for (const [name, declaration, fn] of candidates) {
      if (writers.has(name) || reassigned.has(name)) continue;
      const helper = getChainedWriterHelper(name, declaration, fn, writers);
      if (helper) {
        writers.set(name, helper);
        changed = true;
      }
    }
  }
  return writers;
}

function getWriterHelper(name: string, declaration: t.Node, fn: t.Function): WriterHelper | null {
  const params: string[] = [];
  for (const param of fn.params) {
    if (!t.isIdentifier(param)) return null;
    params.push(param.name);
  }
  let expression: t.Node | null = null;
  if (t.isBlockStatement(fn.body)) {
    if (fn.body.body.length !== 1) return null;
    const only = fn.body.body[0]!;
    if (t.isExpressionStatement(only)) expression = only.expression;
    else if (t.isReturnStatement(only) && only.argument) expression = only.argument;
  } else {
    expression = fn.body;
  }
  if (!expression || !t.isCallExpression(expression)) return null;
  const writeKind = getStdoutWriteKind(expression);
  if (!writeKind) return null;
  const template = getSerializedValue(getWrittenArgument(expression, writeKind));
  if (!template) return null;
  return { name, declaration, params, template, writeKind };
}

function getChainedWriterHelper(name: string, declaration: t.Node, fn: t.Function, writers: Map<string, WriterHelper>): WriterHelper | null {
  if (!fn.params.every((p) => t.isIdentifier(p))) return null;
  const params = fn.params.map((p) => (p as t.Identifier).name);
  const body = t.isBlockStatement(fn.body) ? fn.body.body : [t.expressionStatement(fn.body)];
  if (body.length !== 1) return null;
  const only = body[0]!;
  const call = t.isExpressionStatement(only) ? only.expression : t.isReturnStatement(only) ? only.argument : null;
  if (!call || !t.isCallExpression(call)) return null;
  const inner = writers.get(getMemberChain(call.callee) ?? '');
  if (!inner || !t.isIdentifier(inner.template)) return null;
  const index = inner.params.indexOf(inner.template.name);
  const argument = call.arguments[index];
  if (!argument || !t.isExpression(argument)) return null;
  return { name, declaration, params, template: argument, writeKind: inner.writeKind };
}

/** `send` / `this.send` for the callee of a call, matching the helper table's keys. */
export function getCalleeName(call: t.CallExpression): string | null {
  return getMemberChain(call.callee);
}

export type ReplyAnalysis =
  | { kind: 'reply'; reply: Reply; writeKind: StdoutWriteKind }
  | { kind: 'not-a-reply' }
  | { kind: 'unknown-shape' };

/**
 * What a call writes, if it is a reply: an inline stdout write of `JSON.stringify(obj)` or a call to a
 * writer helper. `site` is the statement the reply stands in.
 */
export function analyzeReplyCall(call: t.CallExpression, site: t.Node, writers: Map<string, WriterHelper>): ReplyAnalysis {
  const writeKind = getStdoutWriteKind(call);
  if (writeKind) {
    const value = getSerializedValue(getWrittenArgument(call, writeKind));
    if (!value) return { kind: 'not-a-reply' };
    return toAnalysis(getReplyFromValue(value, new Map(), site), writeKind);
  }
  const name = getCalleeName(call);
  const helper = name ? writers.get(name) : undefined;
  if (!helper) return { kind: 'not-a-reply' };
  const substitution = new Map<string, t.Node | null>();
  helper.params.forEach((param, index) => {
    const arg = call.arguments[index];
    substitution.set(param, arg && t.isExpression(arg) ? arg : null);
  });
  return toAnalysis(getReplyFromValue(helper.template, substitution, site), helper.writeKind);
}

function toAnalysis(reply: Reply | null, writeKind: StdoutWriteKind): ReplyAnalysis {
  return reply ? { kind: 'reply', reply, writeKind } : { kind: 'unknown-shape' };
}

/** A reply object `{ jsonrpc?, id, result }` / `{ ..., error }`, with helper parameters substituted. */
export function getReplyFromValue(value: t.Node, substitution: Map<string, t.Node | null>, site: t.Node): Reply | null {
  const top = resolve(value, substitution);
  if (!top || !top.node || !t.isObjectExpression(top.node)) return null;
  const props = getEnvelopeProperties(top.node, top.substitution);
  if (!props) return null;
  if (props.has('result')) {
    const [node, sub] = props.get('result')!;
    const result = resolve(node, sub);
    return result ? { kind: 'result', site, value: result.node } : null;
  }
  if (props.has('error')) {
    const [node, sub] = props.get('error')!;
    const error = resolve(node, sub);
    if (!error || !error.node) return null;
    if (t.isStringLiteral(error.node)) return { kind: 'error', site, code: null, message: null, data: null, rawText: error.node.value };
    if (!t.isObjectExpression(error.node)) return null;
    const errorProps = getPlainProperties(error.node);
    if (!errorProps) return null;
    const pick = (key: string): t.Node | null => {
      const node = errorProps.get(key);
      return node ? (resolve(node, error.substitution)?.node ?? null) : null;
    };
    return { kind: 'error', site, code: pick('code'), message: pick('message'), data: pick('data'), rawText: null };
  }
  return null;
}

interface Resolved {
  node: t.Node | null;
  /** Substitution that still applies below this node (empty once we are inside a call argument). */
  substitution: Map<string, t.Node | null>;
}

const NO_SUBSTITUTION = new Map<string, t.Node | null>();

/**
 * A helper-template node with parameters replaced by call arguments. Null when the node refers to
 * something that only exists inside the helper (it cannot be moved to the call site).
 */
function resolve(node: t.Node, substitution: Map<string, t.Node | null>): Resolved | null {
  if (substitution.size === 0) return { node, substitution };
  const inner = unwrapExpression(node);
  if (t.isIdentifier(inner)) {
    return substitution.has(inner.name) ? { node: substitution.get(inner.name)!, substitution: NO_SUBSTITUTION } : null;
  }
  if (t.isObjectExpression(inner) || isLiteral(inner)) return { node: inner, substitution };
  return null;
}

/**
 * Properties of a reply object with the substitution that applies to each. A spread of a helper
 * parameter (`{ jsonrpc: '2.0', id, ...body }`) merges the argument object's properties.
 */
function getEnvelopeProperties(object: t.ObjectExpression, substitution: Map<string, t.Node | null>): Map<string, [t.Node, Map<string, t.Node | null>]> | null {
  const props = new Map<string, [t.Node, Map<string, t.Node | null>]>();
  for (const prop of object.properties) {
    if (t.isSpreadElement(prop)) {
      const spread = resolve(prop.argument, substitution);
      if (!spread || !spread.node || !t.isObjectExpression(spread.node) || spread.node === object) return null;
      const inner = getEnvelopeProperties(spread.node, spread.substitution);
      if (!inner) return null;
      for (const [key, value] of inner) props.set(key, value);
      continue;
    }
    if (!t.isObjectProperty(prop)) return null;
    const key = getKeyName(prop);
    if (key === null) return null;
    props.set(key, [prop.value, substitution]);
  }
  return props;
}

/** Property values by key; null when the object has spreads, computed keys or methods. */
export function getPlainProperties(object: t.ObjectExpression): Map<string, t.Node> | null {
  const props = new Map<string, t.Node>();
  for (const prop of object.properties) {
    if (!t.isObjectProperty(prop)) return null;
    const key = getKeyName(prop);
    if (key === null) return null;
    props.set(key, prop.value);
  }
  return props;
}

function isLiteral(node: t.Node): boolean {
  return (
    t.isStringLiteral(node) ||
    t.isNumericLiteral(node) ||
    t.isBooleanLiteral(node) ||
    t.isNullLiteral(node) ||
    getStaticNumber(node) !== null ||
    (t.isTemplateLiteral(node) && node.expressions.length === 0)
  );
}
