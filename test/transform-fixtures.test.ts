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
  const decide = (name: string, options: PipelineOptions) => {
    const fixture = cases.find((c) => c.name === name)!;
    return processSource(fixture.input, readFileSync(fixture.input, 'utf8'), options, readModule);
  };

  it('registers one tool per branch and lists every wire change McpServer makes (v1, zod)', () => {
    const result = decide('mcp-server-switch-tools', { sdk: 'v1', style: 'mcp-server' });
    expect(result.decision).toMatchObject({ kind: 'sdk', style: 'mcp-server', wireChanges: ['TOOL_ERRORS_AS_RESULTS', 'ARGUMENTS_VALIDATED', 'UNKNOWN_TOOL', 'SCHEMAS_REPUBLISHED', 'TOOLS_LIST_CHANGED', 'ARGUMENTS_PARSED'] });
    const notes = result.decision.kind === 'sdk' ? result.decision.notes : [];
    expect(notes[0]).toBe('tools registered with McpServer.registerTool: add_note, read_note, count_notes');
    expect(notes.filter((n) => n.startsWith('wire change: '))).toHaveLength(6);
    expect(notes).toContain('wire change: an error a tool throws (a JSON-RPC error reply before) comes back as an isError result whose text is the error message; its code is not sent');
    // the same server in the default style: no wire change
    expect(decide('mcp-server-switch-tools', { sdk: 'v1', style: 'server' }).decision).toMatchObject({ kind: 'sdk', style: 'server' });
    expect(result.after).not.toContain('registerTool(\'unknown');
  });

  it('v2 publishes the literal schema through fromJsonSchema, where v1 finds an integer without both bounds lossy', () => {
    expect(decide('mcp-server-v2-if-chain', { sdk: 'v2', style: 'mcp-server' }).decision).toMatchObject({ kind: 'sdk', sdk: 'v2', style: 'mcp-server' });
    const v1 = decide('mcp-server-v2-if-chain', { sdk: 'v1', style: 'mcp-server' });
    expect(v1.decision).toMatchObject({ kind: 'sdk', style: 'server', styleReason: 'MCP_SERVER_SCHEMA_LOSSY', wireChanges: [] });
    const notes = v1.decision.kind === 'sdk' ? v1.decision.notes : [];
    expect(notes[0]).toMatch(/^--style mcp-server not applied: the inputSchema of tool roll has an integer without both bounds at properties\.count\.type/);
  });

  it('a McpServer form the proof refused gives way to the server style (the next rewrite it proves)', () => {
    const refused = decide('mcp-server-switch-tools', { sdk: 'v1', style: 'mcp-server', refused: { mcpServer: 'tools/call add_note (result): ...' } });
    expect(refused.decision).toMatchObject({ kind: 'sdk', style: 'server', styleReason: 'MCP_SERVER_ANSWERS_DIFFERENTLY', wireChanges: [] });
    expect(refused.after).toBe(decide('mcp-server-switch-tools', { sdk: 'v1', style: 'server' }).after);
    // and when the server style is refused too, the SDK at the boundary; past that, the envelope
    expect(decide('mcp-server-switch-tools', { sdk: 'v1', style: 'mcp-server', refused: { mcpServer: 'x', sdk: 'y' } }).decision).toMatchObject({ kind: 'boundary', reason: 'SDK_ANSWERS_DIFFERENTLY' });
    expect(decide('mcp-server-switch-tools', { sdk: 'v1', style: 'mcp-server', refused: { mcpServer: 'x', sdk: 'y', boundary: 'z' } }).decision).toMatchObject({ kind: 'envelope', reason: 'BOUNDARY_ANSWERS_DIFFERENTLY' });
  });

  it('falls back to the server style, with the reason, where the split is not proven', () => {
    const lossy = decide('mcp-server-fallback-lossy-schema', { sdk: 'v1', style: 'mcp-server' });
    expect(lossy.decision).toMatchObject({ kind: 'sdk', style: 'server', styleReason: 'MCP_SERVER_SCHEMA_LOSSY' });
    expect(lossy.decision.kind === 'sdk' && lossy.decision.notes[0]).toContain('uses properties.to.format, which has no lossless zod form (line 18) [MCP_SERVER_SCHEMA_LOSSY]');
    // the same server with --sdk v2 keeps the schema as written
    expect(decide('mcp-server-fallback-lossy-schema', { sdk: 'v2', style: 'mcp-server' }).decision).toMatchObject({ style: 'mcp-server' });
    const shared = decide('mcp-server-fallback-shared-try', { sdk: 'v1', style: 'mcp-server' });
    expect(shared.decision).toMatchObject({ kind: 'sdk', style: 'server', styleReason: 'MCP_SERVER_NO_TOOL_SPLIT' });
    // what falls back is exactly the server style
    expect(shared.after).toBe(decide('mcp-server-fallback-shared-try', { sdk: 'v1', style: 'server' }).after);
    // a tool table built from a helper call (corpus 06): no literal table
    const table = processSource('server.js', input('console-log-writer'), { sdk: 'v1', style: 'mcp-server' }, readModule);
    expect(table.decision).toMatchObject({ kind: 'sdk', style: 'server', styleReason: 'MCP_SERVER_TOOL_TABLE' });
    expect(table.after).toBe(output('console-log-writer'));
  });
});

describe('jscodeshift adapter', () => {
  it('returns undefined when nothing changes and the rewrite otherwise', () => {
    const api = {} as Parameters<typeof transform>[1];
    expect(transform({ path: 'worker.js', source: input('not-mcp-json-worker') }, api, {})).toBeUndefined();
    // (the fixture outputs are the v1 rewrite)
    expect(transform({ path: 'server.js', source: input('readline-bare-ifs') }, api, { sdk: 'v1' })).toBe(output('readline-bare-ifs'));
  });
});
