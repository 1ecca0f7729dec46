#!/usr/bin/env node
// Generates big single-file servers for measuring how the analysis grows with the size of one file
// (issue 17): each is a hand-rolled MCP stdio server (it passes the prefilter and is analysed in full)
// wrapped around a lot of other code, in one of the shapes real files have:
//
//   functions-<N>  N helper functions that call each other and read their parameters, padded to ~1 MB
//   helpers        ~8k one-line helpers (a 1 MB file of small functions, like a utility bundle)
//   switch         one `switch (msg.method)` with thousands of cases
//   long-line      the helpers shape minified onto one line
//   tool-table     a table of thousands of tools, each with a schema and a handler, dispatched by name
//   real-<size>    the server plus real CommonJS modules of the project's own node_modules, each wrapped
//                  in a function as a bundler does (10 KB, 100 KB, 1 MB): real code, not generated code
//
//   node scripts/bench/big-files.mjs [--out <dir>] [--bytes 990000] [shape ...]
//
// Prints the files it wrote. Deterministic: the same arguments (and node_modules) give the same files.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const ALL_SHAPES = ['functions-500', 'functions-1000', 'functions-2000', 'helpers', 'switch', 'long-line', 'tool-table', 'real-10k', 'real-100k', 'real-1m'];
/** Just under the analysis's size limit for one module (1,000,000 bytes). */
const DEFAULT_BYTES = 990_000;

/** The server every shape carries: readline over stdin, JSON.parse, a dispatch, replies on fd 1. */
function serverCore({ dispatch, tools = "[{ name: 'echo', description: 'Echo text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }]", call = "text(String(args.text ?? ''))" }) {
  return `
const readline = require('readline');
const rl = readline.createInterface({ input: process.stdin, terminal: false });
function send(msg) {
  process.stdout.write(JSON.stringify(msg) + '\\n');
}
function text(value) {
  return { content: [{ type: 'text', text: value }] };
}
function reply(id, result) {
  send({ jsonrpc: '2.0', id, result });
}
function fail(id, code, message) {
  send({ jsonrpc: '2.0', id, error: { code, message } });
}
function callTool(name, args) {
  ${dispatch}
  return ${call};
}
rl.on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    return;
  }
  if (msg.id === undefined) return;
  if (msg.method === 'initialize') {
    reply(msg.id, { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'big', version: '1.0.0' } });
  } else if (msg.method === 'tools/list') {
    reply(msg.id, { tools: ${tools} });
  } else if (msg.method === 'tools/call') {
    try {
      reply(msg.id, callTool(msg.params.name, msg.params.arguments || {}));
    } catch (err) {
      fail(msg.id, -32603, String(err && err.message));
    }
  } else {
    fail(msg.id, -32601, 'Method not found');
  }
});
`;
}

/** N functions, each a few statements that read their parameters and call the previous ones; padded to `bytes`. */
function functionsShape(n, bytes) {
  for (let perFunction = Math.floor(bytes / n); ; perFunction -= 8) {
    const text = functionsText(n, perFunction);
    if (text.length <= bytes || perFunction < 120) return text;
  }
}

function functionsText(n, perFunction) {
  const core = serverCore({ dispatch: `if (name === 'f0') return text(String(f${n - 1}(args.a, args.b)));` });
  const out = ["'use strict';"];
  for (let i = 0; i < n; i++) {
    const lines = [`function f${i}(a, b) {`, `  const x${i} = (a || 0) + ${i};`];
    if (i > 0) lines.push(`  const y = f${i - 1}(b, x${i});`);
    if (i > 1) lines.push(`  if (y > ${i * 7}) return f${(i * 7) % i}(y, a);`);
    let pad = 0;
    while (lines.join('\n').length < perFunction - 40) lines.push(`  const p${pad} = { k${pad}: a, v: b, n: ${pad++} };`);
    lines.push(`  return ${i > 0 ? 'y + ' : ''}x${i} + String(b).length;`, '}');
    out.push(lines.join('\n'));
  }
  return out.join('\n') + core;
}

/** One-line helpers: `function h123(a) { return h122(a) + 1; }`, ~120 bytes each. */
function helperLines(bytes, reserve) {
  const out = [];
  let size = 0;
  for (let i = 0; size < bytes - reserve; i++) {
    const body = i === 0 ? 'return String(a).trim();' : i % 3 === 0 ? `return h${i - 1}(a) + h${Math.floor(i / 2)}(b || a);` : i % 3 === 1 ? `const v = a ? h${i - 1}(a, b) : b; return v;` : `if (!a) { return null; } return [a, b, h${i - 1}(b)];`;
    const line = `function h${i}(a, b) { ${body} }`;
    out.push(line);
    size += line.length + 1;
  }
  return out;
}

function helpersShape(bytes) {
  const core = serverCore({ dispatch: "if (name === 'h') return text(String(h100(args.a, args.b)));" });
  return "'use strict';\n" + helperLines(bytes, core.length + 20).join('\n') + core;
}

function longLineShape(bytes) {
  // the helpers shape, minified: newlines and indentation gone (comments have none; strings keep theirs escaped)
  const core = serverCore({ dispatch: "if (name === 'h') return text(String(h100(args.a, args.b)));" })
    .split('\n')
    .map((l) => l.trim())
    .join(' ');
  return "'use strict';" + helperLines(bytes, core.length + 20).join(' ') + ' ' + core + '\n';
}

