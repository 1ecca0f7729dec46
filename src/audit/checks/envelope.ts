// The envelope of each written message: `jsonrpc`, `id`, and the shape of `error`.
//   { id, result }                         -> missing-jsonrpc
//   { jsonrpc: '2.0', id: msg.id || null } -> wrong-id (id 0 becomes null)
//   { jsonrpc: '2.0', id, error: 'nope' }  -> nonstandard-error
import type * as t from '@babel/types';
import { code, getNumericValue, getSnippet, getStringValue, resolveIdentifier, unwrapExpression } from '../../analysis/ast.js';
import type { FileFacts } from '../facts.js';
import { isInRegion } from '../facts.js';
import type { Value, ValueOptions } from '../flow.js';
import { isIdAbsenceTest, isIdPresenceTest } from '../guards.js';
import { isReply, type MessageInstance } from '../messages.js';
import type { Check, RawFinding } from './check.js';

const SPLIT: ValueOptions = { split: true, followCalls: true, expandCallers: true };
const FOLLOW: ValueOptions = { split: false, followCalls: true, expandCallers: true };

/** Codes a JSON-RPC reply may pair with `id: null` (the request's id could not be read). */
const NULL_ID_CODES = new Set([-32700, -32600]);

function isOutgoing(message: MessageInstance): boolean {
  if (isReply(message)) return true;
  const method = message.members.get('method');
  return method !== undefined && getStringValue(method.value) !== null && (message.members.has('params') || message.members.has('id'));
}

export const checkMissingJsonrpc: Check = (facts) => {
  const out: RawFinding[] = [];
  for (const message of facts.messages) {
    if (!isOutgoing(message)) continue;
    const member = message.members.get('jsonrpc');
    if (!member) {
      if (!message.open) {
        out.push({
          rule: 'missing-jsonrpc',
          node: message.object,
          message: `${code(getSnippet(facts.index, message.object, 50))} is written without "jsonrpc": "2.0"`,
        });
      }
      continue;
    }
    for (const value of facts.flow.getValues(member.value, member.env, SPLIT)) {
      const text = getStringValue(value.node);
      const number = getNumericValue(value.node);
      if (number !== null) {
        out.push({ rule: 'missing-jsonrpc', node: value.node, message: `"jsonrpc" is the number ${number}; it must be the string "2.0"` });
      } else if (text !== null && text !== '2.0') {
        out.push({ rule: 'missing-jsonrpc', node: value.node, message: `"jsonrpc" is ${JSON.stringify(text)}; it must be "2.0"` });
      }
    }
  }
  return out;
};

export const checkWrongId: Check = (facts) => {
  const out: RawFinding[] = [];
  for (const message of facts.messages) {
    if (!isReply(message)) continue;
    const member = message.members.get('id')!;
    for (const value of facts.flow.getValues(member.value, member.env, FOLLOW)) {
      const problem = getIdProblem(facts, value, message);
      if (problem) out.push({ rule: 'wrong-id', node: value.node, message: problem });
    }
  }
  return out;
};

function getIdProblem(facts: FileFacts, value: Value, message: MessageInstance): string | null {
  const node = unwrapExpression(value.node);
  const shown = code(getSnippet(facts.index, node));
  switch (node.type) {
    case 'NullLiteral':
      return isNullIdAllowed(facts, message) ? null : 'the reply has `id: null` but answers a request that has an id; echo the request id';
    case 'Identifier':
      if (node.name === 'undefined' && !resolveIdentifier(facts.index, node)) return 'the reply has `id: undefined`, so it is written without an id';
      return null;
    case 'NumericLiteral':
    case 'StringLiteral':
    case 'TemplateLiteral':
    case 'UnaryExpression':
      if (node.type === 'TemplateLiteral' && node.expressions.length > 0) return `the reply id is ${shown}: a string built from the id is not the id`;
      if (node.type === 'UnaryExpression' && getNumericValue(node) === null) return `the reply id is ${shown}: converting the id changes it`;
      if (isInParseCatch(facts, message)) return `a parse error is answered with id ${shown}; it must be answered with id null`;
      return `the reply id is hard-coded (${shown}); echo the request id`;
    case 'LogicalExpression':
      if (node.operator === '??') {
        const fallback = unwrapExpression(node.right);
        if (fallback.type === 'NullLiteral' || (fallback.type === 'Identifier' && fallback.name === 'undefined')) return null;
        return `the reply id is ${shown}: a missing id is replaced by a made-up one`;
      }
      return `the reply id is ${shown}: a request with id 0 (or "") is answered with another id`;
    case 'ConditionalExpression':
      if (isIdAbsenceTest(facts.index, node.test) || isIdPresenceTest(facts.index, node.test)) return null;
      return `the reply id is ${shown}: some valid ids (numbers or strings) are replaced`;
    case 'CallExpression': {
      const callee = unwrapExpression(node.callee);
      const name = callee.type === 'Identifier' ? callee.name : callee.type === 'MemberExpression' && callee.property.type === 'Identifier' ? callee.property.name : '';
      if (['Number', 'String', 'parseInt', 'parseFloat', 'BigInt', 'toString', 'toFixed'].includes(name)) {
        return `the reply id is ${shown}: converting the id changes its type; echo it unchanged`;
      }
      return null;
    }
    case 'BinaryExpression':
      return `the reply id is ${shown}: it is computed, not the request id`;
    default:
      return null;
  }
}

