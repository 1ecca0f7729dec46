// Servers that were missed in silence or planned wrongly (issue 16): a server the analysis does not follow
// (in any module, through any binding of process) gets the SDK at the boundary, which needs only where it
// reads and writes (INPUT_NOT_FOLLOWED), and is reported UNFOLLOWED_INPUT where no form can take it,
// the one line for Python servers, build output whose TypeScript source is in the tree (COMPILED_OUTPUT),
// and a server module that only runs when its importer calls it (not an entry of its own). The pipeline
// and the scan run for real on small programs written here.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { getNonCompliant, getUnfollowed } from '../src/cli/summary.js';
import type { FileResult, PipelineOptions } from '../src/model/types.js';
import { processSource } from '../src/pipeline.js';
import { buildBoundarySource } from '../src/rewrite/boundary/helper-source.js';
import { scanFiles, type ScanResult } from '../src/runner/scan.js';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function makeTree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'mcp-migrate-missed-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const readModule = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

const OPTIONS: PipelineOptions = { sdk: 'v1', style: 'server' };

function run(root: string, entry: string): FileResult {
  const path = join(root, entry);
  return processSource(path, readFileSync(path, 'utf8'), OPTIONS, readModule);
}

// A dispatcher that names MCP's methods and writes through a helper: what every program below shares.
const DISPATCH = `
function reply(id, result) {
  out.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\\n');
}
function dispatch(req) {
  if (req.method === 'initialize') return reply(req.id, { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'n', version: '1' } });
  if (req.method === 'tools/list') return reply(req.id, { tools: [] });
}
`;

/** The boundary rewrite of a server whose messages were not followed: its streams become the boundary's. */
function expectBoundary(result: FileResult, streams: string[]): void {
  expect(result.decision).toMatchObject({ kind: 'boundary', reason: 'INPUT_NOT_FOLLOWED' });
  for (const stream of streams) expect(result.after).toContain(stream);
  expect(result.after).not.toMatch(/\b(process|proc)\.std(in|out)\b/);
  expect(result.companions?.map((c) => c.path.split('/').pop())).toEqual(['mcp-boundary.js']);
}

