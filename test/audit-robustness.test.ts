// The audit never throws and does not cry wolf: a bounded sample of this repository's node_modules
// (none of it is a hand-rolled MCP server), unusual code, and a check that crashes on a broken AST.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { File } from '@babel/types';
import { auditSource } from '../src/audit/index.js';
import { parseSource } from '../src/parse.js';
import { mayContainServer } from '../src/pipeline.js';

const REPO = join(import.meta.dirname, '..');
const SAMPLE_SIZE = 3000;

interface Known {
  file: string;
  rule: string;
  text: string;
}

const KNOWN: Known[] = JSON.parse(readFileSync(join(REPO, 'test/fixtures/audit/node-modules-known.json'), 'utf8')).known;

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

describe('audit robustness', () => {
  it(`node_modules: the first ${SAMPLE_SIZE} candidate files give no exception and no false positive`, () => {
    const candidates: { path: string; source: string }[] = [];
    for (const path of listSourceFiles(join(REPO, 'node_modules'))) {
      const source = readFileSync(path, 'utf8');
      // The pipeline's prefilter, plus every file the audit itself looks into.
      if (mayContainServer(source) || /stdin|StdioServerTransport/.test(source)) candidates.push({ path, source });
      if (candidates.length >= SAMPLE_SIZE) break;
    }
    expect(candidates.length).toBeGreaterThan(20);
    const { errors, onError } = collectErrors();
    const unexpected: string[] = [];
    const known: string[] = [];
    let audited = 0;
    for (const { path, source } of candidates) {
      let ast: File;
      try {
        ast = parseSource(path, source);
      } catch {
        continue;
      }
      audited++;
      for (const finding of auditSource(ast, source, { onError })) {
        const line = source.split(/\r?\n/)[finding.line - 1] ?? '';
        const entry = `${relative(REPO, path)}:${finding.line}:${finding.column} ${finding.rule}: ${finding.message}`;
        const isKnown = KNOWN.some((k) => path.endsWith(k.file) && k.rule === finding.rule && line.includes(k.text));
        (isKnown ? known : unexpected).push(entry);
      }
    }
    expect(audited).toBeGreaterThan(20);
    expect(errors).toEqual([]);
    expect(unexpected).toEqual([]);
    // The hand-checked true positives are still found (the rule still sees them).
    expect(known.length).toBe(KNOWN.length);
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
      for (const f of auditSource(parseSource(path, source), source, { onError })) {
        found.push(`${relative(REPO, path)}:${f.line}:${f.column} ${f.rule}: ${f.message}`);
      }
    }
    expect(errors).toEqual([]);
    expect(found).toEqual([]);
  });

  // A gated server (reads stdin, uses jsonrpc) wrapped around each unusual construct.
  const server = (body: string) => `
const readline = require('readline');
function send(m) { process.stdout.write(JSON.stringify(m) + '\\n'); }
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }); }
  if (msg.id === undefined) return;
  switch (msg.method) {
    case 'initialize': return send({ jsonrpc: '2.0', id: msg.id, result: {} });
    default: return send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
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
      const source = server(body);
      const ast = parseSource('unusual.js', source);
      const { errors, onError } = collectErrors();
      expect(() => auditSource(ast, source, { onError })).not.toThrow();
      expect(errors).toEqual([]);
    });
  }

  it('a crash in one analysis loses only the rules that need it', () => {
    const path = join(REPO, 'test/fixtures/corpus/06-console-log-noise/server.js');
    const source = readFileSync(path, 'utf8');
    const intact = auditSource(parseSource(path, source), source).map((f) => `${f.rule}:${f.line}`);
    // Break the `error: "Unknown tool"` value the way a parser bug would: a cast around nothing.
    // Every rule that looks at written messages trips over it; stdout-pollution does not need them.
    const broken = parseSource(path, source);
    const target = findNode(broken, (n) => n.type === 'StringLiteral' && n.value === 'Unknown tool');
    Object.assign(target, { type: 'TSAsExpression', expression: null });
    const { errors, onError } = collectErrors();
    const findings = auditSource(broken, source, { onError }).map((f) => `${f.rule}:${f.line}`);
    expect(errors.map((e) => e.rule).sort()).toEqual([
      'missing-jsonrpc',
      'nonstandard-error',
      'parse-error-unanswered',
      'reply-to-notification',
      'unknown-method-unanswered',
      'wrong-id',
    ]);
    expect(findings).toEqual(intact.filter((f) => f.startsWith('stdout-pollution:')));
    expect(findings).toHaveLength(4);
  });

  it('a broken AST under the shared analysis gives no findings rather than an exception', () => {
    const source = 'process.stdin.on("data", () => {}); process.stdout.write(JSON.stringify({ jsonrpc: "2.0" }));';
    const ast = parseSource('x.js', source);
    const write = findNode(ast, (n) => n.type === 'CallExpression' && (n.arguments as { type: string }[])[0]?.type === 'CallExpression');
    Object.assign(write, { callee: null });
    const { errors, onError } = collectErrors();
    expect(auditSource(ast, source, { onError })).toEqual([]);
    expect(errors.map((e) => e.rule)).toEqual(['facts']);
  });
});

type AnyNode = { type: string } & Record<string, unknown>;

function findNode(root: object, match: (node: AnyNode) => boolean): AnyNode {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (!value || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      stack.push(...value);
      continue;
    }
    const node = value as AnyNode;
    if (typeof node.type === 'string' && match(node)) return node;
    for (const [key, child] of Object.entries(value)) if (key !== 'loc') stack.push(child);
  }
  throw new Error('node not found');
}
