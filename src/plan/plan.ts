// PURE: what detection found -> what to do with the file, with a typed reason for everything that is
// not a plain SDK rewrite. The chain is: the SDK at the dispatcher where the model proves it keeps
// behaviour; otherwise the SDK at the boundary (the SDK owns the wire and hands each request to the
// server's own handling), which needs only where messages come in and go out; the envelope where the
// SDK cannot carry the server (Content-Length framing, a stdin it cannot replace, a proof that the
// boundary answers worse); "left alone" only for ignored files, runtimes the tool does not handle, input
// no form can take, and stdio code nothing in the scanned files starts that answers no request (a
// transport).
import type { FileFacts } from '../analysis/facts.js';
import type { StdioConnection } from '../analysis/sdk-wiring.js';
import { getLine } from '../analysis/ast.js';
import { isStartedByImporter } from '../analysis/facts.js';
import type { Detection } from '../detect/server.js';
import { type Blocker, type BlockerReason, type BoundaryReason, type EnvelopeReason, isBoundaryReason, type LeaveReason } from '../model/reasons.js';
import type { BoundaryFacts, ServerModel } from '../model/server-model.js';
import type { PipelineOptions, RefusedRewrites, SdkTarget, Style } from '../model/types.js';

export type Plan =
  | { kind: 'none' }
  /**
   * Already on the SDK: its own stdout writes move to stderr, and `upgrade`, when set, moves its 2025-era
   * stdio wiring to `serveStdio`. `leave`: why it is not upgraded, when that is worth saying.
   */
  /** `current`: it serves both protocol eras already (serveStdio): nothing to say of it unless it writes to stdout. */
  | { kind: 'sdk-server'; line: number; upgrade: StdioConnection | null; leave: { reason: LeaveReason; line: number } | null; current: boolean }
  | { kind: 'leave'; reason: LeaveReason; line: number; model: ServerModel | null }
  /** `style`: the requested one; the pipeline writes mcp-server only where the tool split is proven. */
  | { kind: 'sdk'; model: ServerModel; style: Style }
  /** `blocker`: why the dispatcher-level rewrite was not made. `model` is null when no message was followed. */
  | { kind: 'boundary'; blocker: Blocker & { code: BoundaryReason }; facts: FileFacts; boundary: Extract<BoundaryFacts, { available: true }>; model: ServerModel | null }
  /** `blocker`: why the dispatcher-level rewrite was not made; `reason`: why the SDK cannot carry the server. */
  | { kind: 'envelope'; blocker: Blocker; reason: { code: EnvelopeReason; detail: string }; model: ServerModel };

/** `refused`: the rewrites a side-by-side run already showed to answer worse; the chain goes on past them. */
export function decidePlan(detection: Detection, requestedStyle: Style = 'server', refused: RefusedRewrites = {}, upgradeSdk = false, sdk: SdkTarget = 'v1'): Plan {
  switch (detection.kind) {
    case 'none':
      return { kind: 'none' };
    case 'sdk-server':
      return decideSdkServer(detection, upgradeSdk);
    case 'foreign-runtime':
      return { kind: 'leave', reason: 'UNSUPPORTED_RUNTIME', line: detection.line, model: null };
    case 'unfollowed-input': {
      const blocker = { code: 'INPUT_NOT_FOLLOWED' as const, line: detection.line, detail: 'no message was followed from stdin to a reply' };
      if (detection.boundary.available && refused.boundary === undefined) return { kind: 'boundary', blocker, facts: detection.facts, boundary: detection.boundary, model: null };
      return { kind: 'leave', reason: 'UNFOLLOWED_INPUT', line: detection.line, model: null };
    }
    case 'not-started':
      return { kind: 'leave', reason: 'NOT_STARTED', line: detection.line, model: null };
    case 'server': {
      const model = detection.model;
      if (model.ignored) return { kind: 'leave', reason: 'IGNORED', line: model.line, model };
      if (model.sdk && model.blockers.length === 0) {
        // SDK v2 sends a resource miss as -32602: a server that answers it -32002 keeps that code for
        // 2025-era clients behind the boundary, where the boundary can be put
        if (sdk === 'v2' && model.methods.includes('resources/read') && model.facts.namesResourceMissCode && model.boundary.available && refused.boundary === undefined) {
          return decideBelowSdk({ code: 'RESOURCE_MISS_CODE', line: model.line, detail: 'the server answers a missing resource -32002; SDK v2 at the dispatcher would send -32602' }, model, refused);
        }
        if (refused.sdk === undefined) return { kind: 'sdk', model, style: requestedStyle };
        return decideBelowSdk({ code: 'SDK_ANSWERS_DIFFERENTLY', line: model.line, detail: `the dispatcher-level rewrite answered worse than the original: ${refused.sdk}` }, model, refused);
      }
      // a transport or library (an SDK's own stdio transport vendored in the tree): nothing here starts it,
      // and it answers nothing itself; a rewrite would change code whose server is elsewhere
      if (model.methods.length === 0 && isStartedByImporter(model.facts)) return { kind: 'leave', reason: 'NOT_STARTED', line: model.line, model };
      return decideBelowSdk(model.blockers[0] ?? { code: 'NO_DISPATCH', line: model.line, detail: 'no dispatch was found' }, model, refused);
    }
  }
}

