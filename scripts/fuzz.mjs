#!/usr/bin/env node
// `npm run fuzz -- --seed S --count N`: a measurement, not a test (it is not part of `npm test`).
//
// Takes the input files of the fixtures (`__testfixtures__/**/*.input.*`, the sources under
// `test/fixtures/corpus/`), makes N mutants of them with a seeded generator (line deletions and
// duplications, truncation, token insertions, CRLF and BOM toggles, deep nesting, the whole program
// wrapped in a function), and runs the compiled pipeline (`processSource` from dist/, as the CLI does)
// twice on each: on the mutant, then on its output. It counts
//   crashes          the pipeline threw (on the mutant or on its output)
//   unparsable       an output (the file, a related file, a companion module) that does not parse
//   non-idempotent   the second run changes the output again
//   non-servers      a file that is not a server (the pipeline decides `none` on the original) got changed
// and saves each finding (the mutant, and a .txt with the error, options and mutations) under
// --findings (default /tmp/fuzz-findings). Prints one summary line; exits 1 when a count is not zero.
//
//   node scripts/fuzz.mjs [--seed 1] [--count 1000] [--findings /tmp/fuzz-findings] [--verbose]
//
// Other modules a mutant imports are read from disk (the fixture's directory); for the second run, the
// first run's changes to them and its companion files are what is read.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const SOURCE_EXTENSIONS = ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.tsx', '.jsx'];
const FINDING_NAME = /^(crash|unparsable|non-idempotent|non-server)-\d{4}-/;

// ---------------------------------------------------------------------------------------------------
// Options

function parseOptions(argv) {
  const o = { seed: 1, count: 1000, findings: '/tmp/fuzz-findings', verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const int = () => {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 0) throw new Error(`${arg} needs a whole number`);
      return n;
    };
    if (arg === '--seed') o.seed = int();
    else if (arg === '--count') o.count = int();
    else if (arg === '--findings') o.findings = argv[++i];
    else if (arg === '--verbose') o.verbose = true;
    else if (arg === '-h' || arg === '--help') {
      process.stdout.write('usage: npm run fuzz -- [--seed S] [--count N] [--findings DIR] [--verbose]\n');
      process.exit(0);
    } else throw new Error(`unknown option ${arg}`);
  }
  return o;
}

// ---------------------------------------------------------------------------------------------------
// Seeded randomness (mulberry32): the same seed gives the same mutants.

function createRandom(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (list) => list[Math.floor(next() * list.length)],
    chance: (p) => next() < p,
  };
}

// ---------------------------------------------------------------------------------------------------
// Inputs

function walk(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

function isSource(path) {
  return SOURCE_EXTENSIONS.includes(extname(path)) && !/\.d\.[cm]?ts$/.test(path);
}

function collectInputs() {
  const inputs = new Set();
  for (const path of walk(join(REPO, '__testfixtures__'))) {
    if (/\.input\.[^.]+$/.test(path) && isSource(path)) inputs.add(path);
  }
  for (const path of walk(join(REPO, 'test', 'fixtures', 'corpus'))) if (isSource(path)) inputs.add(path);
  return [...inputs].sort();
}

/** The nearest package.json `type`, as the runner decides the module kind. */
function getModuleKind(path) {
  if (/\.m[jt]s$/.test(path)) return 'esm';
  if (/\.c[jt]s$/.test(path)) return 'cjs';
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        return JSON.parse(readFileSync(manifest, 'utf8')).type === 'module' ? 'esm' : 'cjs';
      } catch {
        return 'cjs';
      }
    }
    if (dirname(dir) === dir || dir === REPO) return 'cjs';
  }
}

// ---------------------------------------------------------------------------------------------------
// Mutations. Each takes the text and the random source and returns { text, label }.

const TOKENS = ['(', ')', '{', '}', '[', ']', ';', ',', '=>', '.', '?.', '??', '`', "'", '"', '/*', '*/', '//', 'await ', 'return ', 'async ', 'null', 'undefined', '0', '-1', 'x', 'this', 'new ', 'if (x) ', 'else ', '...', '\n', '\r\n', '\t', ' ', '\\', '#', '@', '<T>', ': any', ' as any', '!'];

function lines(text) {
  return text.split(/(?<=\n)/);
}

