/**
 * Servers already on SDK v2 but wired the 2025 way (`connect(new StdioServerTransport())`) are upgraded
 * to `serveStdio`: before, a client pinned to the 2026-07-28 revision cannot connect; after (the proof
 * run included), it lists and calls the tools, reads a resource and gets a prompt, and a 2025-era client
 * is answered as before. `--check` counts the upgrade as pending, and nothing is left pending after it.
 * The fixtures are the project's own servers (test/fixtures/upgrade/), in two authors' styles.
 */
import { cp, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_NODE_MODULES, PROJECT_ROOT, runCli } from './harness.js';

const TIMEOUT_MS = 120_000;
const FIXTURES = join(PROJECT_ROOT, 'test', 'fixtures', 'upgrade');
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function copyFixture(name: string): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'mcp-migrate-upgrade-e2e-'));
  dirs.push(root);
  const dir = join(root, name);
  await cp(join(FIXTURES, name), dir, { recursive: true });
  await symlink(PROJECT_NODE_MODULES, join(dir, 'node_modules'), 'dir');
  return dir;
}

async function connect(dir: string, entry: string, pin?: string) {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const client = new Client({ name: 'upgrade-e2e', version: '1.0.0' }, { capabilities: {}, ...(pin ? { versionNegotiation: { mode: { pin } } } : {}) });
  const transport = new StdioClientTransport({ command: process.execPath, args: [entry], cwd: dir, stderr: 'pipe' });
  await client.connect(transport);
  return client;
}

const text = (result: unknown): string => (result as { content: { text: string }[] }).content[0]!.text;

