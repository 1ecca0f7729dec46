// The audit never throws and does not cry wolf: a bounded sample of this repository's node_modules
// (none of it is a hand-rolled MCP server), the rewrite's own outputs, unusual code, and faults
// injected into the analysis (a rule that crashes loses only itself; an analysis that crashes loses
// the file, and says so through onError).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildFacts } from '../src/analysis/facts.js';
import { Interpreter } from '../src/analysis/interp.js';
import { auditFacts, auditSource } from '../src/audit/index.js';
import { detectServer } from '../src/detect/server.js';
import { parseSource } from '../src/parse.js';
import { mayContainServer } from '../src/pipeline.js';
import { readModuleSync } from '../src/runner/read-module.js';

const REPO = join(import.meta.dirname, '..');
const SAMPLE_SIZE = 3000;
// Hand-written servers are far smaller; the bundles above this take seconds each to interpret, and
// the pipeline's own limit (MAX_SOURCE_BYTES, 1 MB) is what discovery applies to real runs.
const SAMPLE_MAX_BYTES = 50_000;

interface Known {
  file: string;
  rule: string;
  text: string;
}

interface KnownCrash {
  file: string;
  error: string;
}

const KNOWN_FILE = JSON.parse(readFileSync(join(REPO, 'test/fixtures/audit/node-modules-known.json'), 'utf8')) as { known: Known[]; crashes: KnownCrash[] };

function listSourceFiles(dir: string): string[] {
  const out: string[] = [];
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop()!;
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) stack.push(path);
      else if (entry.isFile() && /\.(js|mjs|cjs|ts)$/.test(entry.name)) out.push(path);
    }
  }
  return out.sort();
}

