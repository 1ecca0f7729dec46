// pruneUnusedDeclarations / removeExportedWriters on the cases where "used" is subtle: writes are not
// reads, a name is read through an export, a shorthand property or a type position, and bindings are
// matched between the original and the rewritten file by the functions around them.
import { describe, expect, it } from 'vitest';
import { parseSource } from '../src/parse.js';
import { pruneUnusedDeclarations, removeExportedWriters } from '../src/rewrite/prune.js';

/** Prunes `rewritten` as the rewrite does: `original` is the file before the rewrite. */
function prune(path: string, original: string, rewritten: string, writers: string[] = []): string {
  return pruneUnusedDeclarations(path, parseSource(path, original), rewritten, new Set(), new Set(writers));
}

const LOOP = "rl.on('line', (line) => ok(1, line));\n";

describe('pruneUnusedDeclarations', () => {
  it('removes a chain of declarations only the removed code used', () => {
    const head = [
      "const readline = require('readline');",
      "function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }",
      "function ok(id, result) { send({ jsonrpc: '2.0', id, result }); }",
      'const rl = readline.createInterface({ input: process.stdin });',
      '',
    ].join('\n');
    expect(prune('server.js', head + LOOP + 'main();\n', head + 'main();\n')).toBe('main();\n');
  });

  it('removes neighbouring dead declarations in one pass, whose removals share the blank line between them', () => {
    const cls = (loop: string) =>
      [
        'class Channel {',
        '  listen() {',
        loop,
        '  }',
        '',
        '  send(m) {',
        "    process.stdout.write(JSON.stringify(m) + '\\n');",
        '  }',
        '',
        '  reply(id, result) {',
        "    this.send({ jsonrpc: '2.0', id, result });",
        '  }',
        '',
        '  fail(id, code, message) {',
        "    this.send({ jsonrpc: '2.0', id, error: { code, message } });",
        '  }',
        '}',
        'new Channel().listen();',
        '',
      ].join('\n');
    const original = cls("    rl.on('line', (line) => this.reply(1, line));");
    const rewritten = cls('    server.connect(transport);');
    expect(prune('channel.js', original, rewritten, ['send', 'reply', 'fail'])).toBe(['class Channel {', '  listen() {', '    server.connect(transport);', '  }', '}', 'new Channel().listen();', ''].join('\n'));
    // a comment between two of them: its blank lines are shared too
    const commented = (text: string) => text.replace('  reply(id, result) {', '  // answers\n  reply(id, result) {');
    expect(prune('channel.js', commented(original), commented(rewritten), ['send', 'reply', 'fail'])).not.toMatch(/send|reply|fail/);
  });

  it('removes private writer methods and fields (#send, #out) nothing reads any more, keeping a private member still read', () => {
    const cls = (body: string) =>
      ['class Channel {', '  #out = process.stdout;', '  #count = 0;', '  #send(m) { this.#out.write(JSON.stringify(m)); }', '  #reply(id, result) { this.#send({ id, result }); }', '  listen() {', body, '    this.#count++;', '  }', '}', 'new Channel().listen();', ''].join('\n');
    const original = cls("    rl.on('line', (line) => this.#reply(1, line));");
    const rewritten = cls('    server.connect(transport);');
    expect(prune('channel.js', original, rewritten, ['#send', '#reply'])).toBe(
      ['class Channel {', '  #count = 0;', '  listen() {', '    server.connect(transport);', '    this.#count++;', '  }', '}', 'new Channel().listen();', ''].join('\n'),
    );
    // a public `send` is another member: reading it does not keep `#send`
    const both = (body: string) => ['class Channel {', '  #send(m) { process.stdout.write(m); }', '  send(m) { console.error(m); }', '  listen() {', body, '  }', '}', ''].join('\n');
    expect(prune('channel.js', both('    this.#send(1); this.send(2);'), both('    this.send(2);'), ['#send'])).toBe(['class Channel {', '  send(m) { console.error(m); }', '  listen() {', '    this.send(2);', '  }', '}', ''].join('\n'));
  });

  it('keeps what the user left unused on purpose', () => {
    const text = "function debugDump() { console.error('state'); }\nmain();\n";
    expect(prune('server.js', text + LOOP, text)).toBe(text);
  });

  it('counts an assignment or `x++` left outside the removed code as a use', () => {
    const original = "let buffer = '';\nlet count = 0;\nfunction reset() { buffer = ''; count++; }\nrl.on('data', (c) => { buffer += c; count++; parse(buffer); });\nreset();\n";
    const rewritten = "let buffer = '';\nlet count = 0;\nfunction reset() { buffer = ''; count++; }\nreset();\n";
    expect(prune('server.js', original, rewritten)).toBe(rewritten);
  });

  it('removes a variable whose writes were all in the removed code', () => {
    const original = "let buffer = '';\nlet count = 0;\nrl.on('data', (c) => { buffer += c; count++; [buffer] = [buffer.trim()]; });\nmain();\n";
    expect(prune('server.js', original, 'let buffer = \'\';\nlet count = 0;\nmain();\n')).toBe('main();\n');
  });

  it('keeps a declaration `export { x }`, a shorthand property or `export function` still names', () => {
    const a = "function send(m) { console.log(m); }\nexport { send };\n";
    expect(prune('server.mjs', a + 'send(1);\n', a)).toBe(a);
    const b = "function send(m) { console.log(m); }\nmodule.exports = { send };\n";
    expect(prune('server.js', b + 'send(1);\n', b)).toBe(b);
    const c = 'export function send(m) { console.log(m); }\n';
    expect(prune('server.mjs', c + 'send(1);\n', c)).toBe(c);
  });

  it('takes one name out of `const { a, b } = require(...)`, and the statement once all go', () => {
    const original = "const { send, listen } = require('./io');\nsend(1);\nlisten();\n";
    expect(prune('server.js', original, "const { send, listen } = require('./io');\nlisten();\n")).toBe("const { listen } = require('./io');\nlisten();\n");
    expect(prune('server.js', original, "const { send, listen } = require('./io');\nmain();\n")).toBe('main();\n');
  });

  it('removes one import specifier, or the whole import', () => {
    const original = "import { createInterface, Interface } from 'node:readline';\nconst rl = createInterface({ input: process.stdin });\nrl.on('line', f);\nInterface.x();\n";
    expect(prune('server.mjs', original, "import { createInterface, Interface } from 'node:readline';\nconst rl = createInterface({ input: process.stdin });\nInterface.x();\n")).toBe(
      "import { Interface } from 'node:readline';\nInterface.x();\n",
    );
  });

  it('matches bindings by the functions around them: a local of the same name is another binding', () => {
    const original = "const VERSION = '1';\nfunction info() { const VERSION = '2'; return VERSION; }\nconsole.log(VERSION, info());\n";
    const rewritten = "const VERSION = '1';\nfunction info() { const VERSION = '2'; return VERSION; }\nconsole.log(info());\n";
    expect(prune('server.js', original, rewritten)).toBe("function info() { const VERSION = '2'; return VERSION; }\nconsole.log(info());\n");
  });

  it('keeps a declaration with side effects', () => {
    const original = "const db = openDatabase('x');\ndb.query();\nmain();\n";
    expect(prune('server.js', original, "const db = openDatabase('x');\nmain();\n")).toBe("const db = openDatabase('x');\nmain();\n");
  });

  describe('TypeScript: type positions read as Babel read them', () => {
    const original = "import { Message } from './types';\nconst m = new Message();\nhandle(m);\n";

    it('a name in `: T` alone is not a use: the import goes', () => {
      expect(prune('server.ts', original, "import { Message } from './types';\nlet x: Message;\nhandle(x);\n")).toBe('let x: Message;\nhandle(x);\n');
    });

    it('a name in `x as T` or a type argument is a use: the import stays', () => {
      const cast = "import { Message } from './types';\nhandle(y as Message);\n";
      expect(prune('server.ts', original, cast)).toBe(cast);
      const generic = "import { Message } from './types';\nconst q = new Map<string, Message>();\nhandle(q);\n";
      expect(prune('server.ts', original, generic)).toBe(generic);
    });

    it('`type A = typeof x` is a use of x', () => {
      const rewritten = "const TOOLS = { echo: 1 };\ntype ToolName = keyof typeof TOOLS;\nmain();\n";
      expect(prune('server.ts', "const TOOLS = { echo: 1 };\ntype ToolName = keyof typeof TOOLS;\nlist(TOOLS);\nmain();\n", rewritten)).toBe(rewritten);
    });

    it('a method signature `send(): void` in an interface names a function `send` too', () => {
      const rewritten = "interface Channel { send(m: object): void }\nfunction send(m: object) { console.log(m); }\nmain();\n";
      expect(prune('server.ts', rewritten.replace('main();', 'send({});\nmain();'), rewritten)).toBe(rewritten);
      const field = "interface Channel { send: (m: object) => void }\nfunction send(m: object) { console.log(m); }\n";
      expect(prune('server.ts', field + 'send({});\nmain();\n', field + 'main();\n')).toBe('interface Channel { send: (m: object) => void }\nmain();\n');
    });

    it('does not stop at `declare class` (the Babel scope tracker threw there)', () => {
      const rewritten = "declare class Ghost {}\nconst PROTOCOL = '2024-11-05';\nmain();\n";
      expect(prune('server.ts', rewritten.replace('main();', 'reply(PROTOCOL);\nmain();'), rewritten)).toBe('declare class Ghost {}\nmain();\n');
    });
  });

  it('removes a class method only removed code called, not one called on another object', () => {
    const original = 'class Conn {\n  send(m) { process.stdout.write(m); }\n  close() {}\n}\nconst c = new Conn();\nc.send(1);\nc.close();\n';
    const rewritten = 'class Conn {\n  send(m) { process.stdout.write(m); }\n  close() {}\n}\nconst c = new Conn();\nc.close();\n';
    expect(prune('server.js', original, rewritten)).toBe('class Conn {\n  close() {}\n}\nconst c = new Conn();\nc.close();\n');
    const other = 'class Conn {\n  send(m) { process.stdout.write(m); }\n  close() {}\n}\nconst c = new Conn();\nc.close();\nconst t = new Transport();\nt.send(2);\n';
    expect(prune('server.js', original, other)).toBe(other.replace('  send(m) { process.stdout.write(m); }\n', ''));
  });
});

