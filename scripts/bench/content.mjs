// Ordinary module content for the synthetic monorepo: services, utilities, types, configs, components,
// tests, reducers, barrels, CLI scripts, loggers, HTTP middleware, JSON-RPC-over-HTTP clients and
// JSON-lines stdio workers. Everything is deterministic given the rng, and every file parses both with
// Babel's typescript (.ts) / jsx (.js) plugins and with jscodeshift's tsx parser (no `<T>x` assertions,
// no generic arrow functions, JSX only in .js files).
//
// The text is tuned so that the prefilter is exercised the way real code exercises it (calibrated on
// this repository's node_modules: ~1.5% of files mention process.stdout/stdin, ~13% say "method",
// ~0.7% have both): CLI scripts, loggers and stdout-spying tests mention process.stdout; HTTP code,
// JSDoc and comments say "method"; some files JSON.parse and console.log.

const NOUNS = [
  'user', 'order', 'invoice', 'account', 'session', 'token', 'cart', 'product', 'report', 'metric', 'event', 'queue',
  'job', 'task', 'file', 'asset', 'image', 'comment', 'message', 'channel', 'team', 'project', 'build', 'deploy',
  'release', 'config', 'cache', 'route', 'payload', 'record', 'entry', 'item', 'batch', 'schedule', 'webhook',
  'tenant', 'plan', 'subscription', 'payment', 'refund', 'customer', 'address', 'shipment', 'inventory', 'warehouse',
  'price', 'discount', 'coupon', 'notification', 'email', 'template', 'locale', 'translation', 'feature', 'flag',
  'experiment', 'segment', 'audit', 'trace', 'span', 'store', 'widget', 'theme', 'layout', 'column', 'row', 'chart',
  'filter', 'query', 'document', 'schema', 'migration', 'model', 'field', 'policy', 'role', 'permission', 'group',
  'member', 'invite', 'vendor', 'contract', 'ticket', 'incident', 'alert', 'quota', 'region', 'bucket', 'upload',
];
const VERBS = [
  'get', 'fetch', 'load', 'create', 'update', 'delete', 'remove', 'list', 'find', 'build', 'parse', 'format',
  'validate', 'normalize', 'resolve', 'compute', 'merge', 'apply', 'render', 'sync', 'flush', 'process', 'handle',
  'map', 'sort', 'group', 'serialize', 'encode', 'decode', 'transform', 'prepare', 'register', 'schedule', 'retry',
  'track', 'emit', 'publish', 'compare', 'ensure', 'read', 'save', 'restore', 'reset', 'collect', 'archive', 'import',
];
const ADJS = ['active', 'pending', 'archived', 'stale', 'visible', 'primary', 'default', 'remote', 'local', 'cached', 'draft', 'expired', 'shared', 'public', 'internal'];
const PROPS = [
  'id', 'name', 'status', 'type', 'createdAt', 'updatedAt', 'count', 'total', 'tags', 'owner', 'enabled', 'priority',
  'region', 'version', 'amount', 'currency', 'label', 'path', 'key', 'value', 'limit', 'offset', 'retries', 'timeout',
  'email', 'slug', 'title', 'description', 'score', 'weight', 'quantity', 'sku', 'url', 'locale', 'channel', 'source',
];
const NUM_PROPS = ['count', 'total', 'amount', 'quantity', 'score', 'weight', 'priority', 'retries', 'timeout', 'limit'];
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'north', 'south', 'blue', 'green', 'amber', 'silver', 'oak', 'pine', 'river', 'stone', 'cloud', 'spark', 'orbit', 'atlas', 'ember', 'frost'];
const HTTP = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const BUILTINS = [
  ['node:path', 'path'], ['node:fs', 'fs'], ['node:crypto', 'crypto'], ['node:util', 'util'], ['node:events', 'events'],
  ['node:url', 'url'], ['node:os', 'os'], ['node:assert', 'assert'], ['node:stream', 'stream'], ['node:zlib', 'zlib'],
];
const EXTERNAL = [
  ['lodash', 'lodash'], ['zod', 'zodLib'], ['date-fns', 'dateFns'], ['axios', 'axios'], ['uuid', 'uuidLib'],
  ['express', 'express'], ['pino', 'pino'], ['ioredis', 'Redis'], ['pg', 'pg'], ['yaml', 'YAML'], ['chalk', 'chalk'],
];

const cap = (s) => s[0].toUpperCase() + s.slice(1);
const kebab = (s) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const upperSnake = (s) => s.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();
const indent = (text, n) => text.split('\n').map((line) => (line === '' ? line : ' '.repeat(n) + line)).join('\n');

/** One file being written: its top-level names (kept unique: duplicate declarations do not parse) and exports. */
class FileWriter {
  constructor(rng, opts) {
    this.r = rng;
    this.ts = opts.ts;
    this.esm = opts.esm;
    this.jsx = opts.jsx;
    this.pkg = opts.pkg;
    this.traits = opts.traits;
    this.names = new Set();
    this.exported = [];
    this.parts = [];
    this.size = 0;
    this.functions = [];
  }
  unique(name) {
    let candidate = name;
    for (let i = 2; this.names.has(candidate); i++) candidate = `${name}${i}`;
    this.names.add(candidate);
    return candidate;
  }
  add(text) {
    this.parts.push(text);
    this.size += text.length + 1;
  }
  /** `export ` for ESM, nothing for CJS (the name goes into module.exports at the end). */
  exp(name) {
    if (this.esm) return 'export ';
    this.exported.push(name);
    this.size += name.length + 2;
    return '';
  }
  t(type) {
    return this.ts ? `: ${type}` : '';
  }
  text() {
    const tail = !this.esm && this.exported.length > 0 ? [`module.exports = { ${this.exported.join(', ')} };\n`] : [];
    return `${[...this.parts, ...tail].join('\n')}`;
  }
}

