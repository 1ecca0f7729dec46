// `mcp-migrate verify --compare`: the contract diff between two running servers. The fixtures in
// test/fixtures/verify share one behaviour (logic.cjs) and differ in how they speak JSON-RPC: a
// hand-rolled original (honest.cjs), an honest SDK migration of it and a broken one whose tools/call
// handler reads a variable the rewrite did not carry over.
import { describe, it, expect } from 'vitest';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { main } from '../src/cli/main.js';
import type { CompareReport } from '../src/cli/compare.js';
import { compareContracts, isSame, PACKAGE_PATH, withPackagePath, type Checked } from '../src/verify/compare.js';
import { VERIFY_RULE_IDS } from '../src/verify/rules.js';
import { makeHarness } from './fixtures/cli/harness.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/verify/', import.meta.url));
const TIMEOUT = '1500';

async function compare(original: string, migrated: string[], extra: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  const h = makeHarness(FIXTURES);
  const code = await main(['verify', '--timeout', TIMEOUT, '--compare', original, '--method', 'stats/get', ...extra, '--', ...migrated], h.deps);
  return { code, stdout: h.stdout(), stderr: h.stderr() };
}

describe.concurrent('verify --compare on real servers', () => {
  it('an honest migration answers alike: exit 0, with what it fixes listed as fixes', async () => {
    const run = await compare('node honest.cjs', ['node', 'honest-migrated.cjs'], ['--report', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as CompareReport;
    expect(report).toMatchObject({ schemaVersion: 1, mode: 'compare', equal: true, differences: [], methods: ['stats/get'] });
    expect(report.original).toMatchObject({ command: ['node', 'honest.cjs'], server: { name: 'honest', version: '1.0.0' }, protocolVersion: '2024-11-05' });
    expect(report.migrated).toMatchObject({ command: ['node', 'honest-migrated.cjs'], protocolVersion: '2025-06-18' });
    // two tools (valid and invalid arguments), three listings, one resource, one prompt, the custom method,
    // a resource and a prompt that do not exist
    expect(report.compared).toBe(12);
    expect(report.fixes.map((f) => f.what)).toEqual(['reply-to-notification', 'ping-unanswered']);
    expect(report.fixes[1]).toEqual({ what: 'ping-unanswered', original: 'ping answered error -32601 "Method not found"', migrated: 'ping answered {}' });
    expect(report.notes).toEqual(['protocolVersion "2024-11-05" -> "2025-06-18": negotiated, not compared']);
  });

  it('a migration whose tools/call throws ReferenceError is different: exit 1, each call named', async () => {
    const run = await compare('node honest.cjs', ['node', 'broken-migrated.cjs'], ['--report', 'json']);
    expect(run.code, run.stderr).toBe(1);
    const report = JSON.parse(run.stdout) as CompareReport;
    expect(report.equal).toBe(false);
    expect(report.differences).toContainEqual({
      what: 'tools/call add',
      aspect: 'answer',
      original: 'result {"content":[{"type":"text","text":"2"}]}',
      migrated: 'error -32603 "params is not defined"',
    });
    expect(report.differences).toContainEqual({ what: 'tools/call add (invalid: without required a, b)', aspect: 'error code', original: '-32602', migrated: '-32603' });
    expect(report.differences).toContainEqual({
      what: 'tools/call add (invalid: without required a, b)',
      aspect: 'error message',
      original: '"a and b must be numbers"',
      migrated: '"params is not defined"',
    });
    expect(report.differences.find((d) => d.what === 'tool-call-crashed')).toMatchObject({ aspect: 'rule', migrated: expect.stringContaining('fails: tools/call add answered error -32603') });
    // what does not change is not reported: listings, the resource, the prompt, the custom method
    expect(report.differences.map((d) => d.what).filter((what) => !what.startsWith('tools/call') && what !== 'tool-call-crashed')).toEqual([]);
  });

  it('prints the diff as text', async () => {
    const run = await compare('node honest.cjs', ['node', 'broken-migrated.cjs']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Compared node honest.cjs (original) with node broken-migrated.cjs (migrated) (ndjson, 1500 ms per reply)\n');
    expect(run.stdout).toContain('  Differences (6):\n    tools/call add (answer)\n      original: result {"content":[{"type":"text","text":"2"}]}\n      migrated: error -32603 "params is not defined"\n');
    expect(run.stdout).toContain('  Fixes (2), not differences:\n    reply-to-notification\n');
    expect(run.stdout).toMatch(/The servers answer differently: 6 difference\(s\) in 12 requests compared\.\n$/);
    expect(run.stdout).not.toContain('\x1b[');
  });

  it('a server that cannot start: exit 3, naming which', async () => {
    const run = await compare('node honest.cjs', ['mcp-migrate-no-such-command-xyz'], ['--report', 'json']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('the migrated server (mcp-migrate-no-such-command-xyz): could not start');
    expect(JSON.parse(run.stdout)).toMatchObject({ equal: false, error: { side: 'migrated' } });
  });

  it('usage errors: exit 2', async () => {
    const h = makeHarness(tmpdir());
    expect(await main(['verify', '--compare', 'node "unclosed', '--', 'node', 'x.js'], h.deps)).toBe(2);
    expect(h.stderr()).toContain('invalid value for --compare');
  });
});

/** A checked result with just the parts compareContracts reads. */
function checked(parts: Partial<Checked> & { exchanges?: Checked['contract']['exchanges']; initialize?: Record<string, unknown> }): Checked {
  return {
    kind: 'checked',
    results: parts.results ?? VERIFY_RULE_IDS.map((rule) => ({ rule, ok: true, detail: 'ok' })),
    serverInfo: { name: 's', version: '1' },
    protocolVersion: parts.protocolVersion ?? '2025-06-18',
    contract: {
      initialize: parts.initialize ?? { protocolVersion: parts.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } },
      exchanges: parts.exchanges ?? [],
      notSent: [],
      restarts: [],
    },
    exitedEarly: null,
    stderrTail: '',
    pid: 1,
  };
}

describe('compareContracts: what is a difference, a fix, or normalised', () => {
  const toolsList = (tools: unknown[]) => ({ key: 'tools/list', method: 'tools/list', outcome: { kind: 'result' as const, value: { tools } } });

  it('ignores key order, list order and isError: false; notes the protocol version', () => {
    const a = checked({
      protocolVersion: '2024-11-05',
      initialize: { protocolVersion: '2024-11-05', serverInfo: { version: '1', name: 's' }, capabilities: { tools: {} } },
      exchanges: [
        toolsList([{ name: 'a', inputSchema: { type: 'object' } }, { name: 'b' }]),
        { key: 'tools/call a', method: 'tools/call', outcome: { kind: 'result', value: { content: [], isError: false } } },
      ],
    });
    const b = checked({
      initialize: { serverInfo: { name: 's', version: '1' }, capabilities: { tools: {} }, protocolVersion: '2025-06-18' },
      exchanges: [toolsList([{ name: 'b' }, { inputSchema: { type: 'object' }, name: 'a' }]), { key: 'tools/call a', method: 'tools/call', outcome: { kind: 'result', value: { content: [] } } }],
    });
    const diff = compareContracts(a, b);
    expect(diff.differences).toEqual([]);
    expect(diff.notes).toEqual(['protocolVersion "2024-11-05" -> "2025-06-18": negotiated, not compared']);
  });

  it('lists listing changes item by item, and error codes and messages apart', () => {
    const a = checked({
      exchanges: [
        toolsList([{ name: 'a', description: 'old' }, { name: 'gone' }]),
        { key: 'tools/call a', method: 'tools/call', outcome: { kind: 'error', error: { code: -32602, message: 'bad' } } },
      ],
    });
    const b = checked({
      exchanges: [toolsList([{ name: 'a', description: 'new' }, { name: 'added' }]), { key: 'tools/call a', method: 'tools/call', outcome: { kind: 'error', error: { code: -32603, message: 'boom' } } }],
    });
    expect(compareContracts(a, b).differences).toEqual([
      { what: 'tools/list: tool a: description', aspect: 'listing', original: '"old"', migrated: '"new"' },
      { what: 'tools/list: tool gone', aspect: 'listing', original: 'listed', migrated: 'not listed' },
      { what: 'tools/list: tool added', aspect: 'listing', original: 'not listed', migrated: 'listed' },
      { what: 'tools/call a', aspect: 'error code', original: '-32602', migrated: '-32603' },
      { what: 'tools/call a', aspect: 'error message', original: '"bad"', migrated: '"boom"' },
    ]);
  });

  it('counts as fixes: a rule now kept, a request now answered, a standard error with the same text, a declared capability the original served, a resource uri', () => {
    const failing = VERIFY_RULE_IDS.map((rule) => ({ rule, ok: rule !== 'wrong-id', detail: rule === 'wrong-id' ? 'tools/list (id 0) answered with id null' : 'ok' }));
    const a = checked({
      results: failing,
      initialize: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } },
      exchanges: [
        { key: 'prompts/list', method: 'prompts/list', outcome: { kind: 'result', value: { prompts: [] } }, undeclared: true },
        { key: 'tools/call a', method: 'tools/call', outcome: { kind: 'no-reply', detail: 'no reply within 1 ms' } },
        { key: 'tools/call b', method: 'tools/call', outcome: { kind: 'error', error: 'Unknown tool' } },
        { key: 'resources/read x://1', method: 'resources/read', params: { uri: 'x://1' }, outcome: { kind: 'result', value: { contents: [{ text: 'hi' }] } } },
      ],
    });
    const b = checked({
      initialize: { protocolVersion: '2025-06-18', capabilities: { tools: {}, prompts: {} }, serverInfo: { name: 's', version: '1' } },
      exchanges: [
        { key: 'prompts/list', method: 'prompts/list', outcome: { kind: 'result', value: { prompts: [] } } },
        { key: 'tools/call a', method: 'tools/call', outcome: { kind: 'error', error: { code: -32603, message: 'x' } } },
        { key: 'tools/call b', method: 'tools/call', outcome: { kind: 'error', error: { code: -32602, message: 'Unknown tool' } } },
        { key: 'resources/read x://1', method: 'resources/read', params: { uri: 'x://1' }, outcome: { kind: 'result', value: { contents: [{ uri: 'x://1', text: 'hi' }] } } },
      ],
    });
    const diff = compareContracts(a, b);
    expect(diff.differences).toEqual([]);
    expect(diff.fixes.map((f) => f.what)).toEqual(['initialize: capabilities.prompts', 'tools/call a', 'tools/call b', 'resources/read x://1', 'wrong-id']);
  });

  it('a rule the original keeps and the migrated server breaks is a difference; one both break is listed apart', () => {
    const results = (broken: string[]) => VERIFY_RULE_IDS.map((rule) => ({ rule, ok: !broken.includes(rule), detail: broken.includes(rule) ? 'bad' : 'good' }));
    const diff = compareContracts(checked({ results: results(['stdout-pollution']) }), checked({ results: results(['stdout-pollution', 'ping-unanswered']) }));
    expect(diff.differences).toEqual([{ what: 'ping-unanswered', aspect: 'rule', original: 'passes: good', migrated: 'fails: bad' }]);
    expect(diff.unfixed).toEqual([{ rule: 'stdout-pollution', original: 'bad', migrated: 'bad' }]);
  });

  it('a listing neither server declares answered -32601 instead of the original own error code is a fix', () => {
    const listing = (error: unknown) => checked({ exchanges: [{ key: 'prompts/list', method: 'prompts/list', params: {}, outcome: { kind: 'error', error }, undeclared: true }] });
    const diff = compareContracts(listing({ code: -32000, message: 'Unknown method: prompts/list' }), listing({ code: -32601, message: 'Method not found' }));
    expect(diff.differences).toEqual([]);
    expect(diff.fixes).toEqual([{ what: 'prompts/list', original: 'error -32000 "Unknown method: prompts/list"', migrated: 'error -32601 "Method not found"' }]);
    // served without being declared, and no longer served: a difference
    const served = checked({ exchanges: [{ key: 'prompts/list', method: 'prompts/list', params: {}, outcome: { kind: 'result', value: { prompts: [] } }, undeclared: true }] });
    expect(compareContracts(served, listing({ code: -32601, message: 'Method not found' })).differences).toHaveLength(1);
  });

  it('compares -32601 by code only', () => {
    const error = (message: string) => checked({ exchanges: [{ key: 'x/y', method: 'x/y', outcome: { kind: 'error', error: { code: -32601, message } } }] });
    const diff = compareContracts(error('Method not found: x/y'), error('Method not found'));
    expect(diff.differences).toEqual([]);
    expect(diff.notes[0]).toContain('x/y: both -32601');
  });

  it('takes exactly the wire changes the rewrite lists as expected (McpServer), and nothing they do not explain', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 0, maximum: 9 } }, required: ['n'] };
    const a = checked({
      initialize: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } },
      exchanges: [
        toolsList([{ name: 'pick', description: 'Pick', inputSchema: schema }]),
        { key: 'tools/call pick', method: 'tools/call', outcome: { kind: 'error', error: { code: -32602, message: 'n is taken' } } },
        { key: 'tools/call pick (invalid: without required n)', method: 'tools/call', outcome: { kind: 'result', value: { content: [{ type: 'text', text: 'picked undefined' }] } } },
        { key: 'tools/call other', method: 'tools/call', outcome: { kind: 'error', error: { code: -32603, message: 'boom' } } },
      ],
    });
    const b = checked({
      initialize: { protocolVersion: '2025-06-18', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 's', version: '1' } },
      exchanges: [
        toolsList([{ name: 'pick', description: 'Pick', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', ...schema }, execution: { taskSupport: 'forbidden' } }]),
        { key: 'tools/call pick', method: 'tools/call', outcome: { kind: 'result', value: { content: [{ type: 'text', text: 'n is taken' }], isError: true } } },
        {
          key: 'tools/call pick (invalid: without required n)',
          method: 'tools/call',
          outcome: { kind: 'result', value: { content: [{ type: 'text', text: 'MCP error -32602: Input validation error: Invalid arguments for tool pick: n' }], isError: true } },
        },
        // an isError result that does not carry the original message is not what McpServer makes of a throw
        { key: 'tools/call other', method: 'tools/call', outcome: { kind: 'result', value: { content: [{ type: 'text', text: 'something else' }], isError: true } } },
      ],
    });
    // without a listed change every one of them is a difference
    expect(compareContracts(a, b).differences.map((d) => d.what)).toEqual([
      'initialize: capabilities.tools',
      'tools/list: tool pick: execution',
      'tools/list: tool pick: inputSchema',
      'tools/call pick',
      'tools/call pick (invalid: without required n)',
      'tools/call other',
    ]);
    const diff = compareContracts(a, b, ['TOOLS_LIST_CHANGED', 'SCHEMAS_REPUBLISHED', 'TOOL_ERRORS_AS_RESULTS', 'ARGUMENTS_VALIDATED']);
    expect(diff.expected.map((e) => [e.what, e.change])).toEqual([
      ['initialize: capabilities.tools', 'TOOLS_LIST_CHANGED'],
      ['tools/list: tool pick: execution', 'SCHEMAS_REPUBLISHED'],
      ['tools/list: tool pick: inputSchema', 'SCHEMAS_REPUBLISHED'],
      ['tools/call pick', 'TOOL_ERRORS_AS_RESULTS'],
      ['tools/call pick (invalid: without required n)', 'ARGUMENTS_VALIDATED'],
    ]);
    expect(diff.differences.map((d) => d.what)).toEqual(['tools/call other']);
    // only the changes listed: schemas republished alone leaves the rest as differences
    expect(compareContracts(a, b, ['SCHEMAS_REPUBLISHED']).differences.map((d) => d.what)).toEqual(['initialize: capabilities.tools', 'tools/call pick', 'tools/call pick (invalid: without required n)', 'tools/call other']);
    // a schema that changed beyond what zod adds (a bound dropped) stays a difference
    const loose = checked({ exchanges: [toolsList([{ name: 'pick', description: 'Pick', inputSchema: { ...schema, properties: { n: { type: 'integer', minimum: 0 } } }, execution: { taskSupport: 'forbidden' } }])] });
    expect(compareContracts(checked({ exchanges: [a.contract.exchanges[0]!] }), loose, ['SCHEMAS_REPUBLISHED']).differences.map((d) => d.what)).toEqual(['tools/list: tool pick: inputSchema']);
  });

  it('v2: takes a bad line ignored (BAD_JSON_IGNORED) and -32002 become -32602 on a read (RESOURCE_NOT_FOUND_CODE) only when listed, and only those', () => {
    const rules = (parseAnswered: boolean) => VERIFY_RULE_IDS.map((rule) => ({ rule, ok: rule === 'parse-error-unanswered' ? parseAnswered : true, detail: 'x' }));
    const read = (code: number) => ({ key: 'resources/read mcp-migrate://no-such-resource', method: 'resources/read', outcome: { kind: 'error' as const, error: { code, message: 'Resource not found' } } });
    const call = (code: number) => ({ key: 'tools/call pick', method: 'tools/call', outcome: { kind: 'error' as const, error: { code, message: 'bad' } } });
    const a = checked({ results: rules(true), exchanges: [read(-32002), call(-32002)] });
    const b = checked({ results: rules(false), exchanges: [read(-32602), call(-32602)] });
    expect(compareContracts(a, b).differences.map((d) => [d.what, d.aspect])).toEqual([
      ['resources/read mcp-migrate://no-such-resource', 'error code'],
      ['tools/call pick', 'error code'],
      ['parse-error-unanswered', 'rule'],
    ]);
    const diff = compareContracts(a, b, ['BAD_JSON_IGNORED', 'RESOURCE_NOT_FOUND_CODE']);
    expect(diff.expected.map((e) => [e.what, e.change])).toEqual([
      ['resources/read mcp-migrate://no-such-resource', 'RESOURCE_NOT_FOUND_CODE'],
      ['parse-error-unanswered', 'BAD_JSON_IGNORED'],
    ]);
    // the same code change on a tool call is no resource not found
    expect(diff.differences.map((d) => d.what)).toEqual(['tools/call pick']);
  });

  it('a move from v1: an error message without McpError\'s "MCP error <code>: " prefix, same code (V1_ERROR_PREFIX), only when listed', () => {
    const error = (key: string, code: number, message: string) => ({ key, method: 'tools/call', outcome: { kind: 'error' as const, error: { code, message } } });
    const a = checked({ exchanges: [error('tools/call a', -32602, 'MCP error -32602: Unknown tool: a'), error('tools/call b', -32603, 'MCP error -32603: boom'), error('tools/call c', -32603, 'MCP error -32603: boom')] });
    const b = checked({ exchanges: [error('tools/call a', -32602, 'Unknown tool: a'), error('tools/call b', -32603, 'other'), error('tools/call c', -32602, 'boom')] });
    expect(compareContracts(a, b).differences.map((d) => [d.what, d.aspect])).toEqual([
      ['tools/call a', 'error message'],
      ['tools/call b', 'error message'],
      ['tools/call c', 'error code'],
      ['tools/call c', 'error message'],
    ]);
    const diff = compareContracts(a, b, ['V1_ERROR_PREFIX']);
    expect(diff.expected.map((e) => [e.what, e.change])).toEqual([['tools/call a', 'V1_ERROR_PREFIX']]);
    // another message, or the prefix dropped with the code changed, stays a difference
    expect(diff.differences.map((d) => [d.what, d.aspect])).toEqual([
      ['tools/call b', 'error message'],
      ['tools/call c', 'error code'],
      ['tools/call c', 'error message'],
    ]);
  });

  it('a path of the copy each side ran in (a tool that reports where it runs) is the same path for both', () => {
    const where = (dir: string) => ({ key: 'tools/call where', method: 'tools/call', outcome: { kind: 'result' as const, value: { content: [{ type: 'text', text: `running in ${dir}/src (config ${dir}/config.json)` }] } } });
    const [a, b] = [checked({ exchanges: [where('/tmp/trial-1/original/pkg')] }), checked({ exchanges: [where('/tmp/trial-1/migrated/pkg')] })];
    expect(compareContracts(a, b).differences.map((d) => d.what)).toEqual(['tools/call where']);
    const [x, y] = [withPackagePath(a, '/tmp/trial-1/original/pkg'), withPackagePath(b, '/tmp/trial-1/migrated/pkg')];
    expect(compareContracts(x, y).differences).toEqual([]);
    expect(JSON.stringify(x)).toContain(`running in ${PACKAGE_PATH}/src (config ${PACKAGE_PATH}/config.json)`);
    // another folder is no package path: still a difference
    const other = withPackagePath(checked({ exchanges: [where('/srv/elsewhere')] }), '/tmp/trial-1/migrated/pkg');
    expect(compareContracts(x, other).differences.map((d) => d.what)).toEqual(['tools/call where']);
  });

  it('isSame ignores key order only', () => {
    expect(isSame({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 })).toBe(true);
    expect(isSame([1, 2], [2, 1])).toBe(false);
    expect(isSame(undefined, null)).toBe(false);
  });
});

