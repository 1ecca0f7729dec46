// The envelope helper module itself (the companion file), in all three module systems: the same
// behaviour suite runs against the CJS, ESM and TypeScript text, and the TypeScript text must
// type-check under strict settings in both ESM and CommonJS projects.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildHelperSource, getHelperModule, type HelperKind } from '../src/rewrite/envelope/helper-source.js';

interface Envelope {
  parse(text: string | Buffer): unknown;
  receive(text: string | Buffer): unknown;
  send(reply: unknown): void;
  scope<R>(fn: () => R): R;
  bind<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  handle<R>(message: unknown, fn: () => R): R;
}
type CreateEnvelope = (write: (message: unknown) => void) => Envelope;

const dir = mkdtempSync(join(tmpdir(), 'envelope-helper-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FILES: Record<HelperKind, string> = { cjs: 'mcp-envelope.cjs', esm: 'mcp-envelope.mjs', ts: 'mcp-envelope.ts' };

async function loadHelper(kind: HelperKind): Promise<CreateEnvelope> {
  const file = join(dir, FILES[kind]);
  writeFileSync(file, buildHelperSource(kind));
  if (kind === 'cjs') return (createRequire(import.meta.url)(file) as { createEnvelope: CreateEnvelope }).createEnvelope;
  return ((await import(pathToFileURL(file).href)) as { createEnvelope: CreateEnvelope }).createEnvelope;
}

function setup(createEnvelope: CreateEnvelope): { envelope: Envelope; out: unknown[] } {
  const out: unknown[] = [];
  return { envelope: createEnvelope((message) => out.push(message)), out };
}

const tick = (ms = 0): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe.each(['cjs', 'esm', 'ts'] as const)('envelope helper (%s)', (kind) => {
  it('answers with the id of the request, whatever id the server wrote', async () => {
    const { envelope, out } = setup(await loadHelper(kind));
    for (const id of [0, 'abc', 7, null]) {
      envelope.scope(() => {
        const msg = envelope.parse(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' })) as { id: unknown };
        envelope.send({ id: msg.id || null, result: { tools: [] } });
      });
    }
    expect(out).toEqual([
      { jsonrpc: '2.0', id: 0, result: { tools: [] } },
      { jsonrpc: '2.0', id: 'abc', result: { tools: [] } },
      { jsonrpc: '2.0', id: 7, result: { tools: [] } },
      { jsonrpc: '2.0', id: null, result: { tools: [] } },
    ]);
  });

  it('never answers a notification', async () => {
    const { envelope, out } = setup(await loadHelper(kind));
    envelope.scope(() => {
      envelope.parse('{"jsonrpc":"2.0","method":"notifications/initialized"}');
      envelope.send({ jsonrpc: '2.0', id: null, error: { code: -32601, message: 'Method not found' } });
    });
    envelope.handle({ jsonrpc: '2.0', method: 'notifications/cancelled', params: {} }, () => envelope.send({ result: {} }));
    expect(out).toEqual([]);
  });

  it('answers bad JSON with -32700 / id null once, drops the server answer, and throws like JSON.parse', async () => {
    const { envelope, out } = setup(await loadHelper(kind));
    const inScope = (): void =>
      envelope.scope(() => {
        try {
          envelope.parse('{"jsonrpc": "2.0", "id": 1, "method"');
        } catch (err) {
          expect(err).toBeInstanceOf(SyntaxError);
          envelope.send({ jsonrpc: '2.0', id: 0, error: { code: -32700, message: 'Parse error' } });
        }
      });
    inScope();
    // outside any scope (the input loop parses, then hands the message to handle())
    try {
      envelope.parse('not json');
    } catch {
      envelope.send({ id: null, error: { code: -32700, message: 'bad' } });
    }
    expect(out).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
    ]);
    // the outside-scope rejection does not outlive the catch block that follows it
    await tick();
    envelope.send({ jsonrpc: '2.0', id: 9, result: {} });
    expect(out[2]).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
  });

  it('answers a message that is not a request with -32600 and keeps its id when it has one', async () => {
    const { envelope, out } = setup(await loadHelper(kind));
    for (const text of ['null', '42', '"x"', '{"jsonrpc":"2.0","id":3,"method":5}', '{"jsonrpc":"2.0","id":4}', '{"id":{"a":1},"method":"x"}']) {
      expect(envelope.receive(text)).toBeUndefined();
    }
    expect(out.map((m) => (m as { id: unknown }).id)).toEqual([null, null, null, 3, 4, null]);
    expect(out.every((m) => (m as { error: { code: number } }).error.code === -32600)).toBe(true);
  });

  it('passes a client response through to the server without binding it', async () => {
    const { envelope, out } = setup(await loadHelper(kind));
    const msg = envelope.scope(() => envelope.parse('{"jsonrpc":"2.0","id":5,"result":{}}'));
    expect(msg).toEqual({ jsonrpc: '2.0', id: 5, result: {} });
    expect(out).toEqual([]);
  });

  it('accepts a Buffer body and decodes it as UTF-8', async () => {
    const { envelope } = setup(await loadHelper(kind));
    const msg = envelope.parse(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"café"}}')) as {
      params: { name: string };
    };
    expect(msg.params.name).toBe('café');
  });

  it('makes error objects standard', async () => {
    const { envelope, out } = setup(await loadHelper(kind));
    const answer = (method: string, error: unknown): unknown => {
      out.length = 0;
      envelope.handle({ jsonrpc: '2.0', id: 1, method }, () => envelope.send({ jsonrpc: '2.0', id: 1, error }));
      return (out[0] as { error: unknown }).error;
    };
    expect(answer('tools/call', 'Unknown tool')).toEqual({ code: -32602, message: 'Unknown tool' });
    expect(answer('tools/list', 'boom')).toEqual({ code: -32603, message: 'boom' });
    expect(answer('tools/call', { code: -32603, message: 'Unknown tool: nope' })).toEqual({ code: -32602, message: 'Unknown tool: nope' });
    expect(answer('tools/call', { code: -32601, message: 'Unknown tool: nope' })).toEqual({ code: -32602, message: 'Unknown tool: nope' });
    expect(answer('tools/call', { code: 42, message: 'Unknown tool: nope' })).toEqual({ code: 42, message: 'Unknown tool: nope' });
    expect(answer('tools/list', { code: -32603, message: 'Unknown tool: nope' })).toEqual({ code: -32603, message: 'Unknown tool: nope' });
    expect(answer('x/y', { code: -32000, message: 'Unknown method: x/y' })).toEqual({ code: -32601, message: 'Unknown method: x/y' });
    expect(answer('x/y', { code: -32000, message: 'Database locked' })).toEqual({ code: -32000, message: 'Database locked' });
    expect(answer('x/y', { code: 'ENOENT', message: 'no file' })).toEqual({ code: -32603, message: 'no file' });
    expect(answer('x/y', { code: 1.5 })).toEqual({ code: -32603, message: 'Internal error' });
    expect(answer('x/y', { code: -32601 })).toEqual({ code: -32601, message: 'Method not found' });
    expect(answer('x/y', { code: 12, message: 'custom', data: { a: 1 } })).toEqual({ code: 12, message: 'custom', data: { a: 1 } });
    expect(answer('x/y', new Error('thrown'))).toEqual({ code: -32603, message: 'thrown' });
    // a request that parsed cannot have a parse error: the server's catch-all answered it
    expect(answer('tools/call', { code: -32700, message: 'Parse error' })).toEqual({ code: -32603, message: 'Parse error' });
  });

  it('answers ping itself and drops the server answer', async () => {
    const { envelope, out } = setup(await loadHelper(kind));
    envelope.scope(() => {
      envelope.parse('{"jsonrpc":"2.0","id":"p","method":"ping"}');
      envelope.send({ jsonrpc: '2.0', id: 'p', error: { code: -32601, message: 'Method not found' } });
    });
    expect(out).toEqual([{ jsonrpc: '2.0', id: 'p', result: {} }]);
  });

  it('answers a request once, fills in a missing result, and lets notifications of the server through', async () => {
    const { envelope, out } = setup(await loadHelper(kind));
    envelope.handle({ jsonrpc: '2.0', id: 2, method: 'tools/call' }, () => {
      envelope.send({ method: 'notifications/progress', params: { progress: 1 } });
      envelope.send({ id: 2 });
      envelope.send({ id: 2, result: { late: true } });
    });
    expect(out).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
  });

  it('keeps ids apart when two async requests are in flight', async () => {
    const { envelope, out } = setup(await loadHelper(kind));
    const slow = envelope.scope(async () => {
      envelope.parse('{"jsonrpc":"2.0","id":1,"method":"tools/call"}');
      await tick(30);
      envelope.send({ id: 'wrong', result: { which: 'slow' } });
    });
    const fast = envelope.handle({ jsonrpc: '2.0', id: 2, method: 'tools/call' }, async () => {
      await tick(5);
      envelope.send({ id: 'wrong', result: { which: 'fast' } });
    });
    const viaCallback = envelope.bind((id: number) => {
      envelope.parse(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }));
      return new Promise<void>((done) =>
        setTimeout(() => {
          envelope.send({ result: { which: 'callback' } });
          done();
        }, 15),
      );
    })(3);
    await Promise.all([slow, fast, viaCallback]);
    expect(out).toEqual([
      { jsonrpc: '2.0', id: 2, result: { which: 'fast' } },
      { jsonrpc: '2.0', id: 3, result: { which: 'callback' } },
      { jsonrpc: '2.0', id: 1, result: { which: 'slow' } },
    ]);
  });

  it('treats a reply that echoes the method as a reply, not as a message of the server', async () => {
    const { envelope, out } = setup(await loadHelper(kind));
    envelope.handle({ jsonrpc: '2.0', method: 'notifications/initialized' }, () => envelope.send({ method: 'notifications/initialized', result: {} }));
    envelope.handle({ jsonrpc: '2.0', id: 8, method: 'tools/list' }, () => envelope.send({ id: null, method: 'tools/list', result: { tools: [] } }));
    expect(out).toEqual([{ jsonrpc: '2.0', id: 8, result: { tools: [] } }]);
  });

  it('bind keeps this and the arguments of the wrapped listener', async () => {
    const { envelope } = setup(await loadHelper(kind));
    const listener = envelope.bind(function (this: { name: string }, a: number, b: number) {
      return `${this.name}:${a + b}`;
    });
    expect(listener.call({ name: 'rl' }, 1, 2)).toBe('rl:3');
  });

  it('passes a reply written outside any request through, made compliant', async () => {
    const { envelope, out } = setup(await loadHelper(kind));
    envelope.send({ id: 4, error: 'late failure' });
    expect(out).toEqual([{ jsonrpc: '2.0', id: 4, error: { code: -32603, message: 'late failure' } }]);
  });
});

