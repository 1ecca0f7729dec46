import { afterAll, describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmod, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { createGitClient } from '../src/runner/git.js';
import type { FileResult, PipelineOptions } from '../src/model/types.js';
import { createFakePipeline, makeHarness, makeTree, removeTrees, read, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const PKG = '{\n  "name": "demo",\n  "version": "1.0.0"\n}\n';
const MIGRATE = `${SERVER_HINT}// MIGRATE_ME\n`;

describe('main: --dry-run', () => {
  it('prints the diff and the plan, writes nothing, exits 0', async () => {
    const root = await makeTree({ 'package.json': PKG, 'src/server.js': MIGRATE });
    const h = makeHarness(root);
    const code = await main(['--dry-run'], h.deps);
    expect(code).toBe(0);
    expect(await read(root, 'src/server.js')).toBe(MIGRATE);
    expect(await read(root, 'package.json')).toBe(PKG);
    expect(h.stdout()).toContain('--- a/src/server.js');
    expect(h.stdout()).toContain('-// MIGRATE_ME');
    expect(h.stdout()).toContain('+// MIGRATED_v2_server');
    expect(h.stdout()).toContain('+    "@modelcontextprotocol/server": "^2.4.0"');
    expect(h.stdout()).toContain('fixed by the SDK: answers ping');
    expect(h.stdout()).toContain("detected: readline 'line' loop");
    expect(h.stdout()).toMatch(/After applying, run `npm install` in \. to install @modelcontextprotocol\/server, zod/);
  });

  it('names user code the SDK rewrite removes (logging only initialize ran) in the header and the JSON report', async () => {
    const server = [
      "const readline = require('readline');",
      "function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }",
      "readline.createInterface({ input: process.stdin }).on('line', (line) => {",
      '  const msg = JSON.parse(line);',
      "  if (msg.method === 'initialize') {",
      "    console.error('client', msg.params.clientInfo.name);",
      "    send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'x', version: '1' } } });",
      '  }',
      "  if (msg.method === 'tools/list') send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });",
      '});',
      '',
    ].join('\n');
    const root = await makeTree({ 'package.json': PKG, 'server.js': server });
    const { processSource } = await import('../src/pipeline.js');
    const h = makeHarness(root, { process: processSource });
    expect(await main(['--dry-run'], h.deps)).toBe(0);
    const dropped = "line 6: `console.error('client', msg.params.clientInfo.name)`, run only for initialize: the SDK answers initialize itself and never runs the server's code for it";
    expect(h.stdout()).toContain(`dropped: ${dropped}`);
    expect(h.stdout()).toContain("-    console.error('client', msg.params.clientInfo.name);");
    const json = makeHarness(root, { process: processSource });
    await main(['--dry-run', '--report', 'json'], json.deps);
    expect(JSON.parse(json.stdout()).files[0].dropped).toEqual([dropped]);
  });

  it('does not need a terminal or a clean git tree', async () => {
    const root = await makeTree({ 'src/server.js': MIGRATE });
    const h = makeHarness(root, { isTTY: false, git: { isRepo: async () => true, dirtyFiles: async () => [join(root, 'x')] } });
    expect(await main(['--dry-run'], h.deps)).toBe(0);
  });
});

describe('main: --check', () => {
  it('exits 1 while a migration is pending, without writing', async () => {
    const root = await makeTree({ 'package.json': PKG, 'server.js': MIGRATE });
    const h = makeHarness(root);
    expect(await main(['--check', '.'], h.deps)).toBe(1);
    expect(await read(root, 'server.js')).toBe(MIGRATE);
    expect(h.stdout()).toContain('+// MIGRATED_v2_server');
    expect(h.stdout()).toContain('pending migration');
  });

  it('exits 1 for a server left alone that still breaks the protocol, and lists its findings', async () => {
    const root = await makeTree({ 'package.json': PKG, 'server.js': `${SERVER_HINT}// UNPROVEN_ME\n` });
    const h = makeHarness(root);
    expect(await main(['--check'], h.deps)).toBe(1);
    expect(h.stdout()).toContain('server.js: ENVELOPE_UNPROVEN');
    expect(h.stdout()).toContain('      server.js:2:5 wrong-id: the reply id is `msg.id || null`');
    expect(h.stdout()).toContain('1 server left alone breaks the protocol');
    // a dry run says the same and still exits 0
    expect(await main(['--dry-run'], makeHarness(root).deps)).toBe(0);
  });

  it('lists the findings of a server the user asked to leave alone, without failing on them', async () => {
    const root = await makeTree({ 'package.json': PKG, 'server.js': `${SERVER_HINT}// IGNORE_ME\n` });
    const h = makeHarness(root);
    expect(await main(['--check'], h.deps)).toBe(0);
    expect(h.stdout()).toContain('server.js: IGNORED');
    expect(h.stdout()).toContain('server.js:2:5 wrong-id');
    expect(h.stdout()).not.toContain('breaks the protocol');
  });

  it('exits 0 when nothing is pending', async () => {
    const root = await makeTree({ 'package.json': PKG, 'server.js': `${SERVER_HINT}// LEAVE_ME\n`, 'other.js': 'console.log(1)\n' });
    const h = makeHarness(root);
    expect(await main(['--check'], h.deps)).toBe(0);
    expect(h.stdout()).toContain('server.js: ALREADY_ON_SDK — already uses StdioServerTransport');
    expect(h.stdout()).not.toContain('other.js');
  });

  it('exits 0 after the migration was applied', async () => {
    const root = await makeTree({ 'package.json': PKG, 'server.js': MIGRATE });
    expect(await main(['--yes', '--no-verify'], makeHarness(root).deps)).toBe(0);
    // The fake pipeline has nothing left to do on its own output (MIGRATE_ME is gone).
    expect(await main(['--check'], makeHarness(root).deps)).toBe(0);
  });
});

describe('main: --yes', () => {
  it('applies every file and adds the SDK to package.json keeping its indentation', async () => {
    const pkg = '{\n    "name": "demo",\n    "dependencies": {\n        "express": "^4.0.0"\n    }\n}\n';
    const root = await makeTree({ 'package.json': pkg, 'a.js': MIGRATE, 'lib/b.mjs': MIGRATE });
    await chmod(join(root, 'a.js'), 0o750);
    const h = makeHarness(root);
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(0);
    expect(await read(root, 'a.js')).toContain('MIGRATED_v2_server');
    expect(await read(root, 'lib/b.mjs')).toContain('MIGRATED_v2_server');
    expect((await stat(join(root, 'a.js'))).mode & 0o777).toBe(0o750);
    expect(await read(root, 'package.json')).toBe(
      '{\n    "name": "demo",\n    "dependencies": {\n        "@modelcontextprotocol/server": "^2.4.0",\n        "express": "^4.0.0",\n        "zod": "^4.2.0"\n    }\n}\n',
    );
    // no temp files left behind
    expect((await readdir(root)).filter((n) => n.includes('mcp-migrate'))).toEqual([]);
    expect(h.stdout()).toMatch(/Next, run `npm install` in \. to install @modelcontextprotocol\/server, zod/);
  });

  it('uses --sdk v2 / auto and --style', async () => {
    // auto: v2 for a package without an SDK or on v2 already, v1 for one that depends on the v1 SDK
    const root = await makeTree({
      'v2pkg/package.json': '{\n  "dependencies": {\n    "@modelcontextprotocol/server": "^2.4.0"\n  }\n}\n',
      'v2pkg/s.js': MIGRATE,
      'v1pkg/package.json': '{\n  "dependencies": {\n    "@modelcontextprotocol/sdk": "^1.32.2"\n  }\n}\n',
      'v1pkg/s.js': MIGRATE,
      'none/package.json': PKG,
      'none/s.js': MIGRATE,
    });
    const fake = createFakePipeline();
    const h = makeHarness(root, { process: fake.process });
    expect(await main(['--yes', '--no-verify', '--style', 'mcp-server'], h.deps)).toBe(0);
    expect(await read(root, 'v2pkg/s.js')).toContain('MIGRATED_v2_mcp-server');
    expect(await read(root, 'v1pkg/s.js')).toContain('MIGRATED_v1_mcp-server');
    expect(await read(root, 'none/s.js')).toContain('MIGRATED_v2_mcp-server');
    // v2 already had the server package: only zod 4.2 or later (its schemas need it) is added; v1 gets its peer 4.1
    expect(await read(root, 'v2pkg/package.json')).toBe('{\n  "dependencies": {\n    "@modelcontextprotocol/server": "^2.4.0",\n    "zod": "^4.2.0"\n  }\n}\n');
    expect(await read(root, 'v1pkg/package.json')).toBe('{\n  "dependencies": {\n    "@modelcontextprotocol/sdk": "^1.32.2",\n    "zod": "^4.1.0"\n  }\n}\n');
    expect(await read(root, 'none/package.json')).toBe('{\n  "name": "demo",\n  "version": "1.0.0",\n  "dependencies": {\n    "@modelcontextprotocol/server": "^2.4.0",\n    "zod": "^4.2.0"\n  }\n}\n');

    const forced = await makeTree({ 'package.json': PKG, 's.js': MIGRATE });
    expect(await main(['--yes', '--no-verify', '--sdk', 'v1'], makeHarness(forced).deps)).toBe(0);
    expect(await read(forced, 's.js')).toContain('MIGRATED_v1_server');
    expect(await read(forced, 'package.json')).toBe('{\n  "name": "demo",\n  "version": "1.0.0",\n  "dependencies": {\n    "@modelcontextprotocol/sdk": "^1.32.2",\n    "zod": "^4.1.0"\n  }\n}\n');
  });

  it('writes a companion file once even when several files ask for it', async () => {
    const root = await makeTree({ 'package.json': PKG, 'a.js': `${SERVER_HINT}// ENVELOPE_ME\n`, 'b.js': `${SERVER_HINT}// ENVELOPE_ME\n` });
    const h = makeHarness(root);
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(0);
    expect(await read(root, 'mcp-envelope.js')).toBe('export function send() {}\n');
    expect(await read(root, 'a.js')).toContain('ENVELOPED');
    expect(await read(root, 'b.js')).toContain('ENVELOPED');
    expect(h.stdout().match(/new file mcp-envelope\.js/g)).toHaveLength(1);
    expect(h.stdout()).toContain('envelope: COMPUTED_DISPATCH — handlers are looked up by a computed key');
    // envelope needs no SDK dependency
    expect(await read(root, 'package.json')).toBe(PKG);
  });
});

describe('main: refusals (exit 2)', () => {
  it('refuses an interactive run without a terminal, naming the flags', async () => {
    const root = await makeTree({ 'server.js': MIGRATE });
    const h = makeHarness(root, { isTTY: false });
    expect(await main([], h.deps)).toBe(2);
    expect(h.stderr()).toContain('--yes');
    expect(h.stderr()).toContain('--dry-run');
    expect(h.stderr()).toContain('--check');
    expect(await read(root, 'server.js')).toBe(MIGRATE);
  });

  it('refuses a dirty git tree without --force, listing the dirty files', async () => {
    const root = await makeTree({ 'package.json': PKG, 'server.js': MIGRATE });
    const git = (...args: string[]): string => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' });
    git('init', '-q');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'add', '.');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '-m', 'init');
    await writeFile(join(root, 'notes.txt'), 'wip\n');
    await writeFile(join(root, 'package.json'), `${PKG}\n`);
    const h = makeHarness(root, { git: createGitClient() });
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(2);
    expect(h.stderr()).toContain('uncommitted changes');
    expect(h.stderr()).toContain('notes.txt');
    expect(h.stderr()).toContain('package.json');
    expect(h.stderr()).toContain('--force');
    expect(await read(root, 'server.js')).toBe(MIGRATE);

    // --force goes ahead; a clean tree needs no --force.
    expect(await main(['--yes', '--no-verify', '--force'], makeHarness(root, { git: createGitClient() }).deps)).toBe(0);
    expect(await read(root, 'server.js')).toContain('MIGRATED');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'add', '.');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '-m', 'migrated');
    await writeFile(join(root, 'again.js'), MIGRATE);
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'add', '.');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '-m', 'more');
    expect(await main(['--yes', '--no-verify'], makeHarness(root, { git: createGitClient() }).deps)).toBe(0);
  });

  it('proceeds outside a git repository', async () => {
    const root = await makeTree({ 'server.js': MIGRATE });
    expect(await main(['--yes', '--no-verify'], makeHarness(root, { git: createGitClient() }).deps)).toBe(0);
    expect(await read(root, 'server.js')).toContain('MIGRATED');
  });

  it('rejects unknown flags and bad values with a usage message', async () => {
    const root = await makeTree({});
    for (const argv of [['--frobnicate'], ['--sdk', 'v3'], ['--style', 'fancy'], ['--report', 'xml'], ['--jobs', '0'], ['--output', 'r.json']]) {
      const h = makeHarness(root);
      expect(await main(argv, h.deps)).toBe(2);
      expect(h.stderr()).toMatch(/^mcp-migrate: /);
      expect(h.stderr()).toContain('--help');
    }
  });
});

