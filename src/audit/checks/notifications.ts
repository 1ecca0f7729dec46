// reply-to-notification: a message without `id` must never be answered.
//   case 'notifications/initialized': return { id, result: {} }    -> replies to a notification
//   default: write({ jsonrpc: '2.0', id: msg.id, error: ... })     -> answers every unknown notification too
// A reply counts only when nothing before it made sure the message has an id.
import type * as t from '@babel/types';
import { code, getSnippet } from '../../analysis/ast.js';
import type { Dispatch } from '../dispatch.js';
import type { FileFacts } from '../facts.js';
import type { Check, RawFinding } from './check.js';

export const checkReplyToNotification: Check = (facts) => {
  const out: RawFinding[] = [];
  for (const dispatch of facts.dispatches) {
    const on = describeDispatch(facts, dispatch);
    for (const branch of dispatch.branches) {
      if (!branch.method.startsWith('notifications/')) continue;
      const reply = facts.findReplyIn(branch.body, 'proven');
      if (reply && !facts.guards.isGuarded(reply)) {
        out.push({
          rule: 'reply-to-notification',
          node: reply,
          message: `${code(branch.method)} is a notification, but its branch writes a reply`,
        });
      }
    }
    if (dispatch.fallback) {
      const reply = facts.findReplyIn(dispatch.fallback, 'proven');
      if (reply && !facts.guards.isGuarded(reply)) {
        const prefix = facts.index.stringValues.has('notifications/')
          ? ' (a `notifications/` prefix check is not enough: every message without an id is a notification)'
          : '';
        out.push({
          rule: 'reply-to-notification',
          node: reply,
          message: `the fallback of ${on} replies without checking for an id, so it answers notifications${prefix}`,
        });
      }
    }
  }
  return out;
};

export function describeDispatch(facts: FileFacts, dispatch: Dispatch): string {
  const node: t.Node = dispatch.node;
  switch (dispatch.kind) {
    case 'switch':
      return node.type === 'SwitchStatement' ? `the switch on ${code(getSnippet(facts.index, node.discriminant, 40))}` : 'the switch on the method';
    case 'if':
      return 'the if-chain on the method';
    case 'map':
      return `the handler lookup ${code(getSnippet(facts.index, node, 40))}`;
  }
}
