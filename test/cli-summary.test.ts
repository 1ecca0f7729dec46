import { afterAll, describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { createPaint } from '../src/cli/render.js';
import { buildRunSummary, collectErrors, renderSummary } from '../src/cli/summary.js';
import { createProgressLine, createProofProgress } from '../src/cli/progress.js';
import { describeProofTimes } from '../src/cli/verify-step.js';
import { scanFiles } from '../src/runner/scan.js';
import { createFakePipeline, makeHarness, makeTree, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const MIGRATE = `${SERVER_HINT}// MIGRATE_ME\n`;

describe('RunSummary', () => {
  it('has root-relative paths, the mode, what was written and the exit code', async () => {
    const root = await makeTree({
      'package.json': '{\n  "name": "x"\n}\n',
      'src/a.js': MIGRATE,
      'src/leave.js': `${SERVER_HINT}// LEAVE_ME\n`,
      'src/plain.js': SERVER_HINT,
      'src/env.js': `${SERVER_HINT}// ENVELOPE_ME\n`,
    });
    const scan = await scanFiles({ paths: ['.', 'gone'], cwd: root, sdk: 'auto', style: 'server', process: createFakePipeline().process });
    const display = (p: string): string => p.slice(root.length + 1);
    const outcome = { written: [join(root, 'package.json'), join(root, 'src/a.js')], applied: [join(root, 'src/a.js')], skipped: [join(root, 'src/env.js')], failed: [], quit: false, partial: [], interrupted: false };
    const summary = buildRunSummary(scan, 'apply', outcome, 3, display);
    expect(summary.root).toBe(root);
    expect(summary.mode).toBe('apply');
    expect(summary.exitCode).toBe(3);
    // plain.js has no decision and nothing to say: not in the report
    expect(summary.files.map((f) => [f.path, f.decision.kind, f.error ?? null])).toEqual([
      ['gone', 'none', 'no such file or directory'],
      ['src/a.js', 'sdk', null],
      ['src/env.js', 'envelope', null],
      ['src/leave.js', 'leave', null],
    ]);
    expect(summary.files.find((f) => f.path === 'src/env.js')?.companions).toEqual([{ path: 'src/mcp-envelope.js', content: 'export function send() {}\n' }]);
    expect(summary.manifests.map((m) => [m.path, m.added, m.installCommand])).toEqual([['package.json', { '@modelcontextprotocol/server': '^2.4.0', zod: '^4.2.0' }, 'npm install']]);
    expect(summary.written).toEqual(['package.json', 'src/a.js']);
  });

  it('renders counts, files left alone with their reason, and install commands', async () => {
    const root = await makeTree({ 'package.json': '{}', 'a.js': MIGRATE, 'b.js': `${SERVER_HINT}// LEAVE_ME\n`, 'c.js': `${SERVER_HINT}// ENVELOPE_ME\n` });
    const scan = await scanFiles({ paths: ['.'], cwd: root, sdk: 'auto', style: 'server', process: createFakePipeline().process });
    const display = (p: string): string => p.slice(root.length + 1) || '.';
    const text = renderSummary({ scan, mode: 'dry-run', outcome: null, errors: collectErrors(scan, null), display, paint: createPaint(false) });
    expect(text).toContain('Scanned 3 files, 3 candidates.');
    expect(text).toContain('would move to the SDK (1): a.js');
    expect(text).toContain('would get the JSON-RPC envelope (1): c.js');
    expect(text).toContain('left alone (1):\n    b.js: ALREADY_ON_SDK — already uses StdioServerTransport');
    expect(text).toContain('After applying, run `npm install` in . to install @modelcontextprotocol/server, zod.');
    expect(text).toContain('Dry run: nothing was written.');
  });

  it('groups a multi-package run per package in the human summary', async () => {
    const root = await makeTree({
      'package.json': '{"name": "root", "workspaces": ["packages/*"]}',
      'package-lock.json': '{}',
      'packages/a/package.json': '{"name": "@acme/a"}',
      'packages/a/s.js': MIGRATE,
      'packages/b/package.json': '{"name": "@acme/b"}',
      'packages/b/s.js': `${SERVER_HINT}// LEAVE_ME\n`,
    });
    const h = makeHarness(root);
    expect(await main(['--dry-run'], h.deps)).toBe(0);
    expect(h.stdout()).toContain('Packages:\n  @acme/a (packages/a): 1 to the SDK\n  @acme/b (packages/b): 1 left alone\n');
    expect(h.stdout().match(/After applying, run `npm install`/g)).toHaveLength(1);
  });
});

describe('progress line', () => {
  it('overwrites one line on a terminal and clears it', () => {
    let text = '';
    let t = 0;
    const line = createProgressLine((s) => (text += s), true, () => (t += 100));
    line.update({ scanned: 1, candidates: 0 });
    line.update({ scanned: 2, candidates: 1 });
    line.clear();
    expect(text).toBe('\r\x1b[2Kscanned 1 file, 0 candidates\r\x1b[2Kscanned 2 files, 1 candidate\r\x1b[2K');
  });

  it('is silent when stderr is not a terminal', async () => {
    const root = await makeTree({ 'a.js': MIGRATE });
    let err = '';
    const h = makeHarness(root, { stderr: { write: (s: string) => (err += s), isTTY: false } });
    await main(['--dry-run'], h.deps);
    expect(err).toBe('');
    let ttyErr = '';
    const tty = makeHarness(root, { stderr: { write: (s: string) => (ttyErr += s), isTTY: true } });
    await main(['--dry-run'], tty.deps);
    expect(ttyErr).toContain('scanned 1 file, 1 candidate');
  });
});

describe('the proof\'s progress', () => {
  it('on a terminal: one line naming the servers being proven and for how long, erased before each verdict and at the end', () => {
    let text = '';
    let t = 1_000;
    const line = createProofProgress((s) => (text += s), true, (p) => p.replace('/repo/', ''), () => t);
    line.start('/repo/a.js');
    t += 1_500;
    line.start('/repo/b.js');
    line.done('/repo/a.js');
    line.clear();
    t += 700;
    line.stop();
    expect(text).toBe('\r\x1b[2Kproving a.js (0.0 s)\r\x1b[2Kproving a.js (1.5 s), b.js (0.0 s)\r\x1b[2K');
  });

  it('elsewhere: nothing (each verdict is its own line)', () => {
    let text = '';
    const line = createProofProgress((s) => (text += s), false, (p) => p);
    line.start('a.js');
    line.stop();
    expect(text).toBe('');
  });

  it('the summary gives each server\'s own time: the median and the longest, named', () => {
    const times = [{ path: '/r/a.js', ms: 900 }, { path: '/r/b.js', ms: 3_400 }, { path: '/r/c.js', ms: 2_100 }, { path: '/r/d.js', ms: 1_100 }];
    const display = (p: string): string => p.slice(3);
    expect(describeProofTimes(times, 4, display)).toBe('4 side-by-side runs; per server: median 1.6 s, longest 3.4 s (b.js)');
    expect(describeProofTimes(times.slice(0, 3), 3, display)).toBe('3 side-by-side runs; per server: median 2.1 s, longest 3.4 s (b.js)');
    expect(describeProofTimes([times[1]!], 1, display)).toBe('1 side-by-side run, 3.4 s');
  });
});
