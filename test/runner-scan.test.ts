import { afterAll, describe, it, expect } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileResult, PipelineOptions } from '../src/model/types.js';
import { renderDiff, createPaint } from '../src/cli/render.js';
import { resolveRoot, scanFiles } from '../src/runner/scan.js';
import { createFakePipeline, makeTree, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const MIGRATE = `${SERVER_HINT}// MIGRATE_ME\n`;

describe('scanFiles', () => {
  it('skips empty and binary files with no sign of a server, silently', async () => {
    const root = await makeTree({ 'empty.js': '', 'ok.js': MIGRATE });
    await writeFile(join(root, 'blob.js'), Buffer.from([0x00, 0x01, 0x02, 0x6d, 0x65, 0x74, 0x68, 0x6f, 0x64]));
    await writeFile(join(root, 'serverish.bin.js'), Buffer.concat([Buffer.from(SERVER_HINT), Buffer.from([0])]));
    const fake = createFakePipeline();
    const scan = await scanFiles({ paths: ['.'], cwd: root, sdk: 'v1', style: 'server', process: fake.process });
    expect(scan.scanned).toBe(4);
    expect(scan.candidates).toBe(2);
    expect(fake.calls.map((c) => c.path)).toEqual([join(root, 'ok.js')]);
    expect(scan.problems).toEqual([]);
    expect(scan.results.map((r) => [r.path.slice(root.length + 1), r.error ?? null])).toEqual([
      ['ok.js', null],
      ['serverish.bin.js', 'looks like a binary file (contains a NUL byte); left untouched'],
    ]);
  });

  it('hands the pipeline the files that reach a stdin module through relative imports, and only those', async () => {
    const root = await makeTree({
      // the loop: reads stdin, speaks no JSON-RPC itself (not a server on its own; the entries load it)
      'lib/wire.cjs': "exports.listen = (cb) => require('readline').createInterface({ input: process.stdin }).on('line', cb);\n",
      // one import away: a candidate whatever it says (a two-line entry)
      'lib/index.js': "module.exports = require('./wire.cjs');\n",
      // two imports away (through lib/index.js), dispatching on the method: a candidate
      'server.js': "const { listen } = require('./lib');\nlisten((line) => { const msg = JSON.parse(line); if (msg.method === 'x') {} });\n",
      // two imports away but says nothing of JSON-RPC: not one
      'cli.js': "require('./lib');\n",
      // two imports away (lib/index.js, named from below), naming a method: a candidate
      'lib/sub/start.js': "const method = 'x';\nmodule.exports = require('../index.js');\n",
      // imports and mentions a method, but nothing it imports reads stdin: not one
      'util/format.ts': "import { pad } from './pad';\nexport const method = (s: string) => pad(s);\n",
      'util/pad.ts': 'export const pad = (s: string) => s.padStart(4);\n',
      // `../` names lib/index.js by its directory: two imports away, naming a method
      'lib/sub/up.js': "const method = 'x';\nmodule.exports = require('../');\n",
      // three imports away (through server.js), naming a method: a candidate; four away: not one
      'app/main.mjs': "import '../server.js';\nexport const method = 'y';\n",
      'app/outer.mjs': "import './main.mjs';\nexport const method = 'z';\n",
    });
    const fake = createFakePipeline();
    const scan = await scanFiles({ paths: ['.'], cwd: root, sdk: 'v1', style: 'server', process: fake.process });
    expect(scan.scanned).toBe(10);
    expect(fake.calls.map((c) => c.path.slice(root.length + 1)).sort()).toEqual(['app/main.mjs', 'lib/index.js', 'lib/sub/start.js', 'lib/sub/up.js', 'server.js']);
    expect(scan.candidates).toBe(5);
  });

  it('refuses a file that is not valid UTF-8 instead of mangling it', async () => {
    const root = await makeTree({});
    await writeFile(join(root, 'latin1.js'), Buffer.concat([Buffer.from(MIGRATE), Buffer.from([0xe9, 0x0a])]));
    const scan = await scanFiles({ paths: ['.'], cwd: root, sdk: 'v1', style: 'server', process: createFakePipeline().process });
    expect(scan.results[0].after).toBeUndefined();
    expect(scan.results[0].error).toBe('is not valid UTF-8 text; left untouched');
  });

  it('resolves companion paths next to the file, writes shared ones once, refuses conflicts', async () => {
    // The file name says what the stand-in pipeline asks for; every file passes the prefilter.
    const root = await makeTree({ 'a.js': SERVER_HINT, 'b.js': SERVER_HINT, 'c.js': SERVER_HINT, 'sub/d.js': SERVER_HINT });
    const process = (path: string, source: string, _options: PipelineOptions): FileResult => ({
      path,
      before: source,
      after: `${source}!`,
      decision: { kind: 'envelope', reason: 'R', hint: 'h' },
      fixes: [],
      findings: [],
      diagnostics: [],
      companions: [{ path: path.endsWith('d.js') ? '../helper.js' : 'helper.js', content: path.endsWith('c.js') ? 'other' : 'same' }],
    });
    const scan = await scanFiles({ paths: ['.'], cwd: root, sdk: 'v1', style: 'server', process });
    expect(scan.companions).toEqual([{ path: join(root, 'helper.js'), content: 'same', files: [join(root, 'a.js'), join(root, 'b.js'), join(root, 'sub/d.js')] }]);
    const c = scan.results.find((r) => r.path.endsWith('c.js'));
    expect(c?.after).toBeUndefined();
    expect(c?.error).toBe('needs helper.js with other content than a.js does; left untouched');
  });

  it('never overwrites an existing companion with other content', async () => {
    const root = await makeTree({ 'a.js': `${SERVER_HINT}// ENVELOPE_ME\n`, 'mcp-envelope.js': '// mine\n' });
    const scan = await scanFiles({ paths: ['.'], cwd: root, sdk: 'v1', style: 'server', process: createFakePipeline().process });
    expect(scan.companions).toEqual([]);
    expect(scan.results[0].error).toBe('needs to create mcp-envelope.js, which already exists with other content; left untouched');
  });

  it('reports paths relative to the cwd, or to the common ancestor of targets outside it', async () => {
    const root = await makeTree({ 'x/a.js': '', 'y/b.js': '' });
    expect(await resolveRoot(['.'], root)).toBe(root);
    expect(await resolveRoot(['x/a.js'], root)).toBe(root);
    expect(await resolveRoot([join(root, 'x'), join(root, 'y')], '/')).toBe('/');
    expect(await resolveRoot([join(root, 'x'), join(root, 'y/b.js')], join(root, 'x'))).toBe(root);
    expect(await resolveRoot([join(root, 'x/a.js')], join(root, 'y'))).toBe(join(root, 'x'));
  });
});

describe('renderDiff', () => {
  it('prints CRLF files without carriage returns and new files against /dev/null', () => {
    const diff = renderDiff('a.js', 'one\r\ntwo\r\n', 'one\r\nTWO\r\n', createPaint(false));
    expect(diff).toBe('--- a/a.js\n+++ b/a.js\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n');
    expect(renderDiff('h.js', null, 'x\n', createPaint(false))).toBe('--- /dev/null\n+++ b/h.js\n@@ -0,0 +1,1 @@\n+x\n');
  });
});
