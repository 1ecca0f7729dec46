/**
 * Every MCP area the SDK rewrite maps (tools, resources, templates, prompts, completion, logging, a
 * notification handler of the server's own), migrated with v1 and v2 and replayed with the SDK Client.
 */
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareTranscripts, copyCase, ensureBuilt, getFailedRules, probeRaw, readCase, recordOriginal, removeAllCases, replayWithSdkClient, runCli } from './harness.js';

const SERVERS = join(import.meta.dirname, '..', 'fixtures', 'servers');
const TIMEOUT_MS = 180_000;

beforeAll(ensureBuilt, 300_000);
afterAll(removeAllCases);

describe.concurrent.each(['v1', 'v2'] as const)('notes-server migrated with --sdk %s', (sdk) => {
  it('answers every area as before, handles notifications/cancelled, and holds the envelope rules', async () => {
    const dir = await copyCase('notes-server', SERVERS);
    const kase = await readCase(dir);
    const original = await recordOriginal(dir, kase);
    const cli = await runCli(['--yes', '--no-verify', '--sdk', sdk, dir], dir);
    expect(cli.code, cli.stderr + cli.stdout).toBe(0);
    const migrated = await readFile(join(dir, 'server.js'), 'utf8');
    // v1: the dispatcher-level rewrite. v2 sends a resource miss (-32002, which this server answers) as
    // -32602 at the dispatcher, so the SDK goes at the boundary, which keeps -32002 for 2025-era clients
    if (sdk === 'v1') {
      expect(migrated).toContain('setNotificationHandler(');
      expect(migrated).not.toContain('readline');
    } else {
      expect(cli.stdout).toContain('not at the dispatcher: RESOURCE_MISS_CODE');
      expect(migrated).toContain("require('./mcp-boundary.js')");
    }
    const replay = await replayWithSdkClient(dir, kase, { sdk });
    expect(compareTranscripts(original, replay), replay.stderr).toEqual([]);
    const probes = await probeRaw(dir, kase);
    expect(getFailedRules(probes)).toEqual([]);
    // the server's own cancellation handler ran (it logs to stderr)
    expect(probes.stderr).toMatch(/cancelled \S+ at level/);
    // and a second run has nothing left to do
    expect((await runCli(['--check', dir], dir)).code).toBe(0);
  }, TIMEOUT_MS);
});
