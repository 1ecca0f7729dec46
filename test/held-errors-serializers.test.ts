// Two ways a reply reaches the wire that the SDK rewrite must follow exactly:
// - an error object held in a variable (`error: outcome.error`, a sentinel a handler returned): thrown
//   with its own code, message and data, never re-wrapped as a message with a guessed code;
// - a serializer helper (`write(encode(msg))`, `fs.writeSync(1, new TextEncoder().encode(...))`): the
//   message handed to it is what is written, and the helper goes with the writer.
import { describe, expect, it } from 'vitest';
import { processSource } from '../src/pipeline.js';

const migrate = (source: string, sdk: 'v1' | 'v2' = 'v1', path = 'server.js') => processSource(path, source, { sdk, style: 'server' }, () => null);

// a line loop over stdin that hands each parsed message to handle()
const LOOP = `
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  handle(msg);
});
`;
const INIT = `{ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'probe', version: '1.0.0' } }`;
const WRITE = `function write(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }\n`;

describe('an error object held in a variable', () => {
  // handlers answer with `{ result }` or `{ error }`; one dispatcher writes whichever it got
  const sentinelServer = (route: string) => `${WRITE}${route}
function handle(msg) {
  if (msg.id === undefined) return;
  const outcome = route(msg.method, msg.params || {});
  if (outcome.error) write({ jsonrpc: '2.0', id: msg.id, error: outcome.error });
  else write({ jsonrpc: '2.0', id: msg.id, result: outcome.result });
}
${LOOP}`;
  const knownRoute = `
const invalid = (detail) => ({ error: { code: -32602, message: 'Invalid arguments', data: { detail } } });
function route(method, params) {
  if (method === 'initialize') return { result: ${INIT} };
  if (method === 'tools/list') return { result: { tools: [] } };
  if (method === 'tools/call') {
    if (params.name !== 'echo') return { error: { code: -32004, message: 'No such tool', data: { name: params.name } } };
    if (typeof params.arguments?.text !== 'string') return invalid('text must be a string');
    return { result: { content: [{ type: 'text', text: params.arguments.text }] } };
  }
  return { error: { code: -32601, message: 'Method not found' } };
}`;

  it('is thrown with its own code, message and data (v1), not as the message of a new Error with a guessed code', () => {
    const result = migrate(sentinelServer(knownRoute));
    expect(result.decision.kind).toBe('sdk');
    expect(result.after).toContain('if (outcome.error) throw Object.assign(new Error(outcome.error.message), outcome.error);');
    expect(result.after).not.toMatch(/new Error\(outcome\.error\)/);
    expect(result.after).not.toContain('code: -32602 }');
    // what the SDK sends for it: the object's members as they are
    const outcome = { error: { code: -32004, message: 'No such tool', data: { name: 'x' } } };
    const thrown = Object.assign(new Error(outcome.error.message), outcome.error) as Error & { code: number; data: unknown };
    expect([thrown.code, thrown.message, thrown.data]).toEqual([-32004, 'No such tool', { name: 'x' }]);
  });

  it('becomes a ProtocolError with its code, message and data (v2)', () => {
    const result = migrate(sentinelServer(knownRoute), 'v2');
    expect(result.decision.kind).toBe('sdk');
    expect(result.after).toContain('throw new ProtocolError(outcome.error.code, outcome.error.message, outcome.error.data);');
    expect(result.after).toContain("const { ProtocolError, Server } = require('@modelcontextprotocol/server');");
  });

  // (a message string keeps the rule for bare messages on its own path: no code, so the SDK sends -32603)
  it('decides at run time where one path holds an object and another a message string', () => {
    const route = `
function route(method, params) {
  if (method === 'initialize') return { result: ${INIT} };
  if (method === 'tools/list') return { result: { tools: [] } };
  if (method === 'tools/call') {
    if (params.name === 'legacy') return { error: 'the legacy tool is switched off' };
    return { error: { code: -32004, message: 'No such tool' } };
  }
  return { error: { code: -32601, message: 'Method not found' } };
}`;
    const result = migrate(sentinelServer(route));
    expect(result.decision.kind).toBe('sdk');
    expect(result.after).toContain("if (outcome.error) throw typeof outcome.error === 'string' ? new Error(outcome.error) : Object.assign(new Error(outcome.error.message), outcome.error);");
  });

  it('decides at run time where the analysis cannot tell what the variable holds (a handler it does not follow)', () => {
    const source = `${WRITE}const handlers = require('./handlers.js');
function handle(msg) {
  if (msg.id === undefined) return;
  if (msg.method === 'initialize') return write({ jsonrpc: '2.0', id: msg.id, result: ${INIT} });
  if (msg.method === 'tools/list') return write({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
  if (msg.method === 'tools/call') {
    const r = handlers.call(msg.params.name, msg.params.arguments);
    if (r.failure) return write({ jsonrpc: '2.0', id: msg.id, error: r.failure });
    return write({ jsonrpc: '2.0', id: msg.id, result: r.value });
  }
  write({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
}
${LOOP}`;
    const result = migrate(source);
    expect(result.decision.kind).toBe('sdk');
    expect(result.after).toContain("if (r.failure) throw typeof r.failure === 'string' ? Object.assign(new Error(r.failure), { code: -32602 }) : Object.assign(new Error(r.failure.message), r.failure);");
  });

  it('throws an error object built where the reply is written once, its members copied onto the error', () => {
    // (a factory at the send site: `makeError` returns an object literal)
    const source = `${WRITE}const CODES = { InvalidParams: -32602, MethodNotFound: -32601 };
function makeError(code, message, data) { return { code, message, data }; }
function handle(msg) {
  if (msg.id === undefined) return;
  if (msg.method === 'initialize') return write({ jsonrpc: '2.0', id: msg.id, result: ${INIT} });
  if (msg.method === 'tools/list') return write({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
  if (msg.method === 'tools/call') return write({ jsonrpc: '2.0', id: msg.id, error: makeError(CODES.InvalidParams, 'no tools here', { name: msg.params.name }) });
  write({ jsonrpc: '2.0', id: msg.id, error: makeError(CODES.MethodNotFound, 'Method not found: ' + msg.method) });
}
${LOOP}`;
    const result = migrate(source);
    expect(result.decision).toMatchObject({ kind: 'sdk' });
    expect(result.after).toContain("if (msg.method === 'tools/call') throw Object.assign(new Error(), makeError(CODES.InvalidParams, 'no tools here', { name: msg.params.name }));");
    expect(result.after).toContain("throw Object.assign(new Error(), makeError(CODES.MethodNotFound, 'Method not found: ' + msg.method));");
  });

  it('falls back to the SDK at the boundary when the error computed where the reply is may be an object or a message (it would be read twice)', () => {
    const source = `${WRITE}const errors = require('./errors.js');
function handle(msg) {
  if (msg.id === undefined) return;
  if (msg.method === 'initialize') return write({ jsonrpc: '2.0', id: msg.id, result: ${INIT} });
  if (msg.method === 'tools/list') return write({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
  write({ jsonrpc: '2.0', id: msg.id, error: errors.lookup(msg.method) });
}
${LOOP}`;
    const result = migrate(source);
    expect(result.decision).toMatchObject({ kind: 'boundary', reason: 'UNRENDERABLE_REPLY' });
    expect(result.diagnostics.map((d) => d.message).join('\n')).toContain('the error `errors.lookup(msg.method)` is computed where the reply is written and may be an object or a message');
  });

  it('keeps a bare message string as it was: a message with the code for its case', () => {
    const source = `${WRITE}function handle(msg) {
  if (msg.id === undefined) return;
  if (msg.method === 'initialize') return write({ jsonrpc: '2.0', id: msg.id, result: ${INIT} });
  if (msg.method === 'tools/list') return write({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
  const reason = 'Method not found: ' + msg.method;
  write({ jsonrpc: '2.0', id: msg.id, error: reason });
}
${LOOP}`;
    const result = migrate(source);
    expect(result.decision.kind).toBe('sdk');
    expect(result.after).not.toContain('typeof reason');
    expect(result.after).toMatch(/throw Object\.assign\(new Error\(reason\), \{ code: -32601 \}\);|throw new Error\(reason\);/);
  });
});

