// Entry files that start one server from a shared module: the module is planned once, not per entry.
// The scan is run for real (the pipeline inline) on small packages written here, and --verify's refusal
// of one entry is checked to take the shared module and the other entry with it.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { getUnfollowed } from '../src/cli/summary.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { FileResult } from '../src/model/types.js';
import { scanFiles, type ScanResult } from '../src/runner/scan.js';
import { applyVerifyVerdicts, getVerifyTargets } from '../src/runner/verify-run.js';

const SHAPE = join(import.meta.dirname, 'fixtures', 'shapes', 'two-entries-shared-class');
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function makePackage(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'mcp-migrate-shared-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const scan = (root: string): Promise<ScanResult> => scanFiles({ paths: ['.'], cwd: root, sdk: 'v1', style: 'server', jobs: 1 });
const byName = (s: ScanResult, root: string): Record<string, FileResult> => Object.fromEntries(s.results.map((r) => [r.path.slice(root.length + 1), r]));

// A core module whose class answers MCP over stdio; the entries below start it.
const CORE = `import { createInterface } from 'node:readline';

export class Core {
  constructor(info) {
    this.info = info;
  }

  run() {
    createInterface({ input: process.stdin }).on('line', (line) => this.onLine(line));
  }

  onLine(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      this.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      return;
    }
    if (msg.id === undefined) return;
    switch (msg.method) {
      case 'initialize':
        this.send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: this.info } });
        break;
      case 'tools/list':
        this.send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
        break;
      default:
        this.send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
    }
  }

  send(m) {
    process.stdout.write(JSON.stringify(m) + '\\n');
  }
}
`;

describe('two entry files, one server module', () => {
  it('rewrites the shared module once when both entries change it identically, and keeps each entry\'s own edit', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mcp-migrate-shared-'));
    roots.push(root);
    cpSync(SHAPE, root, { recursive: true });
    rmSync(join(root, 'case.json'));
    const s = await scan(root);
    const files = byName(s, root);
    expect(Object.keys(files).sort()).toEqual(['bin/cli.js', 'index.js', 'lib/service.js']);
    for (const result of Object.values(files)) {
      expect(result.error).toBeUndefined();
      expect(result.decision.kind).toBe('sdk');
    }
    const shared = files['lib/service.js']!;
    expect(shared.after).toContain('new StdioServerTransport()');
    expect(shared.after).not.toContain('createInterface(');
    // one result for the module, belonging to both entries
    expect([shared.partOf, ...(shared.alsoPartOf ?? [])].sort()).toEqual([join(root, 'bin/cli.js'), join(root, 'index.js')]);
    // each entry keeps its own edit: the stdout guard, and the call that starts the server as it was
    expect(files['index.js']!.after).toContain('console.log = console.info = console.debug = console.error');
    expect(files['index.js']!.after).toContain('new TallyService(process.stdin, process.stdout).start();');
    expect(files['bin/cli.js']!.after).toContain('console.log = console.info = console.debug = console.error');
    expect(files['bin/cli.js']!.after).toContain('service.start();');
    // --verify runs each entry with the module's change
    expect(getVerifyTargets(s).map((r) => r.path).sort()).toEqual([join(root, 'bin/cli.js'), join(root, 'index.js')]);
    expect(s.manifests.map((m) => m.files.map((f) => f.slice(root.length + 1)))).toEqual([['bin/cli.js', 'index.js', 'lib/service.js']]);
  });

  it('entries in two folders that only start a module whose rewrite is the SDK at the boundary: one change of the module, the boundary module beside it', async () => {
    // the dispatch looks handlers up by a computed name, so the module gets the SDK at the boundary;
    // neither entry reads or writes anything itself, so the boundary module belongs to the module, not to
    // either entry's folder
    const core = CORE.replace(/switch \(msg\.method\) \{[\s\S]*?\n    \}\n/, "const handler = this['on_' + msg.method.replace('/', '_')];\n    if (handler) handler.call(this, msg);\n    else this.send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });\n") +
      "Core.prototype.on_initialize = function (msg) {\n  this.send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: this.info } });\n};\nCore.prototype.on_tools_list = function (msg) {\n  this.send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });\n};\n";
    expect(core).toContain("this['on_' + msg.method");
    const root = makePackage({
      'package.json': '{ "name": "e", "version": "1.0.0", "type": "module", "main": "src/main.js", "bin": { "e": "./bin/serve.js" } }\n',
      'src/core.js': core,
      'src/main.js': "import { Core } from './core.js';\n\nnew Core({ name: 'e', version: '1.0.0' }).run();\n",
      'bin/serve.js': "#!/usr/bin/env node\nimport { Core } from '../src/core.js';\n\nnew Core({ name: 'e', version: '1.0.0' }).run();\n",
    });
    const s = await scan(root);
    const files = byName(s, root);
    for (const path of ['bin/serve.js', 'src/main.js']) {
      expect(files[path]!.error).toBeUndefined();
      expect(files[path]!.decision.kind).toBe('boundary');
    }
    const shared = files['src/core.js']!;
    expect(shared.after).toContain("import { createBoundary } from './mcp-boundary.js';");
    expect(shared.after).toContain('// mcp-migrate: sdk at the boundary (COMPUTED_DISPATCH)');
    expect([shared.partOf, ...(shared.alsoPartOf ?? [])].sort()).toEqual([join(root, 'bin/serve.js'), join(root, 'src/main.js')]);
    expect(s.companions.map((c) => c.path.slice(root.length + 1))).toEqual(['src/mcp-boundary.js']);
  });

  it('entries whose programs differ (one writes a notification of its own): asked again, the boundary lives beside the shared module and each entry carries its own options', async () => {
    // bin/run.js writes a notification of its own to stdout: its rewrite is the SDK at the boundary, main's
    // the SDK at the dispatcher; asked again with that declined, both get the boundary, whose options
    // differ by what each program names: they go in the entries, and core.js changes the same for both
    const root = makePackage({
      'package.json': '{ "name": "d", "version": "1.0.0", "type": "module", "main": "src/main.js", "bin": { "d": "./bin/run.js" } }\n',
      'src/core.js': CORE,
      'src/main.js': "import { Core } from './core.js';\n\nnew Core({ name: 'd', version: '1.0.0' }).run();\n",
      'bin/run.js': "#!/usr/bin/env node\nimport { Core } from '../src/core.js';\n\nnew Core({ name: 'd', version: '1.0.0' }).run();\nprocess.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'up' } }) + '\\n');\n",
    });
    const s = await scan(root);
    const files = byName(s, root);
    expect(Object.keys(files).sort()).toEqual(['bin/run.js', 'src/core.js', 'src/main.js']);
    for (const result of Object.values(files)) {
      expect(result.error).toBeUndefined();
      expect(result.decision).toMatchObject({ kind: 'boundary', reason: 'ENTRIES_DIFFER' });
    }
    const core = files['src/core.js']!;
    expect(core.after).toContain("import { createBoundary } from './mcp-boundary.js';\nconst boundary = createBoundary();");
    expect([core.partOf, ...(core.alsoPartOf ?? [])].sort()).toEqual([join(root, 'bin/run.js'), join(root, 'src/main.js')]);
    // main.js uses no boundary of its own: it calls it for its options alone; run.js names its notification
    expect(files['src/main.js']!.after).toContain("import { createBoundary } from './mcp-boundary.js';\ncreateBoundary({ methods: ['tools/list'], namespaced: [], guardConsole: true });");
    expect(files['bin/run.js']!.after).toContain("import { createBoundary } from '../src/mcp-boundary.js';\nconst boundary = createBoundary({ methods: ['tools/list'], namespaced: ['notifications/message'], guardConsole: true });");
    expect(s.companions.map((c) => c.path.slice(root.length + 1))).toEqual(['src/mcp-boundary.js']);
  });
});

