// `mcp-migrate verify`: runs the probe engine (src/verify/probe.ts) on a server command and prints
// what it found — one line per rule, or a JSON report — and turns it into the exit code. It does no
// probing itself, and the engine does no printing.
//
// With --compare it hands over to ./compare.ts; with --baseline, the rules the file lists may fail
// and a listed rule that passes fails the run (src/verify/baseline.ts).
//
// Exit codes: 0 every rule passes; 1 some rule fails (or the baseline is stale); 2 a --baseline file
// that cannot be read (other usage errors are decided by args.ts before this runs); 3 the server could
// not be started or exited before answering initialize.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { assertNever } from '../model/assert-never.js';
import { escapeServerText } from './escape.js';
import { applyBaseline, parseBaseline, type BaselineVerdict } from '../verify/baseline.js';
import { verifyServer, type RuleResult, type VerifyResult } from '../verify/probe.js';
import { VERIFY_RULES, type VerifyRuleId } from '../verify/rules.js';
import type { VerifyCliOptions } from './args.js';
import { createPaint, shouldColor, type Paint } from './render.js';
import { getToolVersion } from './version.js';

export const VERIFY_EXIT = { ok: 0, failed: 1, usage: 2, notStarted: 3, interrupted: 130 } as const;

interface Stream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface VerifyCliDeps {
  stdout: Stream;
  stderr: Stream;
  /** For NO_COLOR. */
  env: Readonly<Record<string, string | undefined>>;
  /** Where the server is started. */
  cwd: string;
  /** The server's environment (default: this process's). */
  serverEnv?: NodeJS.ProcessEnv;
  /** Stops the run early; by default Ctrl-C (SIGINT) and SIGTERM do, and the server is stopped too. */
  signal?: AbortSignal;
}

/** The `--report json` document. */
export interface VerifyReport {
  schemaVersion: 1;
  /** The server command as given, one array item per argument. */
  command: string[];
  framing: VerifyCliOptions['framing'];
  timeoutMs: number;
  /** true when every rule passes (with --baseline: every failure is listed there, and no listed rule passes). */
  ok: boolean;
  /** `serverInfo` from the initialize result. */
  server: { name: string; version: string } | null;
  /** Set when the server could not be started or exited before answering initialize (exit 3); `results` is then empty. */
  error?: { message: string; stderrTail: string };
  results: Array<Pick<RuleResult, 'rule' | 'ok' | 'detail' | 'skipped'> & { spec: string; expected?: true }>;
  /** With --baseline: the file, and how the results measure up to it. */
  baseline?: { file: string; expectedFailures: VerifyRuleId[]; unexpectedFailures: VerifyRuleId[]; stale: VerifyRuleId[] };
}

