// The jscodeshift path: the transform called as jscodeshift calls it (an injected `api` that records
// reports), and jscodeshift's own runner on copies of corpus servers (dist/, built before the tests run).
import { afterAll, describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
    expect(reports[0]).toContain(`run \`npx mcp-migrate ${path}\``);
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
    expect(after).toContain('new StdioServerTransport()');
    expect(reports).toEqual([]);
  });

  it('writes a rewrite that drops logging only initialize ran, and reports what it dropped', () => {
    const { api, reports } = recordingApi();
    const source = SDK_CASE.replace(/(if \(msg\.method === 'initialize'\) \{)/, "$1\n    console.error('hello');");
    expect(source).not.toBe(SDK_CASE);
    const after = transform({ path: join(CORPUS, '01-cjs-readline-bare-ifs', 'server.js'), source }, api, {});
    expect(after).toContain('new StdioServerTransport()');
    expect(after).not.toContain("console.error('hello')");
    expect(reports).toEqual([expect.stringMatching(/^mcp-migrate dropped: line \d+: `console\.error\('hello'\)`, run only for initialize: /)]);
  });
});

describe('jscodeshift runner', () => {
  it('reports the refusal for the envelope case, leaves it as it was, and migrates the SDK case to a file that parses', async () => {
    const root = await makeTree({ 'envelope/server.js': ENVELOPE_CASE, 'sdk/server.js': SDK_CASE });
    const run = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'jscodeshift', 'bin', 'jscodeshift.js'), '-t', join(ROOT, 'dist', 'transforms', 'mcp-migrate.js'), '--no-babel', root],
      { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/REP .*envelope\/server\.js mcp-migrate declined: the rewrite needs a new file next to it \(mcp-envelope\.c?js/);
    expect(await read(root, 'envelope/server.js')).toBe(ENVELOPE_CASE);
    const migrated = await read(root, 'sdk/server.js');
    expect(migrated).toContain('new StdioServerTransport()');
    expect(spawnSync(process.execPath, ['--check', join(root, 'sdk', 'server.js')]).status).toBe(0);
  });
});
