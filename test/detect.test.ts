// Detection on the shared facts: what each server is, which function dispatches, what gets registered,
// and every reason an SDK rewrite is not offered; checked against what reading each file shows.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getLine } from '../src/analysis/ast.js';
import { buildFacts } from '../src/analysis/facts.js';
import { auditFacts } from '../src/audit/index.js';
import { isInertText } from '../src/analysis/inert.js';
import { detectServer, type Detection } from '../src/detect/server.js';
import type { ServerModel } from '../src/model/server-model.js';
import { parseSource } from '../src/parse.js';
import { processSource } from '../src/pipeline.js';
import { renderSdkShape, type WrittenShape } from '../src/rewrite/sdk-code.js';

const CORPUS = join(import.meta.dirname, 'fixtures', 'corpus');

const readModule = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

function detect(path: string, source = readFileSync(path, 'utf8')): Detection {
  return detectServer(buildFacts(path, source, parseSource(path, source), readModule));
}

function model(path: string, source?: string): ServerModel {
  const detection = detect(path, source);
  if (detection.kind !== 'server') throw new Error(`${path}: ${detection.kind}`);
  return detection.model;
}

/** The SDK shape of a corpus server, with the code the rewrite writes from its references (the handler, the construction, each reply). */
function shape(relativePath: string): WrittenShape {
  const m = model(join(CORPUS, relativePath));
  if (!m.sdk) throw new Error(`${relativePath}: ${m.blockers.map((b) => b.code).join(', ')}`);
  return written(m);
}

function written(m: ServerModel): WrittenShape {
  const shape = renderSdkShape(m.sdk!);
  if ('failed' in shape) throw new Error(`${shape.failed.code}: ${shape.failed.detail}`);
  return shape;
}

const fnName = (node: { type: string; id?: { name: string } | null; key?: { type: string; name?: string } }): string | null =>
  node.id?.name ?? (node.key?.type === 'Identifier' ? node.key.name! : null);

describe('the dispatcher', () => {
  it('is the loop callback itself when the replies are written right after the parse (01: bare ifs in rl.on)', () => {
    const s = shape('01-cjs-readline-bare-ifs/server.js');
    expect(s.dispatcher.kind).toBe('inline');
    expect(s.registrations).toEqual(['tools/list', 'tools/call']);
    // the initialize branch is the SDK's; ping is not handled at all
    expect(s.removableBranches).toHaveLength(1);
    expect(getLine(s.removableBranches[0]!.node)).toBe(51);
    // an unknown tool falls off the end of the callback without a reply (lines 117-133)
    expect(s.noReplyEnds.map((e) => [e.kind, e.reason])).toEqual([['end', 'unknown-tool']]);
  });

  it('is the function handed the parsed message (02: handleRequest(request) from the data handler)', () => {
    const s = shape('02-esm-data-buffer-switch/index.mjs');
    expect(s.dispatcher.kind).toBe('function');
    expect(fnName(s.dispatcher.fn as never)).toBe('handleRequest');
    expect(s.handler).toBe('handleRequest');
    expect(s.customMethods).toEqual([]);
  });

  it('reads the id the dispatcher checks, so the handler is handed one (03: isNotification = message.id === undefined)', () => {
    const s = shape('03-esm-handler-map/server.js');
    expect(fnName(s.dispatcher.fn as never)).toBe('dispatch');
    expect(s.usesMessageId).toBe(true);
    expect(s.handler).toBe('(request, extra) => dispatch({ ...request, id: extra.requestId })');
  });

  it('follows replies returned out of the dispatcher to the loop that writes them (08: out(await handle(msg)))', () => {
    const s = shape('08-no-jsonrpc-field/main.js');
    expect(fnName(s.dispatcher.fn as never)).toBe(null); // const handle = async (...) => ...
    expect(s.handler).toBe('(request) => handle(request)');
    // initialize, notifications/initialized and ping are the SDK's
    expect(s.removableBranches.map((b) => b.kind)).toEqual(['case', 'case', 'case']);
  });

  it('routes a custom method through the fallback, and keeps registrations to MCP methods (10: db/stats)', () => {
    const s = shape('10-custom-method-db-stats/bin/shopdb-mcp.mjs');
    expect(fnName(s.dispatcher.fn as never)).toBe('onRequest');
    expect(s.registrations).toEqual(['tools/list', 'tools/call']);
    expect(s.customMethods).toEqual(['db/stats']);
    expect(s.fallback).toBe(true);
    expect(s.construct.instructions).toBe("'Read-only. Use list_tables first.'");
  });

  it('keeps the name of a constant the initialize reply used for serverInfo (02: SERVER_INFO, 03 through a handler map)', () => {
    expect(shape('02-esm-data-buffer-switch/index.mjs').construct.serverInfo).toBe('SERVER_INFO');
    expect(shape('03-esm-handler-map/server.js').construct.serverInfo).toBe('SERVER');
  });
});

describe('framing: decided by how the server reads and by the writes that carry its replies', () => {
  // a readline server with log lines that quote JSON in templates of several substitutions
  const ndjsonServer = (extra: string): string => `
const readline = require('readline');
const DEBUG = !!process.env.X_DEBUG;
function trace(label, data) {
  if (DEBUG) console.log(\`[trace \${new Date().toISOString()}] \${label}: \${JSON.stringify(data)}\`);
}
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
${extra}
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  console.error(\`[\${Date.now()}] got \${msg.method} \${JSON.stringify(msg.params)}\`);
  trace('in', msg);
  if (msg.method === 'initialize') send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'x', version: '1' } } });
  else if (msg.method === 'tools/list') send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
});`;

  it('a log line built from a template (to stdout or stderr) is not a Content-Length header', () => {
    const m = model('trace.js', ndjsonServer(''));
    expect(m.framing).toBe('ndjson');
    expect(m.blockers).toEqual([]);
    expect(m.sdk).not.toBeNull();
  });

  it('naming the header in a comment, a log or a string that is written does not make the input framed', () => {
    const extra = `// not an LSP server: no Content-Length headers, no \\r\\n\\r\\n separators
function banner() { console.error('Content-Length framing is not spoken here\\r\\n\\r\\n'); }
const NOTE = 'Content-Length: ' + 0;`;
    expect(model('notes.js', ndjsonServer(extra)).framing).toBe('ndjson');
  });

  it('reads Content-Length frames: a header pattern kept in a constant, matched by the reader', () => {
    const source = `
const HEADER = /^content-length:\\s*(\\d+)$/im;
let inbox = '';
function reply(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
function onBody(body) {
  const msg = JSON.parse(body);
  if (msg.method === 'initialize') reply({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2024-11-05', capabilities: {}, serverInfo: { name: 'x', version: '1' } } });
  else if (msg.method === 'tools/list') reply({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
}
process.stdin.on('data', (chunk) => {
  inbox += chunk;
  for (;;) {
    const end = inbox.indexOf('\\r\\n\\r\\n');
    if (end < 0) return;
    const found = HEADER.exec(inbox.slice(0, end));
    const length = found ? Number(found[1]) : 0;
    const body = inbox.slice(end + 4, end + 4 + length);
    inbox = inbox.slice(end + 4 + length);
    onBody(body);
  }
});`;
    // the writer writes lines, but the reader reads frames: the envelope keeps the server's framing
    const m = model('frames.js', source);
    expect(m.framing).toBe('content-length');
    expect(m.blockers[0]).toMatchObject({ code: 'CONTENT_LENGTH_FRAMING' });
  });

  it('writes Content-Length frames: a header before the JSON, in a template or held in a variable', () => {
    const reader = `
const readline = require('readline');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'tools/list') send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
});`;
    const inTemplate = `function send(m) { const body = JSON.stringify(m); process.stdout.write(\`Content-Length: \${Buffer.byteLength(body)}\\r\\n\\r\\n\${body}\`); }` + reader;
    const inVariable = `function send(m) { const body = JSON.stringify(m); const head = \`Content-Length: \${body.length}\\r\\n\\r\\n\`; process.stdout.write(\`\${head}\${body}\`); }` + reader;
    expect(model('template.js', inTemplate).framing).toBe('content-length');
    expect(model('variable.js', inVariable).framing).toBe('content-length');
  });
});

