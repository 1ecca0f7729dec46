// The planner: detection -> plan, every decision with its typed reason. The SDK at the dispatcher where
// the model proves it keeps behaviour; otherwise the SDK at the boundary where it can be put (the program
// names stdin, writes to stdout, frames by lines); otherwise the envelope, with the reason the SDK cannot
// carry the server; each rewrite the proof refused gives way to the next; left alone only for an ignore
// comment, or for input no form can take.
import { describe, expect, it } from 'vitest';
import type { FileFacts } from '../src/analysis/facts.js';
import type { BoundaryFacts, ServerModel } from '../src/model/server-model.js';
import { decideAfterBoundaryFailure, decideAfterSdkFailure, decidePlan, decideWithSdkDeclined } from '../src/plan/plan.js';

const facts = {} as FileFacts;
const boundary: BoundaryFacts = { available: true, stdin: [], stdout: [], sinks: [], parses: [], methods: ['tools/list'], known: null };
const noBoundary: BoundaryFacts = { available: false, reason: 'CONTENT_LENGTH_FRAMING', detail: 'framed with headers', line: 5 };
// Only the fields the planner reads; the rest of a model is never looked at here.
// (a server that answers requests: one that answers none and that nothing starts is a transport, in missed-servers.test.ts)
const server = (fields: Partial<ServerModel>): ServerModel => ({ facts, ignored: false, line: 3, blockers: [], sdk: null, methods: ['initialize', 'tools/list'], boundary, ...fields }) as ServerModel;
const shape = {} as NonNullable<ServerModel['sdk']>;

describe('decidePlan', () => {
  it('passes files that are not servers and servers already on the SDK through', () => {
    expect(decidePlan({ kind: 'none' })).toEqual({ kind: 'none' });
    expect(decidePlan({ kind: 'sdk-server', line: 4 })).toEqual({ kind: 'sdk-server', line: 4 });
  });

  it('leaves an ignored server alone, whatever else is known about it', () => {
    const model = server({ ignored: true, sdk: shape });
    expect(decidePlan({ kind: 'server', model })).toMatchObject({ kind: 'leave', reason: 'IGNORED', line: 3 });
  });

  it('takes the SDK rewrite when the model has an SDK shape and nothing blocks it', () => {
    const model = server({ sdk: shape });
    expect(decidePlan({ kind: 'server', model })).toEqual({ kind: 'sdk', model, style: 'server' });
  });

  it('carries --style mcp-server to the rewrite, which writes it where the tool split is proven', () => {
    const model = server({ sdk: shape });
    expect(decidePlan({ kind: 'server', model }, 'mcp-server')).toEqual({ kind: 'sdk', model, style: 'mcp-server' });
    // a server the dispatcher-level rewrite cannot take gets the boundary whatever the style
    expect(decidePlan({ kind: 'server', model: server({}) }, 'mcp-server')).toMatchObject({ kind: 'boundary' });
  });

  it('puts the SDK at the boundary of every other hand-rolled server, with the first blocker as its reason', () => {
    const blockers = [
      { code: 'COMPUTED_DISPATCH', line: 12, detail: 'a handler is looked up by a computed name' },
      { code: 'REPLY_IN_CALLBACK', line: 30, detail: 'a reply in a timer' },
    ] as ServerModel['blockers'];
    const model = server({ blockers });
    expect(decidePlan({ kind: 'server', model })).toEqual({ kind: 'boundary', blocker: blockers[0], facts, boundary, model });
  });

  it('names a server with neither an SDK shape nor a blocker NO_DISPATCH instead of leaving it', () => {
    expect(decidePlan({ kind: 'server', model: server({}) })).toMatchObject({ kind: 'boundary', blocker: { code: 'NO_DISPATCH', line: 3 } });
  });

  it('gives the envelope a server the SDK cannot carry, with the reason it cannot (the dispatch blocker kept)', () => {
    const blockers = [{ code: 'CONTENT_LENGTH_FRAMING', line: 5, detail: 'framed with headers' }] as ServerModel['blockers'];
    const model = server({ blockers, boundary: noBoundary });
    expect(decidePlan({ kind: 'server', model })).toEqual({ kind: 'envelope', blocker: blockers[0], reason: { code: 'CONTENT_LENGTH_FRAMING', detail: 'framed with headers' }, model });
    // a dispatch the tool cannot follow, and a stdin the boundary cannot replace
    const elsewhere: BoundaryFacts = { available: false, reason: 'STDIN_ELSEWHERE', detail: 'no module of the program names process.stdin', line: 2 };
    const other = server({ blockers: [{ code: 'NO_DISPATCH', line: 7, detail: 'x' }], boundary: elsewhere });
    expect(decidePlan({ kind: 'server', model: other })).toMatchObject({ kind: 'envelope', blocker: { code: 'NO_DISPATCH' }, reason: { code: 'STDIN_ELSEWHERE' } });
  });

  it('goes down the chain past each rewrite the proof refused: dispatcher -> boundary -> envelope', () => {
    const model = server({ sdk: shape });
    expect(decidePlan({ kind: 'server', model }, 'server', { sdk: '1 difference' })).toMatchObject({ kind: 'boundary', blocker: { code: 'SDK_ANSWERS_DIFFERENTLY', detail: 'the dispatcher-level rewrite answered worse than the original: 1 difference' } });
    expect(decidePlan({ kind: 'server', model }, 'server', { sdk: '1 difference', boundary: '2 differences' })).toMatchObject({
      kind: 'envelope',
      blocker: { code: 'SDK_ANSWERS_DIFFERENTLY' },
      reason: { code: 'BOUNDARY_ANSWERS_DIFFERENTLY', detail: 'the SDK at the boundary answered worse than the original: 2 differences' },
    });
  });

  it('puts the SDK at the boundary of a server whose messages were not followed, else leaves it UNFOLLOWED_INPUT', () => {
    expect(decidePlan({ kind: 'unfollowed-input', line: 8, facts, boundary })).toEqual({ kind: 'boundary', blocker: { code: 'INPUT_NOT_FOLLOWED', line: 8, detail: 'no message was followed from stdin to a reply' }, facts, boundary, model: null });
    expect(decidePlan({ kind: 'unfollowed-input', line: 8, facts, boundary: noBoundary })).toEqual({ kind: 'leave', reason: 'UNFOLLOWED_INPUT', line: 8, model: null });
    // (no envelope without a followed message: it needs the parse)
    expect(decidePlan({ kind: 'unfollowed-input', line: 8, facts, boundary }, 'server', { boundary: 'worse' })).toMatchObject({ kind: 'leave', reason: 'UNFOLLOWED_INPUT' });
  });
});