// ---------------------------------------------------------------------------------------------------
// Expressions and statements

function lit(r) {
  switch (r.int(0, 5)) {
    case 0:
      return `'${r.pick(WORDS)}'`;
    case 1:
      return String(r.int(0, 500));
    case 2:
      return r.chance(0.5) ? 'true' : 'false';
    case 3:
      return 'null';
    case 4:
      return `'${r.pick(ADJS)}'`;
    default:
      return String(r.int(1, 60) * 1000);
  }
}

function scopeRef(scope, r) {
  const pool = [...scope.params, ...scope.objects];
  return r.pick(pool);
}

function local(scope, base) {
  let name = base;
  for (let i = 2; scope.locals.has(name); i++) name = `${base}${i}`;
  scope.locals.add(name);
  return name;
}

function errMessage(w) {
  return w.ts ? '(err as Error).message' : 'err.message';
}

function statement(w, scope) {
  const r = w.r;
  const ref = scopeRef(scope, r);
  const prop = r.pick(PROPS);
  const noun = r.pick(NOUNS);
  const pick = r.int(0, 16);
  switch (pick) {
    case 0: {
      const x = local(scope, prop === 'id' ? 'key' : prop);
      scope.objects.push(x);
      return `const ${x} = ${ref}?.${prop} ?? ${lit(r)};`;
    }
    case 1: {
      const xs = local(scope, `${noun}s`);
      scope.arrays.push(xs);
      return `const ${xs} = (${ref}.${r.pick(['items', 'entries', 'rows', 'children', 'results'])} ?? []).filter((item) => item.${prop} ${r.pick(['===', '!==', '>', '<='])} ${lit(r)});`;
    }
    case 2: {
      const xs = scope.arrays.length ? r.pick(scope.arrays) : `(${ref}.items ?? [])`;
      const x = local(scope, `${noun}Summary`);
      scope.objects.push(x);
      return `const ${x} = ${xs}.map((entry) => ({ id: entry.id, ${prop}: entry.${prop}, ${r.pick(PROPS)}: entry.${r.pick(PROPS)} ?? ${lit(r)} }));`;
    }
    case 3:
      return `if (!${ref}) {\n  throw new Error(\`${cap(noun)} not found: \${String(${r.pick(scope.params)})}\`);\n}`;
    case 4: {
      const x = local(scope, r.pick(['mode', 'level', 'tier', 'label', 'bucket']));
      return `let ${x} = ${lit(r)};\nif (${ref}.${prop} ${r.pick(['===', '!=='])} ${lit(r)}) {\n  ${x} = ${lit(r)};\n} else if (${ref}.${r.pick(NUM_PROPS)} > ${r.int(1, 100)}) {\n  ${x} = ${lit(r)};\n}`;
    }
    case 5: {
      const xs = scope.arrays.length ? r.pick(scope.arrays) : `(${ref}.items ?? [])`;
      const acc = local(scope, `${prop}List`);
      const it = local(scope, r.pick(['item', 'row', 'entry', 'node', 'record']));
      scope.arrays.push(acc);
      return `const ${acc} = [];\nfor (const ${it} of ${xs}) {\n  if (${it}.${prop} === ${lit(r)}) continue;\n  ${acc}.push(${it}.${r.pick(PROPS)});\n}`;
    }
    case 6:
      if (!scope.async) return `const ${local(scope, `${noun}Key`)} = [${ref}.${prop}, ${lit(r)}].join(':');`;
      return `try {\n  await ${scope.callee}(${ref});\n} catch (err) {\n  ${scope.logger}.warn(\`failed to ${r.pick(VERBS)} ${noun}: \${${errMessage(w)}}\`);\n  throw err;\n}`;
    case 7:
      if (!w.traits.console) return `const ${local(scope, `${noun}Count`)} = Object.keys(${ref} ?? {}).length;`;
      return `console.log('[${w.pkg}] ${r.pick(VERBS)} ${noun}', ${ref}.${prop});`;
    case 8: {
      if (!w.traits.json) return `const ${local(scope, `${noun}Copy`)} = { ...${ref} };`;
      const x = local(scope, `${noun}Data`);
      scope.objects.push(x);
      return `const ${x} = JSON.parse(${ref}.${r.pick(['body', 'raw', 'payload', 'text'])} || '{}');`;
    }
    case 9: {
      if (!w.traits.method) return `const ${local(scope, `${noun}Id`)} = \`${noun}_\${${ref}.id ?? ${r.int(1, 999)}}\`;`;
      const x = local(scope, 'requestInit');
      return r.chance(0.5)
        ? `// the ${r.pick(VERBS)} method is idempotent, so a retry after a timeout is safe\nconst ${x} = { method: '${r.pick(HTTP)}', headers: { 'content-type': 'application/json' }, body: JSON.stringify(${ref}) };`
        : `const ${x} = { method: ${ref}.method ?? '${r.pick(HTTP)}', timeout: ${r.int(1, 30) * 1000} };`;
    }
    case 10: {
      const x = local(scope, `next${cap(noun)}`);
      scope.objects.push(x);
      return `const ${x} = { ...${ref}, ${prop}: ${lit(r)}, updatedAt: Date.now() };`;
    }
    case 11: {
      const xs = scope.arrays.length ? r.pick(scope.arrays) : `(${ref}.items ?? [])`;
      const numProp = r.pick(NUM_PROPS);
      return `const ${local(scope, `${numProp}Sum`)} = ${xs}.reduce((sum, item) => sum + (item.${numProp} ?? 0), 0);`;
    }
    case 12: {
      const x = local(scope, 'score');
      const cases = Array.from({ length: r.int(2, 5) }, () => `  case '${r.pick(ADJS)}':\n    ${x} += ${r.int(1, 9)};\n    break;`);
      const unique = [...new Set(cases)];
      return `let ${x} = 0;\nswitch (${ref}.${r.pick(['status', 'type', 'kind', 'state'])}) {\n${unique.join('\n')}\n  default:\n    break;\n}`;
    }
    case 13:
      return `const ${local(scope, `${noun}Path`)} = \`/${kebab(r.pick(NOUNS))}/\${${ref}.${prop}}/${r.pick(['edit', 'view', 'history', 'export'])}\`;`;
    case 14: {
      if (!scope.async) return `const ${local(scope, 'limit')} = Math.max(0, Math.min(${ref}.limit ?? ${r.int(10, 100)}, ${r.int(100, 1000)}));`;
      const xs = scope.arrays.length ? r.pick(scope.arrays) : `(${ref}.items ?? [])`;
      const out = local(scope, `${noun}Results`);
      scope.arrays.push(out);
      return `const ${out} = await Promise.all(${xs}.map((item) => ${scope.callee}(item)));`;
    }
    case 15: {
      const i = local(scope, 'attempt');
      return `let ${i} = 0;\nwhile (${i} < ${r.int(2, 5)} && !${ref}.${r.pick(['done', 'ready', 'closed'])}) {\n  ${i} += 1;\n}`;
    }
    default:
      if (w.traits.stdout && !scope.usedStdout) {
        scope.usedStdout = true;
        return `const ${local(scope, 'width')} = process.stdout.columns ?? 80;`;
      }
      return `${scope.logger}.debug('${r.pick(VERBS)} ${noun}', { ${prop}: ${ref}.${prop} });`;
  }
}

