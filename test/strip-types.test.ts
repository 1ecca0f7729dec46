// stripTypes: TypeScript text -> the same text without its types, every other byte where it was. Each
// case spells out the JavaScript expected; the JavaScript must also parse without the TypeScript plugin.
import { describe, expect, it } from 'vitest';
import { parseSource } from '../src/parse.js';
import { stripTypes } from '../src/rewrite/strip-types.js';

function strip(ts: string): string {
  const js = stripTypes(ts);
  parseSource('out.js', js); // plain JavaScript now
  return js;
}

describe('stripTypes', () => {
  it('removes annotations, return types, type arguments and parameters, keeping comments and layout', () => {
    const ts = [
      '// a comment that stays',
      'function pick<T>(items: T[], at: number /* index */): T | undefined {',
      '  const seen: Map<number, T> = new Map<number, T>();',
      '  return items[at]; // trailing',
      '}',
      'const f = (x: string): number => x.length;',
      '',
    ].join('\n');
    expect(strip(ts)).toBe(
      [
        '// a comment that stays',
        'function pick(items, at /* index */) {',
        '  const seen = new Map();',
        '  return items[at]; // trailing',
        '}',
        'const f = (x) => x.length;',
        '',
      ].join('\n'),
    );
  });

  it('removes interfaces and type aliases with their line and the comment lines right above them', () => {
    const ts = ['type Id = string | number;', '', '/** A scope. */', 'export interface Scope {', '  id: Id;', '}', 'const a = 1;', ''].join('\n');
    expect(strip(ts)).toBe(['', 'const a = 1;', ''].join('\n'));
  });

  it('removes `as`, `satisfies` and `!` after the expression, parenthesised or not', () => {
    const ts = "const a = (x === undefined ? {} : x) as object;\nconst b = y as unknown as { z: 1 };\nconst c = q!.r;\nconst d = (m satisfies object);\n";
    expect(strip(ts)).toBe('const a = (x === undefined ? {} : x);\nconst b = y;\nconst c = q.r;\nconst d = (m);\n');
  });

  it('removes the `?` of an optional parameter and a type-only import', () => {
    expect(strip("import type { A } from './a.js';\nfunction g(a?: number, b = 2): void {}\n")).toBe('function g(a, b = 2) {}\n');
  });

  it('refuses syntax that is more than types (an enum), rather than emit it half-stripped', () => {
    expect(() => stripTypes('enum E { A }\n')).toThrow(/TSEnumDeclaration at line 1 is not plain type syntax/);
    expect(() => stripTypes('class C { constructor(private x: number) {} }\n')).toThrow(/TSParameterProperty/);
  });
});
