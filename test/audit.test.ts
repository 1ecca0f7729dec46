// The compliance audit on the sample corpus (the shared copy under test/fixtures/corpus), on one
// scenario fixture per rule variant, and on clean files that must get no finding at all.
// Files are audited as the pipeline audits them: facts, detection, rules, with the modules they
// import read through the pipeline's own reader.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildFacts } from '../src/analysis/facts.js';
import { auditFacts, auditSource, RULES, type RuleId } from '../src/audit/index.js';
import { detectServer } from '../src/detect/server.js';
import { parseSource } from '../src/parse.js';
import { readModuleSync } from '../src/runner/read-module.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'audit');

function resolveFixture(relativePath: string): string {
  // corpus/* is the shared corpus copy; the other fixtures are the audit's own.
  return relativePath.startsWith('corpus/') ? join(import.meta.dirname, 'fixtures', relativePath) : join(FIXTURES, relativePath);
}

function audit(relativePath: string, edit: (source: string) => string = (s) => s) {
  const path = resolveFixture(relativePath);
  const errors: unknown[] = [];
  const findings = auditSource(path, edit(readFileSync(path, 'utf8')), { read: readModuleSync, onError: (rule, error) => errors.push({ rule, error }) });
  // no rule may have crashed on these files: a crash would hide its findings
  expect(errors).toEqual([]);
  return findings;
}

function detectionOf(relativePath: string) {
  const path = resolveFixture(relativePath);
  const source = readFileSync(path, 'utf8');
  return detectServer(buildFacts(path, source, parseSource(path, source), readModuleSync));
}

function summary(relativePath: string): [string, number][] {
  return audit(relativePath).map((f) => [f.rule, f.line]);
}

// Each case's findings, from the bugs its case.json description lists (lines checked by reading the file).
const CORPUS: Record<string, [RuleId, number][]> = {
  // bare ifs, no fallback: unknown methods (ping) get no reply; unparseable lines silently dropped
  'corpus/01-cjs-readline-bare-ifs/server.js': [
    ['parse-error-unanswered', 47], // the catch that drops the line
    // the last `if` of the bare-if chain (tools/call), which every unknown method falls through and
    // after which a fallback belongs; the old audit pointed at the first `if` (line 51)
    ['unknown-method-unanswered', 113],
  ],
  // the default branch answers notifications too; bad JSON only logged to stderr
  'corpus/02-esm-data-buffer-switch/index.mjs': [
    ['reply-to-notification', 111],
    ['parse-error-unanswered', 131],
  ],
  // unknown methods get -32000 instead of -32601 (bad JSON and notifications are handled correctly)
  'corpus/03-esm-handler-map/server.js': [['unknown-method-unanswered', 82]],
  // a parse error is answered with id 0 instead of null (its unknown tool answered -32601 is not an envelope rule)
  'corpus/04-ts-esm-class-dispatch/src/index.ts': [['wrong-id', 104]],
  // JSON.parse outside any try: bad JSON crashes the process
  'corpus/05-ts-cjs-ifelse/src/server.ts': [['parse-error-unanswered', 63]],
  // banner and debug lines on stdout, `msg.id || null`, `error: 'Unknown tool'`, the final else answers notifications,
  // bad JSON never answered
  'corpus/06-console-log-noise/server.js': [
    ['stdout-pollution', 7],
    ['parse-error-unanswered', 69],
    ['stdout-pollution', 70],
    ['stdout-pollution', 73],
    ['wrong-id', 78],
    ['wrong-id', 86],
    ['stdout-pollution', 90],
    ['wrong-id', 91],
    ['nonstandard-error', 91],
    ['wrong-id', 94],
    ['reply-to-notification', 96],
    ['wrong-id', 98],
  ],
  // its bugs (capabilities, resources/read contents, handler errors as -32700) are not envelope rules
  'corpus/07-resources-prompts/src/index.js': [],
  // no reply carries jsonrpc (the parse error's at 109 included); notifications/initialized has its own
  // reply; the default answers notifications
  'corpus/08-no-jsonrpc-field/main.js': [
    ['missing-jsonrpc', 73],
    ['missing-jsonrpc', 82],
    ['reply-to-notification', 82],
    ['missing-jsonrpc', 84],
    ['missing-jsonrpc', 86],
    ['missing-jsonrpc', 90],
    ['missing-jsonrpc', 92],
    ['missing-jsonrpc', 95],
    ['reply-to-notification', 95],
    ['missing-jsonrpc', 109],
  ],
  // its bugs (unknown tool code, id null dropped, crash on `null`) are not envelope rules
  'corpus/09-register-tool-registry/lib/mcp-lite.js': [],
  'corpus/09-register-tool-registry/server.js': [],
  // string ids coerced to null; notifications recognised by prefix, so other id-less messages get a reply
  'corpus/10-custom-method-db-stats/bin/shopdb-mcp.mjs': [
    ['wrong-id', 62],
    ['reply-to-notification', 86],
  ],
  // unparseable body dropped; the default branch answers notifications with id null
  // (its `id === undefined ? null : id` gives every request its own id back: only the notification's
  // reply is wrong, and that is the reply-to-notification finding, not a wrong id)
  'corpus/11-content-length-framing/server.js': [
    ['parse-error-unanswered', 76],
    ['reply-to-notification', 102],
  ],
  // notifications go through the same lookup and get a -32601 reply (the handler name is computed:
  // the -32601 answer written without looking at the id is what notifications land in)
  'corpus/12-computed-dispatch/index.js': [['reply-to-notification', 36]],
  // already on the SDK, writes nothing to stdout itself
  'corpus/13-already-sdk-mcpserver/server.js': [],
  // a JSON-lines worker with its own protocol
  'corpus/14-jsonl-worker-not-mcp/worker.js': [],
};

