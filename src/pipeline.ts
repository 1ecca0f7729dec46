// One file through the phases: parse once -> detect -> plan -> rewrite -> print once.
// Pure: no I/O, no printing. The runner feeds it text and gets a FileResult back.
import type { File } from '@babel/types';
import { detectServer } from './detect/server-model.js';
import type { Decision, FileResult, ModuleKind, PipelineOptions } from './model/types.js';
import { toModelSnapshot } from './model/server-model.js';
import { parseSource, SourceParseError } from './parse.js';
import { decidePlan, getLeaveHint, toSdkDecision } from './plan/plan.js';
import { rewriteToSdk } from './rewrite/sdk.js';

/**
 * Cheap text test run before parsing: a hand-rolled server (or an SDK server that writes to stdout)
 * must mention stdin or stdout and a JSON-RPC shape. False negatives are bugs; false positives only cost time.
 */
export function mayContainServer(source: string): boolean {
  return /process\.std(in|out)|writeSync\(\s*1\b|StdioServerTransport/.test(source) && /jsonrpc|method|Content-Length/i.test(source);
}

export function processSource(path: string, source: string, options: PipelineOptions): FileResult {
  const result: FileResult = { path, before: source, decision: { kind: 'none' }, fixes: [], findings: [], diagnostics: [] };
  if (!mayContainServer(source)) return result;
  let ast: File;
  try {
    ast = parseSource(path, source);
  } catch (err) {
    if (err instanceof SourceParseError) {
      return { ...result, error: `does not parse: ${err.message}${err.line ? ` (${err.line}:${err.column})` : ''}` };
    }
    throw err;
  }
  const detection = detectServer(ast);
  const plan = decidePlan(detection);
  switch (plan.kind) {
    case 'none':
      return result;
    case 'leave':
      return { ...result, decision: leave(plan.reason, plan.line) };
    case 'envelope-candidate':
      return { ...result, decision: leave(plan.reason, plan.line), diagnostics: [{ code: plan.reason, message: plan.detail, line: plan.line }] };
    case 'sdk': {
      const moduleKind = options.moduleKind ?? inferModuleKind(path, plan.model.syntax);
      const rewritten = rewriteToSdk({ ast, source, path, model: plan.model, sdk: options.sdk, moduleKind });
      if ('failed' in rewritten) {
        return { ...result, decision: leave(rewritten.reason, rewritten.line), diagnostics: [{ code: rewritten.reason, message: rewritten.failed, line: rewritten.line }] };
      }
      return {
        ...result,
        after: rewritten.after === source ? undefined : rewritten.after,
        decision: toSdkDecision(options, rewritten.notes),
        detected: describeModel(plan.model),
        fixes: [...plan.fixes, ...rewritten.fixes],
      };
    }
  }
}

function leave(reason: string, line?: number): Decision {
  return { kind: 'leave', reason, hint: getLeaveHint(reason), line };
}

function inferModuleKind(path: string, syntax: 'import' | 'require' | 'none'): ModuleKind {
  if (/\.m[jt]s$/i.test(path)) return 'esm';
  if (/\.c[jt]s$/i.test(path)) return 'cjs';
  return syntax === 'import' ? 'esm' : 'cjs';
}

/** One line for the diff header: what the server is. */
function describeModel(model: Parameters<typeof toModelSnapshot>[0]): string {
  const input = { 'readline-line': "readline 'line' events", 'readline-for-await': 'for await over readline', 'stdin-data': "stdin 'data' chunks" }[model.input.kind];
  const dispatch = { 'if-chain': 'if-chain', switch: 'switch', 'handler-map': 'handler map' }[model.dispatch.kind];
  const writer = model.writerNames.length ? `${model.writerNames.join('/')}() writer` : model.writeKinds.includes('console') ? 'console.log writer' : 'inline stdout writes';
  return `${input}, ${writer}, ${dispatch} on method: ${model.methods.map((m) => m.method).join(', ')}`;
}