describe('--verify and a shared module', () => {
  it('refuses the module and the other entry with the entry whose migrated server answered differently', () => {
    const file = (path: string, extra: Partial<FileResult> = {}): FileResult => ({
      path,
      before: 'old',
      after: 'new',
      decision: { kind: 'sdk', sdk: 'v1', style: 'server', notes: [] },
      fixes: [],
      findings: [],
      diagnostics: [],
      ...extra,
    });
    const s: ScanResult = {
      root: '/p',
      scanned: 4,
      candidates: 4,
      results: [file('/p/bin/cli.js'), file('/p/index.js'), file('/p/lib/service.js', { partOf: '/p/bin/cli.js', alsoPartOf: ['/p/index.js'] }), file('/p/other.js')],
      problems: [],
      warnings: [],
      manifests: [],
      companions: [],
      packages: [],
      workspace: null,
      excluded: [],
    };
    applyVerifyVerdicts(s, [{ kind: 'different', path: '/p/index.js', diff: null, why: 'the migrated server does not start', ms: 1 }]);
    expect(s.results.map((r) => [r.path, r.after ?? null, r.decision.kind])).toEqual([
      ['/p/bin/cli.js', null, 'leave'],
      ['/p/index.js', null, 'leave'],
      ['/p/lib/service.js', null, 'leave'],
      ['/p/other.js', 'new', 'sdk'],
    ]);
  });
});

describe('an entry that imports its server class through a barrel (`export * from`)', () => {
  it('is found and migrated with the class; the barrel, which runs no code, is no entry of its own', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mcp-migrate-barrel-'));
    roots.push(root);
    cpSync(join(import.meta.dirname, 'fixtures', 'shapes', 'barrel-reexported-class'), root, { recursive: true });
    rmSync(join(root, 'case.json'));
    const results = byName(await scan(root), root);
    // the entry says neither stdin nor JSON-RPC: two imports away, through the barrel, it is found all the same
    expect(results['main.mjs']?.decision.kind).toBe('sdk');
    expect(results['main.mjs']?.after).toContain('console.log = console.info = console.debug = console.error');
    expect(results['lib/stdio-rpc.mjs']?.after).toContain('StdioServerTransport');
    // the barrel keeps its bytes: no guard, no decision of its own
    expect(results['lib/index.mjs']?.decision.kind ?? 'none').toBe('none');
    expect(results['lib/index.mjs']?.after).toBeUndefined();
  });
});
