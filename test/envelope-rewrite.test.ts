// The envelope rewrite through the whole pipeline (processSource), on the small servers of
// test/fixtures/envelope that must take the envelope path. Each expected output is the original with
// the edits the rewrite is meant to make, spelled out below (so anything else it touched shows up as a
// difference): the marker and the helper import after the imports, every write to fd 1 through the
// envelope, the parse of incoming messages through the envelope, -32601 where an unknown method's
// handling ends; the companion helper requested next to the entry; a second run changes nothing.
// Each server but the Content-Length one would get the SDK at the boundary first: it is run as the chain
// runs it once the proof has refused the boundary (BOUNDARY_ANSWERS_DIFFERENTLY, the dispatch reason
// kept in the diagnostics).
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BlockerReason, type EnvelopeReason, getEnvelopeMarker, getHint } from '../src/model/reasons.js';
import type { FileResult } from '../src/model/types.js';
import { processSource } from '../src/pipeline.js';
import { buildHelperSource, type HelperKind } from '../src/rewrite/envelope/helper-source.js';
import { readModuleSync } from '../src/runner/read-module.js';

const FIXTURES = resolve('test/fixtures/envelope');

function migrate(file: string, source = readFileSync(join(FIXTURES, file), 'utf8'), read = readModuleSync): FileResult {
  return processSource(join(FIXTURES, file), source, { sdk: 'v1', style: 'server', refused: { boundary: 'answered worse (the test refuses it)' } }, read);
}

/** The envelope's own reason for a server whose dispatch gave `reason`: the framing, or the boundary refused. */
function envelopeReason(reason: BlockerReason): EnvelopeReason {
  return reason === 'CONTENT_LENGTH_FRAMING' ? reason : 'BOUNDARY_ANSWERS_DIFFERENTLY';
}

/** `source` with each `[before, after]` edit made; every `before` must occur exactly once. */
function edit(source: string, edits: [string, string][]): string {
  let text = source;
  for (const [before, after] of edits) {
    expect(text.split(before), `edit anchor ${JSON.stringify(before)}`).toHaveLength(2);
    text = text.replace(before, () => after);
  }
  return text;
}

/** The lines the rewrite inserts after the imports of a module. */
function helperLines(options: { marker?: BlockerReason; importLine: string; create: string }): string {
  return [...(options.marker ? [getEnvelopeMarker(envelopeReason(options.marker))] : []), options.importLine, options.create].join('\n');
}

const CREATE_NDJSON = "const envelope = createEnvelope({ framing: 'ndjson' });";

/** The edit that inserts the helper's lines right after `anchor` (the module's last import); the envelope is line-framed unless `create` says otherwise. */
function insertHelperAfter(anchor: string, options: { marker: BlockerReason; importLine: string; create?: string }): [string, string] {
  return [anchor, `${anchor}${helperLines({ create: CREATE_NDJSON, ...options })}\n`];
}

function expectEnvelope(result: FileResult, reason: BlockerReason, helper: { file: string; kind: HelperKind }): void {
  expect(result.error).toBeUndefined();
  expect(result.decision).toEqual({ kind: 'envelope', reason: envelopeReason(reason), hint: getHint(envelopeReason(reason)), line: expect.any(Number) });
  expect(result.diagnostics[0]).toMatchObject({ code: reason });
  expect(result.companions).toEqual([{ path: join(dirname(result.path), helper.file), content: buildHelperSource(helper.kind) }]);
}

/** A second run over the output changes nothing (the helper import says the work is done). */
function expectIdempotent(file: string, after: string, read = readModuleSync): void {
  const again = migrate(file, after, read);
  expect(again.after).toBeUndefined();
  expect(again.related ?? []).toEqual([]);
  expect(again.companions ?? []).toEqual([]);
}

