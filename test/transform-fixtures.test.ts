// Fixture pairs for the SDK rewrite: `<case>.input.<ext>` -> `<case>.output.<ext>`, compared exactly,
// each also checked for idempotence (the output is left as it is). Cases named for what they show.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import transform from '../transforms/mcp-migrate.js';
import { processSource } from '../src/pipeline.js';
import type { PipelineOptions } from '../src/model/types.js';

const DIR = join(import.meta.dirname, '..', '__testfixtures__', 'mcp-migrate');
const inputs = readdirSync(DIR).filter((f) => f.includes('.input.'));

function optionsFor(input: string): PipelineOptions {
  const file = join(DIR, input.replace(/\.input\..*$/, '.options.json'));
  const extra = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<PipelineOptions>) : {};
  return { sdk: 'v1', style: 'server', ...extra };
}

describe('SDK rewrite fixtures', () => {
  it('has fixtures for every shape', () => {
    expect(inputs.length).toBeGreaterThanOrEqual(13);
  });

  for (const input of inputs) {
    const output = input.replace('.input.', '.output.');
    it(`${input} -> ${output}`, () => {
      const source = readFileSync(join(DIR, input), 'utf8');
      const expected = readFileSync(join(DIR, output), 'utf8');
      const result = processSource(input, source, optionsFor(input));
      expect(result.after ?? source).toBe(expected);
      // idempotence: the tool leaves its own output alone
      const again = processSource(input, expected, optionsFor(input));
      expect(again.after).toBeUndefined();
    });
  }

  it('leaves servers that are not hand-rolled MCP byte-identical', () => {
    for (const name of ['already-on-sdk.input.js', 'not-mcp-json-worker.input.js']) {
      const source = readFileSync(join(DIR, name), 'utf8');
      expect(processSource(name, source, { sdk: 'v1', style: 'server' }).after).toBeUndefined();
      expect(readFileSync(join(DIR, name.replace('.input.', '.output.')), 'utf8')).toBe(source);
    }
  });

  it('keeps a BOM, CRLF line ends and a multi-line template literal exactly', () => {
    const source = readFileSync(join(DIR, 'keeps-comments-crlf.input.js'), 'utf8');
    const after = processSource('keeps-comments-crlf.input.js', source, { sdk: 'v1', style: 'server' }).after!;
    expect(after.startsWith('\uFEFF// echo-mcp')).toBe(true);
    expect(after.replace(/\r\n/g, '')).not.toContain('\n');
    expect(after).toContain('`echo:\r\n${text}`');
    expect(after).toContain('}, // the only tool');
  });
});

describe('--style mcp-server', () => {
  it('falls back to server style and says which construct stopped it', () => {
    const source = readFileSync(join(DIR, 'mcp-server-fallback-shared-table.input.js'), 'utf8');
    const result = processSource('server.js', source, { sdk: 'v1', style: 'mcp-server' });
    expect(result.decision).toMatchObject({ kind: 'sdk', style: 'server' });
    const notes = result.decision.kind === 'sdk' ? result.decision.notes : [];
    expect(notes).toEqual([expect.stringMatching(/^--style mcp-server not applied: tools\/call hands the tool name to runTool\(\).*\(line 88\)/)]);
  });

  it('registers one tool per switch case when the split is provable', () => {
    const source = readFileSync(join(DIR, 'mcp-server-switch-tools.input.mjs'), 'utf8');
    const result = processSource('index.mjs', source, { sdk: 'v1', style: 'mcp-server' });
    expect(result.decision).toMatchObject({ kind: 'sdk', style: 'mcp-server' });
    expect(result.after!.match(/registerTool\(\n  '(\w+)'/g)).toEqual(["registerTool(\n  'word_count'", "registerTool(\n  'slugify'", "registerTool(\n  'truncate'"]);
  });
});

describe('jscodeshift adapter', () => {
  it('returns undefined when nothing changes and the rewrite otherwise', () => {
    const api = {} as Parameters<typeof transform>[1];
    const worker = readFileSync(join(DIR, 'not-mcp-json-worker.input.js'), 'utf8');
    expect(transform({ path: 'worker.js', source: worker }, api, {})).toBeUndefined();
    const server = readFileSync(join(DIR, 'readline-bare-ifs.input.js'), 'utf8');
    expect(transform({ path: 'server.js', source: server }, api, {})).toBe(readFileSync(join(DIR, 'readline-bare-ifs.output.js'), 'utf8'));
  });
});