describe.concurrent('era upgrade of a server already on the SDK', () => {
  it('McpServer + `await server.connect(transport)` in an async main: both eras answer after the upgrade', async () => {
    const dir = await copyFixture('mcpserver-esm');
    await expect(connect(dir, 'server.mjs', '2026-07-28')).rejects.toThrow();
    const check = await runCli(['--check', dir], dir);
    expect(check.code, check.stdout + check.stderr).toBe(1);
    expect(check.stdout).toContain('would be upgraded to the 2026-07-28 era (1): server.mjs');

    const run = await runCli(['--yes', dir], dir);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('upgraded to the 2026-07-28 era (1): server.mjs');
    const after = await readFile(join(dir, 'server.mjs'), 'utf8');
    expect(after).toContain("import { serveStdio } from '@modelcontextprotocol/server/stdio';");
    expect(after).toContain('await serveStdio(() => server);');
    expect(after).not.toContain('StdioServerTransport');
    // its own stdout line moved to stderr with the upgrade; the manifest gains nothing
    expect(after).toContain("console.error('glossary server ready')");
    expect(JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')).dependencies).toEqual({ '@modelcontextprotocol/server': '^2.4.0', zod: '^4.2.0' });

    for (const pin of ['2026-07-28', undefined]) {
      const client = await connect(dir, 'server.mjs', pin);
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['define']);
        expect(text(await client.callTool({ name: 'define', arguments: { term: 'Idempotent' } }))).toBe('Applying it twice has the same effect as applying it once.');
        const missing = await client.callTool({ name: 'define', arguments: { term: 'monad' } });
        expect([missing.isError, text(missing)]).toEqual([true, 'No entry for monad']);
        const read = await client.readResource({ uri: 'glossary://backpressure' });
        expect(read.contents).toEqual([{ uri: 'glossary://backpressure', text: 'A consumer slowing a producer down to the pace it can handle.' }]);
        const prompt = await client.getPrompt({ name: 'explain', arguments: { term: 'backpressure' } });
        expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Explain "backpressure" with an example.' });
      } finally {
        await client.close();
      }
    }
    expect((await runCli(['--check', dir], dir)).code).toBe(0);
  }, TIMEOUT_MS);

  it('a low-level Server in a CommonJS class that keeps its transport: the transport is handed to serveStdio', async () => {
    const dir = await copyFixture('class-cjs');
    const run = await runCli(['--yes', dir], dir);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const after = await readFile(join(dir, 'index.js'), 'utf8');
    expect(after).toContain("const { StdioServerTransport, serveStdio } = require('@modelcontextprotocol/server/stdio');");
    expect(after).toContain('return Promise.resolve(serveStdio(() => this.server, { transport: this.transport }));');
    const client = await connect(dir, 'index.js', '2026-07-28');
    try {
      await client.callTool({ name: 'increment', arguments: { by: 2 } });
      await client.callTool({ name: 'increment', arguments: {} });
      expect(text(await client.callTool({ name: 'read', arguments: {} }))).toBe('3');
    } finally {
      await client.close();
    }
  }, TIMEOUT_MS);

  it('a server on SDK v1 moves to v2 by the official codemod and to serveStdio: tools, resources and prompts answer in both eras', async () => {
    const dir = await copyFixture('v1-server');
    const before = await readFile(join(dir, 'server.js'), 'utf8');
    // on v1 it serves the 2025 era only
    await expect(connect(dir, 'server.js', '2026-07-28')).rejects.toThrow();
    // --sdk v1 keeps it on v1: nothing to say, nothing pending; auto keeps a package on v1 too, and says why
    const kept = await runCli(['--check', '--sdk', 'v1', dir], dir);
    expect([kept.code, kept.stdout.includes('SDK_V1_WIRING')]).toEqual([0, false]);
    const auto = await runCli(['--check', dir], dir);
    expect([auto.code, auto.stdout.includes('server.js: SDK_V1_WIRING')]).toEqual([0, true]);
    // --sdk v2 asks for the current generation: pending before, none after
    const check = await runCli(['--check', '--sdk', 'v2', dir], dir);
    expect(check.code, check.stdout + check.stderr).toBe(1);
    expect(check.stdout).toContain('would be upgraded to the 2026-07-28 era (1): server.js');

    const run = await runCli(['--yes', '--sdk', 'v2', dir], dir);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/VERIFIED\b/);
    const after = await readFile(join(dir, 'server.js'), 'utf8');
    expect(after).not.toBe(before);
    // the codemod's part: v2 imports, method strings, ProtocolError; ours: serveStdio
    expect(after).not.toContain('@modelcontextprotocol/sdk');
    expect(after).toContain("server.setRequestHandler('resources/read',");
    expect(after).toContain('throw new ProtocolError(ProtocolErrorCode.InvalidParams,');
    expect(after).toContain('await serveStdio(() => server);');
    expect(after).toContain("console.error('field-notes ready');");
    // the output imports v2: the manifest gains it (v1 stays listed; other code may use it)
    expect(JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')).dependencies).toEqual({ '@modelcontextprotocol/sdk': '^1.32.0', '@modelcontextprotocol/server': '^2.4.0', zod: '^4.2.0' });

    for (const pin of ['2026-07-28', undefined]) {
      const client = await connect(dir, 'server.js', pin);
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo', 'note']);
        expect(text(await client.callTool({ name: 'note', arguments: { key: 'otter' } }))).toBe('Otter tracks in the mud below the bridge.');
        const missing = await client.callTool({ name: 'note', arguments: { key: 'wren' } });
        expect([missing.isError, text(missing)]).toEqual([true, 'No note wren']);
        expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['notes://heron', 'notes://otter']);
        expect((await client.readResource({ uri: 'notes://heron' })).contents).toEqual([{ uri: 'notes://heron', mimeType: 'text/plain', text: 'Grey heron, standing still at the weir for an hour.' }]);
        await expect(client.readResource({ uri: 'notes://wren' })).rejects.toMatchObject({ code: -32602 });
        const prompt = await client.getPrompt({ name: 'summarise', arguments: { key: 'heron' } });
        expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Summarise the note "heron" in one line.' });
      } finally {
        await client.close();
      }
    }
    expect((await runCli(['--check', '--sdk', 'v2', dir], dir)).code).toBe(0);
  }, TIMEOUT_MS);
});
