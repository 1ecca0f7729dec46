// Messages followed through object plumbing and promise chains: a promise queue that serialises the
// lines, an outbox flushed to stdout with 'drain' backpressure, a factory that returns the handler
// object, a wrapper that hands the message on by name. Each server is written here for its shape.
import { describe, expect, it } from 'vitest';
import { buildFacts } from '../src/analysis/facts.js';
import { detectServer, type Detection } from '../src/detect/server.js';
import { parseSource } from '../src/parse.js';
import { processSource } from '../src/pipeline.js';

function detect(source: string, path = 'server.js'): Detection {
  return detectServer(buildFacts(path, source, parseSource(path, source), null));
}

function blockers(source: string): string[] {
  const d = detect(source);
  if (d.kind !== 'server') throw new Error(`not a server: ${d.kind}`);
  return d.model.blockers.map((b) => b.code);
}

const INIT = `{ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'q', version: '1' } }`;

// a readline server whose 'line' handler chains every line onto `queue`; `body` is the tools/call branch
const queued = (body: string, top = '', link = '.catch((e) => console.error(e))'): string => `const readline = require('readline');
${top}
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
async function work(x) { return x; }
async function handle(line) {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return;
  if (msg.method === 'initialize') { send({ jsonrpc: '2.0', id: msg.id, result: ${INIT} }); return; }
  if (msg.method === 'tools/list') { send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } }); return; }
  if (msg.method === 'tools/call') {
${body}
    return;
  }
  send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
}
let queue = Promise.resolve();
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => { queue = queue.then(() => handle(line))${link}; });
`;

