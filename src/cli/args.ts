// Command-line flags -> CliOptions. Strict: an unknown flag or a bad value is a usage error with a
// message that says what was wrong and what is accepted. Deliberately does no I/O.
import { parseArgs } from 'node:util';
import type { SdkTarget, Style } from '../model/types.js';
import { FRAMINGS, type Framing } from '../verify/framing.js';
import { DEFAULT_VERIFY_TIMEOUT_MS, VERIFY_RUN_TIMEOUT_MS } from '../verify/timeouts.js';
import type { ReportFormat } from './report/index.js';

export type RunMode = 'apply' | 'dry-run' | 'check';

export interface CliOptions {
  paths: string[];
  mode: RunMode;
  yes: boolean;
  force: boolean;
  sdk: SdkTarget | 'auto';
  style: Style;
  /** `--no-guard-stdout`: SDK output without the console guard. */
  guardStdout: boolean;
  /** `--no-lockfile`: a written package.json's lockfile is not updated (the install command is said instead). */
  lockfile: boolean;
  report: ReportFormat | null;
  output: string | null;
  /** null: one per core. Never more than the cores (more threads only add memory: 1,000 took 10 GB). */
  jobs: number | null;
  /** A git ref: only files changed since it (committed, uncommitted or untracked) are looked at. */
  changedSince: string | null;
  /**
   * How rewrites are proven before they are offered: the original and the migrated server run side by
   * side in temp copies and are compared (src/runner/prove.ts). `safe` calls no tool with valid
   * arguments; `calls` (`--verify=calls`) adds one schema-valid call per tool; `off` (`--no-verify`).
   * Default: `safe` for a run that writes, `off` for --check and --dry-run (`--verify` turns it on there).
   */
  verify: VerifyMode;
  /** `--allow-unverified`: with --yes, also write rewrites that could not be run (listed NOT_VERIFIED). */
  allowUnverified: boolean;
  /** `--verify-timeout MS`: how long verification waits for each reply (a slow start-up, tsx). */
  verifyTimeoutMs?: number;
  /** `--ignore GLOB` (repeatable, gitignore syntax, relative to the scanned directory). */
  ignore: string[];
  /** `--include GLOB` (repeatable): when given, only matching files are looked at. */
  include: string[];
  /** `--summary`: one line per file instead of the diffs (CI logs). */
  summary: boolean;
  /** `--full-diff`: show vendored helper files (the envelope module) in full instead of one line. */
  fullDiff: boolean;
  /** `--patch FILE|-`: write one `git apply`-able patch of everything the run would write. */
  patch: string | null;
}

export type VerifyMode = 'off' | 'safe' | 'calls';
const VERIFY_LEVELS = ['safe', 'calls'] as const;

/** `mcp-migrate verify [options] [--] <command> [args...]`. */
export interface VerifyCliOptions {
  /** The server command and its arguments, as typed (never empty). */
  command: [string, ...string[]];
  framing: Framing;
  /** Per-reply timeout in milliseconds. */
  timeoutMs: number;
  report: 'json' | null;
  /** `--compare "<original command>"`: the original server's command, split into words (the command after `--` is the migrated one). */
  compare: string[] | null;
  /** `--method NAME` (repeatable): custom methods to call, with `params: {}`. */
  methods: string[];
  /** `--baseline FILE`: the rules expected to fail. */
  baseline: string | null;
  /** `--compare-ref REF`: the original is the server as committed at REF (a temp checkout of the whole package). */
  compareRef?: string;
}

export type ParsedArgs =
  | { kind: 'run'; options: CliOptions }
  | { kind: 'verify'; options: VerifyCliOptions }
  /** `topic: 'verify'` for `mcp-migrate verify --help`. */
  | { kind: 'help'; topic?: 'verify' }
  | { kind: 'version' }
  | { kind: 'usage-error'; message: string; topic?: 'verify' };

const SDK_VALUES = ['v1', 'v2', 'auto'] as const;
const STYLE_VALUES = ['server', 'mcp-server'] as const;
const REPORT_VALUES = ['json', 'markdown', 'sarif'] as const;