describe('servers the SDK rewrite does not take', () => {
  it('names Content-Length framing (11) and sends it to the envelope', () => {
    const m = model(join(CORPUS, '11-content-length-framing/server.js'));
    expect(m.sdk).toBeNull();
    expect(m.framing).toBe('content-length');
    expect(m.blockers[0]).toMatchObject({ code: 'CONTENT_LENGTH_FRAMING' });
  });

  it('tells servers already on the SDK and JSON-lines workers apart from hand-rolled servers', () => {
    expect(detect(join(CORPUS, '13-already-sdk-mcpserver/server.js')).kind).toBe('sdk-server');
    expect(detect(join(CORPUS, '14-jsonl-worker-not-mcp/worker.js')).kind).toBe('none');
  });

  it('names the line of the SDK require a server already on it makes last (a require in a function too)', () => {
    const source = [
      "const { Server } = require('@modelcontextprotocol/sdk/server/index.js');",
      'const readline = require("readline");',
      'function connect(server) {',
      "  const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');",
      '  return server.connect(new StdioServerTransport());',
      '}',
      "connect(new Server({ name: 'x', version: '1' }, { capabilities: {} }));",
      '',
    ].join('\n');
    expect(detect('/virtual/sdk-twice.js', source)).toMatchObject({ kind: 'sdk-server', line: 4, wiring: { generations: new Set(['v1']), connections: [{ otherUses: 0 }] } });
  });

  it('reports a reply written from a timer callback instead of guessing', () => {
    const source = `
const readline = require('readline');
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2024-11-05', capabilities: {}, serverInfo: { name: 'x', version: '1' } } });
  if (msg.method === 'tools/list') {
    setTimeout(() => send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } }), 10);
  }
});`;
    const m = model('late.js', source);
    expect(m.blockers[0]).toMatchObject({ code: 'REPLY_IN_CALLBACK', line: 8 });
    // the envelope cannot list the methods either: tools/list is answered where the analysis does not look
    expect(m.envelope.methods).toBeNull();
  });

  it('honours a mcp-migrate-ignore comment', () => {
    const source = `// mcp-migrate-ignore
const readline = require('readline');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'tools/list') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } }) + '\\n');
});`;
    expect(model('ignored.js', source).ignored).toBe(true);
  });

  it('does not treat a writer reassigned elsewhere as a proven writer', () => {
    const source = `
const readline = require('readline');
let send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
if (process.env.QUIET) send = () => {};
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2024-11-05', capabilities: {}, serverInfo: { name: 'x', version: '1' } } });
  if (msg.method === 'tools/list') send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
});`;
    const m = model('reassigned.js', source);
    // no reply is provable, so no SDK shape: the envelope wraps the write instead
    expect(m.sdk).toBeNull();
    expect(m.blockers[0]!.code).toBe('NO_DISPATCH');
  });
});

describe('shapes that vary the same server', () => {
  // One server, written four ways that keep its behaviour: each must give the same registrations.
  const tail = `
  if (method === 'initialize') return send({ jsonrpc: '2.0', id, result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'v', version: '1' } } });
  if (method === 'tools/list') return send({ jsonrpc: '2.0', id, result: { tools: [] } });
  if (method === 'tools/call') return send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: String(params.name) }] } });
  if (id !== undefined) send({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
}`;
  const writer = `function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }\n`;
  const variants: Record<string, string> = {
    'destructured stdin, handler by name': `const { stdin } = process;
${writer}function handle(msg) {
  const { id, method, params = {} } = msg;${tail}
function onLine(line) { handle(JSON.parse(line)); }
require('readline').createInterface({ input: stdin }).on('line', onLine);`,
    'node:process import, bound method': `import { stdin } from 'node:process';
import readline from 'node:readline';
${writer}class S {
  start() { readline.createInterface({ input: stdin }).on('line', this.onLine.bind(this)); }
  onLine(line) { this.handle(JSON.parse(line)); }
  handle(msg) {
  const { id, method, params = {} } = msg;${tail}
}
new S().start();`,
    'loop inside try in main()': `${writer}function handle(msg) {
  const { id, method, params = {} } = msg;${tail}
async function main() {
  try {
    const rl = require('readline').createInterface({ input: process.stdin });
    for await (const line of rl) {
      let msg;
      try { msg = JSON.parse(line); } catch { continue; }
      handle(msg);
    }
  } catch (e) { console.error(e); }
}
main();`,
    'raw line handed to a parsing function': `${writer}function handle(msg) {
  const { id, method, params = {} } = msg;${tail}
function handleLine(line) {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  handle(msg);
}
let buffer = '';
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let i;
  while ((i = buffer.indexOf('\\n')) >= 0) { handleLine(buffer.slice(0, i)); buffer = buffer.slice(i + 1); }
});`,
  };
  for (const [name, source] of Object.entries(variants)) {
    it(name, () => {
      const m = model(name.includes('import') ? 'variant.mjs' : 'variant.js', source);
      expect(m.blockers).toEqual([]);
      expect(m.sdk!.dispatcher.kind).toBe('function');
      expect(fnName(m.sdk!.dispatcher.fn as never)).toBe('handle');
      expect(m.sdk!.registrations).toEqual(['tools/list', 'tools/call']);
    });
  }
});

