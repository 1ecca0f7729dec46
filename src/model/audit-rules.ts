// The compliance rules of the audit: one row per JSON-RPC 2.0 / MCP stdio envelope rule.
// The audit, the planner (`markFixed`) and every report read this table; nothing else hard-codes a rule.
// This module is a table: the checks themselves live in src/audit/index.ts.

/** SARIF's levels, used as-is by every report. */
export type Severity = 'error' | 'warning' | 'note';

/** The rewrites that can fix a finding (the README's chain: the SDK at the dispatcher, at the boundary, the envelope). */
export type Fixer = 'sdk' | 'boundary' | 'envelope';

export interface RuleEntry {
  /** PascalCase name for SARIF `reportingDescriptor.name`. */
  name: string;
  /** One line: what is wrong. */
  description: string;
  /** One line: what to do about it. */
  hint: string;
  severity: Severity;
  fixedBy: readonly Fixer[];
}

const ALL: readonly Fixer[] = ['sdk', 'boundary', 'envelope'];

export const RULES = {
  'missing-jsonrpc': {
    name: 'MissingJsonrpc',
    description: 'A reply written to stdout has no `"jsonrpc": "2.0"` member; clients drop it.',
    hint: 'Put `jsonrpc: "2.0"` in every message the server writes.',
    severity: 'error',
    fixedBy: ALL,
  },
  'wrong-id': {
    name: 'WrongId',
    description: "A reply's `id` is not the request's `id` echoed exactly (0 and strings are valid ids).",
    hint: 'Echo the request id unchanged (`id: msg.id`); only a parse error is answered with `id: null`.',
    severity: 'error',
    fixedBy: ALL,
  },
  'nonstandard-error': {
    name: 'NonstandardError',
    description: 'An error reply is not `{ code: <integer>, message: <string> }`.',
    hint: 'Reply `error: { code: -32602, message: "…" }` with an integer JSON-RPC code and a string message.',
    severity: 'error',
    fixedBy: ALL,
  },
  'reply-to-notification': {
    name: 'ReplyToNotification',
    description: 'A notification (a message without `id`) gets a reply.',
    hint: 'Never answer a message without `id`: return before replying (`if (msg.id === undefined) return`).',
    severity: 'error',
    fixedBy: ALL,
  },
  'parse-error-unanswered': {
    name: 'ParseErrorUnanswered',
    description: 'A line that is not valid JSON is not answered with a -32700 error and `id: null`.',
    hint: 'Wrap `JSON.parse` in try/catch and reply `{ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }`.',
    severity: 'warning',
    fixedBy: ALL,
  },
  'unknown-method-unanswered': {
    name: 'UnknownMethodUnanswered',
    description: 'A request for an unknown method is not answered with -32601 (Method not found).',
    hint: 'End the dispatch with a fallback that answers requests with `error: { code: -32601, message: "Method not found" }`.',
    severity: 'error',
    fixedBy: ALL,
  },
  'stdout-pollution': {
    name: 'StdoutPollution',
    description: 'The stdio server writes something that is not a protocol message to stdout.',
    hint: 'Log to stderr (`console.error`); stdout carries only JSON-RPC messages, one per line.',
    severity: 'error',
    // Every rewrite sends the file's console.log to stderr (the boundary: what is not a message).
    fixedBy: ALL,
  },
  'sdk-transport-bypassed': {
    name: 'SdkTransportBypassed',
    description: 'A server on `StdioServerTransport` also writes to stdout itself, past the transport.',
    hint: 'Write logs to stderr (`console.error`); only the transport may write to stdout.',
    severity: 'error',
    // The rewrite of an SDK server (decision `sdk`) moves exactly those writes to stderr.
    fixedBy: ['sdk'],
  },
} as const satisfies Record<string, RuleEntry>;

export type RuleId = keyof typeof RULES;

export const RULE_IDS = Object.keys(RULES) as RuleId[];

export function isRuleId(id: string): id is RuleId {
  return Object.prototype.hasOwnProperty.call(RULES, id);
}