describe('envelope helper module', () => {
  it('is the same text for every server of a module system, and named after the server extension', () => {
    expect(getHelperModule('/p/src/server.js', 'cjs')).toEqual({ kind: 'cjs', path: '/p/src/mcp-envelope.js', specifier: './mcp-envelope.js' });
    expect(getHelperModule('/p/index.js', 'esm')).toEqual({ kind: 'esm', path: '/p/mcp-envelope.js', specifier: './mcp-envelope.js' });
    expect(getHelperModule('/p/a.mjs', 'esm').specifier).toBe('./mcp-envelope.mjs');
    expect(getHelperModule('/p/a.cjs', 'esm')).toMatchObject({ kind: 'cjs', path: '/p/mcp-envelope.cjs' });
    expect(getHelperModule('/p/src/index.ts', 'esm')).toEqual({ kind: 'ts', path: '/p/src/mcp-envelope.ts', specifier: './mcp-envelope.js' });
    expect(getHelperModule('/p/a.mts', 'esm')).toMatchObject({ kind: 'ts', path: '/p/mcp-envelope.mts', specifier: './mcp-envelope.mjs' });
    expect(getHelperModule('/p/a.cts', 'cjs')).toMatchObject({ kind: 'ts', path: '/p/mcp-envelope.cts', specifier: './mcp-envelope.cjs' });
    expect(buildHelperSource('cjs')).toBe(buildHelperSource('cjs'));
    expect(buildHelperSource('cjs')).toContain('module.exports = { createEnvelope };');
    expect(buildHelperSource('esm')).toContain('export function createEnvelope(write)');
  });

  const tsc = resolve('node_modules/.bin/tsc');
  const typeRoots = resolve('node_modules/@types');
  it.each([
    ['NodeNext ESM', { module: 'NodeNext', moduleResolution: 'NodeNext' }, { type: 'module' }],
    ['CommonJS (Node16, no "type")', { module: 'Node16', moduleResolution: 'Node16' }, {}],
    ['CommonJS (module commonjs)', { module: 'commonjs' }, {}],
  ])('type-checks under strict settings (%s), and keeps the server reply type', (_name, moduleOptions, pkg) => {
    const project = mkdtempSync(join(dir, 'ts-'));
    writeFileSync(join(project, 'package.json'), JSON.stringify(pkg));
    writeFileSync(join(project, 'mcp-envelope.ts'), buildHelperSource('ts'));
    writeFileSync(
      join(project, 'server.ts'),
      [
        "import { createEnvelope } from './mcp-envelope.js';",
        'interface Reply { jsonrpc: "2.0"; id: number | string | null; result?: unknown }',
        'function send(message: Reply): void { process.stdout.write(JSON.stringify(message) + "\\n"); }',
        'const envelope = createEnvelope(send);',
        'const onLine = envelope.bind((line: string): void => {',
        '  const msg = envelope.parse(line) as { id: number; method: string };',
        '  envelope.send({ jsonrpc: "2.0", id: msg.id, result: {} });',
        '});',
        'onLine("{}");',
        'envelope.handle({}, () => envelope.scope(() => envelope.receive(Buffer.from("{}"))));',
        '// @ts-expect-error -- the reply type of the server writer is kept',
        'envelope.send({ nope: true });',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          ...moduleOptions,
          target: 'ES2022',
          strict: true,
          noEmit: true,
          noUnusedLocals: true,
          noUnusedParameters: true,
          noImplicitReturns: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          noPropertyAccessFromIndexSignature: true,
          isolatedModules: true,
          typeRoots: [typeRoots],
          types: ['node'],
        },
        files: ['server.ts', 'mcp-envelope.ts'],
      }),
    );
    execFileSync(tsc, ['-p', project], { encoding: 'utf8' });
  });
});
