// Writes dist/src/runner/worker.cjs: the worker thread's modules (dist/src/runner/worker.js and the ~80
// ES modules it imports) as one CommonJS file. A worker loads one file instead of resolving, reading and
// linking every module, and Node does not start its ES module loader in it: ~120-150 ms -> ~80 ms before a
// worker takes its first file, on the path of every run that analyses one (the read loop hands it the
// first candidates while it loads). Run by `npm run build` after tsc.
//
// The bundle's first line names it by a digest of its text, and the same line is added at the end of the
// compiled worker.js: the pool runs the bundle only while the two agree (pool.ts's pickWorkerFile). tsc
// rewrites every file it emits (this project builds without `incremental`), so a tsc run alone drops the
// line from worker.js, and the pool runs the modules as they now are instead of a stale bundle.
//
// Babel stays outside: babel.ts and parse.ts load it with a require made by createRequire, which the
// bundler leaves alone, from the bundle's own place (`import.meta.url` is defined as the bundle's URL).
import { buildSync } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
// (the words the pool reads: the compiled pool.js, which tsc has just written)
import { BUNDLE_MARK } from '../../dist/src/runner/pool.js';

const runner = fileURLToPath(new URL('../../dist/src/runner/', import.meta.url));

const result = buildSync({
  entryPoints: [`${runner}worker.js`],
  bundle: true,
  write: false,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // the modules are ES modules, strict mode throughout; a CommonJS file is not unless it says so
  banner: { js: "'use strict';\nconst __bundle_url = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': '__bundle_url' },
  logLevel: 'warning',
});
if (result.errors.length > 0 || result.warnings.length > 0) process.exit(1);

const text = result.outputFiles[0].text;
const id = createHash('sha1').update(text).digest('hex').slice(0, 16);
const worker = `${runner}worker.js`;
// (run again without tsc: the line of the previous bundle goes)
const compiled = readFileSync(worker, 'utf8')
  .split('\n')
  .filter((line) => !line.startsWith(BUNDLE_MARK))
  .join('\n');
writeFileSync(`${runner}worker.cjs`, `${BUNDLE_MARK} ${id}\n${text}`);
writeFileSync(worker, `${compiled}${compiled.endsWith('\n') ? '' : '\n'}${BUNDLE_MARK} ${id}: worker.cjs holds this module and those it imports as one file\n`);