describe('pruneUnusedDeclarations: the scope a name is read in', () => {
  // `tag` and `mode` were read by the removed loop's helper and are still read where a wrong scope would
  // see the inner declaration of the same name instead: then they would look unused and go
  /** `head + tail` once the line loop that called `helper` (declared in `head`) is removed. */
  const pruneLoop = (file: string, head: string, helper: string, tail: string): string => prune(file, `${head}rl.on('line', () => ${helper}());\n${tail}`, head + tail);

  it("reads a method's computed key in the scope around the class, not the method's own", () => {
    const head = "const tag = 'run';\nconst helper = () => tag;\nclass Tool {\n  [tag](tag) {\n    return tag;\n  }\n}\n";
    const tail = 'module.exports = Tool;\n';
    const kept = "const tag = 'run';\nclass Tool {\n  [tag](tag) {\n    return tag;\n  }\n}\n";
    expect(pruneLoop('tool.js', head, 'helper', tail)).toBe(kept + tail);
  });

  it("reads a switch's discriminant in the scope around the switch, not the cases'", () => {
    const run = 'function run() {\n  switch (mode) {\n    case 1:\n      let mode = 2;\n      console.error(mode);\n  }\n}\n';
    const head = 'const mode = 1;\nconst pick = () => mode;\n' + run;
    const tail = 'module.exports = run;\n';
    expect(pruneLoop('mode.js', head, 'pick', tail)).toBe('const mode = 1;\n' + run + tail);
  });

  it('resolves a name read in a default value before the body declares the same name', () => {
    const head = 'const limit = 10;\nconst cap = () => limit;\nfunction take(n = limit) {\n  var limit = n;\n  return limit;\n}\n';
    const tail = 'module.exports = take;\n';
    const kept = 'const limit = 10;\nfunction take(n = limit) {\n  var limit = n;\n  return limit;\n}\n';
    expect(pruneLoop('take.js', head, 'cap', tail)).toBe(kept + tail);
  });
});

