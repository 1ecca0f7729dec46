// PURE: what detection found -> what the rewrite should do, with reasons, and which compliance bugs of
// the original the SDK fixes as a side effect (shown in the diff header, never dropped silently).
import { LEAVE_REASONS } from '../model/reasons.js';
import type { Detection, ServerModel } from '../model/server-model.js';
import type { Decision, PipelineOptions } from '../model/types.js';

export type Plan =
  | { kind: 'none' }
  | { kind: 'leave'; reason: string; hint: string; line?: number }
  /** Try the SDK rewrite; `fixes` are the original's bugs the SDK removes. */
  | { kind: 'sdk'; model: ServerModel; fixes: string[] }
  /** A server the SDK rewrite cannot take: the envelope fallback may, for this reason. */
  | { kind: 'envelope-candidate'; reason: string; line: number; detail: string };

export function decidePlan(detection: Detection): Plan {
  switch (detection.kind) {
    case 'none':
      return { kind: 'none' };
    case 'sdk-server':
      return { kind: 'leave', reason: 'ALREADY_ON_SDK', hint: LEAVE_REASONS.ALREADY_ON_SDK, line: detection.line };
    case 'unsupported':
      if (detection.reason === 'IGNORED') return { kind: 'leave', reason: 'IGNORED', hint: LEAVE_REASONS.IGNORED, line: detection.line };
      return { kind: 'envelope-candidate', reason: detection.reason, line: detection.line, detail: detection.detail };
    case 'server':
      return { kind: 'sdk', model: detection.model, fixes: listSdkFixes(detection.model) };
  }
}

export function getLeaveHint(reason: string): string {
  return (LEAVE_REASONS as Record<string, string>)[reason] ?? reason;
}

export function toSdkDecision(options: PipelineOptions, notes: string[]): Decision {
  return { kind: 'sdk', sdk: options.sdk, style: options.style, notes };
}

/** Bugs of the original visible in the model that the SDK transport and Server fix. */
export function listSdkFixes(model: ServerModel): string[] {
  const fixes: string[] = [];
  const methods = new Set(model.methods.map((m) => m.method));
  if (!methods.has('ping')) fixes.push('ping is answered (the original had no ping handler)');
  if (!model.fallback) fixes.push('unknown methods get -32601 (the original sent no reply, so clients hung)');
  else if (model.fallback.code !== -32601) fixes.push(`unknown methods get -32601 (the original answered ${model.fallback.code ?? 'a non-standard error'})`);
  for (const method of model.notificationReplies) fixes.push(`${method} gets no reply (the original answered a notification)`);
  if (model.fallback && !model.notificationReplies.length && model.dispatch.protocol.kind !== 'return-result' && !guardsNotifications(model)) {
    fixes.push('notifications get no reply (the original fallback answered them with an error)');
  }
  return fixes;
}

/** Whether the loop drops id-less messages before dispatching (`if (msg.id === undefined) return`). */
function guardsNotifications(model: ServerModel): boolean {
  return model.droppedInLoop.some((node) => JSON.stringify(node, (key, value) => (key === 'loc' || key === 'start' || key === 'end' ? undefined : value)).includes('"name":"id"'));
}
