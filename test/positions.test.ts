// The trees parseSource gives out keep each node's start line in place of Babel's `loc` (analysis/ast.ts,
// compactPositions): every line and column the tool prints must still be Babel's own.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getColumn, getLine } from '../src/analysis/ast.js';
import { VISITOR_KEYS } from '../src/babel-visitor-keys.js';
import { babelParser } from '../src/babel.js';
import type { t } from '../src/babel.js';
import { parseSource } from '../src/parse.js';

/** Every node of a tree, with Babel's line and 1-based column, read before anything compacts it. */
function getBabelPositions(source: string): { start: number; line: number; column: number }[] {
  const ast = babelParser.parse(source, { sourceType: 'unambiguous', plugins: ['typescript'] });
  const out: { start: number; line: number; column: number }[] = [];
  const stack: unknown[] = [ast.program];
  while (stack.length > 0) {
    const node = stack.pop() as t.Node & Record<string, unknown>;
    out.push({ start: node.start!, line: node.loc!.start.line, column: node.loc!.start.column + 1 });
    for (const [key, value] of Object.entries(node)) {
      if (key === 'loc' || key.endsWith('Comments')) continue;
      for (const child of Array.isArray(value) ? value : [value]) if (child && typeof child === 'object' && typeof (child as { type?: unknown }).type === 'string') stack.push(child);
    }
  }
  return out;
}

// CRLF, a lone CR, U+2028 and U+2029 inside a string and a template (Babel counts all four as line
// breaks), a tab, a long line
const SOURCE = [
  "const a = 'x';\r\n",
  'const b = 1;\r',
  "const c = 'p\u2028q', d = `r\u2029s`;\n",
  '\tfunction f(x: number) { return x + 1; }\n',
  `const long = [${Array.from({ length: 400 }, (_, i) => i).join(', ')}];\n`,
  'f(c); /* a\u2028comment */ f(d);\n',
].join('');

describe('node positions as parseSource gives them (compact)', () => {
  it('every node, type annotations too, gives Babel\'s line and column, and its loc is the line number', () => {
    const expected = new Map(getBabelPositions(SOURCE).map((p) => [p.start, p]));
    const ast = parseSource('/virtual/positions.ts', SOURCE);
    let compared = 0;
    const stack: t.Node[] = [ast.program];
    while (stack.length > 0) {
      const node = stack.pop()!;
      expect(typeof node.loc).toBe('number');
      const want = expected.get(node.start!)!;
      expect([getLine(node), getColumn(SOURCE, node)]).toEqual([want.line, want.column]);
      compared++;
      for (const key of VISITOR_KEYS[node.type] ?? []) {
        const value = (node as unknown as Record<string, unknown>)[key];
        for (const child of Array.isArray(value) ? value : [value]) if (child && typeof child === 'object') stack.push(child as t.Node);
      }
    }
    expect(compared).toBeGreaterThan(400);
    // six lines of text, three more breaks: U+2028 in the string, U+2029 in the template, U+2028 in the comment
    expect(Math.max(...[...expected.values()].map((p) => p.line))).toBe(9);
  });

  it('a tree parsed elsewhere keeps Babel\'s loc, which getLine reads too', () => {
    const ast = babelParser.parse('\n\nx;', { sourceType: 'module' });
    const statement = ast.program.body[0]!;
    expect(typeof statement.loc).toBe('object');
    expect(getLine(statement)).toBe(3);
    expect(getLine({ type: 'Identifier', name: 'made' } as t.Identifier, 1)).toBe(1);
  });

  it('no module of the tool reads a node\'s loc but these helpers (the parser\'s errors have one of their own)', () => {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(join(dir, entry.name));
        else if (entry.name.endsWith('.ts')) files.push(join(dir, entry.name));
      }
    };
    walk(new URL('../src', import.meta.url).pathname);
    const readers = files.filter((file) => !/[\\/](ast|parse)\.ts$/.test(file) && /\.loc\b/.test(readFileSync(file, 'utf8')));
    expect(files.length).toBeGreaterThan(50);
    expect(readers).toEqual([]);
  });
});