export async function runVerify(options: VerifyCliOptions, deps: VerifyCliDeps): Promise<number> {
  if (options.compare !== null) {
    const { runCompare } = await import('./compare.js');
    return runCompare({ ...options, compare: options.compare }, deps);
  }
  if (options.compareRef !== undefined) {
    // The original: the same command, run in a temp export of the repository at the ref.
    const { checkoutRef } = await import('../runner/ref-checkout.js');
    const checked = await checkoutRef(deps.cwd, options.compareRef, options.command);
    if (checked.kind === 'error') {
      deps.stderr.write(`mcp-migrate verify: --compare-ref: ${checked.message}.\n`);
      return VERIFY_EXIT.usage;
    }
    const { checkout } = checked;
    const human = options.report === null ? deps.stdout : deps.stderr;
    human.write(`Original: ${options.compareRef} (${checkout.commit.slice(0, 12)}), exported to ${checkout.dir} with the installed packages linked.\n`);
    try {
      const { runCompare } = await import('./compare.js');
      return await runCompare({ ...options, compare: checkout.command }, deps, checkout.cwd);
    } finally {
      await checkout.remove();
    }
  }
  let baseline: Baseline | null = null;
  if (options.baseline !== null) {
    const text = await readFile(resolve(deps.cwd, options.baseline), 'utf8').catch((err: NodeJS.ErrnoException) => err);
    const parsed = typeof text === 'string' ? parseBaseline(text) : { ok: false as const, message: `cannot be read (${text.code ?? text.message})` };
    if (!parsed.ok) {
      deps.stderr.write(`mcp-migrate verify: --baseline ${options.baseline} ${parsed.message}.\n`);
      return VERIFY_EXIT.usage;
    }
    baseline = { file: options.baseline, rules: parsed.rules };
  }
  const [command, ...args] = options.command;
  const result = await withInterruptSignal(deps.signal, (signal) =>
    verifyServer({
      command,
      args,
      cwd: deps.cwd,
      env: deps.serverEnv ?? process.env,
      framing: options.framing,
      timeoutMs: options.timeoutMs,
      clientInfo: { name: 'mcp-migrate', version: getToolVersion() },
      methods: options.methods,
      signal,
    }),
  );
  const human = options.report === null ? deps.stdout : deps.stderr;
  const paint = createPaint(shouldColor(human.isTTY, deps.env));
  const errorPaint = createPaint(shouldColor(deps.stderr.isTTY, deps.env));
  const shown = formatCommand(options.command);

  switch (result.kind) {
    case 'aborted':
      deps.stderr.write(`mcp-migrate verify: interrupted; ${shown} was stopped.\n`);
      return VERIFY_EXIT.interrupted;
    case 'not-started':
      deps.stderr.write(errorPaint.error(`mcp-migrate verify: ${result.reason}.\n`));
      if (result.stderrTail !== '') deps.stderr.write(`Its stderr ended with:\n${indent(result.stderrTail)}\n`);
      if (options.report === 'json') deps.stdout.write(renderVerifyJson(buildVerifyReport(options, result)));
      return VERIFY_EXIT.notStarted;
    case 'checked': {
      const verdict = baseline === null ? null : applyBaseline(result.results, baseline.rules);
      if (options.report === 'json') deps.stdout.write(renderVerifyJson(buildVerifyReport(options, result, baseline === null || verdict === null ? null : { ...baseline, verdict })));
      else deps.stdout.write(renderVerifyText(shown, options, result, paint, baseline === null || verdict === null ? null : { ...baseline, verdict }));
      if (result.exitedEarly !== null) {
        const how = result.exitedEarly.signal !== null ? `was killed by ${result.exitedEarly.signal}` : `exited with code ${result.exitedEarly.code}`;
        human.write(paint.warn(`note: the server ${how} during the probes.\n`));
        if (result.stderrTail !== '') human.write(`Its stderr ended with:\n${indent(result.stderrTail)}\n`);
      }
      const ok = verdict === null ? result.results.every((r) => r.ok) : verdict.ok;
      return ok ? VERIFY_EXIT.ok : VERIFY_EXIT.failed;
    }
    default:
      return assertNever(result);
  }
}

/** A --baseline file as read: its name as given and the rules it lists. */
interface Baseline {
  file: string;
  rules: VerifyRuleId[];
}

type JudgedBaseline = Baseline & { verdict: BaselineVerdict };

/** Runs `work` with a signal that aborts on Ctrl-C / SIGTERM / SIGHUP (a closed terminal), unless the caller brings its own. */
export async function withInterruptSignal<T>(given: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (given !== undefined) return work(given);
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  process.on('SIGINT', abort);
  process.on('SIGTERM', abort);
  process.on('SIGHUP', abort);
  try {
    return await work(controller.signal);
  } finally {
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
    process.off('SIGHUP', abort);
  }
}

export function buildVerifyReport(options: VerifyCliOptions, result: Exclude<VerifyResult, { kind: 'aborted' }>, baseline: JudgedBaseline | null = null): VerifyReport {
  const base = { schemaVersion: 1 as const, command: [...options.command], framing: options.framing, timeoutMs: options.timeoutMs };
  if (result.kind === 'not-started') {
    return { ...base, ok: false, server: null, error: { message: result.reason, stderrTail: result.stderrTail }, results: [] };
  }
  const expected = new Set(baseline?.verdict.expected ?? []);
  return {
    ...base,
    ok: baseline === null ? result.results.every((r) => r.ok) : baseline.verdict.ok,
    server: result.serverInfo,
    results: result.results.map(({ rule, ok, detail, skipped }) => ({
      rule,
      ok,
      detail,
      ...(skipped ? { skipped } : {}),
      ...(expected.has(rule) ? { expected: true as const } : {}),
      spec: VERIFY_RULES[rule].spec,
    })),
    ...(baseline === null
      ? {}
      : { baseline: { file: baseline.file, expectedFailures: baseline.verdict.expected, unexpectedFailures: baseline.verdict.unexpected, stale: baseline.verdict.stale } }),
  };
}

