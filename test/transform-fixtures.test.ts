// Fixture pairs for the SDK rewrite (see test/fixtures/fixture-cases.ts for the layout), compared
// exactly, each also checked for idempotence (the output is left as it is). Cases named for what they show.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import transform from '../transforms/mcp-migrate.js';
import { processSource } from '../src/pipeline.js';
import type { PipelineOptions } from '../src/model/types.js';
import { listFixtureCases, readFixtureInput } from './fixtures/fixture-cases.js';

const DIR = join(import.meta.dirname, '..', '__testfixtures__', 'mcp-migrate');
// modules the inputs import (a tool table, a helper) are read as the CLI reads them
const readModule = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};
const cases = listFixtureCases(DIR).map((c) => ({ ...c, options: { sdk: 'v1', style: 'server', ...c.options } as PipelineOptions }));
const input = (name: string): string => readFixtureInput(DIR, name);
const output = (name: string): string => readFileSync(cases.find((c) => c.name === name)!.output!, 'utf8');

describe('SDK rewrite fixtures', () => {
  it('has fixtures for every shape', () => {
    expect(cases.length).toBeGreaterThanOrEqual(14);
  });

  for (const fixture of cases) {
    const expectation = fixture.output === null ? 'unchanged' : basename(fixture.output);
    it(`${fixture.name}: ${basename(fixture.input)} -> ${expectation} (${fixture.options.sdk}, ${fixture.options.style})`, () => {
      const source = readFileSync(fixture.input, 'utf8');
      const result = processSource(fixture.input, source, fixture.options, readModule);
      if (fixture.output === null) {
        // not a hand-rolled MCP server (or one already on the SDK): nothing to write
        expect(result.after).toBeUndefined();
        expect(result.decision.kind === 'none' || result.decision.kind === 'leave').toBe(true);
        return;
      }
      const expected = readFileSync(fixture.output, 'utf8');
      expect(result.after).toBe(expected);
      expect(result.related ?? []).toEqual([]);
      // idempotence: the tool leaves its own output alone
      expect(processSource(fixture.input, expected, fixture.options, readModule).after).toBeUndefined();
    });
  }

  it('keeps a BOM, CRLF line ends and a multi-line template literal exactly', () => {
    const after = processSource('keeps-comments-crlf.input.js', input('keeps-comments-crlf'), { sdk: 'v1', style: 'server' }).after!;
    expect(after.startsWith('\uFEFF// echo-mcp')).toBe(true);
    expect(after.replace(/\r\n/g, '')).not.toContain('\n');
    expect(after).toContain('`echo:\r\n${text}`');
    expect(after).toContain('}, // the only tool');
  });
});

describe('--style mcp-server', () => {
  it('writes the low-level server and says the style was not applied', () => {
    const result = processSource('server.js', input('console-log-writer'), { sdk: 'v1', style: 'mcp-server' }, readModule);
    expect(result.decision).toMatchObject({ kind: 'sdk', style: 'server' });
    const notes = result.decision.kind === 'sdk' ? result.decision.notes : [];
    expect(notes[0]).toMatch(/^--style mcp-server not applied: /);
    expect(result.after).toBe(output('console-log-writer'));
  });
});

describe('jscodeshift adapter', () => {
  it('returns undefined when nothing changes and the rewrite otherwise', () => {
    const api = {} as Parameters<typeof transform>[1];
    expect(transform({ path: 'worker.js', source: input('not-mcp-json-worker') }, api, {})).toBeUndefined();
    expect(transform({ path: 'server.js', source: input('readline-bare-ifs') }, api, {})).toBe(output('readline-bare-ifs'));
  });
});
