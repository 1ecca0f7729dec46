/**
 * The end-to-end check (STYLE.md rule 11): each corpus case is copied, its original recorded with
 * a raw client, migrated with `mcp-migrate --yes`, started again and replayed with the official
 * SDK `Client`. The answers must match the original's (within the corpus README's allowances),
 * the migrated server must hold every JSON-RPC envelope rule, and a second run must find nothing
 * to do. Cases that must stay unchanged are checked to stay byte-identical.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compareTranscripts,
  copyCase,
  diffTrees,
  ensureBuilt,
  getFailedRules,
  PROBE_RULES,
  probeRaw,
  readCase,
  readTree,
  recordOriginal,
  resolveRun,
  removeAllCases,
  replayWithSdkClient,
  runCli,
  typeCheck,
  type CaseSpec,
  type CliResult,
  type ProbeRule,
  type Transcript,
} from './harness.js';

/** Every `expect: "sdk"` case of the corpus: the SDK rewrite onto v1 (`--sdk v1`) must handle each. */
export const SDK_CASES = [
  '01-cjs-readline-bare-ifs',
  '02-esm-data-buffer-switch',
  '03-esm-handler-map',
  '04-ts-esm-class-dispatch',
  '05-ts-cjs-ifelse',
  '06-console-log-noise',
  '07-resources-prompts',
  '08-no-jsonrpc-field',
  '09-register-tool-registry',
  '10-custom-method-db-stats',
] as const;

/** Every sdk case is also migrated as the default picks for a package without an SDK (v2), and replayed with the v2 Client. */
export const V2_CASES = SDK_CASES;

/** Cases that are not hand-rolled MCP servers: nothing to migrate, nothing to change. */
export const UNCHANGED_CASES = ['13-already-sdk-mcpserver', '14-jsonl-worker-not-mcp'] as const;

/**
 * Envelope rules a migrated server may still break. Empty: every rule must hold. Note what was
 * measured (harness.test.ts, case 13): the SDK's StdioServerTransport (v1 1.32.2, v2 2.4.0) drops
 * an unparseable line without the -32700 / id null reply, so 'parse-error' holds only if the
 * migration answers it itself.
 */
const TOLERATED_PROBE_FAILURES: readonly ProbeRule[] = [];

/** One e2e test records, migrates and replays: generous, because servers start slowly under load. */
const TIMEOUT_MS = 180_000;

const SOURCE_FILE = /\.(?:[cm]?js|[cm]?ts)$/;

beforeAll(ensureBuilt, 300_000);
afterAll(removeAllCases);

interface Migration {
  readonly dir: string;
  readonly kase: CaseSpec;
  readonly original: Transcript;
  readonly before: Map<string, Buffer>;
  readonly after: Map<string, Buffer>;
  readonly cli: CliResult;
}

/** Copies the case, records the original, then runs `mcp-migrate --yes <dir>`. */
async function migrate(name: string, extraArgs: string[] = []): Promise<Migration> {
  const dir = await copyCase(name);
  const kase = await readCase(dir);
  const original = await recordOriginal(dir, kase);
  const before = await readTree(dir);
  const cli = await runCli(['--yes', '--no-verify', ...extraArgs, dir], dir);
  return { dir, kase, original, before, after: await readTree(dir), cli };
}

function describeCli(cli: CliResult): string {
  return `exit ${String(cli.code)}\n--- stdout\n${cli.stdout}\n--- stderr\n${cli.stderr}`;
}

function getDependencies(tree: Map<string, Buffer>): Record<string, unknown> {
  const manifest = JSON.parse(tree.get('package.json')?.toString('utf8') ?? '{}') as { dependencies?: Record<string, unknown> };
  return manifest.dependencies ?? {};
}

