/**
 * `--style mcp-server` end to end: a corpus server whose tool split is provable is migrated into
 * McpServer + registerTool, started as a process and replayed with the official SDK Client; it must
 * answer as the original did, within exactly the wire changes its diff header lists (a thrown tool
 * error as an isError result carrying the message; v1's zod schemas gain a root `$schema`). One run
 * goes through the proof (no --no-verify): the side-by-side comparison takes those listed changes as
 * expected, so the McpServer form is what gets written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareTranscripts, copyCase, ensureBuilt, getFailedRules, probeRaw, readCase, readTree, recordOriginal, removeAllCases, replayWithSdkClient, runCli, type CliResult } from './harness.js';

const TIMEOUT_MS = 180_000;

beforeAll(ensureBuilt, 300_000);
afterAll(removeAllCases);

function describeCli(cli: CliResult): string {
  return `exit ${String(cli.code)}\n--- stdout\n${cli.stdout}\n--- stderr\n${cli.stderr}`;
}

describe.concurrent.each([
  // resources and prompts stay on server.server; the one tool is registered (v1: a zod shape)
  { name: '07-resources-prompts', sdk: 'v1', entry: 'src/index.js', proof: true },
  // three tools, one of them with an integer without bounds: only v2 (fromJsonSchema) takes it
  { name: '02-esm-data-buffer-switch', sdk: 'v2', entry: 'index.mjs', proof: false },
] as const)('--style mcp-server on $name ($sdk)', ({ name, sdk, entry, proof }) => {
  it('writes McpServer.registerTool per tool and answers the SDK Client as the original did, within the listed wire changes', async () => {
    const dir = await copyCase(name);
    const kase = await readCase(dir);
    const original = await recordOriginal(dir, kase);
    const cli = await runCli(['--yes', '--style', 'mcp-server', '--sdk', sdk, ...(proof ? [] : ['--no-verify']), dir], dir);
    expect(cli.code, describeCli(cli)).toBe(0);
    const text = (await readTree(dir)).get(entry)?.toString('utf8') ?? '';
    expect(text, describeCli(cli)).toContain('new McpServer(');
    expect(text).toContain('.registerTool(');
    expect(text).not.toContain('CallToolRequestSchema');
    // the header names the wire changes; the proof took them as expected, not as differences
    expect(cli.stdout + cli.stderr).toContain('wire change: an error a tool throws');
    if (proof) expect(cli.stdout + cli.stderr).toMatch(/answers like the original \([^)]*expected: the wire changes its header lists\)/);

    const replay = await replayWithSdkClient(dir, kase, { sdk });
    const differences = compareTranscripts(original, replay, { toolErrorsMayBecomeIsError: true, schemaMayGainDialect: sdk === 'v1' });
    expect(differences, `server stderr:\n${replay.stderr}`).toEqual([]);
    // and the rules the server style holds still hold (v2's transport cannot answer bad JSON: as for the server style)
    const failed = getFailedRules(await probeRaw(dir, kase));
    expect(failed).toEqual(sdk === 'v2' ? ['parse-error'] : []);

    // a second run leaves the McpServer output alone
    const before = await readTree(dir);
    const again = await runCli(['--check', '--style', 'mcp-server', dir], dir);
    expect(again.code, describeCli(again)).toBe(0);
    expect(await readTree(dir)).toEqual(before);
  }, TIMEOUT_MS);
});
