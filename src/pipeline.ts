// One file through the phases: parse once -> facts (analysis/) -> detect -> plan -> rewrite -> re-check.
// Pure: no printing, and the only reads are of the modules the file imports, through the `read`
// callback the runner hands in. The runner feeds it text and gets a FileResult back.
import type { File } from '@babel/types';
import { checkRewrite } from './analysis/check.js';
import { buildFacts, type FileFacts } from './analysis/facts.js';
import type { ReadModule } from './analysis/program.js';
import { auditSource, markFixed } from './audit/index.js';
import { detectServer } from './detect/server.js';
import { getHint } from './model/reasons.js';
import type { Decision, FileResult, PipelineOptions } from './model/types.js';
import { parseSource, SourceParseError } from './parse.js';
import { decideAfterSdkFailure, decidePlan, type Plan } from './plan/plan.js';
import { rewriteEnvelope } from './rewrite/envelope/index.js';
import { rewriteToSdk } from './rewrite/sdk.js';
import { rewriteSdkServerStdout } from './rewrite/sdk-stdout.js';

/**
 * Cheap text test run before parsing. A hand-rolled server reads stdin (`process.stdin`, a destructured
 * `stdin`, a stream handed in) and speaks JSON-RPC; an SDK server is only a candidate when it also writes
 * to stdout itself. False negatives are bugs; false positives only cost a parse.
 */
export function mayContainServer(source: string): boolean {
  // an entry that hands stdin to a server class in another module speaks JSON-RPC only there
  if (source.includes(READS_STDIN)) return /jsonrpc|method|Content-Length|require\(\s*['"]\.\.?\/|from\s+['"]\.\.?\//i.test(source);
  return source.includes(USES_SDK_STDIO) && /console\.(log|info|debug)\(|process\.stdout\.write/.test(source);
}

const READS_STDIN = 'stdin';
const USES_SDK_STDIO = 'StdioServerTransport';

/** The first half of `mayContainServer` on raw bytes, before decoding: most files of a tree stop here. */
export function mayContainServerBytes(bytes: Buffer): boolean {
  return bytes.includes(READS_STDIN) || bytes.includes(USES_SDK_STDIO);
}

export function processSource(path: string, source: string, options: PipelineOptions, read: ReadModule | null = null): FileResult {
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
  const facts = buildFacts(path, source, ast, read);
  let findings: FileResult['findings'] = [];
  try {
    findings = auditSource(ast, source);
  } catch {
    findings = [];
  }
  const plan = decidePlan(detectServer(facts));
  const outcome = carryOut(plan, ast, path, source, options, facts, read);
  return { ...empty, ...outcome, findings: markFixed(findings, outcome.decision) };
}

type Outcome = Partial<FileResult> & { decision: Decision };

function carryOut(plan: Plan, ast: File, path: string, source: string, options: PipelineOptions, facts: FileFacts, read: ReadModule | null): Outcome {
  switch (plan.kind) {
    case 'none':
      return { decision: { kind: 'none' } };
    case 'sdk-server': {
      // An SDK server that also writes to stdout corrupts its own transport: those writes go to stderr.
      const moved = rewriteSdkServerStdout(facts.entry, facts.sinks);
      if (moved) return { after: moved.after, decision: { kind: 'sdk', sdk: options.sdk, style: options.style, notes: moved.notes }, fixes: moved.fixes };
      return { decision: leave('ALREADY_ON_SDK', plan.line) };
    }
    case 'leave':
      return { decision: leave(plan.reason, plan.line), detected: plan.model?.summary };
    case 'sdk': {
      const model = plan.model;
      const rewritten = rewriteToSdk(model, options.sdk, options.moduleKind);
      if ('failed' in rewritten) return carryOut(decideAfterSdkFailure(model, rewritten.failed, rewritten.line), ast, path, source, options, facts, read);
      // the output is analysed again before it is offered: no stdout writes left, no name left unbound
      const problem = checkRewrite({ path, source, ast }, rewritten.changes, read, true);
      if (problem) {
        const where = problem.path === path ? '' : `${problem.path.split(/[\\/]/).pop()}: `;
        return carryOut(decideAfterSdkFailure(model, `the SDK rewrite failed its re-check: ${where}${problem.message}`, problem.line), ast, path, source, options, facts, read);
      }
      const entry = rewritten.changes.get(path);
      const related = [...rewritten.changes].filter(([p]) => p !== path).map(([p, c]) => ({ path: p, before: c.before, after: c.after }));
      return {
        after: entry?.after,
        related,
        decision: { kind: 'sdk', sdk: options.sdk, style: options.style, notes: rewritten.notes },
        detected: model.summary,
        fixes: rewritten.fixes,
      };
    }
    case 'envelope': {
      const { blocker, model } = plan;
      const rewritten = rewriteEnvelope(ast, source, path, blocker.code);
      const diagnostic = { code: blocker.code, message: blocker.detail, line: blocker.line };
      if ('failed' in rewritten) {
        return {
          decision: leave('ENVELOPE_UNPROVEN', blocker.line),
          detected: model.summary,
          diagnostics: [diagnostic, { code: 'ENVELOPE_UNPROVEN', message: `the envelope rewrite could not be proven: ${rewritten.failed}`, line: blocker.line }],
        };
      }
      return {
        after: rewritten.after === source ? undefined : rewritten.after,
        companions: rewritten.companions,
        decision: { kind: 'envelope', reason: blocker.code, hint: getHint(blocker.code), line: blocker.line },
        detected: model.summary,
        fixes: rewritten.fixes,
        diagnostics: [diagnostic],
      };
    }
  }
}

function leave(reason: string, line?: number): Decision {
  return { kind: 'leave', reason, hint: getHint(reason), line };
}

