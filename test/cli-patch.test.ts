// --patch, --summary and the one-line vendored helper: what CI logs and bots get from a run.
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { main } from '../src/cli/main.js';
import { buildFilePatch } from '../src/cli/patch.js';
import { makeHarness, makeTree, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const MIGRATE = `${SERVER_HINT}// MIGRATE_ME\n`;
const ENVELOPE = `${SERVER_HINT}// ENVELOPE_ME\n`;
const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' });
}

/** Every file under `root` but .git, path -> content. */
async function snapshot(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else out[relative(root, full)] = await readFile(full, 'utf8');
    }
  };
  await walk(root);
  return out;
}

describe('buildFilePatch', () => {
  it('writes git headers, keeps CRLF bytes and marks a missing final newline', () => {
    const patch = buildFilePatch({ path: 'a.js', before: 'one\r\ntwo\r\n', after: 'one\r\nTWO' });
    expect(patch).toBe(['diff --git a/a.js b/a.js', '--- a/a.js', '+++ b/a.js', '@@ -1,2 +1,2 @@', ' one\r', '-two\r', '+TWO', '\\ No newline at end of file', ''].join('\n'));
    expect(buildFilePatch({ path: 'n.js', before: null, after: 'x\n' })).toBe(['diff --git a/n.js b/n.js', 'new file mode 100644', '--- /dev/null', '+++ b/n.js', '@@ -0,0 +1 @@', '+x', ''].join('\n'));
    expect(buildFilePatch({ path: 'same.js', before: 'x', after: 'x' })).toBe('');
  });
});

describe('main: --patch', () => {
  it('--patch - applies with git apply --check on a clean clone and gives the --yes tree', async () => {
    const root = await makeTree({
      'package.json': '{"name":"demo","version":"1.0.0"}\n',
      'src/server.js': `// first line\n${MIGRATE}`,
      'src/crlf.js': `${SERVER_HINT}// MIGRATE_ME`.replace(/\n/g, '\r\n'),
      'tools/env server.js': ENVELOPE,
      'README.md': 'hello\n',
    });
    git(root, 'init', '-q');
    git(root, 'add', '-A');
    git(root, 'commit', '-qm', 'init');
    const clone = await mkdtemp(join(tmpdir(), 'mcp-migrate-clone-'));
    git(tmpdir(), 'clone', '-q', root, clone);

    const dry = makeHarness(root);
    expect(await main(['--dry-run', '--patch', '-'], dry.deps)).toBe(0);
    const patch = dry.stdout();
    expect(patch).toContain('diff --git a/src/server.js b/src/server.js');
    expect(patch).toContain('new file mode 100644'); // the envelope helper
    expect(dry.stderr()).toContain('Scanned'); // the human text moved to stderr
    await writeFile(join(clone, 'mcp.patch'), patch);
    git(clone, 'apply', '--check', 'mcp.patch');
    git(clone, 'apply', 'mcp.patch');
    await import('node:fs/promises').then((fs) => fs.rm(join(clone, 'mcp.patch')));

    const yes = makeHarness(root);
    expect(await main(['--yes', '--no-verify'], yes.deps)).toBe(0);
    const applied = await snapshot(clone);
    expect(applied).toEqual(await snapshot(root));
    expect(applied['src/crlf.js']).toContain('MIGRATED_v2_server');
    await import('node:fs/promises').then((fs) => fs.rm(clone, { recursive: true, force: true }));
  });

  it('--patch FILE says where to apply it; a scanned source file is refused', async () => {
    const root = await makeTree({ 'package.json': '{}\n', 'server.js': MIGRATE });
    const h = makeHarness(root);
    expect(await main(['--check', '--patch', 'out.patch'], h.deps)).toBe(1);
    expect(h.stdout()).toContain('Patch written to out.patch (apply it with `git apply` in .)');
    expect(await readFile(join(root, 'out.patch'), 'utf8')).toContain('+// MIGRATED_v2_server');
    const bad = makeHarness(root);
    expect(await main(['--check', '--patch', 'server.js'], bad.deps)).toBe(2);
  });
});

describe('main: --summary', () => {
  it('prints at most 15 lines for a 10-server monorepo, one per file', async () => {
    const files: Record<string, string> = { 'package.json': JSON.stringify({ private: true, workspaces: ['packages/*'] }) };
    for (let i = 0; i < 10; i++) {
      files[`packages/p${i}/package.json`] = `{ "name": "p${i}" }\n`;
      files[`packages/p${i}/server.js`] = i === 3 ? ENVELOPE : i === 7 ? `${SERVER_HINT}// UNPROVEN_ME\n` : MIGRATE;
      files[`packages/p${i}/lib.js`] = 'module.exports = 1;\n';
    }
    const root = await makeTree(files);
    const h = makeHarness(root);
    expect(await main(['--check', '--summary', '.'], h.deps)).toBe(1);
    const lines = `${h.stdout()}${h.stderr()}`.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(15);
    expect(lines).toContain('packages/p0/server.js: would move to the SDK (v2, Server)');
    expect(lines).toContain('packages/p3/server.js: would get the JSON-RPC envelope (COMPUTED_DISPATCH)');
    expect(lines).toContain('packages/p7/server.js: left alone (ENVELOPE_UNPROVEN); 1 finding, 0 fixed');
    expect(h.stdout()).not.toContain('@@');
    expect(h.stdout()).toContain('mcp-migrate: 20 files scanned, 9 pending, 1 left alone, 0 errors.');
  });

  it('is refused for an interactive run', async () => {
    const h = makeHarness(await makeTree({ 'server.js': MIGRATE }), { isTTY: true });
    expect(await main(['--summary'], h.deps)).toBe(2);
  });
});

describe('main: the vendored envelope helper', () => {
  it('is one line in a diff unless --full-diff', async () => {
    const root = await makeTree({ 'server.js': ENVELOPE });
    const h = makeHarness(root);
    await main(['--dry-run'], h.deps);
    expect(h.stdout()).toContain('new file mcp-envelope.js');
    expect(h.stdout()).toContain('+1 lines: the JSON-RPC envelope helper mcp-migrate vendors');
    expect(h.stdout()).not.toContain('+export function send() {}');
    const full = makeHarness(root);
    await main(['--dry-run', '--full-diff'], full.deps);
    expect(full.stdout()).toContain('+export function send() {}');
  });
});