const MUTATIONS = {
  'delete-lines'(text, r) {
    const all = lines(text);
    if (all.length === 0) return { text, label: 'delete-lines (empty)' };
    const at = r.int(all.length);
    const n = 1 + r.int(3);
    all.splice(at, n);
    return { text: all.join(''), label: `delete-lines ${at + 1}+${n}` };
  },
  'duplicate-lines'(text, r) {
    const all = lines(text);
    if (all.length === 0) return { text, label: 'duplicate-lines (empty)' };
    const at = r.int(all.length);
    const n = 1 + r.int(3);
    const block = all.slice(at, at + n);
    const to = r.chance(0.5) ? at : r.int(all.length + 1);
    all.splice(to, 0, ...block.map((l) => (l.endsWith('\n') ? l : `${l}\n`)));
    return { text: all.join(''), label: `duplicate-lines ${at + 1}+${n} at ${to + 1}` };
  },
  truncate(text, r) {
    const at = r.int(text.length + 1);
    return { text: text.slice(0, at), label: `truncate at ${at}` };
  },
  'insert-token'(text, r) {
    const at = r.int(text.length + 1);
    const token = r.pick(TOKENS);
    return { text: text.slice(0, at) + token + text.slice(at), label: `insert-token ${JSON.stringify(token)} at ${at}` };
  },
  'toggle-crlf'(text) {
    return text.includes('\r\n') ? { text: text.replace(/\r\n/g, '\n'), label: 'crlf -> lf' } : { text: text.replace(/\n/g, '\r\n'), label: 'lf -> crlf' };
  },
  'toggle-bom'(text) {
    return text.charCodeAt(0) === 0xfeff ? { text: text.slice(1), label: 'bom off' } : { text: `\uFEFF${text}`, label: 'bom on' };
  },
  'deep-nesting'(text, r) {
    const all = lines(text);
    const depth = r.pick([20, 100, 300, 450, 600]);
    const kind = r.int(3);
    const eol = text.includes('\r\n') ? '\r\n' : '\n';
    if (kind === 0) {
      // a deeply nested constant between two lines
      const at = r.int(all.length + 1);
      all.splice(at, 0, `const __deep${at} = ${'['.repeat(depth)}0${']'.repeat(depth)};${eol}`);
      return { text: all.join(''), label: `deep-nesting array ${depth} at line ${at + 1}` };
    }
    if (kind === 1) {
      // a run of lines wrapped in nested blocks
      const from = r.int(all.length + 1);
      const to = Math.min(all.length, from + 1 + r.int(10));
      const inner = all.slice(from, to).join('');
      all.splice(from, to - from, `${'{'.repeat(depth)}${eol}${inner}${inner.endsWith('\n') || inner === '' ? '' : eol}${'}'.repeat(depth)}${eol}`);
      return { text: all.join(''), label: `deep-nesting blocks ${depth} around lines ${from + 1}-${to}` };
    }
    // nested parentheses, objects and arrows in an expression statement
    const at = r.int(all.length + 1);
    all.splice(at, 0, `void ${'({ a: () => ('.repeat(Math.min(depth, 300))}0${')}) '.repeat(Math.min(depth, 300))};${eol}`);
    return { text: all.join(''), label: `deep-nesting expressions ${Math.min(depth, 300)} at line ${at + 1}` };
  },
  'wrap-in-function'(text, r) {
    // The whole program (after a shebang) inside a function that is called: a server "wrapped in main()".
    const shebang = /^(\uFEFF?#![^\n]*\n)?/.exec(text)[0];
    const eol = text.includes('\r\n') ? '\r\n' : '\n';
    const name = r.pick(['main', 'start', 'run']);
    const asyncKw = r.chance(0.3) ? 'async ' : '';
    return { text: `${shebang}${asyncKw}function ${name}() {${eol}${text.slice(shebang.length)}${eol}}${eol}${name}();${eol}`, label: `wrap-in-function ${asyncKw}${name}` };
  },
};
/**
 * How often each mutation is drawn: the ones that usually break the syntax (a cut file, a stray token)
 * less often, so that most mutants still parse and reach the rewrites.
 */
const WEIGHTS = { 'delete-lines': 3, 'duplicate-lines': 3, truncate: 1, 'insert-token': 2, 'toggle-crlf': 2, 'toggle-bom': 2, 'deep-nesting': 2, 'wrap-in-function': 1 };
const DRAW = Object.entries(WEIGHTS).flatMap(([name, weight]) => Array.from({ length: weight }, () => name));

function mutate(text, r) {
  // Mostly one mutation; sometimes two or three on top of each other.
  const n = r.chance(0.7) ? 1 : 2 + r.int(2);
  const labels = [];
  let out = text;
  for (let i = 0; i < n; i++) {
    const name = r.pick(DRAW);
    const m = MUTATIONS[name](out, r);
    out = m.text;
    labels.push(m.label);
  }
  return { text: out, labels };
}

// ---------------------------------------------------------------------------------------------------
// Running the pipeline

function firstLine(err) {
  return (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).split('\n')[0];
}

/** The modules a run may read: overrides first (the mutant, earlier outputs), then the disk. */
function createReader(overrides) {
  return (path) => {
    if (overrides.has(path)) return overrides.get(path);
    try {
      const stats = statSync(path);
      if (!stats.isFile() || stats.size > 1_000_000) return null;
      return readFileSync(path, 'utf8');
    } catch {
      return null;
    }
  };
}

/** Every text the first run wants written: the file, related files, companions (paths absolute). */
function getOutputs(path, result) {
  const outputs = [];
  if (result.after !== undefined && result.after !== result.before) outputs.push({ path, text: result.after });
  for (const related of result.related ?? []) if (related.after !== related.before) outputs.push({ path: related.path, text: related.after });
  for (const companion of result.companions ?? []) outputs.push({ path: join(dirname(path), companion.path), text: companion.content });
  return outputs;
}

// ---------------------------------------------------------------------------------------------------

async function main() {
  const options = parseOptions(process.argv.slice(2));
  const dist = (p) => pathToFileURL(join(REPO, 'dist', 'src', p)).href;
  if (!existsSync(join(REPO, 'dist', 'src', 'pipeline.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const { processSource } = await import(dist('pipeline.js'));
  const { parseSource } = await import(dist('parse.js'));

  const inputs = collectInputs();
  const r = createRandom(options.seed);
  const counts = { mutants: 0, crashes: 0, unparsable: 0, nonIdempotent: 0, nonServers: 0, changed: 0, parseErrors: 0, secondRuns: 0 };
  const saved = new Map();
  mkdirSync(options.findings, { recursive: true });
  // Findings of an earlier run would be mixed with this one's: remove them (only files named as ours).
  for (const name of readdirSync(options.findings)) {
    if (FINDING_NAME.test(name)) rmSync(join(options.findings, name), { force: true });
  }
  let slowest = { ms: 0, label: '' };

  // The original of each input decides whether it is a server at all (with each option set).
  const baseline = new Map();
  const isNonServer = (path, source, opts) => {
    const key = `${path}\0${opts.sdk}\0${opts.style}`;
    if (!baseline.has(key)) {
      let kind = 'crash';
      try {
        const result = processSource(path, source, opts, createReader(new Map()));
        kind = result.error === undefined && result.after === undefined && result.decision.kind === 'none' ? 'none' : result.decision.kind;
      } catch {
        kind = 'crash';
      }
      baseline.set(key, kind);
    }
    return baseline.get(key) === 'none';
  };

  const record = (kind, mutant, detail) => {
    // One saved example per kind, input and first line of the error: the same defect is not saved 500 times.
    const signature = `${kind}\0${mutant.path}\0${detail.split('\n')[0].replace(/\d+/g, 'N')}`;
    const seen = saved.get(signature) ?? 0;
    saved.set(signature, seen + 1);
    if (seen > 0) return;
    const id = `${kind}-${String(saved.size).padStart(4, '0')}-${basename(mutant.path)}`;
    writeFileSync(join(options.findings, id), mutant.text);
    writeFileSync(
      join(options.findings, `${id}.txt`),
      [
        `kind: ${kind}`,
        `input: ${relative(REPO, mutant.path)}`,
        `seed: ${options.seed}, mutant #${mutant.index}`,
        `options: ${JSON.stringify(mutant.options)}`,
        `mutations: ${mutant.labels.join('; ')}`,
        '',
        detail,
        '',
      ].join('\n'),
    );
    if (options.verbose) process.stderr.write(`${kind}: ${relative(REPO, mutant.path)} (${mutant.labels.join('; ')}): ${detail.split('\n')[0]}\n`);
  };

  for (let index = 0; index < options.count; index++) {
    const path = r.pick(inputs);
    const original = readFileSync(path, 'utf8');
    const { text, labels } = mutate(original, r);
    const opts = { sdk: r.pick(['v1', 'v2']), style: r.pick(['server', 'mcp-server']), moduleKind: getModuleKind(path) };
    const mutant = { index, path, text, labels, options: opts };
    counts.mutants++;

    const started = Date.now();
    let first;
    try {
      first = processSource(path, text, opts, createReader(new Map([[path, text]])));
    } catch (err) {
      counts.crashes++;
      record('crash', mutant, `first run threw ${firstLine(err)}\n\n${err instanceof Error ? err.stack : ''}`);
      continue;
    }
    if (first.error !== undefined && /does not parse/.test(first.error)) counts.parseErrors++;
    const outputs = getOutputs(path, first);
    if (outputs.length > 0) counts.changed++;

    // 1. Every output parses.
    let broken = false;
    for (const output of outputs) {
      try {
        parseSource(output.path, output.text);
      } catch (err) {
        broken = true;
        counts.unparsable++;
        record('unparsable', mutant, `output ${relative(dirname(path), output.path)} does not parse: ${firstLine(err)}\n\n--- output ---\n${output.text}`);
        break;
      }
    }

    // 2. A file that is not a server is never changed.
    if (outputs.length > 0 && isNonServer(path, original, opts)) {
      counts.nonServers++;
      record('non-server', mutant, `the original is not a server (decision none), the mutant got decision ${JSON.stringify(first.decision)}\n\n--- output ---\n${outputs[0].text}`);
    }

    // 3. Running again on the output changes nothing.
    const entry = outputs.find((o) => o.path === path);
    if (!broken && entry !== undefined) {
      const files = new Map([[path, entry.text], ...outputs.map((o) => [o.path, o.text])]);
      let second;
      counts.secondRuns++;
      try {
        second = processSource(path, entry.text, opts, createReader(files));
      } catch (err) {
        counts.crashes++;
        record('crash', mutant, `second run (on the output) threw ${firstLine(err)}\n\n${err instanceof Error ? err.stack : ''}\n\n--- output of the first run ---\n${entry.text}`);
        continue;
      }
      const again = getOutputs(path, second).filter((o) => files.get(o.path) !== o.text);
      if (again.length > 0) {
        counts.nonIdempotent++;
        const o = again[0];
        record('non-idempotent', mutant, `the second run changes ${relative(dirname(path), o.path)} again (decision ${JSON.stringify(second.decision)})\n\n--- first output ---\n${files.get(o.path) ?? '(none)'}\n--- second output ---\n${o.text}`);
      }
    }
    const ms = Date.now() - started;
    if (ms > slowest.ms) slowest = { ms, label: `${relative(REPO, path)} (${labels.join('; ')})` };
    if ((index + 1) % 500 === 0) process.stderr.write(`fuzz: ${index + 1}/${options.count} mutants...\n`);
  }

  const findings = counts.crashes + counts.unparsable + counts.nonIdempotent + counts.nonServers;
  process.stdout.write(
    `fuzz: seed ${options.seed}, ${counts.mutants} mutants of ${inputs.length} inputs (${counts.changed} rewritten and run again, ${counts.parseErrors} not parsable as mutated): ` +
      `${counts.crashes} crashes, ${counts.unparsable} unparsable outputs, ${counts.nonIdempotent} non-idempotent outputs, ${counts.nonServers} non-servers touched` +
      `${findings > 0 ? ` (${saved.size} distinct, saved in ${options.findings})` : ''}; slowest ${slowest.ms} ms\n`,
  );
  if (options.verbose) process.stdout.write(`slowest mutant: ${slowest.label}\n`);
  process.exitCode = findings > 0 ? 1 : 0;
}

main().catch((err) => {
  process.stderr.write(`fuzz: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 2;
});
