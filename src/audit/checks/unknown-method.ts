// unknown-method-unanswered: a request for a method the server does not have gets -32601.
//   if (m === 'initialize') {...}  if (m === 'tools/list') {...}   (nothing else) -> no reply at all
//   default: replyError(id, -32000, 'Unknown method')                             -> wrong code
import type * as t from '@babel/types';
import { MCP_METHOD_NAMES } from '../../model/mcp-methods.js';
import { code, getEnclosingFunction, getNumericValue, unwrapExpression } from '../../analysis/ast.js';
import { type Dispatch, endsWithExit, getFollowingStatements } from '../dispatch.js';
import { type FileFacts, isInRegion } from '../facts.js';
import type { Check, RawFinding } from './check.js';
import { getErrorCodes } from './envelope.js';
import { describeDispatch } from './notifications.js';

const METHOD_NOT_FOUND = -32601;

function isMcpDispatch(dispatch: Dispatch): boolean {
  return dispatch.kind === 'map' || dispatch.branches.some((b) => MCP_METHOD_NAMES.includes(b.method));
}

export const checkUnknownMethodUnanswered: Check = (facts) => {
  const out: RawFinding[] = [];
  for (const dispatch of facts.dispatches) {
    if (!isMcpDispatch(dispatch) || dispatch.uncertain) continue;
    // A dispatch of notifications only (or reached only by them) owes nobody a reply.
    if (dispatch.branches.length > 0 && dispatch.branches.every((b) => b.method.startsWith('notifications/'))) continue;
    if (facts.guards.isNotificationOnly(dispatch.node)) continue;
    const on = describeDispatch(facts, dispatch);
    if (!dispatch.fallback) {
      if (dispatch.kind === 'map' || isResultUsedByCaller(facts, dispatch)) continue;
      const handlesPing = dispatch.branches.some((b) => b.method === 'ping');
      out.push({
        rule: 'unknown-method-unanswered',
        node: dispatch.node,
        message: `${on} has no fallback: requests for other methods${handlesPing ? '' : ` (${code('ping')} included)`} never get a reply`,
      });
      continue;
    }
    const problem = getFallbackProblem(facts, dispatch, dispatch.fallback, on);
    if (problem) out.push(problem);
  }
  return out;
};

function getFallbackProblem(facts: FileFacts, dispatch: Dispatch, fallback: readonly t.Node[], on: string): RawFinding | null {
  if (facts.findReplyIn(fallback, 'possible')) {
    let wrong: { value: number; node: t.Node } | null = null;
    let success: t.Node | null = null;
    for (const { message } of facts.getMessagesIn(fallback)) {
      if (message.members.has('result') && !message.members.has('error') && !message.open) {
        success ??= message.object;
        continue;
      }
      const codes = getErrorCodes(facts, message);
      if (codes.values.some((c) => c.value === METHOD_NOT_FOUND)) return null;
      if (!codes.unknown && codes.values.length > 0 && !wrong) wrong = codes.values[0]!;
    }
    if (!wrong && success) {
      return {
        rule: 'unknown-method-unanswered',
        node: success,
        message: `the fallback of ${on} answers unknown methods with a result instead of a -32601 (Method not found) error`,
      };
    }
    if (!wrong) return null;
    return {
      rule: 'unknown-method-unanswered',
      node: wrong.node,
      message: `the fallback of ${on} answers unknown methods with code ${wrong.value} instead of -32601 (Method not found)`,
    };
  }
  const throws = facts.findThrowsIn(fallback);
  if (throws.length > 0) {
    for (const statement of throws) {
      const arg = statement.argument;
      if (arg.type !== 'NewExpression' && arg.type !== 'CallExpression') return null;
      const codes = arg.arguments.map((a) => getNumericValue(a)).filter((n): n is number => n !== null && n <= -32000 && n >= -32768);
      if (codes.length === 0 || codes.includes(METHOD_NOT_FOUND)) return null;
      return {
        rule: 'unknown-method-unanswered',
        node: arg,
        message: `the fallback of ${on} throws code ${codes[0]} for unknown methods instead of -32601 (Method not found)`,
      };
    }
    return null;
  }
  if (mayBeAnsweredElsewhere(facts, dispatch, fallback)) return null;
  return {
    rule: 'unknown-method-unanswered',
    node: fallback[0]!,
    message: `the fallback of ${on} sends no reply: requests for unknown methods never get one`,
  };
}

/**
 * A silent fallback can still lead to a reply we cannot see here:
 *   default: return null;         (the caller may answer -32601 when the result is null)
 *   default: break; } reply(...)  (the code after the dispatch answers every method)
 */
function mayBeAnsweredElsewhere(facts: FileFacts, dispatch: Dispatch, fallback: readonly t.Node[]): boolean {
  const { index } = facts;
  const fn = getEnclosingFunction(index, dispatch.node);
  for (const ret of index.returns) {
    if (!isInRegion(ret, fallback) || getEnclosingFunction(index, ret) !== fn) continue;
    if (ret.argument && !isUndefined(ret.argument)) return true;
    if (isResultUsedByCaller(facts, dispatch)) return true;
  }
  const last = fallback[fallback.length - 1];
  if (last && !endsWithExit(last, false)) {
    let current: t.Node | undefined = dispatch.last;
    while (current && current !== fn) {
      if (facts.findReplyIn(getFollowingStatements(index, current), 'possible')) return true;
      current = index.parent.get(current);
    }
  }
  return false;
}

/** The function holding the dispatch returns to a caller that uses the result (and may answer -32601 itself). */
function isResultUsedByCaller(facts: FileFacts, dispatch: Dispatch): boolean {
  const fn = getEnclosingFunction(facts.index, dispatch.node);
  // `out(await handle(msg))` writes whatever comes back: nobody checks it first.
  if (!fn || facts.returnWrittenFunctions.has(fn)) return false;
  return facts.flow.getCallSites(fn).calls.some((call) => {
    let parent = facts.index.parent.get(call);
    while (parent?.type === 'AwaitExpression' || parent?.type === 'ParenthesizedExpression') parent = facts.index.parent.get(parent);
    return parent !== undefined && parent.type !== 'ExpressionStatement';
  });
}

function isUndefined(node: t.Node): boolean {
  const expr = unwrapExpression(node);
  return (expr.type === 'Identifier' && expr.name === 'undefined') || (expr.type === 'UnaryExpression' && expr.operator === 'void');
}
