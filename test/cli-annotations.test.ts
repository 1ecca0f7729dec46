// GitHub Actions workflow commands: escaping, what gets annotated, and that they appear only inside a
// workflow (GITHUB_ACTIONS=true), with paths relative to GITHUB_WORKSPACE.
import { afterAll, describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { buildAnnotations, createWorkspacePath, escapeData, escapeProperty, formatAnnotation, renderAnnotations } from '../src/cli/annotations.js';
import { main } from '../src/cli/main.js';
import type { FileResult, Finding, PipelineOptions } from '../src/model/types.js';
import { createFakePipeline, makeHarness, makeTree, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const finding = (rule: string, line: number, fixed: boolean): Finding => ({ rule, line, column: 3, message: `${rule} at ${line}`, hint: `fix ${rule}`, fixed });
const result = (path: string, extra: Partial<FileResult>): FileResult => ({ path, before: '', decision: { kind: 'none' }, fixes: [], findings: [], diagnostics: [], ...extra });

describe('a server already on the SDK whose stdout writes move', () => {
  const onSdk = (path: string): FileResult =>
    result(path, { after: 'x', decision: { kind: 'sdk', sdk: 'v1', style: 'server', notes: [], already: 'stdout' }, fixes: ['1 write to stdout no longer corrupts the SDK transport (moved to stderr)'] });

  it('is not announced as a move onto the SDK: annotation, header, summary, --summary line', async () => {
    const [notice] = buildAnnotations({ results: [onSdk('/r/s.mjs')], errors: [], applied: new Set(), path: (p) => p.slice(3) });
    expect(notice).toMatchObject({ level: 'notice', title: 'mcp-migrate: stdout writes to move' });
    expect(notice!.message).toMatch(/^This server already uses the official MCP SDK, but writes to stdout itself/);
    expect(notice!.message).not.toContain('can move onto');

    const root = await makeTree({ 's.mjs': `${SERVER_HINT}// x\n` });
    const process = (path: string, source: string): FileResult => ({ ...onSdk(path), before: source, after: `${source}// moved\n` });
    const h = makeHarness(root, { process });
    await main(['--dry-run'], h.deps);
    expect(h.stdout()).toContain('   sdk: already on the SDK; its own stdout writes move to stderr\n');
    expect(h.stdout()).not.toContain('moved onto');
    expect(h.stdout()).toContain('  already on the SDK, stdout writes would move to stderr (1): s.mjs');
    expect(h.stdout()).not.toContain('would move to the SDK');
    const line = makeHarness(root, { process });
    await main(['--dry-run', '--summary'], line.deps);
    expect(line.stdout()).toContain('s.mjs: already on the SDK: stdout writes would move to stderr');
  });
});

describe('escaping', () => {
  it('escapes data: %, CR and LF', () => {
    expect(escapeData('100% done\r\nnext: a, b')).toBe('100%25 done%0D%0Anext: a, b');
  });

  it('escapes properties: also : and ,', () => {
    expect(escapeProperty('mcp-migrate: a,b\n%')).toBe('mcp-migrate%3A a%2Cb%0A%25');
  });

  it('formats one command per line, clamping line and column to 1', () => {
    expect(formatAnnotation({ level: 'warning', file: 'src/a,b.js', line: 0, col: 4, title: 'mcp-migrate wrong-id', message: 'x: y\nz' })).toBe(
      '::warning file=src/a%2Cb.js,line=1,col=4,title=mcp-migrate wrong-id::x: y%0Az\n',
    );
    expect(formatAnnotation({ level: 'error', file: 'a.js', message: 'boom' })).toBe('::error file=a.js::boom\n');
  });
});

describe('buildAnnotations', () => {
  const root = '/ws';
  const path = createWorkspacePath({ GITHUB_WORKSPACE: root }, '/elsewhere');

  it('annotates pending migrations, unfixed findings, left-alone servers and errors', () => {
    const results: FileResult[] = [
      result('/ws/pkg/sdk.js', {
        after: 'x',
        decision: { kind: 'sdk', sdk: 'v1', style: 'server', notes: [] },
        fixes: ['answers ping'],
        findings: [finding('wrong-id', 12, true), finding('sdk-transport-bypassed', 30, false)],
      }),
      result('/ws/pkg/env.js', { after: 'x', decision: { kind: 'envelope', reason: 'COMPUTED_DISPATCH', hint: 'computed key', line: 7 } }),
      result('/ws/pkg/left.js', { decision: { kind: 'leave', reason: 'NO_DISPATCH', hint: 'no dispatch on method', line: 4 }, findings: [finding('stdout-pollution', 9, false)] }),
      result('/ws/pkg/sdk-already.js', { decision: { kind: 'leave', reason: 'ALREADY_ON_SDK', hint: 'already on the SDK' } }),
      result('/ws/pkg/plain.js', {}),
      result('/ws/pkg/broken.js', { error: 'does not parse: Unexpected token (3:9)' }),
    ];
    const annotations = buildAnnotations({ results, errors: [{ path: '/ws/pkg/broken.js', message: 'does not parse: Unexpected token (3:9)' }], applied: new Set(), path });
    expect(annotations.map((a) => `${a.level} ${a.file}:${a.line ?? '-'} ${a.title ?? ''}`)).toEqual([
      'error pkg/broken.js:- mcp-migrate: could not be processed',
      'notice pkg/env.js:7 mcp-migrate: envelope migration pending',
      'notice pkg/left.js:4 mcp-migrate: left alone (NO_DISPATCH)',
      'warning pkg/left.js:9 mcp-migrate stdout-pollution',
      'notice pkg/sdk.js:1 mcp-migrate: sdk migration pending',
      'warning pkg/sdk.js:30 mcp-migrate sdk-transport-bypassed',
    ]);
    const sdk = annotations.find((a) => a.file === 'pkg/sdk.js' && a.level === 'notice');
    expect(sdk?.message).toContain('@modelcontextprotocol/sdk');
    // not `npx mcp-migrate`: that answers 404 until the package is published
    expect(sdk?.message).toContain('Run `mcp-migrate pkg/sdk.js` to review and apply it.');
    expect(sdk?.message).not.toContain('npx');
    expect(sdk?.message).toContain('It fixes: answers ping.');
    expect(sdk?.message).toContain('wrong-id (line 12)');
    expect(annotations.find((a) => a.file === 'pkg/env.js')?.message).toContain('COMPUTED_DISPATCH: computed key');
    expect(annotations.find((a) => a.level === 'warning')?.message).toBe('stdout-pollution at 9 — fix stdout-pollution');

    expect(renderAnnotations({ results, errors: [], applied: new Set(), path }).split('\n')).toContain(
      '::warning file=pkg/sdk.js,line=30,col=3,title=mcp-migrate sdk-transport-bypassed::sdk-transport-bypassed at 30 — fix sdk-transport-bypassed',
    );
  });

  it('says nothing about a migration applied in this run or the findings it fixed', () => {
    const results = [
      result('/ws/a.js', { after: 'x', decision: { kind: 'sdk', sdk: 'v2', style: 'mcp-server', notes: [] }, findings: [finding('wrong-id', 2, true), finding('x', 3, false)] }),
    ];
    const annotations = buildAnnotations({ results, errors: [], applied: new Set(['/ws/a.js']), path });
    expect(annotations.map((a) => `${a.level} ${a.title}`)).toEqual(['warning mcp-migrate x']);
  });

  it('uses the cwd without GITHUB_WORKSPACE, and a relative GITHUB_WORKSPACE against it', () => {
    expect(createWorkspacePath({}, '/repo')('/repo/src/a.js')).toBe('src/a.js');
    expect(createWorkspacePath({ GITHUB_WORKSPACE: '..' }, '/repo/sub')('/repo/sub/a.js')).toBe('sub/a.js');
  });
});

describe('main inside GitHub Actions', () => {
  const MIGRATE = `${SERVER_HINT}// MIGRATE_ME\n`;
  /** The fake pipeline, plus one unfixed finding per migrated file. */
  const withFindings = (path: string, source: string, options: PipelineOptions): FileResult => {
    const base = createFakePipeline().process(path, source, options);
    return { ...base, findings: [{ rule: 'stdout-pollution', line: 2, column: 1, message: 'a banner: on stdout, 100%', hint: 'log to stderr', fixed: false }] };
  };

  it('prints workflow commands with the text output, paths relative to GITHUB_WORKSPACE', async () => {
    const root = await makeTree({ 'pkg/src/server.js': MIGRATE, 'pkg/src/broken.js': `${SERVER_HINT}// x\n` });
    const process = (path: string, source: string, options: PipelineOptions): FileResult =>
      path.endsWith('broken.js') ? { ...createFakePipeline().process(path, source, options), error: 'does not parse, line 2' } : withFindings(path, source, options);
    const h = makeHarness(join(root, 'pkg'), { env: { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: root }, process });
    expect(await main(['--check'], h.deps)).toBe(3);
    const commands = h.stdout().split('\n').filter((line) => line.startsWith('::'));
    expect(commands).toEqual([
      '::error file=pkg/src/broken.js,title=mcp-migrate%3A could not be processed::does not parse, line 2',
      expect.stringMatching(/^::notice file=pkg\/src\/server\.js,line=1,title=mcp-migrate%3A sdk migration pending::This hand-rolled MCP stdio server/),
      '::warning file=pkg/src/server.js,line=2,col=1,title=mcp-migrate stdout-pollution::a banner: on stdout, 100%25 — log to stderr',
    ]);
  });

  it('keeps stdout a single JSON document with --report json (the commands go with the human text)', async () => {
    const root = await makeTree({ 'server.js': MIGRATE });
    const h = makeHarness(root, { env: { GITHUB_ACTIONS: 'true' }, process: withFindings });
    expect(await main(['--check', '--report', 'json'], h.deps)).toBe(1);
    expect(() => JSON.parse(h.stdout())).not.toThrow();
    expect(h.stderr()).toContain('::notice file=server.js,line=1,');
  });

  it('prints no workflow commands outside GitHub Actions', async () => {
    const root = await makeTree({ 'server.js': MIGRATE });
    for (const env of [{}, { GITHUB_ACTIONS: 'false' }]) {
      const h = makeHarness(root, { env, process: withFindings });
      expect(await main(['--check'], h.deps)).toBe(1);
      expect(h.stdout()).not.toMatch(/^::/m);
      expect(h.stderr()).not.toMatch(/^::/m);
    }
  });
});

describe('a finding in a module the server imports', () => {
  // The server reads stdin in server.js and answers in lib/dispatch.js, where the wrong id is: every
  // output names that module, relative like the server's own path, with the line and column in it.
  const LEAVE = `${SERVER_HINT}// LEAVE_ME\n`;
  const withImported = (path: string, source: string, options: PipelineOptions): FileResult => {
    const base = createFakePipeline().process(path, source, options);
    const dispatch = join(path, '..', 'lib', 'dispatch.js');
    return { ...base, findings: [finding('parse-error-unanswered', 5, false), { ...finding('wrong-id', 3, false), file: dispatch }] };
  };

  it('is listed, annotated and reported at its own file', async () => {
    const root = await makeTree({ 'server.js': LEAVE, 'lib/dispatch.js': '// answers\n' });
    const text = makeHarness(root, { env: { GITHUB_ACTIONS: 'true' }, process: withImported });
    expect(await main(['--check'], text.deps)).toBe(1);
    expect(text.stdout()).toContain('      server.js:5:3 parse-error-unanswered: parse-error-unanswered at 5\n      lib/dispatch.js:3:3 wrong-id: wrong-id at 3\n');
    expect(text.stdout()).toContain('::warning file=lib/dispatch.js,line=3,col=3,title=mcp-migrate wrong-id::');
    expect(text.stdout()).toContain('::warning file=server.js,line=5,col=3,title=mcp-migrate parse-error-unanswered::');

    const json = makeHarness(root, { process: withImported });
    await main(['--check', '--report', 'json'], json.deps);
    const report = JSON.parse(json.stdout()) as { files: { path: string; findings: { rule: string; file: string | null }[] }[] };
    expect(report.files.map((f) => [f.path, f.findings.map((x) => [x.rule, x.file])])).toEqual([
      [
        'server.js',
        [
          ['parse-error-unanswered', null],
          ['wrong-id', 'lib/dispatch.js'],
        ],
      ],
    ]);

    const sarif = makeHarness(root, { process: withImported });
    await main(['--check', '--report', 'sarif'], sarif.deps);
    const results = (JSON.parse(sarif.stdout()) as { runs: { results: { ruleId: string; locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }[] }[] }).runs[0]!.results;
    expect(results.filter((r) => r.ruleId === 'wrong-id').map((r) => r.locations[0]!.physicalLocation.artifactLocation.uri)).toEqual(['lib/dispatch.js']);
    expect(results.filter((r) => r.ruleId === 'parse-error-unanswered').map((r) => r.locations[0]!.physicalLocation.artifactLocation.uri)).toEqual(['server.js']);

    // a second server importing the same module: its finding there is annotated once
    const twoRoot = await makeTree({ 'server.js': LEAVE, 'other.js': LEAVE, 'lib/dispatch.js': '// answers\n' });
    const two = makeHarness(twoRoot, { env: { GITHUB_ACTIONS: 'true' }, process: withImported });
    await main(['--check'], two.deps);
    expect(two.stdout().match(/^::warning file=lib\/dispatch\.js,/gm)).toHaveLength(1);
    expect(two.stdout().match(/^::warning file=(server|other)\.js,line=5,/gm)).toHaveLength(2);

    const markdown = makeHarness(root, { process: withImported });
    await main(['--check', '--report', 'markdown'], markdown.deps);
    expect(markdown.stdout()).toContain('| lib/dispatch.js:3:3 | `wrong-id` |');
    expect(markdown.stdout()).toContain('| 5:3 | `parse-error-unanswered` |');
  });
});