export const USAGE = `Usage: mcp-migrate [options] [paths...]
       mcp-migrate verify [options] -- <command> [args...]   (see mcp-migrate verify --help)

Finds hand-rolled MCP stdio servers under the given files and directories (default ".") and moves
them onto the official SDK, or into a compliant JSON-RPC envelope. Every change is shown as a diff
and applied only when you say so.

Options:
  --dry-run                      print the diffs and the plan, write nothing (exit 0)
  --check                        like --dry-run, but exit 1 while any migration is pending
  -y, --yes                      apply everything without asking
  --force                        run even if the git work tree has uncommitted changes
  --sdk v1|v2|auto               SDK to target (default auto: v2, which serves 2025-era and 2026-07-28
                                 clients; v1 where the package already depends on @modelcontextprotocol/sdk);
                                 a server on v2 wired with connect(StdioServerTransport) is upgraded to
                                 serveStdio unless --sdk v1; --sdk v2 also moves a server on v1, with
                                 @modelcontextprotocol/codemod when it is installed
  --style server|mcp-server      low-level Server + setRequestHandler (default), or McpServer.registerTool
  --no-guard-stdout              SDK output without the line that sends console.log/info/debug
                                 (a dependency's logger too) to stderr in the migrated entry point
  --no-lockfile                  do not update the lockfile of a package.json the run writes (by default
                                 npm/pnpm/yarn berry update it without installing, so \`npm ci\` passes)
  --report json|markdown|sarif   print a machine-readable report (to stdout, or to --output)
  --output FILE                  write the report to FILE instead of stdout
  --jobs N                       threads for the analysis (default and maximum: the number of cores; the
                                 workers leave the main thread a core; 1: all on the main thread)
  --changed-since REF            only look at files changed since the git ref REF (committed,
                                 uncommitted or untracked), e.g. a pull request's base:
                                 --changed-since origin/main
  --no-verify                    write without proving: by default every rewrite that would be
                                 written first runs next to its original (a trial copy of the package
                                 it alone may write to, no network; no tool is called with valid
                                 arguments);
                                 one that answers worse falls back (SDK -> envelope -> left alone)
  --verify[=calls]               prove --check and --dry-run too; =calls adds one valid call per tool
                                 (that runs the tools' code)
  --allow-unverified             with --yes, also write rewrites that could not be run (NOT_VERIFIED)
  --verify-timeout MS            how long verification waits for each reply (default ${VERIFY_RUN_TIMEOUT_MS});
                                 initialize gets three times as long, start-up included
  --ignore GLOB                  leave matching files out (repeatable; .gitignore syntax, relative to
                                 the scanned directory), e.g. --ignore 'test/**' --ignore 'examples/'
  --include GLOB                 look only at matching files (repeatable; same syntax)
  --summary                      one line per file (path, decision, reason, findings) instead of diffs
  --full-diff                    show the vendored envelope helper in full in every diff (default: one line)
  --patch FILE|-                 write everything the run would write as one patch for \`git apply\`
                                 (- for stdout); new files included
  -h, --help                     show this help
  -v, --version                  print the version

What is looked at: inside a git work tree, the files git lists (what .gitignore ignores is not);
outside one, .gitignore files are respected and node_modules, dist, build and coverage are skipped.
A nested git checkout, or in a workspace a package that is not one of its members, is skipped and
named in the summary (name it, or --include it, to scan it). A file holding the comment
// mcp-migrate-ignore is left alone. Files larger than 1 MB and TypeScript declaration files (.d.ts)
are skipped: they are bundles, generated code or types, never a hand-written server.

Exit codes: 0 done or nothing to do; 1 --check found pending migrations or a server left alone
that still breaks the protocol, or a rewrite was not written because it answered differently or
could not be verified (not in a --dry-run); 2 usage error (a bad flag, a missing path, no terminal
for the review, a dirty git tree without --force); 3 some files could not be processed (or another
run is writing in the same tree); 130 interrupted (Ctrl-C at a review question).

Examples:
  mcp-migrate ./src                              review each change, then write it
  mcp-migrate --check --summary .                CI: one line per file, exit 1 while one is pending
  mcp-migrate --check --ignore 'test/**' .       leave the test fixtures alone
  mcp-migrate --dry-run --patch - . > mcp.patch  the whole migration as a patch (git apply mcp.patch)
  mcp-migrate --yes --report json .              batch: no questions, a JSON report on stdout
`;