describe('a server the analysis does not follow gets the SDK at the boundary, never passed over', () => {
  it('stdin reached through an interop wrapper of node:process and piped through a stream the analysis does not model', () => {
    const root = makeTree({
      'server.js': `"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) { return (mod && mod.__esModule) ? mod : { "default": mod }; };
const { Transform } = require("node:stream");
const proc = __importDefault(require("node:process")).default;
const out = proc.stdout;
${DISPATCH}
const splitter = new Transform({ readableObjectMode: true, transform(chunk, _enc, done) { for (const l of String(chunk).split('\\n')) if (l) this.push(JSON.parse(l)); done(); } });
proc.stdin.pipe(splitter).on('data', (req) => dispatch(req));
`,
    });
    const result = run(root, 'server.js');
    // the interop wrapper's streams are the boundary's: stdin piped into the splitter, stdout behind `out`
    expectBoundary(result, ['const out = boundary.stdout;', 'boundary.stdin.pipe(splitter)', 'boundary.write(JSON.stringify(']);
  });

  it('stdin read in an imported module (a base transport), the vocabulary in the entry', () => {
    const root = makeTree({
      'transport.js': `const { Transform } = require('stream');
exports.open = function open(onMessage) {
  const t = new Transform({ transform(c, e, done) { done(null, c); } });
  process.stdin.pipe(t).on('data', (c) => onMessage(JSON.parse(String(c))));
};
`,
      'server.js': `const { open } = require('./transport');
const out = process.stdout;
${DISPATCH}
open(dispatch);
`,
    });
    const result = run(root, 'server.js');
    expectBoundary(result, ['const out = boundary.stdout;']);
    // the transport module reads the boundary's stdin, from the helper beside the entry
    expect(result.related?.map((r) => [r.path.split('/').pop(), r.after.includes("const boundary = createBoundary();") && r.after.includes('boundary.stdin.pipe(t)')])).toEqual([['transport.js', true]]);
  });

  it('an input loop found but no message followed from it (the chunk goes to a parser object of a package)', () => {
    const root = makeTree({
      'server.js': `const { createParser } = require('some-json-stream');
const out = process.stdout;
${DISPATCH}
const parser = createParser((text) => dispatch(JSON.parse(text)));
process.stdin.on('data', (chunk) => parser.feed(chunk));
`,
    });
    const result = run(root, 'server.js');
    expectBoundary(result, ["boundary.stdin.on('data', (chunk) => parser.feed(chunk));"]);
  });

  it('is left alone as UNFOLLOWED_INPUT where no form can take it (Content-Length framing, no message followed)', () => {
    const root = makeTree({
      'server.js': `const { Transform } = require('stream');
const out = process.stdout;
function reply(id, result) { const body = JSON.stringify({ jsonrpc: '2.0', id, result }); out.write('Content-Length: ' + body.length + '\\r\\n\\r\\n' + body); }
function dispatch(req) { if (req.method === 'tools/list') return reply(req.id, { tools: [] }); }
process.stdin.pipe(new Transform({ transform(c, e, done) { done(null, c); } })).on('data', (c) => dispatch(JSON.parse(String(c).split('\\r\\n\\r\\n')[1])));
`,
    });
    const result = run(root, 'server.js');
    expect(result.decision).toMatchObject({ kind: 'leave', reason: 'UNFOLLOWED_INPUT' });
    expect(result.after).toBeUndefined();
  });

  it('a JSON-over-stdio program without MCP vocabulary is still nothing to report', () => {
    const root = makeTree({
      'worker.js': `const { Transform } = require('stream');
const t = new Transform({ transform(c, e, done) { done(null, c); } });
process.stdin.pipe(t).on('data', (c) => { const job = JSON.parse(String(c)); process.stdout.write(JSON.stringify({ done: job.name }) + '\\n'); });
`,
    });
    expect(run(root, 'worker.js').decision.kind).toBe('none');
  });

  it('fails --check: the scan plans its migration (and lists it among the unfollowed only where no form takes it)', async () => {
    const root = makeTree({
      'server.js': `const { Transform } = require('stream');
const out = process.stdout;
${DISPATCH}
process.stdin.pipe(new Transform({ transform(c, e, done) { done(null, c); } })).on('data', (c) => dispatch(JSON.parse(String(c))));
`,
    });
    const scan = await scanFiles({ paths: ['.'], cwd: root, sdk: 'v1', style: 'server', jobs: 1 });
    expect(scan.results.filter((r) => r.after !== undefined).map((r) => [r.path, r.decision.kind])).toEqual([[join(root, 'server.js'), 'boundary']]);
    expect(getUnfollowed(scan)).toEqual([]);
  });
});

describe('a program that imports a module of a server the tool moved onto the SDK at the boundary', () => {
  it('is not taken for an SDK server (its own output does not move to stderr), and the server is done', () => {
    const root = makeTree({
      'mcp-boundary.cjs': buildBoundarySource('cjs', 'v1'),
      'protocol.js': "const { createBoundary } = require('./mcp-boundary.cjs');\nconst boundary = createBoundary();\nexports.print = (v) => boundary.write(JSON.stringify(v) + '\\n');\nexports.serve = () => require('readline').createInterface({ input: boundary.stdin }).on('line', (l) => exports.print({ jsonrpc: '2.0', id: JSON.parse(l).id, result: { tools: [] } }));\n",
      'list.js': "const { print } = require('./protocol.js');\n// lists the tools/list methods for a person\nconsole.log('jsonrpc tools:');\nprint(['a']);\n",
      'server.js': "require('./protocol.js').serve();\n",
    });
    for (const file of ['list.js', 'server.js']) {
      const result = run(root, file);
      expect(result.after, file).toBeUndefined();
      expect(result.decision, file).toEqual({ kind: 'none' });
    }
  });
});

