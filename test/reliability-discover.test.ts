// Issue 10, items 2 and 7 (discovery): files too large to be a hand-written server are skipped with the
// reason, one file's failure never ends the run, declaration files are not candidates, and a file whose
// name is not UTF-8 is named in a warning, not reported as missing.
import { afterAll, describe, it, expect } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import type { FileResult, PipelineOptions } from '../src/model/types.js';
import { discoverFiles, MAX_SOURCE_BYTES } from '../src/runner/discover.js';
import { readModuleSync } from '../src/runner/read-module.js';
import { createFakePipeline, makeHarness, makeTree, read, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const MIGRATE = `${SERVER_HINT}// MIGRATE_ME\n`;
/** A "server" just over the limit: what a minified bundle that happens to mention stdin looks like. */
const BUNDLE = `${MIGRATE}${'var a=1;'.repeat(Math.ceil(MAX_SOURCE_BYTES / 8) + 10)}\n`;

describe('files over MAX_SOURCE_BYTES', () => {
  it('is 1 MB', () => {
    expect(MAX_SOURCE_BYTES).toBe(1_000_000);
  });

  it('are not handed to the pipeline; the run names each with the reason and goes on (exit 0)', async () => {
    const root = await makeTree({ 'src/server.js': MIGRATE, 'src/bundle.min.js': BUNDLE });
    const fake = createFakePipeline();
    const h = makeHarness(root, { process: fake.process });
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(0);
    expect(fake.calls.map((c) => c.path)).toEqual([join(root, 'src/server.js')]);
    expect(h.stderr()).toMatch(/warning: src\/bundle\.min\.js: 1,000,\d{3} bytes, over the 1 MB limit for a hand-written server .*; skipped/);
    expect(await read(root, 'src/bundle.min.js')).toBe(BUNDLE);
    expect(await read(root, 'src/server.js')).toContain('MIGRATED');
  });

  it('are named in path order, whatever order the tree is read in (shallow files are read first)', async () => {
    const root = await makeTree({ 'src/server.js': MIGRATE, 'z.min.js': BUNDLE, 'a/b/c/deep.min.js': BUNDLE });
    const h = makeHarness(root, { process: createFakePipeline().process });
    expect(await main(['--check'], h.deps)).toBe(1);
    const named = h.stderr().split('\n').filter((line) => line.includes('over the 1 MB limit')).map((line) => /warning: (\S+):/.exec(line)?.[1]);
    expect(named).toEqual(['a/b/c/deep.min.js', 'z.min.js']);
  });

  it('are not read when --ignore leaves them out (no warning for what the run was told not to look at)', async () => {
    const root = await makeTree({ 'src/server.js': MIGRATE, 'vendor/bundle.min.js': BUNDLE });
    const fake = createFakePipeline();
    const h = makeHarness(root, { process: fake.process });
    expect(await main(['--yes', '--no-verify', '--ignore', 'vendor/'], h.deps)).toBe(0);
    expect(fake.calls.map((c) => c.path)).toEqual([join(root, 'src/server.js')]);
    expect(h.stderr()).not.toContain('bundle.min.js');
  });

  it('named on the command line, too', async () => {
    const root = await makeTree({ 'bundle.js': BUNDLE });
    const found = await discoverFiles(['bundle.js'], root);
    expect(found.files).toEqual([]);
    expect(found.problems).toEqual([]);
    expect(found.skipped).toEqual([{ path: join(root, 'bundle.js'), message: expect.stringContaining('over the 1 MB limit') }]);
  });

  it('an imported module over the limit is not read either', async () => {
    const root = await makeTree({ 'big.js': BUNDLE, 'small.js': 'ok' });
    expect(readModuleSync(join(root, 'big.js'))).toBeNull();
    expect(readModuleSync(join(root, 'small.js'))).toBe('ok');
  });
});

describe('one file failing never ends the run', () => {
  it('a pipeline that throws, or overflows the stack, on one file: that file is an error (exit 3), the others are migrated', async () => {
    const root = await makeTree({ 'a.js': MIGRATE, 'b.js': `${SERVER_HINT}// THROW\n`, 'c.js': `${SERVER_HINT}// RECURSE\n`, 'd.js': MIGRATE });
    const fake = createFakePipeline();
    const process = (path: string, source: string, options: PipelineOptions): FileResult => {
      if (source.includes('THROW')) throw new Error('boom');
      if (source.includes('RECURSE')) {
        const deep = (n: number): number => deep(n + 1) + 1;
        deep(0);
      }
      return fake.process(path, source, options);
    };
    const h = makeHarness(root, { process });
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(3);
    expect(h.stderr()).toContain('error: b.js: internal error while processing this file: boom');
    expect(h.stderr()).toContain('error: c.js: internal error while processing this file: Maximum call stack size exceeded');
    expect(await read(root, 'a.js')).toContain('MIGRATED');
    expect(await read(root, 'd.js')).toContain('MIGRATED');
  });
});

describe('declaration files', () => {
  it('are not candidates (.d.ts, .d.mts, .d.cts, .d.<ext>.ts); .ts files beside them are', async () => {
    const root = await makeTree({ 'a.d.ts': '', 'b.d.mts': '', 'c.d.cts': '', 'styles.d.css.ts': '', 'server.ts': '', 'd.ts': '', 'x.d.tsx': '' });
    const found = await discoverFiles(['.'], root);
    expect(found.files.map((f) => f.slice(root.length + 1))).toEqual(['d.ts', 'server.ts', 'x.d.tsx']);
  });

  it('a declaration file that mentions stdin and JSON-RPC is not reported (no "does not parse", no exit 3)', async () => {
    // `const` without an initializer is valid only in a declaration file: the parser rejects it in a .ts file.
    const dts = 'export declare function serve(stdin: NodeJS.ReadStream): void; // jsonrpc\nexport const method: string;\n';
    const root = await makeTree({ 'types/server.d.ts': dts });
    const h = makeHarness(root, { process: undefined });
    expect(await main(['--check'], h.deps)).toBe(0);
    expect(h.stdout()).not.toContain('server.d.ts');
  });

  it('named on the command line: a warning, not an error', async () => {
    const root = await makeTree({ 'types.d.ts': '' });
    const found = await discoverFiles(['types.d.ts'], root);
    expect(found.files).toEqual([]);
    expect(found.problems).toEqual([]);
    expect(found.warnings).toEqual(['types.d.ts: is a TypeScript declaration file (types only); skipped']);
  });
});

describe('file names that are not UTF-8', () => {
  it('names beyond ASCII are found, and every directory is walked in the order of its names\' bytes', async () => {
    // UTF-16 puts the emoji (a surrogate pair, 0xD83D...) before U+E000; their UTF-8 bytes (F0.. vs EE..) the other way
    const root = await makeTree({ 'z/s.js': MIGRATE, 'a/s.js': MIGRATE, 'é/s.js': MIGRATE, '\u{1F600}/s.js': MIGRATE, '\uE000/s.js': MIGRATE, '中/s.js': MIGRATE });
    const found = await discoverFiles(['.'], root);
    expect(found.files).toHaveLength(6);
    expect(found.warnings).toEqual([]);
    expect([...found.walked.keys()].slice(1).map((dir) => dir.slice(root.length + 1))).toEqual(['a', 'z', 'é', '中', '\uE000', '\u{1F600}']);
  });

  it('are named in a warning (bytes shown as \\xNN), not reported as missing; the run goes on', async () => {
    const root = await makeTree({ 'ok.js': MIGRATE });
    // "s\xff.js" and a directory "d\xfe" holding a server: valid names on Linux, not valid UTF-8.
    writeFileSync(Buffer.concat([Buffer.from(`${root}/s`), Buffer.from([0xff]), Buffer.from('.js')]), MIGRATE);
    const dir = Buffer.concat([Buffer.from(`${root}/d`), Buffer.from([0xfe])]);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir);
    writeFileSync(Buffer.concat([dir, Buffer.from('/server.js')]), MIGRATE);
    const found = await discoverFiles(['.'], root);
    expect(found.files).toEqual([join(root, 'ok.js')]);
    expect(found.problems).toEqual([]);
    expect(found.warnings.sort()).toEqual([
      'd\\xfe: its name is not valid UTF-8; directory not scanned (rename it to migrate it)',
      's\\xff.js: its name is not valid UTF-8; skipped (rename it to migrate it)',
    ]);
    const h = makeHarness(root);
    expect(await main(['--check'], h.deps)).toBe(1);
    expect(h.stderr()).not.toContain('no such file');
  });

  it('given on the command line (Node.js has already turned the bytes into U+FFFD): says why it is missing', async () => {
    const root = await makeTree({});
    const found = await discoverFiles(['s\uFFFD.js'], root);
    expect(found.problems).toEqual([{ path: join(root, 's\uFFFD.js'), message: expect.stringContaining('its name is not valid UTF-8') }]);
  });
});
