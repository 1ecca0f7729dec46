// Writes dist/src/runner/worker.cjs: the worker thread's modules (dist/src/runner/worker.js and the ~80
// ES modules it imports) as one CommonJS file. A worker loads one file instead of resolving, reading and
// linking every module, and Node does not start its ES module loader in it: ~120-150 ms -> ~80 ms before a
// worker takes its first file, on the path of every run that analyses one (the read loop hands it the
// first candidates while it loads). Run by `npm run build` after tsc; the pool falls back to worker.js
// when the bundle is missing or older than it (pool.ts's pickWorkerFile).
//
// Babel stays outside: babel.ts and parse.ts load it with a require made by createRequire, which the
// bundler leaves alone, from the bundle's own place (`import.meta.url` is defined as the bundle's URL).
import { buildSync } from 'esbuild';
import { fileURLToPath } from 'node:url';

const runner = fileURLToPath(new URL('../../dist/src/runner/', import.meta.url));

const result = buildSync({
  entryPoints: [`${runner}worker.js`],
  outfile: `${runner}worker.cjs`,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // the modules are ES modules, strict mode throughout; a CommonJS file is not unless it says so
  banner: { js: "'use strict';\nconst __bundle_url = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': '__bundle_url' },
  logLevel: 'warning',
});
if (result.errors.length > 0 || result.warnings.length > 0) process.exit(1);
