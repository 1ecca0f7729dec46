import { afterAll, describe, it, expect } from 'vitest';
import { chmod, chown, readdir, stat, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ChangeApplier, CommitError, writeFileAtomic } from '../src/runner/commit.js';
import type { FileResult } from '../src/model/types.js';
import { makeTree, removeTrees, read } from './fixtures/cli/harness.js';

afterAll(removeTrees);

/** Hands `root` and everything under it to uid:gid (the tree a test runs another user on). */
async function chownTree(root: string, uid: number, gid: number): Promise<void> {
  await chown(root, uid, gid);
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (entry.isDirectory()) await chownTree(join(root, entry.name), uid, gid);
    else await chown(join(root, entry.name), uid, gid);
  }
}

describe('writeFileAtomic', () => {
  it('replaces the file, keeps its mode and leaves no temp file', async () => {
    const root = await makeTree({ 'a.js': 'old\n' });
    await chmod(join(root, 'a.js'), 0o741);
    await writeFileAtomic(join(root, 'a.js'), 'old\n', 'new\n');
    expect(await read(root, 'a.js')).toBe('new\n');
    expect((await stat(join(root, 'a.js'))).mode & 0o7777).toBe(0o741);
    expect(await readdir(root)).toEqual(['a.js']);
  });

  it('refuses a file whose content is not what was read', async () => {
    const root = await makeTree({ 'a.js': 'edited\n' });
    await expect(writeFileAtomic(join(root, 'a.js'), 'old\n', 'new\n')).rejects.toThrow('changed on disk since it was read');
    expect(await read(root, 'a.js')).toBe('edited\n');
  });

  // The refusal is the system's: run it as a user who may not write (nobody, when the tests run as root).
  it('refuses a file and a directory the user may not write, and leaves them as they were', async () => {
    const root = await makeTree({ 'ro.js': 'old\n', 'dir/a.js': 'old\n' });
    await chmod(join(root, 'ro.js'), 0o444);
    await chmod(join(root, 'dir'), 0o555);
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    if ('uid' in asUser) await chownTree(root, 65534, 65534);
    const script = `const { writeFileAtomic } = await import(${JSON.stringify(pathToFileURL(resolve('dist/src/runner/commit.js')).href)});
      for (const f of process.argv.slice(1)) await writeFileAtomic(f, 'old\\n', 'new\\n').then(() => console.log(f + ': written'), (e) => console.log(f + ': ' + e.message));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, join(root, 'ro.js'), join(root, 'dir/a.js')], { ...asUser, encoding: 'utf8' });
    try {
      expect(out).toContain(`${join(root, 'ro.js')}: is read-only; not changed`);
      expect(out).toContain(`${join(root, 'dir/a.js')}: cannot replace it: its directory is read-only`);
      expect(await read(root, 'ro.js')).toBe('old\n');
      expect(await read(root, 'dir/a.js')).toBe('old\n');
      expect(await readdir(join(root, 'dir'))).toEqual(['a.js']);
    } finally {
      await chmod(join(root, 'dir'), 0o755);
    }
  });

  // A copy of read-only sources (a tarball, a read-only mount) as root: written like any file, mode kept.
  it.runIf(process.getuid?.() === 0)('replaces a file without write bits that the user (root) may write, keeping its mode', async () => {
    const root = await makeTree({ 'ro.js': 'old\n', 'dir/a.js': 'old\n' });
    await chmod(join(root, 'ro.js'), 0o444);
    await chmod(join(root, 'dir'), 0o555);
    await writeFileAtomic(join(root, 'ro.js'), 'old\n', 'new\n');
    await writeFileAtomic(join(root, 'dir/a.js'), 'old\n', 'new\n');
    expect(await read(root, 'ro.js')).toBe('new\n');
    expect((await stat(join(root, 'ro.js'))).mode & 0o7777).toBe(0o444);
    expect(await read(root, 'dir/a.js')).toBe('new\n');
    expect(await readdir(join(root, 'dir'))).toEqual(['a.js']);
    await chmod(join(root, 'dir'), 0o755);
  });

  it('creates a new file (and its directory) but never overwrites one', async () => {
    const root = await makeTree({ 'exists.js': 'mine\n' });
    await writeFileAtomic(join(root, 'lib/new.js'), null, 'fresh\n');
    expect(await read(root, 'lib/new.js')).toBe('fresh\n');
    await expect(writeFileAtomic(join(root, 'exists.js'), null, 'x')).rejects.toThrow('already exists');
    expect(await read(root, 'exists.js')).toBe('mine\n');
  });
});

describe('ChangeApplier', () => {
  const result = (path: string, before: string, after: string): FileResult => ({ path, before, after, decision: { kind: 'sdk', sdk: 'v1', style: 'server', notes: [] }, fixes: [], findings: [], diagnostics: [] });

  it('writes the package.json and companion with the first file only, then the file', async () => {
    const root = await makeTree({ 'package.json': '{}', 'a.js': 'a', 'b.js': 'b' });
    const a = result(join(root, 'a.js'), 'a', 'A');
    const b = result(join(root, 'b.js'), 'b', 'B');
    const applier = new ChangeApplier({
      manifests: [{ change: { path: join(root, 'package.json'), before: '{}', after: '{"dependencies":{}}', added: {}, installCommand: 'npm install' }, packageDir: root, installDir: root, files: [a.path, b.path] }],
      companions: [{ path: join(root, 'helper.js'), content: 'h', files: [a.path, b.path] }],
    });
    expect(applier.pendingManifestFor(b.path)).not.toBeNull();
    expect(await applier.apply(b)).toEqual({ written: [join(root, 'package.json'), join(root, 'helper.js'), b.path] });
    expect(applier.pendingManifestFor(a.path)).toBeNull();
    expect(applier.pendingCompanionsFor(a.path)).toEqual([]);
    expect(await applier.apply(a)).toEqual({ written: [a.path] });
    expect(await read(root, 'package.json')).toBe('{"dependencies":{}}');
    expect(await read(root, 'helper.js')).toBe('h');
  });

  it('writes nothing for a file that changed on disk, not even its package.json', async () => {
    const root = await makeTree({ 'package.json': '{}', 'a.js': 'a' });
    const a = result(join(root, 'a.js'), 'a', 'A');
    await writeFile(a.path, 'a2');
    const applier = new ChangeApplier({
      manifests: [{ change: { path: join(root, 'package.json'), before: '{}', after: '{"x":1}', added: {}, installCommand: 'npm install' }, packageDir: root, installDir: root, files: [a.path] }],
      companions: [],
    });
    const outcome = await applier.apply(a);
    expect(outcome.written).toEqual([]);
    expect(outcome.error).toContain('changed on disk');
    expect(await read(root, 'package.json')).toBe('{}');
  });
});
