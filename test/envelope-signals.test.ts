// Detection of the envelope reasons: table-driven, one small server shape per row.
import { describe, expect, it } from 'vitest';
import { findEnvelopeReason } from '../src/detect/envelope-signals.js';
import { parseSource } from '../src/parse.js';
import { ENVELOPE_REASONS, getEnvelopeMarker, isEnvelopeReason } from '../src/model/envelope-reasons.js';

/** A hand-rolled ndjson server around a dispatch snippet. */
function server(dispatch: string, extra = ''): string {
  return [
    "const readline = require('readline');",
    extra,
    'function send(msg) {',
    "  process.stdout.write(JSON.stringify(msg) + '\\n');",
    '}',
    "readline.createInterface({ input: process.stdin }).on('line', (line) => {",
    '  const msg = JSON.parse(line);',
    dispatch,
    '});',
    '',
  ].join('\n');
}

function detect(source: string, path = 'server.js'): ReturnType<typeof findEnvelopeReason> {
  return findEnvelopeReason(parseSource(path, source), source);
}

describe('findEnvelopeReason', () => {
  it.each([
    // [what, source, expected reason or null]
    ['a plain switch on the method', server("  switch (msg.method) { case 'ping': send({ jsonrpc: '2.0', id: msg.id, result: {} }); }"), null],
    ['a plain handler map lookup', server('  const h = handlers[msg.method];\n  if (h) send({ jsonrpc: "2.0", id: msg.id, result: h(msg.params) });', 'const handlers = {};'), null],
    ['a lookup by a destructured method', server('  const { method } = msg;\n  handlers[method](msg.params);', 'const handlers = {};'), null],
    ['a lookup with a fallback', server("  (handlers[msg.method] || handlers['default'])(msg);", 'const handlers = {};'), null],
    ['this[`on` + camel(method)]', server("  const handler = this['on' + camel(String(msg.method))];\n  handler.call(this, msg.params);"), 'COMPUTED_DISPATCH'],
    ['handlers[method.toLowerCase()] called directly', server('  handlers[msg.method.toLowerCase()](msg.params);', 'const handlers = {};'), 'COMPUTED_DISPATCH'],
    ['a key variable built from the method', server('  const key = `handle_${msg.method}`;\n  const fn = api[key];\n  send({ id: msg.id, result: fn() });', 'const api = {};'), 'COMPUTED_DISPATCH'],
    ['a per-method counter is not dispatch', server('  counts[msg.method.toLowerCase()] = 1;\n  send({ id: msg.id, result: {} });', 'const counts = {};'), null],
    ['tools from Object.entries(require(...)) filtered', server('  send({ id: msg.id, result: { tools } });', "const tools = Object.entries(require('./lib/tools')).filter(([, t]) => t.run);"), 'UNFOLLOWABLE_TOOL_LIST'],
    ['tools from a required module variable', server('  send({ id: msg.id, result: { tools: Object.keys(mod) } });', "const mod = require('./tools');"), 'UNFOLLOWABLE_TOOL_LIST'],
    ['tools from a JSON file are data, followable', server('  send({ id: msg.id, result: { tools: Object.values(defs) } });', "const defs = require('./tools.json');"), null],
    ['tools from an object literal are followable', server('  send({ id: msg.id, result: { tools: Object.entries(table) } });', 'const table = { a: {} };'), null],
    ['tools required from computed paths', server('  send({ id: msg.id, result: {} });', "const all = files.map((f) => require(path.join(dir, f)));"), 'UNFOLLOWABLE_TOOL_LIST'],
    ['two replies in one branch', server("  send({ jsonrpc: '2.0', method: 'notifications/progress', params: {} });\n  send({ jsonrpc: '2.0', id: msg.id, result: {} });"), 'MULTIPLE_WRITES_PER_REQUEST'],
    ['one reply per branch', server("  if (msg.id) send({ id: msg.id, result: {} });\n  else { send({ id: null, error: 'x' }); }"), null],
    ['an HTTP Content-Length header is not framing', server("  res.setHeader('Content-Length', 3);\n  send({ id: msg.id, result: {} });"), null],
  ])('%s', (_what, source, expected) => {
    expect(detect(source)?.reason ?? null).toBe(expected);
  });

  it('finds Content-Length framing from the header it writes and the regex that reads it, before anything else', () => {
    const source = [
      "'use strict';",
      'function writeMessage(m) {',
      '  const body = JSON.stringify(m);',
      '  process.stdout.write(`Content-Length: ${Buffer.byteLength(body)}\\r\\n\\r\\n${body}`);',
      '}',
      "process.stdin.on('data', (c) => {",
      '  const match = /Content-Length: (\\d+)/i.exec(String(c));',
      "  const handler = this['on' + msg.method.replace('/', '')];",
      '});',
    ].join('\n');
    expect(detect(source)).toEqual({
      reason: 'CONTENT_LENGTH_FRAMING',
      line: 4,
      detail: 'messages are framed with Content-Length headers (header written at line 4, read at line 7), which the SDK stdio transport does not speak',
    });
  });

  it('reports a Content-Length reader even when the writer is elsewhere', () => {
    const source = "const re = /^content-length:\\s*(\\d+)/im;\nprocess.stdin.on('data', (c) => re.exec(c));\n";
    expect(detect(source)).toMatchObject({ reason: 'CONTENT_LENGTH_FRAMING', line: 1 });
  });

  it('says where and what the computed lookup is', () => {
    const signal = detect(server("  const handler = this['on' + camel(String(msg.method))];\n  handler.call(this, msg.params);"));
    expect(signal).toEqual({
      reason: 'COMPUTED_DISPATCH',
      line: 8,
      detail: "handlers are looked up by a computed name: this['on' + camel(String(msg.method))] (line 8)",
    });
  });

  it('reads TypeScript and ESM namespace imports', () => {
    const source = [
      "import * as tools from './tools.js';",
      "import { createInterface } from 'node:readline';",
      'const list = Object.entries(tools).map(([name]) => ({ name }));',
      "createInterface({ input: process.stdin }).on('line', (line: string) => {",
      '  const msg = JSON.parse(line) as { id: number; method: string };',
      "  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { tools: list } }) + '\\n');",
      '});',
    ].join('\n');
    expect(detect(source, 'server.ts')).toMatchObject({ reason: 'UNFOLLOWABLE_TOOL_LIST', line: 3 });
  });
});

describe('ENVELOPE_REASONS', () => {
  it('has a one-line hint per reason, usable in the marker comment', () => {
    expect(Object.keys(ENVELOPE_REASONS).sort()).toEqual(['COMPUTED_DISPATCH', 'CONTENT_LENGTH_FRAMING', 'MULTIPLE_WRITES_PER_REQUEST', 'UNFOLLOWABLE_TOOL_LIST']);
    for (const [code, { hint }] of Object.entries(ENVELOPE_REASONS)) {
      expect(hint).not.toMatch(/\n| -- /);
      expect(hint).toMatch(/to get the SDK rewrite$/);
      expect(isEnvelopeReason(code)).toBe(true);
    }
    expect(isEnvelopeReason('toString')).toBe(false);
    expect(getEnvelopeMarker('COMPUTED_DISPATCH')).toMatch(/^\/\/ mcp-migrate: envelope \(COMPUTED_DISPATCH\) -- handlers are looked up/);
  });
});
