// Issue 19, items 2-5, 7, 10 and 12: nothing is written outside the scanned tree and its repository,
// whatever symbolic links, `../` imports, package.json files above the root or workspace globs say; a
// file with invalid UTF-8 is never rewritten, even as a module of another file's rewrite; a replaced
// file keeps its owner; a package.json that is a FIFO, huge or 200,000 levels deep does not hang or
// crash the run.
import { afterAll, describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chown, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { main } from '../src/cli/main.js';
import type { FileResult, PipelineOptions } from '../src/model/types.js';
import { writeFileAtomic } from '../src/runner/commit.js';
import { ManifestCache, readManifest, addDependencies } from '../src/runner/manifest.js';
import { expandWorkspacePatterns } from '../src/runner/workspaces.js';
import { createFakePipeline, makeHarness, makeTree, read, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const MIGRATE = `${SERVER_HINT}// MIGRATE_ME\n`;
const DISPATCH = 'module.exports = function dispatch() { /* RELATED_ME */ };\n';

/** The fake pipeline, plus: a file naming `require('<x>') // RELATED` also rewrites that module (a related result). */
function pipelineWithRelated(): (path: string, source: string, options: PipelineOptions) => FileResult {
  const { process } = createFakePipeline();
  return (path, source, options) => {
    const result = process(path, source, options);
    const match = /require\('([^']+)'\) \/\/ RELATED/.exec(source);
    if (match === null || result.after === undefined) return result;
    const modulePath = join(dirname(path), match[1]!);
    const before = execFileSync('cat', [modulePath]).toString('utf8');
    return { ...result, related: [{ path: modulePath, before, after: before.replace('RELATED_ME', 'REWRITTEN') }] };
  };
}

describe('a rewrite never changes a module outside the scanned tree (item 2)', () => {
  it('through a symlinked directory: refused with the reason, the entry too, nothing written', async () => {
    const base = await makeTree({ 'outside-lib/dispatch.js': DISPATCH, 'repo/server.js': `${MIGRATE}require('./lib/dispatch.js') // RELATED\n` });
    const root = join(base, 'repo');
    await symlink('../outside-lib', join(root, 'lib'));
    const h = makeHarness(root, { process: pipelineWithRelated() });
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(3);
    expect(await read(base, 'outside-lib/dispatch.js')).toBe(DISPATCH);
    expect(await read(root, 'server.js')).toContain('MIGRATE_ME');
    expect(h.stderr()).toMatch(/lib\/dispatch\.js: resolves to .*outside-lib\/dispatch\.js, outside the scanned folder/);
  });

  it('through a symlinked file, and through a ../ import', async () => {
    const base = await makeTree({ 'outside/dispatch.js': DISPATCH, 'shared/other.js': DISPATCH, 'repo/a.js': `${MIGRATE}require('./d.js') // RELATED\n`, 'repo/b.js': `${MIGRATE}require('../shared/other.js') // RELATED\n` });
    const root = join(base, 'repo');
    await symlink(join(base, 'outside/dispatch.js'), join(root, 'd.js'));
    const h = makeHarness(root, { process: pipelineWithRelated() });
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(3);
    expect(await read(base, 'outside/dispatch.js')).toBe(DISPATCH);
    expect(await read(base, 'shared/other.js')).toBe(DISPATCH);
    expect(await read(root, 'a.js')).toContain('MIGRATE_ME');
    expect(await read(root, 'b.js')).toContain('MIGRATE_ME');
  });

  it('a module inside the tree is still rewritten with its entry', async () => {
    const root = await makeTree({ 'lib/dispatch.js': DISPATCH, 'server.js': `${MIGRATE}require('./lib/dispatch.js') // RELATED\n` });
    expect(await main(['--yes', '--no-verify'], makeHarness(root, { process: pipelineWithRelated() }).deps)).toBe(0);
    expect(await read(root, 'lib/dispatch.js')).toContain('REWRITTEN');
  });

  it('writeFileAtomic itself refuses a path that resolves outside its bounds', async () => {
    const base = await makeTree({ 'outside/x.js': 'old', 'repo/keep': '' });
    await symlink('../outside', join(base, 'repo/link'));
    await expect(writeFileAtomic(join(base, 'repo/link/x.js'), 'old', 'new', { bounds: [{ dir: join(base, 'repo'), what: 'the scanned folder' }] })).rejects.toThrow('outside the scanned folder');
    expect(await read(base, 'outside/x.js')).toBe('old');
  });
});

describe('package.json (items 3 and 4)', () => {
  it('a package.json that is a symlink out of the repository is not edited', async () => {
    const outsidePkg = '{\n  "name": "victim"\n}\n';
    const base = await makeTree({ 'home/package.json': outsidePkg, 'repo/server.js': MIGRATE, 'repo/.git/HEAD': 'ref: refs/heads/main\n' });
    const root = join(base, 'repo');
    await symlink(join(base, 'home/package.json'), join(root, 'package.json'));
    const h = makeHarness(root);
    expect(await main(['--yes', '--no-verify', '--force'], h.deps)).toBe(3);
    expect(await read(base, 'home/package.json')).toBe(outsidePkg);
    expect(h.stderr()).toContain('outside the repository');
  });

  it('the search stops at the repository root, and outside git at the scanned root', async () => {
    const base = await makeTree({ 'package.json': '{"name":"home"}', 'repo/.git/HEAD': 'x', 'repo/src/server.js': MIGRATE, 'plain/server.js': MIGRATE });
    expect(await new ManifestCache().getNearest(join(base, 'repo/src'))).toBeNull();
    expect(await new ManifestCache(join(base, 'plain')).getNearest(join(base, 'plain'))).toBeNull();
    const h = makeHarness(join(base, 'plain'));
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(0);
    expect(await read(base, 'package.json')).toBe('{"name":"home"}');
    expect(h.stdout()).not.toContain('..');
    expect(h.stdout()).toContain('no package.json above this file');
  });
});

describe('workspace globs stay inside the root (item 5)', () => {
  it('a pattern that climbs out is ignored with a warning; a symlinked package out of the root is dropped', async () => {
    const base = await makeTree({ 'elsewhere/pkg/package.json': '{"name":"stolen"}', 'ws/package.json': '{"workspaces":["../../../../../../../**","packages/*"]}', 'ws/packages/a/package.json': '{"name":"a"}' });
    await symlink(join(base, 'elsewhere/pkg'), join(base, 'ws/packages/b'));
    const { packages, warnings } = await expandWorkspacePatterns(join(base, 'ws'), ['../../../../../../../**', 'packages/*', 'packages/b', '/etc']);
    expect(packages.map((p) => p.name)).toEqual(['a']);
    expect(warnings.filter((w) => w.includes('leaves the workspace root'))).toHaveLength(2);
  });
});

describe('invalid UTF-8 in a module a rewrite changes (item 7)', () => {
  it('is refused like a candidate: the module and its entry are left untouched', async () => {
    const root = await makeTree({ 'server.js': `${MIGRATE}require('./lib.js') // RELATED\n` });
    const bytes = Buffer.concat([Buffer.from('// caf'), Buffer.from([0xe9]), Buffer.from('\nmodule.exports = 1; /* RELATED_ME */\n')]);
    await writeFile(join(root, 'lib.js'), bytes);
    const h = makeHarness(root, { process: pipelineWithRelated() });
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(3);
    expect((await readFile(join(root, 'lib.js'))).equals(bytes)).toBe(true);
    expect(await read(root, 'server.js')).toContain('MIGRATE_ME');
    expect(h.stderr()).toContain('lib.js: is not valid UTF-8 text');
  });

  it('writeFileAtomic compares bytes, not decoded text', async () => {
    const root = await makeTree({});
    await writeFile(join(root, 'a.js'), Buffer.from([0x61, 0xff]));
    await expect(writeFileAtomic(join(root, 'a.js'), 'a\uFFFD', 'b')).rejects.toThrow('not valid UTF-8');
  });
});

describe('a replaced file keeps its owner and group (item 10)', () => {
  it.runIf(process.getuid?.() === 0)('a root run keeps a user\'s 0640 file theirs', async () => {
    const root = await makeTree({ 'a.js': 'old' });
    await chown(join(root, 'a.js'), 1234, 2345);
    await import('node:fs/promises').then((fs) => fs.chmod(join(root, 'a.js'), 0o640));
    await writeFileAtomic(join(root, 'a.js'), 'old', 'new');
    const stats = await stat(join(root, 'a.js'));
    expect([stats.uid, stats.gid, stats.mode & 0o777]).toEqual([1234, 2345, 0o640]);
    expect(await read(root, 'a.js')).toBe('new');
  });
});

describe('a package.json that would hang or crash the run (item 12)', () => {
  it('a FIFO, or a symlink to a FIFO, is not opened for reading (no hang)', async () => {
    const root = await makeTree({ 'server.js': MIGRATE });
    execFileSync('mkfifo', [join(root, 'package.json')]);
    const manifest = await readManifest(join(root, 'package.json'));
    expect(manifest?.unreadable).toContain('not a regular file');
    const h = makeHarness(root);
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(3);
    expect(h.stderr()).toContain('not a regular file');
  }, 10_000);

  it('one over the size limit is not read', async () => {
    const root = await makeTree({ 'package.json': `{"x":"${'a'.repeat(4_100_000)}"}` });
    expect((await readManifest(join(root, 'package.json')))?.unreadable).toContain('limit');
  });

  it('200,000 levels of nesting: the dependency is added, no stack overflow', () => {
    const deep = `{"name":"x","deep":${'['.repeat(200_000)}${']'.repeat(200_000)},"dependencies":{}}`;
    expect(JSON.parse(addDependencies(deep, { zod: '^4' })).dependencies).toEqual({ zod: '^4' });
  });
});

describe('workspace walk meets a FIFO (item 12)', () => {
  it('a FIFO package.json under a ** pattern does not block', async () => {
    const root = await makeTree({ 'package.json': '{"workspaces":["**"]}', 'a/package.json': '{"name":"a"}' });
    await mkdir(join(root, 'b'));
    execFileSync('mkfifo', [join(root, 'b/package.json')]);
    const { packages } = await expandWorkspacePatterns(root, ['**']);
    expect(packages.map((p) => p.name)).toContain('a');
  }, 10_000);
});

describe('other files the run reads that could block (item 12)', () => {
  it('a FIFO .gitignore above the scanned folder, and a FIFO package.json between a package and its workspace root', async () => {
    const root = await makeTree({ 'package.json': '{"workspaces":["packages/*/*"]}', 'packages/mid/pkg/package.json': '{"name":"pkg"}', 'packages/mid/pkg/server.js': MIGRATE });
    execFileSync('mkfifo', [join(root, '.gitignore')]);
    execFileSync('mkfifo', [join(root, 'packages/mid/package.json')]);
    const h = makeHarness(root);
    expect(await main(['--dry-run', 'packages/mid/pkg'], h.deps)).toBe(0);
    expect(h.stdout()).toContain('MIGRATED_v2_server');
  }, 10_000);
});


describe('the repository a file lives in bounds it too', () => {
  it('a scan of a folder holding a repository: a symlink out of that repository is refused', async () => {
    const base = await makeTree({ 'projects/repo/.git/HEAD': 'x', 'projects/repo/server.js': `${MIGRATE}require('./lib/dispatch.js') // RELATED\n`, 'projects/other/dispatch.js': DISPATCH });
    await symlink('../other', join(base, 'projects/repo/lib'));
    const h = makeHarness(join(base, 'projects'), { process: pipelineWithRelated() });
    expect(await main(['--yes', '--no-verify', '--force', 'repo'], h.deps)).toBe(3);
    expect(await read(base, 'projects/other/dispatch.js')).toBe(DISPATCH);
    expect(h.stderr()).toContain('outside the repository');
  });
});
