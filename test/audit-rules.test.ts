// The rule table and markFixed: which rewrite fixes which finding.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildFacts } from '../src/analysis/facts.js';
import { compareNames, markFixed, RULE_IDS, RULES, type RuleId } from '../src/audit/index.js';
import { detectServer } from '../src/detect/server.js';
import type { ServerModel } from '../src/model/server-model.js';
import type { Decision, Finding } from '../src/model/types.js';
import { parseSource } from '../src/parse.js';

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

  it('orders rule ids as localeCompare does (findings at one position are sorted by rule without the collator)', () => {
    // every pair, both ways round, and ids that differ only after a shared word
    const ids = [...RULE_IDS, 'parse-error', 'parse-errors', 'parse', 'wrong-id-x'];
    for (const a of ids) for (const b of ids) expect(Math.sign(compareNames(a, b))).toBe(Math.sign(a.localeCompare(b)));
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
      for (const fixer of rule.fixedBy) expect(['sdk', 'boundary', 'envelope']).toContain(fixer);
    }
  });
});

/** The server model detection builds for a corpus case. */
function modelOf(relativePath: string): ServerModel {
  const path = join(import.meta.dirname, 'fixtures', 'corpus', relativePath);
  const source = readFileSync(path, 'utf8');
  const detection = detectServer(buildFacts(path, source, parseSource(path, source), null));
  if (detection.kind !== 'server') throw new Error(`${relativePath} is not detected as a hand-rolled server`);
  return detection.model;
}

describe('markFixed', () => {
  const all = RULE_IDS.map(finding);
  const fixedRules = (decision: Decision, model: ServerModel | null = null) => markFixed(all, decision, model).filter((f) => f.fixed).map((f) => f.rule);
  const ENVELOPE: Decision = { kind: 'envelope', reason: 'COMPUTED_DISPATCH', hint: 'h' };

  it('the SDK rewrite fixes every envelope rule, stdout pollution, and (for an SDK server) its own stdout writes', () => {
    expect(fixedRules({ kind: 'sdk', sdk: 'v1', style: 'server', notes: [] })).toEqual([...ENVELOPE_RULES, 'stdout-pollution', 'sdk-transport-bypassed']);
  });

  // The envelope answers unknown methods -32601 itself when it knows every method the server answers,
  // or where detection found the ends a request for an unknown method leaves by without a reply; or the
  // server answers them itself with an error the helper makes -32601.
  it('the envelope fallback fixes the envelope rules and stdout pollution too, unknown methods where it can', () => {
    // 11 answers initialize, tools/list and tools/call, and every other method with -32601 itself
    const own = modelOf('11-content-length-framing/server.js');
    expect(own.envelope).toMatchObject({ methods: null, answersUnknownMethods: true });
    expect(fixedRules(ENVELOPE, own)).toEqual([...ENVELOPE_RULES, 'stdout-pollution']);
    const known = { ...own, envelope: { ...own.envelope, methods: ['initialize', 'tools/list', 'tools/call'], answersUnknownMethods: false } };
    expect(fixedRules(ENVELOPE, known)).toEqual([...ENVELOPE_RULES, 'stdout-pollution']);
    const fn = own.facts.entry.index.functions[0]!;
    const ends = { ...own, envelope: { ...own.envelope, answersUnknownMethods: false, unansweredEnds: [{ kind: 'end' as const, reason: 'unknown-method' as const, node: fn, mod: own.facts.entry, fn }] } };
    expect(fixedRules(ENVELOPE, ends)).toEqual([...ENVELOPE_RULES, 'stdout-pollution']);
  });

  it('the envelope fallback leaves unknown methods unfixed where it knows neither the methods nor the silent ends, or has no model', () => {
    const own = modelOf('11-content-length-framing/server.js');
    const open = { ...own, envelope: { ...own.envelope, methods: null, unansweredEnds: [], answersUnknownMethods: false } };
    const withoutUnknown = [...ENVELOPE_RULES.filter((r) => r !== 'unknown-method-unanswered'), 'stdout-pollution'];
    expect(fixedRules(ENVELOPE, open)).toEqual(withoutUnknown);
    expect(fixedRules(ENVELOPE, null)).toEqual(withoutUnknown);
  });

  it('nothing is fixed when the file is left alone or is not a server', () => {
    expect(fixedRules({ kind: 'leave', reason: 'ALREADY_SDK', hint: 'h' })).toEqual([]);
    expect(fixedRules({ kind: 'none' })).toEqual([]);
  });

  it('an unknown rule id is never fixed, and the input is not mutated', () => {
    const input = [finding('no-such-rule'), finding('wrong-id')];
    const out = markFixed(input, { kind: 'sdk', sdk: 'v2', style: 'mcp-server', notes: [] }, null);
    expect(out.map((f) => f.fixed)).toEqual([false, true]);
    expect(input.map((f) => f.fixed)).toEqual([false, false]);
  });
});
