// The installed tool carries no SDK package (src/vendor.ts, scripts/build/bundle-vendor.mjs): its runtime code
// imports only what package.json declares, and the SDK parts the build bundles serve a migrated server
// in a project that has no SDK installed, for `import` and `require` alike, in both protocol eras.
import { parse } from '@babel/parser';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, mkdirSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SDK_DEPENDENCIES } from '../src/runner/manifest.js';
import { findLentPackage } from '../src/vendor.js';
import { askModernEra } from '../src/verify/era.js';

const root = join(import.meta.dirname, '..');
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** The bare module specifiers a compiled file loads (static imports and re-exports, `import()`, `require()`). */
function bareSpecifiers(file: string): string[] {
  const ast = parse(readFileSync(file, 'utf8'), { sourceType: 'unambiguous' });
  const found: string[] = [];
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    const n = node as { type?: string; source?: { value?: unknown }; callee?: { type?: string; name?: string }; arguments?: Array<{ type?: string; value?: unknown }> };
    if ((n.type === 'ImportDeclaration' || n.type === 'ExportAllDeclaration' || n.type === 'ExportNamedDeclaration') && typeof n.source?.value === 'string') found.push(n.source.value);
    if (n.type === 'CallExpression' && (n.callee?.type === 'Import' || (n.callee?.type === 'Identifier' && n.callee.name === 'require')) && n.arguments?.[0]?.type === 'StringLiteral') found.push(n.arguments[0].value as string);
    for (const [key, value] of Object.entries(node)) if (key !== 'loc' && key !== 'start' && key !== 'end') visit(value);
  };
  visit(ast.program);
  return found.filter((s) => !s.startsWith('.') && !s.startsWith('/'));
}

function listJs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile() && e.name.endsWith('.js')).map((e) => join(e.parentPath, e.name));
}

/** Packages loaded through a `require` made from an optional peer's own entry: that peer's dependencies (src/rewrite/codemod.ts). */
const PEER_DEPENDENCIES: Record<string, string> = { 'ts-morph': '@modelcontextprotocol/codemod' };

describe('the installed tool', () => {
  it('loads only node built-ins and the packages package.json lists as dependencies (no SDK, no zod)', () => {
    const json = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; peerDependenciesMeta: Record<string, { optional?: boolean }> };
    const declared = new Set([...Object.keys(json.dependencies), ...Object.entries(json.peerDependenciesMeta).filter(([, m]) => m.optional).map(([name]) => name)]);
    const builtins = new Set(builtinModules);
    const undeclared = new Map<string, string>();
    const files = [...listJs(join(root, 'dist', 'src')), ...listJs(join(root, 'bin'))];
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) {
      for (const spec of bareSpecifiers(file)) {
        const name = spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');
        if (spec.startsWith('node:') || builtins.has(name) || declared.has(name) || declared.has(PEER_DEPENDENCIES[name] ?? '')) continue;
        undeclared.set(spec, file);
      }
    }
    expect(Object.fromEntries(undeclared)).toEqual({});
    for (const name of ['@modelcontextprotocol/sdk', '@modelcontextprotocol/server', '@modelcontextprotocol/client', 'zod']) expect(json.dependencies[name]).toBeUndefined();
  });
});

/** A project folder with no SDK of its own: node_modules holds only links to the packages the tool lends. */
function projectWithLent(sdk: 'v1' | 'v2', files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-migrate-vendor-'));
  temps.push(dir);
  for (const name of Object.keys(SDK_DEPENDENCIES[sdk])) {
    const lent = findLentPackage(sdk, name);
    expect(lent, `${sdk} lends ${name}`).not.toBeNull();
    expect(lent!.startsWith(join(root, 'dist', 'vendor'))).toBe(true);
    mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
    symlinkSync(lent!, join(dir, 'node_modules', name), 'dir');
  }
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

/** Sends the lines to `node file` in `cwd` and returns the JSON lines it answered before its stdin closed. */
function exchange(cwd: string, file: string, lines: object[]): Promise<Array<Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.stderr.on('data', (c: Buffer) => (err += c));
    child.on('error', reject);
    child.on('close', () => {
      try {
        resolve(out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>));
      } catch {
        reject(new Error(`not JSON lines: ${out}\n${err}`));
      }
    });
    // one line at a time, after the answer to the one before (the SDK answers a request it has finished)
    let sent = 0;
    const next = (): void => {
      if (sent === lines.length) return void child.stdin.end();
      child.stdin.write(`${JSON.stringify(lines[sent++])}\n`);
      setTimeout(next, 150);
    };
    next();
  });
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };

