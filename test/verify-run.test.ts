// `mcp-migrate --verify`: each rewritten server runs next to its original in temp copies of its package
// before anything is written; a rewrite that answers differently is refused. The real pipeline writes
// the honest fixture's migration; an injected pipeline (CliDeps.process) hands in a broken "migration"
// (the fixture whose tools/call throws ReferenceError) to walk the refusal path end to end.
import { afterAll, describe, it, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../src/cli/main.js';
import type { FileResult, PipelineOptions } from '../src/model/types.js';
import type { ScanResult } from '../src/runner/scan.js';
import { applyVerifyVerdicts, verifyRewrite } from '../src/runner/verify-run.js';
import { makeHarness } from './fixtures/cli/harness.js';
import { PROJECT_NODE_MODULES } from './e2e/harness.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/verify/', import.meta.url));
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');

const scratch: string[] = [];
afterAll(async () => {
  await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** `<tmp>/pkg` with a package.json and `files`; `<tmp>/node_modules` links to the project's unless `modules` is false. */
async function makePackage(files: Record<string, string>, modules = true): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'mcp-migrate-verify-run-'));
  scratch.push(root);
  const pkg = join(root, 'pkg');
  await mkdir(pkg);
  await writeFile(join(pkg, 'package.json'), '{\n  "name": "honest-mcp",\n  "version": "1.0.0"\n}\n');
  for (const [name, content] of Object.entries(files)) await writeFile(join(pkg, name), content);
  if (modules) await symlink(PROJECT_NODE_MODULES, join(root, 'node_modules'), 'dir');
  return pkg;
}

const HONEST = { 'honest.cjs': fixture('honest.cjs'), 'logic.cjs': fixture('logic.cjs') };

/** A pipeline that "migrates" honest.cjs to `after` (an SDK rewrite), and touches nothing else. */
function pipelineTo(after: string): (path: string, source: string, options: PipelineOptions) => FileResult {
  return (path, source, options) => {
    const base: FileResult = { path, before: source, decision: { kind: 'none' }, fixes: [], findings: [], diagnostics: [] };
    if (!path.endsWith('honest.cjs')) return base;
    // (the fixtures are migrations onto SDK v1, whatever the run targets)
    return { ...base, after, decision: { kind: 'sdk', sdk: 'v1', style: options.style, notes: [] }, methods: ['initialize', 'tools/list', 'tools/call', 'stats/get'], fixes: ['answers ping'] };
  };
}