describe('verify --compare-ref', () => {
  const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };

  /** A repository whose pkg/server.cjs is the hand-rolled original at HEAD, then replaced in the work tree by `migrated`. */
  async function makeRepo(migrated: string): Promise<string> {
    const { execFileSync } = await import('node:child_process');
    const { cp, mkdtemp, mkdir, symlink, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const root = await mkdtemp(join(tmpdir(), 'mcp-migrate-ref-test-'));
    await mkdir(join(root, 'pkg'));
    await cp(join(FIXTURES, 'honest.cjs'), join(root, 'pkg', 'server.cjs'));
    // a sibling module the server imports: only an export of the whole package has it
    await cp(join(FIXTURES, 'logic.cjs'), join(root, 'pkg', 'logic.cjs'));
    await writeFile(join(root, '.gitignore'), 'node_modules\n');
    execFileSync('git', ['init', '-q'], { cwd: root, env: GIT_ENV });
    execFileSync('git', ['add', '-A'], { cwd: root, env: GIT_ENV });
    execFileSync('git', ['commit', '-qm', 'original'], { cwd: root, env: GIT_ENV });
    await symlink(fileURLToPath(new URL('../node_modules', import.meta.url)), join(root, 'node_modules'), 'dir');
    await cp(join(FIXTURES, migrated), join(root, 'pkg', 'server.cjs'));
    return root;
  }

  it('starts the original from an export of HEAD: a broken migration is different (exit 1), an honest one alike', async () => {
    const { join } = await import('node:path');
    const { rm } = await import('node:fs/promises');
    for (const [migrated, expected] of [['broken-migrated.cjs', 1], ['honest-migrated.cjs', 0]] as const) {
      const root = await makeRepo(migrated);
      const h = makeHarness(join(root, 'pkg'));
      const code = await main(['verify', '--timeout', TIMEOUT, '--compare-ref', 'HEAD', '--report', 'json', '--', 'node', 'server.cjs'], h.deps);
      expect(code, h.stderr()).toBe(expected);
      const report = JSON.parse(h.stdout()) as CompareReport;
      expect(report.original.server).toEqual({ name: 'honest', version: '1.0.0' });
      expect(report.equal).toBe(expected === 0);
      if (expected === 1) expect(report.differences.map((d) => d.what).join(' ')).toContain('tools/call');
      expect(h.stderr()).toMatch(/Original: HEAD \([0-9a-f]{12}\), exported to /);
      await rm(root, { recursive: true, force: true });
    }
  });

  it('an unknown ref or no repository is a usage error', async () => {
    const h = makeHarness(tmpdir());
    expect(await main(['verify', '--compare-ref', 'HEAD', '--', 'node', 'x.cjs'], h.deps)).toBe(2);
    expect(h.stderr()).toContain('--compare-ref needs a git work tree');
  });
});