describe('main: errors (exit 3)', () => {
  it('names a file that does not parse and still processes the others', async () => {
    const root = await makeTree({
      'package.json': PKG,
      'broken.js': "process.stdin.on('data', (d) => { const msg = JSON.parse(d); if (msg.jsonrpc) ( });\n",
      'good.js': MIGRATE,
    });
    const fake = createFakePipeline();
    // The real pipeline for the broken file, the fake one for the rest.
    const { processSource } = await import('../src/pipeline.js');
    const process = (path: string, source: string, options: PipelineOptions): FileResult =>
      path.endsWith('broken.js') ? processSource(path, source, options) : fake.process(path, source, options);
    const h = makeHarness(root, { process });
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(3);
    expect(h.stderr()).toMatch(/error: broken\.js: .*Unexpected token/);
    expect(await read(root, 'good.js')).toContain('MIGRATED');
  });

  it('a path that does not exist is a usage error (exit 2): a typo, nothing is scanned', async () => {
    const root = await makeTree({ 'src/server.js': MIGRATE });
    const h = makeHarness(root);
    expect(await main(['--dry-run', 'nope', 'src'], h.deps)).toBe(2);
    expect(h.stderr()).toContain('mcp-migrate: nope: no such file or directory');
    expect(h.stdout()).toBe('');
  });

  it('refuses a file changed on disk between read and write', async () => {
    const root = await makeTree({ 'a.js': MIGRATE, 'b.js': MIGRATE });
    const h = makeHarness(root, {
      isTTY: true,
      prompt: async (q) => {
        // the user edits b.js while looking at the diff of a.js
        if (q.path === 'a.js') await writeFile(join(root, 'b.js'), `${MIGRATE}// edited\n`);
        return 'apply';
      },
    });
    // (no proof: the fake servers never start, and the proof would wait for them; the write is what is tested)
    expect(await main(['--no-verify'], h.deps)).toBe(3);
    expect(await read(root, 'a.js')).toContain('MIGRATED');
    expect(await read(root, 'b.js')).toBe(`${MIGRATE}// edited\n`);
    expect(h.stderr()).toContain('error: b.js: changed on disk since it was read');
  });

  // Refusals the system makes for a user who may not write (root may: see the next tests).
  const root_ = process.getuid?.() === 0;
  it.skipIf(root_)('reports a read-only file and leaves it unchanged', async () => {
    const root = await makeTree({ 'package.json': PKG, 'ro.js': MIGRATE, 'rw.js': MIGRATE });
    await chmod(join(root, 'ro.js'), 0o444);
    const h = makeHarness(root);
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(3);
    expect(await read(root, 'ro.js')).toBe(MIGRATE);
    expect((await stat(join(root, 'ro.js'))).mode & 0o777).toBe(0o444);
    expect(await read(root, 'rw.js')).toContain('MIGRATED');
    expect(h.stderr()).toContain('error: ro.js: is read-only');
  });

  it.skipIf(root_)('reports a read-only directory and writes nothing into it', async () => {
    const root = await makeTree({ 'locked/server.js': MIGRATE, 'locked/package.json': PKG });
    await chmod(join(root, 'locked'), 0o555);
    try {
      const h = makeHarness(root);
      expect(await main(['--yes', '--no-verify'], h.deps)).toBe(3);
      expect(h.stderr()).toMatch(/error: locked\/server\.js: .*read-only/);
      expect(await read(root, 'locked/server.js')).toBe(MIGRATE);
      expect(await read(root, 'locked/package.json')).toBe(PKG);
      expect(await readdir(join(root, 'locked'))).toEqual(['package.json', 'server.js']);
    } finally {
      await chmod(join(root, 'locked'), 0o755);
    }
  });

  // A copy of read-only sources (a tarball, a read-only mount, cp -r of a 0444 tree) migrated as root.
  it.runIf(root_)('migrates a read-only copy when the user (root) may write it, keeping every mode', async () => {
    const root = await makeTree({ 'pkg/package.json': PKG, 'pkg/server.js': MIGRATE });
    await chmod(join(root, 'pkg/server.js'), 0o444);
    await chmod(join(root, 'pkg/package.json'), 0o444);
    await chmod(join(root, 'pkg'), 0o555);
    try {
      const h = makeHarness(root);
      expect(await main(['--yes', '--no-verify'], h.deps)).toBe(0);
      expect(await read(root, 'pkg/server.js')).toContain('MIGRATED');
      expect((await stat(join(root, 'pkg/server.js'))).mode & 0o777).toBe(0o444);
      expect((await stat(join(root, 'pkg'))).mode & 0o777).toBe(0o555);
    } finally {
      await chmod(join(root, 'pkg'), 0o755);
    }
  });

  it('prints ten warnings and a count where there are more than twenty', async () => {
    const patterns = Array.from({ length: 30 }, (_, i) => `none-${i}`);
    const root = await makeTree({ 'package.json': JSON.stringify({ name: 'w', workspaces: patterns }), 's.js': MIGRATE });
    const h = makeHarness(root);
    await main(['--dry-run'], h.deps);
    const warnings = h.stderr().split('\n').filter((line) => line.startsWith('warning: '));
    expect(warnings).toHaveLength(11);
    expect(warnings[0]).toBe(`warning: workspace pattern "none-0" in ${root} matches no package`);
    expect(warnings[9]).toBe(`warning: workspace pattern "none-9" in ${root} matches no package`);
    expect(warnings[10]).toBe('warning: … and 20 more warnings like these');
  });

  it('refuses files under a package.json that is not valid JSON', async () => {
    const root = await makeTree({ 'bad/package.json': '{ "name": "bad", }\n', 'bad/s.js': MIGRATE, 'good/package.json': PKG, 'good/s.js': MIGRATE });
    const h = makeHarness(root);
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(3);
    expect(h.stderr()).toContain('error: bad/s.js: cannot add the SDK dependency: bad/package.json is not valid JSON');
    expect(h.stderr()).toMatch(/error: bad\/package\.json: is not valid JSON/);
    // the summary names each file with its reason (a log's tail is often all a CI reader sees)
    expect(h.stdout()).toMatch(/could not be processed \(2\):\n {4}bad\/package\.json: is not valid JSON[^\n]*\n {4}bad\/s\.js: cannot add the SDK dependency: bad\/package\.json is not valid JSON\n/);
    expect(await read(root, 'bad/s.js')).toBe(MIGRATE);
    expect(await read(root, 'good/s.js')).toContain('MIGRATED');
  });

  it('turns a pipeline crash into an error for that file only', async () => {
    const root = await makeTree({ 'a.js': MIGRATE, 'b.js': MIGRATE });
    const fake = createFakePipeline();
    const process = (path: string, source: string, options: PipelineOptions): FileResult => {
      if (path.endsWith('a.js')) throw new Error('boom');
      return fake.process(path, source, options);
    };
    const h = makeHarness(root, { process });
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(3);
    expect(h.stderr()).toContain('error: a.js: internal error while processing this file: boom');
    expect(await read(root, 'b.js')).toContain('MIGRATED');
  });
});

