// The SDK boundary module (src/rewrite/boundary/helper-source.ts) as text: one typed source, the JavaScript
// modules that source without its types in the server's module system, for each SDK generation; the
// TypeScript text type-checks under strict settings together with every way a rewritten server uses it.
// What it does at run time is checked end to end in test/e2e/boundary.e2e.test.ts.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSource } from '../src/parse.js';
import { buildBoundarySource, getBoundaryModule } from '../src/rewrite/boundary/helper-source.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-migrate-boundary-helper-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the boundary module text', () => {
  it('is named after the server: its extension and module system', () => {
    expect(getBoundaryModule('/p/server.js', 'cjs')).toEqual({ kind: 'cjs', path: '/p/mcp-boundary.js', specifier: './mcp-boundary.js' });
    expect(getBoundaryModule('/p/server.js', 'esm')).toEqual({ kind: 'esm', path: '/p/mcp-boundary.js', specifier: './mcp-boundary.js' });
    expect(getBoundaryModule('/p/index.cjs', 'esm')).toEqual({ kind: 'cjs', path: '/p/mcp-boundary.cjs', specifier: './mcp-boundary.cjs' });
    expect(getBoundaryModule('/p/src/index.ts', 'esm')).toEqual({ kind: 'ts', path: '/p/src/mcp-boundary.ts', specifier: './mcp-boundary.js' });
  });

  it.each(['v1', 'v2'] as const)('%s: the JavaScript texts are the typed text without its types, in each module system', (sdk) => {
    const ts = buildBoundarySource('ts', sdk);
    const esm = buildBoundarySource('esm', sdk);
    const cjs = buildBoundarySource('cjs', sdk);
    for (const text of [ts, esm, cjs]) expect(text.startsWith('// mcp-boundary: written by mcp-migrate (the SDK at the boundary)')).toBe(true);
    // JavaScript: parses without the TypeScript plugin, and says nothing of types
    parseSource('x.mjs', esm);
    parseSource('x.cjs', cjs);
    expect(esm).not.toMatch(/\binterface \w|: JsonObject|as never/);
    expect(esm).toContain('\nexport function createBoundary(options = {}) {');
    expect(cjs).toContain('\nfunction createBoundary(options = {}) {');
    expect(cjs).toMatch(/\nmodule\.exports = \{ createBoundary \};\n$/);
    expect(cjs).toContain("'use strict';\n\nconst { AsyncLocalStorage } = require('node:async_hooks');");
    expect(ts).toContain('\nexport function createBoundary(options: BoundaryOptions = {}): Boundary {');
    // the SDK each generation takes the wire with
    const server = sdk === 'v1' ? "'@modelcontextprotocol/sdk/server/index.js'" : "'@modelcontextprotocol/server'";
    for (const text of [ts, esm]) expect(text).toContain(`import { Server } from ${server};`);
    expect(cjs).toContain(`const { Server } = require(${server});`);
    expect(esm).toContain(sdk === 'v1' ? 'await build().connect(transport);' : 'serveStdio(build, { transport });');
    // the text names no stream of the server's process but to hand it to the SDK's transport
    expect(esm.match(/process\.std(in|out)\b/g)).toEqual(['process.stdin', 'process.stdout']);
    expect(buildBoundarySource('cjs', sdk)).toBe(cjs);
  });

  // Every way a rewritten server uses the module must type-check against it (TypeScript servers keep
  // their types: the streams are the process's stream types).
  const SERVER = [
    "import * as readline from 'node:readline';",
    "import { createBoundary } from './mcp-boundary.js';",
    "const boundary = createBoundary({ methods: ['tools/list'], known: ['initialize', 'tools/list'] });",
    'console.log = console.info = console.debug = boundary.log;',
    'class Channel {',
    '  constructor(private readonly input: NodeJS.ReadStream = boundary.stdin, private readonly output: NodeJS.WriteStream = boundary.stdout) {}',
    '  open(): readline.Interface { return readline.createInterface({ input: this.input }); }',
    '  send(text: string): boolean { return this.output.write(text); }',
    '}',
    'export function onLine(line: string): void {',
    '  const msg = boundary.parse(line);',
    '  boundary.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: {} }) + "\\n");',
    '  boundary.write(Buffer.from("x"), "utf8", () => undefined);',
    "  boundary.log('handled', msg.method);",
    '  new Channel().send("{}\\n");',
    '}',
    'new Channel().open().on("line", onLine);',
    '',
  ].join('\n');
  const tsc = resolve('node_modules/.bin/tsc');
  it.each([
    ['v1, ESM (NodeNext, "type": "module")', 'v1', { module: 'NodeNext', moduleResolution: 'NodeNext' }, { type: 'module' }],
    ['v1, CommonJS (Node16, no "type")', 'v1', { module: 'Node16', moduleResolution: 'Node16' }, {}],
    ['v2, ESM (NodeNext, "type": "module")', 'v2', { module: 'NodeNext', moduleResolution: 'NodeNext' }, { type: 'module' }],
    ['v2, CommonJS (Node16, no "type")', 'v2', { module: 'Node16', moduleResolution: 'Node16' }, {}],
  ] as const)('the TypeScript text type-checks under strict settings: %s', async (_name, sdk, moduleOptions, pkg) => {
    const project = mkdtempSync(join(dir, 'ts-'));
    symlinkSync(resolve('node_modules'), join(project, 'node_modules'), 'dir');
    writeFileSync(join(project, 'package.json'), JSON.stringify(pkg));
    writeFileSync(join(project, 'mcp-boundary.ts'), buildBoundarySource('ts', sdk));
    writeFileSync(join(project, 'server.ts'), SERVER);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          ...moduleOptions,
          target: 'ES2022',
          strict: true,
          noEmit: true,
          noUnusedLocals: true,
          noUnusedParameters: true,
          noImplicitReturns: true,
          noImplicitOverride: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          noPropertyAccessFromIndexSignature: true,
          useUnknownInCatchVariables: true,
          isolatedModules: true,
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['server.ts', 'mcp-boundary.ts'],
      }),
    );
    const result = await promisify(execFile)(process.execPath, [tsc, '-p', project], { encoding: 'utf8' }).catch((err: { stdout: string }) => ({ stdout: err.stdout }));
    expect(result.stdout).toBe('');
  });
});
