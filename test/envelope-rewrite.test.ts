// The envelope rewrite beyond the fixtures: what it refuses (and why), names it must not take,
// where it reaches the envelope from, and the pieces it is built from (edits, style).
import { describe, expect, it } from 'vitest';
import { parseSource } from '../src/parse.js';
import { rewriteEnvelope, type EnvelopeRewriteResult } from '../src/rewrite/envelope/index.js';
import { applyEdits } from '../src/rewrite/edits.js';
import { getCodeStyle } from '../src/rewrite/envelope/style.js';

function rewrite(source: string, path = '/p/server.js'): EnvelopeRewriteResult {
  return rewriteEnvelope(parseSource(path, source), source, path, 'COMPUTED_DISPATCH');
}

function rewritten(source: string, path?: string): string {
  const result = rewrite(source, path);
  if ('failed' in result) throw new Error(result.failed);
  return result.after;
}

const LOOP = [
  "readline.createInterface({ input: process.stdin }).on('line', (line) => {",
  '  let msg;',
  '  try {',
  '    msg = JSON.parse(line);',
  '  } catch {',
  '    return;',
  '  }',
  "  send({ jsonrpc: '2.0', id: msg.id, result: handlers[msg.method + '']() });",
  '});',
].join('\n');

describe('rewriteEnvelope refuses what it cannot prove', () => {
  it.each([
    [
      'two writer functions',
      "const readline = require('readline');\nfunction send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }\nfunction reply(r) { console.log(JSON.stringify(r)); }\nreply({});\n" + LOOP,
      /framed by more than one function/,
    ],
    [
      'stdout handed to other code',
      "const readline = require('readline');\nconst out = process.stdout;\nfunction send(m) { out.write(JSON.stringify(m) + '\\n'); }\n" + LOOP,
      /process\.stdout is used in a way/,
    ],
    [
      'the writer passed around as a value',
      "const readline = require('readline');\nfunction send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }\nconst api = { send };\n" + LOOP,
      /used other than by a direct call/,
    ],
    [
      'something else written to stdout',
      "const readline = require('readline');\nprocess.stdout.write('ready\\n');\nfunction send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }\n" + LOOP,
      /not a JSON message/,
    ],
    [
      'inline replies with their own framing',
      "const readline = require('readline');\nreadline.createInterface({ input: process.stdin }).on('line', (line) => {\n  const msg = JSON.parse(line);\n  process.stdout.write('> ' + JSON.stringify({ id: msg.id, result: msg.method }));\n});\n",
      /framing of its own/,
    ],
    [
      'this aliased in the class of a writer method',
      "const readline = require('readline');\nclass S {\n  start() { const self = this; readline.createInterface({ input: process.stdin }).on('line', function (line) { self.onLine(line); }); }\n" +
        "  onLine(line) {\n    let msg;\n    try { msg = JSON.parse(line); } catch { return; }\n    this.write({ id: msg.id, result: this['on' + msg.method]() });\n  }\n  write(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }\n}\n",
      /this is aliased/,
    ],
    [
      'a writer method called where this is not the instance',
      "const readline = require('readline');\nclass S {\n  onLine(line) {\n    let msg;\n    try { msg = JSON.parse(line); } catch { return; }\n    setTimeout(function () { this.write({ id: msg.id, result: {} }); }, 1);\n  }\n  write(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }\n}\n" +
        "const s = new S();\nreadline.createInterface({ input: process.stdin }).on('line', (line) => s.onLine(line));\n",
      /where this is not the instance/,
    ],
    [
      'no parse of incoming messages',
      "const readline = require('readline');\nfunction send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }\nsend({ id: 1, result: {} });\n",
      /cannot find where incoming messages are parsed/,
    ],
    [
      'a parse at module level',
      "const fs = require('fs');\nfunction send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }\nconst msg = JSON.parse(fs.readFileSync(0, 'utf8'));\nsend({ id: msg.id, result: msg.method });\n",
      /parsed at module level/,
    ],
    [
      'no sign of the module system',
      "function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }\nprocess.stdin.on('data', (d) => { let msg; try { msg = JSON.parse(d); } catch { return; } send({ id: msg.id, result: msg.method }); });\n",
      /ES module or CommonJS/,
    ],
    [
      'a writer returned from a factory',
      "const readline = require('readline');\nfunction setup() {\n  function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }\n  return send;\n}\n" + LOOP.replace('send(', 'setup()('),
      /used other than by a direct call/,
    ],
    [
      'a writer declared in a block the input loop cannot see',
      "const readline = require('readline');\nfunction handle(msg) {\n  function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }\n  send({ id: msg.id, result: handlers[msg.method + '']() });\n}\n" +
        "readline.createInterface({ input: process.stdin }).on('line', (line) => {\n  let msg;\n  try { msg = JSON.parse(line); } catch { return; }\n  handle(msg);\n});\n",
      /would not be in scope/,
    ],
  ])('%s', (_what, source, reason) => {
    const result = rewrite(source);
    expect(result).toEqual({ failed: expect.stringMatching(reason) });
  });
});

