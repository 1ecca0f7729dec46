// The SDK rewrite's edits at each reply (./sdk.ts): the statement that becomes `return <result>` or a throw
// of the error the server wrote, and the branches only the methods the SDK answers itself reach, removed.
import { t } from '../babel.js';
import { type ModuleUnit } from '../analysis/program.js';
import { type WrittenSite } from './sdk-code.js';
import type { SdkTarget } from '../model/types.js';
import { quoted, semi, type CodeStyle } from './style.js';
import { getLineIndent, getNodeRange, getRemovalRange, reindentExpression } from './text.js';


/**
 * A result reply that is the whole body of the first callback of `.then(onResult, onError)` and returns
 * the callback's own parameter: once it is a return, that callback does nothing, and the call is
 * `.catch(onError)`.
 */
export function getIdentityThen(site: WrittenSite): { property: t.Node; first: t.Node; second: t.Node } | null {
  if (site.form !== 'arrow-body' || site.reply.kind !== 'result' || site.unreachableAfter.length > 0) return null;
  const index = site.mod.index;
  const arrow = index.parent.get(site.statement);
  if (arrow?.type !== 'ArrowFunctionExpression' || arrow.body !== site.statement || arrow.params.length !== 1) return null;
  const param = arrow.params[0]!;
  if (param.type !== 'Identifier' || site.reply.value.trim() !== param.name) return null;
  const call = index.parent.get(arrow);
  if (call?.type !== 'CallExpression' || call.arguments.length !== 2 || call.arguments[0] !== arrow) return null;
  const callee = call.callee;
  if (callee.type !== 'MemberExpression' || callee.computed || callee.property.type !== 'Identifier' || callee.property.name !== 'then') return null;
  return { property: callee.property, first: arrow, second: call.arguments[1]! };
}

/**
 * What a reply replaces: its statement, or an arrow's whole body with the parentheses around it
 * (`(id, code, message) => ({ ... })` becomes `=> { throw ... }`, never `=> ({ throw ... })`).
 */
export function getReplyRange(site: WrittenSite): { start: number; end: number } {
  const node = site.statement;
  if (site.form !== 'arrow-body') return { start: node.start!, end: node.end! };
  const arrow = site.mod.index.parent.get(node);
  const extra = node.extra as { parenthesized?: boolean; parenStart?: number } | undefined;
  if (arrow?.type === 'ArrowFunctionExpression' && arrow.body === node && extra?.parenthesized && typeof extra.parenStart === 'number') return { start: extra.parenStart, end: arrow.end! };
  return { start: node.start!, end: node.end! };
}