describe('envelope rewrite (pipeline) on the fixture servers', () => {
  it('content-length-calculator.js: Content-Length framing, stdout writes and the parse through the envelope', () => {
    const file = 'content-length-calculator.js';
    const before = readFileSync(join(FIXTURES, file), 'utf8');
    const result = migrate(file);
    expectEnvelope(result, 'CONTENT_LENGTH_FRAMING', { file: 'mcp-envelope.js', kind: 'cjs' });
    expect(result.after).toBe(
      edit(before, [
        [
          "'use strict';\n",
          `'use strict';\n\n${helperLines({
            marker: 'CONTENT_LENGTH_FRAMING',
            importLine: "const { createEnvelope } = require('./mcp-envelope.js');",
            // the server answers unknown methods itself ("Method x not found", -32000): no method list, its
            // answer stands and the helper gives it -32601
            create: "const envelope = createEnvelope({ framing: 'content-length' });",
          })}\n`,
        ],
        // the writer keeps its own (wrong) length: the envelope reads the body and frames it again
        ["process.stdout.write('Content-Length: ' + body.length", "envelope.write('Content-Length: ' + body.length"],
        // inside a try: parse() throws like JSON.parse after answering -32700
        ['msg = JSON.parse(body);', 'msg = envelope.parse(body);'],
        ["process.stdout.write('calculator ready\\n');", "envelope.write('calculator ready\\n');"],
      ]),
    );
    expect(result.after).not.toContain('methods:');
    expect(result.fixes).toContain('Content-Length is counted in bytes');
    expect(result.fixes).toContain("ping is answered, and the server's answer to an unknown method gets -32601");
    expectIdempotent(file, result.after!);
  });

  it('content-length-calculator.js: a server that answers an unknown method itself keeps its answer, whatever it says (no method list)', () => {
    const file = 'content-length-calculator.js';
    const before = readFileSync(join(FIXTURES, file), 'utf8');
    const own = 'message: `Method ${msg.method} not found`';
    expect(before).toContain(own);
    const result = migrate(file, before.replace(own, "message: 'Request failed'"));
    expect(result.after).toContain("createEnvelope({ framing: 'content-length' })");
    expect(result.fixes).toContain('ping is answered');
    expect(result.fixes.join('\n')).not.toContain('unknown methods get -32601');
  });

  it('a server that stays silent on an unknown method gets the method list, with every method it names', () => {
    const file = 'content-length-calculator.js';
    const before = readFileSync(join(FIXTURES, file), 'utf8');
    const answer = before.split('\n').find((line) => line.includes('Method ${msg.method} not found'));
    expect(answer).toBeDefined();
    // the unknown method's answer removed: the server says nothing to it
    const silent = before.replace(answer!, '');
    const result = migrate(file, silent);
    const created = /createEnvelope\(\{ framing: 'content-length', methods: \[([^\]]*)\] \}\)/.exec(result.after ?? '');
    expect(created).not.toBeNull();
    const methods = created![1]!.split(', ').map((m) => m.slice(1, -1));
    expect(methods).toEqual(expect.arrayContaining(['initialize', 'tools/list', 'tools/call']));
    expect(result.fixes).toContain('ping is answered, and unknown methods get -32601');
  });

  it('computed-dispatch-class.mjs: an ESM class with this[`handle_${method}`] and console.log writes', () => {
    const file = 'computed-dispatch-class.mjs';
    const before = readFileSync(join(FIXTURES, file), 'utf8');
    const result = migrate(file);
    // the reason code is detection's (see bug-computed-key-through-string.js): checked only for kind
    expect(result.decision.kind).toBe('envelope');
    const reason = result.diagnostics[0]!.code as BlockerReason;
    expectEnvelope(result, reason, { file: 'mcp-envelope.mjs', kind: 'esm' });
    expect(result.after).toBe(
      edit(before, [
        insertHelperAfter("import readline from 'node:readline';\n", {
          marker: reason,
          importLine: "import { createEnvelope } from './mcp-envelope.mjs';",
        }),
        ['msg = JSON.parse(line);', 'msg = envelope.parse(line);'],
        // a debug line: log() sends it to stderr; the writer method: log() reads the message it prints
        ["console.log('got', msg.method);", "envelope.log('got', msg.method);"],
        ['console.log(JSON.stringify(message));', 'envelope.log(JSON.stringify(message));'],
      ]),
    );
    // the wrong ids stay in the code: the envelope answers with the request's id
    expect(result.after).toContain('this.reply({ id: msg.id || null, result })');
    expectIdempotent(file, result.after!);
  });

  it('progress-notifications.js: fs.writeSync(1, ...) and a parse outside any try (receive + a guard that continues the loop)', () => {
    const file = 'progress-notifications.js';
    const before = readFileSync(join(FIXTURES, file), 'utf8');
    const result = migrate(file);
    expectEnvelope(result, 'SERVER_SENDS_REQUESTS', { file: 'mcp-envelope.js', kind: 'cjs' });
    // every request method the server answers is known, so other methods get -32601 from the envelope
    // (whether the notification it handles is listed too changes nothing: notifications are never answered)
    const create = /^const envelope = createEnvelope\(\{ framing: 'ndjson', methods: \[(.*)\] \}\);$/m.exec(result.after ?? '');
    expect(create).not.toBeNull();
    const methods = create![1]!.split(', ').map((m) => m.slice(1, -1));
    expect(methods.filter((m) => !m.startsWith('notifications/'))).toEqual(['initialize', 'tools/list', 'tools/call']);
    expect(result.after).toBe(
      edit(before, [
        insertHelperAfter("const fs = require('fs');\n", {
          marker: 'SERVER_SENDS_REQUESTS',
          importLine: "const { createEnvelope } = require('./mcp-envelope.js');",
          create: create![0],
        }),
        ["fs.writeSync(1, JSON.stringify(message) + '\\n');", "envelope.write(JSON.stringify(message) + '\\n');"],
        ['    const msg = JSON.parse(line);\n', '    const msg = envelope.receive(line);\n    if (msg === undefined) continue;\n'],
      ]),
    );
    expect(result.fixes).toContain('ping is answered, and unknown methods get -32601');
    expectIdempotent(file, result.after!);
  });

  it('emitter-parse-argument.mjs: a parse handed straight to a call is received into a name first, then guarded', () => {
    const file = 'emitter-parse-argument.mjs';
    const before = readFileSync(join(FIXTURES, file), 'utf8');
    const result = migrate(file);
    expectEnvelope(result, 'COMPUTED_DISPATCH', { file: 'mcp-envelope.mjs', kind: 'esm' });
    expect(result.after).toBe(
      edit(before, [
        insertHelperAfter("import readline from 'node:readline';\n", {
          marker: 'COMPUTED_DISPATCH',
          importLine: "import { createEnvelope } from './mcp-envelope.mjs';",
        }),
        ["    this.emit('message', JSON.parse(line));\n", "    const message = envelope.receive(line);\n    if (message === undefined) return;\n    this.emit('message', message);\n"],
        ["process.stdout.write(JSON.stringify(reply) + '\\n');", "envelope.write(JSON.stringify(reply) + '\\n');"],
      ]),
    );
    expectIdempotent(file, result.after!);
    // where something before the parse runs code of its own (`tag()`), moving the parse ahead of it would
    // change what runs first: the parse stays where it is (a bad line is answered, then throws as before)
    const tagged = before.replace("this.emit('message', JSON.parse(line));", "this.emit(tag(), JSON.parse(line));").replace('class LineReader', "const tag = () => 'message';\n\nclass LineReader");
    const taggedResult = migrate(file, tagged);
    expect(taggedResult.after).toContain("this.emit(tag(), envelope.parse(line));");
    // the audit says so: the crash on a bad line is fixed where the guard went in, and not where it could not
    const crashes = (r: FileResult) => r.findings.filter((f) => f.rule === 'parse-error-unanswered').map(({ message, fixed }) => ({ message, fixed }));
    expect(crashes(result)).toEqual([{ message: "`JSON.parse(line)` runs outside any try: a line that is not JSON crashes the server", fixed: true }]);
    expect(crashes(taggedResult)).toEqual([{ message: "`JSON.parse(line)` runs outside any try: a line that is not JSON crashes the server", fixed: false }]);
  });

  it('emitter-parse-argument.mjs, varied: a parse that is the first code of its statement at any depth is received first', () => {
    const file = 'emitter-parse-argument.mjs';
    const before = readFileSync(join(FIXTURES, file), 'utf8');
    const statement = "    this.emit('message', JSON.parse(line));\n";
    const received = "    const message = envelope.receive(line);\n    if (message === undefined) return;\n";
    const variant = (text: string) => migrate(file, before.replace(statement, text)).after!;
    // a destructuring declaration, a call inside the call, the right side of an assignment
    expect(variant("    const { ...msg } = JSON.parse(line);\n    this.emit('message', msg);\n")).toContain(`${received}    const { ...msg } = message;\n`);
    expect(variant("    this.emit('message', Object.freeze(JSON.parse(line)));\n")).toContain(`${received}    this.emit('message', Object.freeze(message));\n`);
    expect(variant("    let msg;\n    msg = Object.freeze(JSON.parse(line));\n    this.emit('message', msg);\n")).toContain(`    let msg;\n${received}    msg = Object.freeze(message);\n`);
    expect(variant("    this.emit('message', { ...JSON.parse(line) });\n")).toContain("this.emit('message', { ...envelope.parse(line) });");
    // in a private method the guard returns from that method (it is a function like any other)
    const privateTake = before.replace('  take(line) {\n', '  #take(line) {\n').replace('(line) => this.take(line)', '(line) => this.#take(line)');
    expect(privateTake).not.toBe(before);
    expect(migrate(file, privateTake).after).toContain(`  #take(line) {\n    if (line.trim() === '') return;\n${received}    this.emit('message', message);\n`);
    // inside an object literal (not a place the rule takes), and where the parse may not run (after `&&`),
    // where moving it ahead would run it always: it stays
    expect(variant("    this.emit('message', line.length > 2 && JSON.parse(line));\n")).toContain("this.emit('message', line.length > 2 && envelope.parse(line));");
  });

  it('parse-helper-caught.js: a parse in a helper whose caller catches keeps throwing there; no guard hands the caller undefined', () => {
    const file = 'parse-helper-caught.js';
    const before = readFileSync(join(FIXTURES, file), 'utf8');
    const result = migrate(file);
    expectEnvelope(result, 'COMPUTED_DISPATCH', { file: 'mcp-envelope.js', kind: 'cjs' });
    expect(result.after).toBe(
      edit(before, [
        insertHelperAfter("const readline = require('readline');\n", {
          marker: 'COMPUTED_DISPATCH',
          importLine: "const { createEnvelope } = require('./mcp-envelope.js');",
        }),
        ['  const msg = JSON.parse(line);\n', '  const msg = envelope.parse(line);\n'],
        ["process.stdout.write(JSON.stringify(obj) + '\\n');", "envelope.write(JSON.stringify(obj) + '\\n');"],
      ]),
    );
    expectIdempotent(file, result.after!);
    // with no try around the call, the caller stores what the helper returns: a guard there would return
    // undefined into \`msg\` and the handling would go on with it; the parse answers -32700 and throws as it
    // did, and the audit does not call the crash fixed
    const uncaught = before.replace('  try {\n    msg = parseMessage(line);\n  } catch (err) {\n    send({ id: null, error: { code: -32700, message: \'Parse error\' } });\n    return;\n  }\n', '  msg = parseMessage(line);\n');
    expect(uncaught).not.toBe(before);
    const bare = migrate(file, uncaught);
    expect(bare.after).toContain('  const msg = envelope.parse(line);\n  return msg;\n');
    expect(bare.findings.filter((f) => f.rule === 'parse-error-unanswered').map((f) => f.fixed)).toEqual([false]);
  });

  it('ts-handler-table.ts: TypeScript, a handler table keyed by a computed name, for await over readline', () => {
    const file = 'ts-handler-table.ts';
    const before = readFileSync(join(FIXTURES, file), 'utf8');
    const result = migrate(file);
    expectEnvelope(result, 'COMPUTED_DISPATCH', { file: 'mcp-envelope.ts', kind: 'ts' });
    expect(result.after).toBe(
      edit(before, [
        insertHelperAfter("import * as readline from 'node:readline';\n", {
          marker: 'COMPUTED_DISPATCH',
          // TypeScript imports the name the module is emitted as
          importLine: "import { createEnvelope } from './mcp-envelope.js';",
        }),
        ["process.stdout.write(JSON.stringify(reply) + '\\n');", "envelope.write(JSON.stringify(reply) + '\\n');"],
        // the cast stays on the call
        ['msg = JSON.parse(line) as {', 'msg = envelope.parse(line) as {'],
      ]),
    );
    expectIdempotent(file, result.after!);
  });

  it('handler-returns-unanswered.js: -32601 where an unknown method is dropped, the one-statement if gets a block', () => {
    const file = 'handler-returns-unanswered.js';
    const before = readFileSync(join(FIXTURES, file), 'utf8');
    const result = migrate(file);
    expectEnvelope(result, 'COMPUTED_DISPATCH', { file: 'mcp-envelope.js', kind: 'cjs' });
    expect(result.after).toBe(
      edit(before, [
        insertHelperAfter("const readline = require('readline');\n", {
          marker: 'COMPUTED_DISPATCH',
          importLine: "const { createEnvelope } = require('./mcp-envelope.js');",
        }),
        ["process.stdout.write(JSON.stringify(message) + '\\n');", "envelope.write(JSON.stringify(message) + '\\n');"],
        ['  if (!handler) return;\n', "  if (!handler) { envelope.send({ error: { code: -32601, message: 'Method not found' } }); return; }\n"],
        ['msg = JSON.parse(line);', 'msg = envelope.parse(line);'],
      ]),
    );
    expectIdempotent(file, result.after!);
  });

  it('inline-unanswered.js: the same -32601 when the dispatch sits inline in the listener that parses', () => {
    const file = 'inline-unanswered.js';
    const result = migrate(file);
    expectEnvelope(result, 'COMPUTED_DISPATCH', { file: 'mcp-envelope.js', kind: 'cjs' });
    expect(result.after).toContain("  if (!handler) { envelope.send({ error: { code: -32601, message: 'Method not found' } }); return; }\n");
    // the return in the parse's catch is not a request's end: nothing inserted there
    expect(result.after).toContain('  } catch {\n    return;\n  }');
    expectIdempotent(file, result.after!);
  });

  it('computed-key-through-string.js: a handler name built from String(msg.method) is a computed dispatch', () => {
    const result = migrate('computed-key-through-string.js');
    expectEnvelope(result, 'COMPUTED_DISPATCH', { file: 'mcp-envelope.js', kind: 'cjs' });
    expect(result.decision).toMatchObject({ line: 12 });
  });

  it('crlf-double-quotes-no-semicolons.js: the inserted lines keep CRLF, double quotes and no semicolons', () => {
    const file = 'crlf-double-quotes-no-semicolons.js';
    const before = readFileSync(join(FIXTURES, file), 'utf8');
    expect(before).toContain('\r\n');
    const result = migrate(file);
    expectEnvelope(result, 'COMPUTED_DISPATCH', { file: 'mcp-envelope.js', kind: 'cjs' });
    expect(result.after).toBe(
      edit(before, [
        [
          'const readline = require("readline")\r\n',
          `const readline = require("readline")\r\n${[
            getEnvelopeMarker(envelopeReason('COMPUTED_DISPATCH')),
            'const { createEnvelope } = require("./mcp-envelope.js")',
            'const envelope = createEnvelope({ framing: "ndjson" })',
          ].join('\r\n')}\r\n`,
        ],
        // the guard goes after the trailing comment of its statement, in the file's style
        ['  const msg = JSON.parse(line) // no try: a bad line used to crash the server\r\n', '  const msg = envelope.receive(line) // no try: a bad line used to crash the server\r\n  if (msg === undefined) return\r\n'],
        ['if (handler) console.log(', 'if (handler) envelope.log('],
      ]),
    );
    expect(result.after!.replace(/\r\n/g, '')).not.toContain('\n');
    expectIdempotent(file, result.after!);
  });

  it('split-transport/: the writer module imports the helper from the entry directory, the marker goes in the entry only', () => {
    const file = 'split-transport/index.js';
    const transport = join(FIXTURES, 'split-transport/lib/transport.js');
    const before = readFileSync(join(FIXTURES, file), 'utf8');
    const result = migrate(file);
    expectEnvelope(result, 'COMPUTED_DISPATCH', { file: 'mcp-envelope.js', kind: 'cjs' });
    expect(result.after).toBe(
      edit(before, [
        insertHelperAfter("const { send } = require('./lib/transport');\n", {
          marker: 'COMPUTED_DISPATCH',
          importLine: "const { createEnvelope } = require('./mcp-envelope.js');",
        }),
        ['msg = JSON.parse(line);', 'msg = envelope.parse(line);'],
      ]),
    );
    const transportBefore = readFileSync(transport, 'utf8');
    expect(result.related).toEqual([
      {
        path: transport,
        before: transportBefore,
        after: edit(transportBefore, [
          ['function send(message) {\n', "const { createEnvelope } = require('../mcp-envelope.js');\nconst envelope = createEnvelope({ framing: 'ndjson' });\n\nfunction send(message) {\n"],
          ["process.stdout.write(JSON.stringify(message) + '\\n');", "envelope.write(JSON.stringify(message) + '\\n');"],
        ]),
      },
    ]);
    const migrated = (path: string): string | null => (path === transport ? result.related![0]!.after : readModuleSync(path));
    expectIdempotent(file, result.after!, migrated);
  });

  it('takes other names when the server already uses envelope / createEnvelope, and gives up when all are taken', () => {
    const file = 'handler-returns-unanswered.js';
    const original = readFileSync(join(FIXTURES, file), 'utf8');
    const taken = original.replace("const readline = require('readline');\n", "const readline = require('readline');\nconst envelope = { name: 'letter' };\nfunction createEnvelope() { return envelope; }\n");
    const result = migrate(file, taken);
    expect(result.after).toContain("const { createEnvelope: createMcpEnvelope } = require('./mcp-envelope.js');\nconst mcpEnvelope = createMcpEnvelope({ framing: 'ndjson' });\n");
    expect(result.after).toContain("  mcpEnvelope.write(JSON.stringify(message) + '\\n');\n");
    expect(result.after).toContain('msg = mcpEnvelope.parse(line);');
    expect(result.after).toContain("const envelope = { name: 'letter' };\nfunction createEnvelope() { return envelope; }\n");

    const allTaken = original.replace("const readline = require('readline');\n", "const readline = require('readline');\nconst envelope = 1, mcpEnvelope = 2, jsonRpcEnvelope = 3;\n");
    const refused = migrate(file, allTaken);
    expect(refused.after).toBeUndefined();
    expect(refused.companions ?? []).toEqual([]);
    expect(refused.decision).toMatchObject({ kind: 'leave', reason: 'ENVELOPE_UNPROVEN' });
    expect(refused.diagnostics.map((d) => d.message).join('\n')).toMatch(/the names the envelope needs are all taken/);
  });
});