describe.concurrent('--verify in a migration run', () => {
  it('--yes --verify writes a migration that answers like the original (the real pipeline, SDK v1)', async () => {
    const pkg = await makePackage(HONEST);
    const h = makeHarness(pkg, { process: undefined });
    const code = await main(['--yes', '--force', '--verify', '--sdk', 'v1', pkg], h.deps);
    expect(code, h.stderr()).toBe(0);
    expect(h.stdout()).toMatch(/^ {2}same {5}honest\.cjs: answers like the original \(9 requests compared; fixes: reply-to-notification, ping-unanswered\) \[\d+\.\d s\]$/m);
    expect(readFileSync(join(pkg, 'honest.cjs'), 'utf8')).toContain("require('@modelcontextprotocol/sdk/server/index.js')");
    expect(readFileSync(join(pkg, 'package.json'), 'utf8')).toContain('@modelcontextprotocol/sdk');
  });

  it('v2 (the default): a server that answers a missing resource -32002 gets the SDK at the boundary, which keeps that code for 2025-era clients; proven in both eras', async () => {
    const pkg = await makePackage(HONEST);
    const h = makeHarness(pkg, { process: undefined });
    const code = await main(['--yes', '--force', pkg], h.deps);
    expect(code, h.stderr()).toBe(0);
    const out = h.stdout();
    expect(out).toContain('not at the dispatcher: RESOURCE_MISS_CODE');
    expect(out).not.toContain('wire change: a resource read');
    // (nothing expected: the 2025-era answers are the original's, -32002 included)
    expect(out).toMatch(/^ {2}same {5}honest\.cjs: answers like the original \(9 requests compared; fixes: reply-to-notification, ping-unanswered\) /m);
    expect(out).toContain('a client of the 2026-07-28 revision connects and is offered the same tools/list');
    expect(readFileSync(join(pkg, 'honest.cjs'), 'utf8')).toContain("require('./mcp-boundary.cjs')");
    expect(readFileSync(join(pkg, 'mcp-boundary.cjs'), 'utf8')).toContain("require('@modelcontextprotocol/server/stdio')");
    expect(readFileSync(join(pkg, 'package.json'), 'utf8')).toContain('@modelcontextprotocol/server');
  });

  it('a listing the SDK rejects (tools without the inputSchema MCP requires) is an answer worse: the boundary is refused and the envelope, which passes the list as it is, takes the server', async () => {
    const server = `'use strict';
const readline = require('node:readline');
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') return send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'loose', version: '1.0.0' } } });
  if (msg.method === 'tools/list') return send({ jsonrpc: '2.0', id: msg.id, result: { tools: [{ name: 'now', description: 'the time' }] } });
  if (msg.id !== undefined) send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
});
`;
    const pkg = await makePackage({ 'loose.cjs': server });
    const h = makeHarness(pkg, { process: undefined });
    expect(await main(['--yes', '--force', pkg], h.deps), h.stderr()).toBe(0);
    expect(h.stdout()).toMatch(/DIFFERS +loose\.cjs: the SDK at the boundary is not offered/);
    expect(h.stdout()).toContain('a client of the 2026-07-28 revision asked tools/list and got no answer: Invalid result for tools/list');
    expect(h.stdout()).toMatch(/same +loose\.cjs: answers like the original/);
    expect(readFileSync(join(pkg, 'loose.cjs'), 'utf8')).toContain('mcp-envelope');
  });

  it('--yes proves and writes the rewrite of a server whose replies lack their newline (no client could read it; the proof can)', async () => {
    const pkg = await makePackage({ 'unterminated.cjs': fixture('unterminated.cjs') });
    const h = makeHarness(pkg, { process: undefined });
    const code = await main(['--yes', '--force', pkg], h.deps);
    expect(code, h.stderr()).toBe(0);
    expect(h.stdout()).toMatch(/^ {2}same {5}unterminated\.cjs: answers like the original \(\d+ requests compared; fixes: [^)]*stdout-pollution[^)]*\)/m);
    expect(readFileSync(join(pkg, 'unterminated.cjs'), 'utf8')).toContain("require('@modelcontextprotocol/server')");
  });

  it('--yes --verify=calls refuses a migration whose tools/call throws ReferenceError: nothing written, exit 1, the diff said', async () => {
    const pkg = await makePackage(HONEST);
    const h = makeHarness(pkg, { process: pipelineTo(fixture('broken-migrated.cjs')) });
    const code = await main(['--yes', '--force', '--verify=calls', '--report', 'json', '--output', 'report.json', pkg], h.deps);
    expect(code, h.stderr()).toBe(1);
    expect(readFileSync(join(pkg, 'honest.cjs'), 'utf8')).toBe(HONEST['honest.cjs']);
    expect(readFileSync(join(pkg, 'package.json'), 'utf8')).not.toContain('@modelcontextprotocol/sdk');
    const out = h.stdout();
    expect(out).toMatch(/^ {2}DIFFERS {2}honest\.cjs: the SDK rewrite is not offered, it answers differently from the original/m);
    expect(out).toContain('        tools/call add (answer)\n          original: result {"content":[{"type":"text","text":"2"}]}\n          migrated: error -32603 "params is not defined"\n');
    expect(out).toMatch(/^Proved 1 server\(s\) in \d+\.\d s \(1 side-by-side run, \d+\.\d s\): 0 answer like the original; 1 left alone \(no rewrite answered as well\)\.$/m);
    const report = JSON.parse(readFileSync(join(pkg, 'report.json'), 'utf8')) as { files: Array<{ path: string; decision: { kind: string; reason?: string }; diagnostics: Array<{ code: string; message: string }> }> };
    const file = report.files.find((f) => f.path === 'honest.cjs');
    expect(file?.decision).toMatchObject({ kind: 'leave', reason: 'VERIFY_DIFFERENT' });
    expect(file?.diagnostics.find((d) => d.code === 'VERIFY_DIFFERENT')?.message).toContain('tools/call add (answer): result {"content":[{"type":"text","text":"2"}]} -> error -32603 "params is not defined"');
  });

  it('--check --verify exits 1 on a refused rewrite; --dry-run --verify shows it and exits 0', async () => {
    const pkg = await makePackage(HONEST);
    const check = makeHarness(pkg, { process: pipelineTo(fixture('broken-migrated.cjs')) });
    const dry = makeHarness(pkg, { process: pipelineTo(fixture('broken-migrated.cjs')) });
    const [checkCode, dryCode] = await Promise.all([main(['--check', '--verify', pkg], check.deps), main(['--dry-run', '--verify', pkg], dry.deps)]);
    expect(checkCode).toBe(1);
    expect(dryCode).toBe(0);
    for (const h of [check, dry]) {
      expect(h.stdout()).toContain('DIFFERS');
      // refused: no diff offered for it
      expect(h.stdout()).not.toContain('+++ b/honest.cjs');
    }
  });

  it('the JSON report carries each rewrite\'s proof: same with what was compared under --verify, not-run without it', async () => {
    const pkg = await makePackage(HONEST);
    const proved = makeHarness(pkg, { process: undefined });
    expect(await main(['--check', '--verify', '--report', 'json', pkg], proved.deps)).toBe(1);
    const fileOf = (text: string): { path: string; proof: unknown } => (JSON.parse(text) as { files: Array<{ path: string; proof: unknown }> }).files.find((f) => f.path === 'honest.cjs')!;
    expect(fileOf(proved.stdout()).proof).toEqual({ status: 'same', detail: expect.stringMatching(/^\d+ requests compared$/), seconds: expect.any(Number) });
    const unproved = makeHarness(pkg, { process: undefined });
    expect(await main(['--check', '--report', 'json', pkg], unproved.deps)).toBe(1);
    expect(fileOf(unproved.stdout()).proof).toEqual({ status: 'not-run', detail: null, seconds: null });
  });

  it('runs the servers in temp copies: what they write at start-up never lands in the package', async () => {
    const touch = "require('node:fs').writeFileSync('side-effect.txt', String(process.env.HOME));\n";
    const pkg = await makePackage({ ...HONEST, 'honest.cjs': touch + HONEST['honest.cjs'] });
    const h = makeHarness(pkg, { process: pipelineTo(touch + fixture('honest-migrated.cjs')) });
    expect(await main(['--check', '--verify', pkg], h.deps)).toBe(1); // pending: the migration itself
    expect(h.stdout()).toContain('same     honest.cjs: answers like the original');
    expect(existsSync(join(pkg, 'side-effect.txt'))).toBe(false);
  });

  it('runs the copy among the package\'s surroundings: a package of a monorepo that reads a file beside it (a config its tsconfig extends, a shared folder) is proven', async () => {
    const root = await mkdtemp(join(tmpdir(), 'mcp-migrate-verify-run-'));
    scratch.push(root);
    const pkg = join(root, 'apps', 'server');
    await mkdir(join(root, 'shared'), { recursive: true });
    await mkdir(pkg, { recursive: true });
    await writeFile(join(root, 'shared', 'settings.json'), '{ "greeting": "hi" }\n');
    await writeFile(join(pkg, 'package.json'), '{\n  "name": "server",\n  "version": "1.0.0"\n}\n');
    // read at start-up from two folders up: in a copy of the package alone the server does not start
    const reads = "require('../../shared/settings.json');\n";
    await writeFile(join(pkg, 'honest.cjs'), reads + HONEST['honest.cjs']);
    await writeFile(join(pkg, 'logic.cjs'), HONEST['logic.cjs']);
    await symlink(PROJECT_NODE_MODULES, join(root, 'node_modules'), 'dir');
    const h = makeHarness(root, { process: pipelineTo(reads + fixture('honest-migrated.cjs')) });
    const code = await main(['--yes', '--force', '--verify', root], h.deps);
    expect(code, h.stderr()).toBe(0);
    expect(h.stdout()).toMatch(/^ {2}same {5}apps\/server\/honest\.cjs: answers like the original/m);
    expect(readFileSync(join(pkg, 'honest.cjs'), 'utf8')).toContain("require('@modelcontextprotocol/sdk/server/index.js')");
  });

  it('--yes proves a rewrite that changes only a module the entry imports (the entry itself unchanged)', async () => {
    // the entry only starts the server; stdin and stdout are the module's, so the rewrite lands there
    const lib = [
      "const readline = require('node:readline');",
      'exports.listen = function listen(handlers) {',
      '  const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");',
      "  readline.createInterface({ input: process.stdin }).on('line', (line) => {",
      '    const msg = JSON.parse(line);',
      '    const handler = handlers[msg.method];',
      '    if (handler) handler(msg.params || {}, (result) => send({ jsonrpc: "2.0", id: msg.id, result }));',
      '    else if (msg.id !== undefined) send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } });',
      '  });',
      '};',
      '',
    ].join('\n');
    const entry = [
      "const { listen } = require('./lib.cjs');",
      'listen({',
      "  initialize: (p, done) => done({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'two-file', version: '1.0.0' } }),",
      "  'tools/list': (p, done) => done({ tools: [{ name: 'hello', inputSchema: { type: 'object' } }] }),",
      "  'tools/call': (p, done) => done({ content: [{ type: 'text', text: 'hello ' + p.name }] }),",
      '});',
      '',
    ].join('\n');
    const pkg = await makePackage({ 'server.cjs': entry, 'lib.cjs': lib });
    const h = makeHarness(pkg, { process: undefined });
    const code = await main(['--yes', '--force', pkg], h.deps);
    expect(code, h.stderr()).toBe(0);
    // the proof ran the server from its entry, with the module's rewrite and the boundary module in place
    expect(h.stdout()).toMatch(/^ {2}same {5}server\.cjs: answers like the original/m);
    expect(readFileSync(join(pkg, 'server.cjs'), 'utf8')).toBe(entry);
    expect(readFileSync(join(pkg, 'lib.cjs'), 'utf8')).toContain('boundary.stdin');
    expect(existsSync(join(pkg, 'mcp-boundary.cjs'))).toBe(true);
  });

  it('a migrated server that does not start (while the original does) is refused', async () => {
    const pkg = await makePackage(HONEST);
    const h = makeHarness(pkg, { process: pipelineTo("throw new Error('boom at load');\n") });
    expect(await main(['--check', '--verify', pkg], h.deps)).toBe(1);
    expect(h.stdout()).toContain('the migrated server does not start (the original does): the server exited with code 1 before answering initialize');
  });
});

