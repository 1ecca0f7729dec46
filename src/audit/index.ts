// The compliance audit: a static rule set over one parsed file that reports each JSON-RPC 2.0 /
// MCP stdio envelope violation it can prove (see RULES). Read-only: it never changes the AST, never
// prints, and never throws — a check that fails on unusual code reports nothing for its rule.
// Rules run only on files that look like a hand-rolled JSON-RPC stdio server (they read stdin and use
// `jsonrpc` or dispatch on an MCP method), or, for `sdk-transport-bypassed`, on files that use the
// SDK's StdioServerTransport. Everything else gets no findings.
import type { File } from '@babel/types';
import type { Decision, Finding } from '../model/types.js';
import { assertNever } from '../model/assert-never.js';
import { buildIndex, getPosition } from '../analysis/ast.js';
import type { Check, RawFinding } from './checks/check.js';
import { checkMissingJsonrpc, checkNonstandardError, checkWrongId } from './checks/envelope.js';
import { checkReplyToNotification } from './checks/notifications.js';
import { checkParseErrorUnanswered } from './checks/parse-error.js';
import { checkSdkTransportBypassed, checkStdoutPollution } from './checks/stdout.js';
import { checkUnknownMethodUnanswered } from './checks/unknown-method.js';
import { FileFacts } from './facts.js';
import { Flow } from './flow.js';
import { isRuleId, RULES, type RuleId } from '../model/audit-rules.js';

export { RULES, RULE_IDS, isRuleId, type RuleId, type RuleEntry, type Severity, type Fixer } from '../model/audit-rules.js';

/** Which check reports which rule; a check that throws loses only its own rule's findings. */
const CHECKS: Record<RuleId, Check> = {
  'missing-jsonrpc': checkMissingJsonrpc,
  'wrong-id': checkWrongId,
  'nonstandard-error': checkNonstandardError,
  'reply-to-notification': checkReplyToNotification,
  'parse-error-unanswered': checkParseErrorUnanswered,
  'unknown-method-unanswered': checkUnknownMethodUnanswered,
  'stdout-pollution': checkStdoutPollution,
  'sdk-transport-bypassed': checkSdkTransportBypassed,
};

/** Rules about the hand-rolled protocol; they need the server gate. */
const HAND_ROLLED_RULES = new Set<RuleId>([
  'missing-jsonrpc',
  'wrong-id',
  'nonstandard-error',
  'reply-to-notification',
  'parse-error-unanswered',
  'unknown-method-unanswered',
  'stdout-pollution',
]);

// Source texts that cannot be a server: skip the walk entirely (most files of a tree).
const MAY_AUDIT = /stdin|StdioServerTransport/;

export interface AuditOptions {
  /**
   * Told about a check that threw (it then reports nothing for its rule); `'facts'` when the file's
   * analysis itself failed (then nothing is reported). For robustness runs; the audit never rethrows.
   */
  onError?: (rule: RuleId | 'facts', error: unknown) => void;
}

/** Audits one parsed file. Findings are sorted by position, one per rule and position, all `fixed: false`. */
export function auditSource(ast: File, source: string, options: AuditOptions = {}): Finding[] {
  if (!MAY_AUDIT.test(source)) return [];
  let facts: FileFacts;
  try {
    const index = buildIndex(ast, source);
    facts = new FileFacts(index, new Flow(index));
  } catch (error) {
    options.onError?.('facts', error);
    return [];
  }
  return runChecks(facts, options);
}

function runChecks(facts: FileFacts, options: AuditOptions): Finding[] {
  const raw: RawFinding[] = [];
  for (const rule of Object.keys(CHECKS) as RuleId[]) {
    if (HAND_ROLLED_RULES.has(rule) && !facts.isHandRolledServer) continue;
    try {
      raw.push(...CHECKS[rule](facts));
    } catch (error) {
      // An unusual construct this check did not expect: report nothing for this rule.
      options.onError?.(rule, error);
    }
  }
  const seen = new Set<string>();
  const findings: Finding[] = [];
  for (const finding of raw) {
    const { line, column } = getPosition(finding.node);
    const key = `${finding.rule}:${line}:${column}`;
    if (seen.has(key)) continue;
    seen.add(key);
    findings.push({ rule: finding.rule, message: finding.message, hint: RULES[finding.rule].hint, line, column, fixed: false });
  }
  return findings.sort((a, b) => a.line - b.line || a.column - b.column || a.rule.localeCompare(b.rule));
}

/** Sets `fixed` on each finding: true when the decided rewrite fixes that rule (RULES[rule].fixedBy). */
export function markFixed(findings: Finding[], decision: Decision): Finding[] {
  return findings.map((finding) => ({ ...finding, fixed: isFixedBy(finding.rule, decision) }));
}

function isFixedBy(rule: string, decision: Decision): boolean {
  if (!isRuleId(rule)) return false;
  const fixedBy: readonly string[] = RULES[rule].fixedBy;
  switch (decision.kind) {
    case 'sdk':
      return fixedBy.includes('sdk');
    case 'envelope':
      return fixedBy.includes('envelope');
    case 'leave':
    case 'none':
      return false;
    default:
      return assertNever(decision);
  }
}