describe('a reply written through a serializer helper', () => {
  const server = (writer: string, header = '') => `${header}${writer}
function handle(msg) {
  if (msg.id === undefined) return;
  if (msg.method === 'initialize') return send({ jsonrpc: '2.0', id: msg.id, result: ${INIT} });
  if (msg.method === 'tools/list') return send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
  send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
}
${LOOP}`;

  it.each([
    ['an arrow returning JSON.stringify(msg) + newline', `const encode = (message) => JSON.stringify(message) + '\\n';\nfunction send(m) { process.stdout.write(encode(m)); }\n`, /encode/],
    ['a function that builds the line in steps', "function toWire(message) {\n  const text = JSON.stringify(message);\n  return `${text}\\n`;\n}\nfunction send(m) { process.stdout.write(toWire(m)); }\n", /toWire/],
    ['TextEncoder bytes on fd 1', `const fs = require('fs');\nfunction send(m) { fs.writeSync(1, new TextEncoder().encode(JSON.stringify(m) + '\\n')); }\n`, /TextEncoder|writeSync/],
    ['a module-level TextEncoder and a serializer', `const fs = require('fs');\nconst bytes = new TextEncoder();\nconst line = (m) => JSON.stringify(m) + '\\n';\nfunction send(m) { fs.writeSync(1, bytes.encode(line(m))); }\n`, /TextEncoder|const line|writeSync/],
    ['Buffer.from of a serializer', `const frame = (m) => JSON.stringify(m) + '\\n';\nfunction send(m) { process.stdout.write(Buffer.from(frame(m), 'utf8')); }\n`, /frame/],
  ])('%s: the message is followed, the writer and the helper go', (_name, writer, gone) => {
    const result = migrate(server(writer));
    expect(result.decision.kind, JSON.stringify(result.diagnostics)).toBe('sdk');
    expect(result.after).toContain("throw Object.assign(new Error('Method not found'), { code: -32601 });");
    expect(result.after).toContain('return { tools: [] };');
    expect(result.after).not.toMatch(gone);
    expect(result.after).not.toContain('function send(');
    // running the tool on its output changes nothing
    expect(migrate(result.after!).after).toBeUndefined();
  });

  it('a helper that does more than serialize (it also counts what it sent) is not read as one: no reply is proven', () => {
    const writer = `let sent = 0;\nfunction encode(message) { sent += 1; return JSON.stringify(message) + '\\n'; }\nfunction send(m) { process.stdout.write(encode(m)); }\n`;
    const result = migrate(server(writer));
    expect(result.decision).toMatchObject({ kind: 'boundary', reason: 'NO_DISPATCH' });
  });

  it('a helper that returns an object holding the JSON text: its member is that text', () => {
    const writer = `function encode(message) { return { text: JSON.stringify(message) + '\\n' }; }\nfunction send(m) { process.stdout.write(encode(m).text); }\n`;
    const result = migrate(server(writer));
    expect(result.decision.kind).toBe('sdk');
    expect(result.after).not.toContain('function encode(');
  });

  it('a serializer that also logs is not read as one (its log line would go with the writer)', () => {
    const writer = `function encode(message) {\n  console.error('->', message.id);\n  return JSON.stringify(message) + '\\n';\n}\nfunction send(m) { process.stdout.write(encode(m)); }\n`;
    const result = migrate(server(writer));
    expect(result.decision).toMatchObject({ kind: 'boundary', reason: 'NO_DISPATCH' });
  });
});

