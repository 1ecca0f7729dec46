// The jscodeshift path: the transform called as jscodeshift calls it (an injected `api` that records
// reports), and jscodeshift's own runner on copies of corpus servers (dist/, built before the tests run).
import { afterAll, describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import transform, { getDeclineReason } from '../transforms/mcp-migrate.js';
import type { FileResult } from '../src/model/types.js';
import { makeTree, read, removeTrees } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const ROOT = join(import.meta.dirname, '..');
const CORPUS = join(ROOT, 'test', 'fixtures', 'corpus');
const ENVELOPE_CASE = readFileSync(join(CORPUS, '11-content-length-framing', 'server.js'), 'utf8');
const SDK_CASE = readFileSync(join(CORPUS, '01-cjs-readline-bare-ifs', 'server.js'), 'utf8');

function recordingApi(): { api: Parameters<typeof transform>[1]; reports: string[] } {
  const reports: string[] = [];
  const api = { report: (message: string) => void reports.push(message) } as unknown as Parameters<typeof transform>[1];
  return { api, reports };
}

describe('transform: what jscodeshift cannot write', () => {
  it('declines an envelope rewrite that needs the helper module, naming it, and changes nothing', () => {
    const { api, reports } = recordingApi();
    const path = join(CORPUS, '11-content-length-framing', 'server.js');
    expect(transform({ path, source: ENVELOPE_CASE }, api, {})).toBeUndefined();
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatch(/^mcp-migrate declined: the rewrite needs a new file next to it \(mcp-envelope\.c?js: the JSON-RPC envelope helper\)/);
    expect(reports[0]).toContain(`run \`mcp-migrate ${path}\``);
  });

  it('declines a rewrite that also changes another file of the server', () => {
    const result: FileResult = {
      path: '/p/index.js',
      before: 'a',
      after: 'b',
      decision: { kind: 'sdk', sdk: 'v1', style: 'server', notes: [] },
      fixes: [],
      findings: [],
      diagnostics: [],
      related: [{ path: '/p/lib/dispatch.js', before: 'c', after: 'd' }],
    };
    expect(getDeclineReason(result)).toBe('the rewrite also changes dispatch.js (the same server), and a jscodeshift transform can only change the file it is given');
    expect(getDeclineReason({ ...result, related: [] })).toBeNull();
    expect(getDeclineReason({ ...result, after: undefined })).toBeNull();
  });

  it('writes a one-file SDK rewrite without a report', () => {
    const { api, reports } = recordingApi();
    const after = transform({ path: join(CORPUS, '01-cjs-readline-bare-ifs', 'server.js'), source: SDK_CASE }, api, {});
    // (its package has no SDK: the current generation, as the CLI's auto picks it)
    expect(after).toContain('serveStdio(() => {');
    expect(reports).toEqual([]);
    expect(transform({ path: join(CORPUS, '01-cjs-readline-bare-ifs', 'server.js'), source: SDK_CASE }, api, { sdk: 'v1' })).toContain('new StdioServerTransport()');
  });

  it('writes a rewrite that drops logging only initialize ran, and reports what it dropped', () => {
    const { api, reports } = recordingApi();
    const source = SDK_CASE.replace(/(if \(msg\.method === 'initialize'\) \{)/, "$1\n    console.error('hello');");
    expect(source).not.toBe(SDK_CASE);
    const after = transform({ path: join(CORPUS, '01-cjs-readline-bare-ifs', 'server.js'), source }, api, {});
    expect(after).toContain('serveStdio(() => {');
    expect(after).not.toContain("console.error('hello')");
    expect(reports).toEqual([expect.stringMatching(/^mcp-migrate dropped: line \d+: `console\.error\('hello'\)`, run only for initialize: /)]);
  });
});

describe('jscodeshift runner', () => {
  it("runs the README's command as written: reports the refusal for the envelope case, leaves it as it was, and migrates the SDK case to a file that parses", async () => {
    // a user's project with mcp-migrate and jscodeshift installed (linked to this checkout's build)
    const root = await makeTree({ 'package.json': '{ "name": "user-project", "private": true }\n', 'src/envelope/server.js': ENVELOPE_CASE, 'src/sdk/server.js': SDK_CASE });
    await mkdir(join(root, 'node_modules', '.bin'), { recursive: true });
    await symlink(ROOT, join(root, 'node_modules', 'mcp-migrate'), 'dir');
    await symlink(join(ROOT, 'node_modules', 'jscodeshift'), join(root, 'node_modules', 'jscodeshift'), 'dir');
    await symlink(join(ROOT, 'node_modules', 'jscodeshift', 'bin', 'jscodeshift.js'), join(root, 'node_modules', '.bin', 'jscodeshift'));
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const command = /`(npx jscodeshift -t [^`]+)`/.exec(readme)?.[1];
    expect(command).toBe('npx jscodeshift -t node_modules/mcp-migrate/dist/transforms/mcp-migrate.cjs src/');
    const run = spawnSync(command!, { cwd: root, shell: true, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', npm_config_offline: 'true' } });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout, run.stdout).toMatch(/^1 ok$/m);
    expect(run.stderr).not.toContain('exports is not defined');
    expect(run.stdout).toMatch(/REP .*envelope\/server\.js mcp-migrate declined: the rewrite needs a new file next to it \(mcp-envelope\.c?js/);
    expect(await read(root, 'src/envelope/server.js')).toBe(ENVELOPE_CASE);
    const migrated = await read(root, 'src/sdk/server.js');
    expect(migrated).toContain('serveStdio(() => {');
    expect(spawnSync(process.execPath, ['--check', join(root, 'src', 'sdk', 'server.js')]).status).toBe(0);
  });
});
