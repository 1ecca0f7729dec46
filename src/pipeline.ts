// One file through the phases: parse once -> facts (analysis/) -> detect -> plan -> rewrite -> re-check.
// Pure: no printing, and the only reads are of the modules the file imports, through the `read`
// callback the runner hands in. The runner feeds it text and gets a FileResult back.
import type { File } from '@babel/types';
import { basename } from 'node:path';
import { checkRewrite } from './analysis/check.js';
import { buildFacts, type FileFacts, getLoopModulesStartedElsewhere } from './analysis/facts.js';
import { isInertText } from './analysis/inert.js';
import { getModuleCandidates } from './analysis/program.js';
import type { ReadModule } from './analysis/read-module.js';
import { auditFacts, markFixed } from './audit/index.js';
import { detectServer } from './detect/server.js';
import { getHint, type ReasonCode } from './model/reasons.js';
import { mayContainServer, READS_STDIN, RELATIVE_IMPORT, usesSdkStdio } from './prefilter.js';
import { type Decision, type Diagnostic, type FileResult, type PipelineOptions, servesBothEras } from './model/types.js';
import { describeWireChange, NEW_ERA_NOTE, type WireChange } from './model/wire-changes.js';
import { parseSource, SourceParseError } from './parse.js';
import { decideAfterBoundaryFailure, decideAfterSdkFailure, decidePlan, decideWithSdkDeclined, type Plan } from './plan/plan.js';
import { type BoundaryRewrite, rewriteBoundary } from './rewrite/boundary/index.js';
import { type EnvelopeRewrite, rewriteEnvelope } from './rewrite/envelope/index.js';
import { decideMcpServerStyle } from './rewrite/mcp-server.js';
import { rewriteToSdk } from './rewrite/sdk.js';
import { rewriteSdkServerStdout } from './rewrite/sdk-stdout.js';
import { rewriteSdkUpgrade, type SdkUpgrade } from './rewrite/sdk-upgrade.js';
import { loadCodemod } from './rewrite/codemod.js';
import type { StdioConnection } from './analysis/sdk-wiring.js';

// the prefilter lives on its own so that the runner can test files without loading the parser
export { mayContainServer, READS_STDIN, USES_SDK_STDIO } from './prefilter.js';


/**
 * A file that does not read stdin itself is a server only if a module it imports (a few levels deep)
 * does: a text search over those files, before anything is parsed.
 */
