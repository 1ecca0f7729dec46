// src/babel.ts loads only part of @babel/types and carries a generated copy of its VISITOR_KEYS: both
// must stay true to the installed package (a Babel upgrade that changes them fails here, not in the field).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import * as FullTypes from '@babel/types';
import { BABEL_TYPES_FILES, t } from '../src/babel.js';

const require = createRequire(import.meta.url);

describe('the parts of @babel/types the analysis loads', () => {
  it('VISITOR_KEYS is the installed package\'s, node type by node type (else: node scripts/gen/visitor-keys.mjs)', () => {
    expect(t.VISITOR_KEYS).toEqual(FullTypes.VISITOR_KEYS);
  });

  it('each loaded function is the package\'s own', () => {
    for (const file of Object.values(BABEL_TYPES_FILES)) expect(() => require.resolve(file)).not.toThrow();
    for (const name of ['isIdentifier', 'isStatement', 'isExpression', 'isFunction', 'isReferenced', 'isScope', 'getBindingIdentifiers', 'getAssignmentIdentifiers'] as const) {
      expect(t[name].toString(), name).toBe((FullTypes[name] as (...args: never[]) => unknown).toString());
    }
  });

  it('the node tests keep their options and alias forms', () => {
    const id = { type: 'Identifier', name: 'require' } as FullTypes.Identifier;
    expect(t.isIdentifier(id, { name: 'require' })).toBe(true);
    expect(t.isIdentifier(id, { name: 'exports' })).toBe(false);
    expect(t.isExpression(id)).toBe(true);
    expect(t.isStatement(id)).toBe(false);
  });

  it('a process that loads the pipeline does not load the package\'s node definitions (dist/, built before the tests)', () => {
    // in a process of its own: this test file's import of @babel/types above loads them here
    const script = `await import(${JSON.stringify(new URL('../dist/src/pipeline.js', import.meta.url).href)});
const { createRequire } = await import('node:module');
const cache = createRequire(import.meta.url).cache;
console.log(JSON.stringify(Object.keys(cache).filter((p) => p.includes('@babel')).map((p) => p.replace(/.*node_modules[\\\\/]/, ''))));`;
    const loaded = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as string[];
    expect(loaded).toContain('@babel/parser/lib/index.js');
    expect(loaded.filter((path) => path.startsWith('@babel/types/'))).toEqual([
      '@babel/types/lib/validators/generated/index.js',
      '@babel/types/lib/utils/shallowEqual.js',
      '@babel/types/lib/utils/deprecationWarning.js',
      '@babel/types/lib/validators/isReferenced.js',
      '@babel/types/lib/validators/isScope.js',
      '@babel/types/lib/retrievers/getBindingIdentifiers.js',
      '@babel/types/lib/retrievers/getAssignmentIdentifiers.js',
    ]);
  });
});
