// The planner: detection -> plan, every decision with its typed reason. The SDK at the dispatcher where
// the model proves it keeps behaviour; otherwise the SDK at the boundary where it can be put (the program
// names stdin, writes to stdout, frames by lines); otherwise the envelope, with the reason the SDK cannot
// carry the server; each rewrite the proof refused gives way to the next; left alone only for an ignore
// comment, or for input no form can take.
import { describe, expect, it } from 'vitest';
import type { FileFacts } from '../src/analysis/facts.js';
import type { ModuleUnit } from '../src/analysis/program.js';
import type { SdkWiring, StdioConnection } from '../src/analysis/sdk-wiring.js';
import type { BoundaryFacts, ServerModel } from '../src/model/server-model.js';
import { decideAfterBoundaryFailure, decideAfterSdkFailure, decidePlan, decideWithSdkDeclined } from '../src/plan/plan.js';

const facts = {} as FileFacts;
const boundary: BoundaryFacts = { available: true, stdin: [], stdout: [], sinks: [], parses: [], methods: ['tools/list'], known: null, namespaced: null };
const noBoundary: BoundaryFacts = { available: false, reason: 'CONTENT_LENGTH_FRAMING', detail: 'framed with headers', line: 5 };
// Only the fields the planner reads; the rest of a model is never looked at here.
// (a server that answers requests: one that answers none and that nothing starts is a transport, in missed-servers.test.ts)
const server = (fields: Partial<ServerModel>): ServerModel => ({ facts, ignored: false, line: 3, blockers: [], sdk: null, methods: ['initialize', 'tools/list'], boundary, ...fields }) as ServerModel;
const shape = {} as NonNullable<ServerModel['sdk']>;
const mod = {} as ModuleUnit;
const wiring = (fields: Partial<SdkWiring>): SdkWiring => ({ generations: new Set(['v2']), servesBothEras: false, connections: [], unpaired: [], codemodMarkers: [], ...fields });
const connection = { mod, transport: { type: 'NewExpression', loc: { start: { line: 7 } } }, callbacks: [], otherUses: 0 } as unknown as StdioConnection;

describe('decidePlan', () => {
  it('passes files that are not servers and servers already on the SDK through', () => {
    expect(decidePlan({ kind: 'none' })).toEqual({ kind: 'none' });
    expect(decidePlan({ kind: 'sdk-server', line: 4, wiring: wiring({}) })).toEqual({ kind: 'sdk-server', line: 4, upgrade: null, leave: null, current: false });
  });

  it('SDK v2 at the dispatcher would send a -32002 resource miss as -32602: the boundary keeps it where it can be put; v1 keeps the dispatcher', () => {
    const model = server({ sdk: shape, methods: ['initialize', 'resources/read'], facts: { namesResourceMissCode: true } as FileFacts });
    expect(decidePlan({ kind: 'server', model }, 'server', {}, false, 'v2')).toMatchObject({ kind: 'boundary', blocker: { code: 'RESOURCE_MISS_CODE' } });
    expect(decidePlan({ kind: 'server', model }, 'server', {}, false, 'v1')).toEqual({ kind: 'sdk', model, style: 'server' });
    expect(decidePlan({ kind: 'server', model: { ...model, boundary: noBoundary } }, 'server', {}, false, 'v2')).toMatchObject({ kind: 'sdk' });
    expect(decidePlan({ kind: 'server', model: { ...model, facts: { namesResourceMissCode: false } as FileFacts } }, 'server', {}, false, 'v2')).toMatchObject({ kind: 'sdk' });
  });

  describe('a server already on the SDK, wired to stdio the 2025 way', () => {
    const sdkServer = (fields: Partial<SdkWiring>) => ({ kind: 'sdk-server' as const, line: 4, wiring: wiring(fields) });
    it('is upgraded when one connect on v2 was read, unless the run keeps the SDK as it is (--sdk v1)', () => {
      expect(decidePlan(sdkServer({ connections: [connection] }), 'server', {}, true)).toEqual({ kind: 'sdk-server', line: 4, upgrade: connection, leave: null, current: false });
      expect(decidePlan(sdkServer({ connections: [connection] }), 'server', {}, false)).toEqual({ kind: 'sdk-server', line: 4, upgrade: null, leave: null, current: false });
    });
    it('stays as it is when it already serves through serveStdio', () => {
      expect(decidePlan(sdkServer({ connections: [connection], servesBothEras: true }), 'server', {}, true)).toMatchObject({ upgrade: null, leave: null, current: true });
    });
    it('says why it is not upgraded: v1 (the official codemod first), codemod markers, wiring not read, transport callbacks', () => {
      expect(decidePlan(sdkServer({ connections: [connection], generations: new Set(['v1']) }), 'server', {}, true)).toMatchObject({ upgrade: null, leave: { reason: 'SDK_V1_WIRING' } });
      expect(decidePlan(sdkServer({ connections: [connection], codemodMarkers: [{ mod, line: 9 }] }), 'server', {}, true)).toMatchObject({ upgrade: null, leave: { reason: 'CODEMOD_MARKERS', line: 9 } });
      expect(decidePlan(sdkServer({ connections: [connection, connection] }), 'server', {}, true)).toMatchObject({ upgrade: null, leave: { reason: 'STDIO_WIRING_UNREAD' } });
      expect(decidePlan(sdkServer({ connections: [connection], unpaired: [{ mod, line: 12 }] }), 'server', {}, true)).toMatchObject({ upgrade: null, leave: { reason: 'STDIO_WIRING_UNREAD', line: 12 } });
      expect(decidePlan(sdkServer({ connections: [{ ...connection, callbacks: ['onclose'] }] }), 'server', {}, true)).toMatchObject({ upgrade: null, leave: { reason: 'TRANSPORT_CALLBACKS_SET' } });
    });
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
