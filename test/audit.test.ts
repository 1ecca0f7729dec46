// The compliance audit on the sample corpus (the shared copy under test/fixtures/corpus), on one
// scenario fixture per rule variant, and on clean files that must get no finding at all.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditSource, RULES, type RuleId } from '../src/audit/index.js';
import { parseSource } from '../src/parse.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'audit');

function audit(relativePath: string) {
  // corpus/* is the shared corpus copy; the other fixtures are the audit's own.
  const path = relativePath.startsWith('corpus/') ? join(import.meta.dirname, 'fixtures', relativePath) : join(FIXTURES, relativePath);
  const source = readFileSync(path, 'utf8');
  return auditSource(parseSource(path, source), source);
}

function summary(relativePath: string): [string, number][] {
  return audit(relativePath).map((f) => [f.rule, f.line]);
}

// Each case's findings, from the bugs its case.json description lists (lines checked by reading the file).
const CORPUS: Record<string, [RuleId, number][]> = {
  // bare ifs, no fallback: unknown methods (ping) get no reply; unparseable lines silently dropped
  'corpus/01-cjs-readline-bare-ifs/server.js': [
    ['parse-error-unanswered', 47],
    ['unknown-method-unanswered', 51],
  ],
  // the default branch answers notifications too; bad JSON only logged to stderr
  'corpus/02-esm-data-buffer-switch/index.mjs': [
    ['reply-to-notification', 111],
    ['parse-error-unanswered', 131],
  ],
  // unknown methods get -32000 instead of -32601 (bad JSON and notifications are handled correctly)
  'corpus/03-esm-handler-map/server.js': [['unknown-method-unanswered', 82]],
  // a parse error is answered with id 0 instead of null
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
  // no reply carries jsonrpc; notifications/initialized has its own reply; the default answers notifications
  'corpus/08-no-jsonrpc-field/main.js': [
    ['missing-jsonrpc', 73],
    ['reply-to-notification', 82],
    ['missing-jsonrpc', 82],
    ['missing-jsonrpc', 84],
    ['missing-jsonrpc', 86],
    ['missing-jsonrpc', 90],
    ['missing-jsonrpc', 92],
    ['reply-to-notification', 95],
    ['missing-jsonrpc', 95],
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
  'corpus/11-content-length-framing/server.js': [
    ['parse-error-unanswered', 76],
    ['reply-to-notification', 102],
  ],
  // notifications go through the same lookup and get a -32601 reply
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
    expect(at('stdout-pollution', 7)).toMatchObject({ column: 1, message: expect.stringContaining('not a JSON-RPC message') });
    expect(at('wrong-id', 78)).toMatchObject({ column: 11, message: expect.stringContaining('`msg.id || null`') });
    expect(at('nonstandard-error', 91)).toMatchObject({ column: 79, message: expect.stringContaining('`"Unknown tool"`') });
    expect(at('reply-to-notification', 96).message).toContain('answers notifications');
    expect(at('parse-error-unanswered', 69).message).toContain('writes no -32700 reply');
  });

  it('names the typeof coercion (10) and the prefix check (10)', () => {
    const findings = audit('corpus/10-custom-method-db-stats/bin/shopdb-mcp.mjs');
    expect(findings[0]).toMatchObject({ line: 62, column: 14, message: expect.stringContaining("typeof msg.id === 'number'") });
    expect(findings[1]!.message).toContain('`notifications/` prefix check is not enough');
  });

  it('reports the wrong fallback code where it is written (03)', () => {
    expect(audit('corpus/03-esm-handler-map/server.js')[0]).toMatchObject({
      line: 82,
      column: 53,
      message: expect.stringContaining('code -32000 instead of -32601'),
    });
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
    const path = join(import.meta.dirname, 'fixtures', 'corpus/08-no-jsonrpc-field/main.js');
    const source = readFileSync(path, 'utf8');
    const ast = parseSource(path, source);
    const before = JSON.stringify(ast);
    auditSource(ast, source);
    expect(JSON.stringify(ast)).toBe(before);
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
    expect(findings.map((f) => [f.rule, f.line])).toEqual([
      ['nonstandard-error', 27],
      ['nonstandard-error', 31],
      ['nonstandard-error', 34],
      ['nonstandard-error', 37],
      ['nonstandard-error', 39],
    ]);
    expect(findings.map((f) => f.message)).toEqual([
      expect.stringContaining('caught exception'),
      expect.stringContaining("code is a string (`'NOT_READY'`)"),
      expect.stringContaining('has no string "message"'),
      expect.stringContaining("code is a string (`'-32603'`)"), // through fail(id, code, message)
      expect.stringContaining('the error is a string'),
    ]);
  });

  it('reply-to-notification: a notifications/initialized branch that replies; a guarded fallback is fine', () => {
    expect(summary('rules/notification-branch.js')).toEqual([['reply-to-notification', 17]]);
  });

  it('fs.writeSync(1): indented JSON, debug text, no jsonrpc, wrong parse-error and fallback codes', () => {
    expect(summary('rules/fd-writer.js')).toEqual([
      ['stdout-pollution', 6],
      ['parse-error-unanswered', 25],
      ['stdout-pollution', 28],
      ['missing-jsonrpc', 34],
      ['unknown-method-unanswered', 36],
    ]);
  });

  it('unknown-method-unanswered: no default where the result is written as is, none where the caller checks it', () => {
    expect(summary('rules/returned-dispatch.js')).toEqual([['unknown-method-unanswered', 7]]);
  });

  it('unknown-method-unanswered: a default branch that only logs', () => {
    expect(summary('rules/silent-fallback.mjs')).toEqual([['unknown-method-unanswered', 23]]);
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
  it('sdk-transport-bypassed: writes in stdio mode and at the top level, not in HTTP mode or for --help', () => {
    expect(audit('rules/sdk-dual-transport.mjs').map((f) => [f.rule, f.line, f.column])).toEqual([
      ['sdk-transport-bypassed', 18, 3], // next to new StdioServerTransport()
      ['sdk-transport-bypassed', 23, 27], // !isTTY: exactly when a client started the server
    ]);
  });
});