describe('rewriteEnvelope', () => {
  it('refuses a reason code it does not know', () => {
    const source = "const readline = require('readline');\nfunction send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }\n" + LOOP;
    expect(rewriteEnvelope(parseSource('/p/s.js', source), source, '/p/s.js', 'NOPE' as never)).toEqual({ failed: 'unknown envelope reason "NOPE"' });
  });

  it('lists only the fixes the original visibly needs', () => {
    const silent = "const readline = require('readline');\nfunction send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }\n" + LOOP;
    const result = rewrite(silent);
    if ('failed' in result) throw new Error(result.failed);
    expect(result.fixes).toContain('bad JSON is answered with -32700 and id null instead of being dropped');
    expect(result.fixes).toContain('ping is answered');
    const answering = silent.replace('    return;\n  }', "    return send({ id: null, error: { code: -32700, message: 'Parse error' } });\n  }").replace("handlers[msg.method + '']()", "msg.method === 'ping' ? {} : null");
    const second = rewrite(answering);
    if ('failed' in second) throw new Error(second.failed);
    expect(second.after).toContain("return envelope.send({ id: null, error: { code: -32700, message: 'Parse error' } });");
    expect(second.fixes.join('\n')).not.toMatch(/-32700|ping/);
  });

  it('returns the file unchanged, without companions, once it routes through the helper', () => {
    const source = "const { createEnvelope } = require('./mcp-envelope.js');\nconst envelope = createEnvelope(() => {});\n";
    expect(rewrite(source)).toEqual({ after: source, companions: [], fixes: [] });
  });

  it('keeps a JSON diagnostic a diagnostic: it goes to stderr, not through the envelope', () => {
    const source = "const readline = require('readline');\nconsole.log(JSON.stringify({ config: 1 }));\n" + LOOP.replace(/send\(/g, 'console.log(JSON.stringify(').replace("]() });", "]() }));");
    const after = rewritten(source);
    expect(after).toContain('console.error(JSON.stringify({ config: 1 }));');
    expect(after).toContain("envelope.send({ jsonrpc: '2.0', id: msg.id, result: handlers[msg.method + '']() });");
  });

  it('does not take names the file already uses', () => {
    const source = "const readline = require('readline');\nconst envelope = 'paper';\nfunction send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }\n" + LOOP;
    const after = rewritten(source);
    expect(after).toContain('const mcpEnvelope = createEnvelope(send);');
    expect(after).toContain('mcpEnvelope.send({');
    expect(after).toContain("const envelope = 'paper';");
  });

  it('aliases the import when createEnvelope is taken', () => {
    const source = "import readline from 'node:readline';\nfunction createEnvelope() {}\nfunction send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }\n" + LOOP;
    const after = rewritten(source, '/p/server.mjs');
    expect(after).toContain("import { createEnvelope as createMcpEnvelope } from './mcp-envelope.mjs';");
    expect(after).toContain('const envelope = createMcpEnvelope(send);');
  });

  it('keeps an existing marker instead of adding a second one', () => {
    const source = "const readline = require('readline');\n// mcp-migrate: envelope (COMPUTED_DISPATCH) -- kept from an earlier run\nfunction send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }\n" + LOOP;
    expect(rewritten(source).match(/mcp-migrate: envelope \(/g)).toHaveLength(1);
  });

  it('reaches a per-instance envelope from outside the class through the instance, and keeps it public in TypeScript', () => {
    const source = [
      "import { createInterface } from 'node:readline';",
      'class Server {',
      '  receive(line: string): void {',
      '    let msg: { id: number; method: string };',
      '    try {',
      '      msg = JSON.parse(line);',
      '    } catch {',
      '      return;',
      '    }',
      "    this.write({ id: msg.id, result: (this as any)['on' + msg.method]() });",
      '  }',
      '  write(message: object): void {',
      "    process.stdout.write(JSON.stringify(message) + '\\n');",
      '  }',
      '}',
      'const server = new Server();',
      "createInterface({ input: process.stdin }).on('line', (line) => server.receive(line));",
      '',
    ].join('\n');
    const after = rewritten(source, '/p/src/index.ts');
    expect(after).toContain('class Server {\n  readonly envelope = createEnvelope((message: object) => this.write(message));\n\n  receive(line: string): void {');
    expect(after).toContain('msg = this.envelope.parse(line);');
    expect(after).toContain("this.envelope.send({ id: msg.id, result: (this as any)['on' + msg.method]() });");
    expect(after).toContain("on('line', (line) => server.envelope.scope(() => server.receive(line)));");
  });

  it('wraps a listener given as this.method.bind(this)', () => {
    const source = [
      "const readline = require('readline');",
      "function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }",
      'class S {',
      "  start() { readline.createInterface({ input: process.stdin }).on('line', this.onLine.bind(this)); }",
      '  onLine(line) {',
      '    let msg;',
      '    try { msg = JSON.parse(line); } catch { return; }',
      "    send({ id: msg.id, result: this['on' + msg.method]() });",
      '  }',
      '}',
      '',
    ].join('\n');
    expect(rewritten(source)).toContain("on('line', envelope.bind(this.onLine.bind(this)));");
  });

  it('leaves the byte fix out of TypeScript, where the buffer type would change', () => {
    const source = [
      "import { Buffer } from 'node:buffer';",
      "let pending = '';",
      'function writeMessage(message: unknown): void {',
      '  const body = JSON.stringify(message);',
      '  process.stdout.write(`Content-Length: ${Buffer.byteLength(body)}\\r\\n\\r\\n${body}`);',
      '}',
      "process.stdin.setEncoding('utf8');",
      "process.stdin.on('data', (chunk: string) => {",
      '  pending += chunk;',
      "  const end = pending.indexOf('\\r\\n\\r\\n');",
      '  const match = /Content-Length: (\\d+)/.exec(pending.slice(0, end));',
      '  if (!match) return;',
      '  const body = pending.slice(end + 4, end + 4 + Number(match[1]));',
      '  pending = pending.slice(end + 4 + Number(match[1]));',
      '  onMessage(body);',
      '});',
      'function onMessage(body: string): void {',
      '  let msg: { id: number; method: string };',
      '  try { msg = JSON.parse(body); } catch { return; }',
      "  writeMessage({ id: msg.id, result: (globalThis as any)['on' + msg.method] });",
      '}',
      '',
    ].join('\n');
    const result = rewrite(source, '/p/server.ts');
    if ('failed' in result) throw new Error(result.failed);
    expect(result.after).toContain("let pending = '';");
    expect(result.after).toContain("process.stdin.setEncoding('utf8');");
    expect(result.fixes.join('\n')).not.toMatch(/bytes/);
    const js = rewrite(source.replace(/: (unknown|void|string|\{ id: number; method: string \})/g, '').replace('(globalThis as any)', 'globalThis'), '/p/server.js');
    if ('failed' in js) throw new Error(js.failed);
    expect(js.after).toContain('let pending = Buffer.alloc(0);');
    expect(js.fixes).toContain('Content-Length is counted in bytes, not UTF-16 characters');
  });
});

describe('applyEdits', () => {
  it('applies insertions before a replacement at the same offset, and refuses overlaps', () => {
    expect(applyEdits('abcdef', [{ start: 2, end: 4, text: 'XY' }, { start: 2, end: 2, text: '<' }, { start: 6, end: 6, text: '>' }])).toBe('ab<XYef>');
    expect(() => applyEdits('abcdef', [{ start: 1, end: 4, text: '' }, { start: 2, end: 5, text: '' }])).toThrow(/overlapping/);
  });
});

describe('getCodeStyle', () => {
  it.each([
    ["const a = 'x';\nif (a) {\n    run();\n}\n", { quote: "'", semi: true, indent: '    ', eol: '\n', declaration: 'const' }],
    ['var a = "x"\r\nif (a) {\r\n\trun()\r\n}\r\n', { quote: '"', semi: false, indent: '\t', eol: '\r\n', declaration: 'var' }],
    ["let a = 'x'\nfunction f () {\n  if (a) {\n    g()\n  }\n}\n", { quote: "'", semi: false, indent: '  ', eol: '\n', declaration: 'const' }],
  ])('reads the style of %j', (source, expected) => {
    expect(getCodeStyle(parseSource('x.js', source), source)).toEqual(expected);
  });
});