function switchShape(bytes) {
  const head = `'use strict';
const readline = require('readline');
const rl = readline.createInterface({ input: process.stdin, terminal: false });
function send(msg) {
  process.stdout.write(JSON.stringify(msg) + '\\n');
}
rl.on('line', (line) => {
  const msg = JSON.parse(line);
  switch (msg.method) {
    case 'initialize':
      send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'big', version: '1.0.0' } } });
      break;
    case 'tools/list':
      send({ jsonrpc: '2.0', id: msg.id, result: { tools: [] } });
      break;
`;
  const tail = `    default:
      send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
  }
});
`;
  const cases = [];
  let size = head.length + tail.length;
  for (let i = 0; size < bytes; i++) {
    const c = `    case 'custom/op${i}': {
      const value = (msg.params && msg.params.v${i % 17}) || ${i};
      send({ jsonrpc: '2.0', id: msg.id, result: { op: ${i}, value } });
      break;
    }
`;
    cases.push(c);
    size += c.length;
  }
  return head + cases.join('') + tail;
}

function toolTableShape(bytes) {
  const core = serverCore({
    dispatch: 'const tool = TOOLS.find((t) => t.name === name);\n  if (!tool) throw new Error(`Unknown tool: ${name}`);',
    tools: 'TOOLS.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))',
    call: 'text(String(tool.handler(args)))',
  });
  const rows = [];
  let size = core.length + 40;
  for (let i = 0; size < bytes; i++) {
    const row = `  {
    name: 'tool_${i}',
    description: 'Tool number ${i}: multiplies its input by ${i} and adds the offset',
    inputSchema: { type: 'object', properties: { x: { type: 'number' }, offset: { type: 'number' } }, required: ['x'] },
    handler: (args) => args.x * ${i} + (args.offset || 0),
  },
`;
    rows.push(row);
    size += row.length;
  }
  return `'use strict';\nconst TOOLS = [\n${rows.join('')}];\n${core}`;
}

/** Real CommonJS files of the project's node_modules (sorted, so the choice is stable). */
function realModuleFiles() {
  const roots = ['typescript/lib', 'yaml/dist', 'diff/lib', 'zod/v3', 'ajv/dist', 'markdown-it/lib', 'recast/lib', 'ast-types/lib', '@babel/types/lib', 'semver'].map((p) => join(REPO, 'node_modules', p));
  const files = [];
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = join(dir, e.name);
      if (e.isDirectory() && e.name !== 'node_modules') walk(full);
      else if (e.isFile() && (e.name.endsWith('.js') || e.name.endsWith('.cjs')) && statSync(full).size < 60_000) files.push(full);
    }
  };
  for (const r of roots) walk(r);
  return files;
}

async function realShape(bytes) {
  const core = serverCore({ dispatch: "if (name === 'len') return text(String(__modules.length));" });
  const { parse } = await import('@babel/parser');
  const parts = [];
  let size = core.length + 100;
  for (const file of realModuleFiles()) {
    const text = readFileSync(file, 'utf8');
    if (/\bimport\s|\bexport\s|^#!/m.test(text) || text.includes('stdin')) continue;
    const wrapped = `// ${relative(join(REPO, 'node_modules'), file)}\nfunction __module_${parts.length}(module, exports, require) {\n${text}\n}\n`;
    if (size + wrapped.length > bytes) continue;
    try {
      parse(wrapped, { sourceType: 'script' });
    } catch {
      continue; // strict-mode-only or newer syntax the bundle wrapper would break
    }
    parts.push(wrapped);
    size += wrapped.length;
    if (size > bytes * 0.97) break;
  }
  const list = `const __modules = [${parts.map((_, i) => `__module_${i}`).join(', ')}];\n`;
  return parts.join('') + list + core;
}

export async function generateShape(shape, bytes = DEFAULT_BYTES) {
  const m = /^functions-(\d+)$/.exec(shape);
  if (m) return functionsShape(Number(m[1]), bytes);
  const r = /^real-(\d+)(k|m)$/.exec(shape);
  if (r) return realShape(r[2] === 'm' ? bytes : Number(r[1]) * 1000);
  switch (shape) {
    case 'helpers':
      return helpersShape(bytes);
    case 'switch':
      return switchShape(bytes);
    case 'long-line':
      return longLineShape(bytes);
    case 'tool-table':
      return toolTableShape(bytes);
    default:
      throw new Error(`unknown shape ${shape} (known: ${ALL_SHAPES.join(', ')})`);
  }
}

/** Writes each shape to `<out>/<shape>/server.js` (one directory each, so a run sees one file). */
export async function writeShapes(out, shapes = ALL_SHAPES, bytes = DEFAULT_BYTES) {
  const written = [];
  for (const shape of shapes) {
    const path = join(out, shape, 'server.js');
    mkdirSync(dirname(path), { recursive: true });
    const text = await generateShape(shape, bytes);
    writeFileSync(path, text);
    written.push({ shape, path, bytes: Buffer.byteLength(text) });
  }
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  let out = join(tmpdir(), 'mcp-migrate-big-files');
  let bytes = DEFAULT_BYTES;
  const shapes = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out') out = argv[++i];
    else if (argv[i] === '--bytes') bytes = Number(argv[++i]);
    else shapes.push(argv[i]);
  }
  for (const w of await writeShapes(out, shapes.length ? shapes : ALL_SHAPES, bytes)) process.stdout.write(`${w.shape}\t${w.bytes}\t${w.path}\n`);
}