/** The tests of one `expect: "sdk"` case; they share one migration. */
function defineSdkMigrationTests(name: string): void {
  let migration: Promise<Migration> | undefined;
  const migrated = (): Promise<Migration> => (migration ??= migrate(name, ['--sdk', 'v1']));

  it('mcp-migrate --yes --sdk v1 exits 0, rewrites the server onto the SDK and adds it to package.json', async () => {
    const { cli, before, after } = await migrated();
    expect(cli.code, describeCli(cli)).toBe(0);
    const changed = diffTrees(before, after);
    const sources = changed.filter((path) => SOURCE_FILE.test(path));
    expect(sources, describeCli(cli)).not.toEqual([]);
    expect(sources.some((path) => after.get(path)?.toString('utf8').includes('@modelcontextprotocol/sdk'))).toBe(true);
    expect(changed).toContain('package.json');
    expect(getDependencies(after)).toHaveProperty(['@modelcontextprotocol/sdk']);
    expect(getDependencies(after)).toHaveProperty(['zod']);
  }, TIMEOUT_MS);

  it.each(['v1', 'v2'] as const)('the migrated server answers the SDK %s Client as the original answered', async (sdk) => {
    const { dir, kase, original, cli } = await migrated();
    expect(cli.code, describeCli(cli)).toBe(0);
    const replay = await replayWithSdkClient(dir, kase, { sdk });
    const differences = compareTranscripts(original, replay);
    expect(differences, `server stderr:\n${replay.stderr}\nclient notes:\n${replay.notes.join('\n')}`).toEqual([]);
  }, TIMEOUT_MS);

  it('the migrated server holds every JSON-RPC envelope rule', async () => {
    const { dir, kase, cli } = await migrated();
    expect(cli.code, describeCli(cli)).toBe(0);
    const report = await probeRaw(dir, kase);
    const failed = getFailedRules(report).filter((rule) => !TOLERATED_PROBE_FAILURES.includes(rule));
    const details = failed.map((rule) => `${rule}: ${report.rules[rule].detail}`).join('\n');
    expect(failed, `${details}\nserver stderr:\n${report.stderr}`).toEqual([]);
    expect(Object.keys(report.rules)).toEqual([...PROBE_RULES]);
  }, TIMEOUT_MS);

  it('mcp-migrate --check afterwards exits 0 and changes nothing (idempotent)', async () => {
    const { dir, cli } = await migrated();
    expect(cli.code, describeCli(cli)).toBe(0);
    const before = await readTree(dir);
    const check = await runCli(['--check', '--sdk', 'v1', dir], dir);
    expect(check.code, describeCli(check)).toBe(0);
    expect(diffTrees(before, await readTree(dir))).toEqual([]);
  }, TIMEOUT_MS);

  if (name.startsWith('04-') || name.startsWith('05-')) {
    it('the migrated TypeScript still type-checks with its own tsconfig', async () => {
      const { dir, cli } = await migrated();
      expect(cli.code, describeCli(cli)).toBe(0);
      const tsc = await typeCheck(dir);
      expect(tsc.code, tsc.stdout + tsc.stderr).toBe(0);
    }, TIMEOUT_MS);
  }
}

describe.concurrent.each(SDK_CASES)('SDK v1 migration of %s', (name) => {
  defineSdkMigrationTests(name);
});