describe('servers on Deno or Bun stdin', () => {
  // replies that build `jsonrpc` out of parts: the literal word is not what makes it a server
  const DENO = `import { readLines } from "https://deno.land/std@0.104.0/io/mod.ts";
const encoder = new TextEncoder();
const VERSION = ["json", "rpc"].join("");
async function send(msg: Record<string, unknown>) {
  await Deno.stdout.write(encoder.encode(JSON.stringify({ [VERSION]: "2.0", ...msg }) + "\\n"));
}
STDIN
  const req = JSON.parse(line);
  if (req.method === "initialize") await send({ id: req.id, result: { protocolVersion: "2024-11-05", capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } } });
  else if (req.method === "tools/list") await send({ id: req.id, result: { tools: [] } });
}
`;

  it('are named UNSUPPORTED_RUNTIME at their stdin, however it is reached, and fail --check', async () => {
    const member = DENO.replace('STDIN', 'for await (const line of readLines(Deno.stdin)) {');
    const destructured = DENO.replace('STDIN', 'const { stdin } = Deno;\nfor await (const line of readLines(stdin)) {');
    const bun = DENO.replace('STDIN', 'for await (const line of console) {\n  void Bun.stdin;');
    const root = makeTree({ 'member.ts': member, 'destructured.ts': destructured, 'bun.ts': bun });
    expect(run(root, 'member.ts').decision).toMatchObject({ kind: 'leave', reason: 'UNSUPPORTED_RUNTIME', line: 7 });
    expect(run(root, 'destructured.ts').decision).toMatchObject({ kind: 'leave', reason: 'UNSUPPORTED_RUNTIME', line: 7 });
    expect(run(root, 'bun.ts').decision).toMatchObject({ kind: 'leave', reason: 'UNSUPPORTED_RUNTIME' });
    const scan = await scanFiles({ paths: ['.'], cwd: root, sdk: 'v1', style: 'server', jobs: 1 });
    expect(getUnfollowed(scan).map((r) => r.path.slice(root.length + 1)).sort()).toEqual(['bun.ts', 'destructured.ts', 'member.ts']);
  });

  it('a Deno script that reads stdin without MCP vocabulary is nothing', () => {
    const root = makeTree({ 'tool.ts': 'for await (const chunk of Deno.stdin.readable) {\n  const job = JSON.parse(new TextDecoder().decode(chunk));\n  console.log(JSON.stringify({ done: job.name }));\n}\n' });
    expect(run(root, 'tool.ts').decision.kind).toBe('none');
  });
});

describe('Python files that look like MCP servers', () => {
  it('get one warning line each; other Python files get none', async () => {
    const root = makeTree({
      'tools/server.py': `import json\nimport sys\n\nfor line in sys.stdin:\n    msg = json.loads(line)\n    if msg.get("method") == "tools/list":\n        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": []}}))\n`,
      'scripts/build.py': `import json\nprint(json.dumps({"ok": True}))\n`,
      'index.js': `console.log('hello');\n`,
    });
    const scan = await scanFiles({ paths: ['.'], cwd: root, sdk: 'v1', style: 'server', jobs: 1 });
    const python = scan.warnings.filter((w) => w.includes('Python'));
    expect(python).toEqual(['tools/server.py: looks like an MCP server written in Python; not handled (mcp-migrate rewrites JavaScript and TypeScript servers only)']);
  });
});

describe('build output whose TypeScript source is in the tree', () => {
  const SERVER_JS = `"use strict";
const readline = require("node:readline");
const out = process.stdout;
${DISPATCH}
readline.createInterface({ input: process.stdin }).on("line", (line) => dispatch(JSON.parse(line)));
`;

  // committed build output is scanned inside a git work tree (outside one, dist/ and build/ are skipped by name)
  const makeRepo = (files: Record<string, string>): string => {
    const root = makeTree(files);
    execFileSync('git', ['init', '-q'], { cwd: root });
    return root;
  };

  it('is left alone as compiled output of its source (same path under src/), and the source is scanned', async () => {
    const root = makeRepo({ 'dist/server.js': SERVER_JS, 'src/server.ts': SERVER_JS.replace('"use strict";\n', '') });
    const scan = await scanFiles({ paths: ['.'], cwd: root, sdk: 'v1', style: 'server', jobs: 1 });
    const dist = scan.results.find((r) => r.path === join(root, 'dist/server.js'))!;
    expect(dist.decision).toMatchObject({ kind: 'leave', reason: 'COMPILED_OUTPUT' });
    expect(dist.after).toBeUndefined();
    expect(dist.diagnostics.map((d) => d.message)).toContain('compiled output of src/server.ts: the source is what gets migrated; rebuild to update this file');
    expect(scan.results.find((r) => r.path === join(root, 'src/server.ts'))?.decision.kind).toBe('sdk');
  });

  it('names the source its source map points to', async () => {
    const root = makeRepo({
      'build/main.js': `${SERVER_JS}//# sourceMappingURL=main.js.map\n`,
      'build/main.js.map': JSON.stringify({ version: 3, sources: ['../app/entry.ts'], mappings: '' }),
      'app/entry.ts': `export const unused = 1;\n`,
    });
    const scan = await scanFiles({ paths: ['.'], cwd: root, sdk: 'v1', style: 'server', jobs: 1 });
    const built = scan.results.find((r) => r.path === join(root, 'build/main.js'))!;
    expect(built.decision).toMatchObject({ kind: 'leave', reason: 'COMPILED_OUTPUT' });
    expect(built.diagnostics.at(-1)?.message).toMatch(/^compiled output of app\/entry\.ts:/);
  });

  it('without a source in the tree, build output is migrated as before', async () => {
    const scan = await scanFiles({ paths: ['.'], cwd: makeRepo({ 'dist/server.js': SERVER_JS }), sdk: 'v1', style: 'server', jobs: 1 });
    expect(scan.results.map((r) => r.decision.kind)).toEqual(['sdk']);
  });
});

