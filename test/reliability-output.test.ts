// Issue 10, item 1: --output never replaces a source file or a package.json, and the report is written
// atomically (a new file renamed over the old one: never a half-written report).
import { afterAll, describe, it, expect } from 'vitest';
import { readdir, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { makeHarness, makeTree, read, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const PKG = '{\n  "name": "demo",\n  "version": "1.0.0"\n}\n';
const MIGRATE = `${SERVER_HINT}// MIGRATE_ME\n`;

describe('--output refuses the files a run reads or writes (exit 2, nothing written)', () => {
  it('--check --report json --output <the scanned server>', async () => {
    const root = await makeTree({ 'package.json': PKG, 'server.js': MIGRATE });
    const h = makeHarness(root);
    expect(await main(['--check', '--report', 'json', '--output', 'server.js'], h.deps)).toBe(2);
    expect(await read(root, 'server.js')).toBe(MIGRATE);
    expect(h.stderr()).toContain('--output server.js: is a source file this run scans or writes');
  });

  it('--yes --report json --output <the server it migrates>: neither migrated nor replaced', async () => {
    const root = await makeTree({ 'package.json': PKG, 'src/server.js': MIGRATE });
    const h = makeHarness(root);
    expect(await main(['--yes', '--no-verify', '--report', 'json', '--output', 'src/server.js'], h.deps)).toBe(2);
    expect(await read(root, 'src/server.js')).toBe(MIGRATE);
    expect(await read(root, 'package.json')).toBe(PKG);
  });

  it('a package.json, scanned or not', async () => {
    const root = await makeTree({ 'package.json': PKG, 'src/server.js': MIGRATE, 'other/package.json': PKG });
    for (const output of ['package.json', 'other/package.json']) {
      const h = makeHarness(root);
      expect(await main(['--check', '--report', 'sarif', '--output', output, 'src'], h.deps)).toBe(2);
      expect(h.stderr()).toContain('is a package.json');
    }
    expect(await read(root, 'package.json')).toBe(PKG);
    expect(await read(root, 'other/package.json')).toBe(PKG);
  });

  it('a symbolic link to a scanned file, and a file the scan found under a linked directory', async () => {
    const root = await makeTree({ 'src/server.js': MIGRATE });
    await symlink(join(root, 'src/server.js'), join(root, 'report.js'));
    await symlink(join(root, 'src'), join(root, 'linked'));
    for (const output of ['report.js', 'linked/server.js']) {
      const h = makeHarness(root);
      expect(await main(['--dry-run', '--report', 'json', '--output', output, 'src'], h.deps), output).toBe(2);
    }
    expect(await read(root, 'src/server.js')).toBe(MIGRATE);
  });

  it('a report file beside the sources is fine', async () => {
    const root = await makeTree({ 'src/server.js': MIGRATE });
    const h = makeHarness(root);
    expect(await main(['--check', '--report', 'json', '--output', 'src/report.json'], h.deps)).toBe(1);
    expect(JSON.parse(await read(root, 'src/report.json'))).toMatchObject({ schemaVersion: 1, mode: 'check' });
  });
});

describe('the report file is written atomically', () => {
  it('replaces an old report by renaming a new file over it, leaving no temp file', async () => {
    const root = await makeTree({ 'src/server.js': MIGRATE, 'out/report.json': 'old report\n' });
    const before = await stat(join(root, 'out/report.json'));
    const h = makeHarness(root);
    expect(await main(['--check', '--report', 'json', '--output', 'out/report.json', 'src'], h.deps)).toBe(1);
    const after = await stat(join(root, 'out/report.json'));
    // writeFile() truncates and rewrites the same inode (a reader can see half a report); a rename brings a new one.
    expect(after.ino).not.toBe(before.ino);
    expect(JSON.parse(await read(root, 'out/report.json'))).toMatchObject({ schemaVersion: 1 });
    expect(await readdir(join(root, 'out'))).toEqual(['report.json']);
  });

  it('a directory as --output is an error that names it (exit 3), not a crash', async () => {
    const root = await makeTree({ 'src/server.js': MIGRATE, 'out/.keep': '' });
    const h = makeHarness(root);
    expect(await main(['--check', '--report', 'json', '--output', 'out', 'src'], h.deps)).toBe(3);
    expect(h.stderr()).toContain('cannot write the report to out: is a directory');
  });
});
