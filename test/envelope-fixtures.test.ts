// Envelope rewrite scenarios: __testfixtures__/envelope/<case>.input.<ext> -> <case>.output.<ext>,
// compared exactly (no trimming), each also rewritten a second time to prove nothing changes.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findEnvelopeReason } from '../src/detect/envelope-signals.js';
import { parseSource } from '../src/parse.js';
import type { EnvelopeReason } from '../src/model/envelope-reasons.js';
import { rewriteEnvelope, type EnvelopeRewrite } from '../src/rewrite/envelope/index.js';
import { buildHelperSource } from '../src/rewrite/envelope/helper-source.js';
import { listFixtureCases } from './fixtures/fixture-cases.js';

const FIXTURES = resolve('__testfixtures__/envelope');

/** What each scenario is detected as; the marker in the output says the same. */
const REASONS: Record<string, EnvelopeReason> = {
  'content-length-switch': 'CONTENT_LENGTH_FRAMING',
  'content-length-unproven-reader': 'CONTENT_LENGTH_FRAMING',
  'computed-dispatch-class': 'COMPUTED_DISPATCH',
  'keeps-comments-crlf': 'COMPUTED_DISPATCH',
  'esm-data-loop-handle': 'UNFOLLOWABLE_TOOL_LIST',
  'console-log-inline-writes': 'MULTIPLE_WRITES_PER_REQUEST',
  'ts-class-writer': 'COMPUTED_DISPATCH',
  'parse-without-try': 'COMPUTED_DISPATCH',
  'for-await-async-handle': 'COMPUTED_DISPATCH',
  'ignore-comment-no-marker': 'COMPUTED_DISPATCH',
  'writer-declared-last': 'COMPUTED_DISPATCH',
  'writer-inside-factory': 'COMPUTED_DISPATCH',
};

const HELPER_FILES: Record<string, { file: string; kind: 'cjs' | 'esm' | 'ts' }> = {
  js: { file: 'mcp-envelope.js', kind: 'cjs' },
  mjs: { file: 'mcp-envelope.mjs', kind: 'esm' },
  ts: { file: 'mcp-envelope.ts', kind: 'ts' },
};

// Two scenarios start from corpus servers: their options file names the corpus copy (fixture-cases.ts).
const cases = listFixtureCases(FIXTURES).map((c) => ({ name: c.name, ext: c.ext, input: c.input }));

const scratch = mkdtempSync(join(tmpdir(), 'envelope-fixtures-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function rewrite(path: string, source: string, reason: EnvelopeReason): EnvelopeRewrite {
  const result = rewriteEnvelope(parseSource(path, source), source, path, reason);
  if ('failed' in result) throw new Error(`rewrite failed: ${result.failed}`);
  return result;
}

describe('envelope fixtures', () => {
  it('has every scenario listed with its reason', () => {
    expect(cases.map((c) => c.name).sort()).toEqual(Object.keys(REASONS).sort());
  });

  describe.each(cases)('$name', ({ name, ext, input: inputPath }) => {
    const input = readFileSync(inputPath, 'utf8');
    const expected = readFileSync(join(FIXTURES, `${name}.output.${ext}`), 'utf8');
    const path = join(FIXTURES, `${name}.${ext}`);
    const reason = REASONS[name]!;

    it(`is detected as ${reason}`, () => {
      expect(findEnvelopeReason(parseSource(path, input), input)?.reason).toBe(reason);
    });

    it('rewrites to the expected output, with the helper next to it', () => {
      const result = rewrite(path, input, reason);
      expect(result.after).toBe(expected);
      const helper = HELPER_FILES[ext]!;
      expect(result.companions).toEqual([{ path: join(FIXTURES, helper.file), content: buildHelperSource(helper.kind) }]);
      expect(result.fixes.length).toBeGreaterThan(0);
    });

    it('is idempotent: rewriting the output changes nothing', () => {
      const again = rewrite(path, expected, reason);
      expect(again.after).toBe(expected);
      expect(again.companions).toEqual([]);
    });

    if (ext === 'ts') {
      it('type-checks under strict settings together with the helper', () => {
        const dir = mkdtempSync(join(scratch, `${name}-`));
        writeFileSync(join(dir, 'server.ts'), expected);
        writeFileSync(join(dir, 'mcp-envelope.ts'), buildHelperSource('ts'));
        writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
        writeFileSync(
          join(dir, 'tsconfig.json'),
          JSON.stringify({
            compilerOptions: {
              module: 'NodeNext',
              moduleResolution: 'NodeNext',
              target: 'ES2022',
              strict: true,
              noEmit: true,
              noUnusedLocals: true,
              typeRoots: [resolve('node_modules/@types')],
              types: ['node'],
            },
            files: ['server.ts', 'mcp-envelope.ts'],
          }),
        );
        execFileSync(resolve('node_modules/.bin/tsc'), ['-p', dir], { encoding: 'utf8' });
        // and the original type-checks the same way, so the settings are not what passes it
        copyFileSync(inputPath, join(dir, 'server.ts'));
        execFileSync(resolve('node_modules/.bin/tsc'), ['-p', dir], { encoding: 'utf8' });
      });
    }
  });
});