// A writer helper that also logs what it sends to stderr is still a writer helper: the SDK rewrite turns its
// calls into returns and removes it, naming the logging it drops. Logging that might reach stdout, or
// anything else the helper does, keeps it from being one.
describe('writer helpers that log', () => {
  const server = (helper: string) => `
const readline = require('readline');
class Tracer {
  constructor(tag) { this.tag = tag; }
  debug(...parts) { process.stderr.write(this.tag + ' ' + parts.join(' ') + '\\n'); }
}
const rpc = new Tracer('[rpc]');
function trace(...a) { if (process.env.TRACE) console.error('trace', ...a); }
let sent = 0;
${helper}
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  if (msg.method === 'initialize') send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'x', version: '1' } } });
  else if (msg.method === 'tools/list') send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
  else if (msg.id !== undefined) send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
});`;

  it.each([
    ['console.error', "function send(m) {\n  const text = JSON.stringify(m);\n  console.error('send', text);\n  process.stdout.write(text + '\\n');\n}", [12, "console.error('send', text)"]],
    ['a function that only logs', "function send(m) {\n  trace('->', m.id);\n  process.stdout.write(JSON.stringify(m) + '\\n');\n}", [11, "trace('->', m.id)"]],
    ['a logger method writing to stderr', "function send(m) {\n  rpc.debug('send', m.id);\n  process.stdout.write(JSON.stringify(m) + '\\n');\n}", [11, "rpc.debug('send', m.id)"]],
  ])('a helper logging through %s is a writer helper; its logging is named as dropped', (_, helper, [line, text]) => {
    const m = model('traced-send.js', server(helper as string));
    expect(m.blockers).toEqual([]);
    expect(m.sdk!.dropped.map((d) => [d.line, d.text, d.writer, d.method])).toEqual([[line, text, 'send', null]]);
  });

  it('a helper that also counts what it sent, or logs to stdout, is not one', () => {
    const counts = model('counting-send.js', server("function send(m) {\n  sent++;\n  process.stdout.write(JSON.stringify(m) + '\\n');\n}"));
    expect(counts.blockers.length).toBeGreaterThan(0);
    const stdout = model('stdout-send.js', server("function send(m) {\n  console.log('send', m.id);\n  process.stdout.write(JSON.stringify(m) + '\\n');\n}"));
    expect(stdout.blockers.length).toBeGreaterThan(0);
  });
});

// A handler table filled by a loop at the top of the module over a constant list or object is the table
// those constants make; a loop whose iterations cannot be told apart (a condition in it, a list not
// constant, a loop in a function) leaves the table unknown.
describe('handler tables filled by a loop', () => {
  const server = (fill: string) => `
const readline = require('readline');
const HANDLERS = {
  initialize: () => ({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'x', version: '1' } }),
  'tools/list': () => ({ tools: [] }),
  'tools/call': (params) => ({ content: [{ type: 'text', text: String(params.name) }] }),
};
const NAMES = ['initialize', 'tools/list', 'tools/call'];
${fill}
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  if (msg.id === undefined) return;
  const fn = lookup(msg.method);
  if (!fn) return process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } }) + '\\n');
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: fn(msg.params || {}) }) + '\\n');
});`;

  it.each([
    ['a Map over Object.entries', 'const table = new Map();\nfor (const [method, fn] of Object.entries(HANDLERS)) table.set(method, fn);\nconst lookup = (m) => table.get(m);'],
    ['an object over for...in', 'const table = {};\nfor (const key in HANDLERS) {\n  table[key] = HANDLERS[key];\n}\nconst lookup = (m) => table[m];'],
    ['an object over a constant list of names', 'const table = {};\nfor (const name of NAMES) table[name] = HANDLERS[name];\nconst lookup = (m) => (Object.hasOwn(table, m) ? table[m] : undefined);'],
    ['a Map over Object.keys', 'const table = new Map();\nfor (const name of Object.keys(HANDLERS)) table.set(name, HANDLERS[name]);\nconst lookup = (m) => table.get(m);'],
  ])('%s is the table the constants make', (_, fill) => {
    const m = model('table-loop.js', server(fill));
    expect(m.blockers).toEqual([]);
    expect(m.methods).toEqual(['initialize', 'tools/list', 'tools/call']);
  });

  it.each([
    ['a condition in the loop', "const table = new Map();\nfor (const [method, fn] of Object.entries(HANDLERS)) { if (method !== 'x') table.set(method, fn); }\nconst lookup = (m) => table.get(m);"],
    ['a list that is not constant', 'const table = new Map();\nfor (const name of process.argv.slice(2)) table.set(name, HANDLERS[name]);\nconst lookup = (m) => table.get(m);'],
    ['a loop in a function', 'const table = new Map();\nfunction fill() { for (const [method, fn] of Object.entries(HANDLERS)) table.set(method, fn); }\nfill();\nconst lookup = (m) => table.get(m);'],
  ])('%s leaves the table unknown (NO_DISPATCH)', (_, fill) => {
    const m = model('table-open.js', server(fill));
    expect(m.blockers[0]).toMatchObject({ code: 'NO_DISPATCH' });
  });
});

// Logger methods installed on a prototype (`Logger.prototype.info = function ...`, or in a loop over constant
// level names) are methods of its instances: one that only writes to stderr is logging.
describe('methods installed on a prototype', () => {
  const server = (install: string) => `
const readline = require('readline');
const LEVELS = ['debug', 'info'];
let lines = 0;
class Logger {
  constructor(out = process.stderr) { this.out = out; }
  emit(level, text) { this.out.write(level + ': ' + text + '\\n'); }
}
${install}
const log = new Logger();
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  if (msg.method === 'initialize') send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'x', version: '1' } } });
  else if (msg.method === 'notifications/initialized') log.info('ready');
  else if (msg.method === 'tools/list') send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
});`;

  it.each([
    ['in a loop over constant level names', 'for (const level of LEVELS) {\n  Logger.prototype[level] = function (text) { this.emit(level, text); };\n}'],
    ['in a loop over a literal list', "for (const level of ['warn', 'info']) Logger.prototype[level] = function (text) { this.emit(level, text); };"],
    ['one by one', "Logger.prototype.debug = function (text) { this.emit('debug', text); };\nLogger.prototype.info = function (text) { this.emit('info', text); };"],
  ])('a stderr-only method installed %s is logging: dropped with its branch', (_, install) => {
    const m = model('proto-logger.js', server(install));
    expect(m.blockers).toEqual([]);
    expect(m.sdk!.dropped.map((d) => [d.text, d.method])).toEqual([["log.info('ready')", 'notifications/initialized']]);
  });

  it.each([
    ['a method that also counts', "Logger.prototype.info = function (text) { lines++; this.emit('info', text); };"],
    ['a method that also calls something unknown', "Logger.prototype.info = function (text) { globalThis.report(text); this.emit('info', text); };"],
    ['a key from a list that is not constant', 'for (const level of process.argv.slice(2)) Logger.prototype[level] = function (text) { this.emit(level, text); };'],
    ['an install inside a condition', "if (process.env.QUIET) Logger.prototype.info = function () {};\nelse Logger.prototype.info = function (text) { this.emit('info', text); };"],
  ])('%s is not logging: the server stays on the envelope', (_, install) => {
    const m = model('proto-effect.js', server(install));
    expect(m.blockers[0]).toMatchObject({ code: 'SDK_OWNED_SIDE_EFFECTS' });
  });
});

