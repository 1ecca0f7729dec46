// The planner: detection -> plan, every decision with its typed reason. SDK where the model proves it
// keeps behaviour, otherwise the envelope; left alone only for an ignore comment.
import { describe, expect, it } from 'vitest';
import type { ServerModel } from '../src/model/server-model.js';
import { decideAfterSdkFailure, decidePlan } from '../src/plan/plan.js';

// Only the fields the planner reads; the rest of a model is never looked at here.
// (a server that answers requests: one that answers none and that nothing starts is a transport, in missed-servers.test.ts)
const server = (fields: Partial<ServerModel>): ServerModel => ({ ignored: false, line: 3, blockers: [], sdk: null, methods: ['initialize', 'tools/list'], ...fields }) as ServerModel;
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
    // a server the SDK rewrite cannot take gets the envelope whatever the style
    expect(decidePlan({ kind: 'server', model: server({}) }, 'mcp-server')).toMatchObject({ kind: 'envelope' });
  });

  it('sends every other hand-rolled server to the envelope with the first blocker as its reason', () => {
    const blockers = [
      { code: 'COMPUTED_DISPATCH', line: 12, detail: 'a handler is looked up by a computed name' },
      { code: 'CONTENT_LENGTH_FRAMING', line: 30, detail: 'framed with headers' },
    ] as ServerModel['blockers'];
    const model = server({ blockers });
    expect(decidePlan({ kind: 'server', model })).toEqual({ kind: 'envelope', blocker: blockers[0], model });
  });

  it('names a server with neither an SDK shape nor a blocker NO_DISPATCH instead of leaving it', () => {
    expect(decidePlan({ kind: 'server', model: server({}) })).toMatchObject({ kind: 'envelope', blocker: { code: 'NO_DISPATCH', line: 3 } });
  });
});

describe('decideAfterSdkFailure', () => {
  it('turns a failed SDK rewrite into the envelope with OUTPUT_CHECK_FAILED and the failure as detail', () => {
    const model = server({ sdk: shape });
    expect(decideAfterSdkFailure(model, 'still writes to stdout at line 9', 9)).toEqual({
      kind: 'envelope',
      blocker: { code: 'OUTPUT_CHECK_FAILED', line: 9, detail: 'still writes to stdout at line 9' },
      model,
    });
    expect(decideAfterSdkFailure(model, 'x', 0)).toMatchObject({ blocker: { line: 3 } });
  });
});
