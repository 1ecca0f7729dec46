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
  /** Where the specification says so. */
  spec: string;
}

const MCP_SPEC = 'https://modelcontextprotocol.io/specification/2025-06-18';
const JSON_RPC_SPEC = 'https://www.jsonrpc.org/specification';

export const VERIFY_RULES = {
  'initialize-failed': {
    check: 'initialize (protocolVersion 2025-06-18) is answered with a result that has protocolVersion, capabilities and serverInfo',
    hint: 'Answer `initialize` with `{ protocolVersion, capabilities, serverInfo: { name, version } }`; the SDK client refuses a result without any of them.',
    audit: null,
    spec: `${MCP_SPEC}/basic/lifecycle#initialization`,
  },
  'pre-initialize-unanswered': {
    check: 'a request sent before initialize (server/discover, which 2026-07-28 clients may send first) is answered, with a result or an error',
    hint: 'Answer every request, also before `initialize` (an unknown one with -32601); a client that probes first waits for its timeout otherwise.',
    audit: null,
    spec: `${JSON_RPC_SPEC}#response_object`,
  },
  'reply-to-notification': {
    check: 'notifications/initialized and notifications/cancelled get no reply',
    hint: RULES['reply-to-notification'].hint,
    audit: 'reply-to-notification',
    spec: `${JSON_RPC_SPEC}#notification`,
  },
  'ping-unanswered': {
    check: 'ping is answered with the empty result {}',
    hint: 'Answer `ping` with `result: {}`; clients ping to see whether the server is alive.',
    audit: null,
    spec: `${MCP_SPEC}/basic/utilities/ping`,
  },
  'wrong-id': {
    check: 'every reply, results and errors alike, echoes its request id exactly (id 0 and string ids included) and no reply has an id no request had',
    hint: RULES['wrong-id'].hint,
    audit: 'wrong-id',
    spec: `${MCP_SPEC}/basic#responses`,
  },
  'duplicate-reply': {
    check: 'no request is answered more than once (two replies with one id: a client takes the first and may mistake the second for another request\'s)',
    hint: 'Answer each request exactly once: a reply written by a fallback after a branch already answered, or by two layers that both answer, is one too many.',
    audit: null,
    spec: `${JSON_RPC_SPEC}#response_object`,
  },
  'unknown-method-unanswered': {
    check: 'a request for an unknown method is answered with error -32601',
    hint: RULES['unknown-method-unanswered'].hint,
    audit: 'unknown-method-unanswered',
    spec: `${JSON_RPC_SPEC}#error_object`,
  },
  'no-reply': {
    check: 'every listing, tool call, resource read, prompt get and custom method sent, a call to an unknown tool and a request after a bad JSON line are answered',
    hint: 'Answer every request, with a result or an error (an unknown tool: -32602 or an `isError` result); clients wait until they time out.',
    audit: null,
    spec: `${MCP_SPEC}/basic#responses`,
  },
  'tool-call-crashed': {
    check: 'no tool called with valid arguments fails on a name the code never bound (-32603 "x is not defined", "Cannot read properties of undefined")',
    hint: 'The tool handler uses a name that is not in scope or reads a property of undefined: a broken handler (after a migration, a variable the rewrite did not carry over).',
    audit: null,
    spec: `${MCP_SPEC}/server/tools#error-handling`,
  },
  'parse-error-unanswered': {
    check: 'a line that is not valid JSON is dropped while the server keeps serving, or answered with error -32700 and `id: null` (or without an id, from protocol 2025-11-25)',
    hint: 'Catch the `JSON.parse` error: either ignore the line (what the SDK transports do) or reply `{ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }`; never crash or reply with another id.',
    // the static rule of that name asks for the -32700 reply; at run time a dropped line is accepted too
    audit: null,
    spec: `${JSON_RPC_SPEC}#error_object`,
  },
  'missing-jsonrpc': {
    check: 'every message on stdout has `"jsonrpc": "2.0"`',
    hint: RULES['missing-jsonrpc'].hint,
    audit: 'missing-jsonrpc',
    spec: `${JSON_RPC_SPEC}#response_object`,
  },
  'nonstandard-error': {
    check: 'every error is `{ code: <integer>, message: <string> }`',
    hint: RULES['nonstandard-error'].hint,
    audit: 'nonstandard-error',
    spec: `${JSON_RPC_SPEC}#error_object`,
  },
  'stdout-pollution': {
    check: 'stdout carries only JSON-RPC messages',
    hint: RULES['stdout-pollution'].hint,
    audit: 'stdout-pollution',
    spec: `${MCP_SPEC}/basic/transports#stdio`,
  },
} as const satisfies Record<string, VerifyRuleEntry>;

export type VerifyRuleId = keyof typeof VERIFY_RULES;

/** Every rule id, in report order. */
export const VERIFY_RULE_IDS = Object.keys(VERIFY_RULES) as VerifyRuleId[];

export function isVerifyRuleId(value: string): value is VerifyRuleId {
  return Object.prototype.hasOwnProperty.call(VERIFY_RULES, value);
}

/**
 * The first protocol version whose schema lets an error reply leave out its `id` (2025-11-25:
 * `JSONRPCErrorResponse.id` is optional, for errors such as a parse error that answer no request).
 * Versions are dates, so they compare as strings.
 */
export const ERROR_ID_OPTIONAL_FROM = '2025-11-25';

/**
 * How a tool call fails when its handler uses a name nothing bound, or reads through one: what a
 * migration that dropped a variable produces. Matched in -32603 messages.
 */
export const UNBOUND_NAME_MESSAGE = /\b[\w$]+ is not defined\b|Cannot read propert(?:y|ies) of (?:undefined|null)\b/;
/** The same, as the whole text of an `isError` result (a handler that catches and reports `err.message`). */
export const UNBOUND_NAME_TEXT = /^(?:(?:Reference|Type)Error: )?(?:[\w$]+ is not defined|Cannot read propert(?:y|ies) of (?:undefined|null)\b.*)$/;