function isInParseCatch(facts: FileFacts, message: MessageInstance): boolean {
  const regions: t.Node[] = [];
  for (const parse of facts.messageParses) {
    if (parse.tryStatement?.handler) regions.push(parse.tryStatement.handler.body);
  }
  return regions.length > 0 && message.chain.some((n) => isInRegion(n, regions));
}

function isNullIdAllowed(facts: FileFacts, message: MessageInstance): boolean {
  if (isInParseCatch(facts, message)) return true;
  if (message.members.has('result')) return false;
  const codes = getErrorCodes(facts, message);
  if (codes.unknown || codes.values.length === 0) return true;
  return codes.values.some((c) => NULL_ID_CODES.has(c.value));
}

/** The integer codes a message's `error.code` can take, and whether some could not be read. */
export function getErrorCodes(facts: FileFacts, message: MessageInstance): { values: { value: number; node: t.Node }[]; unknown: boolean } {
  const member = message.members.get('error');
  const values: { value: number; node: t.Node }[] = [];
  let unknown = false;
  if (!member) return { values, unknown: true };
  for (const error of facts.flow.getValues(member.value, member.env, SPLIT)) {
    if (error.node.type !== 'ObjectExpression') {
      unknown = true;
      continue;
    }
    const codeProp = findProperty(error.node, 'code');
    if (!codeProp) {
      unknown = true;
      continue;
    }
    for (const codeValue of facts.flow.getValues(codeProp, error.env, SPLIT)) {
      const number = getNumericValue(codeValue.node);
      if (number === null) unknown = true;
      else values.push({ value: number, node: codeValue.node });
    }
  }
  return { values, unknown };
}

function findProperty(object: t.ObjectExpression, key: string): t.Node | null {
  for (const prop of object.properties) {
    if (prop.type !== 'ObjectProperty') continue;
    const k = prop.key;
    const name = !prop.computed && k.type === 'Identifier' ? k.name : k.type === 'StringLiteral' ? k.value : null;
    if (name === key) return prop.value;
  }
  return null;
}

export const checkNonstandardError: Check = (facts) => {
  const out: RawFinding[] = [];
  for (const message of facts.messages) {
    if (!isReply(message)) continue;
    const member = message.members.get('error');
    if (!member) continue;
    for (const value of facts.flow.getValues(member.value, member.env, SPLIT)) {
      out.push(...getErrorProblems(facts, value));
    }
  }
  return out;
};

function getErrorProblems(facts: FileFacts, value: Value): RawFinding[] {
  const node = unwrapExpression(value.node);
  const shown = code(getSnippet(facts.index, node));
  const problem = (message: string, at: t.Node = node): RawFinding[] => [{ rule: 'nonstandard-error', node: at, message }];
  switch (node.type) {
    case 'StringLiteral':
    case 'TemplateLiteral':
      return problem(`the error is a string (${shown}), not { code, message }`);
    case 'NumericLiteral':
    case 'BooleanLiteral':
      return problem(`the error is ${shown}, not { code, message }`);
    case 'BinaryExpression':
      return node.operator === '+' ? problem(`the error is a string (${shown}), not { code, message }`) : [];
    case 'MemberExpression': {
      const name = node.property.type === 'Identifier' && !node.computed ? node.property.name : null;
      return name === 'message' || name === 'stack' ? problem(`the error is a string (${shown}), not { code, message }`) : [];
    }
    case 'NewExpression':
      return problem(`the error is ${shown}: an Error object is written as {}, without code or message`);
    case 'Identifier': {
      const binding = resolveIdentifier(facts.index, node);
      // Code that throws plain `{ code, message }` objects catches them back intact.
      const throwsObjects = facts.index.throws.some((s) => unwrapExpression(s.argument).type === 'ObjectExpression');
      return binding?.kind === 'catch' && !throwsObjects
        ? problem(`the error is the caught exception ${shown}: it is written as {}, without code or message`)
        : [];
    }
    case 'ObjectExpression': {
      const open = node.properties.some((p) => p.type === 'SpreadElement');
      const out: RawFinding[] = [];
      const codeNode = findProperty(node, 'code');
      const messageNode = findProperty(node, 'message');
      if (!codeNode && !open) out.push(...problem(`the error ${shown} has no integer "code"`));
      if (codeNode) {
        for (const codeValue of facts.flow.getValues(codeNode, value.env, SPLIT)) {
          const text = getStringValue(codeValue.node);
          const number = getNumericValue(codeValue.node);
          if (text !== null) out.push(...problem(`the error code is a string (${code(getSnippet(facts.index, codeValue.node))}); it must be an integer`, codeValue.node));
          else if (number !== null && !Number.isInteger(number)) out.push(...problem(`the error code ${number} is not an integer`, codeValue.node));
        }
      }
      if (!messageNode && !open) out.push(...problem(`the error ${shown} has no string "message"`));
      if (messageNode) {
        for (const messageValue of facts.flow.getValues(messageNode, value.env, SPLIT)) {
          const m = unwrapExpression(messageValue.node);
          if (m.type === 'NumericLiteral' || m.type === 'BooleanLiteral' || m.type === 'ObjectExpression' || m.type === 'ArrayExpression') {
            out.push(...problem(`the error message is ${code(getSnippet(facts.index, m))}; it must be a string`, m));
          }
        }
      }
      return out;
    }
    default:
      return [];
  }
}