describe('pruneUnusedDeclarations: a class member used through `this` of another class', () => {
  // the server's writer is called `emit`, like the EventEmitter method its line reader calls on itself
  const reader = (base: string) => `class Reader extends ${base} {\n  take(line) {\n    this.emit('message', line);\n  }\n}\n`;
  const server = (reply: string) => `class Server {\n  handle(msg) {\n${reply}  }\n\n  emit(msg) {\n    process.stdout.write(JSON.stringify(msg));\n  }\n}\nmodule.exports = { Reader, Server };\n`;
  const original = (base: string) => reader(base) + server('    this.emit({ id: msg.id });\n');
  const rewritten = (base: string) => reader(base) + server('    return { id: msg.id };\n');

  it("an unrelated class's `this.emit(...)` is no use of the server's `emit`: the writer goes", () => {
    const out = prune('server.js', original('EventEmitter'), rewritten('EventEmitter'), ['emit']);
    expect(out).toBe(reader('EventEmitter') + "class Server {\n  handle(msg) {\n    return { id: msg.id };\n  }\n}\nmodule.exports = { Reader, Server };\n");
  });

  it('a subclass of the server may reach its `emit` through `this`, and so may a class whose superclass is not known: it stays', () => {
    const base = (reply: string) => `class Base {\n  handle(msg) {\n${reply}  }\n\n  emit(msg) {\n    process.stdout.write(JSON.stringify(msg));\n  }\n}\n`;
    const tail = reader('Base') + 'module.exports = { Reader, Base };\n';
    const kept = base('    return { id: msg.id };\n') + tail;
    expect(prune('server.js', base('    this.emit({ id: msg.id });\n') + tail, kept, ['emit'])).toBe(kept);
    expect(prune('server.js', original('mixin(EventEmitter)'), rewritten('mixin(EventEmitter)'), ['emit'])).toBe(rewritten('mixin(EventEmitter)'));
  });
});