describe('--verify-timeout', () => {
  it('is the wait for each reply: a server that takes 3 s to start is refused under 200 ms (0.6 s for initialize, 1.8 s when measured again), and answers alike under the default', async () => {
    const slow = 'const start = Date.now();\nwhile (Date.now() - start < 3000);\n';
    const pkg = await makePackage(HONEST);
    const short = makeHarness(pkg, { process: pipelineTo(slow + fixture('honest-migrated.cjs')) });
    const long = makeHarness(pkg, { process: pipelineTo(slow + fixture('honest-migrated.cjs')) });
    const [shortCode, longCode] = await Promise.all([main(['--check', '--verify', '--verify-timeout', '200', pkg], short.deps), main(['--check', '--verify', pkg], long.deps)]);
    expect(shortCode).toBe(1);
    expect(short.stdout()).toContain('DIFFERS  honest.cjs: the SDK rewrite is not offered, it answers differently from the original');
    expect(longCode).toBe(1); // pending: the migration itself
    expect(long.stdout()).toContain('same     honest.cjs: answers like the original');
  });

  it('a difference that rests on a reply not yet come is measured again with a longer wait: an original slow to start is no reason to refuse', async () => {
    // the original busy-waits 1 s before it reads anything: under 200 ms (0.6 s for initialize) its
    // initialize goes unanswered while the migrated one answers; measured again (0.4 s a reply, 1.8 s
    // for initialize) both answer alike
    const slow = 'const start = Date.now();\nwhile (Date.now() - start < 1000);\n';
    const pkg = await makePackage({ ...HONEST, 'honest.cjs': slow + fixture('honest.cjs') });
    const h = makeHarness(pkg, { process: pipelineTo(fixture('honest-migrated.cjs')) });
    expect(await main(['--check', '--verify', '--verify-timeout', '200', pkg], h.deps)).toBe(1); // pending: the migration itself
    expect(h.stdout()).toContain('same     honest.cjs: answers like the original');
  });

  it('a rule the migrated server breaks only because a later request was answered first (an unknown method answered after 700 ms) is measured again with the whole wait, and holds', async () => {
    const original = fixture('honest.cjs');
    // (requests only: the notifications it answers, a bug the proof counts as fixed, stay as they are)
    const slowFallback = original.replace("  fail(id, -32601, 'Method not found');\n}", "  if (id === undefined) return fail(id, -32601, 'Method not found');\n  setTimeout(() => fail(id, -32601, 'Method not found'), 700);\n}");
    expect(slowFallback).not.toBe(original);
    const pkg = await makePackage(HONEST);
    const h = makeHarness(pkg, { process: pipelineTo(slowFallback) });
    expect(await main(['--check', '--verify', pkg], h.deps)).toBe(1); // pending: the migration itself
    expect(h.stdout()).toContain('same     honest.cjs: answers like the original');
  });

  it('an answer the original itself gives differently from run to run is not a difference (a tool that makes up an id when its argument is missing)', async () => {
    // the same server on both sides: only the made-up id differs between the runs
    const random = `const rl = require('node:readline').createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
rl.on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  if (msg.method === 'initialize') return send({ id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'r', version: '1' } } });
  if (msg.method === 'tools/list') return send({ id: msg.id, result: { tools: [{ name: 'note', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }] } });
  if (msg.method === 'tools/call') return send({ id: msg.id, result: { content: [{ type: 'text', text: 'saved ' + require('node:crypto').randomUUID() }] } });
  send({ id: msg.id, error: { code: -32601, message: 'Method not found' } });
});
`;
    const pkg = await makePackage({ 'honest.cjs': random });
    const h = makeHarness(pkg, { process: pipelineTo(`${random}// migrated\n`) });
    expect(await main(['--check', '--verify', pkg], h.deps)).toBe(1); // pending: the migration itself
    expect(h.stdout()).toContain('same     honest.cjs: answers like the original');
  });

  it('two servers that answer nothing within the wait are not verified, not "alike" (nothing was compared)', async () => {
    const silent = "// a jsonrpc server whose every method hangs\nprocess.stdin.resume();\nsetInterval(() => {}, 1000);\n";
    const pkg = await makePackage({ 'honest.cjs': silent });
    const h = makeHarness(pkg, { process: pipelineTo(`${silent}// migrated\n`) });
    expect(await main(['--check', '--verify', '--verify-timeout', '100', pkg], h.deps)).toBe(1); // pending
    expect(h.stdout()).toContain('no request was answered by both servers within the wait (100 ms per reply, --verify-timeout): nothing was compared');
    expect(h.stdout()).not.toContain('answers like the original');
  });
});