// The SDK answers initialize, ping and notifications/initialized itself and never runs the server's code
// for them: logging only they ran is dropped and named; an effect keeps the server on the envelope.
describe('code only the SDK-owned methods ran', () => {
  const server = (initialized: string, extra = '') => `
const readline = require('readline');
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
let watching = false;
function startWatcher() { watching = true; }
function note(text) { console.error('[srv]', text); }
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  console.error('got', msg.method);
  switch (msg.method) {
    case 'initialize':
      note('hello ' + msg.params.clientInfo.name);
      send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'x', version: '1' } } });
      break;
    case 'notifications/initialized':
${initialized}
      break;
    case 'ping':
      send({ jsonrpc: '2.0', id: msg.id, result: {} });
      break;
    case 'tools/list':${extra}
      send({ jsonrpc: '2.0', id: msg.id, result: { tools: [], watching } });
      break;
  }
});`;

  it('names the logging only they ran, with its line and method, and not the log every request runs', () => {
    const m = model('owned-logs.js', server(`      console.error('ready');`));
    expect(m.blockers).toEqual([]);
    // line 10 logs for every method: it is not dropped code; note() is reached only from initialize
    expect(m.sdk!.dropped.map((d) => [d.line, d.text, d.method])).toEqual([
      [13, "note('hello ' + msg.params.clientInfo.name)", 'initialize'],
      [17, "console.error('ready')", 'notifications/initialized'],
    ]);
  });

  it('keeps a server whose notifications/initialized starts something on the envelope, naming the call', () => {
    const m = model('owned-call.js', server(`      startWatcher();`));
    expect(m.blockers[0]).toMatchObject({ code: 'SDK_OWNED_SIDE_EFFECTS', line: 17 });
    expect(m.blockers[0]!.detail).toContain('`startWatcher()`');
  });

  it('blocks on the call in the owned branch even when another method calls the same function', () => {
    const m = model('owned-shared-fn.js', server(`      startWatcher();`, `\n      startWatcher();`));
    expect(m.blockers[0]).toMatchObject({ code: 'SDK_OWNED_SIDE_EFFECTS', line: 17 });
  });

  it('tells a helper that only logs from one that also counts', () => {
    const counting = server(`      tally('ready');`).replace('function note(text)', "let lines = 0;\nfunction tally(text) { lines++; console.error(text); }\nfunction note(text)");
    const m = model('owned-tally.js', counting);
    expect(m.blockers[0]).toMatchObject({ code: 'SDK_OWNED_SIDE_EFFECTS', line: 19 });
    expect(m.blockers[0]!.detail).toContain("`tally('ready')`");
  });

  it('a counter the per-message code keeps only for its log line is no state: the server still gets the SDK rewrite', () => {
    const counted = server(`      console.error('ready');`).replace("console.error('got', msg.method);", "seen++;\n  process.stderr.write(`#${seen} got ${msg.method}\\n`);").replace('let watching = false;', 'let watching = false;\nlet seen = 0;');
    expect(counted).toContain('seen++;');
    expect(model('owned-log-counter.js', counted).blockers).toEqual([]);
    // read by a method's result, the same counter is state the SDK would stop keeping
    const m = model('owned-read-counter.js', counted.replace('result: { tools: [], watching }', 'result: { tools: [], watching, seen }'));
    expect(m.blockers[0]).toMatchObject({ code: 'SDK_OWNED_SIDE_EFFECTS' });
  });

  it('blocks on a state change written in the branch itself', () => {
    const m = model('owned-assign.js', server(`      watching = true;`));
    expect(m.blockers[0]).toMatchObject({ code: 'SDK_OWNED_SIDE_EFFECTS', line: 17 });
  });
});

// A handler looked up by a name computed from the method (`this['on' + camel(method)]`): the SDK rewrite
// cannot follow it, but the envelope must still answer the unknown methods the server ignores. The name's
// fixed part picks the table entries it can reach, so the path where none is found is followed too.
describe('a computed handler name with a fixed part', () => {
  const server = (lookup: string) => `
const readline = require('readline');
class Service {
  send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
  onInitialize(id) { this.send({ jsonrpc: '2.0', id, result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'x', version: '1' } } }); }
  onToolsList(id) { this.send({ jsonrpc: '2.0', id, result: { tools: [] } }); }
  handle(msg) {
    const camel = msg.method.split('/').map((p) => p[0].toUpperCase() + p.slice(1)).join('');
    const handler = ${lookup};
    if (typeof handler !== 'function') {
      return;
    }
    handler.call(this, msg.id, msg.params);
  }
}
const service = new Service();
readline.createInterface({ input: process.stdin }).on('line', (line) => service.handle(JSON.parse(line)));`;

  it.each([
    ['a prefix joined with +', "this['on' + camel]"],
    ['a template literal', 'this[`on${camel}`]'],
  ])('finds where an unknown method ends unanswered (%s), for the envelope to answer -32601 there', (_, lookup) => {
    const m = model('computed.js', server(lookup));
    expect(m.blockers[0]).toMatchObject({ code: 'COMPUTED_DISPATCH' });
    expect(m.envelope.methods).toBeNull();
    expect(m.envelope.unansweredEnds.map((e) => [e.kind, getLine(e.node)])).toEqual([['return', 11]]);
  });

  it('follows no entry when the name has no fixed part (any method of the class, helpers too, could be reached)', () => {
    const m = model('computed-bare.js', server('this[camel]'));
    expect(m.blockers[0]).toMatchObject({ code: 'COMPUTED_DISPATCH' });
    expect(m.envelope.unansweredEnds).toEqual([]);
  });
});

// An error written as a bare string (or without a code) that says the method is unknown, on the path
// for no method the dispatch knows, is answered -32601 (as the envelope helper does); other bare
// messages keep the SDK's -32603.
describe('a bare error message for an unknown method', () => {
  const server = `
const readline = require('readline');
const extra = new Map();
extra.set('kv/get', (params) => params.key);
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  const { id, method, params } = msg;
  if (method === 'initialize') return send({ jsonrpc: '2.0', id, result: { protocolVersion: '2024-11-05', capabilities: {}, serverInfo: { name: 'x', version: '1' } } });
  if (method === 'tools/list') return send({ jsonrpc: '2.0', id, result: { tools: [] } });
  const handler = extra.get(method);
  if (!handler && method.startsWith('debug/')) return send({ jsonrpc: '2.0', id, error: 'Debug methods are off in this build' });
  if (!handler) return send({ jsonrpc: '2.0', id, error: \`Method not found: \${method}\` });
  send({ jsonrpc: '2.0', id, result: handler(params) });
});`;

  it('gets -32601 where the message says so, and no code where it does not', () => {
    const m = model('bare-errors.js', server);
    expect(m.blockers).toEqual([]);
    const errors = written(m).sites.filter((s) => s.reply.kind === 'error').map((s) => [getLine(s.statement), (s.reply as { code: string | null }).code]);
    expect(errors).toEqual([
      [12, null],
      [13, '-32601'],
    ]);
  });

  it('reads the message as the text it builds, with the method left open (a template or a concatenation)', () => {
    const bare = 'error: `Method not found: ${method}`';
    expect(server).toContain(bare);
    for (const message of ["{ message: 'Method ' + method + ' not found' }", '{ message: `Method ${method} is not supported` }', '`No such method ${method}`']) {
      const m = model('built-message.js', server.replace(bare, `error: ${message}`));
      expect(m.blockers).toEqual([]);
      expect(written(m).sites.filter((s) => s.reply.kind === 'error').map((s) => (s.reply as { code: string | null }).code), message).toEqual([null, '-32601']);
    }
    // the method name where a word belongs is no message about the method
    const other = model('other-message.js', server.replace(bare, "error: 'Failed: ' + method"));
    expect(written(other).sites.filter((s) => s.reply.kind === 'error').map((s) => (s.reply as { code: string | null }).code)).toEqual([null, null]);
  });
});