describe('removeExportedWriters', () => {
  it('removes a writer only the exports name, with its entry', () => {
    const text = "function emit(m) { process.stdout.write(m); }\nfunction listen() {}\nmodule.exports = { emit, listen };\n";
    expect(removeExportedWriters('io.js', text, new Set(['emit']), () => false)).toBe('function listen() {}\nmodule.exports = { listen };\n');
  });

  it('keeps a writer another module reads, or this module still calls or reassigns', () => {
    const text = "function emit(m) { process.stdout.write(m); }\nfunction listen() {}\nmodule.exports = { emit, listen };\n";
    expect(removeExportedWriters('io.js', text, new Set(['emit']), (name) => name === 'emit')).toBe(text);
    const called = text + 'emit(1);\n';
    expect(removeExportedWriters('io.js', called, new Set(['emit']), () => false)).toBe(called);
    const reassigned = "let emit = (m) => process.stdout.write(m);\nfunction listen() {}\nemit = null;\nmodule.exports = { emit, listen };\n";
    expect(removeExportedWriters('io.js', reassigned, new Set(['emit']), () => false)).toBe(reassigned);
  });

  it('removes an export statement of its own: `exports.emit = emit`, `module.exports.emit = emit`, an only entry', () => {
    const writer = "function emit(m) { process.stdout.write(m); }\nfunction listen() {}\n";
    const only = new Set(['emit']);
    expect(removeExportedWriters('io.js', `${writer}exports.emit = emit;\nexports.listen = listen;\n`, only, () => false)).toBe('function listen() {}\nexports.listen = listen;\n');
    expect(removeExportedWriters('io.js', `${writer}module.exports.emit = emit;\nmodule.exports.listen = listen;\n`, only, () => false)).toBe('function listen() {}\nmodule.exports.listen = listen;\n');
    expect(removeExportedWriters('io.js', `${writer}module.exports = { emit };\n`, only, () => false)).toBe('function listen() {}\n');
    expect(removeExportedWriters('io.mjs', `${writer}export { emit };\nexport { listen };\n`, only, () => false)).toBe('function listen() {}\nexport { listen };\n');
    // a writer exported under another use (`exports.emit = emit || fallback`) is not only exported
    const mixed = `${writer}exports.emit = emit || listen;\n`;
    expect(removeExportedWriters('io.js', mixed, only, () => false)).toBe(mixed);
  });

  it('reads no text that exports nothing, and still finds an export spelt with an escape', () => {
    // not parsed: a text without `export` (nor an escape) can export no writer (this one would not parse)
    const unparsed = 'function emit(m) { process.stdout.write(m); }\nfunction listen( {\n';
    expect(removeExportedWriters('io.js', unparsed, new Set(['emit']), () => false)).toBe(unparsed);
    const writer = "function emit(m) { process.stdout.write(m); }\nfunction listen() {}\n";
    expect(removeExportedWriters('io.js', `${writer}module.\\u0065xports = { emit, listen };\n`, new Set(['emit']), () => false)).toBe('function listen() {}\nmodule.\\u0065xports = { listen };\n');
  });

  it('removes `export function emit` with the export', () => {
    const text = 'export function emit(m) { process.stdout.write(m); }\nexport function listen() {}\n';
    expect(removeExportedWriters('io.mjs', text, new Set(['emit']), () => false)).toBe('export function listen() {}\n');
  });
});