describe('main: interactive review', () => {
  it('applies, skips, applies all remaining and quits as answered', async () => {
    const files = { 'package.json': PKG, '1.js': MIGRATE, '2.js': MIGRATE, '3.js': MIGRATE, '4.js': MIGRATE };
    const root = await makeTree(files);
    const h = makeHarness(root, { isTTY: true }, ['skip', 'apply', 'quit']);
    // --no-verify: the answers are the point; the fake servers never answer initialize, which the proof
    // now waits out three times per file (main 1b4ac06), past this test's timeout on a loaded machine
    expect(await main(['--no-verify'], h.deps)).toBe(0);
    expect(h.questions.map((q) => `${q.path} ${q.index}/${q.total}`)).toEqual(['1.js 1/4', '2.js 2/4', '3.js 3/4']);
    expect(await read(root, '1.js')).toBe(MIGRATE);
    expect(await read(root, '2.js')).toContain('MIGRATED');
    expect(await read(root, '3.js')).toBe(MIGRATE);
    expect(await read(root, '4.js')).toBe(MIGRATE);
    // the package.json change went in with the first applied file
    expect(await read(root, 'package.json')).toContain('"@modelcontextprotocol/server": "^2.4.0"');
    expect(h.stdout()).toContain('not applied (3): 1.js, 3.js, 4.js');

    const again = await makeTree(files);
    const h2 = makeHarness(again, { isTTY: true }, ['apply', 'all']);
    expect(await main(['--no-verify'], h2.deps)).toBe(0);
    expect(h2.questions).toHaveLength(2);
    for (const name of ['1.js', '2.js', '3.js', '4.js']) expect(await read(again, name)).toContain('MIGRATED');
  });

  it('shows the package.json diff with each file until it is written', async () => {
    const root = await makeTree({ 'package.json': PKG, '1.js': MIGRATE, '2.js': MIGRATE });
    const h = makeHarness(root, { isTTY: true }, ['skip', 'skip']);
    expect(await main(['--no-verify'], h.deps)).toBe(0);
    expect(h.stdout().match(/package\.json: adds @modelcontextprotocol\/server, zod/g)).toHaveLength(2);
    expect(await read(root, 'package.json')).toBe(PKG);
  });
});

