// A monorepo run with the real pipeline: `mcp-migrate --yes <root>` over an npm-workspaces tree (and a
// pnpm-workspace.yaml variant) migrates each hand-rolled server in its own module system, gives each
// migrated package its own SDK dependency in its own indentation, leaves the other packages byte-for-byte
// alone, summarises per package and prints one install command for the workspace root.
import { afterAll, describe, it, expect } from 'vitest';
import { cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { main } from '../src/cli/main.js';
import { makeHarness, makeTree, read, removeTrees } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const FIXTURE = join(__dirname, 'fixtures', 'monorepo');
const CORPUS = join(__dirname, 'fixtures', 'corpus');

/** Which corpus case each package is (test/fixtures/monorepo/README.md); the fixture's own files go on top. */
const PACKAGES = { a: '01-cjs-readline-bare-ifs', b: '02-esm-data-buffer-switch', c: '13-already-sdk-mcpserver', d: '14-jsonl-worker-not-mcp' } as const;

/** The monorepo, assembled in a temp directory. */
async function copyFixture(): Promise<string> {
  const root = await makeTree({});
  for (const [name, corpusCase] of Object.entries(PACKAGES)) {
    await cp(join(CORPUS, corpusCase), join(root, 'packages', name), { recursive: true, filter: (path) => basename(path) !== 'case.json' });
  }
  await cp(FIXTURE, root, { recursive: true, force: true });
  await rm(join(root, 'README.md'));
  return root;
}

/** Every file under `dir`, relative path -> bytes. */
async function snapshot(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    files.set(relative(dir, full), await readFile(full));
  }
  return files;
}

/** Runs the real pipeline (no `process` injected; few candidates, so it runs inline). */
async function migrate(cwd: string, argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const h = makeHarness(cwd, { process: undefined });
  const code = await main(argv, h.deps);
  return { code, stdout: h.stdout(), stderr: h.stderr() };
}

const A_PACKAGE_AFTER = `{
  "name": "unit-converter-mcp",
  "version": "0.3.1",
  "description": "Tiny MCP server that converts temperatures, lengths and masses",
  "main": "server.js",
  "bin": {
    "unit-converter-mcp": "server.js"
  },
  "scripts": {
    "start": "node server.js"
  },
  "keywords": ["mcp", "units"],
  "license": "MIT",
  "dependencies": {
    "@modelcontextprotocol/server": "^2.4.0",
    "zod": "^4.2.0"
  }
}
`;

const B_DEPENDENCIES = `    "engines": { "node": ">=18" },
    "dependencies": {
        "@modelcontextprotocol/server": "^2.4.0",
        "zod": "^4.2.0"
    },
    "devDependencies": {`;

describe('monorepo', () => {
  it('migrates each package on its own terms and leaves the others byte-for-byte', async () => {
    const root = await copyFixture();
    const untouched = { c: await snapshot(join(root, 'packages/c')), d: await snapshot(join(root, 'packages/d')) };
    const rootPackage = await read(root, 'package.json');
    const bBefore = await read(root, 'packages/b/package.json');
    expect(bBefore).toContain('    "type": "module",\n');

    const run = await migrate(await makeTree({}), ['--yes', '--no-verify', root]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);

    // a: CommonJS stays CommonJS.
    const a = await read(root, 'packages/a/server.js');
    // (no SDK in the package yet: the current generation, v2)
    expect(a).toContain("const { serveStdio } = require('@modelcontextprotocol/server/stdio');");
    expect(a).not.toMatch(/^import /m);
    expect(a).not.toContain("require('readline')");
    // b: ESM ("type": "module", .mjs) gets imports, in its own no-semicolon style.
    const b = await read(root, 'packages/b/index.mjs');
    expect(b).toContain("import { serveStdio } from '@modelcontextprotocol/server/stdio'\n");
    expect(b).not.toContain('require(');

    // Each migrated package's own package.json, in its own indentation (2 and 4 spaces).
    expect(await read(root, 'packages/a/package.json')).toBe(A_PACKAGE_AFTER);
    const bAfter = await read(root, 'packages/b/package.json');
    expect(bAfter).toContain(B_DEPENDENCIES);
    expect(bAfter.replace(B_DEPENDENCIES, '    "engines": { "node": ">=18" },\n    "devDependencies": {')).toBe(bBefore);
    // The root manifest declares the workspace; it gets no dependency.
    expect(await read(root, 'package.json')).toBe(rootPackage);

    // c (already on the SDK) and d (not MCP): not a byte changed, nothing added.
    expect(await snapshot(join(root, 'packages/c'))).toEqual(untouched.c);
    expect(await snapshot(join(root, 'packages/d'))).toEqual(untouched.d);

    // The summary, per package, and one install command at the workspace root.
    expect(run.stdout).toContain('moved to the SDK (2): packages/a/server.js, packages/b/index.mjs');
    expect(run.stdout).toContain(
      'Packages:\n' +
        '  unit-converter-mcp (packages/a): 1 to the SDK\n' +
        '  @acme/textkit-mcp (packages/b): 1 to the SDK\n' +
        // c is on the SDK already: left alone, and said so (its server is listed with the reason above)
        '  http-status-mcp (packages/c): 1 left alone\n' +
        '  nothing to migrate: quote-worker (packages/d)\n',
    );
    // (The run started outside the tree, so paths are relative to the target itself: the root is ".".)
    expect(run.stdout.match(/^Next, run `[^`]+` .*$/gm)).toEqual(['Next, run `npm install` in . to install @modelcontextprotocol/server, zod.']);

    // A second run finds nothing left to do.
    const again = await migrate(root, ['--check', '.']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Nothing to migrate.');
  });

  it('reads a pnpm-workspace.yaml and prints one pnpm install at the root', async () => {
    const root = await copyFixture();
    await writeFile(join(root, 'package.json'), '{\n  "name": "acme-mcp-servers",\n  "private": true\n}\n');
    await writeFile(join(root, 'pnpm-workspace.yaml'), "packages:\n  - 'packages/*'\n");
    await writeFile(join(root, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n");

    const run = await migrate(root, ['--yes', '--no-verify', '.']);
    expect(run.code).toBe(0);
    expect(await read(root, 'packages/a/package.json')).toBe(A_PACKAGE_AFTER);
    expect(run.stdout).toContain('  http-status-mcp (packages/c): 1 left alone\n  nothing to migrate: quote-worker (packages/d)\n');
    expect(run.stdout.match(/^Next, run `[^`]+` .*$/gm)).toEqual(['Next, run `pnpm install` in . to install @modelcontextprotocol/server, zod.']);
  });
});
