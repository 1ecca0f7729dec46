// The planner: detection outcome -> plan, and which bugs of the original the SDK fixes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectServer } from '../src/detect/server-model.js';
import { parseSource } from '../src/parse.js';
import { decidePlan } from '../src/plan/plan.js';
import { getFixtureCase } from './fixtures/fixture-cases.js';

const DIR = join(import.meta.dirname, '..', '__testfixtures__', 'mcp-migrate');
const planFor = (name: string) => {
  const { input } = getFixtureCase(DIR, name);
  return decidePlan(detectServer(parseSource(input, readFileSync(input, 'utf8'))));
};

describe('decidePlan', () => {
  it.each([
    ['none', { kind: 'none' }],
    ['sdk-server', { kind: 'leave', reason: 'ALREADY_ON_SDK' }],
    ['unsupported IGNORED', { kind: 'leave', reason: 'IGNORED' }],
    ['unsupported other', { kind: 'envelope-candidate', reason: 'COMPUTED_DISPATCH' }],
  ] as const)('%s', (label, expected) => {
    const detection =
      label === 'none'
        ? ({ kind: 'none' } as const)
        : label === 'sdk-server'
          ? ({ kind: 'sdk-server', line: 1, writesStdout: false } as const)
          : ({ kind: 'unsupported', reason: label.endsWith('IGNORED') ? 'IGNORED' : 'COMPUTED_DISPATCH', line: 3, detail: 'x' } as const);
    expect(decidePlan(detection)).toMatchObject(expected);
  });

  it.each([
    // file, fixes that must be listed, fixes that must not
    ['readline-bare-ifs', ['ping is answered', 'unknown methods get -32601 (the original sent no reply'], ['notifications get no reply']],
    ['data-chunks-switch', ['ping is answered', 'notifications get no reply (the original fallback answered them'], ['unknown methods get -32601']],
    ['handler-map-esm', ['ping is answered', 'unknown methods get -32601 (the original answered -32000)'], []],
    ['for-await-returned-replies', ['notifications/initialized gets no reply'], ['ping is answered']],
    ['ts-class-then-dispatch', [], ['ping is answered', 'notifications get no reply']],
  ])('%s lists the SDK fixes it needs', (file, present, absent) => {
    const plan = planFor(file);
    if (plan.kind !== 'sdk') throw new Error(`expected an sdk plan, got ${plan.kind}`);
    for (const text of present) expect(plan.fixes.some((f) => f.startsWith(text))).toBe(true);
    for (const text of absent) expect(plan.fixes.some((f) => f.startsWith(text))).toBe(false);
  });
});