describe('auditSource on the corpus', () => {
  for (const [file, expected] of Object.entries(CORPUS)) {
    it(`${file}: ${expected.length} findings`, () => {
      expect(summary(file)).toEqual(expected);
    });
  }

  it('says what is wrong at each site (06)', () => {
    const findings = audit('corpus/06-console-log-noise/server.js');
    const at = (rule: string, line: number) => findings.find((f) => f.rule === rule && f.line === line)!;
    expect(at('stdout-pollution', 7)).toMatchObject({ column: 1, message: expect.stringContaining('not a protocol message') });
    expect(at('wrong-id', 78)).toMatchObject({ column: 11, message: expect.stringContaining('`msg.id || null`') });
    expect(at('nonstandard-error', 91)).toMatchObject({ column: 79, message: expect.stringContaining('a string (`"Unknown tool"`)') });
    expect(at('reply-to-notification', 96).message).toContain('also written for notifications');
    expect(at('parse-error-unanswered', 69)).toMatchObject({ column: 5, message: expect.stringContaining('writes no -32700 reply') });
  });

  it('names the typeof coercion (10) and the prefix check (10)', () => {
    const findings = audit('corpus/10-custom-method-db-stats/bin/shopdb-mcp.mjs');
    expect(findings[0]).toMatchObject({ line: 62, column: 14, message: expect.stringContaining("typeof msg.id === 'number'") });
    expect(findings[1]!.message).toContain('`notifications/` prefix check, which is not enough');
  });

  it('reports the wrong fallback code where it is written (03: the argument of replyError)', () => {
    expect(audit('corpus/03-esm-handler-map/server.js')[0]).toMatchObject({
      line: 82,
      column: 53,
      message: expect.stringContaining('code -32000 instead of -32601'),
    });
  });

  it('reports the parse error reply without jsonrpc (08) and the one with id 0 (04) at what is wrong', () => {
    expect(audit('corpus/08-no-jsonrpc-field/main.js').at(-1)).toMatchObject({ line: 109, column: 11, message: expect.stringContaining('Parse error reply has no') });
    expect(audit('corpus/04-ts-esm-class-dispatch/src/index.ts')[0]).toMatchObject({ line: 104, column: 39, message: expect.stringContaining('answered with id 0') });
  });

  it('gives every finding its rule hint, a 1-based position, fixed: false, in source order', () => {
    for (const file of Object.keys(CORPUS)) {
      const findings = audit(file);
      for (const finding of findings) {
        expect(finding.hint).toBe(RULES[finding.rule as RuleId].hint);
        expect(finding.fixed).toBe(false);
        expect(finding.line).toBeGreaterThanOrEqual(1);
        expect(finding.column).toBeGreaterThanOrEqual(1);
        expect(finding.message.length).toBeGreaterThan(10);
      }
      const order = findings.map((f) => f.line * 10_000 + f.column);
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
  });

  it('leaves the AST untouched', () => {
    const path = resolveFixture('corpus/08-no-jsonrpc-field/main.js');
    const source = readFileSync(path, 'utf8');
    const ast = parseSource(path, source);
    const before = JSON.stringify(ast);
    const facts = buildFacts(path, source, ast, readModuleSync);
    const detection = detectServer(facts);
    expect(auditFacts(facts, detection.kind === 'server' ? detection.model : null)).toHaveLength(10);
    expect(JSON.stringify(ast)).toBe(before);
  });

  it('reads imported modules only through `read`', () => {
    // 12 builds its tool table from ./lib/tools: the findings do not depend on it, and nothing is read without `read`
    const path = resolveFixture('corpus/12-computed-dispatch/index.js');
    const source = readFileSync(path, 'utf8');
    const asked: string[] = [];
    expect(auditSource(path, source).map((f) => f.line)).toEqual([36]);
    expect(auditSource(path, source, { read: (p) => (asked.push(p), readModuleSync(p)) }).map((f) => f.line)).toEqual([36]);
    expect(asked).toContain(join(path, '..', 'lib', 'tools.js'));
  });
});

describe('auditSource rule variants', () => {
  it('wrong-id: ?? 0, Number(), String(), hard-coded ids, null on a request; `?? null` is fine', () => {
    expect(audit('rules/wrong-ids.js').map((f) => [f.rule, f.line, f.column])).toEqual([
      ['wrong-id', 21, 19], // const numeric = Number(msg.id), used at line 27
      ['wrong-id', 24, 13], // msg.id ?? 0
      ['wrong-id', 30, 13], // String(msg.id)
      ['wrong-id', 33, 34], // id: 1
      ['wrong-id', 36, 34], // id: 'static'
      ['wrong-id', 42, 34], // id: null on a -32601 reply
    ]);
  });

  it('nonstandard-error: caught exception, string codes, missing message, string error', () => {
    const findings = audit('rules/error-shapes.js');
    expect(findings.map((f) => [f.rule, f.line, f.column])).toEqual([
      ['nonstandard-error', 27, 56], // error: err
      ['nonstandard-error', 31, 62], // code: 'NOT_READY'
      ['nonstandard-error', 34, 54], // { code: -32603 }
      ['nonstandard-error', 37, 25], // fail(msg.id, '-32603', ...): the argument the helper puts in `code`
      // the fallback's string error is also no -32601 answer to an unknown method: both rules are broken
      ['unknown-method-unanswered', 39, 15],
      ['nonstandard-error', 39, 52],
    ]);
    expect(findings.filter((f) => f.rule === 'nonstandard-error').map((f) => f.message)).toEqual([
      expect.stringContaining('caught exception `err`'),
      expect.stringContaining("code `'NOT_READY'` is not an integer"),
      expect.stringContaining('has no `message`'),
      expect.stringContaining("code `'-32603'` is not an integer"),
      expect.stringContaining('the error is a string'),
    ]);
  });

  it('reply-to-notification: a notifications/initialized branch that replies; a guarded fallback is fine', () => {
    expect(summary('rules/notification-branch.js')).toEqual([['reply-to-notification', 17]]);
  });

  it('fs.writeSync(1): debug text, no jsonrpc, wrong parse-error and fallback codes; replies indented over several lines are replies, not pollution', () => {
    const findings = audit('rules/fd-writer.js');
    // line 6 writes every reply with JSON.stringify(message, null, 2): one message, which both rewrites send on one line
    expect(findings.map((f) => [f.rule, f.line])).toEqual([
      ['parse-error-unanswered', 25], // at the -32603 code of the catch's reply
      ['stdout-pollution', 28],
      ['missing-jsonrpc', 34],
      ['unknown-method-unanswered', 36], // at the -32000 code of the default's reply
    ]);
    expect(findings.map((f) => f.message)).toEqual([
      expect.stringContaining('code -32603 instead of -32700'),
      expect.stringContaining('not a protocol message'),
      expect.stringContaining('no `"jsonrpc": "2.0"`'),
      expect.stringContaining('code -32000 instead of -32601'),
    ]);
  });

  it('a dispatch whose result is written as is: `undefined` on stdout, and the dispatch that ends unanswered', () => {
    // handle() has no default: an unknown method falls off its end (the old audit pointed at its
    // `switch`, line 6; the function is where the analysis sees the request end), and out() writes
    // JSON.stringify(undefined) + '\n', the text "undefined"
    expect(summary('rules/returned-dispatch-unchecked.js')).toEqual([
      ['stdout-pollution', 4],
      ['unknown-method-unanswered', 5],
    ]);
    // Both dispatches in one server: the first one's caller answers -32601, so every request does get
    // a -32601 answer, then the second one's `undefined` (the old audit, dispatch by dispatch, blamed
    // the second switch, line 7; per message, the client's request is answered and the line after it
    // is the garbage)
    expect(audit('rules/returned-dispatch.js').map((f) => [f.rule, f.line, f.message])).toEqual([
      ['stdout-pollution', 4, expect.stringContaining('writes the text `undefined` for some messages')],
    ]);
  });

  it('unknown-method-unanswered: a default branch that only logs', () => {
    expect(audit('rules/silent-fallback.mjs').map((f) => [f.rule, f.line, f.message])).toEqual([
      ['unknown-method-unanswered', 23, expect.stringContaining('only logged here')],
    ]);
  });

  it('sdk-transport-bypassed: console.log, process.stdout.write and console.info next to StdioServerTransport', () => {
    expect(summary('rules/sdk-bypass.mjs')).toEqual([
      ['sdk-transport-bypassed', 7],
      ['sdk-transport-bypassed', 12],
      ['sdk-transport-bypassed', 13],
    ]);
  });
});

describe('auditSource on servers with several transports', () => {
  it('a class of the program named StdioServerTransport is not the SDK: the hand-rolled rules apply', () => {
    expect(summary('rules/own-stdio-transport-class.js')).toEqual([['stdout-pollution', 7]]);
  });

  it('sdk-transport-bypassed: writes in stdio mode and at the top level, not in HTTP mode or for --help', () => {
    expect(audit('rules/sdk-dual-transport.mjs').map((f) => [f.rule, f.line, f.column])).toEqual([
      ['sdk-transport-bypassed', 18, 3], // next to new StdioServerTransport()
      ['sdk-transport-bypassed', 23, 27], // !isTTY: exactly when a client started the server
    ]);
  });
});

describe('auditSource on clean files', () => {
  for (const file of [
    'clean/compliant-switch.ts',
    'clean/content-length-server.js',
    'clean/sdk-custom-streams.mjs',
    'clean/cli-reads-stdin.js',
    'clean/indirect-checks.js',
    'clean/returned-dispatch-checked.js',
  ]) {
    it(`${file}: no findings`, () => {
      expect(audit(file)).toEqual([]);
    });
  }

  // Once known analysis bugs (their fixtures say what went wrong): a test of the id kept in a variable
  // through hasOwnProperty, and a Content-Length frame built with `+`.
  it.each(['clean/compliant-server.js', 'clean/id-test-in-variable.js', 'clean/content-length-concat.js'])('%s: no findings', (file) => {
    expect(audit(file)).toEqual([]);
  });

  // two more, whose fixtures say what went wrong: an MCP client reading keypresses, and a dispatch on a
  // handler name built by a user function
  it('clean/interactive-client.mjs: no findings, and no server', () => {
    expect(audit('clean/interactive-client.mjs')).toEqual([]);
    expect(detectionOf('clean/interactive-client.mjs').kind).not.toBe('server');
  });

  it('clean/computed-name-through-helper.js: no findings; a computed dispatch that keeps the SDK rewrite off', () => {
    expect(audit('clean/computed-name-through-helper.js')).toEqual([]);
    const detection = detectionOf('clean/computed-name-through-helper.js');
    expect(detection.kind === 'server' && detection.model.blockers.map((b) => b.code)).toEqual(['COMPUTED_DISPATCH']);
    expect(detection.kind === 'server' && detection.model.summary).toBe("readline 'line' events, writes via stdout.write, no method named by the dispatch");
  });

  it('the id test in a variable and the `+`-built frame are what keeps those files clean', () => {
    const variants: [string, string, string, [RuleId, number][]][] = [
      // the test is what keeps the -32601 reply from notifications
      // a path known to be a notification reaches every reply
      [
        'clean/id-test-in-variable.js',
        'if (!isRequest) return;',
        'if (!isRequest) {}',
        [
          ['reply-to-notification', 11],
          ['reply-to-notification', 12],
          ['reply-to-notification', 13],
        ],
      ],
      // the id is never looked at: the catch-all answer is the one notifications land in
      ['clean/id-test-in-variable.js', "hasOwnProperty.call(msg, 'id')", "hasOwnProperty.call(msg, 'method')", [['reply-to-notification', 13]]],
      // the same test written as comparisons joined by && (or negated, and used negated) stays clean
      ['clean/id-test-in-variable.js', "Object.prototype.hasOwnProperty.call(msg, 'id')", 'msg.id !== undefined && msg.id !== null', []],
      ['clean/id-test-in-variable.js', "const isRequest = Object.prototype.hasOwnProperty.call(msg, 'id');\n  if (!isRequest) return;", 'const isNotification = !(msg.id !== undefined && msg.id !== null);\n  if (isNotification) return;', []],
      // (a test that lets other notifications through: every reply reaches them)
      [
        'clean/id-test-in-variable.js',
        "Object.prototype.hasOwnProperty.call(msg, 'id')",
        "msg.id !== undefined || msg.method !== 'notifications/initialized'",
        [
          ['reply-to-notification', 11],
          ['reply-to-notification', 12],
          ['reply-to-notification', 13],
        ],
      ],
      // without the header the frame is text on stdout, and no reply is seen anywhere
      [
        'clean/content-length-concat.js',
        "'Content-Length: ' + Buffer.byteLength(json) + '\\r\\n\\r\\n' + json",
        "'Length ' + Buffer.byteLength(json) + '\\r\\n\\r\\n' + json",
        [
          ['stdout-pollution', 7],
          ['parse-error-unanswered', 22], // the catch
          ['unknown-method-unanswered', 27], // the if of the dispatch
        ],
      ],
    ];
    for (const [file, from, to, expected] of variants) {
      expect(readFileSync(resolveFixture(file), 'utf8')).toContain(from);
      expect(
        audit(file, (s) => s.replace(from, to)).map((f) => [f.rule, f.line]),
        `${from} -> ${to}`,
      ).toEqual(expected);
    }
  });

  // fixed: after `console.log = console.error` (a stdout guard), console.log writes to stderr
  it.each(['clean/sdk-console-redirected.mjs', 'clean/console-log-redirected.js'])('%s: no findings (console.log reassigned to stderr)', (file) => {
    expect(audit(file)).toEqual([]);
  });

  it('a clean server turns dirty when one rule is broken (the clean fixtures are really checked)', () => {
    const variants: [string, string, [RuleId, number][]][] = [
      ["error: { code: -32700, message: 'Parse error' }", "error: { code: -32603, message: 'Parse error' }", [['parse-error-unanswered', 18]]],
      ['new Server().listen();', "new Server().listen();\nconsole.log('ready');", [['stdout-pollution', 55]]],
      ["this.send({ jsonrpc: '2.0', id, result: {} });", 'this.send({ id, result: {} });', [['missing-jsonrpc', 31]]],
      ["this.send({ jsonrpc: '2.0', id, error: { code: -32601", "this.send({ jsonrpc: '2.0', id: String(id), error: { code: -32601", [['wrong-id', 36]]],
      ["error: { code: -32601, message: `Method not found: ${request.method}` }", "error: { code: -32000, message: `Method not found: ${request.method}` }", [['unknown-method-unanswered', 36]]],
      [
        "error: { code: -32601, message: `Method not found: ${request.method}` }",
        'error: `Method not found: ${request.method}`',
        [
          ['unknown-method-unanswered', 36],
          ['nonstandard-error', 36],
        ],
      ],
      ["if (!('id' in request)) {", "if (!('method' in request)) {", [['reply-to-notification', 36]]],
      // indented JSON that is no message (a dump of the tool table at start-up) is noise on stdout
      ['new Server().listen();', "new Server().listen();\nstdout.write(JSON.stringify({ started: true, tools: 3 }, null, 2) + '\\n');", [['stdout-pollution', 55]]],
    ];
    const original = readFileSync(resolveFixture('clean/compliant-switch.ts'), 'utf8');
    for (const [from, to, expected] of variants) {
      expect(original).toContain(from);
      expect(
        audit('clean/compliant-switch.ts', (s) => s.replace(from, to)).map((f) => [f.rule, f.line]),
        `${from} -> ${to}`,
      ).toEqual(expected);
    }
  });

  it('a reply indented over several lines is a reply, not stdout pollution (both rewrites send it on one line)', () => {
    for (const space of ['2', "'\\t'"]) {
      const indented = (s: string): string => s.replace("stdout.write(JSON.stringify(message) + '\\n');", `stdout.write(JSON.stringify(message, null, ${space}) + '\\n');`);
      expect(indented(readFileSync(resolveFixture('clean/compliant-switch.ts'), 'utf8'))).toContain(`null, ${space})`);
      expect(audit('clean/compliant-switch.ts', indented)).toEqual([]);
    }
  });

  it('the indirect checks are what keeps indirect-checks.js clean', () => {
    const original = readFileSync(resolveFixture('clean/indirect-checks.js'), 'utf8');
    const variants: [string, string, string[]][] = [
      ['message.id === undefined;', 'message.method === undefined;', ['reply-to-notification']],
      ['return null;', 'break;', ['unknown-method-unanswered']],
      ["throw { code: -32602, message: 'Missing tool name' }", "throw new Error('Missing tool name')", ['nonstandard-error']],
      ['if (process.stdout.isTTY) console.log(', 'if (!process.stdout.isTTY) console.log(', ['stdout-pollution']],
    ];
    for (const [from, to, rules] of variants) {
      expect(original).toContain(from);
      expect(
        audit('clean/indirect-checks.js', (s) => s.replace(from, to)).map((f) => f.rule),
        `${from} -> ${to}`,
      ).toEqual(rules);
    }
  });

  // rules/split-dispatch: server.js reads stdin and hands the message to dispatch.js, which answers with
  // `id: msg.id || null`. dispatch.js has no stdin loop of its own, so the wrong ids are reported with
  // the server, at their place in dispatch.js (its path in `file`).
  it('a finding inside an imported module is reported with its file (rules/split-dispatch)', () => {
    const dispatch = resolveFixture('rules/split-dispatch/dispatch.js');
    expect(audit('rules/split-dispatch/server.js').map((f) => [f.file ?? 'server.js', f.rule, f.line, f.column])).toEqual([
      ['server.js', 'parse-error-unanswered', 5, 35], // the catch that drops the line
      ['server.js', 'reply-to-notification', 6, 3], // handle() answers every message, notifications too
      [dispatch, 'wrong-id', 3, 70], // msg.id || null
      [dispatch, 'wrong-id', 4, 70],
    ]);
    expect(audit('rules/split-dispatch/dispatch.js')).toEqual([]);
  });
});
