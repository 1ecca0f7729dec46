// `mcp-migrate verify --compare "<original>" -- <migrated>`: runs the comparison engine
// (src/verify/compare.ts) on two server commands, prints the contract diff — differences, fixes, what
// both still get wrong, what was normalised — as text or `--report json`, and turns it into the exit
// code. The diff lines are shared with `--verify` (./verify-step.ts).
//
// Exit codes: 0 both answer alike (fixes allowed); 1 they differ; 3 a server could not be started or
// exited before answering initialize; 130 interrupted.
import { assertNever } from '../model/assert-never.js';
import { compareServers, type Checked, type CompareResult, type ContractDiff } from '../verify/compare.js';
import type { VerifyOptions } from '../verify/probe.js';
import type { VerifyCliOptions } from './args.js';
import { escapeServerText } from './escape.js';
import { createPaint, shouldColor, type Paint } from './render.js';
import { formatCommand, VERIFY_EXIT, withInterruptSignal, type VerifyCliDeps } from './verify.js';
import { getToolVersion } from './version.js';

/** The `verify --compare --report json` document. */
export interface CompareReport {
  schemaVersion: 1;
  mode: 'compare';
  framing: VerifyCliOptions['framing'];
  timeoutMs: number;
  methods: string[];
  original: CompareSideReport;
  migrated: CompareSideReport;
  /** true when the two answer alike (fixes allowed). */
  equal: boolean;
  /** Set when a server could not be started (exit 3). */
  error?: { side: 'original' | 'migrated'; message: string; stderrTail: string };
  compared: number;
  differences: ContractDiff['differences'];
  fixes: ContractDiff['fixes'];
  unfixed: ContractDiff['unfixed'];
  notes: string[];
}

export interface CompareSideReport {
  command: string[];
  server: { name: string; version: string } | null;
  protocolVersion: string | null;
  /** Requests not sent, with why. */
  notSent: string[];
  /** Each time the server exited mid-way and was started again. */
  restarts: string[];
}

/** `originalCwd`: where the original starts (--compare-ref: the exported tree), default the cwd. */
export async function runCompare(options: VerifyCliOptions & { compare: string[] }, deps: VerifyCliDeps, originalCwd: string = deps.cwd): Promise<number> {
  const side = ([command, ...args]: readonly string[], signal: AbortSignal, cwd: string = deps.cwd): VerifyOptions => ({
    command: command as string,
    args,
    cwd,
    env: deps.serverEnv ?? process.env,
    framing: options.framing,
    timeoutMs: options.timeoutMs,
    clientInfo: { name: 'mcp-migrate', version: getToolVersion() },
    methods: options.methods,
    signal,
  });
  // One after the other: two commands typed by hand may well share files a tool writes.
  const result = await withInterruptSignal(deps.signal, (signal) =>
    compareServers({ original: side(options.compare, signal, originalCwd), migrated: side(options.command, signal), parallel: false }),
  );
  const human = options.report === null ? deps.stdout : deps.stderr;
  const paint = createPaint(shouldColor(human.isTTY, deps.env));
  const errorPaint = createPaint(shouldColor(deps.stderr.isTTY, deps.env));
  switch (result.kind) {
    case 'aborted':
      deps.stderr.write('mcp-migrate verify: interrupted; the servers were stopped.\n');
      return VERIFY_EXIT.interrupted;
    case 'not-started': {
      const command = result.side === 'original' ? options.compare : options.command;
      deps.stderr.write(errorPaint.error(`mcp-migrate verify: the ${result.side} server (${formatCommand(command)}): ${result.reason}.\n`));
      if (result.stderrTail !== '') deps.stderr.write(`Its stderr ended with:\n${indent(result.stderrTail, '  ')}\n`);
      if (options.report === 'json') deps.stdout.write(renderCompareJson(buildCompareReport(options, result)));
      return VERIFY_EXIT.notStarted;
    }
    case 'compared':
      if (options.report === 'json') deps.stdout.write(renderCompareJson(buildCompareReport(options, result)));
      else deps.stdout.write(renderCompareText(options, result, paint));
      return result.equal ? VERIFY_EXIT.ok : VERIFY_EXIT.failed;
    default:
      return assertNever(result);
  }
}