describe('main: colors', () => {
  it('colors the diff on a terminal', async () => {
    const root = await makeTree({ 'server.js': MIGRATE });
    let out = '';
    const h = makeHarness(root, { stdout: { write: (t: string) => (out += t), isTTY: true } });
    expect(await main(['--dry-run'], h.deps)).toBe(0);
    expect(out).toContain('\x1b[32m+// MIGRATED');
    expect(out).toContain('\x1b[31m-// MIGRATE_ME');
    expect(out).toMatch(/\x1b\[36m@@ /);
  });

  it('prints plain text with NO_COLOR or without a terminal', async () => {
    const root = await makeTree({ 'server.js': MIGRATE });
    let out = '';
    const h = makeHarness(root, { stdout: { write: (t: string) => (out += t), isTTY: true }, env: { NO_COLOR: '1' } });
    expect(await main(['--dry-run'], h.deps)).toBe(0);
    expect(out).toContain('+// MIGRATED');
    expect(out).not.toContain('\x1b[');
    const plain = makeHarness(root);
    expect(await main(['--dry-run'], plain.deps)).toBe(0);
    expect(plain.stdout()).toContain('+// MIGRATED');
    expect(plain.stdout()).not.toContain('\x1b[');
  });
});

describe('main: reports', () => {
  it('puts only the report on stdout and the human text on stderr', async () => {
    const root = await makeTree({ 'package.json': PKG, 'src/server.js': MIGRATE });
    const h = makeHarness(root);
    expect(await main(['--check', '--report', 'json'], h.deps)).toBe(1);
    expect(() => JSON.parse(h.stdout())).not.toThrow();
    expect(h.stdout()).not.toContain('Scanned');
    expect(h.stderr()).toContain('+// MIGRATED_v2_server');
    expect(h.stderr()).toContain('Scanned 1 file, 1 candidate.');
  });

  it('writes the report to --output and keeps the human text on stdout', async () => {
    const root = await makeTree({ 'src/server.js': MIGRATE });
    const h = makeHarness(root);
    expect(await main(['--dry-run', '--report', 'markdown', '--output', 'report.md'], h.deps)).toBe(0);
    expect((await read(root, 'report.md')).length).toBeGreaterThan(0);
    expect(h.stdout()).toContain('+// MIGRATED_v2_server');
    expect(h.stdout()).toContain('Report written to report.md');
  });
});

describe('main: discovery through the CLI', () => {
  it('skips node_modules, dist, symlinks and .gitignored files', async () => {
    const root = await makeTree({
      '.gitignore': 'generated/\n*.gen.js\n',
      'src/server.js': MIGRATE,
      'node_modules/pkg/server.js': MIGRATE,
      'dist/server.js': MIGRATE,
      'generated/server.js': MIGRATE,
      'src/x.gen.js': MIGRATE,
    });
    await symlink(join(root, 'src/server.js'), join(root, 'link.js'));
    const fake = createFakePipeline();
    const h = makeHarness(root, { process: fake.process });
    expect(await main(['--dry-run'], h.deps)).toBe(0);
    expect(fake.calls.map((c) => c.path)).toEqual([join(root, 'src/server.js')]);
    expect(h.stdout()).toContain('Scanned 1 file, 1 candidate.');
  });
});