export const VERIFY_USAGE = `Usage: mcp-migrate verify [options] -- <command> [args...]
       mcp-migrate verify --compare "<original command>" [options] -- <migrated command> [args...]

Starts <command> (in the current directory, with the current environment), speaks JSON-RPC to it
over stdin/stdout as an MCP client would, and reports each JSON-RPC / MCP stdio rule it breaks:
initialize, a request before initialize, ping, ids 0 and strings echoed on results and errors,
-32601 for unknown methods, no reply to notifications, bad JSON, "jsonrpc": "2.0" and standard
errors on every reply, nothing else on stdout, tools that fail on an unbound name. On the way it
lists tools, resources and prompts, calls every tool with arguments made up from its inputSchema
(valid ones, then invalid ones), reads every resource and gets every prompt: tools run for real.
The server is stopped at the end. The "--" may be left out when <command> does not start with "-".

With --compare, both servers are explored (the original first, then the migrated one) and what
they answer is compared: results, error codes and messages, listings. What only a migration fixes
(ids, "jsonrpc", replies to notifications, bad JSON, ping, unanswered requests) is listed as fixes.

Options:
  --framing ndjson|content-length   how messages are framed (default ndjson, what the SDK speaks)
  --timeout MS                      how long to wait for each reply (default ${DEFAULT_VERIFY_TIMEOUT_MS}); initialize
                                    gets three times as long, start-up included
  --report json                     print a JSON report on stdout instead of the text lines
  --compare "COMMAND"               the original server's command (quoted, split like a shell would,
                                    without expansions); compare it with <command>
  --compare-ref REF                 the original is the server as committed at the git ref REF: its
                                    package is checked out (git worktree add --detach) in a temp
                                    folder and <command> is run there too, e.g. --compare-ref HEAD
  --method NAME                     also call the custom method NAME (params {}); repeatable
  --baseline FILE                   rules expected to fail (a YAML list of rule ids): they do not fail
                                    the run, and one that passes fails it (the baseline is stale)
  -h, --help                        show this help

Examples: mcp-migrate verify -- node server.js
          mcp-migrate verify --compare "node server.orig.js" --method db/stats -- node server.js
          mcp-migrate verify --compare-ref HEAD -- node src/server.js

Exit codes: 0 every rule passes (--compare: both servers answer alike); 1 some rule fails, or the
baseline is stale (--compare: they differ); 2 usage error; 3 a server could not be started or
exited before answering initialize; 130 interrupted (the servers are stopped all the same).
`;

function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