describe('after a failed rewrite', () => {
  it('turns a failed SDK rewrite into the boundary with OUTPUT_CHECK_FAILED and the failure as detail', () => {
    const model = server({ sdk: shape });
    expect(decideAfterSdkFailure(model, 'still writes to stdout at line 9', 9)).toEqual({
      kind: 'boundary',
      blocker: { code: 'OUTPUT_CHECK_FAILED', line: 9, detail: 'still writes to stdout at line 9' },
      facts,
      boundary,
      model,
    });
    expect(decideAfterSdkFailure(model, 'x', 0)).toMatchObject({ blocker: { line: 3 } });
  });

  it('turns a failed boundary rewrite into the envelope with BOUNDARY_CHECK_FAILED (left alone when no message was followed)', () => {
    const model = server({});
    const plan = decidePlan({ kind: 'server', model });
    if (plan.kind !== 'boundary') throw new Error('expected a boundary plan');
    expect(decideAfterBoundaryFailure(plan, 'still names process.stdin at line 4')).toEqual({ kind: 'envelope', blocker: plan.blocker, reason: { code: 'BOUNDARY_CHECK_FAILED', detail: 'still names process.stdin at line 4' }, model });
    const unfollowed = decidePlan({ kind: 'unfollowed-input', line: 8, facts, boundary });
    if (unfollowed.kind !== 'boundary') throw new Error('expected a boundary plan');
    expect(decideAfterBoundaryFailure(unfollowed, 'x')).toEqual({ kind: 'leave', reason: 'UNFOLLOWED_INPUT', line: 8, model: null });
  });

  it('an SDK rewrite the runner declined for a reason outside the file goes down the chain with that reason', () => {
    const model = server({ sdk: shape });
    const plan = decidePlan({ kind: 'server', model });
    expect(decideWithSdkDeclined(plan, { reason: 'ENTRIES_DIFFER', detail: 'two entries' })).toMatchObject({ kind: 'boundary', blocker: { code: 'ENTRIES_DIFFER', detail: 'two entries' } });
    expect(decideWithSdkDeclined(plan, undefined)).toBe(plan);
  });
});