// A TypeScript enum member used as a method name (`case Method.ListTools:`) is the string it is
// initialised with, declared in the file or imported from another module of the program.
describe('TypeScript enums as method names', () => {
  const ENUM = "enum Method { Initialize = 'initialize', ListTools = 'tools/list', Unused = 7, After }";
  const server = (declaration: string): string => `import * as readline from 'node:readline';
${declaration}
function send(m: unknown): void { process.stdout.write(JSON.stringify(m) + '\\n'); }
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const req = JSON.parse(line);
  if (req.id === undefined) return;
  switch (req.method as Method) {
    case Method.Initialize:
      return send({ jsonrpc: '2.0', id: req.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'e', version: '1' } } });
    case Method.ListTools:
      return send({ jsonrpc: '2.0', id: req.id, result: { tools: [] } });
    default:
      return send({ jsonrpc: '2.0', id: req.id, error: { code: -32601, message: 'Method not found' } });
  }
});
`;
  const detectWith = (files: Record<string, string>, entry: string): Detection => {
    const read = (path: string): string | null => files[path] ?? null;
    return detectServer(buildFacts(entry, files[entry]!, parseSource(entry, files[entry]!), read));
  };

  it('declared in the file: its members are the methods, and the SDK rewrite is open', () => {
    const detection = detectWith({ '/p/server.ts': server(ENUM) }, '/p/server.ts');
    expect(detection.kind).toBe('server');
    const m = (detection as { model: ServerModel }).model;
    expect(m.blockers).toEqual([]);
    expect(m.methods).toEqual(['initialize', 'tools/list']);
  });

  it('imported from another module', () => {
    const detection = detectWith({ '/p/server.ts': server("import { Method } from './methods.js';"), '/p/methods.ts': `export ${ENUM}\n` }, '/p/server.ts');
    const m = (detection as { model: ServerModel }).model;
    expect(m.blockers).toEqual([]);
    expect(m.methods).toEqual(['initialize', 'tools/list']);
  });

  it('a member computed from something else names no method (the dispatch is not resolved)', () => {
    const detection = detectWith({ '/p/server.ts': server(ENUM.replace("'tools/list'", 'prefix + "list"')) }, '/p/server.ts');
    const m = (detection as { model: ServerModel }).model;
    expect(m.methods).toEqual(['initialize']);
  });
});

// When no request reaches a branch for a method the analysis can name, what was not understood is the
// dispatch (NO_DISPATCH), not the initialize reply (NO_SERVER_INFO, which would ask for a serverInfo
// literal the server already has).
describe('a dispatch the analysis does not follow', () => {
  const server = `const readline = require('readline');
const routes = {
  initialize: { _: () => ({ protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'r', version: '1' } }) },
  tools: { list: () => ({ tools: [] }) },
};
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  const [ns, action = '_'] = String(msg.method).split('/');
  const fn = routes[ns] && routes[ns][action];
  if (!fn) return send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
  send({ jsonrpc: '2.0', id: msg.id, result: fn(msg.params) });
});
`;

  it('is named as the reason, with its serverInfo literal left out of it', () => {
    const m = model('routes.js', server);
    expect(m.blockers.map((b) => b.code)).toContain('NO_DISPATCH');
    expect(m.blockers.map((b) => b.code)).not.toContain('NO_SERVER_INFO');
  });
});

// Where the handling of an unknown method and of a tools/call end in the same place without a reply
// (`if (result === undefined) return;` after a runtime table of custom methods), the SDK handler throws
// -32601 there: MCP requires it for an unknown method, and a tool result left undefined gets an error either way.
describe('an end without a reply shared by unknown methods and tools/call', () => {
  const server = `const readline = require('readline');
const tools = new Map();
const extra = new Map();
tools.set('echo', (args) => ({ content: [{ type: 'text', text: String(args.text) }] }));
function addMethod(name, fn) { extra.set(name, fn); }
addMethod('kv/get', (params) => ({ value: params.key }));
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
async function run(method, params) {
  if (method === 'initialize') return { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'k', version: '1' } };
  if (method === 'tools/list') return { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
  if (method === 'tools/call') return tools.get(params.name)(params.arguments || {});
  const custom = extra.get(method);
  if (custom) return custom(params);
  return undefined;
}
async function dispatch(msg) {
  if (msg.id === undefined) return;
  try {
    const result = await run(msg.method, msg.params || {});
    if (result === undefined) return;
    send({ jsonrpc: '2.0', id: msg.id, result });
  } catch (e) {
    send({ jsonrpc: '2.0', id: msg.id, error: { code: e.code ?? -32000, message: e.message } });
  }
}
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  dispatch(msg);
});
`;

  it('throws -32601 there', () => {
    const m = model('shared-end.js', server);
    expect(m.blockers).toEqual([]);
    expect(m.sdk!.noReplyEnds.map((e) => [getLine(e.node), e.reason])).toEqual([[20, 'unknown-method']]);
  });
});

// Code that ran when stdin ended (after a `for await` loop) would run at start-up under the SDK
// transport, whose connect() returns at once: the server gets the envelope (CODE_AT_INPUT_END). A log
// line there is no reason (it is a common slip: "listening" printed after the loop).
describe('code at the end of the input', () => {
  const server = (around: (loop: string) => string, after = ''): string => `const readline = require('readline');
const state = { open: true };
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
async function main() {
  const rl = readline.createInterface({ input: process.stdin });
  ${around(`for await (const line of rl) {
    const msg = JSON.parse(line);
    if (msg.id === undefined) continue;
    if (msg.method === 'initialize') send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'e', version: '1' } } });
    else if (msg.method === 'tools/list') send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
    else send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
  }`)}
}
${after || 'main();'}
`;
  const codes = (source: string): string[] => model('end.js', source).blockers.map((b) => b.code);
  /** A logger of the program's own whose info() runs `body` (its `message`), defined before main() runs. */
  const logger = (body: string): string => `const log = { info: (message) => { ${body} } };\nmain();`;
  /** The logger's usual line: a timestamp, the level and the message, on stderr. */
  const LOG_LINE = "process.stderr.write(`${new Date().toISOString()} info ${message}\\n`);";

  it.each([
    ['a finally around the loop', server((loop) => `try {\n  ${loop}\n  } finally {\n    state.open = false;\n  }`)],
    ['a statement after the loop', server((loop) => `${loop}\n  process.exit(0);`)],
    ['a .then on the function', server((loop) => loop, 'main().then(() => process.exit(0));')],
    ['a statement after awaiting the function', server((loop) => loop, '(async () => {\n  await main();\n  state.open = false;\n})();')],
    // a "logger" that also changes state is no log line
    ['a helper that logs and closes the state after the loop', server((loop) => `${loop}\n  log.info('closed');`, logger(`state.open = false; ${LOG_LINE}`))],
  ])('%s: CODE_AT_INPUT_END', (_, source) => {
    expect(codes(source)).toEqual(['CODE_AT_INPUT_END']);
  });

  it.each([
    ['nothing after the loop', server((loop) => loop)],
    ['a log line after the loop', server((loop) => `${loop}\n  console.error('listening on stdio');`)],
    ['a catch around the loop', server((loop) => `try {\n  ${loop}\n  } catch (error) {\n    state.open = false;\n  }`)],
    ['a .catch on the function', server((loop) => loop, 'main().catch((error) => { console.error(error); process.exit(1); });')],
    ['a log line through the program\'s own logger after the loop', server((loop) => `${loop}\n  log.info('listening on stdio');`, logger(LOG_LINE))],
  ])('%s: the SDK rewrite', (_, source) => {
    expect(codes(source)).toEqual([]);
  });
});

