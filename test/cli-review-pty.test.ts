// The interactive review in a real pseudo-terminal: bin/mcp-migrate.js (which imports dist/, built before
// the tests run) under util-linux `script`, keys typed as a user would, one per question. Checks that
// single keys answer without Enter, that the partly applied server parses and still serves MCP, that the
// pager runs for a diff taller than the terminal, and that Ctrl-C exits 130 without writing.
import { afterAll, describe, it, expect } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { chmod, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { makeTree, read, removeTrees } from './fixtures/cli/harness.js';
import { NOISY_SDK_SERVER, SDK_PKG } from './fixtures/cli/noisy-sdk-server.js';

afterAll(removeTrees);

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'mcp-migrate.js');
const HAS_SCRIPT = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

interface PtyRun {
  code: number | null;
  screen: string;
}

/**
 * Runs the CLI in a pty of `rows` x 120, typing `keys` one per question (a question ends in ",?] ").
 * "^C" types Ctrl-C.
 */
function runInPty(cwd: string, keys: string[], { rows = 60, env = {} }: { rows?: number; env?: Record<string, string> } = {}): Promise<PtyRun> {
  const command = `stty rows ${rows} cols 120; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`;
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { cwd, env: { ...process.env, TERM: 'xterm', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  let asked = 0;
  const pending = [...keys];
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString('utf8');
    const questions = screen.match(/,\?\] /g)?.length ?? 0;
    while (asked < questions && pending.length > 0) {
      asked++;
      const key = pending.shift()!;
      child.stdin.write(key === '^C' ? '\x03' : key);
    }
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no exit; the screen so far:\n${screen}`));
    }, 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, screen });
    });
  });
}

async function makeServerTree(): Promise<string> {
  const root = await makeTree({ 'package.json': SDK_PKG, 'server.mjs': NOISY_SDK_SERVER });
  // so the written server finds the SDK when it is started below
  await symlink(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  return root;
}

describe.skipIf(!HAS_SCRIPT)('review in a pseudo-terminal', () => {
  it('y, n, q: applies the accepted hunk only, and the written server parses and serves MCP', async () => {
    const root = await makeServerTree();
    const run = await runInPty(root, ['y', 'n', 'q']);
    expect(run.code, run.screen).toBe(0);
    // colors and line numbers on a terminal; one key answered each question, without Enter
    expect(run.screen).toContain('\x1b[7mlog\x1b[27m');
    expect(run.screen).toMatch(/Apply this hunk to server\.mjs\? \(part 1\/3, file 1\/1\) \[y,n,a,d,A,e,q,\?\] y\r?\n/);
    expect(run.screen).toContain('Quit: applied the accepted hunks of server.mjs');

    const written = await read(root, 'server.mjs');
    expect(written).toBe(NOISY_SDK_SERVER.replace("console.log('starting notes server')", "console.error('starting notes server')"));
    expect(spawnSync(process.execPath, ['--check', join(root, 'server.mjs')]).status).toBe(0);
    // it runs: the SDK client lists and calls its tools (the rejected hunks' console.log lines stay, as asked)
    const client = new Client({ name: 'pty-test', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: process.execPath, args: ['server.mjs'], cwd: root, stderr: 'pipe' });
    await client.connect(transport);
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toEqual(['add_note', 'count_notes']);
      await client.callTool({ name: 'add_note', arguments: {} });
      expect(await client.callTool({ name: 'count_notes', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: '1' }] });
    } finally {
      await client.close();
    }
  });

  it('Ctrl-C at a question exits 130 and writes nothing of the file being reviewed', async () => {
    const root = await makeServerTree();
    const run = await runInPty(root, ['y', '^C']);
    expect(run.code, run.screen).toBe(130);
    expect(run.screen).toContain('Interrupted: nothing more was written.');
    expect(await read(root, 'server.mjs')).toBe(NOISY_SDK_SERVER);
  });

  it('pages a diff taller than the terminal with $PAGER, then asks', async () => {
    const root = await makeServerTree();
    const paged = join(root, 'paged.txt');
    const run = await runInPty(root, ['d'], { rows: 20, env: { PAGER: `cat > ${JSON.stringify(paged)}` } });
    expect(run.code, run.screen).toBe(0);
    const text = await readFile(paged, 'utf8');
    // the header, the findings and every hunk went to the pager
    expect(text).toContain('━━ server.mjs');
    expect(text).toContain('sdk-transport-bypassed');
    expect([...text.matchAll(/@@ [^\n]*?part (\d)\/3/g)].map((m) => m[1])).toEqual(['1', '2', '3']);
    // the pager's last line says how to answer, and the question is on the terminal once it is closed
    expect(text.replace(/\x1b\[[0-9;]*m/g, '').trimEnd().split('\n').at(-1)).toBe('── Leave the pager (q) to answer: Apply this hunk to server.mjs? (part 1/3, file 1/1) [y,n,a,d,A,e,q,?]');
    expect(run.screen).toMatch(/Apply this hunk to server\.mjs\? \(part 1\/3, file 1\/1\) \[y,n,a,d,A,e,q,\?\] d/);
    expect(await read(root, 'server.mjs')).toBe(NOISY_SDK_SERVER);
  });

  it('e: edits the proposed file in $EDITOR, re-checks it, offers it again, and y writes the edit', async () => {
    const root = await makeServerTree();
    const editor = join(root, 'edit.sh');
    // an editor that adds a line at the end of the file it is given, as a user would type it
    await writeFile(editor, "#!/bin/sh\nprintf '// checked by hand\\n' >> \"$1\"\n");
    await chmod(editor, 0o755);
    const run = await runInPty(root, ['e', 'y'], { env: { EDITOR: editor, VISUAL: '' } });
    expect(run.code, run.screen).toBe(0);
    const plain = run.screen.replace(/\x1b\[[0-9;]*m/g, '');
    expect(plain).toContain('━━ server.mjs (your edit)');
    expect(plain).toContain('re-checked: it parses and, re-analysed, is the migrated server');
    expect(plain).toContain('proven: run next to the original, it answers as well');
    expect(plain).toMatch(/26 │\+\/\/ checked by hand/);
    expect(plain).toMatch(/Apply your edited version of server\.mjs\? \(file 1\/1\) \[y,n,A,e,q,\?\] y/);
    const written = await read(root, 'server.mjs');
    expect(written).toContain("console.error('starting notes server')");
    expect(written.endsWith('// checked by hand\n')).toBe(true);
    expect(spawnSync(process.execPath, ['--check', join(root, 'server.mjs')]).status).toBe(0);
  });

  describe('a rewrite that changes two files (the entry and the module it imports its writer from)', () => {
    const SHAPE = join(ROOT, 'test', 'fixtures', 'shapes', 'exported-writer-module');
    async function makeTwoFileTree(): Promise<{ root: string; server: string; wire: string }> {
      const server = await readFile(join(SHAPE, 'server.js'), 'utf8');
      const wire = await readFile(join(SHAPE, 'wire.js'), 'utf8');
      const root = await makeTree({ 'package.json': await readFile(join(SHAPE, 'package.json'), 'utf8'), 'server.js': server, 'wire.js': wire });
      await symlink(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
      return { root, server, wire };
    }

    it('is one question for both files; y writes both, and the written server serves MCP', async () => {
      const { root, server, wire } = await makeTwoFileTree();
      const run = await runInPty(root, ['y'], { env: { PAGER: 'cat' } });
      expect(run.code, run.screen).toBe(0);
      expect(run.screen.replace(/\x1b\[[0-9;]*m/g, '')).toMatch(/Apply this change to server\.js\? \(file 1\/1\) \[y,n,A,q,\?\] y/);
      const written = { server: await read(root, 'server.js'), wire: await read(root, 'wire.js') };
      // the entry no longer imports the writer; the loop's module now starts the SDK server
      expect(written.server).not.toBe(server);
      expect(written.server).toContain("const { serve } = require('./wire.js');");
      expect(written.wire).not.toBe(wire);
      expect(written.wire).toContain("require('@modelcontextprotocol/server')");
      expect(written.wire).not.toMatch(/exports\.write = write/);
      const client = new Client({ name: 'pty-test', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: ['server.js'], cwd: root, stderr: 'pipe' }));
      try {
        await client.callTool({ name: 'put_note', arguments: { shelf: 'kitchen', text: 'buy lemons' } });
        const shelf = await client.callTool({ name: 'read_shelf', arguments: { shelf: 'kitchen' } });
        expect(JSON.stringify(shelf.content)).toContain('buy lemons');
      } finally {
        await client.close();
      }
    });

    it('n writes neither file', async () => {
      const { root, server, wire } = await makeTwoFileTree();
      const run = await runInPty(root, ['n'], { env: { PAGER: 'cat' } });
      expect(run.code, run.screen).toBe(0);
      expect(await read(root, 'server.js')).toBe(server);
      expect(await read(root, 'wire.js')).toBe(wire);
    });
  });
});
