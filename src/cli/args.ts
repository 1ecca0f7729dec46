// Command-line flags -> CliOptions. Strict: an unknown flag or a bad value is a usage error with a
// message that says what was wrong and what is accepted. Deliberately does no I/O.
import { parseArgs } from 'node:util';
import type { SdkTarget, Style } from '../model/types.js';
import type { ReportFormat } from './report/index.js';

export type RunMode = 'apply' | 'dry-run' | 'check';

export interface CliOptions {
  paths: string[];
  mode: RunMode;
  yes: boolean;
  force: boolean;
  sdk: SdkTarget | 'auto';
  style: Style;
  report: ReportFormat | null;
  output: string | null;
  /** null: one per core. */
  jobs: number | null;
  /** A git ref: only files changed since it (committed, uncommitted or untracked) are looked at. */
  changedSince: string | null;
}

export type ParsedArgs = { kind: 'run'; options: CliOptions } | { kind: 'help' } | { kind: 'version' } | { kind: 'usage-error'; message: string };

const SDK_VALUES = ['v1', 'v2', 'auto'] as const;
const STYLE_VALUES = ['server', 'mcp-server'] as const;
const REPORT_VALUES = ['json', 'markdown', 'sarif'] as const;

export const USAGE = `Usage: mcp-migrate [options] [paths...]

Finds hand-rolled MCP stdio servers under the given files and directories (default ".") and moves
them onto the official SDK, or into a compliant JSON-RPC envelope. Every change is shown as a diff
and applied only when you say so.

Options:
  --dry-run                      print the diffs and the plan, write nothing (exit 0)
  --check                        like --dry-run, but exit 1 while any migration is pending
  -y, --yes                      apply everything without asking
  --force                        run even if the git work tree has uncommitted changes
  --sdk v1|v2|auto               SDK to target (default auto: v2 when the package already depends
                                 on @modelcontextprotocol/server, else v1)
  --style server|mcp-server      low-level Server + setRequestHandler (default), or McpServer.registerTool
  --report json|markdown|sarif   print a machine-readable report (to stdout, or to --output)
  --output FILE                  write the report to FILE instead of stdout
  --jobs N                       worker threads (default: number of cores)
  --changed-since REF            only look at files changed since the git ref REF (committed,
                                 uncommitted or untracked), e.g. a pull request's base:
                                 --changed-since origin/main
  -h, --help                     show this help
  -v, --version                  print the version

Exit codes: 0 done or nothing to do; 1 --check found pending migrations; 2 usage error;
3 some files could not be processed.
`;

function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

export function parseCliArgs(argv: readonly string[]): ParsedArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        'dry-run': { type: 'boolean' },
        check: { type: 'boolean' },
        yes: { type: 'boolean', short: 'y' },
        force: { type: 'boolean' },
        sdk: { type: 'string' },
        style: { type: 'string' },
        report: { type: 'string' },
        output: { type: 'string' },
        jobs: { type: 'string' },
        'changed-since': { type: 'string' },
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
    jobs = Number(values.jobs);
  }
  const changedSince = values['changed-since'] ?? null;
  // A ref is handed to git; one that starts with "-" would be read as an option.
  if (changedSince !== null && (changedSince === '' || changedSince.startsWith('-'))) {
    return { kind: 'usage-error', message: `invalid value for --changed-since: "${changedSince}" (expected a git ref such as origin/main)` };
  }
  const mode: RunMode = values.check ? 'check' : values['dry-run'] ? 'dry-run' : 'apply';
  return {
    kind: 'run',
    options: {
      paths: positionals.length > 0 ? positionals : ['.'],
      mode,
      yes: values.yes ?? false,
      force: values.force ?? false,
      sdk,
      style,
      report,
      output,
      jobs,
      changedSince,
    },
  };
}

function badValue(flag: string, value: string, allowed: readonly string[]): ParsedArgs {
  return { kind: 'usage-error', message: `invalid value for ${flag}: "${value}" (expected ${allowed.join(', ')})` };
}

function describeParseError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const message = e.message ?? String(err);
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = /'([^']+)'/.exec(message)?.[1];
    return flag === undefined ? message : `unknown option ${flag}`;
  }
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = /'(--?[\w-]+)/.exec(message)?.[1];
    if (flag !== undefined && /missing|ambiguous/.test(message)) return `${flag} needs a value`;
    if (flag !== undefined && /does not take/.test(message)) return `${flag} does not take a value`;
  }
  return message;
}