// A line handler that calls a private method (`this.#onLine(line)`) is followed into it: the server
// was not seen at all (no parse, "Nothing to migrate").
describe('a private method handed each line', () => {
  const server = `const readline = require('readline');
class Mini {
  #name = 'mini';
  start() {
    readline.createInterface({ input: process.stdin }).on('line', (line) => this.#onLine(line));
  }
  #send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
  #onLine(line) {
    const msg = JSON.parse(line);
    if (msg.id === undefined) return;
    if (msg.method === 'initialize') return this.#send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: this.#name, version: '1' } } });
    if (msg.method === 'tools/list') return this.#send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
    this.#send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
  }
}
new Mini().start();
`;

  it('is a server whose methods are known', () => {
    const m = model('private.js', server);
    expect(m.methods).toEqual(['initialize', 'tools/list']);
  });
});

// A parameter with a default inside a destructuring pattern (`function start({ input = process.stdin } = {})`,
// called once as `start()`) holds that default: the stdin loop on it was not seen.
describe('a stdin default inside a destructured parameter', () => {
  const server = (call: string): string => `const readline = require('readline');
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
function onMessage(msg) {
  if (msg.id === undefined) return;
  if (msg.method === 'initialize') return send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'd', version: '1' } } });
  if (msg.method === 'tools/list') return send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
  send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
}
function start({ input = process.stdin } = {}) {
  readline.createInterface({ input }).on('line', (line) => onMessage(JSON.parse(line)));
}
${call}
`;

  it.each(['start();', 'start({});'])('%s reads stdin', (call) => {
    expect(detect('default.js', server(call)).kind).toBe('server');
  });

  it('start({ input: other }) reads another stream: no server', () => {
    expect(detect('other.js', server("start({ input: require('fs').createReadStream('requests.jsonl') });")).kind).not.toBe('server');
  });
});

// A file that reads process.stdin, parses JSON, writes to stdout and names initialize and a tools method,
// where no input loop the analysis follows was found (stdin piped through a Transform stream), is said
// to be unfollowed instead of "nothing to migrate", with what the SDK at the boundary needs: it gets that
// form. A JSON reader that names no MCP method, or a client that only reads keypresses, is still nothing.
describe('a server whose stdin is read in a way the analysis does not follow', () => {
  const server = (names: string): string => `const { Transform } = require('stream');
const splitter = new Transform({
  readableObjectMode: true,
  transform(chunk, _enc, done) {
    for (const part of String(chunk).split('\\n')) if (part.trim()) this.push(part);
    done();
  },
});
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
function onMessage(msg) {
  if (msg.method === ${names.split(',')[0]}) return send({ jsonrpc: '2.0', id: msg.id, result: {} });
  if (msg.method === ${names.split(',')[1]}) return send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
}
process.stdin.pipe(splitter).on('data', (line) => onMessage(JSON.parse(line)));
`;

  it('is unfollowed at its stdin, and gets the SDK at the boundary there', () => {
    const source = server("'initialize','tools/list'");
    const detection = detect('piped.js', source);
    // what it answers is not known (known: null); it names no method outside MCP's namespaces, so any such
    // namespaced method (`mcp-migrate/no-such-method`) is one no code of it can answer (namespaced: [])
    expect(detection).toMatchObject({ kind: 'unfollowed-input', line: 14, boundary: { available: true, methods: ['tools/list'], known: null, namespaced: [] } });
    if (detection.kind !== 'unfollowed-input' || !detection.boundary.available) throw new Error('expected the boundary facts');
    // the one read of stdin, the one write (its stream goes with it), no parse followed
    expect(detection.boundary.stdin.map((r) => getLine(r.node))).toEqual([14]);
    expect(detection.boundary.sinks.map((s) => getLine(s.call))).toEqual([9]);
    expect(detection.boundary.parses).toEqual([]);
    const result = processSource('piped.js', source, { sdk: 'v1', style: 'server' });
    expect(result.decision).toMatchObject({ kind: 'boundary', reason: 'INPUT_NOT_FOLLOWED', line: 14 });
    expect(result.after).toContain("boundary.stdin.pipe(splitter).on('data', (line) => onMessage(JSON.parse(line)));");
  });

  it('names the namespaced methods it writes (stats/get); an index computed from a number is no name', () => {
    const named = detect('named.js', server("'tools/list','stats/get'"));
    expect(named).toMatchObject({ kind: 'unfollowed-input', boundary: { known: null, namespaced: ['stats/get'], stems: null } });
    // `MONTHS[m - 1]`, `DAYS[d.getDay()]`
    const indexed = server("'initialize','tools/list'").replace('function onMessage(msg) {', 'const DAYS = [];\nconst day = (d, m) => DAYS[d.getDay()] + DAYS[m - 1];\nfunction onMessage(msg) {');
    expect(detect('indexed.js', indexed)).toMatchObject({ kind: 'unfollowed-input', boundary: { known: null, namespaced: [], stems: null } });
  });

  // Handler names built from the method by operations that keep its letters in order reach only the
  // names of the program whose letters are the key's constant parts around the method's: the stems.
  const built = (lookup: string, extra = ''): string =>
    server("'initialize','tools/list'").replace(
      'function onMessage(msg) {',
      `const table = { on_tools_list() {}, on_stats_get() {}, onNotesSearch() {}, other() {} };\n${extra}function onMessage(msg) {\n  const { method } = msg;\n  const handler = ${lookup};\n  if (handler) return send({ jsonrpc: '2.0', id: msg.id, result: handler(msg.params) });`,
    );
  const stemsOf = (source: string): unknown => {
    const detection = detect('built.js', source);
    if (detection.kind !== 'unfollowed-input' || !detection.boundary.available) throw new Error('expected the boundary facts');
    return { namespaced: detection.boundary.namespaced, stems: detection.boundary.stems };
  };

  it.each([
    ["table['on_' + msg.method]", 'a prefix and the method as read'],
    ["table[`on_${method.replace('/', '_')}`]", 'a template and a replace of punctuation'],
    ["table['on_' + method.split('/').join('_')]", 'split and join'],
    ["table['on' + method.split('/').map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('')]", 'camel case by a map of cut-and-rejoined parts'],
  ])('%s (%s): the stems of the names it can reach', (lookup) => {
    expect(stemsOf(built(lookup))).toEqual({ namespaced: [], stems: expect.arrayContaining(['toolslist', 'statsget', 'notessearch']) });
    expect((stemsOf(built(lookup)) as { stems: string[] }).stems).not.toContain('other');
  });

  it('a prefix kept in a constant is constant text', () => {
    expect(stemsOf(built('table[PREFIX + method]', "const PREFIX = 'on_';\n"))).toEqual({ namespaced: [], stems: expect.arrayContaining(['toolslist', 'statsget']) });
  });

  it('follows a constant that holds the key, and a constant the method is kept in', () => {
    expect(stemsOf(built('table[key]', '').replace('const handler = table[key];', "const name = method.replace(/\\//g, '_');\n  const key = 'on_' + name;\n  const handler = table[key];"))).toEqual({ namespaced: [], stems: expect.arrayContaining(['toolslist', 'statsget']) });
  });

  it.each([
    ["table['on_' + method.split('/')[1]]", 'an index of the parts drops letters'],
    ["table['on_' + method.slice(6)]", 'a slice drops letters'],
    ["table['on_' + method.replace(/\\/(\\w)/g, (_, c) => c.toUpperCase())]", 'a replacement function'],
    ["table['on_' + method.replace('s', 'z')]", 'letters replaced'],
    ["table[method.replace(/./g, '_')]", 'a wildcard pattern'],
    ["table['on_' + ALIASES[method]]", 'a value looked up elsewhere'],
    ["table[prefix + method]", 'two values'],
  ])('%s (%s): open, nothing refused', (lookup) => {
    const source = built(lookup, "const ALIASES = {};\nlet prefix = 'on';\nprefix = 'on_';\n").replace('const { method } = msg;', 'const { method } = msg;');
    expect(stemsOf(source)).toEqual({ namespaced: null, stems: null });
  });

  it('a method kept in a variable that is assigned again is open', () => {
    const source = built("table['on_' + m]").replace('const { method } = msg;', 'let m = msg.method;\n  m = m.split("/")[1];');
    expect(stemsOf(source)).toEqual({ namespaced: null, stems: null });
  });

  it('the rewrite passes the stems to the boundary', () => {
    const result = processSource('built.js', built("table['on_' + method.split('/').join('_')]"), { sdk: 'v1', style: 'server' });
    expect(result.decision).toMatchObject({ kind: 'boundary' });
    expect(result.after).toMatch(/createBoundary\(\{ methods: \['tools\/list'\], namespaced: \[\], stems: \[[^\]]*'statsget'[^\]]*\]/);
  });

  it('a JSON reader that names no MCP method is nothing', () => {
    expect(detect('worker.js', server("'compute','status'")).kind).toBe('none');
  });
});