describe('pruneUnusedDeclarations: TypeScript types', () => {
  const types = [
    'interface RpcError { code: number; message: string }',
    'interface RpcResponse { jsonrpc: "2.0"; id: number | null; error?: RpcError }',
    'type Handler = (line: string) => void;',
    'interface Kept { a: number }',
    'interface Unused { b: number }',
    'export interface Shared { c: number }',
    '',
  ].join('\n');

  it('removes the interfaces and type aliases only removed code used, transitively; keeps the rest', () => {
    const original = `${types}function send(m: RpcResponse): void { process.stdout.write(JSON.stringify(m)); }\nconst onLine: Handler = (line) => send(JSON.parse(line));\nconst k: Kept = { a: 1 };\nconsole.error(k, onLine);\n`;
    const rewritten = `${types}const k: Kept = { a: 1 };\nconsole.error(k);\n`;
    // what only `send` and `onLine` used goes (RpcError with RpcResponse); Unused was never used, Shared is exported
    expect(prune('server.ts', original, rewritten)).toBe(
      ['interface Kept { a: number }', 'interface Unused { b: number }', 'export interface Shared { c: number }', 'const k: Kept = { a: 1 };', 'console.error(k);', ''].join('\n'),
    );
  });

  it('keeps a type whose name a value shares, or that is declared twice (merged)', () => {
    const original = 'interface A { a: number }\nconst A = 1;\ninterface B { b: number }\ninterface B { c: number }\nfunction f(x: A, y: B) { return [x, y, A]; }\nf();\n';
    const rewritten = 'interface A { a: number }\nconst A = 1;\ninterface B { b: number }\ninterface B { c: number }\nconsole.error(A);\n';
    expect(prune('server.ts', original, rewritten)).toBe(rewritten);
  });
});
