// `verify --baseline FILE`: the rules a server is known to break, so that CI fails on new failures
// only. As in the official MCP conformance suite's expected-failures file, a listed rule that now
// passes is itself a failure (the baseline is stale and must shrink), and a rule that could not be
// measured (skipped) neither fails nor makes its entry stale. Pure: text in, verdicts out.
//
// The file is YAML: a list of rule ids, or an `expected-failures:` key holding one.
//   # known: the server predates ping
//   - ping-unanswered
//   - parse-error-unanswered
import { parse } from 'yaml';
import type { RuleResult } from './probe.js';
import { isVerifyRuleId, VERIFY_RULE_IDS, type VerifyRuleId } from './rules.js';

export type BaselineParse = { ok: true; rules: VerifyRuleId[] } | { ok: false; message: string };

export function parseBaseline(text: string): BaselineParse {
  let value: unknown;
  try {
    value = parse(text);
  } catch (err) {
    return { ok: false, message: `is not valid YAML: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}` };
  }
  if (value === null || value === undefined) return { ok: true, rules: [] };
  const list = typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)['expected-failures'] : value;
  if (list === null || list === undefined) return { ok: true, rules: [] };
  if (!Array.isArray(list)) return { ok: false, message: 'must be a YAML list of rule ids (or an `expected-failures:` key holding one)' };
  const rules: VerifyRuleId[] = [];
  for (const entry of list) {
    if (typeof entry !== 'string' || !isVerifyRuleId(entry)) {
      return { ok: false, message: `${JSON.stringify(entry)} is not a verify rule (expected one of ${VERIFY_RULE_IDS.join(', ')})` };
    }
    if (!rules.includes(entry)) rules.push(entry);
  }
  return { ok: true, rules };
}

export interface BaselineVerdict {
  /** Failing rules the baseline lists: they do not fail the run. */
  expected: VerifyRuleId[];
  /** Failing rules it does not list. */
  unexpected: VerifyRuleId[];
  /** Listed rules that pass: the baseline must lose them. */
  stale: VerifyRuleId[];
  ok: boolean;
}

export function applyBaseline(results: readonly RuleResult[], baseline: readonly VerifyRuleId[]): BaselineVerdict {
  const listed = new Set(baseline);
  const failing = results.filter((r) => !r.ok && r.skipped !== true).map((r) => r.rule);
  const passing = new Set(results.filter((r) => r.ok).map((r) => r.rule));
  const expected = failing.filter((rule) => listed.has(rule));
  const unexpected = [...failing.filter((rule) => !listed.has(rule)), ...results.filter((r) => r.skipped === true && !listed.has(r.rule)).map((r) => r.rule)];
  const stale = baseline.filter((rule) => passing.has(rule));
  return { expected, unexpected, stale, ok: unexpected.length === 0 && stale.length === 0 };
}