describe('--verify starts the server as the package documents it', () => {
  it('a CLI whose `serve` subcommand imports the server on demand is proven as its README starts it, and the initialize field the SDK does not send is listed', async () => {
    // bin/cli.js serve -> await import('../lib/serve.js'): the entry is the CLI, which serves only when so started; lib/serve.js
    // changes, and its initialize answer carries a field of its own (`tools`)
    const launch = fileURLToPath(new URL('./fixtures/launch/', import.meta.url));
    const root = await mkdtemp(join(tmpdir(), 'mcp-migrate-verify-run-'));
    scratch.push(root);
    const pkg = join(root, 'pkg');
    await mkdir(join(pkg, 'bin'), { recursive: true });
    await mkdir(join(pkg, 'lib'));
    for (const file of ['package.json', 'README.md', 'bin/cli.js', 'lib/serve.js']) await writeFile(join(pkg, file), readFileSync(join(launch, file)));
    await symlink(PROJECT_NODE_MODULES, join(root, 'node_modules'), 'dir');
    const h = makeHarness(pkg, { process: undefined });
    const code = await main(['--yes', '--force', pkg], h.deps);
    expect(code, h.stderr()).toBe(0);
    expect(h.stdout()).toMatch(/^ {2}same {5}bin\/cli\.js: answers like the original/m);
    expect(h.stdout()).toContain('VERIFIED: run side by side with the original, both started as `node bin/cli.js serve` (as README.md starts it)');
    expect(h.stdout()).toContain('wire change: fields of the initialize answer that MCP does not define are not sent (the SDK builds that answer; MCP clients do not read them) (the proof saw: initialize: tools)');
    expect(readFileSync(join(pkg, 'lib', 'serve.js'), 'utf8')).toContain("from '@modelcontextprotocol/server'");
  });
});