/** `cores`: the cap for --jobs (the CLI passes the machine's available parallelism; left out, no cap). */
export function parseCliArgs(argv: readonly string[], cores: number = Number.POSITIVE_INFINITY): ParsedArgs {
  // A subcommand only in first position; a directory named "verify" is still reachable as ./verify.
  if (argv[0] === 'verify') return parseVerifyArgs(argv.slice(1));
  // `--verify=calls` carries a level while a bare `--verify` is a switch: the level is read here.
  let verifyLevel: (typeof VERIFY_LEVELS)[number] | null = null;
  const args: string[] = [];
  for (const [index, arg] of argv.entries()) {
    const level = arg.startsWith('--verify=') && !argv.slice(0, index).includes('--') ? arg.slice('--verify='.length) : null;
    if (level === null) {
      args.push(arg);
      continue;
    }
    if (!isOneOf(VERIFY_LEVELS, level)) return badValue('--verify', level, VERIFY_LEVELS);
    verifyLevel = level;
    args.push('--verify');
  }
  // `--verify-timeout -5`: a negative number is the flag's value (then rejected as out of range), not an unknown flag.
  for (let i = 0; i + 1 < args.length; i++) {
    if (VALUE_FLAGS.includes(args[i]!) && /^-\d/.test(args[i + 1]!)) args.splice(i, 2, `${args[i]}=${args[i + 1]}`);
  }
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        'dry-run': { type: 'boolean' },
        check: { type: 'boolean' },
        yes: { type: 'boolean', short: 'y' },
        force: { type: 'boolean' },
        sdk: { type: 'string' },
        style: { type: 'string' },
        'no-guard-stdout': { type: 'boolean' },
        'no-lockfile': { type: 'boolean' },
        report: { type: 'string' },
        output: { type: 'string' },
        jobs: { type: 'string' },
        'changed-since': { type: 'string' },
        verify: { type: 'boolean' },
        'no-verify': { type: 'boolean' },
        'allow-unverified': { type: 'boolean' },
        'verify-timeout': { type: 'string' },
        ignore: { type: 'string', multiple: true },
        include: { type: 'string', multiple: true },
        summary: { type: 'boolean' },
        'full-diff': { type: 'boolean' },
        patch: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (err) {
    return { kind: 'usage-error', message: describeParseError(err) };
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  const sdk = values.sdk ?? 'auto';
  if (!isOneOf(SDK_VALUES, sdk)) return badValue('--sdk', sdk, SDK_VALUES);
  const style = values.style ?? 'server';
  if (!isOneOf(STYLE_VALUES, style)) return badValue('--style', style, STYLE_VALUES);
  const report = values.report ?? null;
  if (report !== null && !isOneOf(REPORT_VALUES, report)) return badValue('--report', report, REPORT_VALUES);
  const output = values.output ?? null;
  if (output !== null && report === null) return { kind: 'usage-error', message: '--output needs --report json|markdown|sarif (it names the report file)' };
  if (output === '') return { kind: 'usage-error', message: '--output needs a file name' };
  let jobs: number | null = null;
  if (values.jobs !== undefined) {
    if (!/^\d+$/.test(values.jobs) || Number(values.jobs) < 1) {
      return { kind: 'usage-error', message: `invalid value for --jobs: "${values.jobs}" (expected a whole number of at least 1)` };
    }
    jobs = Math.min(Number(values.jobs), Math.max(1, cores));
  }
  const changedSince = values['changed-since'] ?? null;
  // A ref is handed to git; one that starts with "-" would be read as an option.
  if (changedSince !== null && (changedSince === '' || changedSince.startsWith('-'))) {
    return { kind: 'usage-error', message: `invalid value for --changed-since: "${changedSince}" (expected a git ref such as origin/main)` };
  }
  if (values.yes && (values.check || values['dry-run'])) {
    return { kind: 'usage-error', message: `--yes applies changes and ${values.check ? '--check' : '--dry-run'} writes nothing (pass one)` };
  }
  const mode: RunMode = values.check ? 'check' : values['dry-run'] ? 'dry-run' : 'apply';
  if (values.verify && values['no-verify']) return { kind: 'usage-error', message: '--verify and --no-verify contradict each other (pass one)' };
  const verify: VerifyMode = values['no-verify'] ? 'off' : values.verify ? (verifyLevel ?? 'safe') : mode === 'apply' ? 'safe' : 'off';
  if (values['allow-unverified'] && !(mode === 'apply' && values.yes)) return { kind: 'usage-error', message: '--allow-unverified goes with --yes (the interactive review shows what is unverified and asks)' };
  if (values['allow-unverified'] && verify === 'off') return { kind: 'usage-error', message: '--allow-unverified has no effect with --no-verify (nothing is verified)' };
  let verifyTimeoutMs: number | undefined;
  if (values['verify-timeout'] !== undefined) {
    if (verify === 'off') return { kind: 'usage-error', message: mode === 'apply' ? '--verify-timeout has no effect with --no-verify' : '--verify-timeout needs --verify with --check or --dry-run' };
    if (!/^\d+$/.test(values['verify-timeout']) || Number(values['verify-timeout']) < 1) {
      return { kind: 'usage-error', message: `invalid value for --verify-timeout: "${values['verify-timeout']}" (expected a whole number of milliseconds, at least 1)` };
    }
    verifyTimeoutMs = Number(values['verify-timeout']);
  }
  for (const flag of ['ignore', 'include'] as const) {
    if ((values[flag] ?? []).some((glob) => glob.trim() === '')) return { kind: 'usage-error', message: `--${flag} needs a glob, e.g. --${flag} 'test/**'` };
  }
  const patch = values.patch ?? null;
  if (patch === '') return { kind: 'usage-error', message: '--patch needs a file name, or - for stdout' };
  if (patch === '-' && report !== null && output === null) return { kind: 'usage-error', message: '--patch - and --report both want stdout; pass --output FILE for the report or --patch FILE' };
  if (values.summary && mode === 'apply' && !values.yes) return { kind: 'usage-error', message: '--summary goes with --dry-run, --check or --yes (the interactive review shows each diff)' };
  if (patch !== null && mode === 'apply' && !values.yes) return { kind: 'usage-error', message: '--patch goes with --dry-run, --check or --yes (it is written from what the run would write, not from a review)' };
  return {
    kind: 'run',
    options: {
      paths: positionals.length > 0 ? positionals : ['.'],
      mode,
      yes: values.yes ?? false,
      force: values.force ?? false,
      sdk,
      style,
      guardStdout: !(values['no-guard-stdout'] ?? false),
      lockfile: !(values['no-lockfile'] ?? false),
      report,
      output,
      jobs,
      changedSince,
      verify,
      allowUnverified: values['allow-unverified'] ?? false,
      ignore: values.ignore ?? [],
      include: values.include ?? [],
      summary: values.summary ?? false,
      fullDiff: values['full-diff'] ?? false,
      patch,
      ...(verifyTimeoutMs === undefined ? {} : { verifyTimeoutMs }),
    },
  };
}

/**
 * The flags of `verify`, up to the server command: `--` or the first word that does not start with
 * "-". Everything after that belongs to the server (so `verify node server.js --port 3` works).
 * Hand-rolled, not util.parseArgs: parseArgs would read the server's own flags as ours.
 */
export function parseVerifyArgs(argv: readonly string[]): ParsedArgs {
  let framing: Framing = 'ndjson';
  let timeoutMs = DEFAULT_VERIFY_TIMEOUT_MS;
  let report: 'json' | null = null;
  let compare: string[] | null = null;
  const methods: string[] = [];
  let baseline: string | null = null;
  let compareRef: string | null = null;
  let command: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (token === '--') {
      command = argv.slice(i + 1);
      break;
    }
    if (!token.startsWith('-') || token === '-') {
      command = argv.slice(i);
      break;
    }
    const eq = token.startsWith('--') ? token.indexOf('=') : -1;
    const flag = eq > 0 ? token.slice(0, eq) : token;
    if (flag === '-h' || flag === '--help') return { kind: 'help', topic: 'verify' };
    if (!VERIFY_FLAGS.includes(flag)) {
      const suggestion = suggestFlag(flag, VERIFY_FLAGS);
      return { kind: 'usage-error', topic: 'verify', message: `unknown option ${flag} for verify (${suggestion === null ? '' : `did you mean ${suggestion}? `}expected ${VERIFY_FLAGS.join(', ')} or -h)` };
    }
    let value: string | undefined;
    if (eq > 0) value = token.slice(eq + 1);
    else {
      value = argv[i + 1];
      // a --compare command may well start with "-" inside its quotes, never as a whole word
      if (value === undefined || value === '--' || (value.startsWith('-') && flag !== '--compare' && !/^-\d/.test(value))) return { kind: 'usage-error', topic: 'verify', message: `${flag} needs a value` };
      i++;
    }
    switch (flag) {
      case '--framing':
        if (!isOneOf(FRAMINGS, value)) return { ...badValue('--framing', value, FRAMINGS), topic: 'verify' };
        framing = value;
        break;
      case '--timeout':
        if (!/^\d+$/.test(value) || Number(value) < 1) {
          return { kind: 'usage-error', topic: 'verify', message: `invalid value for --timeout: "${value}" (expected a whole number of milliseconds, at least 1)` };
        }
        timeoutMs = Number(value);
        break;
      case '--report':
        if (value !== 'json') return { ...badValue('--report', value, ['json']), topic: 'verify' };
        report = value;
        break;
      case '--compare': {
        const words = splitCommandLine(value);
        if (words === null || words.length === 0) {
          return { kind: 'usage-error', topic: 'verify', message: `invalid value for --compare: ${JSON.stringify(value)} (expected the original server's command, e.g. --compare "node server.orig.js")` };
        }
        compare = words;
        break;
      }
      case '--method':
        if (value === '') return { kind: 'usage-error', topic: 'verify', message: '--method needs a method name' };
        if (!methods.includes(value)) methods.push(value);
        break;
      case '--baseline':
        if (value === '') return { kind: 'usage-error', topic: 'verify', message: '--baseline needs a file name' };
        baseline = value;
        break;
      case '--compare-ref':
        // handed to git; one that starts with "-" would be read as an option
        if (value === '' || value.startsWith('-')) return { kind: 'usage-error', topic: 'verify', message: `invalid value for --compare-ref: "${value}" (expected a git ref such as HEAD or origin/main)` };
        compareRef = value;
        break;
    }
  }
  const [head, ...rest] = command;
  if (head === undefined || head === '') {
    return { kind: 'usage-error', topic: 'verify', message: 'verify needs the command that starts the server, e.g. mcp-migrate verify -- node server.js' };
  }
  if (compare !== null && compareRef !== null) {
    return { kind: 'usage-error', topic: 'verify', message: '--compare names the original command and --compare-ref takes it from a git ref (use one or the other)' };
  }
  if ((compare !== null || compareRef !== null) && baseline !== null) {
    return { kind: 'usage-error', topic: 'verify', message: '--baseline applies to the rules of one server; --compare reports what two servers answer differently (use one or the other)' };
  }
  return { kind: 'verify', options: { command: [head, ...rest], framing, timeoutMs, report, compare, methods, baseline, ...(compareRef === null ? {} : { compareRef }) } };
}