describe('a server module that only runs when its importer calls it', () => {
  const MODULE = `import { createInterface } from 'node:readline';
import { frame } from './frame.js';

export function serve(handle) {
  createInterface({ input: process.stdin }).on('line', (line) => {
    const m = JSON.parse(line);
    if (m.method === 'initialize') process.stdout.write(frame({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } }));
    else handle(m);
  });
}
`;

  it('is marked started by its importer; a module that starts itself, and an entry, are not', () => {
    const root = makeTree({
      'lib/serve.js': MODULE,
      'lib/self.js': `${MODULE}\nserve((m) => process.stdout.write(frame({ jsonrpc: '2.0', id: m.id, result: { tools: [] } })));\n`,
      'lib/frame.js': `export const frame = (m) => JSON.stringify(m) + '\\n';\n`,
      'bin.js': `import { serve } from './lib/serve.js';
import { frame } from './lib/frame.js';
serve((m) => {
  if (m.method === 'tools/list') process.stdout.write(frame({ jsonrpc: '2.0', id: m.id, result: { tools: [] } }));
});
`,
    });
    // the module alone (its handler unknown) is still analysed; what matters is who starts it
    const own = run(root, 'lib/serve.js');
    expect(own.decision.kind).not.toBe('none');
    expect(own.startedByImporter).toEqual([join(root, 'lib/serve.js')]);
    expect(run(root, 'lib/self.js').startedByImporter).toBeUndefined();
    expect(run(root, 'bin.js').startedByImporter).toBeUndefined();
  });

  it('is not an entry of its own: its change and the shared module come from the entry that starts it (no conflict)', async () => {
    const root = makeTree({
      'bin.js': `import { serve } from './lib/serve.js';\n// jsonrpc method\nserve();\n`,
      'lib/serve.js': `// reads process.stdin; jsonrpc method\nexport function serve() {}\n`,
      'lib/frame.js': `export const frame = 1;\n`,
    });
    const at = (p: string): string => join(root, p);
    const base = { fixes: [], findings: [], diagnostics: [] };
    // (a change's `before` is what the file holds: a run writes nothing over a file whose bytes differ)
    const [serveText, frameText] = [readFileSync(at('lib/serve.js'), 'utf8'), readFileSync(at('lib/frame.js'), 'utf8')];
    // the entry plans the SDK and changes both modules; the module alone would plan the envelope and
    // change the shared module differently (as it did: NO_DISPATCH, then SHARED_MODULE_CONFLICT)
    const fake = (path: string, source: string): FileResult => {
      if (path === at('bin.js')) {
        return { ...base, path, before: source, after: 'bin-sdk', decision: { kind: 'sdk', sdk: 'v1', style: 'server', notes: [] }, related: [{ path: at('lib/serve.js'), before: serveText, after: 'serve-sdk' }, { path: at('lib/frame.js'), before: frameText, after: 'frame-sdk' }] };
      }
      if (path === at('lib/serve.js')) {
        return { ...base, path, before: source, after: 'serve-envelope', decision: { kind: 'envelope', reason: 'NO_DISPATCH', hint: '' }, related: [{ path: at('lib/frame.js'), before: frameText, after: 'frame-envelope' }], startedByImporter: [at('lib/serve.js')] };
      }
      return { ...base, path, before: source, decision: { kind: 'none' } };
    };
    const scan: ScanResult = await scanFiles({ paths: ['.'], cwd: root, sdk: 'v1', style: 'server', jobs: 1, process: fake });
    const by = Object.fromEntries(scan.results.map((r) => [r.path.slice(root.length + 1), r]));
    expect(by['bin.js']).toMatchObject({ after: 'bin-sdk', decision: { kind: 'sdk' } });
    expect(by['lib/serve.js']).toMatchObject({ after: 'serve-sdk', partOf: at('bin.js'), decision: { kind: 'sdk' } });
    expect(by['lib/frame.js']).toMatchObject({ after: 'frame-sdk', partOf: at('bin.js') });
  });
});