export function buildCompareReport(options: VerifyCliOptions & { compare: string[] }, result: Exclude<CompareResult, { kind: 'aborted' }>): CompareReport {
  const sideReport = (command: string[], checked: Checked | null): CompareSideReport => ({
    command,
    server: checked?.serverInfo ?? null,
    protocolVersion: checked?.protocolVersion ?? null,
    notSent: checked?.contract.notSent ?? [],
    restarts: checked?.contract.restarts ?? [],
  });
  const base = { schemaVersion: 1 as const, mode: 'compare' as const, framing: options.framing, timeoutMs: options.timeoutMs, methods: [...options.methods] };
  if (result.kind === 'not-started') {
    return {
      ...base,
      original: sideReport([...options.compare], null),
      migrated: sideReport([...options.command], null),
      equal: false,
      error: { side: result.side, message: result.reason, stderrTail: result.stderrTail },
      compared: 0,
      differences: [],
      fixes: [],
      unfixed: [],
      notes: [],
    };
  }
  return {
    ...base,
    original: sideReport([...options.compare], result.original),
    migrated: sideReport([...options.command], result.migrated),
    equal: result.equal,
    compared: result.compared,
    differences: result.differences,
    fixes: result.fixes,
    unfixed: result.unfixed,
    notes: result.notes,
  };
}

export function renderCompareJson(report: CompareReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/**
 * The text report:
 *   Compared node server.orig.js (original) with node server.js (migrated) (ndjson, 3000 ms per reply)
 *     original: unit-converter 0.3.1, protocol 2024-11-05; migrated: unit-converter 0.3.1, protocol 2025-06-18
 *   Differences (1):
 *     tools/call convert (error message)
 *       original: "Unknown unit: parsec"
 *       migrated: "params is not defined"
 *   Fixes (2): ...
 *   The servers answer differently: 1 difference in 14 requests compared.
 */
export function renderCompareText(options: VerifyCliOptions & { compare: string[] }, result: Extract<CompareResult, { kind: 'compared' }>, paint: Paint): string {
  const describe = (checked: Checked): string =>
    `${checked.serverInfo === null ? 'no serverInfo' : escapeServerText(`${checked.serverInfo.name} ${checked.serverInfo.version}`)}, protocol ${escapeServerText(checked.protocolVersion ?? '(none)')}`;
  const lines = [
    paint.bold(`Compared ${formatCommand(options.compare)} (original) with ${formatCommand(options.command)} (migrated) (${options.framing}, ${options.timeoutMs} ms per reply)`),
    `  original: ${describe(result.original)}; migrated: ${describe(result.migrated)}`,
    ...renderDiffLines(result, paint, '  '),
  ];
  for (const [name, checked] of [['original', result.original], ['migrated', result.migrated]] as const) {
    for (const line of checked.contract.notSent) lines.push(paint.dim(`  not sent to the ${name}: ${line}`));
    for (const line of checked.contract.restarts) lines.push(paint.warn(`  ${name}: ${line}`));
    if (checked.contract.cutShort !== undefined) lines.push(paint.warn(`  ${name}: ${checked.contract.cutShort}`));
  }
  const n = result.differences.length;
  lines.push(
    n === 0
      ? paint.added(`The servers answer alike: ${result.compared} requests compared${result.fixes.length > 0 ? `, ${result.fixes.length} fix(es)` : ''}.`)
      : paint.removed(`The servers answer differently: ${n} difference(s) in ${result.compared} requests compared.`),
  );
  return `${lines.join('\n')}\n`;
}

/** The diff as indented lines: differences, fixes, what both still break, what was normalised. */
export function renderDiffLines(diff: ContractDiff, paint: Paint, pad: string): string[] {
  const lines: string[] = [];
  if (diff.differences.length > 0) {
    lines.push(paint.removed(`${pad}Differences (${diff.differences.length}):`));
    for (const d of diff.differences) {
      lines.push(`${pad}  ${escapeServerText(d.what)} (${d.aspect})`, `${pad}    original: ${escapeServerText(d.original)}`, `${pad}    migrated: ${escapeServerText(d.migrated)}`);
    }
  }
  if (diff.fixes.length > 0) {
    lines.push(paint.added(`${pad}Fixes (${diff.fixes.length}), not differences:`));
    for (const f of diff.fixes) lines.push(`${pad}  ${escapeServerText(f.what)}`, paint.dim(`${pad}    original: ${escapeServerText(f.original)}`), paint.dim(`${pad}    migrated: ${escapeServerText(f.migrated)}`));
  }
  if (diff.expected.length > 0) {
    lines.push(paint.dim(`${pad}Expected (${diff.expected.length}), wire changes the diff header lists:`));
    for (const e of diff.expected) lines.push(paint.dim(`${pad}  ${escapeServerText(e.what)} (${e.change})`));
  }
  if (diff.unfixed.length > 0) lines.push(paint.warn(`${pad}Broken in both (${diff.unfixed.length}): ${diff.unfixed.map((u) => u.rule).join(', ')}`));
  for (const note of diff.notes) lines.push(paint.dim(`${pad}normalised: ${escapeServerText(note)}`));
  return lines;
}

function indent(text: string, pad: string): string {
  return text
    .split('\n')
    .map((line) => `${pad}${line}`)
    .join('\n');
}
