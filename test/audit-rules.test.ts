// The rule table and markFixed: which rewrite fixes which finding.
import { describe, expect, it } from 'vitest';
import { markFixed, RULE_IDS, RULES, type RuleId } from '../src/audit/index.js';
import type { Decision, Finding } from '../src/model/types.js';

const finding = (rule: string): Finding => ({ rule, message: 'm', hint: 'h', line: 1, column: 1, fixed: false });

const ENVELOPE_RULES: RuleId[] = [
  'missing-jsonrpc',
  'wrong-id',
  'nonstandard-error',
  'reply-to-notification',
  'parse-error-unanswered',
  'unknown-method-unanswered',
];

describe('RULES', () => {
  it('has the eight stable kebab-case ids', () => {
    expect(RULE_IDS).toEqual([...ENVELOPE_RULES, 'stdout-pollution', 'sdk-transport-bypassed']);
    for (const id of RULE_IDS) expect(id).toMatch(/^[a-z]+(-[a-z]+)+$/);
  });

  it('gives every rule a name, a one-line description and hint, a SARIF level and its fixers', () => {
    for (const id of RULE_IDS) {
      const rule = RULES[id];
      expect(rule.name).toMatch(/^[A-Z][A-Za-z]+$/);
      for (const text of [rule.description, rule.hint]) {
        expect(text).not.toContain('\n');
        expect(text.length).toBeGreaterThan(20);
      }
      expect(['error', 'warning', 'note']).toContain(rule.severity);
      for (const fixer of rule.fixedBy) expect(['sdk', 'envelope']).toContain(fixer);
    }
  });
});

describe('markFixed', () => {
  const all = RULE_IDS.map(finding);
  const fixedRules = (decision: Decision) => markFixed(all, decision).filter((f) => f.fixed).map((f) => f.rule);

  it('the SDK rewrite fixes every envelope rule, stdout pollution, and (for an SDK server) its own stdout writes', () => {
    expect(fixedRules({ kind: 'sdk', sdk: 'v1', style: 'server', notes: [] })).toEqual([...ENVELOPE_RULES, 'stdout-pollution', 'sdk-transport-bypassed']);
  });

  it('the envelope fallback fixes the envelope rules and stdout pollution too', () => {
    expect(fixedRules({ kind: 'envelope', reason: 'COMPUTED_DISPATCH', hint: 'h' })).toEqual([...ENVELOPE_RULES, 'stdout-pollution']);
  });

  it('nothing is fixed when the file is left alone or is not a server', () => {
    expect(fixedRules({ kind: 'leave', reason: 'ALREADY_SDK', hint: 'h' })).toEqual([]);
    expect(fixedRules({ kind: 'none' })).toEqual([]);
  });

  it('an unknown rule id is never fixed, and the input is not mutated', () => {
    const input = [finding('no-such-rule'), finding('wrong-id')];
    const out = markFixed(input, { kind: 'sdk', sdk: 'v2', style: 'mcp-server', notes: [] });
    expect(out.map((f) => f.fixed)).toEqual([false, true]);
    expect(input.map((f) => f.fixed)).toEqual([false, false]);
  });
});