function collectErrors() {
  const errors: { rule: string; error: unknown }[] = [];
  return { errors, onError: (rule: string, error: unknown) => errors.push({ rule, error }) };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('audit robustness', () => {
  it(`node_modules: the first ${SAMPLE_SIZE} candidate files give no exception and no false positive`, () => {
    const candidates: { path: string; source: string }[] = [];
    for (const path of listSourceFiles(join(REPO, 'node_modules'))) {
      const source = readFileSync(path, 'utf8');
      if (source.length > SAMPLE_MAX_BYTES) continue;
      // The pipeline's prefilter, plus every file the audit itself looks into.
      if (mayContainServer(source) || /stdin|StdioServerTransport/.test(source)) candidates.push({ path, source });
      if (candidates.length >= SAMPLE_SIZE) break;
    }
    expect(candidates.length).toBeGreaterThan(20);
    const unexpected: string[] = [];
    const known: string[] = [];
    const crashed: string[] = [];
    let audited = 0;
    for (const { path, source } of candidates) {
      try {
        parseSource(path, source);
      } catch {
        continue;
      }
      audited++;
      const { errors, onError } = collectErrors();
      // Without `read`: each file on its own (following imports through node_modules is a run of its own).
      const findings = auditSource(path, source, { onError });
      for (const { rule, error } of errors) crashed.push(`${relative(join(REPO, 'node_modules'), path)} ${rule}: ${String(error)}`);
      for (const finding of findings) {
        const line = source.split(/\r?\n/)[finding.line - 1] ?? '';
        const entry = `${relative(REPO, path)}:${finding.line}:${finding.column} ${finding.rule}: ${finding.message}`;
        const isKnown = KNOWN_FILE.known.some((k) => path.endsWith(k.file) && k.rule === finding.rule && line.includes(k.text));
        (isKnown ? known : unexpected).push(entry);
      }
    }
    expect(audited).toBeGreaterThan(20);
    // only the analysis crashes listed (known bugs outside the audit), each once, and nothing else
    const expectedCrashes = [...KNOWN_FILE.crashes].sort((a, b) => a.file.localeCompare(b.file));
    expect(crashed.sort()).toEqual(expectedCrashes.map((c) => expect.stringMatching(new RegExp(`^${escapeRegExp(c.file)} facts: .*${escapeRegExp(c.error)}`))));
    expect(unexpected).toEqual([]);
    // The hand-checked true positives are still found (the rule still sees them).
    expect(known.length).toBe(KNOWN_FILE.known.length);
  });

  // The product's quality bar: a migrated server passes every envelope rule. The rewrite's own
  // expected outputs are such servers (SDK ones and envelope ones), so the audit must find nothing there.
  it('the rewrite outputs in __testfixtures__ pass the audit', () => {
    const outputs = existsSync(join(REPO, '__testfixtures__'))
      ? listSourceFiles(join(REPO, '__testfixtures__')).filter((p) => /\.output\.[cm]?[jt]s$/.test(p))
      : [];
    if (existsSync(join(REPO, '__testfixtures__'))) expect(outputs.length).toBeGreaterThan(0);
    const found: string[] = [];
    const { errors, onError } = collectErrors();
    for (const path of outputs) {
      const source = readFileSync(path, 'utf8');
      for (const f of auditSource(path, source, { read: readModuleSync, onError })) {
        found.push(`${relative(REPO, path)}:${f.line}:${f.column} ${f.rule}: ${f.message}`);
      }
    }
    expect(errors).toEqual([]);
    expect(found).toEqual([]);
  });

  // A hand-rolled MCP server (detection needs an MCP method: tools/list) wrapped around each unusual
  // construct. Its fallback answers -32000: the finding on it shows the audit ran on the whole file.
  const server = (body: string) => `
const readline = require('readline');
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }); }
  if (msg.id === undefined) return;
  switch (msg.method) {
    case 'initialize': return send({ jsonrpc: '2.0', id: msg.id, result: {} });
    case 'tools/list': return send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
    default: return send({ jsonrpc: '2.0', id: msg.id, error: { code: -32000, message: 'Method not found' } });
  }
});
${body}
`;

  const unusual: Record<string, string> = {
    'mutually recursive writer helpers': `
function a(m) { if (m.x) b(m); }
function b(m) { a(m); process.stdout.write(JSON.stringify(m) + '\\n'); }
a({ id: 1, result: 2, jsonrpc: '2.0' });`,
    'a helper that calls itself with its own parameter': `
function loop(id, n) { if (n > 0) return loop(id, n - 1); send({ jsonrpc: '2.0', id, result: n }); }
loop(msgId(), 3);
function msgId() { return 1; }`,
    'deeply nested expressions': `const deep = ${'['.repeat(400)}1${']'.repeat(400)};
const chain = ${Array.from({ length: 400 }, (_, i) => `x === 'm${i}'`).join(' || ')};`,
    'computed everything': `
const k = 'write'; process.stdout[k](JSON.stringify({ [k]: 1 }));
const o = { ...send, [Symbol.iterator]: null };
send({ ...o, ...(o ? { id: 1 } : null), result: 1 });`,
    'getters, setters, classes, private methods, labels': `
class S { #w(m) { process.stdout.write(JSON.stringify(m)); } get x() { return this.#w({ id: 1, result: 1 }); } set y(v) {} static { this.z = 1; } }
outer: for (const a of []) { for (const b of []) { if (a) continue outer; break outer; } }`,
    'optional chains and nullish assignments': `
let r; r ??= {}; r.id ||= 1;
process.stdout?.write?.(JSON.stringify({ jsonrpc: '2.0', id: r?.id ?? null, result: r }));
send?.({ jsonrpc: '2.0', id: globalThis.msg?.id, error: { code: -32601 } });`,
    'a method lookup without any fallback check': `
const table = {}; function route(msg) { return table[msg.method](msg); }`,
    'destructuring defaults and rest': `
function reply({ id = null, ...rest } = {}, ...more) { send({ jsonrpc: '2.0', id, result: rest, more }); }
reply({ id: 'x' }, 1, 2); reply();`,
  };

  for (const [name, body] of Object.entries(unusual)) {
    it(`never throws: ${name}`, () => {
      const { errors, onError } = collectErrors();
      const findings = auditSource('unusual.js', server(body), { onError });
      expect(errors).toEqual([]);
      expect(findings.map((f) => [f.rule, f.line])).toEqual([['unknown-method-unanswered', 11]]);
    });
  }

  it('a crash in one analysis loses only the rules that need it', () => {
    const path = join(REPO, 'test/fixtures/corpus/06-console-log-noise/server.js');
    const source = readFileSync(path, 'utf8');
    const facts = buildFacts(path, source, parseSource(path, source), null);
    const detection = detectServer(facts);
    const model = detection.kind === 'server' ? detection.model : null;
    expect(model).not.toBeNull();
    const intact = auditFacts(facts, model).map((f) => `${f.rule}:${f.line}`);
    // The members of a written message cannot be read (a bug in the interpreter, say): every rule that
    // looks at the written messages trips over it; stdout-pollution does not need them.
    vi.spyOn(facts.interp, 'getFields').mockImplementation(() => {
      throw new TypeError('getFields: unexpected value');
    });
    const { errors, onError } = collectErrors();
    const findings = auditFacts(facts, model, { onError }).map((f) => `${f.rule}:${f.line}`);
    expect(errors.map((e) => e.rule).sort()).toEqual([
      'missing-jsonrpc',
      'nonstandard-error',
      'parse-error-unanswered',
      'reply-to-notification',
      'unknown-method-unanswered',
      'wrong-id',
    ]);
    expect(errors.every((e) => e.error instanceof TypeError)).toBe(true);
    expect(findings).toEqual(intact.filter((f) => f.startsWith('stdout-pollution:')));
    expect(findings).toHaveLength(4);
  });

  it('a crash in the shared analysis gives no findings rather than an exception', () => {
    const path = join(REPO, 'test/fixtures/corpus/06-console-log-noise/server.js');
    const source = readFileSync(path, 'utf8');
    vi.spyOn(Interpreter.prototype, 'runFunction').mockImplementation(() => {
      throw new RangeError('Maximum call stack size exceeded');
    });
    const { errors, onError } = collectErrors();
    expect(auditSource(path, source, { onError })).toEqual([]);
    expect(errors.map((e) => [e.rule, e.error instanceof RangeError])).toEqual([['facts', true]]);
  });

  it('a file that does not parse gives no findings rather than an exception', () => {
    const { errors, onError } = collectErrors();
    expect(auditSource('broken.js', 'process.stdin.on("data", (d) => { process.stdout.write(JSON.stringify(', { onError })).toEqual([]);
    expect(errors.map((e) => e.rule)).toEqual(['facts']);
    // and without onError, still no exception
    expect(auditSource('broken.js', 'const = ;')).toEqual([]);
  });

  // Was the analysis bug behind node_modules crashes (hono): a constructor field defined through itself.
  it('the analysis does not overflow the stack on a constructor field read through its own class (rules/constructor-field-cycle.js)', () => {
    const path = join(REPO, 'test/fixtures/audit/rules/constructor-field-cycle.js');
    const source = readFileSync(path, 'utf8');
    expect(() => buildFacts(path, source, parseSource(path, source), null)).not.toThrow();
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
