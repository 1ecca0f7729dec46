import { describe, it, expect } from 'vitest';
import { parseCliArgs } from '../src/cli/args.js';

describe('parseCliArgs', () => {
  it('has the documented defaults', () => {
    expect(parseCliArgs([])).toEqual({
      kind: 'run',
      options: { paths: ['.'], mode: 'apply', yes: false, force: false, sdk: 'auto', style: 'server', guardStdout: true, lockfile: true, report: null, output: null, jobs: null, changedSince: null, verify: 'safe', allowUnverified: false, ignore: [], include: [], summary: false, fullDiff: false, patch: null },
    });
  });

  it('reads every flag', () => {
    const parsed = parseCliArgs(['-y', '--force', '--sdk', 'v2', '--style=mcp-server', '--no-guard-stdout', '--report', 'sarif', '--output', 'out.sarif', '--jobs', '3', '--ignore', 'test/**', '--ignore=fixtures/', '--include', 'src/**', '--summary', '--full-diff', '--patch', 'out.patch', 'a', 'b']);
    expect(parsed).toEqual({
      kind: 'run',
      options: { paths: ['a', 'b'], mode: 'apply', yes: true, force: true, sdk: 'v2', style: 'mcp-server', guardStdout: false, lockfile: true, report: 'sarif', output: 'out.sarif', jobs: 3, changedSince: null, verify: 'safe', allowUnverified: false, ignore: ['test/**', 'fixtures/'], include: ['src/**'], summary: true, fullDiff: true, patch: 'out.patch' },
    });
  });

  it('picks the mode: --check wins over --dry-run', () => {
    expect(parseCliArgs(['--dry-run'])).toMatchObject({ options: { mode: 'dry-run' } });
    expect(parseCliArgs(['--check'])).toMatchObject({ options: { mode: 'check' } });
    expect(parseCliArgs(['--dry-run', '--check'])).toMatchObject({ options: { mode: 'check' } });
  });

  it('refuses --yes with --dry-run or --check (one writes, the other does not)', () => {
    expect(parseCliArgs(['--dry-run', '--yes'])).toEqual({ kind: 'usage-error', message: '--yes applies changes and --dry-run writes nothing (pass one)' });
    expect(parseCliArgs(['-y', '--check'])).toMatchObject({ kind: 'usage-error', message: expect.stringContaining('--check writes nothing') });
  });

  it('suggests the flag meant for an unknown one', () => {
    expect(parseCliArgs(['--dryrun'])).toEqual({ kind: 'usage-error', message: 'unknown option --dryrun (did you mean --dry-run?)' });
    expect(parseCliArgs(['--chek'])).toMatchObject({ message: 'unknown option --chek (did you mean --check?)' });
    expect(parseCliArgs(['--frobnicate'])).toEqual({ kind: 'usage-error', message: 'unknown option --frobnicate' });
    expect(parseCliArgs(['verify', '--timout', '5', '--', 'node', 's.js'])).toMatchObject({ message: expect.stringContaining('did you mean --timeout?') });
  });

  it('reads a negative number as the value it is, and says it is invalid', () => {
    expect(parseCliArgs(['--verify-timeout', '-5'])).toEqual({ kind: 'usage-error', message: 'invalid value for --verify-timeout: "-5" (expected a whole number of milliseconds, at least 1)' });
    expect(parseCliArgs(['--jobs', '-2'])).toMatchObject({ message: expect.stringContaining('invalid value for --jobs: "-2"') });
    expect(parseCliArgs(['verify', '--timeout', '-5', '--', 'node', 's.js'])).toMatchObject({ message: expect.stringContaining('invalid value for --timeout: "-5"') });
  });

  it('--patch goes with a run that does not ask', () => {
    expect(parseCliArgs(['--patch', 'x.patch'])).toMatchObject({ kind: 'usage-error', message: expect.stringContaining('--patch goes with --dry-run, --check or --yes') });
    expect(parseCliArgs(['--dry-run', '--patch', '-', '--report', 'json'])).toMatchObject({ kind: 'usage-error', message: expect.stringContaining('both want stdout') });
  });

  it('--help names the excludes, every exit code and has examples', async () => {
    const { USAGE } = await import('../src/cli/args.js');
    expect(USAGE).toMatch(/--ignore GLOB +leave matching files out \(repeatable; .gitignore syntax/);
    expect(USAGE).toContain('--include GLOB');
    expect(USAGE).toContain('// mcp-migrate-ignore is left alone');
    expect(USAGE).toContain('.gitignore');
    expect(USAGE).toMatch(/1 --check found pending migrations or a server left alone\s+that still breaks the protocol/);
    expect(USAGE).toMatch(/2 usage error \(a bad flag, a missing path/);
    expect(USAGE).toContain('130 interrupted (Ctrl-C at a review question)');
    expect(USAGE).toContain("mcp-migrate --check --ignore 'test/**' .");
    expect(USAGE).toContain('mcp-migrate --dry-run --patch - . > mcp.patch');
  });

  it('answers --help and --version', () => {
    expect(parseCliArgs(['--help'])).toEqual({ kind: 'help' });
    expect(parseCliArgs(['-h'])).toEqual({ kind: 'help' });
    expect(parseCliArgs(['--version'])).toEqual({ kind: 'version' });
  });

  it.each([
    [['--nope'], 'unknown option --nope'],
    [['-z'], 'unknown option -z'],
    [['--sdk'], '--sdk needs a value'],
    [['--sdk', '--check'], '--sdk needs a value'],
    [['--check=yes'], '--check does not take a value'],
    [['--sdk', 'v3'], 'invalid value for --sdk: "v3" (expected v1, v2, auto)'],
    [['--style', 'x'], 'invalid value for --style: "x" (expected server, mcp-server)'],
    [['--report', 'html'], 'invalid value for --report: "html" (expected json, markdown, sarif)'],
    [['--jobs', '0'], 'invalid value for --jobs: "0" (expected a whole number of at least 1)'],
    [['--jobs', '2.5'], 'invalid value for --jobs: "2.5" (expected a whole number of at least 1)'],
    [['--output', 'x.json'], '--output needs --report json|markdown|sarif (it names the report file)'],
    [['--changed-since'], '--changed-since needs a value'],
    [['--changed-since='], 'invalid value for --changed-since: "" (expected a git ref such as origin/main)'],
    [['--changed-since=--output=x'], 'invalid value for --changed-since: "--output=x" (expected a git ref such as origin/main)'],
    [['--check', '--verify-timeout', '5000'], '--verify-timeout needs --verify with --check or --dry-run'],
    [['--no-verify', '--verify-timeout', '5000'], '--verify-timeout has no effect with --no-verify'],
    [['--verify', '--no-verify'], '--verify and --no-verify contradict each other (pass one)'],
    [['--verify=all'], 'invalid value for --verify: "all" (expected safe, calls)'],
    [['--allow-unverified'], '--allow-unverified goes with --yes (the interactive review shows what is unverified and asks)'],
    [['--check', '--allow-unverified'], '--allow-unverified goes with --yes (the interactive review shows what is unverified and asks)'],
    [['--yes', '--no-verify', '--allow-unverified'], '--allow-unverified has no effect with --no-verify (nothing is verified)'],
    [['--verify', '--verify-timeout', '0'], 'invalid value for --verify-timeout: "0" (expected a whole number of milliseconds, at least 1)'],
    [['--verify', '--verify-timeout=2s'], 'invalid value for --verify-timeout: "2s" (expected a whole number of milliseconds, at least 1)'],
  ])('rejects %j', (argv, message) => {
    expect(parseCliArgs(argv)).toEqual({ kind: 'usage-error', message });
  });

  it('proves a run that writes by default; --check and --dry-run only with --verify; --verify=calls adds tool calls', () => {
    expect(parseCliArgs(['--yes'])).toMatchObject({ options: { verify: 'safe' } });
    expect(parseCliArgs(['--yes', '--no-verify'])).toMatchObject({ options: { verify: 'off' } });
    expect(parseCliArgs(['--check'])).toMatchObject({ options: { verify: 'off' } });
    expect(parseCliArgs(['--dry-run', '--verify'])).toMatchObject({ options: { verify: 'safe' } });
    expect(parseCliArgs(['--check', '--verify=calls'])).toMatchObject({ options: { verify: 'calls' } });
    expect(parseCliArgs(['--yes', '--verify=calls'])).toMatchObject({ options: { verify: 'calls' } });
    expect(parseCliArgs(['--yes', '--allow-unverified'])).toMatchObject({ options: { verify: 'safe', allowUnverified: true } });
    // after `--`, a path that looks like the flag is a path
    expect(parseCliArgs(['--dry-run', '--', '--verify=calls'])).toMatchObject({ options: { verify: 'off', paths: ['--verify=calls'] } });
  });

  it('reads --verify-timeout (with a proof), and leaves it out when not given', () => {
    expect(parseCliArgs(['--dry-run', '--verify', '--verify-timeout', '8000'])).toMatchObject({ options: { verify: 'safe', verifyTimeoutMs: 8000 } });
    expect(parseCliArgs(['--yes', '--verify-timeout', '8000'])).toMatchObject({ options: { verify: 'safe', verifyTimeoutMs: 8000 } });
    const plain = parseCliArgs(['--dry-run', '--verify']);
    expect(plain.kind === 'run' && 'verifyTimeoutMs' in plain.options).toBe(false);
  });

  it('reads --changed-since', () => {
    expect(parseCliArgs(['--check', '--changed-since', 'origin/main', '.'])).toMatchObject({ options: { mode: 'check', changedSince: 'origin/main', paths: ['.'] } });
    expect(parseCliArgs(['--changed-since=HEAD~1'])).toMatchObject({ options: { changedSince: 'HEAD~1' } });
  });

  it('takes paths after -- even when they look like flags', () => {
    expect(parseCliArgs(['--', '--weird-dir'])).toMatchObject({ options: { paths: ['--weird-dir'] } });
  });
});
