// Fixture pairs for the SDK rewrite: `<case>.input.<ext>` -> `<case>.output.<ext>`, compared exactly,
// each also checked for idempotence (the output is left as it is). Cases named for what they show.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import transform from '../transforms/mcp-migrate.js';
import { processSource } from '../src/pipeline.js';
import type { PipelineOptions } from '../src/model/types.js';

const DIR = join(import.meta.dirname, '..', '__testfixtures__', 'mcp-migrate');

interface FixtureCase {
  name: string;
  /** The input file: `<name>.input.<ext>`, or another case's input named by `<name>.options.json` `input`. */
  input: string;
  output: string;
  options: PipelineOptions;
}

/**
 * Every `<name>.output.<ext>` is a case. Its options come from `<name>.options.json`, which may also
 * name another case's input (the same server under another style or SDK, without a second copy).
 */
const cases: FixtureCase[] = readdirSync(DIR)
  .filter((f) => f.includes('.output.'))
  .map((output) => {
    const name = output.replace(/\.output\..*$/, '');
    const optionsFile = join(DIR, `${name}.options.json`);
    const extra = existsSync(optionsFile) ? (JSON.parse(readFileSync(optionsFile, 'utf8')) as Partial<PipelineOptions> & { input?: string }) : {};
    const { input = output.replace('.output.', '.input.'), ...options } = extra;
    return { name, input, output, options: { sdk: 'v1', style: 'server', ...options } };
  });

describe('SDK rewrite fixtures', () => {
  it('has fixtures for every shape', () => {
    expect(cases.length).toBeGreaterThanOrEqual(17);
  });

  for (const { name, input, output, options } of cases) {
    it(`${name}: ${input} -> ${output} (${options.sdk}, ${options.style})`, () => {
      const source = readFileSync(join(DIR, input), 'utf8');
      const expected = readFileSync(join(DIR, output), 'utf8');
      const result = processSource(input, source, options);
      expect(result.after ?? source).toBe(expected);
      // idempotence: the tool leaves its own output alone
      const again = processSource(input, expected, options);
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
    const source = readFileSync(join(DIR, 'console-log-writer.input.js'), 'utf8');
    const result = processSource('server.js', source, { sdk: 'v1', style: 'mcp-server' });
    expect(result.decision).toMatchObject({ kind: 'sdk', style: 'server' });
    const notes = result.decision.kind === 'sdk' ? result.decision.notes : [];
    expect(notes).toEqual([expect.stringMatching(/^--style mcp-server not applied: tools\/call hands the tool name to runTool\(\).*\(line 88\)/)]);
  });

  it('registers one tool per switch case when the split is provable', () => {
    const source = readFileSync(join(DIR, 'data-chunks-switch.input.mjs'), 'utf8');
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