describe.concurrent.each(V2_CASES)('SDK v2 migration (the default) of %s', (name) => {
  let migration: Promise<Migration> | undefined;
  const migrated = (): Promise<Migration> => (migration ??= migrate(name));

  it('mcp-migrate --yes (no --sdk) moves the server onto @modelcontextprotocol/server', async () => {
    const { cli, before, after } = await migrated();
    expect(cli.code, describeCli(cli)).toBe(0);
    const sources = diffTrees(before, after).filter((path) => SOURCE_FILE.test(path));
    expect(sources.some((path) => after.get(path)?.toString('utf8').includes("'@modelcontextprotocol/server'") || after.get(path)?.toString('utf8').includes('"@modelcontextprotocol/server"'))).toBe(true);
    expect(getDependencies(after)).toHaveProperty(['@modelcontextprotocol/server']);
    expect(getDependencies(after)).not.toHaveProperty(['@modelcontextprotocol/sdk']);
  }, TIMEOUT_MS);

  it('answers the SDK v2 Client as the original answered, and holds every envelope rule', async () => {
    const { dir, kase, original, cli } = await migrated();
    expect(cli.code, describeCli(cli)).toBe(0);
    const replay = await replayWithSdkClient(dir, kase, { sdk: 'v2' });
    expect(compareTranscripts(original, replay), replay.stderr).toEqual([]);
    // v2's StdioServerTransport skips a line that is not JSON inside its read buffer, before any hook
    // can see it (measured: 2.4.0), so only the -32700 reply is out of reach (a wire change the header
    // lists, BAD_JSON_IGNORED); every other rule holds.
    // (07 answers a resource miss -32002: it gets the boundary, which keeps that code and answers -32700 itself)
    const atBoundary = cli.stdout.includes('not at the dispatcher: RESOURCE_MISS_CODE');
    expect(atBoundary).toBe(name.startsWith('07-'));
    const failed = getFailedRules(await probeRaw(dir, kase));
    expect(failed).toEqual(atBoundary ? [] : ['parse-error']);
    if (!atBoundary) expect(cli.stdout).toContain('wire change: a line that is not JSON gets no reply: the SDK v2 stdio transport skips it');
  }, TIMEOUT_MS);

  if (name.startsWith('04-') || name.startsWith('05-')) {
    it('the migrated TypeScript still type-checks with its own tsconfig (each handler cast to its method\'s v2 result type)', async () => {
      const { dir, cli } = await migrated();
      expect(cli.code, describeCli(cli)).toBe(0);
      const tsc = await typeCheck(dir);
      expect(tsc.code, tsc.stdout + tsc.stderr).toBe(0);
    }, TIMEOUT_MS);
  }
});

/**
 * `serveStdio(factory)` serves 2026-07-28 clients too: a v2 Client pinned to that revision (no 2025
 * fallback) lists the tools and calls the first one, with the same answer the 2025 handshake gets.
 */
describe.concurrent.each(['01-cjs-readline-bare-ifs', '10-custom-method-db-stats'])('SDK v2 migration of %s with a 2026-07-28 client', (name) => {
  it('connects in the modern era and answers tools/list and tools/call as the original did', async () => {
    const { dir, kase, original, cli } = await migrate(name, ['--sdk', 'v2']);
    expect(cli.code, describeCli(cli)).toBe(0);
    const { Client } = await import('@modelcontextprotocol/client');
    const { StdioClientTransport, getDefaultEnvironment } = await import('@modelcontextprotocol/client/stdio');
    const run = resolveRun(kase.run);
    const transport = new StdioClientTransport({ command: run.command, args: [...run.args], cwd: dir, env: { ...getDefaultEnvironment(), ...kase.env }, stderr: 'pipe' });
    const client = new Client({ name: 'e2e-2026', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    try {
      await client.connect(transport);
      const listed = await client.listTools();
      const originalList = original.entries.find((e) => e.step === 'tools/list');
      expect(listed.tools.map((tool) => tool.name)).toEqual((originalList?.result as { tools: { name: string }[] }).tools.map((tool) => tool.name));
      const call = kase.calls[0]!;
      const answered = await client.callTool({ name: call.tool, arguments: call.arguments });
      const originalCall = original.entries.find((e) => e.step.startsWith('tools/call #1'));
      expect(answered.content).toEqual((originalCall?.result as { content: unknown }).content);
    } finally {
      await client.close();
    }
  }, TIMEOUT_MS);
});

describe.concurrent.each(UNCHANGED_CASES)('%s stays unchanged', (name) => {
  it('mcp-migrate --check exits 0 (no pending migration) and leaves every file byte-identical', async () => {
    const dir = await copyCase(name);
    const before = await readTree(dir);
    const check = await runCli(['--check', dir], dir);
    expect(check.code, describeCli(check)).toBe(0);
    expect(diffTrees(before, await readTree(dir))).toEqual([]);
  }, TIMEOUT_MS);

  it('mcp-migrate --yes exits 0 and writes nothing', async () => {
    const dir = await copyCase(name);
    const before = await readTree(dir);
    const run = await runCli(['--yes', '--no-verify', dir], dir);
    expect(run.code, describeCli(run)).toBe(0);
    expect(diffTrees(before, await readTree(dir))).toEqual([]);
  }, TIMEOUT_MS);
});
