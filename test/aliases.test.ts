// A server whose writer helpers sit behind the package's own import aliases (package.json `imports`,
// tsconfig `paths`) is one program: the aliased module is loaded and its writes are the server's. A
// writer the analysis cannot read at all (a package) gets no envelope: the helper would take the parse
// but not the replies, and answer ping and unknown methods a second time.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AliasResolver } from '../src/analysis/aliases.js';
import { processSource } from '../src/pipeline.js';
import { readModuleSync } from '../src/runner/read-module.js';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function makeTree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'mcp-migrate-aliases-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

// the server: a readline loop and a switch; `from` is where its writer helpers are imported from
const server = (from: string): string => `import { createInterface } from 'node:readline';
import { ok, fail } from '${from}';

createInterface({ input: process.stdin }).on('line', (line) => {
  let req;
  try {
    req = JSON.parse(line);
  } catch {
    return;
  }
  if (req.id === undefined) return;
  switch (req.method) {
    case 'initialize':
      return ok(req.id, { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'al', version: '1.0.0' } });
    case 'tools/list':
      return ok(req.id, { tools: [] });
    default:
      return fail(req.id, -32601, 'Method not found');
  }
});
`;
const WRITERS = `export function ok(id, result) {
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\\n');
}
export function fail(id, code, message) {
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }) + '\\n');
}
`;

function migrate(root: string, entry: string) {
  const path = join(root, entry);
  return processSource(path, readModuleSync(path)!, { sdk: 'v1', style: 'server' }, readModuleSync);
}

describe('import aliases of the package itself', () => {
  it('package.json imports (#lib/*): the writer module is loaded, its helpers go, the server moves to the SDK', () => {
    const root = makeTree({
      'package.json': JSON.stringify({ name: 'al', type: 'module', imports: { '#lib/*': './lib/*' } }),
      'server.js': server('#lib/rpc.js'),
      'lib/rpc.js': WRITERS,
    });
    const result = migrate(root, 'server.js');
    expect(result.decision.kind, JSON.stringify(result.diagnostics)).toBe('sdk');
    expect(result.after).toContain("from '@modelcontextprotocol/sdk/server/stdio.js'");
    expect(result.after).not.toContain('ok(req.id');
  });

  it('tsconfig paths with baseUrl, comments and trailing commas (@/*): the same', () => {
    const root = makeTree({
      'package.json': JSON.stringify({ name: 'al', type: 'module' }),
      'tsconfig.json': '{\n  // the app\'s aliases\n  "compilerOptions": {\n    "baseUrl": ".",\n    "paths": { "@/*": ["src/*"], },\n  },\n}\n',
      'src/server.js': server('@/util/rpc.js'),
      'src/util/rpc.js': WRITERS,
    });
    const result = migrate(root, 'src/server.js');
    expect(result.decision.kind, JSON.stringify(result.diagnostics)).toBe('sdk');
  });

  it('resolves exact and starred patterns, the most specific first, up to the package root and no further', () => {
    const root = makeTree({
      'package.json': JSON.stringify({ name: 'outer', imports: { '#x': './outer-x.js' } }),
      'app/package.json': JSON.stringify({ name: 'al', imports: { '#cfg': { node: './cfg/node.js', default: './cfg/any.js' }, '#lib/*': './lib/*', '#lib/deep/*': './deep/*' } }),
      'app/src/a.js': '',
    });
    const resolver = new AliasResolver(readModuleSync);
    const from = join(root, 'app/src/a.js');
    expect(resolver.resolve(from, '#cfg')).toEqual([join(root, 'app/cfg/node.js')]);
    expect(resolver.resolve(from, '#lib/rpc.js')).toEqual([join(root, 'app/lib/rpc.js')]);
    expect(resolver.resolve(from, '#lib/deep/k.js')).toEqual([join(root, 'app/deep/k.js')]);
    // the outer package's alias is not this package's
    expect(resolver.resolve(from, '#x')).toEqual([]);
    expect(resolver.resolve(from, 'zod')).toEqual([]);
  });

  it('a writer in a package the analysis does not read: no half envelope, left alone with the reason', () => {
    const root = makeTree({
      'package.json': JSON.stringify({ name: 'al', type: 'module' }),
      'server.js': server('@acme/rpc'),
      'node_modules/@acme/rpc/package.json': JSON.stringify({ name: '@acme/rpc', type: 'module', main: 'index.js' }),
      'node_modules/@acme/rpc/index.js': WRITERS,
    });
    const result = migrate(root, 'server.js');
    expect(result.after).toBeUndefined();
    expect(result.decision).toMatchObject({ kind: 'leave', reason: 'ENVELOPE_UNPROVEN' });
    expect(result.diagnostics.map((d) => d.message).join('\n')).toContain('no write to stdout was found in the modules the analysis reads');
  });
});