describe('the SDK parts the tool lends', () => {
  it('v1: an ES module server on McpServer with zod schemas validates and answers (one zod for the SDK and the server)', async () => {
    const dir = projectWithLent('v1', {
      'package.json': '{ "name": "p", "type": "module" }',
      'server.js': [
        "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
        "import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';",
        "import { z } from 'zod';",
        "const server = new McpServer({ name: 'adder', version: '1.0.0' });",
        "server.registerTool('add', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));",
        'await server.connect(new StdioServerTransport());',
      ].join('\n'),
    });
    const replies = await exchange(dir, 'server.js', [
      initialize,
      initialized,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } },
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 'x' } } },
    ]);
    const byId = new Map(replies.map((r) => [r.id, r]));
    expect(byId.get(1)).toMatchObject({ result: { serverInfo: { name: 'adder', version: '1.0.0' } } });
    expect(byId.get(2)).toMatchObject({ result: { tools: [{ name: 'add', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } }] } });
    expect(byId.get(3)).toEqual({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: '5' }] } });
    expect(byId.get(4)).toMatchObject({ result: { isError: true, content: [{ type: 'text', text: expect.stringContaining('expected number, received string') }] } });
  });

  it('v1: a CommonJS server on Server + setRequestHandler; a thrown McpError keeps its code', async () => {
    const dir = projectWithLent('v1', {
      'server.cjs': [
        "const { Server } = require('@modelcontextprotocol/sdk/server/index.js');",
        "const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');",
        "const { CallToolRequestSchema, ListToolsRequestSchema, McpError } = require('@modelcontextprotocol/sdk/types.js');",
        "const server = new Server({ name: 'fails', version: '2.0.0' }, { capabilities: { tools: {} } });",
        "server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'boom', inputSchema: { type: 'object' } }] }));",
        "server.setRequestHandler(CallToolRequestSchema, async () => { throw new McpError(-32010, 'no such row'); });",
        'server.connect(new StdioServerTransport());',
      ].join('\n'),
    });
    const replies = await exchange(dir, 'server.cjs', [initialize, initialized, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'boom', arguments: {} } }]);
    expect(replies.find((r) => r.id === 2)).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32010, message: 'MCP error -32010: no such row' } });
  });

  it('v2: a CommonJS server on serveStdio answers a client pinned to the 2026-07-28 revision (the bundled Client)', async () => {
    const dir = projectWithLent('v2', {
      'server.cjs': [
        "const { Server } = require('@modelcontextprotocol/server');",
        "const { serveStdio } = require('@modelcontextprotocol/server/stdio');",
        'serveStdio(() => {',
        "  const server = new Server({ name: 'modern', version: '1.0.0' }, { capabilities: { tools: {} } });",
        "  server.setRequestHandler('tools/list', async () => ({ tools: [{ name: 'now', inputSchema: { type: 'object' } }, { name: 'later', inputSchema: { type: 'object' } }] }));",
        '  return server;',
        '});',
      ].join('\n'),
    });
    const answers = await askModernEra({ command: process.execPath, args: ['server.cjs'], cwd: dir, env: process.env, framing: 'ndjson' }, 5_000);
    expect(answers.kind).toBe('answered');
    expect((answers as Extract<typeof answers, { kind: 'answered' }>).listings.get('tools/list')).toEqual({ names: ['now', 'later'] });
  });
});