/**
 * A server already on the SDK. `upgradeSdk` (every run but `--sdk v1`): one wired the 2025 way on v2 (one
 * `connect(new StdioServerTransport())` the analysis read) moves to `serveStdio`; a v1 server is pointed at
 * the official codemod, which moves v1 code to v2 (the upgrade follows on a second run); code the codemod
 * marked as unfinished, or wiring not read, is said so. A server that already serves through `serveStdio`
 * (or has no stdio transport) only has its stdout writes moved, if any.
 */
function decideSdkServer(detection: Extract<Detection, { kind: 'sdk-server' }>, upgradeSdk: boolean): Plan {
  const { wiring, line } = detection;
  const stay = (leave: { reason: LeaveReason; line: number } | null): Plan => ({ kind: 'sdk-server', line, upgrade: null, leave, current: wiring.servesBothEras });
  if (!upgradeSdk || wiring.servesBothEras || (wiring.connections.length === 0 && wiring.unpaired.length === 0)) return stay(null);
  const marker = wiring.codemodMarkers[0];
  if (marker !== undefined) return stay({ reason: 'CODEMOD_MARKERS', line: marker.line });
  if (wiring.generations.has('v1')) return stay({ reason: 'SDK_V1_WIRING', line });
  const connection = wiring.connections[0];
  if (wiring.connections.length !== 1 || wiring.unpaired.length > 0 || connection === undefined) return stay({ reason: 'STDIO_WIRING_UNREAD', line: wiring.unpaired[0]?.line ?? line });
  // serveStdio owns the transport's callbacks: one the code sets would be replaced, silently
  if (connection.callbacks.length > 0) return stay({ reason: 'TRANSPORT_CALLBACKS_SET', line: getLine(connection.transport, line) });
  return { kind: 'sdk-server', line, upgrade: connection, leave: null, current: false };
}

/**
 * The runner declined the SDK rewrite of this file for a reason outside it (entry files sharing a server
 * module that need different SDK rewrites of it): a planned SDK rewrite goes down the chain with that
 * reason; every other plan stands.
 */
export function decideWithSdkDeclined(plan: Plan, declined: PipelineOptions['sdkDeclined'], refused: RefusedRewrites = {}): Plan {
  if (declined === undefined || plan.kind !== 'sdk') return plan;
  return decideBelowSdk({ code: declined.reason, line: plan.model.line, detail: declined.detail }, plan.model, refused);
}

/** The SDK rewrite of a planned server failed its own checks, or its code cannot be written (`code`): the next form of the chain takes it, and says why. */
export function decideAfterSdkFailure(model: ServerModel, detail: string, line: number, refused: RefusedRewrites = {}, code: BlockerReason = 'OUTPUT_CHECK_FAILED'): Plan {
  return decideBelowSdk({ code, line: line || model.line, detail }, model, refused);
}

/** The boundary rewrite failed its own checks: the envelope takes the server, and says why. */
export function decideAfterBoundaryFailure(plan: Extract<Plan, { kind: 'boundary' }>, detail: string): Plan {
  if (plan.model === null) return { kind: 'leave', reason: 'UNFOLLOWED_INPUT', line: plan.blocker.line, model: null };
  return { kind: 'envelope', blocker: plan.blocker, reason: { code: 'BOUNDARY_CHECK_FAILED', detail }, model: plan.model };
}

/**
 * Below the dispatcher-level rewrite: the SDK at the boundary where it can be put and was not refused,
 * else the envelope with the reason the SDK cannot carry the server.
 */
function decideBelowSdk(blocker: Blocker, model: ServerModel, refused: RefusedRewrites): Plan {
  const boundary = model.boundary;
  if (boundary.available && refused.boundary === undefined && isBoundaryReason(blocker.code)) {
    return { kind: 'boundary', blocker: { ...blocker, code: blocker.code }, facts: model.facts, boundary, model };
  }
  const reason: { code: EnvelopeReason; detail: string } = !boundary.available
    ? { code: boundary.reason, detail: boundary.detail }
    : !isBoundaryReason(blocker.code)
      ? { code: blocker.code, detail: blocker.detail }
      : { code: 'BOUNDARY_ANSWERS_DIFFERENTLY', detail: `the SDK at the boundary answered worse than the original: ${refused.boundary ?? ''}` };
  return { kind: 'envelope', blocker, reason, model };
}