// Method names kept in constants: an Object.freeze'd object (`M.LIST`) and computed keys of a handler
// table (`{ [INIT]: ... }`, `const INIT = 'initialize'`) are the strings they hold.
describe('method names in frozen constants and computed table keys', () => {
  const server = (table: string, test: string): string => `const readline = require('readline');
const INIT = 'initialize';
const M = Object.freeze({ LIST: 'tools/list' });
const handlers = ${table};
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  ${test}
  send({ jsonrpc: '2.0', id: msg.id, result: handlers[msg.method](msg.params) });
});
`;

  it('a frozen constant in an if-chain', () => {
    const m = model('frozen.js', server("{ initialize: () => ({ protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'f', version: '1' } }), 'tools/list': () => ({ tools: [] }) }", "if (msg.method !== M.LIST && msg.method !== 'initialize') return send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });"));
    expect([...m.methods].sort()).toEqual(['initialize', 'tools/list']);
  });

  it('computed keys of the handler table', () => {
    const m = model('computed.js', server("{ [INIT]: () => ({ protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'c', version: '1' } }), [M.LIST]: () => ({ tools: [] }) }", "if (!(msg.method in handlers)) return send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });"));
    expect(m.methods).toEqual(['initialize', 'tools/list']);
    expect(m.blockers).toEqual([]);
  });
});

// `switch (true) { case method === 'tools/list': ... }`: each case is a condition on the message.
describe('switch (true) over conditions', () => {
  const server = `const readline = require('readline');
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  const { id, method } = msg;
  if (id === undefined) return;
  switch (true) {
    case method === 'initialize':
      send({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } });
      break;
    case method === 'tools/list' || method === 'tools/list-all':
      send({ jsonrpc: '2.0', id, result: { tools: [] } });
      break;
    default:
      send({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
  }
});
`;

  it('dispatches on the method: each case its methods, the default the rest', () => {
    const m = model('switch-true.js', server);
    expect([...m.methods].sort()).toEqual(['initialize', 'tools/list', 'tools/list-all']);
    expect(m.blockers).toEqual([]);
  });
});

// A program is an MCP server by MCP's vocabulary (its method namespaces, protocol versions, the
// capabilities only an MCP server declares), not by answering `initialize`: an Agent Client Protocol
// agent, an editor plugin host, LSP and DAP answer `initialize` too and must stay as they are.
describe('MCP by its vocabulary, not by initialize', () => {
  const FIXTURES = join(import.meta.dirname, '..', '__testfixtures__', 'mcp-migrate');
  const loop = (dispatch: string, head = ''): string => `
const readline = require('readline');
${head}
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
${dispatch}
});`;

  it('passes over an ACP agent (initialize with protocolVersion 1, session/new, session/prompt)', () => {
    const path = join(FIXTURES, 'not-mcp-acp-agent.input.js');
    expect(detect(path).kind).toBe('none');
    const result = processSource(path, readFileSync(path, 'utf8'), { sdk: 'v1', style: 'server' }, readModule);
    expect(result.decision).toEqual({ kind: 'none' });
    expect(result.after).toBeUndefined();
  });

  it('passes over an editor plugin host whose initialize declares its own capabilities and an integer protocolVersion', () => {
    const path = join(FIXTURES, 'not-mcp-plugin-rpc.input.mjs');
    expect(detect(path).kind).toBe('none');
    expect(processSource(path, readFileSync(path, 'utf8'), { sdk: 'v1', style: 'server' }, readModule).decision).toEqual({ kind: 'none' });
  });

  it('passes over a JSON-RPC service whose dispatch names its own methods, whatever its comments and strings quote', () => {
    // the header comment and a help string quote MCP methods; the methods the dispatch answers are its own
    const source = loop(`  if (msg.method === 'initialize') send({ jsonrpc: '2.0', id: msg.id, result: { serverInfo: { name: 'fmt', version: '2' }, capabilities: { rangeFormat: true } } });
  else if (msg.method === 'format/text') send({ jsonrpc: '2.0', id: msg.id, result: { text: String(msg.params.text).trim(), help: HELP } });
  else send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });`, "// Not an MCP server: no 'tools/list', no 'resources/read', no \"notifications/initialized\".\nconst HELP = 'an editor worker; for an MCP client use tools/list on the other binary';");
    expect(source).toContain("'tools/list'");
    expect(detect('fmt.js', source).kind).toBe('none');
    // the same worker without the help string: its comment alone made it MCP before comments were blanked
    expect(detect('fmt2.js', source.replace(', help: HELP', '')).kind).toBe('none');
  });

  it('passes over a JSON-RPC service that answers initialize and ping only', () => {
    const source = loop(`  if (msg.method === 'initialize') send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: 3, capabilities: { jobs: true } } });
  else if (msg.method === 'ping') send({ jsonrpc: '2.0', id: msg.id, result: {} });
  else send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });`);
    expect(detect('svc.js', source).kind).toBe('none');
  });

  it('sees an MCP server whose only MCP word is a tools method built into a constant', () => {
    // neither method name is quoted whole in the text: the dispatch the analysis resolves is what tells
    const named = loop(`  if (msg.method === M.INIT) send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: PV, capabilities: CAPS, serverInfo: { name: 'x', version: '1' } } });
  else if (msg.method === M.LIST) send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });`, "const LIST = 'tools' + '/list';\nconst M = Object.freeze({ INIT: 'initialize', LIST });\nconst PV = process.env.PV;\nconst CAPS = {};");
    expect(detect('named.js', named).kind).toBe('server');
  });

  it('sees an MCP server by the capabilities of its initialize result when the methods are looked up by computed names', () => {
    const source = loop(`  const fn = handlers['on_' + msg.method.replace('/', '_')];
  if (fn) send({ jsonrpc: '2.0', id: msg.id, result: fn(msg.params) });`, "const CAPS = { tools: {} };\nconst handlers = { on_initialize: () => ({ protocolVersion: process.env.PV, capabilities: CAPS, serverInfo: { name: 'x', version: '1' } }) };");
    expect(detect('computed.js', source).kind).toBe('server');
  });

  it('sees an MCP server by a published protocol version in its text', () => {
    const source = loop(`  const fn = handlers[msg.method];
  if (fn) send({ jsonrpc: '2.0', id: msg.id, result: fn(msg.params) });`, "const handlers = { initialize: () => ({ protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'x', version: '1' } }) };");
    expect(detect('versioned.js', source).kind).toBe('server');
    // the same program with a protocol version of its own is not MCP
    expect(detect('own.js', source.replace("'2025-06-18'", "'4.2'")).kind).toBe('none');
  });
});

