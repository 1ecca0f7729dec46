// PURE: what detection found -> what to do with the file, with a typed reason for everything that is
// not a plain SDK rewrite. The chain is: SDK where the model proves it keeps behaviour, otherwise the
// envelope; "left alone" only for ignored files, runtimes the tool does not handle, input it does not
// follow, and stdio code nothing in the scanned files starts that answers no request (a transport).
import { isStartedByImporter } from '../analysis/facts.js';
import type { Detection } from '../detect/server.js';
import type { Blocker, LeaveReason } from '../model/reasons.js';
import type { ServerModel } from '../model/server-model.js';
import type { PipelineOptions, RefusedRewrites, Style } from '../model/types.js';

export type Plan =
  | { kind: 'none' }
  /** Already on the SDK: only its own stdout writes move to stderr. */
  | { kind: 'sdk-server'; line: number }
  | { kind: 'leave'; reason: LeaveReason; line: number; model: ServerModel | null }
  /** `style`: the requested one; the pipeline writes mcp-server only where the tool split is proven. */
  | { kind: 'sdk'; model: ServerModel; style: Style }
  | { kind: 'envelope'; blocker: Blocker; model: ServerModel };

/** `refused`: the rewrites a side-by-side run already showed to answer worse; the chain goes on past them. */
export function decidePlan(detection: Detection, requestedStyle: Style = 'server', refused: RefusedRewrites = {}): Plan {
  switch (detection.kind) {
    case 'none':
      return { kind: 'none' };
    case 'sdk-server':
      return { kind: 'sdk-server', line: detection.line };
    case 'foreign-runtime':
      return { kind: 'leave', reason: 'UNSUPPORTED_RUNTIME', line: detection.line, model: null };
    case 'unfollowed-input':
      return { kind: 'leave', reason: 'UNFOLLOWED_INPUT', line: detection.line, model: null };
    case 'not-started':
      return { kind: 'leave', reason: 'NOT_STARTED', line: detection.line, model: null };
    case 'server': {
      const model = detection.model;
      if (model.ignored) return { kind: 'leave', reason: 'IGNORED', line: model.line, model };
      if (model.sdk && model.blockers.length === 0) {
        if (refused.sdk === undefined) return { kind: 'sdk', model, style: requestedStyle };
        return { kind: 'envelope', blocker: { code: 'SDK_ANSWERS_DIFFERENTLY', line: model.line, detail: `the SDK rewrite answered worse than the original: ${refused.sdk}` }, model };
      }
      // a transport or library (an SDK's own stdio transport vendored in the tree): nothing here starts it,
      // and it answers nothing itself; the envelope would rewrite code whose server is elsewhere
      if (model.methods.length === 0 && isStartedByImporter(model.facts)) return { kind: 'leave', reason: 'NOT_STARTED', line: model.line, model };
      const blocker = model.blockers[0] ?? { code: 'NO_DISPATCH', line: model.line, detail: 'no dispatch was found' };
      return { kind: 'envelope', blocker, model };
    }
  }
}

/**
 * The runner declined the SDK rewrite of this file for a reason outside it (entry files sharing a server
 * module that need different SDK rewrites of it): a planned SDK rewrite becomes the envelope with that
 * reason; every other plan stands.
 */
export function decideWithSdkDeclined(plan: Plan, declined: PipelineOptions['sdkDeclined']): Plan {
  if (declined === undefined || plan.kind !== 'sdk') return plan;
  return { kind: 'envelope', blocker: { code: declined.reason, line: plan.model.line, detail: declined.detail }, model: plan.model };
}

/** The SDK rewrite of a planned server failed its own checks: the envelope takes it, and says why. */
export function decideAfterSdkFailure(model: ServerModel, detail: string, line: number): Plan {
  return { kind: 'envelope', blocker: { code: 'OUTPUT_CHECK_FAILED', line: line || model.line, detail }, model };
}
