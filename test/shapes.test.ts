// The public server shapes (test/fixtures/shapes/<name>/, each an independently written server of one
// shape seen in public hand-rolled servers, with a case.json saying which rewrite it should get): each
// is run through the pipeline in-process, as the CLI runs it, and must get that rewrite, whose output
// passed the tool's own re-check (parses, keeps every name bound, writes nothing to stdout). Their
// behaviour against the original is checked end to end in test/e2e/shapes.e2e.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processSource } from '../src/pipeline.js';

const SHAPES = join(import.meta.dirname, 'fixtures', 'shapes');

interface ShapeCase {
  run: string[];
  expect: 'sdk' | 'boundary' | 'envelope';
}

const readModule = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

function migrate(name: string, sdk: 'v1' | 'v2' = 'v1') {
  const dir = join(SHAPES, name);
  const kase = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8')) as ShapeCase;
  const entry = resolve(dir, kase.run.find((part) => /\.[cm]?[jt]s$/.test(part))!);
  return { kase, entry, result: processSource(entry, readFileSync(entry, 'utf8'), { sdk, style: 'server' }, readModule) };
}

const names = readdirSync(SHAPES, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

describe('public server shapes', () => {
  it('are all here (one folder per shape of the generalization issue, and the two envelope ones)', () => {
    expect(names.length).toBeGreaterThanOrEqual(27);
  });

  it.each(names)('%s gets the rewrite its case.json expects', (name) => {
    const { kase, result } = migrate(name);
    expect(result.error).toBeUndefined();
    expect(result.decision.kind, JSON.stringify(result.decision)).toBe(kase.expect);
    const texts = [result.after ?? '', ...(result.related ?? []).map((r) => r.after)];
    if (kase.expect === 'sdk') {
      expect(texts.some((text) => text.includes('@modelcontextprotocol/sdk/server/index.js'))).toBe(true);
      // the stdin loop went with the rewrite
      for (const text of texts) expect(text).not.toMatch(/process\.stdin\.on\(|createInterface\(/);
    } else if (kase.expect === 'boundary') {
      // the server's own code stays; its streams are the boundary's (in the entry, or in the module of the
      // program that reads and writes them), whose module goes beside the first that uses it
      expect(texts.some((text) => text.includes('createBoundary('))).toBe(true);
      for (const text of texts) expect(text).not.toMatch(/\bprocess\.std(in|out)\b/);
      expect(result.companions?.map((c) => c.content.startsWith('// mcp-boundary:'))).toEqual([true]);
    } else {
      expect(result.after).toContain('createEnvelope(');
      expect(result.companions?.length).toBe(1);
    }
  });
});

describe('what a shape keeps or drops', () => {
  it('a CLI that loads its server on demand (`await import()` in its `mcp` command) keeps its own stdout: the entry is unchanged, the guard goes into the serving module', () => {
    const { result } = migrate('subcommand-dynamic-import', 'v2');
    expect(result.decision).toMatchObject({ kind: 'sdk', sdk: 'v2' });
    // `textkit count` still prints its count on stdout
    expect(result.after).toBeUndefined();
    const mcp = result.related?.find((r) => r.path.endsWith('mcp.cjs'));
    expect(mcp?.after).toContain('console.log = console.info = console.debug = console.error;');
    expect(mcp?.after).toContain("const { serveStdio } = require('@modelcontextprotocol/server/stdio');");
    expect(result.decision.kind === 'sdk' && result.decision.notes).toContain('stdout guard added: console.log/info/debug (a dependency\'s logger too) write to stderr once the module that serves is loaded (the entry loads it on demand)');
  });

  it('v2: a dispatcher in another module than the SDK server throws ProtocolError, imported there too', () => {
    const { result } = migrate('exported-writer-module', 'v2');
    expect(result.decision).toMatchObject({ kind: 'sdk', sdk: 'v2' });
    // the entry holds the dispatch and its error replies; the wire module creates the server
    expect(result.after).toContain("const { ProtocolError } = require('@modelcontextprotocol/server');");
    expect(result.after).toContain('throw new ProtocolError(-32602, `Unknown tool: ${params.name}`);');
    const wire = result.related?.find((r) => r.path.endsWith('wire.js'));
    expect(wire?.after).toContain("const { ProtocolError, Server } = require('@modelcontextprotocol/server');");
  });

  it('a writer only `exports.write = write` still names goes with that line, though its name is a word in strings and a member of process.stderr', () => {
    const { result } = migrate('exported-writer-module');
    const wire = result.related?.find((r) => r.path.endsWith('wire.js'));
    expect(wire?.after).toBeDefined();
    expect(wire!.after).not.toMatch(/function write\(|exports\.write|process\.stdout/);
    expect(wire!.after).toContain('exports.serve = serve;');
    expect(result.after).toContain("const { serve } = require('./wire.js');");
  });

  it('a message handed on by emit() reaches the listeners: the methods are known, and the SDK goes at the boundary since emit() drops their returns', () => {
    const { result } = migrate('emitter-transport');
    expect(result.detected).toContain('3 methods: initialize, tools/list, tools/call');
    expect(result.decision).toMatchObject({ kind: 'boundary', reason: 'REPLY_IN_CALLBACK' });
    expect(result.diagnostics.map((d) => d.message)).toContain('the function that answers runs as an event listener: emit() does not return what it returns');
    expect(result.after).not.toContain("this.emit('request', request)");
  });

  it('lines yielded by an async generator over stdin arrive in the loop over it: that loop is replaced, the generator goes', () => {
    const { result } = migrate('async-generator-lines');
    expect(result.detected).toContain('for await over a generator of stdin lines, writes via stdout.write, 3 methods');
    expect(result.after).not.toContain('async function* readLines');
    expect(result.after).not.toContain('for await (const chunk of stream)');
    expect(result.after).not.toContain('for await (const line of readLines(process.stdin)) {');
  });

  it('an arrow that builds an error reply `=> ({ ... })` becomes a block that throws; one that builds a result returns it', () => {
    const { result } = migrate('arrow-reply-builders');
    expect(result.after).toContain('const fail = (id, code, message) => { throw Object.assign(new Error(message), { code }); };');
    expect(result.after).toContain('const ok = (id, result) => result;');
  });

  it('a class writer method nothing calls any more goes, though a global has a member of its name (process.stderr.write)', () => {
    const { result } = migrate('class-writer-module');
    const channel = result.related?.find((r) => r.path.endsWith('channel.mjs'));
    expect(channel?.after).toBeDefined();
    expect(channel!.after).not.toMatch(/\bwrite\(message\)|this\.output\.write/);
    expect(result.after).toContain("process.stderr.write('tally-counter: ready\\n');");
  });

  it('a jsonrpc guard before the dispatch goes (the SDK validates the envelope)', () => {
    const { result } = migrate('jsonrpc-guard-log');
    expect(result.after).not.toContain("msg.jsonrpc !== '2.0'");
    // the log line before it stays, on stderr as it was
    expect(result.after).toContain('console.error(`[netcalc] <- ${msg.method}');
  });

  it('a catch around the inline dispatch that answered a parse error rethrows instead (assigned-response)', () => {
    const { result } = migrate('assigned-response');
    // the one -32700 left is the transport's own, for lines that are not JSON
    expect(result.after!.match(/'Parse error'/g)).toHaveLength(1);
    expect(result.after).toContain('transport.onerror');
    expect(result.after).toContain('const handleMessage = async (msg) => {');
    expect(result.after).not.toContain('let response;');
  });

  it('a writer that builds the envelope conditionally goes, its callers return their results (send-response-conditional-envelope)', () => {
    const { result } = migrate('send-response-conditional-envelope');
    expect(result.after).not.toContain('function sendResponse(');
    expect(result.after).toContain("return { content: [{ type: 'text', text: String(d) }] };");
    expect(result.after).toContain("throw Object.assign(new Error(`Unknown tool: ${name}`), { code: -32602 });");
  });

  it('an instance method called by the loop is registered as the loop called it (class-handle-request-returns)', () => {
    const { result } = migrate('class-handle-request-returns');
    expect(result.after).toContain('server.handleRequest({ ...request, id: extra.requestId })');
    // the SDK server takes a free name, the instance keeps `server`
    expect(result.after).toContain('const mcpServer = new Server(');
  });

  it('an error object a handler returned is thrown with its own code, message and data (error-sentinel-values)', () => {
    const { result } = migrate('error-sentinel-values');
    expect(result.after).toContain('throw Object.assign(new Error(failure.message), failure);');
    expect(result.after).not.toContain('new Error(failure)');
    // the handlers' sentinels are untouched: they are what is thrown
    expect(result.after).toContain("return { error: { code: -32004, message: `No book with ISBN ${isbn}`, data: { isbn } } };");
  });

  it('the message handed to a serializer and a TextEncoder is followed; writer, serializer and encoder go (serializer-bytes-writer)', () => {
    const { result } = migrate('serializer-bytes-writer');
    expect(result.after).not.toMatch(/function toLine|function transmit|new TextEncoder|require\('fs'\)/);
    expect(result.after).toContain("throw Object.assign(new Error('cents must be an integer'), { code: -32602 });");
    expect(result.after).toContain('return { tools: TOOLS };');
  });

  it('private writer methods and the private stdout field go; the SDK Server is imported under another name beside the class Server (private-writer-methods)', () => {
    const { result } = migrate('private-writer-methods');
    // (the header comment names them; the code does not)
    expect(result.after).not.toMatch(/#write\(|#reply\(|#fail\(|#out =|this\.#out|process\.stdout/);
    expect(result.after).toContain("import { Server as SdkServer } from '@modelcontextprotocol/sdk/server/index.js';");
    expect(result.after).toContain('const server = new SdkServer(');
    expect(result.after).toContain('class Server {');
    expect(result.after).toContain("throw Object.assign(new Error('f must be a number'), { code: -32602 });");
  });

  it('a writer that traces to stderr goes with its logger method; the header names the trace it drops (traced-writer-helper)', () => {
    const { result } = migrate('traced-writer-helper');
    expect(result.after).not.toMatch(/function emit\(|fs\.writeSync\(|const respond|const fail/);
    expect(result.dropped).toEqual(["line 22: `log.debug('out', text.length, 'bytes')`, logging in the writer emit: the SDK writes the replies itself, and the writer goes"]);
  });

  it('level methods installed on a prototype in a loop only log: their calls in initialize and notifications/initialized are dropped and named (prototype-level-logger)', () => {
    const { result } = migrate('prototype-level-logger');
    expect(result.dropped?.map((d) => d.split(',')[0])).toEqual(["line 43: `log.debug('client'", "line 47: `log.info('client ready')`"]);
    // the loop that installs them stays: tools/call still logs through log.warn
    expect(result.after).toContain('Log.prototype[level] = function (...args) {');
    expect(result.after).toContain("log.warn('bad sides', sides);");
  });

  it('a registry filled by a loop over a constant object keeps its loop; the initialize entry goes (registry-filled-by-loop)', () => {
    const { result } = migrate('registry-filled-by-loop');
    expect(result.after).toContain('for (const [method, handler] of Object.entries(ROUTES)) {');
    expect(result.after).toContain("const ROUTES = {\n  'tools/list': listTools,");
    expect(result.after).toContain('server.setRequestHandler(CallToolRequestSchema, handleMessage);');
  });

  it('a dispatcher in another module is imported where the loop was (split-dispatch-module)', () => {
    const { result } = migrate('split-dispatch-module');
    expect(result.after).toContain("import { dispatch } from './lib/dispatch.js';");
    // its notification guard (`if (id === undefined) return null`) went, so it needs no id: handed over as it is
    expect(result.after).toContain('server.setRequestHandler(CallToolRequestSchema, dispatch);');
    expect(result.related?.map((r) => r.path.split('/').pop())).toEqual(['dispatch.js']);
  });
});

describe('error objects handed to a reply callback', () => {
  const source = `const readline = require('readline');
function write(msg) { process.stdout.write(JSON.stringify(msg) + '\\n'); }
function replyTo(id) {
  return (err, result) => {
    if (err) write({ jsonrpc: '2.0', id, error: { code: err.code ?? -32603, message: err.message } });
    else write({ jsonrpc: '2.0', id, result });
  };
}
function dispatch(msg, reply) {
  const method = msg.method;
  if (method === 'initialize') {
    reply(null, { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'r', version: '1' } });
  } else if (method === 'tools/list') {
    reply(null, { tools: [] });
  } else if (method === 'tools/call') {
    try {
      const text = run(msg.params);
      reply(null, { content: [{ type: 'text', text }] });
    } catch (err) {
      reply({ code: err.code ?? -32603, message: err.message });
    }
  } else {
    reply({ code: -32601, message: 'Method not found' });
  }
}
function run(params) {
  if (!params.name) throw Object.assign(new Error('no name'), { code: -32602 });
  return String(params.name);
}
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  dispatch(msg, replyTo(msg.id));
});
`;

  it('are thrown with their own fields: a literal code as it is, a fallback the writer repeats once', () => {
    const result = processSource('/pkg/server.js', source, { sdk: 'v2', style: 'server' }, () => null);
    expect(result.decision).toMatchObject({ kind: 'sdk' });
    expect((result.decision as { notes: string[] }).notes.at(-1)).toMatch(/^era: a client pinned to 2026-07-28 /);
    expect(result.after).toContain("throw new ProtocolError(-32601, 'Method not found');");
    expect(result.after).toContain('throw new ProtocolError(err.code ?? -32603, err.message);');
    expect(result.after).not.toMatch(/\}\.code|\?\? -32603\) \?\?|-32601 \?\?/);
    // the reply channel is spent: the dispatcher is called with the request alone, and the factory and writer go
    expect(result.after).toContain('dispatch(request)');
    expect(result.after).not.toMatch(/function replyTo|function write/);
  });

  it('a channel still used where the rewrite keeps a reply (a catch it leaves: nothing there throws) is passed on as it was', () => {
    const kept = source.replace("  if (!params.name) throw Object.assign(new Error('no name'), { code: -32602 });\n", '');
    const result = processSource('/pkg/server.js', kept, { sdk: 'v2', style: 'server' }, () => null);
    const after = result.after ?? '';
    // whichever form it gets, a `reply(...)` left in the code still receives its callback
    expect(after).toContain("reply({ code: err.code ?? -32603, message: err.message });");
    expect(after).toMatch(/dispatch\((?:msg|request), replyTo\((?:msg|request)\.id\)\)/);
  });
});