describe('auditSource on clean files', () => {
  for (const file of [
    'clean/compliant-server.js',
    'clean/compliant-switch.ts',
    'clean/content-length-server.js',
    'clean/sdk-console-redirected.mjs',
    'clean/sdk-custom-streams.mjs',
    'clean/cli-reads-stdin.js',
    'clean/indirect-checks.js',
  ]) {
    it(`${file}: no findings`, () => {
      expect(audit(file)).toEqual([]);
    });
  }

  it('a clean server turns dirty when one rule is broken (the clean fixtures are really checked)', () => {
    const path = join(FIXTURES, 'clean/compliant-server.js');
    const source = readFileSync(path, 'utf8').replace("fail(null, -32700, 'Parse error');", "fail(null, -32603, 'Parse error');");
    expect(auditSource(parseSource(path, source), source).map((f) => f.rule)).toEqual(['parse-error-unanswered']);
    const noisy = readFileSync(path, 'utf8').replace("log('ready');", "console.log('ready');");
    expect(auditSource(parseSource(path, noisy), noisy).map((f) => f.rule)).toEqual(['stdout-pollution']);
  });

  it('the indirect checks are what keeps indirect-checks.js clean', () => {
    const path = join(FIXTURES, 'clean/indirect-checks.js');
    const original = readFileSync(path, 'utf8');
    const variants: [string, string, string[]][] = [
      ['message.id === undefined;', 'message.method === undefined;', ['reply-to-notification']],
      ['return null;', 'break;', ['unknown-method-unanswered']],
      ["throw { code: -32602, message: 'Missing tool name' }", "throw new Error('Missing tool name')", ['nonstandard-error']],
      ["if (process.stdout.isTTY) console.log(", "if (!process.stdout.isTTY) console.log(", ['stdout-pollution']],
    ];
    for (const [from, to, rules] of variants) {
      expect(original).toContain(from);
      const source = original.replace(from, to);
      expect(auditSource(parseSource(path, source), source).map((f) => f.rule), `${from} -> ${to}`).toEqual(rules);
    }
  });
});