describe.concurrent('--verify: what cannot be verified is said, and kept', () => {
  const scanOf = (result: FileResult): ScanResult => ({
    root: '/',
    scanned: 1,
    candidates: 1,
    results: [result],
    problems: [],
    warnings: [],
    manifests: [],
    companions: [],
    packages: [],
    workspace: null,
  });
  const result = (path: string, kind: 'sdk' | 'envelope'): FileResult => ({
    path,
    before: '',
    after: 'x',
    decision: kind === 'sdk' ? { kind: 'sdk', sdk: 'v1', style: 'server', notes: [] } : { kind: 'envelope', reason: 'COMPUTED_DISPATCH', hint: '' },
    fixes: [],
    findings: [],
    diagnostics: [],
  });
  const options = { clientInfo: { name: 'test', version: '0' } };

  it('a TypeScript entry point without the project having tsx', async () => {
    const pkg = await makePackage({ 'server.ts': 'export {};\n' }, false);
    const verdict = await verifyRewrite(scanOf(result(join(pkg, 'server.ts'), 'envelope')), result(join(pkg, 'server.ts'), 'envelope'), options);
    expect(verdict).toMatchObject({ kind: 'not-verified', reason: expect.stringContaining('neither the project has tsx installed nor does this Node strip types') });
  });

  it('an SDK rewrite when the project has not installed the SDK: proven with the SDK mcp-migrate ships, nothing installed in the tree', async () => {
    const pkg = await makePackage(HONEST, false);
    const h = makeHarness(pkg, { process: undefined });
    const code = await main(['--yes', '--force', pkg], h.deps);
    expect(code, h.stderr()).toBe(0);
    expect(h.stdout()).toMatch(/^ {2}same {5}honest\.cjs: answers like the original \(\d+ requests compared; fixes: /m);
    // lent to the copy the 2026-07-28 client is served by as well
    expect(h.stdout()).toMatch(/VERIFIED: .*; a client of the 2026-07-28 revision connects and is offered the same tools\/list/);
    // the boundary module imports @modelcontextprotocol/server, lent for the proof
    expect(readFileSync(join(pkg, 'mcp-boundary.cjs'), 'utf8')).toContain("require('@modelcontextprotocol/server')");
    expect(existsSync(join(pkg, 'node_modules'))).toBe(false);
    expect(existsSync(join(pkg, '..', 'node_modules'))).toBe(false);
  });
});

describe('applyVerifyVerdicts', () => {
  it('refuses the file and the files its rewrite changes, drops what only they needed, keeps the rest', () => {
    const file = (path: string, extra: Partial<FileResult> = {}): FileResult => ({
      path,
      before: 'old',
      after: 'new',
      decision: { kind: 'sdk', sdk: 'v1', style: 'server', notes: [] },
      fixes: ['answers ping'],
      findings: [{ rule: 'wrong-id', message: '', hint: '', line: 1, column: 1, fixed: true }],
      diagnostics: [],
      ...extra,
    });
    const scan: ScanResult = {
      root: '/p',
      scanned: 3,
      candidates: 3,
      results: [file('/p/a.js'), file('/p/lib.js', { partOf: '/p/a.js' }), file('/p/b.js')],
      problems: [],
      warnings: [],
      manifests: [
        { change: { path: '/p/package.json', before: '', after: '', added: {}, installCommand: 'npm install' }, packageDir: '/p', installDir: '/p', files: ['/p/a.js', '/p/b.js'] },
        { change: { path: '/q/package.json', before: '', after: '', added: {}, installCommand: 'npm install' }, packageDir: '/q', installDir: '/q', files: ['/p/a.js'] },
      ],
      companions: [{ path: '/p/helper.js', content: '', files: ['/p/a.js'] }],
      packages: [],
      workspace: null,
    };
    applyVerifyVerdicts(scan, [
      { kind: 'different', path: '/p/a.js', diff: null, why: 'the migrated server does not start', ms: 1 },
      { kind: 'equal', path: '/p/b.js', diff: { differences: [], fixes: [{ what: 'ping-unanswered', original: '', migrated: '' }], unfixed: [], notes: [], expected: [], compared: 4 }, ms: 1 },
    ]);
    const [a, lib, b] = scan.results;
    for (const refused of [a, lib]) {
      expect(refused?.after).toBeUndefined();
      expect(refused?.decision).toMatchObject({ kind: 'leave', reason: 'VERIFY_DIFFERENT' });
      expect(refused?.diagnostics).toEqual([{ code: 'VERIFY_DIFFERENT', message: 'run side by side with the original, the migrated server answers differently, so it is not written: the migrated server does not start' }]);
      expect(refused?.findings[0]?.fixed).toBe(false);
    }
    expect(b?.after).toBe('new');
    expect(b?.diagnostics).toEqual([{ code: 'VERIFIED', message: 'run side by side with the original: answers like it (4 requests compared; fixes ping-unanswered)' }]);
    expect(scan.manifests.map((m) => [m.change.path, m.files])).toEqual([['/p/package.json', ['/p/b.js']]]);
    expect(scan.companions).toEqual([]);
  });
});
