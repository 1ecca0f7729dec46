// The rules `mcp-migrate verify` checks on a running server: one row per rule, in the order they are
// reported. Rules that mean the same as a static-audit rule (src/model/audit-rules.ts) share its id,
// so a finding of `mcp-migrate --check` and a failure of `verify` are searched for by the same name.
// This module is a table: the probes that measure the rules live in ./probe.ts.
import { RULES, type RuleId } from '../model/audit-rules.js';

export interface VerifyRuleEntry {
  /** One line: what the probe sends and what it expects. */
  check: string;
  /** One line: what to do when it fails. */
  hint: string;
  /** The static-audit rule with the same meaning, when there is one. */
  audit: RuleId | null;
}

export const VERIFY_RULES = {
  'initialize-failed': {
    check: 'initialize (protocolVersion 2025-06-18) is answered with a result',
    hint: 'Answer `initialize` with `{ protocolVersion, capabilities, serverInfo }`; nothing else works until it is answered.',
    audit: null,
  },
  'reply-to-notification': {
    check: 'notifications/initialized and notifications/cancelled get no reply',
    hint: RULES['reply-to-notification'].hint,
    audit: 'reply-to-notification',
  },
  'ping-unanswered': {
    check: 'ping is answered with the empty result {}',
    hint: 'Answer `ping` with `result: {}`; clients ping to see whether the server is alive.',
    audit: null,
  },
  'wrong-id': {
    check: 'every reply echoes its request id exactly (a request with id 0 and one with a string id included)',
    hint: RULES['wrong-id'].hint,
    audit: 'wrong-id',
  },
  'unknown-method-unanswered': {
    check: 'a request for an unknown method is answered with error -32601',
    hint: RULES['unknown-method-unanswered'].hint,
    audit: 'unknown-method-unanswered',
  },
  'no-reply': {
    check: 'tools/list, a call to an unknown tool and a request after a bad JSON line are answered',
    hint: 'Answer every request, with a result or an error (an unknown tool: -32602 or an `isError` result); clients wait until they time out.',
    audit: null,
  },
  'parse-error-unanswered': {
    check: 'a line that is not valid JSON is answered with error -32700 and `id: null`',
    hint: RULES['parse-error-unanswered'].hint,
    audit: 'parse-error-unanswered',
  },
  'missing-jsonrpc': {
    check: 'every message on stdout has `"jsonrpc": "2.0"`',
    hint: RULES['missing-jsonrpc'].hint,
    audit: 'missing-jsonrpc',
  },
  'nonstandard-error': {
    check: 'every error is `{ code: <integer>, message: <string> }`',
    hint: RULES['nonstandard-error'].hint,
    audit: 'nonstandard-error',
  },
  'stdout-pollution': {
    check: 'stdout carries only JSON-RPC messages',
    hint: RULES['stdout-pollution'].hint,
    audit: 'stdout-pollution',
  },
} as const satisfies Record<string, VerifyRuleEntry>;

export type VerifyRuleId = keyof typeof VERIFY_RULES;

/** Every rule id, in report order. */
export const VERIFY_RULE_IDS = Object.keys(VERIFY_RULES) as VerifyRuleId[];