describe('a promise queue', () => {
  it('runs the callback chained onto it with the line: the server is seen (it was "Nothing to migrate")', () => {
    const d = detect(queued(`    send({ jsonrpc: '2.0', id: msg.id, result: { content: [] } });`));
    expect(d.kind).toBe('server');
    if (d.kind !== 'server') return;
    expect(d.model.blockers).toEqual([]);
    expect(d.model.sdk!.registrations).toEqual(['tools/list', 'tools/call']);
  });

  it('is followed without a .catch at the end of the chain too', () => {
    expect(blockers(queued(`    send({ jsonrpc: '2.0', id: msg.id, result: { content: [] } });`, '', ''))).toEqual([]);
  });

  it('keeps the SDK rewrite when the handlers await but change no shared state', () => {
    expect(blockers(queued(`    const text = await work(msg.params.name);
    send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text }] } });`))).toEqual([]);
  });

  it('keeps the SDK rewrite when shared state changes but nothing awaits', () => {
    expect(blockers(queued(`    calls++;
    send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: String(calls) }] } });`, 'let calls = 0;'))).toEqual([]);
  });

  it.each([
    ['a counter', 'let calls = 0;', 'calls++;'],
    ['a member of a module object', 'const stats = { calls: 0 };', 'stats.calls += 1;'],
    ['a push onto a module array', 'const seen = [];', 'seen.push(msg.params.name);'],
  ])('moves to the SDK with its handlers run one at a time when they change shared state (%s) and await with code after it', (_, top, change) => {
    const source = queued(`    ${change}
    const text = await work(msg.params.name);
    send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text }] } });`, top);
    expect(blockers(source)).toEqual([]);
    const d = detect(source);
    expect(d.kind === 'server' && d.model.sdk?.oneAtATime).toBe(true);
    const result = processSource('server.js', source, { sdk: 'v1', style: 'server' });
    expect(result.decision).toMatchObject({ kind: 'sdk' });
    // every handler goes through the one queue: none runs before the one ahead of it is done
    expect(result.after).toContain('const run = handling.then(() => handler(...args));');
    expect(result.after).toMatch(/setRequestHandler\(ListToolsRequestSchema, oneAtATime\(/);
    expect(result.after).toMatch(/setRequestHandler\(CallToolRequestSchema, oneAtATime\(/);
  });

  it('keeps the handlers concurrent (no queue in the output) when nothing shared changes across an await', () => {
    const result = processSource('server.js', queued(`    const text = await work(msg.params.name);
    send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text }] } });`), { sdk: 'v1', style: 'server' });
    expect(result.decision).toMatchObject({ kind: 'sdk' });
    expect(result.after).not.toContain('oneAtATime');
  });

  it('is followed when it is a field of the server class (this.work = this.work.then(...))', () => {
    const source = `const readline = require('readline');
class Server {
  constructor() { this.work = Promise.resolve(); }
  send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
  handle(line) {
    const msg = JSON.parse(line);
    if (msg.id === undefined) return;
    if (msg.method === 'initialize') this.send({ jsonrpc: '2.0', id: msg.id, result: ${INIT} });
    else if (msg.method === 'tools/list') this.send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
    else this.send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
  }
  start() {
    readline.createInterface({ input: process.stdin }).on('line', (line) => { this.work = this.work.then(() => this.handle(line)); });
  }
}
new Server().start();
`;
    expect(blockers(source)).toEqual([]);
  });

  it('is not a queue when the binding is also assigned something else: the callback is not followed', () => {
    const source = queued(`    send({ jsonrpc: '2.0', id: msg.id, result: { content: [] } });`).replace('let queue = Promise.resolve();', "let queue = Promise.resolve();\nprocess.on('SIGHUP', () => { queue = null; });");
    const d = detect(source);
    expect(d.kind === 'server' && d.model.sdk !== null).toBe(false);
  });
});

describe('an outbox flushed with drain backpressure', () => {
  const outbox = (flush: string, extra = ''): string => `const { once } = require('events');
const outbox = [];
let busy = false;
${flush}
function send(m) { outbox.push(JSON.stringify(m) + '\\n'); flush(); }
${extra}
process.stdin.on('data', (chunk) => {
  for (const line of String(chunk).split('\\n')) {
    if (!line) continue;
    const msg = JSON.parse(line);
    if (msg.id === undefined) continue;
    if (msg.method === 'initialize') send({ jsonrpc: '2.0', id: msg.id, result: ${INIT} });
    else if (msg.method === 'tools/list') send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
    else send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
  }
});
`;
  const awaitDrain = `async function flush() {
  if (busy) return;
  busy = true;
  try {
    while (outbox.length) { if (!process.stdout.write(outbox.shift())) await once(process.stdout, 'drain'); }
  } finally { busy = false; }
}`;
  const onceDrain = `function flush() {
  if (busy) return;
  while (outbox.length > 0) {
    const chunk = outbox.shift();
    if (!process.stdout.write(chunk)) { busy = true; process.stdout.once('drain', () => { busy = false; flush(); }); return; }
  }
}`;

  it.each([
    ['await once(stdout, drain)', awaitDrain],
    ["stdout.once('drain', ...) and the item held in a const", onceDrain],
  ])('writes what is pushed (%s): the SDK rewrite, outbox and flush removed', (_, flush) => {
    const source = outbox(flush);
    expect(blockers(source)).toEqual([]);
    const result = processSource('server.js', source, { sdk: 'v1', style: 'server' });
    expect(result.decision.kind).toBe('sdk');
    expect(result.after).not.toMatch(/outbox|process\.stdout\.write|function flush/);
  });

  it('a flush called by the dispatcher after a push written inline goes with it: nothing is queued any more', () => {
    // no send() helper: the dispatcher pushes the reply it built and calls the flush itself
    const source = outbox(onceDrain)
      .replace("function send(m) { outbox.push(JSON.stringify(m) + '\\n'); flush(); }", '')
      .replace(/send\((\{[^\n]*\})\);/g, 'reply = $1;')
      .replace("    if (msg.id === undefined) continue;", "    if (msg.id === undefined) continue;\n    let reply;")
      .replace("  }\n});", "    if (reply !== undefined) {\n      outbox.push(JSON.stringify(reply) + '\\n');\n      flush();\n    }\n  }\n});");
    expect(source).toContain("outbox.push(JSON.stringify(reply) + '\\n');\n      flush();");
    expect(source).not.toContain('send(');
    const result = processSource('server.js', source, { sdk: 'v1', style: 'server' });
    expect(result.decision.kind, JSON.stringify(result.diagnostics)).toBe('sdk');
    expect(result.after).not.toMatch(/outbox|process\.stdout\.write|flush/);
  });

  it('is not an outbox when its items are read elsewhere too (a status tool lists them): the push is no write', () => {
    const source = outbox(awaitDrain, 'function pending() { return outbox.slice(); }');
    const d = detect(source);
    expect(d.kind === 'server' && d.model.sdk !== null).toBe(false);
  });

  it('is not an outbox when the flush also does other work: the push is no write', () => {
    const source = outbox(awaitDrain.replace('busy = true;', 'busy = true; audit();'), 'function audit() {}');
    const d = detect(source);
    expect(d.kind === 'server' && d.model.sdk !== null).toBe(false);
  });
});

describe('object plumbing', () => {
  const factory = (make: string, call: string): string => `const readline = require('readline');
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
${make}
const app = createApp();
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  ${call};
});
`;
  const dispatch = `function dispatch(msg) {
    if (msg.id === undefined) return;
    if (msg.method === 'initialize') send({ jsonrpc: '2.0', id: msg.id, result: ${INIT} });
    else if (msg.method === 'tools/list') send({ jsonrpc: '2.0', id: msg.id, result: { tools } });
    else send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
  }`;

  it.each([
    ['{ handle: dispatch }', `function createApp() {\n  const tools = [];\n  ${dispatch}\n  return { handle: dispatch };\n}`, 'app.handle(msg)'],
    ['{ dispatch } (shorthand)', `function createApp() {\n  const tools = [];\n  ${dispatch}\n  return { dispatch };\n}`, 'app.dispatch(msg)'],
  ])('a factory returning %s: app.handle(msg) calls the closure, and the SDK registers it as called', (_, make, call) => {
    const source = factory(make, call);
    expect(blockers(source)).toEqual([]);
    const result = processSource('server.js', source, { sdk: 'v1', style: 'server' });
    expect(result.decision.kind).toBe('sdk');
    expect(result.after).toContain(`server.setRequestHandler(ListToolsRequestSchema, ${call.replace('(msg)', '')})`);
  });

  it('a function that runs code before it returns the object is no factory: its result is not known', () => {
    const source = factory(`function createApp() {\n  const tools = [];\n  console.error('starting');\n  ${dispatch}\n  return { handle: dispatch };\n}`, 'app.handle(msg)');
    const d = detect(source);
    expect(d.kind === 'server' && d.model.sdk !== null).toBe(false);
  });

  it('a message handed on by name through a reader kept in a property (its listener a wrapper method) reaches the dispatcher', () => {
    const source = `const readline = require('readline');
const { EventEmitter } = require('events');
class Reader extends EventEmitter {
  constructor(input) { super(); this.input = input; }
  start() { readline.createInterface({ input: this.input }).on('line', (line) => this.emit('message', JSON.parse(line))); }
}
class App {
  constructor() { this.reader = new Reader(process.stdin); }
  run() { this.reader.on('message', (m) => this.receive(m)); this.reader.start(); }
  receive(msg) { this.dispatch(msg); }
  dispatch(msg) {
    if (msg.id === undefined) return;
    if (msg.method === 'initialize') this.send({ jsonrpc: '2.0', id: msg.id, result: ${INIT} });
    else if (msg.method === 'tools/list') this.send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
    else this.send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
  }
  send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
}
new App().run();
`;
    const result = processSource('server.js', source, { sdk: 'v1', style: 'server' });
    expect(result.decision.kind, JSON.stringify(result.diagnostics)).toBe('sdk');
    // the wrapper that hands the message on is the outermost function holding every reply: it is registered, and returns;
    // dispatch() still tests msg.id (its notification guard stays), so the registration hands it the request id
    // (it did not: every request then looked like a notification and got no result)
    expect(result.after).toContain('server.setRequestHandler(ListToolsRequestSchema, (request, extra) => this.receive({ ...request, id: extra.requestId }));');
    expect(result.after).toContain('if (msg.id === undefined) return;');
    expect(result.after).toContain('receive(msg) { return this.dispatch(msg); }');
    expect(result.after).not.toContain('createInterface');
  });
});

describe('a factory whose handlers live in a Map it fills', () => {
  // `fill` is what the factory does with its Map before returning the router
  const factory = (fill: string): string => `const readline = require('readline');
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
function makeRouter() {
  function onInit(msg) { send({ jsonrpc: '2.0', id: msg.id, result: ${INIT} }); }
  function onList(msg) { send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } }); }
  const routes = new Map();
${fill}
  function route(msg) {
    const fn = routes.get(msg.method);
    if (fn) return fn(msg);
    if (msg.id !== undefined) send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
  }
  return { route };
}
const router = makeRouter();
readline.createInterface({ input: process.stdin }).on('line', (line) => router.route(JSON.parse(line)));
`;

  it('with set() statements of its body: the Map is the dispatch and the server moves to the SDK', () => {
    const source = factory("  routes.set('initialize', onInit);\n  routes.set('tools/list', onList);");
    expect(blockers(source)).toEqual([]);
    const d = detect(source);
    expect(d.kind === 'server' && d.model.sdk?.registrations).toEqual(['tools/list']);
    expect(processSource('server.js', source, { sdk: 'v1', style: 'server' }).decision).toMatchObject({ kind: 'sdk' });
  });

  it('a set() that runs only sometimes (inside an if) leaves the Map unknown: no dispatch is guessed', () => {
    const source = factory("  routes.set('initialize', onInit);\n  if (process.env.LIST) routes.set('tools/list', onList);");
    expect(processSource('server.js', source, { sdk: 'v1', style: 'server' }).decision).not.toMatchObject({ kind: 'sdk' });
  });
});

describe('a queue whose callback hands the message to an async handler without waiting for it', () => {
  // the queue runs parse-and-emit one at a time; `onMessage` is async and its promise is dropped, so
  // the original already runs the handlers concurrently past their first await
  const source = `const readline = require('readline');
let calls = 0;
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
async function work(x) { return x; }
class Peer {
  handleIncoming(msg) {
    this.onMessage(msg);
  }
  async onMessage(msg) {
    const { id, method } = msg;
    if (id === undefined) return;
    if (method === 'initialize') return send({ jsonrpc: '2.0', id, result: ${INIT} });
    if (method === 'tools/list') return send({ jsonrpc: '2.0', id, result: { tools: [] } });
    if (method === 'tools/call') {
      calls++;
      const text = await work(String(calls));
      return send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
    }
    send({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
  }
  start() {
    let queue = Promise.resolve();
    readline.createInterface({ input: process.stdin }).on('line', (line) => {
      queue = queue.then(() => this.handleIncoming(JSON.parse(line)));
    });
  }
}
new Peer().start();
`;

  it('keeps the handlers concurrent (no oneAtATime) and hands them the request id the handler reads', () => {
    const result = processSource('server.js', source, { sdk: 'v1', style: 'server' });
    expect(result.decision).toMatchObject({ kind: 'sdk' });
    expect(result.after).not.toContain('oneAtATime');
    // handleIncoming passes the whole message on: onMessage reads its id, so the registration supplies it
    expect(result.after).toMatch(/setRequestHandler\(CallToolRequestSchema, \(request, extra\) => this\.handleIncoming\(\{ \.\.\.request, id: extra\.requestId \}\)\)/);
  });
});

