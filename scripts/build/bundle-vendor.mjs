// Writes dist/vendor/: the small part of each SDK generation the proof needs, bundled, so that the installed
// tool carries no SDK (and none of the HTTP stacks the SDK packages depend on) while the proof still runs
// offline. Run by `npm run build` after tsc; the SDK packages and zod are devDependencies.
//
// - dist/vendor/<v1|v2>/: the packages the proof lends to a migrated server whose project has none
//   installed (src/runner/vendor.ts). Each generation is one CommonJS bundle (the SDK's modules the
//   rewrite imports, as SDK_TARGETS names them, and zod, one copy for both: the server's schemas and the
//   SDK's are the same zod) and, beside it, a folder per package whose files re-export that bundle's
//   names one by one (`exports.Server = …`: Node's ES module loader reads named exports of a CommonJS file
//   from such assignments, so `import { Server } from '@modelcontextprotocol/sdk/server/index.js'` works
//   as well as `require`).
// - dist/vendor/client-v2.cjs: the v2 Client the 2026-07-28 era check connects with (src/verify/era.ts).
// - dist/vendor/THIRD-PARTY-LICENSES.txt: the licence of every package bundled.
import { buildSync } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
// (the modules the rewrite imports: the compiled table, which tsc has just written)
import { SDK_TARGETS } from '../../dist/src/model/sdk-targets.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const vendor = join(root, 'dist', 'vendor');
rmSync(vendor, { recursive: true, force: true });

/** The package a module specifier names (`@scope/name/sub` -> `@scope/name`). */
const packageOf = (spec) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');
/** The subpath a module specifier names inside its package (`./server/index.js`, or `.`). */
const subpathOf = (spec) => {
  const rest = spec.slice(packageOf(spec).length);
  return rest === '' ? '.' : `.${rest}`;
};

/** Every package bundled: its folder, by name. */
const bundled = new Map();

/** Bundles `entry` (module text) into `file`; records the packages it took. */
function bundle(entry, file) {
  const result = buildSync({
    stdin: { contents: entry, resolveDir: root, loader: 'js' },
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minify: true,
    keepNames: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  if (result.errors.length > 0 || result.warnings.length > 0) process.exit(1);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, result.outputFiles[0].text);
  for (const input of Object.keys(result.metafile.inputs)) {
    const at = input.lastIndexOf(`node_modules/`);
    if (at < 0) continue;
    const name = packageOf(input.slice(at + 'node_modules/'.length));
    bundled.set(name, join(root, input.slice(0, at + 'node_modules/'.length + name.length)));
  }
}

/** The names a module exports, as Node's loader sees them. */
async function exportNames(spec) {
  return Object.keys(await import(spec)).filter((name) => name !== 'module.exports');
}

for (const [sdk, target] of Object.entries(SDK_TARGETS)) {
  const modules = [...new Set([target.serverModule, target.mcpServerModule, target.stdioModule, target.typesModule, 'zod'].filter((m) => m !== null))];
  const dir = join(vendor, sdk);
  const bundleFile = join(dir, 'bundle.cjs');
  bundle(modules.map((spec, i) => `export * as m${i} from '${spec}';`).join('\n'), bundleFile);
  const packages = new Map();
  for (const [i, spec] of modules.entries()) {
    const name = packageOf(spec);
    const subpath = subpathOf(spec);
    const file = join(dir, name, subpath === '.' ? 'index.js' : subpath.endsWith('.js') ? subpath.slice(2) : `${subpath.slice(2)}.js`);
    const from = relative(dirname(file), bundleFile).split(sep).join('/');
    const names = await exportNames(spec);
    const lines = [
      "'use strict';",
      `const m = require('${from.startsWith('.') ? from : `./${from}`}').m${i};`,
      "Object.defineProperty(exports, '__esModule', { value: true });",
      ...names.map((n) => `exports${/^[A-Za-z_$][\w$]*$/.test(n) ? `.${n}` : `[${JSON.stringify(n)}]`} = m${/^[A-Za-z_$][\w$]*$/.test(n) ? `.${n}` : `[${JSON.stringify(n)}]`};`),
    ];
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${lines.join('\n')}\n`);
    if (!packages.has(name)) packages.set(name, {});
    packages.get(name)[subpath] = `./${relative(join(dir, name), file).split(sep).join('/')}`;
  }
  for (const [name, exports] of packages) {
    const { version } = JSON.parse(readFileSync(join(bundled.get(name), 'package.json'), 'utf8'));
    const json = { name, version, description: `The part of ${name} mcp-migrate's proof lends to a migrated server (bundled)`, exports: { ...exports, './package.json': './package.json' } };
    writeFileSync(join(dir, name, 'package.json'), `${JSON.stringify(json, null, 2)}\n`);
  }
}

bundle("export * from '@modelcontextprotocol/client';", join(vendor, 'client-v2.cjs'));

const notices = [...bundled].sort(([a], [b]) => a.localeCompare(b)).map(([name, pkgDir]) => {
  const json = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const licence = ['LICENSE', 'LICENSE.md', 'LICENSE.txt', 'license', 'LICENCE'].map((f) => join(pkgDir, f)).find((f) => existsSync(f));
  return `${name}@${json.version} (${json.license ?? 'see its package'})\n\n${licence ? readFileSync(licence, 'utf8').trim() : `No licence file; package.json says: ${json.license}`}\n`;
});
writeFileSync(join(vendor, 'THIRD-PARTY-LICENSES.txt'), `The files in dist/vendor/ bundle these packages:\n\n${notices.join('\n---\n\n')}`);
