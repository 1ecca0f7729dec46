#!/usr/bin/env node
// Robustness run of the compliance audit: parses and audits every .js/.mjs/.cjs/.ts file of this
// repository's own node_modules with the built code (run `npm run build` first).
// None of these files is a hand-rolled MCP server, so every finding is a false positive, and an
// exception is a bug: the script exits 1 when there is either.
//   node scripts/audit-node-modules.mjs [--limit N] [--dir PATH] [--json]
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const { parseSource } = await import(new URL('../dist/src/parse.js', import.meta.url).href);
const { auditSource } = await import(new URL('../dist/src/audit/index.js', import.meta.url).href);
// The pipeline's prefilter only feeds a count: the audit's own run does not depend on the pipeline.
const mayContainServer = await import(new URL('../dist/src/pipeline.js', import.meta.url).href)
  .then((m) => m.mayContainServer)
  .catch(() => null);

const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const limit = Number(option('--limit') ?? Infinity);
const dir = option('--dir') ?? join(repo, 'node_modules');
const asJson = args.includes('--json');

const EXTENSIONS = /\.(js|mjs|cjs|ts)$/;

// True positives checked by hand (the SDK's own examples): reported, but they do not fail the run.
const KNOWN = JSON.parse(readFileSync(new URL('../test/fixtures/audit/node-modules-known.json', import.meta.url), 'utf8')).known;

function isKnown(file, finding, source) {
  const line = source.split(/\r?\n/)[finding.line - 1] ?? '';
  return KNOWN.some((k) => file.endsWith(k.file) && finding.rule === k.rule && line.includes(k.text));
}

/** Files under `start`, sorted, without following symlinks. */
function listFiles(start) {
  const out = [];
  const stack = [start];
  while (stack.length > 0) {
    const current = stack.pop();
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) stack.push(path);
      else if (entry.isFile() && EXTENSIONS.test(entry.name)) out.push(path);
    }
  }
  return out.sort();
}

const files = listFiles(dir).slice(0, limit);
const result = {
  dir: relative(repo, dir) || '.',
  files: files.length,
  parsed: 0,
  unparsable: 0,
  prefiltered: 0,
  seconds: 0,
  auditSeconds: 0,
  filesPerSecond: 0,
  findings: [],
  known: [],
  exceptions: [],
};

const started = performance.now();
for (const file of files) {
  const source = readFileSync(file, 'utf8');
  if (mayContainServer?.(source)) result.prefiltered++;
  let ast;
  try {
    ast = parseSource(file, source);
  } catch {
    result.unparsable++;
    continue;
  }
  result.parsed++;
  const auditStart = performance.now();
  const onError = (rule, err) => {
    result.exceptions.push({ file: relative(repo, file), rule, error: err instanceof Error ? err.stack ?? err.message : String(err) });
  };
  try {
    // the file on its own (imports are not followed: node_modules is audited file by file)
    for (const finding of auditSource(file, source, { onError })) {
      (isKnown(file, finding, source) ? result.known : result.findings).push({ file: relative(repo, file), ...finding });
    }
  } catch (err) {
    onError('(escaped auditSource)', err);
  }
  result.auditSeconds += (performance.now() - auditStart) / 1000;
}
result.seconds = (performance.now() - started) / 1000;
result.filesPerSecond = Math.round(result.files / result.seconds);

if (asJson) {
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
} else {
  const lines = [
    `audited ${result.dir}: ${result.files} files (${result.parsed} parsed, ${result.unparsable} did not parse, ${mayContainServer ? `${result.prefiltered} pass mayContainServer` : 'mayContainServer not available'})`,
    `${result.seconds.toFixed(1)} s in all, ${result.auditSeconds.toFixed(2)} s in the audit: ${result.filesPerSecond} files/s`,
    `${result.findings.length} findings (false positives), ${result.known.length} known true positives, ${result.exceptions.length} exceptions`,
    ...result.findings.map((f) => `  finding ${f.file}:${f.line}:${f.column} ${f.rule} ${f.message}`),
    ...result.known.map((f) => `  known ${f.file}:${f.line}:${f.column} ${f.rule} ${f.message}`),
    ...result.exceptions.map((e) => `  exception ${e.file} [${e.rule}]: ${e.error}`),
  ];
  process.stdout.write(lines.join('\n') + '\n');
}
process.exitCode = result.findings.length > 0 || result.exceptions.length > 0 ? 1 : 0;
