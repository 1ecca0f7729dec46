// The 2026-07-28 era check's judgement (src/verify/era.ts): the listings a pinned client was answered,
// against the 2025-era contract.
import { describe, expect, it } from 'vitest';
import { judgeModernEra, type EraAnswers } from '../src/verify/era.js';
import type { Contract } from '../src/verify/probe.js';

const contract = (tools: unknown[]): Contract => ({
  initialize: null,
  exchanges: [{ key: 'tools/list', method: 'tools/list', outcome: { kind: 'result', value: { tools } } }],
  notSent: [],
  restarts: [],
});
const answered = (entries: Array<[string, { names: string[] | null } | { failed: string }]>): EraAnswers => ({ kind: 'answered', listings: new Map(entries) });

describe('judgeModernEra', () => {
  it('served when every listing answered in the 2025 era offers the same items; a listing that era did not answer is not judged', () => {
    const before = contract([{ name: 'a', inputSchema: { type: 'object' } }, { name: 'b', inputSchema: { type: 'object' } }]);
    expect(judgeModernEra(answered([['tools/list', { names: ['b', 'a'] }], ['prompts/list', { failed: 'Method not found' }]]), before)).toEqual({ kind: 'served', asked: ['tools/list'] });
  });

  it('refused at the listing when it fails or offers less; a refused connection is passed on as it is', () => {
    const before = contract([{ name: 'a', inputSchema: { type: 'object' } }, { name: 'b', inputSchema: { type: 'object' } }]);
    expect(judgeModernEra(answered([['tools/list', { names: ['a'] }]]), before)).toMatchObject({ kind: 'refused', stage: 'listing', why: expect.stringContaining('is not offered b in tools/list') });
    expect(judgeModernEra(answered([['tools/list', { failed: 'Invalid result for tools/list' }]]), before)).toMatchObject({ kind: 'refused', stage: 'listing', why: expect.stringContaining('got no answer: Invalid result for tools/list') });
    const refused = { kind: 'refused', stage: 'connect', why: 'could not connect' } as const;
    expect(judgeModernEra(refused, before)).toBe(refused);
  });
});