export function renderVerifyJson(report: VerifyReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/**
 * The text report:
 *   Checked node server.js (ndjson, 3000 ms per reply): unit-converter 0.3.1
 *   PASS no initialize-failed        initialize answered by unit-converter 0.3.1 (protocol "2024-11-05")
 *   FAIL ping-unanswered             ping: no reply within 3000 ms
 * Rule ids name what goes wrong, so a passing rule reads "no <rule>"; the heading says what was checked,
 * not that it was verified (a command that is no server fails every rule under it).
 *        hint: Answer `ping` with `result: {}`; …
 *   4 of 10 rules fail: ping-unanswered, …
 */
export function renderVerifyText(
  shown: string,
  options: VerifyCliOptions,
  result: Extract<VerifyResult, { kind: 'checked' }>,
  paint: Paint,
  baseline: JudgedBaseline | null = null,
): string {
  const server = result.serverInfo === null ? '' : `: ${escapeServerText(`${result.serverInfo.name} ${result.serverInfo.version}`)}`;
  const lines = [paint.bold(`Checked ${shown} (${options.framing}, ${options.timeoutMs} ms per reply)${server}`)];
  const width = Math.max(...result.results.map((r) => r.rule.length)) + 3;
  const expected = new Set(baseline?.verdict.expected ?? []);
  for (const r of result.results) {
    const status = r.skipped ? paint.dim('SKIP') : r.ok ? paint.added('PASS') : expected.has(r.rule) ? paint.warn('XFAIL') : paint.removed('FAIL');
    lines.push(`${status} ${(r.ok && !r.skipped ? `no ${r.rule}` : r.rule).padEnd(width)}  ${escapeServerText(r.detail)}`);
    if (!r.ok && !r.skipped && !expected.has(r.rule)) {
      lines.push(paint.dim(`     hint: ${VERIFY_RULES[r.rule].hint}`));
      lines.push(paint.dim(`     spec: ${VERIFY_RULES[r.rule].spec}`));
    }
  }
  for (const name of result.contract.notSent) lines.push(paint.dim(`note: not sent: ${name}`));
  for (const restart of result.contract.restarts) lines.push(paint.warn(`note: ${restart}`));
  if (result.contract.cutShort !== undefined) lines.push(paint.warn(`note: ${result.contract.cutShort}`));
  const failed = result.results.filter((r) => !r.ok && !r.skipped && !expected.has(r.rule));
  const skipped = result.results.filter((r) => r.skipped).length;
  const notChecked = skipped === 0 ? '' : ` (${skipped} not checked)`;
  if (baseline !== null) {
    if (expected.size > 0) lines.push(paint.warn(`${expected.size} expected failure(s) listed in ${baseline.file}: ${[...expected].join(', ')}`));
    for (const rule of baseline.verdict.stale) lines.push(paint.removed(`STALE ${rule}: listed in ${baseline.file} as an expected failure, but it passes; remove it from the baseline`));
  }
  const stale = baseline?.verdict.stale.length ?? 0;
  lines.push(
    failed.length === 0 && stale === 0
      ? paint.added(`All ${result.results.length} rules pass${expected.size > 0 ? ', or fail as the baseline expects' : ''}.`)
      : failed.length === 0
        ? paint.removed(`The baseline is stale: ${stale} listed rule(s) pass.`)
        : paint.removed(
            result.results.some((r) => r.rule === 'initialize-failed' && !r.ok)
              ? `${shown} did not answer initialize as an MCP server: ${failed.length} of ${result.results.length} rules fail: ${failed.map((r) => r.rule).join(', ')}${notChecked}`
              : `${failed.length} of ${result.results.length} rules fail: ${failed.map((r) => r.rule).join(', ')}${notChecked}`,
          ),
  );
  return `${lines.join('\n')}\n`;
}

/** The command as a shell would need it typed (arguments with spaces or quotes are quoted). */
export function formatCommand(argv: readonly string[]): string {
  return argv.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(' ');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
