// How the proof finds the command a package documents for MCP clients (src/runner/launch.ts): JSON in a
// README or an .mcp.json, resolved to a file of the package that reaches the rewritten entry.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findClientConfigs, findDocumentedLaunch } from '../src/runner/launch.js';

const scratch: string[] = [];
afterAll(async () => {
  await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function makeTree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'mcp-migrate-launch-'));
  scratch.push(root);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, name)), { recursive: true });
    await writeFile(join(root, name), content);
  }
  return root;
}

const readme = (config: string): string => `# a server\n\nIn your client's settings:\n\n\`\`\`json\n${config}\n\`\`\`\n`;
const SERVER = "import { createInterface } from 'node:readline';\nexport function start() { createInterface({ input: process.stdin }); }\n";

describe('findClientConfigs', () => {
  it('reads each object with a command and string args, in JSON or JSONC (comments, trailing commas), and skips the rest', () => {
    const text = [
      '```json',
      '{ "mcpServers": { "a": { "command": "npx", "args": ["-y", "a-mcp", "serve"] } } }',
      '```',
      '```jsonc',
      '{ "servers": { "b": { "type": "stdio", "command": "node", /* built */ "args": ["/path/to/b/dist/index.js", "--stdio",], // local',
      '  "env": { "URL": "http://example.com//x" } } } }',
      '```',
      'Run `"command": "x"` by hand.',
      '```json',
      '{ "command": 42 }',
      '```',
    ].join('\n');
    expect(findClientConfigs(text)).toEqual([
      { command: 'npx', args: ['-y', 'a-mcp', 'serve'] },
      { command: 'node', args: ['/path/to/b/dist/index.js', '--stdio'] },
    ]);
  });
});

describe('findDocumentedLaunch', () => {
  it('npx with the package name (any version) runs its bin with the arguments after the name, when the bin reaches the entry through a literal import()', async () => {
    const root = await makeTree({
      'package.json': JSON.stringify({ name: '@acme/gw', type: 'module', bin: { gw: 'bin/gw.js' } }),
      'README.md': readme('{ "mcpServers": { "gw": { "command": "npx", "args": ["-y", "@acme/gw@1.2.0", "serve", "--quiet"] } } }'),
      'bin/gw.js': "#!/usr/bin/env node\nconst cmd = process.argv[2];\nif (cmd === 'serve') (await import('../src/serve.js')).start();\n",
      'src/serve.js': SERVER,
    });
    expect(findDocumentedLaunch(root, join(root, 'src/serve.js'), root)).toEqual({ file: join(root, 'bin/gw.js'), args: ['serve', '--quiet'], source: 'README.md' });
  });

  it('node with a path written for the reader\'s machine finds the package file by its tail; a bin name runs that bin; an .mcp.json counts', async () => {
    const root = await makeTree({
      'package.json': JSON.stringify({ name: 'srv', bin: { 'srv-mcp': 'index.js' } }),
      'README.md': readme('{ "command": "node", "args": ["/Users/you/code/srv/index.js", "--stdio"] }'),
      'index.js': SERVER,
    });
    expect(findDocumentedLaunch(root, join(root, 'index.js'), root)).toEqual({ file: join(root, 'index.js'), args: ['--stdio'], source: 'README.md' });
    const other = await makeTree({
      'package.json': JSON.stringify({ name: 'srv', bin: { 'srv-mcp': 'index.js' } }),
      '.mcp.json': '{ "mcpServers": { "srv": { "command": "srv-mcp", "args": ["mcp"] } } }',
      'index.js': SERVER,
    });
    expect(findDocumentedLaunch(other, join(other, 'index.js'), other)).toEqual({ file: join(other, 'index.js'), args: ['mcp'], source: '.mcp.json' });
  });

  it('the README of the repository above a package counts; none is found up to the stop folder only', async () => {
    const root = await makeTree({
      'README.md': readme('{ "command": "npx", "args": ["tool", "serve"] }'),
      'packages/tool/package.json': JSON.stringify({ name: 'tool', bin: 'cli.js' }),
      'packages/tool/cli.js': "require('./server.js');\n",
      'packages/tool/server.js': "process.stdin.on('data', () => {});\n",
    });
    const pkg = join(root, 'packages/tool');
    expect(findDocumentedLaunch(pkg, join(pkg, 'server.js'), root)).toEqual({ file: join(pkg, 'cli.js'), args: ['serve'], source: '../../README.md' });
    expect(findDocumentedLaunch(pkg, join(pkg, 'server.js'), pkg)).toBeNull();
  });

  it('no launch: no arguments documented, another package, a file that does not reach the entry, a path outside the package', async () => {
    const root = await makeTree({
      'package.json': JSON.stringify({ name: 'srv', bin: { srv: 'cli.js' } }),
      'README.md': [
        readme('{ "command": "npx", "args": ["-y", "srv"] }'),
        readme('{ "command": "npx", "args": ["-y", "other-srv", "serve"] }'),
        readme('{ "command": "srv", "args": ["list"] }'),
        readme('{ "command": "node", "args": ["../outside.js", "serve"] }'),
      ].join('\n'),
      'cli.js': "console.log('usage');\n",
      'server.js': SERVER,
    });
    expect(findDocumentedLaunch(root, join(root, 'server.js'), root)).toBeNull();
  });
});