function body(w, scope, count) {
  const lines = [];
  for (let i = 0; i < count; i++) lines.push(statement(w, scope));
  const ret = scope.objects.length && w.r.chance(0.6) ? w.r.pick(scope.objects) : scope.arrays.length ? w.r.pick(scope.arrays) : `{ ok: true, ${w.r.pick(PROPS)}: ${scopeRef(scope, w.r)}.${w.r.pick(PROPS)} }`;
  lines.push(`return ${ret};`);
  return lines.join('\n');
}

function jsdoc(w, verb, noun, params) {
  const r = w.r;
  const lines = [`/**`, ` * ${cap(verb)}s the ${r.pick(ADJS)} ${noun}${r.chance(0.5) ? ` for the ${r.pick(NOUNS)} view` : ''}.`];
  if (w.traits.method && r.chance(0.4)) lines.push(` * This method is safe to call more than once; later calls hit the cache.`);
  if (!w.ts) for (const p of params) lines.push(` * @param {${r.pick(['string', 'object', 'number', `${cap(noun)}Options`])}} ${p}`);
  lines.push(` * @returns ${r.pick(['the updated record', 'a summary object', 'nothing useful', 'the normalized value'])}`, ` */`);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------------
// Top-level blocks

function header(w, kind) {
  const r = w.r;
  const lines = [];
  if (r.chance(0.25)) lines.push(`// Copyright (c) ${r.int(2017, 2025)} Acme Corp. All rights reserved.\n// SPDX-License-Identifier: ${r.pick(['MIT', 'Apache-2.0', 'UNLICENSED'])}\n`);
  if (r.chance(0.4)) lines.push(`/*\n * ${w.pkg}: ${r.pick(VERBS)} and ${r.pick(VERBS)} ${r.pick(NOUNS)} ${kind === 'test' ? 'tests' : 'helpers'}.\n * Keep this module free of side effects; it is imported by the ${r.pick(NOUNS)} service.\n */\n`);
  if (!w.esm && !w.ts && r.chance(0.6)) lines.push(`'use strict';\n`);
  return lines.join('\n');
}

function imports(w, count) {
  const r = w.r;
  const out = [];
  const used = new Set();
  for (let i = 0; i < count; i++) {
    const roll = r.int(0, 9);
    if (roll < 4) {
      const [mod, name] = r.pick(BUILTINS);
      if (used.has(mod)) continue;
      used.add(mod);
      const n = w.unique(name);
      out.push(w.esm || w.ts ? `import ${r.chance(0.5) ? `* as ${n}` : n} from '${mod}';` : `const ${n} = require('${mod}');`);
    } else if (roll < 7) {
      const file = `${r.pick(['..', '.', '../lib', './internal'])}/${kebab(r.pick(NOUNS))}${r.pick(['', '-utils', '-service', '-types'])}`;
      if (used.has(file)) continue;
      used.add(file);
      const names = [...new Set(Array.from({ length: r.int(1, 4) }, () => r.pick(VERBS) + cap(r.pick(NOUNS))))].map((n) => w.unique(n));
      const spec = w.esm && !w.ts && r.chance(0.7) ? `${file}.js` : file;
      out.push(w.esm || w.ts ? `import { ${names.join(', ')} } from '${spec}';` : `const { ${names.join(', ')} } = require('${file}');`);
    } else {
      const [mod, name] = r.pick(EXTERNAL);
      if (used.has(mod)) continue;
      used.add(mod);
      const n = w.unique(name);
      out.push(w.esm || w.ts ? `import ${n} from '${mod}';` : `const ${n} = require('${mod}');`);
    }
  }
  if (w.ts && r.chance(0.5)) {
    const t = w.unique(`${cap(r.pick(NOUNS))}Options`);
    out.push(`import type { ${t} } from './types';`);
  }
  return out.join('\n') + '\n';
}

function functionBlock(w) {
  const r = w.r;
  const verb = r.pick(VERBS);
  const noun = r.pick(NOUNS);
  const name = w.unique(verb + cap(noun) + (r.chance(0.3) ? cap(r.pick(NOUNS)) : ''));
  const isAsync = r.chance(0.45);
  const params = [noun, r.pick(['options', 'context', 'meta'])];
  const scope = { params, objects: [], arrays: [], locals: new Set(params), async: isAsync, callee: `${r.pick(VERBS)}${cap(noun)}`, logger: r.pick(['logger', 'console', 'log']) };
  const sig = w.ts
    ? `${params[0]}: ${cap(noun)}, ${params[1]}: ${cap(noun)}Options = {}`
    : `${params[0]}, ${params[1]} = {}`;
  const ret = w.ts ? `: ${isAsync ? `Promise<${cap(noun)}Result>` : `${cap(noun)}Result`}` : '';
  w.functions.push(name);
  const doc = r.chance(0.5) ? `${jsdoc(w, verb, noun, params)}\n` : '';
  if (!isAsync && r.chance(0.2)) {
    return `${doc}${w.exp(name)}const ${name} = (${sig})${ret} => {\n${indent(body(w, scope, r.int(2, 6)), 2)}\n};\n`;
  }
  return `${doc}${w.exp(name)}${isAsync ? 'async ' : ''}function ${name}(${sig})${ret} {\n${indent(body(w, scope, r.int(2, 9)), 2)}\n}\n`;
}

function classBlock(w) {
  const r = w.r;
  const noun = r.pick(NOUNS);
  const cls = w.unique(cap(noun) + r.pick(['Service', 'Repository', 'Manager', 'Client', 'Store', 'Controller', 'Scheduler', 'Registry']));
  const base = r.chance(0.3) ? r.pick(['EventEmitter', 'BaseService', 'Resource']) : null;
  const lines = [];
  if (r.chance(0.5)) lines.push(`/** ${cap(r.pick(VERBS))}s and caches ${noun}s. ${w.traits.method && r.chance(0.5) ? 'Every public method returns a copy.' : ''} */`);
  lines.push(`${w.exp(cls)}class ${cls}${base ? ` extends ${base}` : ''} {`);
  const members = [];
  if (w.ts) {
    members.push(`private readonly cache = new Map<string, ${cap(noun)}>();`);
    members.push(`constructor(private readonly client: HttpClient, private readonly logger: Logger, private readonly options: ${cap(noun)}Options = {}) {${base ? '\n  super();\n' : ''}}`);
  } else {
    members.push(`constructor(client, logger, options = {}) {\n${base ? '  super();\n' : ''}  this.client = client;\n  this.logger = logger;\n  this.options = options;\n  this.cache = new Map();\n}`);
  }
  const methods = r.int(2, 7);
  const seen = new Set();
  for (let i = 0; i < methods; i++) {
    const verb = r.pick(VERBS);
    const mname = verb + cap(r.pick(NOUNS));
    if (seen.has(mname)) continue;
    seen.add(mname);
    const isAsync = r.chance(0.6);
    const params = [r.pick(['id', 'key', 'input', 'query']), r.pick(['options', 'filter', 'patch'])];
    const scope = { params, objects: ['this.options'], arrays: [], locals: new Set(params), async: isAsync, callee: `this.client.${r.pick(['get', 'post', 'send', 'request'])}`, logger: 'this.logger' };
    const sig = w.ts ? `${params[0]}: string, ${params[1]}: Partial<${cap(noun)}> = {}` : `${params[0]}, ${params[1]} = {}`;
    const ret = w.ts ? `: ${isAsync ? `Promise<${cap(noun)} | undefined>` : `${cap(noun)} | undefined`}` : '';
    const vis = w.ts && r.chance(0.3) ? 'private ' : '';
    let text = `${vis}${isAsync ? 'async ' : ''}${mname}(${sig})${ret} {\n`;
    if (r.chance(0.4)) text += `  if (this.cache.has(${params[0]})) return this.cache.get(${params[0]});\n`;
    text += `${indent(body(w, scope, r.int(2, 8)), 2)}\n}`;
    members.push(text);
  }
  if (r.chance(0.4)) members.push(`get size()${w.t('number')} {\n  return this.cache.size;\n}`);
  if (r.chance(0.3)) members.push(`static from(config${w.ts ? ': any' : ''})${w.t(cls)} {\n  return new ${cls}(config.client, config.logger, config);\n}`);
  lines.push(members.map((m) => indent(m, 2)).join('\n\n'));
  lines.push('}\n');
  return lines.join('\n');
}

function typesBlock(w) {
  const r = w.r;
  const noun = r.pick(NOUNS);
  if (!w.ts) return constantsBlock(w);
  const roll = r.int(0, 2);
  if (roll === 0) {
    const name = w.unique(cap(noun) + r.pick(['', 'Record', 'Dto', 'Row', 'Input']));
    const fields = [...new Set(Array.from({ length: r.int(3, 12) }, () => r.pick(PROPS)))];
    const types = ['string', 'number', 'boolean', 'string[]', `${cap(r.pick(NOUNS))} | null`, 'Record<string, unknown>', 'Date'];
    return `${w.exp(name)}interface ${name} {\n${fields.map((f) => `  ${f}${r.chance(0.3) ? '?' : ''}: ${r.pick(types)};`).join('\n')}\n}\n`;
  }
  if (roll === 1) {
    const name = w.unique(`${cap(noun)}${r.pick(['Status', 'Kind', 'Mode'])}`);
    const values = [...new Set(Array.from({ length: r.int(2, 6) }, () => `'${r.pick(ADJS)}'`))];
    return `${w.exp(name)}type ${name} = ${values.join(' | ')};\n`;
  }
  const name = w.unique(`${cap(noun)}Level`);
  const values = [...new Set(Array.from({ length: r.int(2, 6) }, () => r.pick(ADJS)))];
  return `${w.exp(name)}enum ${name} {\n${values.map((v) => `  ${cap(v)} = '${v}',`).join('\n')}\n}\n`;
}

function constantsBlock(w) {
  const r = w.r;
  const lines = [];
  for (let i = 0, n = r.int(2, 6); i < n; i++) {
    const name = w.unique(upperSnake(`${r.pick(['default', 'max', 'min'])}${cap(r.pick(NOUNS))}${r.pick(['Limit', 'TimeoutMs', 'Retries', 'Size', 'Name'])}`));
    lines.push(`${w.exp(name)}const ${name} = ${lit(r)};`);
  }
  return lines.join('\n') + '\n';
}

function configValue(r, depth, budget) {
  const roll = r.int(0, depth > 2 ? 3 : 5);
  if (roll <= 3) return lit(r);
  if (roll === 4) return `[${Array.from({ length: r.int(1, 6) }, () => lit(r)).join(', ')}]`;
  return configObject(r, depth + 1, budget);
}

function configObject(r, depth, budget) {
  const keys = [...new Set(Array.from({ length: r.int(2, depth === 0 ? Math.max(4, Math.min(80, Math.floor(budget / 60))) : 8) }, () => r.pick([...PROPS, ...NOUNS])))];
  const pad = '  '.repeat(depth + 1);
  const entries = keys.map((k) => `${pad}${r.chance(0.3) ? `'${k}'` : k}: ${configValue(r, depth, budget)},`);
  return `{\n${entries.join('\n')}\n${'  '.repeat(depth)}}`;
}

function configBlock(w, budget) {
  const r = w.r;
  const name = w.unique(r.chance(0.5) ? `${r.pick(NOUNS)}Config` : upperSnake(`${r.pick(NOUNS)}Defaults`));
  const obj = configObject(r, 0, Math.min(budget, 6000));
  const suffix = w.ts && r.chance(0.3) ? ' as const' : '';
  return `${w.exp(name)}const ${name} = ${obj}${suffix};\n`;
}

function componentBlock(w) {
  const r = w.r;
  const noun = r.pick(NOUNS);
  if (!w.jsx) {
    // Hooks-style helper without JSX (TypeScript packages, non-React packages).
    const name = w.unique(`use${cap(noun)}${r.pick(['', 'State', 'Query', 'List'])}`);
    const scope = { params: ['props'], objects: [], arrays: [], locals: new Set(['props', 'state', 'setState']), async: false, callee: 'noop', logger: 'console' };
    return `${w.exp(name)}function ${name}(props${w.ts ? `: ${cap(noun)}Props` : ''}) {\n  const [state, setState] = useState(${lit(r)});\n${indent(body(w, scope, r.int(2, 6)), 2)}\n}\n`;
  }
  const name = w.unique(`${cap(noun)}${r.pick(['Card', 'List', 'Panel', 'Row', 'Table', 'Badge', 'Form'])}`);
  const prop = r.pick(PROPS);
  const state = r.pick(['open', 'selected', 'expanded', 'page']);
  const setter = `set${cap(state)}`;
  const rows = Array.from({ length: r.int(1, 4) }, () => `        <dd className="${kebab(r.pick(PROPS))}">{item.${r.pick(PROPS)}}</dd>`).join('\n');
  return `${w.exp(name)}function ${name}({ title, items = [], on${cap(r.pick(VERBS))} }) {
  const [${state}, ${setter}] = useState(${lit(r)});
  const visible = items.filter((item) => item.${prop} !== ${lit(r)});
  return (
    <section className="${kebab(noun)}-${kebab(name)}">
      <h2>{title}</h2>
      <dl>
        {visible.map((item) => (
          <div key={item.id}>
            <dt>{item.${r.pick(PROPS)}}</dt>
${rows}
          </div>
        ))}
      </dl>
      {${state} && <span className="badge">{visible.length}</span>}
      <button type="button" onClick={() => ${setter}(${lit(r)})}>
        ${cap(r.pick(VERBS))} ${noun}
      </button>
    </section>
  );
}
`;
}

function reducerBlock(w) {
  const r = w.r;
  const noun = r.pick(NOUNS);
  const initial = w.unique(`initial${cap(noun)}State`);
  const name = w.unique(`${noun}Reducer`);
  const actions = [...new Set(Array.from({ length: r.int(2, 7) }, () => r.pick(VERBS)))];
  const cases = actions.map((a) => `    case '${noun}/${a}':\n      return { ...state, ${r.pick(PROPS)}: action.payload, ${r.pick(['loading', 'dirty', 'error'])}: ${r.chance(0.5)} };`);
  const sig = w.ts ? `state: ${cap(noun)}State = ${initial}, action: { type: string; payload?: any }` : `state = ${initial}, action`;
  return `const ${initial} = { items: [], loading: false, error: null, ${r.pick(PROPS)}: ${lit(r)} };\n\n${w.exp(name)}function ${name}(${sig}) {\n  switch (action.type) {\n${cases.join('\n')}\n    default:\n      return state;\n  }\n}\n`;
}

function middlewareBlock(w) {
  const r = w.r;
  const name = w.unique(`${r.pick(['cors', 'audit', 'rateLimit', 'requestLog', 'auth', 'etag'])}${cap(r.pick(NOUNS))}Middleware`);
  const methods = [...new Set(Array.from({ length: r.int(1, 3) }, () => r.pick(HTTP)))];
  return `${w.exp(name)}function ${name}(options = {}) {
  const allowed = new Set([${methods.map((m) => `'${m}'`).join(', ')}]);
  return (req, res, next) => {
    if (req.method === 'OPTIONS') {
      res.statusCode = 204;
      return res.end();
    }
    if (!allowed.has(req.method)) {
      res.statusCode = 405;
      res.setHeader('allow', [...allowed].join(', '));
      return res.end(\`method \${req.method} not allowed on \${req.url}\`);
    }
    req.${r.pick(['startedAt', 'requestId', 'tenant'])} = options.${r.pick(PROPS)} ?? Date.now();
    next();
  };
}
`;
}

function testBlock(w, subject) {
  const r = w.r;
  const its = [];
  for (let i = 0, n = r.int(2, 6); i < n; i++) {
    const fn = subject.length ? r.pick(subject) : `${r.pick(VERBS)}${cap(r.pick(NOUNS))}`;
    const x = r.pick(['result', 'value', 'out', 'actual']);
    const lines = [`  it('${r.pick(VERBS)}s ${r.pick(ADJS)} ${r.pick(NOUNS)}s${r.chance(0.3) ? ` when the ${r.pick(NOUNS)} is ${r.pick(ADJS)}` : ''}', ${r.chance(0.4) ? 'async ' : ''}() => {`];
    if (w.traits.stdout && i === 0) {
      lines.push(`    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);`);
      lines.push(`    ${fn}({ ${r.pick(PROPS)}: ${lit(r)} });`);
      lines.push(`    expect(write).toHaveBeenCalledWith(expect.stringContaining('${r.pick(WORDS)}'));`);
      lines.push(`    write.mockRestore();`);
    } else {
      lines.push(`    const ${x} = ${fn}({ ${r.pick(PROPS)}: ${lit(r)}, ${r.pick(PROPS)}: ${lit(r)} }, {});`);
      lines.push(`    expect(${x}).${r.pick(['toEqual', 'toMatchObject', 'toStrictEqual'])}({ ${r.pick(PROPS)}: ${lit(r)} });`);
      if (r.chance(0.5)) lines.push(`    expect(${x}.${r.pick(PROPS)}).${r.pick(['toBe', 'not.toBe'])}(${lit(r)});`);
      if (w.traits.json && r.chance(0.4)) lines.push(`    expect(JSON.parse(JSON.stringify(${x}))).toEqual(${x});`);
      if (w.traits.method && r.chance(0.5)) lines.push(`    expect(fetchMock).toHaveBeenCalledWith(expect.any(String), expect.objectContaining({ method: '${r.pick(HTTP)}' }));`);
    }
    lines.push('  });');
    its.push(lines.join('\n'));
  }
  return `describe('${subject.length ? r.pick(subject) : r.pick(NOUNS)}', () => {\n${its.join('\n\n')}\n});\n`;
}

function barrel(w, target) {
  const r = w.r;
  const mods = [];
  for (let size = 0, guard = 0; (size < target || mods.length < 4) && guard < 200; guard++) {
    const m = kebab(r.pick(NOUNS)) + r.pick(['', '-service', '-utils', '-types', '-helpers', '-constants']);
    if (mods.includes(m)) continue;
    mods.push(m);
    size += m.length + 28;
  }
  if (w.esm || w.ts) return mods.map((m) => `export * from './${m}${w.esm && !w.ts ? '.js' : ''}';`).join('\n') + '\n';
  return `module.exports = {\n${mods.map((m) => `  ...require('./${m}'),`).join('\n')}\n};\n`;
}

// ---------------------------------------------------------------------------------------------------
// Special kinds: CLI scripts, loggers, JSON-RPC-over-HTTP clients, JSON-lines stdio workers (not MCP)

function cliFile(w) {
  const r = w.r;
  const noun = r.pick(NOUNS);
  const verb = r.pick(VERBS);
  const fsName = w.esm || w.ts ? `import { readFileSync, existsSync } from 'node:fs';\nimport { resolve } from 'node:path';` : `const { readFileSync, existsSync } = require('node:fs');\nconst { resolve } = require('node:path');`;
  const methodFlag = w.traits.method
    ? `    else if (arg === '--method') flags.method = argv[++i]; // HTTP method for --probe\n`
    : '';
  const probe = w.traits.method
    ? `\nasync function probe(url${w.t('string')}, method${w.t('string')}) {\n  const res = await fetch(url, { method });\n  process.stdout.write(\`\${method} \${url} -> \${res.status}\\n\`);\n  return res.ok;\n}\n`
    : '';
  return `#!/usr/bin/env node
// ${verb}-${noun}s: ${r.pick(['prints', 'checks', 'summarises', 'exports'])} the ${noun} ${r.pick(['manifest', 'fixtures', 'snapshot', 'catalog'])} for CI.
${fsName}

const USAGE = \`usage: ${verb}-${noun}s [--input FILE] [--json] [--limit N]\\n\`;

function parseFlags(argv${w.ts ? ': string[]' : ''}) {
  const flags${w.ts ? ': Record<string, any>' : ''} = { json: false, limit: ${r.int(10, 200)} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') flags.json = true;
    else if (arg === '--input') flags.input = argv[++i];
    else if (arg === '--limit') flags.limit = Number(argv[++i]);
${methodFlag}    else if (arg === '--help') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else {
      process.stderr.write(\`unknown flag: \${arg}\\n\` + USAGE);
      process.exit(2);
    }
  }
  return flags;
}

function printTable(rows${w.ts ? ': Array<{ name: string; value: unknown }>' : ''}) {
  const width = Math.max(8, ...rows.map((row) => row.name.length));
  for (const row of rows) {
    process.stdout.write(\`\${row.name.padEnd(width)}  \${String(row.value)}\\n\`);
  }
}
${probe}
function main() {
  const flags = parseFlags(process.argv.slice(2));
  const file = resolve(flags.input ?? '${kebab(noun)}s.json');
  if (!existsSync(file)) {
    console.error(\`no such file: \${file}\`);
    process.exitCode = 1;
    return;
  }
  const data = JSON.parse(readFileSync(file, 'utf8'));
  const rows = Object.entries(data)
    .slice(0, flags.limit)
    .map(([name, value]) => ({ name, value: typeof value === 'object' ? JSON.stringify(value) : value }));
  if (flags.json) {
    process.stdout.write(JSON.stringify(rows, null, 2) + '\\n');
  } else {
    printTable(rows);
    console.log(\`\${rows.length} ${noun}s\`);
  }
}

main();
`;
}

function loggerFile(w) {
  const r = w.r;
  const name = w.unique(r.pick(['createLogger', 'makeLogger', 'logger']));
  const comment = w.traits.method ? '// Each level method writes one line; errors go to stderr.\n' : '// Each level writes one line; errors go to stderr.\n';
  return `const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 };
const useColor = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;

${comment}${w.exp(name)}function ${name}(scope${w.t('string')}, minLevel = process.env.LOG_LEVEL || 'info') {
  const threshold = LEVELS[minLevel${w.ts ? ' as keyof typeof LEVELS' : ''}] ?? 20;
  const write = (level${w.t('string')}, message${w.t('string')}, fields = {}) => {
    if ((LEVELS[level${w.ts ? ' as keyof typeof LEVELS' : ''}] ?? 0) < threshold) return;
    const line = process.env.LOG_FORMAT === 'json'
      ? JSON.stringify({ level, scope, message, time: new Date().toISOString(), ...fields })
      : \`\${useColor ? '\\u001b[2m' : ''}\${new Date().toISOString()}\${useColor ? '\\u001b[0m' : ''} \${level.toUpperCase().padEnd(5)} [\${scope}] \${message}\`;
    (level === 'error' ? process.stderr : process.stdout).write(line + '\\n');
  };
  return {
    debug: (m${w.t('string')}, f${w.ts ? '?: object' : ''}) => write('debug', m, f),
    info: (m${w.t('string')}, f${w.ts ? '?: object' : ''}) => write('info', m, f),
    warn: (m${w.t('string')}, f${w.ts ? '?: object' : ''}) => write('warn', m, f),
    error: (m${w.t('string')}, f${w.ts ? '?: object' : ''}) => write('error', m, f),
    child: (sub${w.t('string')}) => ${name}(\`\${scope}:\${sub}\`, minLevel),
  };
}
`;
}

function rpcClientFile(w) {
  const r = w.r;
  const cls = w.unique(`${cap(r.pick(['chain', 'ledger', 'node', 'wallet', 'indexer']))}RpcClient`);
  const calls = [...new Set(Array.from({ length: r.int(2, 6) }, () => `${r.pick(['eth', 'net', 'node', 'ledger'])}_${r.pick(VERBS)}${cap(r.pick(NOUNS))}`))];
  const methods = calls.map((m) => `  ${m.split('_')[1]}(params${w.ts ? ': unknown[] = []' : ' = []'}) {\n    return this.call('${m}', params);\n  }`);
  return `// JSON-RPC 2.0 over HTTP (no stdio): one POST per call.
${w.exp(cls)}class ${cls} {
  ${w.ts ? 'private nextId = 1;\n  constructor(private readonly url: string) {}' : 'constructor(url) {\n    this.url = url;\n    this.nextId = 1;\n  }'}

  async call(method${w.t('string')}, params${w.ts ? ': unknown' : ''}) {
    const id = this.nextId++;
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    });
    const body = JSON.parse(await res.text());
    if (body.error) throw new Error(\`\${method} failed: \${body.error.message} (\${body.error.code})\`);
    return body.result;
  }

${methods.join('\n\n')}
}
`;
}

function workerFile(w) {
  const r = w.r;
  const ops = [...new Set(Array.from({ length: r.int(2, 5) }, () => r.pick(VERBS)))];
  const comment = w.traits.method ? '// Each op maps to a handler method below; unknown ops are reported, never thrown.\n' : '// Each op maps to a handler below; unknown ops are reported, never thrown.\n';
  const rl = w.esm || w.ts ? `import { createInterface } from 'node:readline';` : `const { createInterface } = require('node:readline');`;
  return `// JSON-lines worker: the ${r.pick(NOUNS)} service pipes jobs in and reads results out (its own protocol, not JSON-RPC).
${rl}

${comment}const handlers = {
${ops.map((op) => `  ${op}: (job) => ({ ${r.pick(PROPS)}: job.${r.pick(PROPS)} ?? ${lit(r)}, done: true }),`).join('\n')}
};

function emit(record${w.ts ? ': object' : ''}) {
  process.stdout.write(JSON.stringify(record) + '\\n');
}

const rl = createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
  if (!line.trim()) return;
  let job;
  try {
    job = JSON.parse(line);
  } catch {
    emit({ id: null, ok: false, reason: 'bad json' });
    return;
  }
  const handler = Object.prototype.hasOwnProperty.call(handlers, job.op) ? handlers[job.op${w.ts ? ' as keyof typeof handlers' : ''}] : undefined;
  if (!handler) return emit({ id: job.id, ok: false, reason: \`unknown op \${job.op}\` });
  try {
    emit({ id: job.id, ok: true, result: handler(job) });
  } catch (err) {
    emit({ id: job.id, ok: false, reason: ${errMessage(w)} });
  }
});
`;
}

// ---------------------------------------------------------------------------------------------------

/**
 * Generates one ordinary source file.
 * @param rng seeded generator (forked per file by the caller)
 * @param opts { kind, ts, esm, jsx, pkg, target } target = desired size in bytes (approximate)
 */
export function generateFile(rng, opts) {
  const r = rng;
  const traits = {
    method: r.chance(opts.kind === 'cli' ? 0.45 : opts.kind === 'worker' ? 0.7 : opts.kind === 'logger' ? 0.5 : 0.09),
    console: r.chance(0.25),
    json: r.chance(0.12),
    stdout: opts.kind === 'test' ? r.chance(0.03) : r.chance(0.004),
  };
  const w = new FileWriter(r, { ...opts, traits });
  const target = opts.target;
  switch (opts.kind) {
    case 'cli':
      w.add(cliFile(w));
      break;
    case 'logger':
      w.add(header(w, opts.kind));
      w.add(loggerFile(w));
      break;
    case 'rpc':
      w.add(header(w, opts.kind));
      w.add(rpcClientFile(w));
      break;
    case 'worker':
      w.add(workerFile(w));
      break;
    case 'barrel':
      w.add(barrel(w, opts.target));
      break;
    default:
      break;
  }
  if (['cli', 'worker', 'barrel'].includes(opts.kind)) return w.text();

  if (opts.kind !== 'logger' && opts.kind !== 'rpc') {
    w.add(header(w, opts.kind));
    if (opts.kind === 'test') {
      if (w.esm || w.ts) w.add(`import { describe, it, expect, vi } from 'vitest';`);
    }
    if (opts.kind === 'component' && w.jsx) w.add(w.esm ? `import React, { useState } from 'react';` : `const React = require('react');\nconst { useState } = React;`);
    else if (opts.kind === 'component') w.add(w.esm || w.ts ? `import { useState } from 'react';` : `const { useState } = require('react');`);
    if (opts.kind === 'component') {
      w.names.add('React');
      w.names.add('useState');
    }
    w.add(imports(w, r.int(1, opts.kind === 'test' ? 3 : 8)));
  }

  const subject = opts.kind === 'test' ? [...new Set(Array.from({ length: r.int(1, 4) }, () => `${r.pick(VERBS)}${cap(r.pick(NOUNS))}`))].map((n) => w.unique(n)) : [];
  if (opts.kind === 'test') {
    w.add(w.esm || w.ts ? `import { ${[...new Set(subject)].join(', ')} } from '../src/${kebab(r.pick(NOUNS))}${w.esm && !w.ts ? '.js' : ''}';\n` : `const { ${[...new Set(subject)].join(', ')} } = require('../src/${kebab(r.pick(NOUNS))}');\n`);
  }

  const menus = {
    service: { class: 5, function: 3, constants: 1, types: 1 },
    util: { function: 8, constants: 2, types: 1, config: 0.5 },
    types: { types: 8, constants: 1 },
    config: { config: 6, constants: 2 },
    component: { component: 6, function: 2, constants: 1 },
    test: { test: 1 },
    reducer: { reducer: 4, function: 2, constants: 1 },
    middleware: { middleware: 3, function: 2 },
    logger: { function: 3, constants: 1 },
    rpc: { function: 3, types: 1 },
  };
  const menu = menus[opts.kind] ?? menus.util;
  let guard = 0;
  while (w.size < target && guard++ < 400) {
    const block = r.weighted(menu);
    let text;
    switch (block) {
      case 'class':
        text = classBlock(w);
        break;
      case 'function':
        text = functionBlock(w);
        break;
      case 'constants':
        text = constantsBlock(w);
        break;
      case 'types':
        text = typesBlock(w);
        break;
      case 'config':
        text = configBlock(w, target - w.size);
        break;
      case 'component':
        text = componentBlock(w);
        break;
      case 'test':
        text = testBlock(w, subject);
        break;
      case 'reducer':
        text = reducerBlock(w);
        break;
      case 'middleware':
        text = middlewareBlock(w);
        break;
      default:
        text = functionBlock(w);
    }
    // Never overshoot the 30 KB ceiling by much.
    if (w.size + text.length > opts.max && w.size > 0) break;
    w.add(text);
  }
  // A few ordinary modules look at the terminal (progress bars, table widths).
  if (traits.stdout && opts.kind !== 'test') {
    const name = w.unique('terminalWidth');
    w.add(`${w.exp(name)}function ${name}()${w.t('number')} {\n  return process.stdout.isTTY ? process.stdout.columns ?? 80 : 80;\n}\n`);
  }
  return w.text();
}