const VERIFY_FLAGS = ['--framing', '--timeout', '--report', '--compare', '--compare-ref', '--method', '--baseline'];

/**
 * A command line split into words the way a POSIX shell would, without any expansion: blanks separate
 * words, '...' keeps everything literally, "..." keeps everything but \" \\ \$ \`, and a backslash
 * outside quotes escapes the next character. null when a quote is left open.
 */
export function splitCommandLine(text: string): string[] | null {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return null;
      word = (word ?? '') + text.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      let part = '';
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\' && j + 1 < text.length && '"\\$`'.includes(text[j + 1] as string)) j++;
        part += text[j];
      }
      if (j >= text.length) return null;
      word = (word ?? '') + part;
      i = j;
    } else if (c === '\\' && i + 1 < text.length) {
      word = (word ?? '') + text[++i];
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

function badValue(flag: string, value: string, allowed: readonly string[]): { kind: 'usage-error'; message: string } {
  return { kind: 'usage-error', message: `invalid value for ${flag}: "${value}" (expected ${allowed.join(', ')})` };
}

/** The flags of a run that take a value (a following `-5` is read as that value). */
const VALUE_FLAGS = ['--jobs', '--verify-timeout', '--sdk', '--style', '--report', '--output', '--changed-since', '--ignore', '--include', '--patch'];

/** Every flag of a run, for "did you mean". */
const RUN_FLAGS = ['--dry-run', '--check', '--yes', '--force', '--sdk', '--style', '--no-guard-stdout', '--no-lockfile', '--report', '--output', '--jobs', '--changed-since', '--verify', '--no-verify', '--allow-unverified', '--verify-timeout', '--ignore', '--include', '--summary', '--full-diff', '--patch', '--help', '--version'];

/** The known flag closest to `flag` (at most two edits away, or the same letters without dashes), or null. */
export function suggestFlag(flag: string, known: readonly string[] = RUN_FLAGS): string | null {
  const bare = (text: string): string => text.replace(/^-+/, '').replace(/[-_]/g, '').toLowerCase();
  const name = flag.split('=')[0]!;
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const distance = bare(candidate) === bare(name) ? 0 : getEditDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best !== null && bestDistance <= Math.min(2, Math.floor(name.length / 3)) ? best : null;
}

function getEditDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

function describeParseError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const message = e.message ?? String(err);
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = /'([^']+)'/.exec(message)?.[1];
    if (flag === undefined) return message;
    const suggestion = suggestFlag(flag);
    return `unknown option ${flag}${suggestion === null ? '' : ` (did you mean ${suggestion}?)`}`;
  }
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = /'(--?[\w-]+)/.exec(message)?.[1];
    if (flag !== undefined && /missing|ambiguous/.test(message)) return `${flag} needs a value`;
    if (flag !== undefined && /does not take/.test(message)) return `${flag} does not take a value`;
  }
  return message;
}