describe('programs nothing can come of', () => {
  const options = { sdk: 'v1', style: 'auto', moduleKind: 'cjs', guardStdout: true } as const;

  it('are not explored: a library that returns stdin, writes JSON to stdout and names no MCP method has no sinks scanned', () => {
    const source = `// a command-line helper library
function input() { return process.stdin; }
function print(value) { process.stdout.write(JSON.stringify(value) + '\\n'); }
function load(text) { return JSON.parse(text); }
module.exports = { input, print, load, method: 'cli' };
`;
    const facts = buildFacts('/v/lib.js', source, parseSource('/v/lib.js', source), null);
    // the write to fd 1 is there, but with no input loop and no MCP vocabulary the scan never runs
    expect(facts.sinks).toEqual([]);
    expect(facts.parses).toEqual([]);
    expect(detectServer(facts)).toEqual({ kind: 'none' });
    expect(processSource('/v/lib.js', source, options).decision).toEqual({ kind: 'none' });
  });

  it('are told from text before any parse when no module the program could load names MCP or takes stdin in', () => {
    const library = `const sub = require('./sub');
function input() { return process.stdin; }
module.exports = { input, method: 'cli', sub };
`;
    const files = new Map<string, string>([['/v/sub.js', 'module.exports = (s) => s.trim();\n']]);
    const read = (path: string): string | null => files.get(path) ?? null;
    expect(isInertText('/v/lib.js', library, read)).toBe(true);
    // what the required module says counts: a 'data' listener there is a form stdin may come in through
    files.set('/v/sub.js', "module.exports = (s) => s.on('data', (d) => console.log(JSON.parse(d)));\n");
    expect(isInertText('/v/lib.js', library, read)).toBe(false);
    files.set('/v/sub.js', 'module.exports = 1;\n');
    // a `for await` with a comment between the words, a quoted MCP method, an alias table: the parse decides
    expect(isInertText('/v/lib.js', `${library}async function f() { for /* each */ await (const c of input()) JSON.parse(c); }\n`, read)).toBe(false);
    expect(isInertText('/v/lib.js', `${library}const m = 'tools/list';\n`, read)).toBe(false);
    files.set('/v/package.json', '{ "name": "v", "imports": { "#sub": "./sub.js" } }');
    expect(isInertText('/v/lib.js', library, read)).toBe(false);
  });

  it('are told from text too when they take stdin in but no module could parse JSON (a tool that only prints it)', () => {
    const tool = `const fmt = require('./fmt');
process.stdin.on('data', (chunk) => process.stdout.write(JSON.stringify({ method: 'echo', text: fmt(chunk) }) + '\\n'));
`;
    const files = new Map<string, string>([['/v/fmt.js', 'module.exports = (c) => String(c).trim();\n']]);
    const read = (path: string): string | null => files.get(path) ?? null;
    expect(isInertText('/v/tool.js', tool, read)).toBe(true);
    // another package's parse is none the analysis follows (asked of the parsed program, it says the same)
    const json5 = `const JSON5 = require('json5');\n${tool}module.exports = (c) => JSON5.parse(c);\n`;
    expect(isInertText('/v/tool.js', json5, read)).toBe(true);
    expect(detectServer(buildFacts('/v/tool.js', json5, parseSource('/v/tool.js', json5), read))).toEqual({ kind: 'none' });
    // the parse may be in a module it loads, or reach JSON otherwise than by name: the parse decides
    for (const parse of ['JSON.parse(c)', 'JSON [\'parse\'](c)', '((j) => j.parse(c))(JSON)']) {
      files.set('/v/fmt.js', `module.exports = (c) => ${parse};\n`);
      expect(isInertText('/v/tool.js', tool, read)).toBe(false);
    }
    // and what the analysis says of it, parsed: an input loop, and nothing comes of it, as the text told
    files.set('/v/fmt.js', 'module.exports = (c) => String(c).trim();\n');
    const facts = buildFacts('/v/tool.js', tool, parseSource('/v/tool.js', tool), read);
    expect(facts.consumers).toHaveLength(1);
    expect(detectServer(facts)).toEqual({ kind: 'none' });
    expect(auditFacts(facts, null)).toEqual([]);
  });

  it('are not parsed: one that does not parse is not reported, while one that takes stdin in and parses JSON is', () => {
    const broken = "function input() { return process.stdin; }\nconst method = 'cli';\nexport default <<<;\n";
    expect(processSource('/v/broken.js', broken, options).error).toBeUndefined();
    const reading = broken.replace('return process.stdin;', "process.stdin.on('data', console.log);");
    expect(processSource('/v/reading.js', reading, options).error).toBeUndefined();
    const parsing = broken.replace('return process.stdin;', "process.stdin.on('data', (d) => console.log(JSON.parse(d)));");
    expect(processSource('/v/parsing.js', parsing, options).error).toMatch(/^does not parse/);
  });

  it('does not include a server whose MCP method names are built at run time (its input loop is found first)', () => {
    // no MCP method, protocol version or capability is quoted anywhere: only the interpreter sees `tools/list`
    const source = `const readline = require('readline');
const NS = 'tools';
const rl = readline.createInterface({ input: process.stdin });
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
rl.on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: msg.params.protocolVersion, serverInfo: { name: 'x', version: '1' }, capabilities: {} } });
  else if (msg.method === NS + '/list') send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
});
`;
    const facts = buildFacts('/v/computed.js', source, parseSource('/v/computed.js', source), null);
    expect(facts.consumers).toHaveLength(1);
    expect(facts.sinks).toHaveLength(1);
    expect(processSource('/v/computed.js', source, options).decision.kind).toBe('sdk');
  });
});