// return <result>;
// throw Object.assign(new Error(<message>), { code: <code> });      (v1: the SDK sends code and message as they are)
// throw new ProtocolError(<code>, <message>);                        (v2)
// (result) => result                                    (the reply was an arrow's expression body)
// return Promise.reject(Object.assign(new Error(...)))  (an error inside a try whose catch answers differently)
export function buildReplyStatement(site: WrittenSite, style: CodeStyle, sdk: SdkTarget): string {
  const s = semi(style);
  const reply = site.reply;
  const arrow = site.form === 'arrow-body';
  if (reply.kind === 'result') {
    // the value's later lines follow it from where it was written to the statement's line
    const value = reindentExpression(reply.value, reply.indent, getLineIndent(site.mod.source, site.statement.start!));
    return arrow ? (/^[{]/.test(value) ? `(${value})` : value) : `return ${value}${s}`;
  }
  let error: string;
  if (reply.kind === 'error-value') error = reply.value;
  else if (reply.kind === 'error-held') error = buildHeldError(sdk, reply.value, reply.shape, reply.code, quoted(style, 'string'));
  else {
    const message = reply.message ?? quoted(style, 'Error');
    const code = reply.code;
    error = code === null ? (sdk === 'v2' ? buildError(sdk, '-32603', message, reply.data) : `new Error(${message})`) : buildError(sdk, code, message, reply.data);
  }
  if (site.bypass) return arrow ? `Promise.reject(${error})` : `return Promise.reject(${error})${s}`;
  return arrow ? `{ throw ${error}${s} }` : `throw ${error}${s}`;
}

/**
 *   v1: Object.assign(new Error(message), { code })   (the SDK sends code and message as they are; McpError would prefix the message)
 *   v2: new ProtocolError(code, message)
 */
function buildError(sdk: SdkTarget, code: string, message: string, data: string | null): string {
  if (sdk === 'v2') return `new ProtocolError(${code}, ${message}${data ? `, ${data}` : ''})`;
  const codePart = code === 'code' ? 'code' : `code: ${code}`;
  const dataPart = data === null ? '' : data === 'data' ? ', data' : `, data: ${data}`;
  return `Object.assign(new Error(${message}), { ${codePart}${dataPart} })`;
}

/**
 * An error object held in a variable keeps its code, message and data as the original sent them:
 *   v1: Object.assign(new Error(err.message), err)      (the SDK sends err.code, err.message and err.data)
 *   v2: new ProtocolError(err.code, err.message, err.data)
 * one built where the reply was written is computed once, its members copied onto the error (both SDKs
 * send the thrown error's own code, message and data):
 *   Object.assign(new Error(), makeError(-32602, 'bad'))
 * and where it may also be a message string, the run time decides:
 *   typeof err === 'string' ? Object.assign(new Error(err), { code: -32603 }) : Object.assign(new Error(err.message), err)
 */
function buildHeldError(sdk: SdkTarget, value: string, shape: 'object' | 'either' | 'computed', code: string | null, stringType: string): string {
  if (shape === 'computed') return `Object.assign(new Error(), ${value})`;
  const object = sdk === 'v2' ? `new ProtocolError(${value}.code, ${value}.message, ${value}.data)` : `Object.assign(new Error(${value}.message), ${value})`;
  if (shape === 'object') return object;
  const message = code === null ? (sdk === 'v2' ? buildError(sdk, '-32603', value, null) : `new Error(${value})`) : buildError(sdk, code, value, null);
  return `typeof ${value} === ${stringType} ? ${message} : ${object}`;
}

export function buildThrow(style: CodeStyle, sdk: SdkTarget, code: string, message: string, data: string | null): string {
  return `throw ${buildError(sdk, code, message, data)}${semi(style)}`;
}

/** `if (response !== undefined) send(response);` -> the whole if; otherwise the write itself. */
export function getGuardedStatement(mod: ModuleUnit, write: t.Statement): t.Statement {
  let node: t.Statement = write;
  let parent = mod.index.parent.get(node);
  if (parent?.type === 'BlockStatement' && parent.body.length === 1) {
    const holder = mod.index.parent.get(parent);
    if (holder?.type === 'IfStatement' && holder.consequent === parent && !holder.alternate) return holder;
  }
  if (parent?.type === 'IfStatement' && parent.consequent === node && !parent.alternate) node = parent;
  return node;
}

// ---------------------------------------------------------------- removed branches

/** What to cut to remove a branch: a range, and text to put instead (the else part of an if). */
export function getBranchRemoval(mod: ModuleUnit, node: t.Node, kind: string): { start: number; end: number; replacement: string | null } | null {
  const source = mod.source;
  const parent = mod.index.parent.get(node);
  switch (kind) {
    case 'case': {
      const kase = node as t.SwitchCase;
      const sw = parent as t.SwitchStatement;
      const index = sw.cases.indexOf(kase);
      const previous = sw.cases[index - 1];
      // `case 'tools/list': case 'ping': ...` shares the body: keep it
      if (previous && previous.consequent.length === 0) return null;
      if (kase.consequent.length === 0 && !sw.cases.slice(index + 1).some((c) => c.consequent.length > 0)) return null;
      const range = getNodeRange(source, kase);
      return { ...getRemovalRange(source, range.start, range.end), replacement: null };
    }
    case 'if': {
      const statement = node as t.IfStatement;
      // `if (method === 'initialize') {...} else <rest>`: cut up to <rest>, which stays in place (and is still rewritten)
      if (statement.alternate) {
        const start = parent?.type === 'IfStatement' && parent.alternate === statement ? statement.start! : getNodeRange(source, statement).start;
        return { start, end: statement.alternate.start!, replacement: null };
      }
      if (parent?.type === 'IfStatement' && parent.alternate === statement) {
        // `... else if (method === 'initialize') {...}` at the end of a chain
        return { start: parent.consequent.end!, end: statement.end!, replacement: '' };
      }
      const range = getNodeRange(source, statement);
      return { ...getRemovalRange(source, range.start, range.end), replacement: null };
    }
    case 'property':
    case 'element': {
      const range = getNodeRange(source, node);
      // with its comma; and the space after it when the next item follows on the same line (`{ a: 1, b: 2 }` -> `{ b: 2 }`)
      const after = /^\s*,(?:[ \t]+(?=[^\s]))?/.exec(source.slice(range.end));
      const end = after ? range.end + after[0].length : range.end;
      return { ...getRemovalRange(source, range.start, end), replacement: null };
    }
    case 'statement': {
      const range = getNodeRange(source, node);
      return { ...getRemovalRange(source, range.start, range.end), replacement: null };
    }
    default:
      return null;
  }
}
