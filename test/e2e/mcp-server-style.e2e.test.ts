/**
 * `--style mcp-server` end to end: corpus case 02 (the shape whose per-tool split is provable) is
 * migrated to McpServer.registerTool with SDK v1 (zod shapes) and v2 (fromJsonSchema), started, and
 * replayed with the SDK Client. Tool schemas are compared semantically: v1 publishes them through zod,
 * which adds `$schema` and bounds integers to the safe range; nothing else may differ.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compareTranscripts,
  copyCase,
  ensureBuilt,
  getFailedRules,
  probeRaw,
  readCase,
  recordOriginal,
  removeAllCases,
  replayWithSdkClient,
  runCli,
  type Transcript,
} from './harness.js';

const TIMEOUT_MS = 180_000;
const SAFE = 9007199254740991;

beforeAll(ensureBuilt, 300_000);
afterAll(removeAllCases);

/** What zod adds when it publishes a JSON Schema that the original did not say but also did not forbid. */
function normalizeSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(normalizeSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (key === '$schema') continue;
    if (key === 'minimum' && value === -SAFE && (schema as { type?: string }).type === 'integer') continue;
    if (key === 'maximum' && value === SAFE && (schema as { type?: string }).type === 'integer') continue;
    copy[key] = normalizeSchema(value);
  }
  return copy;
}

function normalizeTools(transcript: Transcript): Transcript {
  return {
    ...transcript,
    entries: transcript.entries.map((entry) => {
      if (entry.step !== 'tools/list' || !entry.result) return entry;
      const result = entry.result as { tools: { inputSchema?: unknown }[] };
      return { ...entry, result: { ...result, tools: result.tools.map((tool) => ({ ...tool, inputSchema: normalizeSchema(tool.inputSchema) })) } };
    }),
  };
}

describe.concurrent.each([
  ['v1', ['--style', 'mcp-server']],
  ['v2', ['--style', 'mcp-server', '--sdk', 'v2']],
] as const)('--style mcp-server with SDK %s on 02-esm-data-buffer-switch', (sdk, flags) => {
  it('registers one tool per branch and answers the SDK Client as the original did', async () => {
    const dir = await copyCase('02-esm-data-buffer-switch');
    const kase = await readCase(dir);
    const original = await recordOriginal(dir, kase);
    const cli = await runCli(['--yes', ...flags, dir], dir);
    expect(cli.code, cli.stderr + cli.stdout).toBe(0);
    const { readFile } = await import('node:fs/promises');
    const migratedSource = await readFile(`${dir}/index.mjs`, 'utf8');
    expect(migratedSource.match(/server\.registerTool\(/g)).toHaveLength(3);
    expect(migratedSource).not.toContain('setRequestHandler');
    const replay = await replayWithSdkClient(dir, kase, { sdk });
    expect(compareTranscripts(normalizeTools(original), normalizeTools(replay), { toolErrorsMayBecomeIsError: true }), replay.stderr).toEqual([]);
    const failed = getFailedRules(await probeRaw(dir, kase));
    expect(failed).toEqual(sdk === 'v2' ? ['parse-error'] : []);
  }, TIMEOUT_MS);
});