describe('a module that only registers tools on an app whose loop its importer starts', () => {
  // a home-made app: the streams default to the process's, the loop starts in listen(), and the
  // factory is exported in a module.exports object literal
  const APP = `const readline = require('node:readline');

class AppError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

function makeApp(input = process.stdin, output = process.stdout) {
  const tools = new Map();
  const send = (msg) => output.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\\n');
  async function handle(req) {
    if (req.method === 'initialize') return { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'app', version: '1' } };
    if (req.method === 'tools/list') return { tools: [...tools.values()].map((t) => t.spec) };
    if (req.method === 'tools/call') {
      const tool = tools.get(req.params.name);
      if (!tool) throw new AppError(-32602, 'no such tool');
      return tool.run(req.params.arguments ?? {});
    }
    throw new AppError(-32601, 'unknown method');
  }
  return {
    addTool(spec, run) { tools.set(spec.name, { spec, run }); },
    listen() {
      readline.createInterface({ input }).on('line', async (line) => {
        const req = JSON.parse(line);
        if (req.id === undefined) return;
        try {
          send({ id: req.id, result: await handle(req) });
        } catch (err) {
          send({ id: req.id, error: { code: err.code ?? -32603, message: err.message } });
        }
      });
    },
  };
}

module.exports = { AppError, makeApp };
`;
  const TOOLS = `const { AppError } = require('./lib/app.cjs');

function addEcho(app) {
  app.addTool({ name: 'echo', description: 'echo', inputSchema: { type: 'object' } }, (args) => {
    if (typeof args.text !== 'string') throw new AppError(-32602, 'text is required');
    return { content: [{ type: 'text', text: args.text }] };
  });
}

module.exports = { addEcho };
`;
  const MAIN = `const { makeApp } = require('./lib/app.cjs');
const { addEcho } = require('./tools.cjs');

const app = makeApp();
addEcho(app);
app.listen();
`;

  it('marks the tools module started by its importer, the loop in the app module; the entry starts it itself', () => {
    const root = makeTree({ 'lib/app.cjs': APP, 'tools.cjs': TOOLS, 'main.cjs': MAIN });
    const tools = run(root, 'tools.cjs');
    expect(tools.startedByImporter).toEqual([join(root, 'lib/app.cjs')]);
    const main = run(root, 'main.cjs');
    expect(main.decision.kind).not.toBe('none');
    expect(main.startedByImporter).toBeUndefined();
  });

  it('is not an entry of its own: the run migrates the entry and the app module, and leaves the tools module as it is', async () => {
    const root = makeTree({ 'lib/app.cjs': APP, 'tools.cjs': TOOLS, 'main.cjs': MAIN });
    const scan = await scanFiles({ paths: ['.'], cwd: root, sdk: 'v2', style: 'server', jobs: 1 });
    const by = Object.fromEntries(scan.results.map((r) => [r.path.slice(root.length + 1), r]));
    // before: tools.cjs was analysed as an entry of its own, with a boundary around a loop it never
    // starts and a rewrite of lib/app.cjs unlike the entry's: all three left alone (SHARED_MODULE_CONFLICT)
    expect(scan.results.map((r) => r.decision.kind === 'leave' ? r.decision.reason : r.decision.kind)).not.toContain('SHARED_MODULE_CONFLICT');
    expect(by['main.cjs']!.after).toBeDefined();
    expect(by['lib/app.cjs']).toMatchObject({ partOf: join(root, 'main.cjs') });
    expect(by['lib/app.cjs']!.after).toContain('@modelcontextprotocol/server');
    expect(by['tools.cjs']?.after).toBeUndefined();
  });
});

