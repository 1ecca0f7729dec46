// buildEditedTree: the tree of an edited text from the original's untouched statements and a parse of
// what the edits changed. Wherever it gives a tree, that tree must read as a parse of the whole text does
// (types, names, offsets, start lines), and the original's tree must be as it was after restore(); where a
// parse of the whole text would read the same statements differently, it must give none.
import { describe, expect, it } from 'vitest';
import type { File, Node } from '@babel/types';
import { VISITOR_KEYS } from '../src/babel-visitor-keys.js';
import { parseSource } from '../src/parse.js';
import { type Edit, EditList } from '../src/rewrite/edits.js';
import { buildEditedTree } from '../src/rewrite/edited-tree.js';
import { EDITED_TREE_MIN_CHARS, pruneUnusedDeclarations } from '../src/rewrite/prune.js';

/** Every node of a tree, in order, by what the prune reads of it. */
function dump(root: Node): string[] {
  const out: string[] = [];
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()! as unknown as Record<string, unknown>;
    const value = typeof node['value'] === 'object' ? '' : String(node['value']);
    out.push([node['type'], node['start'], node['end'], node['loc'], node['name'] ?? '', value, node['operator'] ?? '', node['kind'] ?? ''].join(':'));
    const keys = VISITOR_KEYS[node['type'] as string] ?? [];
    for (let k = keys.length - 1; k >= 0; k--) {
      const child = node[keys[k]!];
      const list = Array.isArray(child) ? child : [child];
      for (let i = list.length - 1; i >= 0; i--) {
        const item = list[i] as { type?: unknown } | null;
        if (item && typeof item.type === 'string') stack.push(item as Node);
      }
    }
  }
  return out;
}

/** The edits of `source` that turn each `from` into its `to` (each `from` once in `source`), and the text they make. */
function editsOf(source: string, changes: [from: string, to: string][]): { edits: Edit[]; text: string } {
  const list = new EditList();
  for (const [from, to] of changes) {
    const at = source.indexOf(from);
    if (at === -1 || source.indexOf(from, at + 1) !== -1) throw new Error(`not once in the source: ${from}`);
    list.replace(at, at + from.length, to);
  }
  return { edits: [...list.all], text: list.apply(source) };
}

/** buildEditedTree's tree of the edited text, checked against a parse of it; the original checked after restore(). */
function expectSameAsParse(path: string, source: string, changes: [string, string][]): void {
  const original = parseSource(path, source);
  const before = dump(original.program);
  const { edits, text } = editsOf(source, changes);
  const tree = buildEditedTree(path, original, source, edits, text);
  expect(tree).not.toBeNull();
  try {
    expect(dump(tree!.ast.program)).toEqual(dump(parseSource(path, text).program));
  } finally {
    tree!.restore();
  }
  expect(dump(original.program)).toEqual(before);
}

/** buildEditedTree gives no tree (and leaves the original as it was). */
function expectNoTree(path: string, source: string, changes: [string, string][]): void {
  const original = parseSource(path, source);
  const before = dump(original.program);
  const { edits, text } = editsOf(source, changes);
  expect(buildEditedTree(path, original, source, edits, text)).toBeNull();
  expect(dump(original.program)).toEqual(before);
}

const HELPERS = Array.from({ length: 6 }, (_, i) => `function h${i}(a) { return a ? h${Math.max(0, i - 1)}(a - 1) : ${i}; }\n`).join('');

