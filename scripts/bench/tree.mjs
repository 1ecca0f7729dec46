// Builds (or reuses) the synthetic monorepo the benchmark runs on. Deterministic for a given seed:
// every random draw comes from a seeded PRNG, and the tree is keyed by a hash of the generator's own
// sources, the seed, the size and the corpus files it copies, so a stale tree is never reused.
//
// Layout:
//   package.json (workspaces: ["packages/*"]), .gitignore (build/, generated/, ...), README.md, scripts/
//   packages/<name>/package.json, src/**, test/**, scripts/, bin/           ordinary code
//   packages/<host>/<tools|examples|src/mcp|servers|integrations/mcp>/<case>/   planted servers (cases 01-12,
//                                                                     copied with their package.json and layout)
//   the same for cases 13 (already on the SDK) and 14 (JSON-lines worker): decoys that must stay unchanged
//   packages/<p>/node_modules/**, packages/<p>/build/**, packages/<p>/generated/** (gitignored),
//   packages/<p>/tmp/** (ignored by the package's own .gitignore): skipped dirs, each with a trap server copy
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateFile } from './content.mjs';
import { createRng } from './rng.mjs';

/**
 * The planted servers are packages nested in workspace packages without being members themselves, which
 * a run leaves out unless named or included (issue 18); the bench names them all, so that --check
 * analyses every planted server as the correctness check expects.
 */
export const INCLUDE_NESTED = ['--include', 'packages/**'];

export const GENERATOR_VERSION = 1;
const HERE = dirname(fileURLToPath(import.meta.url));
export const CORPUS_DIR = join(HERE, '..', '..', 'test', 'fixtures', 'corpus');
const SERVER_CASES = ['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12'];
const DECOY_CASES = ['13', '14'];
const PLANT_DIRS = ['tools', 'examples', 'src/mcp', 'servers', 'integrations/mcp'];

const PACKAGE_AREAS = ['core', 'api', 'web', 'billing', 'auth', 'search', 'notify', 'ledger', 'catalog', 'ingest', 'sched', 'report', 'admin', 'media', 'geo', 'metrics'];
const PACKAGE_SUFFIXES = ['service', 'client', 'sdk', 'utils', 'ui', 'worker', 'cli', 'store', 'models', 'gateway'];
const SRC_AREAS = ['lib', 'utils', 'services', 'components', 'models', 'api', 'hooks', 'store', 'config', 'types', 'handlers', 'jobs', 'adapters', 'domain', 'internal'];
const SUB_AREAS = ['v1', 'v2', 'helpers', 'shared', 'legacy', 'impl', 'common', 'io'];
const FILE_NOUNS = [
  'user', 'order', 'invoice', 'account', 'session', 'token', 'cart', 'product', 'report', 'metric', 'event', 'queue', 'job',
  'task', 'file', 'asset', 'image', 'comment', 'message', 'channel', 'team', 'project', 'build', 'release', 'cache', 'route',
  'payload', 'record', 'batch', 'schedule', 'webhook', 'tenant', 'plan', 'payment', 'refund', 'customer', 'address',
  'shipment', 'inventory', 'price', 'discount', 'coupon', 'notification', 'email', 'template', 'locale', 'feature', 'flag',
  'segment', 'audit', 'trace', 'widget', 'theme', 'layout', 'chart', 'filter', 'query', 'document', 'schema', 'policy',
  'role', 'permission', 'group', 'member', 'invite', 'vendor', 'ticket', 'incident', 'alert', 'quota', 'bucket', 'upload',
];
const FILE_SUFFIXES = ['', '-service', '-utils', '-helpers', '-repository', '-client', '-store', '-types', '-config', '-mapper', '-validator', '-format', '-handler', '-view', '-model'];

const KIND_WEIGHTS = { service: 20, util: 22, types: 7, config: 6, component: 8, test: 20, reducer: 5, barrel: 4, middleware: 2.5, cli: 1.5, logger: 0.6, rpc: 0.4, worker: 0.3 };
const FLAVORS = { 'ts-esm': 40, 'ts-cjs': 20, 'js-esm': 20, 'js-cjs': 20 };

function sha256(text) {
  return createHash('sha256').update(text).digest('hex');
}

function listFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) out.push(full);
    }
  };
  walk(dir);
  return out;
}