function reachesStdin(path: string, source: string, read: ReadModule | null): boolean {
  if (source.includes(READS_STDIN)) return true;
  if (read === null) return false;
  const seen = new Set<string>([path]);
  let frontier: { path: string; source: string }[] = [{ path, source }];
  for (let depth = 0; depth < 3 && frontier.length > 0; depth++) {
    const next: { path: string; source: string }[] = [];
    for (const file of frontier) {
      for (const match of file.source.matchAll(/(?:require\(\s*|from\s+|import\s*\(\s*)['"](\.\.?\/[^'"]+)['"]/g)) {
        for (const candidate of getModuleCandidates(file.path, match[1]!)) {
          if (seen.has(candidate)) continue;
          seen.add(candidate);
          const text = read(candidate);
          if (text === null) continue;
          if (text.includes(READS_STDIN)) return true;
          next.push({ path: candidate, source: text });
          break;
        }
      }
    }
    frontier = next;
  }
  return false;
}

/** `read`, asked once per path (a missing file's null included). */
function readOnce(read: ReadModule): ReadModule {
  const texts = new Map<string, string | null>();
  return (path) => {
    let text = texts.get(path);
    if (text === undefined) {
      text = read(path);
      texts.set(path, text);
    }
    return text;
  };
}

export function processSource(path: string, source: string, options: PipelineOptions, readFile: ReadModule | null = null): FileResult {
  const empty: FileResult = { path, before: source, decision: { kind: 'none' }, fixes: [], findings: [], diagnostics: [] };
  // each file of the program read once for all the phases (the text tests below, the program, its
  // import aliases' package.json and tsconfig, the re-check of the rewrite)
  const read = readFile === null ? null : readOnce(readFile);
  // a file the prefilter rejects can still be the entry of a server whose loop lives in a module it imports
  if (!mayContainServer(source) && !RELATIVE_IMPORT.test(source)) return empty;
  if (!reachesStdin(path, source, read) && !usesSdkStdio(source)) return empty;
  // nothing can come of it, as its modules' texts tell (no MCP vocabulary; no form that takes stdin in, or no JSON parse): not parsed
  if (isInertText(path, source, read)) return empty;
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
  const detection = detectServer(facts);
  const model = detection.kind === 'server' ? detection.model : null;
  const findings = auditFacts(facts, model);
  const plan = decideWithSdkDeclined(decidePlan(detection, options.style, options.refused, options.upgradeSdk ?? options.sdk === 'v2', options.sdk), options.sdkDeclined, options.refused);
  const outcome = withEraNote(carryOut(plan, ast, path, source, options, facts, read));
  const result: FileResult = { ...empty, ...outcome, findings: markFixed(findings, outcome.decision, model) };
  const loopIn = outcome.decision.kind === 'none' ? null : getLoopModulesStartedElsewhere(facts);
  if (loopIn !== null) result.startedByImporter = loopIn;
  return result;
}

type Outcome = Partial<FileResult> & { decision: Decision };

/** Every rewrite that serves both eras says what a 2026-07-28 client meets there, last (once: a v1 move holds its inner upgrade's). */
function withEraNote(outcome: Outcome): Outcome {
  const { decision } = outcome;
  if (!servesBothEras(decision) || (decision.kind !== 'sdk' && decision.kind !== 'boundary') || decision.notes.includes(NEW_ERA_NOTE)) return outcome;
  return { ...outcome, decision: { ...decision, notes: [...decision.notes, NEW_ERA_NOTE] } };
}

/** A server on SDK v2 wired the 2025 way moves to `serveStdio`; its stdout writes move to stderr with it. */
function carryOutUpgrade(connection: StdioConnection, line: number, ast: File, path: string, source: string, options: PipelineOptions, facts: FileFacts, read: ReadModule | null): Outcome {
  const upgraded = rewriteSdkUpgrade(facts.entry, facts.sinks, connection);
  const problem = 'failed' in upgraded ? upgraded.failed : checkRewrite({ path, source, ast }, upgraded.changes, read, false, true)?.message ?? null;
  if (problem !== null) return { decision: leave('STDIO_WIRING_UNREAD', line), diagnostics: [{ code: 'STDIO_WIRING_UNREAD', message: `the upgrade to serveStdio could not be written: ${problem}`, line }] };
  if (options.refused?.sdk !== undefined) return { decision: leave('VERIFY_DIFFERENT', line), diagnostics: [verifyDifferent('serving it through serveStdio', options.refused.sdk)] };
  const { changes, notes, fixes } = upgraded as SdkUpgrade;
  return {
    after: changes.get(path)?.after,
    related: [...changes].filter(([p]) => p !== path).map(([p, c]) => ({ path: p, before: c.before, after: c.after })),
    decision: { kind: 'sdk', sdk: 'v2', style: 'server', notes, already: 'era' },
    fixes,
  };
}

/**
 * A server on SDK v1 moves to v2 by the official codemod (in memory, every module of the program that
 * imports v1), and the result is taken through the pipeline again: its 2025-era wiring moves to
 * `serveStdio` as for any server on v2. Where the codemod cannot complete a module, or the moved server
 * cannot be upgraded, it stays on v1, with the reason.
 */
function carryOutV1Move(line: number, path: string, source: string, options: PipelineOptions, entry: string, facts: FileFacts, read: ReadModule | null): Outcome {
  const stay = (message: string, at = line): Outcome => ({ decision: leave('SDK_V1_WIRING', at), diagnostics: [{ code: 'SDK_V1_WIRING', message, line: at }] });
  const codemod = loadCodemod(entry);
  if (typeof codemod === 'string') return stay(`@modelcontextprotocol/codemod is installed but ${codemod}`);
  const moved = new Map<string, string>();
  const notes: string[] = [];
  for (const mod of facts.program.modules) {
    if (!mod.source.includes('@modelcontextprotocol/sdk')) continue;
    const outcome = codemod.move(mod.path, mod.source);
    if ('failed' in outcome) return stay(`${basename(mod.path)}: ${outcome.failed}`, mod.path === path ? outcome.line : line);
    if (outcome.text !== mod.source) moved.set(mod.path, outcome.text);
    notes.push(...outcome.notes);
  }
  const overlay: ReadModule = (p) => moved.get(p) ?? read?.(p) ?? null;
  const inner = processSource(path, moved.get(path) ?? source, { ...options, sdk: 'v2', codemod: undefined }, overlay);
  if (inner.decision.kind !== 'sdk' || inner.decision.already !== 'era' || inner.after === undefined) {
    const why = inner.decision.kind === 'leave' ? `${inner.decision.reason} — ${inner.decision.hint}` : inner.error ?? 'it is not a server on v2 the tool can upgrade';
    return stay(`moved to v2 by ${codemod.label}, the server could not be upgraded to the 2026-07-28 era: ${why}`);
  }
  const originals = new Map(facts.program.modules.map((m) => [m.path, m.source]));
  const related = new Map<string, { before: string; after: string }>();
  for (const [p, text] of moved) if (p !== path) related.set(p, { before: originals.get(p)!, after: text });
  for (const r of inner.related ?? []) related.set(r.path, { before: originals.get(r.path) ?? r.before, after: r.after });
  // what v2 answers otherwise than v1 whatever the code: listed, and expected by the proof
  const readsResources = facts.program.modules.some((m) => /ReadResourceRequestSchema|['"]resources\/read['"]/.test(m.source));
  const wireChanges: WireChange[] = ['V1_ERROR_PREFIX', 'BAD_JSON_IGNORED', ...(readsResources ? (['RESOURCE_NOT_FOUND_CODE'] as const) : [])];
  const eraNotes = wireChanges.map((change) => `wire change: ${describeWireChange(change, 'v2')}`);
  return {
    after: inner.after,
    related: [...related].map(([p, c]) => ({ path: p, before: c.before, after: c.after })),
    decision: { ...inner.decision, notes: [`moved from SDK v1 to v2 by ${codemod.label} (v1-to-v2), in memory`, ...notes, ...inner.decision.notes, ...eraNotes], already: 'v1', wireChanges },
    fixes: inner.fixes,
  };
}

function carryOut(plan: Plan, ast: File, path: string, source: string, options: PipelineOptions, facts: FileFacts, read: ReadModule | null): Outcome {
  switch (plan.kind) {
    case 'none':
      return { decision: { kind: 'none' } };
    case 'sdk-server': {
      if (plan.upgrade !== null) return carryOutUpgrade(plan.upgrade, plan.line, ast, path, source, options, facts, read);
      if (plan.leave?.reason === 'SDK_V1_WIRING' && options.codemod !== undefined) return carryOutV1Move(plan.leave.line, path, source, options, options.codemod, facts, read);
      // An SDK server that also writes to stdout corrupts its own transport: those writes go to stderr,
      // whether or not the server can be upgraded to the current era (why not is a note then)
      const moved = rewriteSdkServerStdout(facts.entry, facts.sinks);
      if (moved && plan.leave !== null) moved.notes.push(`not upgraded to the 2026-07-28 era: ${plan.leave.reason} — ${getHint(plan.leave.reason)}`);
      if (!moved && plan.leave !== null) return { decision: leave(plan.leave.reason, plan.leave.line) };
      if (moved && options.refused?.sdk !== undefined) return { decision: leave('VERIFY_DIFFERENT', plan.line), diagnostics: [verifyDifferent('moving its stdout writes to stderr', options.refused.sdk)] };
      if (moved) return { after: moved.after, decision: { kind: 'sdk', sdk: options.sdk, style: options.style, notes: moved.notes, already: 'stdout' }, fixes: moved.fixes };
      // (a server on serveStdio is where the tool would take it: nothing to say)
      return { decision: plan.current ? { kind: 'none' } : leave('ALREADY_ON_SDK', plan.line) };
    }
    case 'leave':
      return { decision: leave(plan.reason, plan.line), detected: plan.model?.summary };
    case 'sdk': {
      const model = plan.model;
      const rewritten = rewriteToSdk(model, options.sdk, options.moduleKind, options.guardStdout ?? true);
      if ('failed' in rewritten) return carryOut(decideAfterSdkFailure(model, rewritten.failed, rewritten.line, options.refused, rewritten.code), ast, path, source, options, facts, read);
      // the output is analysed again before it is offered: no stdout writes left, no name left unbound
      const problem = checkRewrite({ path, source, ast }, rewritten.changes, read, true);
      if (problem) {
        const where = problem.path === path ? '' : `${problem.path.split(/[\\/]/).pop()}: `;
        return carryOut(decideAfterSdkFailure(model, `the SDK rewrite failed its re-check: ${where}${problem.message}`, problem.line, options.refused), ast, path, source, options, facts, read);
      }
      // --style mcp-server: McpServer + registerTool where the tool split is proven, else the server style and why
      const styled = plan.style === 'mcp-server' ? decideMcpServerStyle({ path, source, ast }, rewritten.changes, options.sdk, read, options.refused?.mcpServer) : null;
      if (styled) rewritten.changes = styled.changes;
      const entry = rewritten.changes.get(path);
      const related = [...rewritten.changes].filter(([p]) => p !== path).map(([p, c]) => ({ path: p, before: c.before, after: c.after }));
      // what v2 prescribes whatever the server did, listed: its transport skips a line that is not JSON,
      // and its codecs send a resource miss (-32002) as -32602 in both eras
      const era: WireChange[] = options.sdk !== 'v2' ? [] : ['BAD_JSON_IGNORED', ...(model.methods.includes('resources/read') ? (['RESOURCE_NOT_FOUND_CODE'] as const) : [])];
      const wireChanges: WireChange[] = [...(styled?.wireChanges ?? []), ...era];
      const eraNotes = era.map((change) => `wire change: ${describeWireChange(change, options.sdk)}`);
      return {
        after: entry?.after,
        related,
        decision: styled
          ? { kind: 'sdk', sdk: options.sdk, style: styled.style, notes: [...styled.notes, ...rewritten.notes, ...eraNotes], wireChanges, ...(styled.styleReason ? { styleReason: styled.styleReason } : {}) }
          : { kind: 'sdk', sdk: options.sdk, style: 'server', notes: [...rewritten.notes, ...eraNotes], ...(wireChanges.length > 0 ? { wireChanges } : {}) },
        detected: model.summary,
        methods: model.methods,
        fixes: rewritten.fixes,
        dropped: model.sdk!.dropped.map((d) => {
          const where = `${d.mod.path === path ? '' : `${basename(d.mod.path)}:`}line ${d.line}: \`${d.text}\``;
          if (d.method !== null) return `${where}, run only for ${d.method}: the SDK answers ${d.method} itself and never runs the server's code for it`;
          return `${where}, logging in the writer ${d.writer}: the SDK writes the replies itself, and the writer goes`;
        }),
      };
    }
    case 'boundary': {
      const { blocker } = plan;
      const diagnostic = { code: blocker.code, message: blocker.detail, line: blocker.line };
      const detected = plan.model?.summary ?? `reads stdin through ${describeStdin(plan)}, writes via ${[...new Set(plan.boundary.sinks.map((s) => s.channel))].join('/') || 'stdout'}`;
      const rewritten = rewriteBoundary({ facts: plan.facts, boundary: plan.boundary, reason: blocker.code, sdk: options.sdk, moduleKind: options.moduleKind, guardStdout: options.guardStdout, sharedModules: options.sdkDeclined !== undefined });
      const problem = 'failed' in rewritten ? rewritten.failed : checkBoundary(path, source, ast, rewritten.changes, read);
      if (problem !== null) {
        const next = carryOut(decideAfterBoundaryFailure(plan, problem), ast, path, source, options, facts, read);
        return { ...next, diagnostics: [diagnostic, { code: 'BOUNDARY_CHECK_FAILED', message: `the rewrite onto the SDK at the boundary failed its re-check: ${problem}`, line: blocker.line }, ...(next.diagnostics ?? []).filter((d) => d.code !== diagnostic.code)] };
      }
      const changes = rewritten as BoundaryRewrite;
      const methods = plan.model?.methods ?? plan.boundary.methods;
      return {
        after: changes.changes.get(path)?.after,
        related: [...changes.changes].filter(([p]) => p !== path).map(([p, c]) => ({ path: p, before: c.before, after: c.after })),
        companions: changes.changes.size > 0 ? changes.companions : [],
        decision: { kind: 'boundary', sdk: options.sdk, reason: blocker.code, hint: getHint(blocker.code), line: blocker.line, notes: changes.notes },
        detected,
        methods,
        fixes: changes.fixes,
        diagnostics: [diagnostic],
      };
    }
    case 'envelope': {
      const { blocker, model, reason } = plan;
      const diagnostics: Diagnostic[] = [{ code: blocker.code, message: blocker.detail, line: blocker.line }];
      if (reason.code !== blocker.code) diagnostics.push({ code: reason.code, message: reason.detail, line: blocker.line });
      if (options.refused?.envelope !== undefined) {
        return { decision: leave('VERIFY_DIFFERENT', blocker.line), detected: model.summary, methods: model.methods, diagnostics: [...diagnostics, verifyDifferent('the envelope', options.refused.envelope)] };
      }
      const rewritten = rewriteEnvelope(model, reason.code, options.moduleKind);
      const problem = 'failed' in rewritten ? rewritten.failed : checkEnvelope(path, source, ast, rewritten.changes, read);
      if (problem !== null) {
        return {
          decision: leave('ENVELOPE_UNPROVEN', blocker.line),
          detected: model.summary,
          methods: model.methods,
          diagnostics: [...diagnostics, { code: 'ENVELOPE_UNPROVEN', message: `the envelope rewrite could not be proven: ${problem}`, line: blocker.line }],
        };
      }
      const changes = rewritten as EnvelopeRewrite;
      const entry = changes.changes.get(path);
      return {
        after: entry?.after,
        related: [...changes.changes].filter(([p]) => p !== path).map(([p, c]) => ({ path: p, before: c.before, after: c.after })),
        companions: changes.changes.size > 0 ? changes.companions : [],
        decision: { kind: 'envelope', reason: reason.code, hint: getHint(reason.code), line: blocker.line },
        detected: model.summary,
        methods: model.methods,
        fixes: changes.fixes,
        diagnostics,
      };
    }
  }
}

/** How the program reads stdin, for the diff header of a server whose messages were not followed. */
function describeStdin(plan: Extract<Plan, { kind: 'boundary' }>): string {
  const consumer = plan.facts.consumers[0];
  if (consumer !== undefined) return { data: "'data' chunks", readable: "'readable' reads", line: "readline 'line' events", 'for-await': 'for await' }[consumer.kind];
  return 'process.stdin';
}

/** The boundary's output is analysed again: it must parse, keep every name bound, and neither read stdin nor write stdout itself. */
function checkBoundary(path: string, source: string, ast: File, changes: BoundaryRewrite['changes'], read: ReadModule | null): string | null {
  const problem = checkRewrite({ path, source, ast }, changes, read, false, false, true);
  return problem === null ? null : `${problem.path.split(/[\\/]/).pop()}:${problem.line}: ${problem.message}`;
}

/** The envelope's output is analysed again too: it must parse and keep every name bound. */
function checkEnvelope(path: string, source: string, ast: File, changes: EnvelopeRewrite['changes'], read: ReadModule | null): string | null {
  const problem = checkRewrite({ path, source, ast }, changes, read, false, true);
  return problem === null ? null : `${problem.path.split(/[\\/]/).pop()}:${problem.line}: ${problem.message}`;
}

function verifyDifferent(rewrite: string, differences: string): Diagnostic {
  return { code: 'VERIFY_DIFFERENT', message: `run side by side with the original, ${rewrite} answered worse, so it is not offered: ${differences}` };
}

function leave(reason: ReasonCode, line?: number): Decision {
  return { kind: 'leave', reason, hint: getHint(reason), line };
}