describe('buildEditedTree', () => {
  it('reads as a parse: statements inserted at the top, replaced in the middle and at the end, removed', () => {
    const source = [
      "'use strict';",
      "const readline = require('readline');",
      HELPERS,
      "function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }",
      HELPERS.replace(/h(\d)/g, 'g$1'),
      'const rl = readline.createInterface({ input: process.stdin });',
      "rl.on('line', (line) => { send({ id: 1, result: h5(line) }); });",
      'main();',
      '',
    ].join('\n');
    expectSameAsParse('server.js', source, [
      ["const readline = require('readline');", "const readline = require('readline');\nconst { Server } = require('@modelcontextprotocol/sdk/server/index.js');\n\nconst server = new Server({ name: 'x', version: '1' });"],
      ["function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }\n", ''],
      ["rl.on('line', (line) => { send({ id: 1, result: h5(line) }); });", 'server.setRequestHandler(schema, async () => {\n  return { result: h5(1) };\n});\n\n\nvoid server;'],
    ]);
  });

  it('reads as a parse without semicolons: a word on the next line ends a statement', () => {
    const source = ["import { a } from './a.js'", HELPERS, 'const x = a()', "console.error('ready')", 'x.run()', ''].join('\n');
    expectSameAsParse('server.mjs', source, [
      ["import { a } from './a.js'", "import { a } from './a.js'\nimport { Server } from '@modelcontextprotocol/sdk/server/index.js'\nconsole.log = console.error"],
      ["console.error('ready')", 'const server = new Server()\nserver.start()'],
    ]);
  });

  it('reads as a parse in TypeScript, across CRLF and U+2028 line breaks, and after a #! line', () => {
    const source = ['#!/usr/bin/env node', "import fs = require('fs')", 'interface Msg {\r\n  id: number\r\n}', "const sep = '\u2028'", HELPERS, 'export function send(m: Msg): void { fs.writeSync(1, JSON.stringify(m)) }', 'send({ id: 1 })', ''].join('\r\n');
    expectSameAsParse('server.ts', source, [
      ["import fs = require('fs')", "import fs = require('fs')\r\nimport { Server } from '@modelcontextprotocol/sdk/server/index.js'\r\n"],
      ['send({ id: 1 })', 'new Server()\r\n\r\nvoid 0;'],
    ]);
  });

  it('reads as a parse when the edits change the first statements and keep the directives', () => {
    const source = ['"use strict";', 'let buffer = "";', HELPERS, 'main();', ''].join('\n');
    expectSameAsParse('server.cjs', source, [['let buffer = "";', 'const { Server } = require("x");\nlet server;']]);
  });

  it('gives no tree where a parse of the text would read a statement on: a call, an index, a string that became a directive', () => {
    // `main()` then `(async () => ...)()` on the next line: one call of main()'s result
    expectNoTree('server.js', `${HELPERS}main()\nrun();\n`, [['run();', '(async () => { await start() })()']]);
    // an inserted statement without a semicolon, then a kept one that starts with `[`
    expectNoTree('server.js', `${HELPERS}run();\n[1, 2].forEach(go);\n`, [['run();', 'run();\nconst x = start()']]);
    // a lone name: `let` (a name in a script), then `x = 1` on the next line: one declaration, `let x = 1`
    expectNoTree('server.js', `${HELPERS}let\nif (a) {}\n`, [['if (a) {}', 'x = 1']]);
    // `x();` removed: the string statement after it becomes the text's first, a directive
    expectNoTree('server.js', `x();\n'hello';\n${HELPERS}`, [['x();\n', '']]);
  });

  it('gives no tree when the text parses in another mode: a script gains an import, strict mode goes', () => {
    expectNoTree('server.js', `const a = 1;\n${HELPERS}run();\n`, [['const a = 1;', "import { Server } from 'x';\nconst a = 1;"]]);
    expectNoTree('server.js', `'use strict';\nconst a = 1;\n${HELPERS}`, [["'use strict';\n", '']]);
    // an HTML comment (`-->` at the start of a line is one in a script)
    expectNoTree('server.js', `const a = 1;\n${HELPERS}run();\n`, [['run();', 'x\n--> y']]);
  });
});

describe('pruneUnusedDeclarations on a long text, with the edits that made it', () => {
  it('prunes as on a parse of the text, and leaves the original tree as it was', () => {
    const filler = Array.from({ length: Math.ceil(EDITED_TREE_MIN_CHARS / 30) }, (_, i) => `function f${i}(a) { return a + ${i}; }\n`).join('');
    const source = [
      "const readline = require('readline');",
      "function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }",
      filler,
      'const rl = readline.createInterface({ input: process.stdin });',
      "rl.on('line', (line) => send({ id: 1, result: f3(line) }));",
      'main();',
      '',
    ].join('\n');
    expect(source.length).toBeGreaterThan(EDITED_TREE_MIN_CHARS);
    const { edits, text: rewritten } = editsOf(source, [["rl.on('line', (line) => send({ id: 1, result: f3(line) }));", 'serve(f3);']]);
    const original = parseSource('server.js', source);
    const before = dump(original.program);
    const withEdits = pruneUnusedDeclarations('server.js', original, rewritten, new Set(), new Set(), { source, edits });
    expect(dump(original.program)).toEqual(before);
    // the reader and the writer go: the removed loop was their only user
    expect(withEdits).not.toContain('function send');
    expect(withEdits).not.toContain('readline');
    expect(withEdits).toContain('function f3(a)');
    expect(withEdits).toBe(pruneUnusedDeclarations('server.js', parseSource('server.js', source), rewritten));
  });
});
