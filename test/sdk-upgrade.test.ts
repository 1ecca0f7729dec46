// The era upgrade of a server already on @modelcontextprotocol/server (v2) wired the 2025 way: each
// way authors wire the stdio transport, what the upgrade writes, and each reason it is not made.
// Written from what each source shows: `connect(transport)` becomes `serveStdio(() => server)`.
import { describe, expect, it } from 'vitest';
import { processSource } from '../src/pipeline.js';
import type { FileResult } from '../src/model/types.js';

const V2 = `import { McpServer } from '@modelcontextprotocol/server';\n`;

function upgrade(source: string, path = '/pkg/server.mjs', upgradeSdk = true): FileResult {
  return processSource(path, source, { sdk: 'v2', style: 'server', upgradeSdk }, () => null);
}

describe('the era upgrade', () => {
  it('inline `connect(new StdioServerTransport())`: the connect becomes serveStdio and the import names it instead', () => {
    const result = upgrade(`${V2}import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';\nconst server = new McpServer({ name: 'a', version: '1' });\nawait server.connect(new StdioServerTransport());\n`);
    expect(result.decision).toMatchObject({ kind: 'sdk', sdk: 'v2', already: 'era' });
    expect(result.after).toBe(`${V2}import { serveStdio } from '@modelcontextprotocol/server/stdio';\nconst server = new McpServer({ name: 'a', version: '1' });\nawait serveStdio(() => server);\n`);
  });

  it('a promise chain on connect keeps a promise; the class stays imported where a type names it', () => {
    const result = upgrade(
      `${V2}import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';\nconst server = new McpServer({ name: 'a', version: '1' });\nlet last: StdioServerTransport | null = null;\nserver.connect(new StdioServerTransport()).then(() => console.error('up'));\n`,
      '/pkg/server.ts',
    );
    expect(result.after).toContain(`import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';`);
    expect(result.after).toContain(`Promise.resolve(serveStdio(() => server)).then(() => console.error('up'));`);
  });

  it('a transport built with arguments is handed to serveStdio; compiled output names serveStdio on the module object', () => {
    const result = upgrade(
      `"use strict";\nconst server_1 = require("@modelcontextprotocol/server");\nconst stdio_js_1 = require("@modelcontextprotocol/server/stdio");\nconst server = new server_1.McpServer({ name: 'a', version: '1' });\nasync function main() {\n    const transport = new stdio_js_1.StdioServerTransport(process.stdin, process.stdout);\n    await server.connect(transport);\n}\nmain();\n`,
      '/pkg/dist/index.js',
    );
    expect(result.after).toContain('    const transport = new stdio_js_1.StdioServerTransport(process.stdin, process.stdout);\n    await stdio_js_1.serveStdio(() => server, { transport: transport });\n');
    expect(result.after).toContain('const stdio_js_1 = require("@modelcontextprotocol/server/stdio");');
  });

  it('an unused holder goes, with its line', () => {
    const result = upgrade(`${V2}import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';\nconst server = new McpServer({ name: 'a', version: '1' });\nconst transport = new StdioServerTransport();\nawait server.connect(transport);\n`);
    expect(result.after).toBe(`${V2}import { serveStdio } from '@modelcontextprotocol/server/stdio';\nconst server = new McpServer({ name: 'a', version: '1' });\nawait serveStdio(() => server);\n`);
  });

  it('is not made where the code sets a callback serveStdio would replace, or names serveStdio itself', () => {
    const callbacks = upgrade(`${V2}import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';\nconst server = new McpServer({ name: 'a', version: '1' });\nconst transport = new StdioServerTransport();\ntransport.onclose = () => process.exit(0);\nawait server.connect(transport);\n`);
    expect(callbacks.after).toBeUndefined();
    expect(callbacks.decision).toMatchObject({ kind: 'leave', reason: 'TRANSPORT_CALLBACKS_SET', line: 4 });
    const clash = upgrade(`${V2}import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';\nconst serveStdio = 1;\nconst server = new McpServer({ name: 'a', version: '1' });\nawait server.connect(new StdioServerTransport());\n`);
    expect(clash.after).toBeUndefined();
    expect(clash.decision).toMatchObject({ kind: 'leave', reason: 'STDIO_WIRING_UNREAD' });
    expect(clash.diagnostics[0]!.message).toContain('`serveStdio` already names something else');
  });

  it('a transport connected in another place than it is made is named, not guessed', () => {
    const result = upgrade(`${V2}import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';\nconst server = new McpServer({ name: 'a', version: '1' });\nconst transports = [new StdioServerTransport()];\nawait server.connect(transports[0]);\n`);
    expect(result.decision).toMatchObject({ kind: 'leave', reason: 'STDIO_WIRING_UNREAD', line: 4 });
  });

  it('a server already on serveStdio, a v1 server and a run that keeps the SDK as it is: no upgrade', () => {
    expect(upgrade(`${V2}import { serveStdio } from '@modelcontextprotocol/server/stdio';\nserveStdio(() => new McpServer({ name: 'a', version: '1' }));\n`).decision.kind).toBe('none');
    const v1 = upgrade(`import { Server } from '@modelcontextprotocol/sdk/server/index.js';\nimport { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';\nconst server = new Server({ name: 'a', version: '1' }, { capabilities: {} });\nawait server.connect(new StdioServerTransport());\n`);
    expect(v1.decision).toMatchObject({ kind: 'leave', reason: 'SDK_V1_WIRING' });
    const kept = upgrade(`${V2}import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';\nconst server = new McpServer({ name: 'a', version: '1' });\nawait server.connect(new StdioServerTransport());\n`, '/pkg/server.mjs', false);
    expect(kept.decision).toMatchObject({ kind: 'leave', reason: 'ALREADY_ON_SDK' });
  });
});

describe('code the official codemod could not finish', () => {
  it('is left alone with its marker line, even where the rest is v2 wired the 2025 way', () => {
    const result = upgrade(`${V2}import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';\nconst server = new McpServer({ name: 'a', version: '1' });\n// @mcp-codemod-error: setRequestHandler with a custom schema\nawait server.connect(new StdioServerTransport());\n`);
    expect(result.after).toBeUndefined();
    expect(result.decision).toMatchObject({ kind: 'leave', reason: 'CODEMOD_MARKERS', line: 4 });
  });

  it('a v1 server that writes to stdout still gets its writes moved, and the reason it is not upgraded as a note', () => {
    const result = upgrade(`import { Server } from '@modelcontextprotocol/sdk/server/index.js';\nimport { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';\nconst server = new Server({ name: 'a', version: '1' }, { capabilities: {} });\nawait server.connect(new StdioServerTransport());\nconsole.log('ready');\n`);
    expect(result.decision).toMatchObject({ kind: 'sdk', already: 'stdout' });
    expect(result.after).toContain("console.error('ready');");
    expect((result.decision as { notes: string[] }).notes[0]).toMatch(/^not upgraded to the 2026-07-28 era: SDK_V1_WIRING — .*npx @modelcontextprotocol\/codemod@latest v1-to-v2/);
  });
});