/** Case folder name (e.g. "01-cjs-readline-bare-ifs") by its number. */
export function getCaseDirs() {
  const dirs = readdirSync(CORPUS_DIR, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  return Object.fromEntries(dirs.map((d) => [d.slice(0, 2), d]));
}

/** Files of a case to copy: everything but case.json, relative to the case folder. */
export function getCaseFiles(caseDir) {
  const root = join(CORPUS_DIR, caseDir);
  return listFiles(root).map((f) => relative(root, f)).filter((f) => f !== 'case.json');
}

/** Folder name a planted copy gets: the case's package name without its scope (e.g. "textkit-mcp"). */
export function getCaseSlug(caseDir) {
  const pkg = JSON.parse(readFileSync(join(CORPUS_DIR, caseDir, 'package.json'), 'utf8'));
  return String(pkg.name).replace(/^@[^/]+\//, '');
}

export function copyCase(caseDir, target) {
  for (const rel of getCaseFiles(caseDir)) {
    const to = join(target, rel);
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, readFileSync(join(CORPUS_DIR, caseDir, rel)));
  }
}

/** Hash of everything the tree depends on: the generator's sources, its options and the copied corpus files. */
export function computeTreeKey(options) {
  const parts = [`v${GENERATOR_VERSION}`, `seed=${options.seed}`, `files=${options.files}`, `packages=${options.packages}`, `copies=${options.copies}`];
  for (const f of ['rng.mjs', 'content.mjs', 'tree.mjs']) parts.push(sha256(readFileSync(join(HERE, f))));
  const cases = getCaseDirs();
  for (const num of [...SERVER_CASES, ...DECOY_CASES]) {
    for (const rel of getCaseFiles(cases[num])) parts.push(`${num}/${rel}:${sha256(readFileSync(join(CORPUS_DIR, cases[num], rel)))}`);
  }
  return sha256(parts.join('\n')).slice(0, 16);
}

/**
 * Returns { dir, manifest, reused }. The tree lives in `${baseDir}/tree-<key>` next to its manifest
 * `${baseDir}/tree-<key>.json`, which is written last (its presence means the tree is complete).
 */
export function ensureTree(options, log = () => {}) {
  const key = computeTreeKey(options);
  const dir = join(options.baseDir, `tree-${key}`);
  const manifestPath = `${dir}.json`;
  if (existsSync(manifestPath) && existsSync(dir)) {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    if (manifest.key === key) return { dir, manifest, reused: true };
  }
  mkdirSync(options.baseDir, { recursive: true });
  // Older trees (another seed, size or generator version) are removed so they do not pile up.
  for (const entry of readdirSync(options.baseDir)) {
    if (entry.startsWith('tree-') && !entry.startsWith(`tree-${key}`)) rmSync(join(options.baseDir, entry), { recursive: true, force: true });
  }
  const building = `${dir}.tmp-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  log(`building the synthetic monorepo (seed ${options.seed}, ${options.files} ordinary files) in ${dir} ...`);
  const started = Date.now();
  const manifest = buildTree(building, options);
  rmSync(dir, { recursive: true, force: true });
  renameSync(building, dir);
  manifest.key = key;
  manifest.builtInSeconds = (Date.now() - started) / 1000;
  writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + '\n');
  return { dir, manifest, reused: false };
}

function buildTree(root, options) {
  const rng = createRng(options.seed);
  const files = new Map(); // relative path -> content
  const put = (rel, content) => {
    if (files.has(rel)) throw new Error(`generator bug: ${rel} written twice`);
    files.set(rel, content);
  };
  const copy = (caseDir, relTarget) => {
    for (const rel of getCaseFiles(caseDir)) put(`${relTarget}/${rel}`, readFileSync(join(CORPUS_DIR, caseDir, rel)));
  };

  // Root of the monorepo.
  put('package.json', JSON.stringify({ name: 'acme-platform', private: true, version: '0.0.0', workspaces: ['packages/*'], scripts: { build: 'npm run build --workspaces', test: 'vitest run' }, devDependencies: { typescript: '^5.6.0', vitest: '^2.1.0' } }, null, 2) + '\n');
  put('.gitignore', ['node_modules/', 'build/', 'generated/', 'coverage/', '*.log', '.env', ''].join('\n'));
  put('README.md', '# acme-platform\n\nSynthetic monorepo generated by mcp-migrate\'s benchmark (scripts/bench.mjs). Do not edit.\n');
  put('tsconfig.base.json', JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', strict: true, skipLibCheck: true } }, null, 2) + '\n');

  // Packages: names, flavors and how many ordinary files each holds (log-normal weights).
  const pkgRng = rng.fork();
  const packages = [];
  const usedNames = new Set();
  for (let i = 0; i < options.packages; i++) {
    let name;
    do name = `${pkgRng.pick(PACKAGE_AREAS)}-${pkgRng.pick(PACKAGE_SUFFIXES)}`;
    while (usedNames.has(name));
    usedNames.add(name);
    const flavor = pkgRng.weighted(FLAVORS);
    packages.push({ name, dir: `packages/${name}`, flavor, jsx: flavor.startsWith('js') && pkgRng.chance(0.4), weight: Math.exp(0.8 * pkgRng.normal()), count: 0 });
  }
  const totalWeight = packages.reduce((s, p) => s + p.weight, 0);
  const rootScripts = 12;
  let assigned = rootScripts;
  for (const p of packages) {
    p.count = Math.max(20, Math.round(((options.files - rootScripts) * p.weight) / totalWeight));
    assigned += p.count;
  }
  // Fix rounding so the ordinary file count is exactly options.files.
  for (let i = 0; assigned !== options.files; i = (i + 1) % packages.length) {
    const delta = assigned < options.files ? 1 : -1;
    if (packages[i].count + delta < 20) continue;
    packages[i].count += delta;
    assigned += delta;
  }

  const stats = { ordinary: 0, byKind: {}, byExt: {} };
  const genRng = rng.fork();
  const ordinary = (rel, kind, ext, pkgName, isTs, isEsm, jsx) => {
    const fileRng = genRng.fork();
    const target = kind === 'barrel' ? fileRng.int(500, 1400) : fileRng.logNormal(3000, 0.85, 520, 29000);
    const text = generateFile(fileRng, { kind, ts: isTs, esm: isEsm, jsx, pkg: pkgName, target, max: 30000 });
    put(rel, text);
    stats.ordinary++;
    stats.byKind[kind] = (stats.byKind[kind] ?? 0) + 1;
    stats.byExt[ext] = (stats.byExt[ext] ?? 0) + 1;
  };

  // A few repository-level scripts.
  for (let i = 0; i < rootScripts; i++) {
    const ext = genRng.pick(['.mjs', '.js', '.cjs', '.mjs']);
    const kind = genRng.chance(0.5) ? 'cli' : 'util';
    ordinary(`scripts/${genRng.pick(FILE_NOUNS)}-${genRng.pick(['check', 'sync', 'release', 'report', 'gen'])}${i}${ext}`, kind, ext, 'acme-platform', false, ext !== '.cjs' && ext !== '.js', false);
  }

  for (const p of packages) {
    const pr = rng.fork();
    const isTsPkg = p.flavor.startsWith('ts');
    const esmPkg = p.flavor.endsWith('esm');
    const pj = {
      name: `@acme/${p.name}`,
      version: `${pr.int(0, 4)}.${pr.int(0, 20)}.${pr.int(0, 9)}`,
      private: pr.chance(0.5),
      ...(esmPkg ? { type: 'module' } : {}),
      main: isTsPkg ? 'build/index.js' : 'src/index.js',
      scripts: { build: isTsPkg ? 'tsc -p .' : 'echo nothing to build', test: 'vitest run', lint: 'eslint src' },
      dependencies: Object.fromEntries(pr.pick([['lodash', 'zod'], ['express', 'pino'], ['react', 'date-fns'], ['axios'], ['pg', 'ioredis'], ['yaml', 'chalk']]).map((d) => [d, `^${pr.int(1, 9)}.${pr.int(0, 20)}.0`])),
      ...(p.jsx ? { peerDependencies: { react: '^18.0.0' } } : {}),
    };
    put(`${p.dir}/package.json`, JSON.stringify(pj, null, 2) + '\n');
    put(`${p.dir}/README.md`, `# @acme/${p.name}\n\nInternal package. See the platform handbook.\n`);
    if (isTsPkg) put(`${p.dir}/tsconfig.json`, JSON.stringify({ extends: '../../tsconfig.base.json', compilerOptions: { outDir: 'build', module: esmPkg ? 'NodeNext' : 'CommonJS' }, include: ['src'] }, null, 2) + '\n');

    // Directories of this package.
    const nAreas = Math.max(2, Math.min(SRC_AREAS.length, Math.round(p.count / 40)));
    const areas = [];
    while (areas.length < nAreas) {
      const a = pr.pick(SRC_AREAS);
      if (!areas.includes(a)) areas.push(a);
    }
    const srcDirs = ['src'];
    for (const a of areas) {
      srcDirs.push(`src/${a}`);
      for (let k = 0, n = pr.int(0, 3); k < n; k++) srcDirs.push(`src/${a}/${pr.pick(SUB_AREAS)}`);
    }
    const uniqueSrcDirs = [...new Set(srcDirs)];
    const testDirs = pr.chance(0.5) ? ['test', 'test/unit', 'test/integration'] : uniqueSrcDirs.filter((d) => d !== 'src').map((d) => `${d}/__tests__`);
    const namesByDir = new Map();
    const fileName = (dir, base, ext) => {
      const taken = namesByDir.get(dir) ?? new Set();
      namesByDir.set(dir, taken);
      let name = `${base}${ext}`;
      for (let i = 2; taken.has(name); i++) name = `${base}-${i}${ext}`;
      taken.add(name);
      return `${p.dir}/${dir}/${name}`;
    };
    const barrels = new Set();
    for (let i = 0; i < p.count; i++) {
      let kind = pr.weighted(KIND_WEIGHTS);
      let dir;
      if (kind === 'test') dir = pr.pick(testDirs);
      else if (kind === 'cli') dir = pr.pick(['scripts', 'bin', 'scripts', 'src/cli']);
      else if (kind === 'worker') dir = pr.pick(['src/workers', 'workers']);
      else dir = pr.pick(uniqueSrcDirs);
      if (kind === 'barrel' && barrels.has(dir)) kind = 'util';
      // Extension and module syntax.
      let ext;
      if (isTsPkg) {
        if (kind === 'cli') ext = pr.pick(esmPkg ? ['.mjs', '.ts', '.mjs'] : ['.js', '.cjs', '.ts']);
        else if (kind === 'config' && pr.chance(0.25)) ext = pr.pick(['.cjs', '.mjs']);
        else ext = '.ts';
      } else {
        ext = esmPkg ? pr.pick(['.js', '.js', '.js', '.mjs']) : pr.pick(['.js', '.js', '.js', '.cjs']);
      }
      const isTs = ext === '.ts';
      const isEsm = ext === '.mjs' || (ext === '.ts' ? true : ext === '.cjs' ? false : esmPkg);
      let base;
      if (kind === 'barrel') {
        barrels.add(dir);
        base = 'index';
      } else if (kind === 'test') base = `${pr.pick(FILE_NOUNS)}${pr.pick(FILE_SUFFIXES)}${pr.pick(['.test', '.spec', '.test'])}`;
      else if (kind === 'cli') base = `${pr.pick(['check', 'sync', 'export', 'seed', 'report', 'migrate', 'dump', 'lint'])}-${pr.pick(FILE_NOUNS)}s`;
      else if (kind === 'logger') base = pr.pick(['logger', 'log', 'logging']);
      else if (kind === 'rpc') base = `${pr.pick(FILE_NOUNS)}-rpc-client`;
      else if (kind === 'worker') base = `${pr.pick(FILE_NOUNS)}-worker`;
      else if (kind === 'middleware') base = `${pr.pick(['cors', 'auth', 'audit', 'rate-limit', 'etag'])}-middleware`;
      else base = `${pr.pick(FILE_NOUNS)}${pr.pick(FILE_SUFFIXES)}`;
      ordinary(fileName(dir, base, ext), kind, ext, `@acme/${p.name}`, isTs, isEsm, p.jsx && !isTs);
    }
  }

  // Planted servers: cases 01-12, `copies` times each, each copy in another package and place.
  const cases = getCaseDirs();
  const planted = [];
  const decoys = [];
  const plant = (num, k, list) => {
    const caseDir = cases[num];
    const host = packages[(Number(num) * 7 + k * 13) % packages.length];
    const where = PLANT_DIRS[(Number(num) + k) % PLANT_DIRS.length];
    const target = `${host.dir}/${where}/${getCaseSlug(caseDir)}`;
    copy(caseDir, target);
    list.push({ case: num, caseDir, dir: target, files: getCaseFiles(caseDir).map((f) => `${target}/${f}`) });
  };
  for (let k = 0; k < options.copies; k++) for (const num of SERVER_CASES) plant(num, k, planted);
  for (let k = 0; k < 2; k++) for (const num of DECOY_CASES) plant(num, k, decoys);

  // Directories discovery must skip, each with a few ordinary files and one trap server copy.
  const skipRng = rng.fork();
  const traps = [];
  const trapCopy = (num, target) => {
    copy(cases[num], target);
    traps.push({ case: num, dir: target });
  };
  const skipped = { files: 0 };
  const skippedFile = (rel, kind) => {
    const fileRng = skipRng.fork();
    put(rel, generateFile(fileRng, { kind, ts: false, esm: false, jsx: false, pkg: 'dep', target: fileRng.logNormal(2500, 0.7, 520, 20000), max: 30000 }));
    skipped.files++;
  };
  const withNodeModules = [packages[1], packages[9], packages[17], packages[28]];
  withNodeModules.forEach((p, idx) => {
    for (const dep of ['left-pad-ng', 'tiny-events', 'quick-retry', 'yaml-lite', 'cli-table-lite']) {
      put(`${p.dir}/node_modules/${dep}/package.json`, JSON.stringify({ name: dep, version: '1.0.0', main: 'index.js' }, null, 2) + '\n');
      skippedFile(`${p.dir}/node_modules/${dep}/index.js`, 'util');
      for (let i = 0; i < 5; i++) skippedFile(`${p.dir}/node_modules/${dep}/lib/part${i}.js`, skipRng.pick(['util', 'service', 'cli']));
    }
    if (idx === 0) trapCopy('01', `${p.dir}/node_modules/stdio-mcp-bridge`);
  });
  const withBuild = [packages[2], packages[6], packages[14], packages[22], packages[33]];
  withBuild.forEach((p, idx) => {
    for (let i = 0; i < 15; i++) skippedFile(`${p.dir}/build/${skipRng.pick(FILE_NOUNS)}-${i}.js`, skipRng.pick(['util', 'service', 'cli']));
    if (idx === 0) trapCopy('02', `${p.dir}/build/mcp`);
  });
  const withGenerated = [packages[4], packages[19]];
  withGenerated.forEach((p, idx) => {
    for (let i = 0; i < 10; i++) skippedFile(`${p.dir}/generated/${skipRng.pick(FILE_NOUNS)}-client-${i}.js`, 'rpc');
    if (idx === 0) trapCopy('06', `${p.dir}/generated/inventory-mcp`);
  });
  // A package-level .gitignore (nested rules).
  put(`${packages[11].dir}/.gitignore`, 'tmp/\n*.local.js\n');
  trapCopy('08', `${packages[11].dir}/tmp/palette-mcp`);

  // Write everything.
  let bytes = 0;
  const dirs = new Set();
  for (const [rel, content] of files) {
    const full = join(root, rel);
    const d = dirname(full);
    if (!dirs.has(d)) {
      mkdirSync(d, { recursive: true });
      dirs.add(d);
    }
    writeFileSync(full, content);
    bytes += Buffer.byteLength(content);
  }
  const sourceExt = /\.(js|mjs|cjs|ts|mts|cts|tsx|jsx)$/;
  const skippedRe = /(^|\/)(node_modules|build|generated|tmp)\//;
  let sourceFiles = 0;
  let sourceBytes = 0;
  for (const [rel, content] of files) {
    if (sourceExt.test(rel) && !skippedRe.test(rel)) {
      sourceFiles++;
      sourceBytes += Buffer.byteLength(content);
    }
  }
  return {
    generatorVersion: GENERATOR_VERSION,
    seed: options.seed,
    options: { files: options.files, packages: options.packages, copies: options.copies },
    totals: { allFiles: files.size, allBytes: bytes, sourceFiles, sourceBytes, ordinaryFiles: stats.ordinary, skippedDirFiles: skipped.files },
    byKind: stats.byKind,
    byExt: stats.byExt,
    packages: packages.map((p) => ({ dir: p.dir, flavor: p.flavor, jsx: p.jsx, files: p.count })),
    planted,
    decoys,
    traps,
  };
}

/** Bytes and count of every regular file under dir (what grep -r reads). */
export function measureDir(dir) {
  let files = 0;
  let bytes = 0;
  for (const f of listFiles(dir)) {
    files++;
    bytes += statSync(f).size;
  }
  return { files, bytes };
}
