// What removing a statement cuts (rewrite/text.ts): whole lines when the statement is alone on its
// line, and no trailing spaces left behind when it ends a line it shares.
import { describe, expect, it } from 'vitest';
import { getRemovalRange } from '../src/rewrite/text.js';

function remove(source: string, statement: string): string {
  const start = source.indexOf(statement);
  expect(start).toBeGreaterThanOrEqual(0);
  const range = getRemovalRange(source, start, start + statement.length);
  return source.slice(0, range.start) + source.slice(range.end);
}

describe('getRemovalRange', () => {
  it('takes the whole line of a statement alone on it', () => {
    expect(remove('a();\n  break;\nb();\n', 'break;')).toBe('a();\nb();\n');
  });

  it('takes the spaces before the last statement of a shared line', () => {
    expect(remove("case 'x': return 1; break;\nnext();\n", 'break;')).toBe("case 'x': return 1;\nnext();\n");
    expect(remove('send(x);\t break;', 'break;')).toBe('send(x);');
  });
});
