// One file through the phases: parse once -> detect -> plan -> rewrite -> print once.
// Pure: no I/O, no printing. The runner feeds it text and gets a FileResult back.
import type { File } from '@babel/types';
import { auditSource, markFixed } from './audit/index.js';
import { findEnvelopeReason } from './detect/envelope-signals.js';
import { detectServer } from './detect/server-model.js';
import type { ServerModel } from './model/server-model.js';
import type { Decision, Diagnostic, FileResult, ModuleKind, PipelineOptions } from './model/types.js';
import { parseSource, SourceParseError } from './parse.js';
import { ENVELOPE_REASONS } from './model/envelope-reasons.js';
import { decidePlan, getLeaveHint, toSdkDecision } from './plan/plan.js';
import { rewriteEnvelope } from './rewrite/envelope/index.js';
import { rewriteToSdk } from './rewrite/sdk.js';
import { rewriteSdkServerStdout } from './rewrite/sdk-stdout.js';

/**
 * Cheap text test run before parsing. A hand-rolled server reads `process.stdin` and speaks JSON-RPC; an
 * SDK server is only a candidate when it also writes to stdout itself. False negatives are bugs; false
 * positives only cost a parse.
 */
export function mayContainServer(source: string): boolean {
  if (source.includes(READS_STDIN)) return /jsonrpc|method|Content-Length/i.test(source);
  return source.includes(USES_SDK_STDIO) && /console\.(log|info|debug)\(|process\.stdout\.write/.test(source);
}

const READS_STDIN = 'process.stdin';
const USES_SDK_STDIO = 'StdioServerTransport';

/** The first half of `mayContainServer` on raw bytes, before decoding: most files of a tree stop here. */
export function mayContainServerBytes(bytes: Buffer): boolean {
  return bytes.includes(READS_STDIN) || bytes.includes(USES_SDK_STDIO);
}

export function processSource(path: string, source: string, options: PipelineOptions): FileResult {
  const empty: FileResult = { path, before: source, decision: { kind: 'none' }, fixes: [], findings: [], diagnostics: [] };
  if (!mayContainServer(source)) return empty;
  let ast: File;
  try {
    ast = parseSource(path, source);
  } catch (err) {
    if (err instanceof SourceParseError) {
      return { ...empty, error: `does not parse: ${err.message}${err.line ? ` (${err.line}:${err.column})` : ''}` };
    }
    throw err;
  }
  const findings = auditSource(ast, source);
  const result = decideAndRewrite(ast, path, source, options);
  return { ...empty, ...result, findings: markFixed(findings, result.decision ?? { kind: 'none' }) };
}

type Outcome = Partial<FileResult> & { decision: Decision };

function decideAndRewrite(ast: File, path: string, source: string, options: PipelineOptions): Outcome {
  const plan = decidePlan(detectServer(ast));
  switch (plan.kind) {
    case 'none':
      return { decision: { kind: 'none' } };
    case 'leave':
      if (plan.reason === 'ALREADY_ON_SDK') {
        // An SDK server that also writes to stdout corrupts its own transport: those writes go to stderr.
        const moved = rewriteSdkServerStdout(ast, source);
        if (moved) return { after: moved.after, decision: { kind: 'sdk', sdk: options.sdk, style: options.style, notes: moved.notes }, fixes: moved.fixes };
      }
      return { decision: leave(plan.reason, plan.line) };
    case 'envelope-candidate':
      return tryEnvelope(ast, path, source, { code: plan.reason, message: plan.detail, line: plan.line });
    case 'sdk': {
      const moduleKind = options.moduleKind ?? inferModuleKind(path, plan.model.syntax);
      const rewritten = rewriteToSdk({ ast, source, path, model: plan.model, sdk: options.sdk, style: options.style, moduleKind });
      if ('failed' in rewritten) return tryEnvelope(ast, path, source, { code: rewritten.reason, message: rewritten.failed, line: rewritten.line });
      return {
        after: rewritten.after === source ? undefined : rewritten.after,
        decision: toSdkDecision({ ...options, style: rewritten.style }, rewritten.notes),
        detected: describeModel(plan.model),
        fixes: [...plan.fixes, ...rewritten.fixes],
      };
    }
  }
}

/**
 * The SDK rewrite could not take the server. When the envelope detector names a reason (framing,
 * computed dispatch, ...), the envelope fallback keeps the structure and fixes the wire; otherwise
 * the file is left alone with the diagnostic that stopped the SDK rewrite.
 */
function tryEnvelope(ast: File, path: string, source: string, why: Diagnostic): Outcome {
  const signal = findEnvelopeReason(ast, source);
  if (!signal) return { decision: leave(why.code, why.line), diagnostics: [why] };
  const rewritten = rewriteEnvelope(ast, source, path, signal.reason);
  const decision: Decision = { kind: 'envelope', reason: signal.reason, hint: ENVELOPE_REASONS[signal.reason].hint, line: signal.line };
  if ('failed' in rewritten) {
    return { decision: leave(signal.reason, signal.line), diagnostics: [{ code: signal.reason, message: `${signal.detail}; the envelope rewrite could not be proven: ${rewritten.failed}`, line: signal.line }] };
  }
  return {
    after: rewritten.after === source ? undefined : rewritten.after,
    companions: rewritten.companions,
    decision,
    detected: signal.detail,
    fixes: rewritten.fixes,
    diagnostics: [{ code: signal.reason, message: signal.detail, line: signal.line }],
  };
}

function leave(reason: string, line?: number): Decision {
  return { kind: 'leave', reason, hint: getLeaveHint(reason), line };
}

function inferModuleKind(path: string, syntax: ServerModel['syntax']): ModuleKind {
  if (/\.m[jt]s$/i.test(path)) return 'esm';
  if (/\.c[jt]s$/i.test(path)) return 'cjs';
  return syntax === 'import' ? 'esm' : 'cjs';
}

/** One line for the diff header: what the server is. */
function describeModel(model: ServerModel): string {
  const input = { 'readline-line': "readline 'line' events", 'readline-for-await': 'for await over readline', 'stdin-data': "stdin 'data' chunks" }[model.input.kind];
  const dispatch = { 'if-chain': 'if-chain', switch: 'switch', 'handler-map': 'handler map' }[model.dispatch.kind];
  const writer = model.writerNames.length ? `${model.writerNames.join('/')}() writer` : model.writeKinds.includes('console') ? 'console.log writer' : 'inline stdout writes';
  return `${input}, ${writer}, ${dispatch} on method: ${model.methods.map((m) => m.method).join(', ')}`;
}