describe('the message of a caught error written as the error', () => {
  // the bug on purpose: `error: err.message` (a string where JSON-RPC wants {code, message}); the code
  // the server gave the error it threw is what it meant, and the SDK answer carries it
  const server = `${WRITE}
const METHOD_NOT_FOUND = -32601;
function run(method) {
  if (method === 'initialize') return ${INIT};
  if (method === 'tools/list') return { tools: [] };
  if (method === 'tools/call') throw new Error('no tools here');
  throw Object.assign(new Error('Unsupported method ' + method), { code: METHOD_NOT_FOUND });
}
function handle(msg) {
  if (msg.id === undefined) return;
  try {
    write({ jsonrpc: '2.0', id: msg.id, result: run(msg.method) });
  } catch (err) {
    write({ jsonrpc: '2.0', id: msg.id, error: err.message });
  }
}
${LOOP}`;

  it('keeps the code the caught error carries, and otherwise the one the site would get', () => {
    const result = migrate(server);
    expect(result.decision.kind).toBe('sdk');
    // (the site's own code: -32602, MCP's for an unknown tool, as every tools/call fails here)
    const code = 'Number.isSafeInteger(err.code) ? err.code : -32602';
    const thrown = `Object.assign(new Error(err.message), { code: ${code} })`;
    expect(result.after).toContain(`throw ${thrown};`);
    // that expression run on each error the server throws (v1 sends a safe-integer code as it is)
    const build = new Function('err', `return ${thrown};`) as (err: Error) => Error & { code: unknown };
    expect([build(Object.assign(new Error('Unsupported method x'), { code: -32601 })).code, build(Object.assign(new Error('Unsupported method x'), { code: -32601 })).message]).toEqual([-32601, 'Unsupported method x']);
    expect(build(new Error('no tools here')).code).toBe(-32602);
    expect(build(Object.assign(new Error('disk'), { code: 'ENOENT' })).code).toBe(-32602);
  });

  it('and so through a helper that takes the message (`sendError(id, err.message)`)', () => {
    const throughHelper = server
      .replace("    write({ jsonrpc: '2.0', id: msg.id, error: err.message });", '    sendError(msg.id, err.message);')
      .replace('function handle(msg) {', "function sendError(id, message) {\n  write({ jsonrpc: '2.0', id, error: message });\n}\nfunction handle(msg) {");
    expect(throughHelper).toContain('sendError(msg.id, err.message)');
    const result = migrate(throughHelper);
    expect(result.decision.kind).toBe('sdk');
    expect(result.after).toContain('Number.isSafeInteger(err.code) ? err.code : -32602');
  });
});
