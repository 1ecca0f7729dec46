// parse-error-unanswered: a line that is not JSON gets { id: null, error: { code: -32700 } }.
//   try { msg = JSON.parse(line) } catch { return }        -> dropped: the client waits forever
//   const msg = JSON.parse(line)                           -> outside try: bad JSON throws
// Only the JSON.parse that produces the incoming message counts (its `method` is read).
import { code, getSnippet } from '../../analysis/ast.js';
import type { Check, RawFinding } from './check.js';
import { getErrorCodes } from './envelope.js';

const PARSE_ERROR = -32700;

export const checkParseErrorUnanswered: Check = (facts) => {
  const out: RawFinding[] = [];
  for (const parse of facts.messageParses) {
    const shown = code(getSnippet(facts.index, parse.call, 40));
    const handler = parse.tryStatement?.handler;
    if (!handler) {
      out.push({
        rule: 'parse-error-unanswered',
        node: parse.call,
        message: `${shown} runs outside try/catch: a line of bad JSON throws instead of being answered with -32700`,
      });
      continue;
    }
    const region = [handler.body];
    if (!facts.findReplyIn(region, 'possible')) {
      out.push({
        rule: 'parse-error-unanswered',
        node: handler,
        message: `bad JSON is dropped: the catch branch of ${shown} writes no -32700 reply`,
      });
      continue;
    }
    for (const { message } of facts.getMessagesIn(region)) {
      const codes = getErrorCodes(facts, message);
      if (codes.unknown || codes.values.length === 0 || codes.values.some((c) => c.value === PARSE_ERROR)) continue;
      const first = codes.values[0]!;
      out.push({
        rule: 'parse-error-unanswered',
        node: first.node,
        message: `bad JSON is answered with code ${first.value} instead of -32700 (Parse error)`,
      });
    }
  }
  return out;
};