const TRANSPORT = `import { createInterface } from 'node:readline';
import { KNOWN_METHODS } from './methods.js';

// a line transport: the code that starts it sets onmessage and answers through send()
export class LineTransport {
  start() {
    this.lines = createInterface({ input: process.stdin });
    this.lines.on('line', (line) => {
      let message;
      try {
        message = JSON.parse(line);
      } catch (err) {
        this.onerror?.(err);
        return;
      }
      if (!KNOWN_METHODS.includes(message.method)) this.onerror?.(new Error('unexpected ' + message.method));
      this.onmessage?.(message);
    });
  }

  send(message) {
    process.stdout.write(JSON.stringify(message) + '\\n');
  }
}
`;
const METHODS = `export const KNOWN_METHODS = ['initialize', 'tools/list', 'tools/call', 'notifications/initialized'];\n`;

describe('stdio code that nothing in the scanned files starts and that answers no request (a transport)', () => {

  it('is left alone as NOT_STARTED, and --check does not fail on it', async () => {
    const root = makeTree({ 'package.json': '{ "name": "t", "type": "module" }\n', 'lib/transport.js': TRANSPORT, 'lib/methods.js': METHODS });
    const own = run(root, 'lib/transport.js');
    expect(own.decision).toMatchObject({ kind: 'leave', reason: 'NOT_STARTED' });
    expect(own.after).toBeUndefined();
    const scan: ScanResult = await scanFiles({ paths: ['.'], cwd: root, sdk: 'v1', style: 'server', jobs: 1 });
    const result = scan.results.find((r) => r.path.endsWith('transport.js'))!;
    expect(result.decision).toMatchObject({ kind: 'leave', reason: 'NOT_STARTED' });
    expect(getNonCompliant(scan)).toEqual([]);
    expect(getUnfollowed(scan)).toEqual([]);
  });

  it('a module that starts it and answers is still the server', () => {
    const root = makeTree({
      'package.json': '{ "name": "t", "type": "module" }\n',
      'lib/transport.js': TRANSPORT,
      'lib/methods.js': METHODS,
      'bin.js': `import { LineTransport } from './lib/transport.js';
const transport = new LineTransport();
transport.onmessage = (req) => {
  if (req.method === 'initialize') transport.send({ jsonrpc: '2.0', id: req.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 't', version: '1' } } });
  else if (req.method === 'tools/list') transport.send({ jsonrpc: '2.0', id: req.id, result: { tools: [] } });
};
transport.start();
`,
    });
    const bin = run(root, 'bin.js');
    expect(['sdk', 'boundary', 'envelope']).toContain(bin.decision.kind);
    expect(bin.decision).not.toMatchObject({ reason: 'NOT_STARTED' });
  });
});


describe('stdin wired in a constructor', () => {
  it('is started by `new` of its class, from another constructor: migrated, not left alone', () => {
    // the reader's constructor takes stdin in; the server's constructor creates the reader, and the module
    // creates the server
    const fixture = readFileSync(join('test/fixtures/envelope', 'reader-in-constructor.mjs'), 'utf8');
    const root = makeTree({ 'package.json': '{ "name": "t", "type": "module" }\n', 'server.js': fixture });
    const result = run(root, 'server.js');
    expect(result.decision).not.toMatchObject({ reason: 'NOT_STARTED' });
    expect(['sdk', 'boundary', 'envelope']).toContain(result.decision.kind);
    expect(result.after).toContain('boundary.write(JSON.stringify(reply)');
  });

  it('a transport that wires stdin in its constructor and that nothing instantiates is still a library', () => {
    // its own declaration and its export are no `new`: the code that imports it starts it
    const transport = TRANSPORT.replace('  start() {', '  constructor() {') + 'export default LineTransport;\n';
    expect(transport).not.toBe(TRANSPORT + 'export default LineTransport;\n');
    const root = makeTree({ 'package.json': '{ "name": "t", "type": "module" }\n', 'lib/transport.js': transport, 'lib/methods.js': METHODS });
    expect(run(root, 'lib/transport.js').decision).toMatchObject({ kind: 'leave', reason: 'NOT_STARTED' });
  });
});
