// buildZodShape is checked against the real thing: every supported schema is turned into shape
// text, evaluated with zod, registered on an SDK v1 McpServer and listed by a Client over an
// in-memory transport; the published inputSchema must equal the original up to the normalisations
// documented in src/rewrite/zod-schema.ts, and valid arguments must reach the handler as documented.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { buildZodShape } from '../src/rewrite/zod-schema.js';

type Json = Record<string, unknown>;

interface SupportedCase {
  name: string;
  schema: Json;
  /** valid `arguments`; `received` is what the handler gets when it differs (zod defaults) */
  calls: Array<{ args: Json; received?: Json }>;
  /** the exact text for quote "'" and zodName 'z', where the shape of the output matters */
  text?: string;
}

const dateArg = { type: 'string', description: 'A date formatted YYYY-MM-DD' };
const int = (description: string) => ({ type: 'integer', description });

const SUPPORTED: SupportedCase[] = [
  // 02-esm-data-buffer-switch: TOOLS
  {
    name: '02 word_count',
    schema: { type: 'object', properties: { text: { type: 'string', description: 'The text to analyse' } }, required: ['text'] },
    calls: [{ args: { text: 'a b c' } }],
    text: "{ text: z.string().describe('The text to analyse') }",
  },
  {
    name: '02 slugify',
    schema: {
      type: 'object',
      properties: { text: { type: 'string' }, separator: { type: 'string', description: 'Defaults to "-"' } },
      required: ['text'],
    },
    calls: [{ args: { text: 'Hello World' } }, { args: { text: 'Hello World', separator: '_' } }],
    text: `{ text: z.string(), separator: z.string().describe('Defaults to "-"').optional() }`,
  },
  {
    name: '02 truncate',
    schema: {
      type: 'object',
      properties: { text: { type: 'string' }, max: { type: 'integer', description: 'Maximum length including the ellipsis' } },
      required: ['text', 'max'],
    },
    calls: [{ args: { text: 'abcdef', max: 4 } }],
    text: "{ text: z.string(), max: z.number().int().describe('Maximum length including the ellipsis') }",
  },
  // 05-ts-cjs-ifelse: enum + default
  {
    name: '05 hash_text',
    schema: {
      type: 'object',
      properties: {
        text: { type: 'string' },
        algorithm: { type: 'string', enum: ['md5', 'sha1', 'sha256', 'sha512'], default: 'sha256' },
      },
      required: ['text'],
    },
    calls: [
      { args: { text: 'x', algorithm: 'md5' } },
      // zod applies the default: the handler no longer sees `algorithm` missing.
      { args: { text: 'x' }, received: { text: 'x', algorithm: 'sha256' } },
    ],
    text: "{ text: z.string(), algorithm: z.enum(['md5', 'sha1', 'sha256', 'sha512']).default('sha256') }",
  },
  {
    name: '05 base64_decode',
    schema: { type: 'object', properties: { data: { type: 'string' } }, required: ['data'] },
    calls: [{ args: { data: 'aGk=' } }],
  },
  // 08-no-jsonrpc-field: minimum / maximum
  {
    name: '08 rgb_to_hex',
    schema: {
      type: 'object',
      properties: {
        r: { type: 'integer', minimum: 0, maximum: 255 },
        g: { type: 'integer', minimum: 0, maximum: 255 },
        b: { type: 'integer', minimum: 0, maximum: 255 },
      },
      required: ['r', 'g', 'b'],
    },
    calls: [{ args: { r: 0, g: 128, b: 255 } }],
    text: '{ r: z.number().int().min(0).max(255), g: z.number().int().min(0).max(255), b: z.number().int().min(0).max(255) }',
  },
  {
    name: '08 mix',
    schema: {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' }, weight: { type: 'number', minimum: 0, maximum: 1 } },
      required: ['a', 'b'],
    },
    calls: [{ args: { a: '#000', b: '#fff' } }, { args: { a: '#000', b: '#fff', weight: 0.25 } }],
  },
  // 07-resources-prompts: single property
  {
    name: '07 check_commit_message',
    schema: {
      type: 'object',
      properties: { message: { type: 'string', description: 'Full commit message' } },
      required: ['message'],
    },
    calls: [{ args: { message: 'fix: things' } }],
  },
  // 01, 03, 04, 06, 09, 10, 11, 12
  {
    name: '01 convert_temperature',
    schema: {
      type: 'object',
      properties: {
        value: { type: 'number', description: 'Temperature to convert' },
        from: { type: 'string', enum: ['C', 'F', 'K'] },
        to: { type: 'string', enum: ['C', 'F', 'K'] },
      },
      required: ['value', 'from', 'to'],
    },
    calls: [{ args: { value: -40.5, from: 'C', to: 'F' } }],
  },
  {
    name: '03 add_days',
    schema: { type: 'object', properties: { date: dateArg, days: { type: 'integer' } }, required: ['date', 'days'] },
    calls: [{ args: { date: '2024-02-28', days: -1 } }],
  },
  {
    name: '04 semver_bump',
    schema: {
      type: 'object',
      properties: { version: { type: 'string' }, part: { type: 'string', enum: ['major', 'minor', 'patch'] } },
      required: ['version', 'part'],
    },
    calls: [{ args: { version: '1.2.3', part: 'minor' } }],
  },
  {
    name: '06 search_items',
    schema: {
      type: 'object',
      properties: { query: { type: 'string' }, inStockOnly: { type: 'boolean', description: 'Skip items with qty 0' } },
      required: ['query'],
    },
    calls: [{ args: { query: 'bolt' } }, { args: { query: 'bolt', inStockOnly: false } }],
  },
  {
    name: '06 stock_value (no required)',
    schema: { type: 'object', properties: { category: { type: 'string' } } },
    calls: [{ args: {} }, { args: { category: 'tools' } }],
  },
  {
    name: '09 gcd',
    schema: { type: 'object', properties: { a: int('first number'), b: int('second number') }, required: ['a', 'b'] },
    calls: [{ args: { a: 84, b: 36 } }],
  },
  {
    name: '10 list_tables (properties: {})',
    schema: { type: 'object', properties: {} },
    calls: [{ args: {} }],
    text: '{}',
  },
  {
    name: '10 get_row',
    schema: { type: 'object', properties: { table: { type: 'string' }, id: { type: 'integer' } }, required: ['table', 'id'] },
    calls: [{ args: { table: 'orders', id: 7 } }],
  },
  {
    name: '11 sum',
    schema: { type: 'object', properties: { numbers: { type: 'array', items: { type: 'number' } } }, required: ['numbers'] },
    calls: [{ args: { numbers: [1, 2.5, -3] } }, { args: { numbers: [] } }],
    text: '{ numbers: z.array(z.number()) }',
  },
  {
    name: '12 to_roman',
    schema: { type: 'object', properties: { value: { type: 'integer' } }, required: ['value'] },
    calls: [{ args: { value: 1994 } }],
  },
  // edge cases
  {
    name: 'missing properties',
    schema: { type: 'object' },
    calls: [{ args: {} }],
    text: '{}',
  },
  {
    name: 'required in another order than properties',
    schema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['b', 'a'] },
    calls: [{ args: { a: 'x', b: 'y' } }],
  },
  {
    name: 'keys that need quotes',
    schema: {
      type: 'object',
      properties: {
        'first-name': { type: 'string' },
        'with space': { type: 'string' },
        '1st': { type: 'boolean' },
        '': { type: 'string' },
        "it's": { type: 'string' },
        'ünï': { type: 'string' },
        class: { type: 'string' },
        $ok: { type: 'string' },
        _ok2: { type: 'string' },
      },
      required: ['first-name', ''],
    },
    calls: [{ args: { 'first-name': 'Ada', '': 'empty', "it's": 'q', 'ünï': 'u', class: 'c', $ok: 'd', '1st': true } }],
    text:
      "{ 'first-name': z.string(), 'with space': z.string().optional(), '1st': z.boolean().optional(), '': z.string(), " +
      "'it\\'s': z.string().optional(), 'ünï': z.string().optional(), class: z.string().optional(), " +
      '$ok: z.string().optional(), _ok2: z.string().optional() }',
  },
  {
    name: 'strings that need escapes',
    schema: {
      type: 'object',
      properties: {
        a: { type: 'string', description: 'It\'s "quoted", back\\slash, ${tpl}, tab\t, new\nline, \u2028, \u0000, \ud800 lone' },
        b: { type: 'string', enum: ["'", '"', '\\', '\n', ''], default: '"' },
        c: { type: 'string', description: '' },
      },
      required: ['a', 'c'],
    },
    calls: [{ args: { a: 'x', b: "'", c: '' } }, { args: { a: 'x', c: '' }, received: { a: 'x', b: '"', c: '' } }],
  },
  {
    name: 'string length and pattern',
    schema: {
      type: 'object',
      properties: {
        code: { type: 'string', pattern: '^\\d{3}-[a-z]+$', minLength: 5, maxLength: 12 },
        path: { type: 'string', pattern: 'a\\/b' },
        empty: { type: 'string', maxLength: 0 },
      },
      required: ['code'],
    },
    calls: [{ args: { code: '123-abc', path: 'xa/by', empty: '' } }],
    text: "{ code: z.string().regex(/^\\d{3}-[a-z]+$/).min(5).max(12), path: z.string().regex(/a\\/b/).optional(), empty: z.string().max(0).optional() }",
  },
  {
    name: 'exclusive bounds and fractions',
    schema: {
      type: 'object',
      properties: {
        ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
        temp: { type: 'number', minimum: -273.15 },
        count: { type: 'integer', exclusiveMinimum: 0, maximum: 10 },
        half: { type: 'integer', minimum: 0.5, maximum: 9007199254740991 },
      },
      required: ['ratio'],
    },
    calls: [{ args: { ratio: 0.5, temp: -10, count: 10, half: 1 } }],
  },
  {
    name: 'arrays',
    schema: {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string', description: 'one tag' }, minItems: 1, maxItems: 3, description: 'Tags' },
        matrix: { type: 'array', items: { type: 'array', items: { type: 'integer', minimum: 0 } } },
        flags: { type: 'array', items: { type: 'boolean' }, default: [] },
      },
      required: ['tags'],
    },
    calls: [
      { args: { tags: ['a'], matrix: [[1, 2], []], flags: [true] } },
      { args: { tags: ['a', 'b'] }, received: { tags: ['a', 'b'], flags: [] } },
    ],
  },
  {
    name: 'nested objects',
    schema: {
      type: 'object',
      properties: {
        range: {
          type: 'object',
          description: 'Inclusive range',
          properties: { from: { type: 'integer' }, to: { type: 'integer' }, step: { type: 'integer', default: 1 } },
          required: ['from', 'to'],
        },
        points: {
          type: 'array',
          items: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] },
        },
        options: {
          type: 'object',
          properties: { verbose: { type: 'boolean' }, mode: { type: 'string', enum: ['fast', 'safe'] } },
          default: { mode: 'safe' },
        },
      },
      required: ['range'],
    },
    calls: [
      { args: { range: { from: 1, to: 3, step: 2 }, points: [{ x: 1, y: 2 }], options: { verbose: true } } },
      { args: { range: { from: 1, to: 3 } }, received: { range: { from: 1, to: 3, step: 1 }, options: { mode: 'safe' } } },
    ],
    text:
      "{ range: z.object({ from: z.number().int(), to: z.number().int(), step: z.number().int().default(1) }).describe('Inclusive range'), " +
      'points: z.array(z.object({ x: z.number(), y: z.number() })).optional(), ' +
      "options: z.object({ verbose: z.boolean().optional(), mode: z.enum(['fast', 'safe']).optional() }).default({ mode: 'safe' }) }",
  },
  {
    name: 'scalar defaults',
    schema: {
      type: 'object',
      properties: {
        n: { type: 'number', default: -0.5 },
        i: { type: 'integer', default: 0 },
        b: { type: 'boolean', default: false },
        s: { type: 'string', default: '', description: 'Empty by default' },
      },
    },
    calls: [
      { args: { n: 1, i: 2, b: true, s: 'x' } },
      { args: {}, received: { n: -0.5, i: 0, b: false, s: '' } },
    ],
  },
];

/** Evaluates shape text as the migrated file would, with zod bound to `zodName`. */
function evaluateShape(text: string, zodName: string): Record<string, z.ZodType> {
  return new Function(zodName, `return (${text});`)(z) as Record<string, z.ZodType>;
}

/**
 * The normalisations of src/rewrite/zod-schema.ts that keep the accepted instances unchanged:
 * no root `$schema`; empty `properties` / `required` dropped; `required` as a sorted set;
 * the safe-integer bounds of `.int()` dropped. Key order is ignored by toEqual.
 */
function normalizeSchema(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const out: Json = { ...(schema as Json) };
  if (out.type === 'integer') {
    if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum;
    if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  }
  if (out.properties !== undefined) {
    const properties = Object.entries(out.properties as Json).map(([key, value]) => [key, normalizeSchema(value)]);
    if (properties.length === 0) delete out.properties;
    else out.properties = Object.fromEntries(properties);
  }
  if (Array.isArray(out.required)) {
    if (out.required.length === 0) delete out.required;
    else out.required = [...out.required].sort();
  }
  if (out.items !== undefined) out.items = normalizeSchema(out.items);
  return out;
}

function normalizePublished(published: Json): unknown {
  const { $schema, ...rest } = published;
  expect([undefined, 'http://json-schema.org/draft-07/schema#']).toContain($schema);
  return normalizeSchema(rest);
}

// ---- one server, one client, every tool ---------------------------------------------------------

const VARIANTS = [
  { quote: "'", zodName: 'z' },
  { quote: '"', zodName: 'zod' },
] as const;

/** Naive zod for keywords the converter refuses: proof that refusing them is needed. */
const NAIVE: Array<{ keyword: string; original: Json; shape: Record<string, z.ZodType> }> = [
  { keyword: 'format', original: { type: 'object', properties: { to: { type: 'string', format: 'email' } }, required: ['to'] }, shape: { to: z.email() } },
  { keyword: 'format', original: { type: 'object', properties: { at: { type: 'string', format: 'date-time' } }, required: ['at'] }, shape: { at: z.iso.datetime() } },
  { keyword: 'integer bound beyond 2^53', original: { type: 'object', properties: { n: { type: 'integer', minimum: -1e20 } }, required: ['n'] }, shape: { n: z.number().int().min(-1e20) } },
  { keyword: 'pattern with a bare /', original: { type: 'object', properties: { p: { type: 'string', pattern: 'a/b' } }, required: ['p'] }, shape: { p: z.string().regex(/a\/b/) } },
  { keyword: 'array without items', original: { type: 'object', properties: { l: { type: 'array' } }, required: ['l'] }, shape: { l: z.array(z.unknown()) } },
  { keyword: 'default on a required property', original: { type: 'object', properties: { s: { type: 'string', default: 'x' } }, required: ['s'] }, shape: { s: z.string().default('x') } },
  { keyword: 'minimum with exclusiveMinimum', original: { type: 'object', properties: { n: { type: 'number', minimum: 0, exclusiveMinimum: 0 } }, required: ['n'] }, shape: { n: z.number().min(0).gt(0) } },
  { keyword: 'enum without type', original: { type: 'object', properties: { e: { enum: ['a', 'b'] } }, required: ['e'] }, shape: { e: z.enum(['a', 'b']) } },
  { keyword: 'const', original: { type: 'object', properties: { c: { const: 'a' } }, required: ['c'] }, shape: { c: z.literal('a') } },
];

const received = new Map<string, unknown>();
let client: Client;
let server: McpServer;
let published: Map<string, Json>;

function toolName(caseIndex: number, variant: number): string {
  return `case_${caseIndex}_${variant}`;
}

function registerEcho(name: string, inputSchema: Record<string, z.ZodType> | z.ZodType): void {
  server.registerTool(name, { description: name, inputSchema }, async (args: unknown) => {
    received.set(name, args);
    return { content: [{ type: 'text' as const, text: 'ok' }] };
  });
}

beforeAll(async () => {
  server = new McpServer({ name: 'zod-schema-test', version: '0.0.0' });
  SUPPORTED.forEach((testCase, caseIndex) => {
    VARIANTS.forEach((variant, variantIndex) => {
      const result = buildZodShape(testCase.schema, variant);
      if (result.kind !== 'ok') return; // reported by the test below
      registerEcho(toolName(caseIndex, variantIndex), evaluateShape(result.text, variant.zodName));
    });
  });
  NAIVE.forEach((entry, index) => registerEcho(`naive_${index}`, entry.shape));
  registerEcho('strip', { text: z.string(), nested: z.object({ a: z.string() }) });
  registerEcho('loose', z.looseObject({ text: z.string() }));

  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  client = new Client({ name: 'zod-schema-test-client', version: '0.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  const { tools } = await client.listTools();
  published = new Map(tools.map((tool) => [tool.name, tool.inputSchema as Json]));
});

afterAll(async () => {
  await client?.close();
  await server?.close();
});

async function callAndCapture(name: string, args: Json): Promise<unknown> {
  received.delete(name);
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
  expect(received.has(name)).toBe(true);
  return received.get(name);
}

// ---- tests --------------------------------------------------------------------------------------

describe('buildZodShape: lossless round trip through a real McpServer', () => {
  describe.each(SUPPORTED.map((testCase, caseIndex) => ({ ...testCase, caseIndex })))('$name', (testCase) => {
    it.each(VARIANTS.map((variant, variantIndex) => ({ ...variant, variantIndex })))(
      'quote $quote, zod as $zodName: tools/list publishes the same schema',
      (variant) => {
        const result = buildZodShape(testCase.schema, variant);
        expect(result.kind).toBe('ok');
        const schema = published.get(toolName(testCase.caseIndex, variant.variantIndex));
        expect(schema).toBeDefined();
        expect(normalizePublished(schema!)).toEqual(normalizeSchema(testCase.schema));
      },
    );

    it('valid arguments reach the handler (with zod defaults filled in where stated)', async () => {
      for (const variantIndex of VARIANTS.keys()) {
        for (const call of testCase.calls) {
          const got = await callAndCapture(toolName(testCase.caseIndex, variantIndex), call.args);
          expect(got).toEqual(call.received ?? call.args);
        }
      }
    });

    if (testCase.text !== undefined) {
      it('prints the expected text', () => {
        expect(buildZodShape(testCase.schema, { quote: "'" })).toEqual({ kind: 'ok', text: testCase.text });
      });
    }
  });

  it('uses the requested quote and zod name', () => {
    const schema = { type: 'object', properties: { 'a-b': { type: 'string', description: `it's "x"`, enum: ['p', 'q'] } } };
    expect(buildZodShape(schema, { quote: '"', zodName: 'zod' })).toEqual({
      kind: 'ok',
      text: `{ "a-b": zod.enum(["p", "q"]).describe("it's \\"x\\"").optional() }`,
    });
    expect(buildZodShape(schema, { quote: "'" })).toEqual({
      kind: 'ok',
      text: `{ 'a-b': z.enum(['p', 'q']).describe('it\\'s "x"').optional() }`,
    });
  });

  it('shows the exact before / after of one corpus tool (05 hash_text)', () => {
    const schema = published.get(toolName(SUPPORTED.findIndex((c) => c.name === '05 hash_text'), 0));
    expect(schema).toEqual({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        text: { type: 'string' },
        algorithm: { type: 'string', enum: ['md5', 'sha1', 'sha256', 'sha512'], default: 'sha256' },
      },
      required: ['text'],
    });
  });

  it('integers gain the safe-integer bounds, and nothing else', () => {
    const schema = published.get(toolName(SUPPORTED.findIndex((c) => c.name === '12 to_roman'), 0));
    expect(schema?.properties).toEqual({ value: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 } });
  });
});

describe('what the SDK does with the registered shape', () => {
  it('never publishes additionalProperties for a raw shape or z.object, so extra arguments stay valid...', () => {
    expect(published.get('strip')).not.toHaveProperty('additionalProperties');
    expect((published.get('strip')?.properties as Json).nested).not.toHaveProperty('additionalProperties');
  });

  it('...but strips them, at the root and in nested objects, before the handler runs', async () => {
    const got = await callAndCapture('strip', { text: 'x', extra: 1, nested: { a: 'y', more: 2 } });
    expect(got).toEqual({ text: 'x', nested: { a: 'y' } });
  });

  it('z.looseObject(shape) keeps extra arguments and publishes additionalProperties: {} (same meaning)', async () => {
    expect(published.get('loose')).toMatchObject({ additionalProperties: {} });
    const got = await callAndCapture('loose', { text: 'x', extra: 1 });
    expect(got).toEqual({ text: 'x', extra: 1 });
  });

  it('an omitted optional property stays absent (not undefined-valued)', async () => {
    const index = SUPPORTED.findIndex((c) => c.name === '06 stock_value (no required)');
    const got = await callAndCapture(toolName(index, 0), {});
    expect(got).toEqual({});
    expect(Object.keys(got as Json)).toEqual([]);
  });

  it.each(NAIVE.map((entry, index) => ({ ...entry, index })))(
    'the naive zod for "$keyword" does not round-trip, so the converter refuses it',
    (entry) => {
      const schema = published.get(`naive_${entry.index}`)!;
      expect(normalizePublished(schema)).not.toEqual(normalizeSchema(entry.original));
      expect(buildZodShape(entry.original, { quote: "'" }).kind).toBe('lossy');
    },
  );
});

describe('buildZodShape: lossy schemas name the keyword', () => {
  const object = (properties: Json, extra: Json = {}) => ({ type: 'object', properties, ...extra });
  const LOSSY: Array<[string, unknown, string]> = [
    ['not an object', 'nope', 'type'],
    ['null', null, 'type'],
    ['root without type', { properties: {} }, 'type'],
    ['root of another type', { type: 'string' }, 'type'],
    ['root type array', { type: ['object'] }, 'type'],
    ['root additionalProperties false', object({}, { additionalProperties: false }), 'additionalProperties'],
    ['root additionalProperties true', object({}, { additionalProperties: true }), 'additionalProperties'],
    ['root description', object({}, { description: 'x' }), 'description'],
    ['root $schema', object({}, { $schema: 'http://json-schema.org/draft-07/schema#' }), '$schema'],
    ['root oneOf', object({}, { oneOf: [] }), 'oneOf'],
    ['properties not an object', { type: 'object', properties: [] }, 'properties'],
    ['required not an array', object({ a: { type: 'string' } }, { required: 'a' }), 'required'],
    ['required names a missing property', object({ a: { type: 'string' } }, { required: ['b'] }), 'required'],
    ['required duplicates', object({ a: { type: 'string' } }, { required: ['a', 'a'] }), 'required'],
    ['format', object({ when: { type: 'string', format: 'date-time' } }), 'properties.when.format'],
    ['$ref', object({ a: { $ref: '#/definitions/a' } }), 'properties.a.type'],
    ['$ref next to type', object({ a: { type: 'string', $ref: '#/definitions/a' } }), 'properties.a.$ref'],
    ['anyOf', object({ a: { anyOf: [{ type: 'string' }] } }), 'properties.a.type'],
    ['oneOf next to type', object({ a: { type: 'string', oneOf: [] } }), 'properties.a.oneOf'],
    ['type array', object({ a: { type: ['string', 'null'] } }), 'properties.a.type'],
    ['type null', object({ a: { type: 'null' } }), 'properties.a.type'],
    ['no type', object({ a: { description: 'x' } }), 'properties.a.type'],
    ['const', object({ a: { type: 'string', const: 'x' } }), 'properties.a.const'],
    ['nullable', object({ a: { type: 'string', nullable: true } }), 'properties.a.nullable'],
    ['title', object({ a: { type: 'string', title: 'A' } }), 'properties.a.title'],
    ['examples', object({ a: { type: 'string', examples: ['x'] } }), 'properties.a.examples'],
    ['property schema true', object({ a: true }), 'properties.a'],
    ['numeric enum', object({ a: { type: 'integer', enum: [1, 2] } }), 'properties.a.enum'],
    ['mixed enum', object({ a: { type: 'string', enum: ['a', 1] } }), 'properties.a.enum'],
    ['empty enum', object({ a: { type: 'string', enum: [] } }), 'properties.a.enum'],
    ['duplicate enum', object({ a: { type: 'string', enum: ['a', 'a'] } }), 'properties.a.enum'],
    ['enum with minLength', object({ a: { type: 'string', enum: ['a'], minLength: 1 } }), 'properties.a.minLength'],
    ['pattern with bare slash', object({ a: { type: 'string', pattern: 'a/b' } }), 'properties.a.pattern'],
    ['empty pattern', object({ a: { type: 'string', pattern: '' } }), 'properties.a.pattern'],
    ['unicode property escape', object({ a: { type: 'string', pattern: '^\\p{L}+$' } }), 'properties.a.pattern'],
    ['unicode code point escape', object({ a: { type: 'string', pattern: '\\u{41}' } }), 'properties.a.pattern'],
    ['invalid pattern', object({ a: { type: 'string', pattern: '(' } }), 'properties.a.pattern'],
    ['pattern on a number', object({ a: { type: 'number', pattern: 'x' } }), 'properties.a.pattern'],
    ['minLength on a number', object({ a: { type: 'number', minLength: 1 } }), 'properties.a.minLength'],
    ['minimum on a string', object({ a: { type: 'string', minimum: 1 } }), 'properties.a.minimum'],
    ['negative minLength', object({ a: { type: 'string', minLength: -1 } }), 'properties.a.minLength'],
    ['fractional maxItems', object({ a: { type: 'array', items: { type: 'string' }, maxItems: 1.5 } }), 'properties.a.maxItems'],
    ['minimum as a string', object({ a: { type: 'number', minimum: '1' } }), 'properties.a.minimum'],
    ['draft-04 exclusiveMinimum', object({ a: { type: 'number', minimum: 0, exclusiveMinimum: true } }), 'properties.a.exclusiveMinimum'],
    ['minimum and exclusiveMinimum', object({ a: { type: 'number', minimum: 0, exclusiveMinimum: 0 } }), 'properties.a.exclusiveMinimum'],
    ['integer bound beyond 2^53', object({ a: { type: 'integer', maximum: 2 ** 60 } }), 'properties.a.maximum'],
    ['infinite bound', object({ a: { type: 'number', maximum: Infinity } }), 'properties.a.maximum'],
    ['array without items', object({ a: { type: 'array' } }), 'properties.a.items'],
    ['tuple items', object({ a: { type: 'array', items: [{ type: 'string' }] } }), 'properties.a.items'],
    ['uniqueItems', object({ a: { type: 'array', items: { type: 'string' }, uniqueItems: true } }), 'properties.a.uniqueItems'],
    ['lossy items', object({ a: { type: 'array', items: { type: 'string', format: 'uri' } } }), 'properties.a.items.format'],
    ['free-form nested object', object({ meta: { type: 'object' } }), 'properties.meta.properties'],
    ['nested object with empty properties', object({ meta: { type: 'object', properties: {} } }), 'properties.meta.properties'],
    ['nested additionalProperties', object({ o: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false } }), 'properties.o.additionalProperties'],
    ['deep lossy', object({ o: { type: 'object', properties: { p: { type: 'object', properties: { q: { type: 'string', format: 'email' } } } } } }), 'properties.o.properties.p.properties.q.format'],
    ['nested required names a missing property', object({ o: { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] } }), 'properties.o.required'],
    ['default on a required property', object({ a: { type: 'string', default: 'x' } }, { required: ['a'] }), 'properties.a.default'],
    ['default of the wrong type', object({ a: { type: 'string', default: 1 } }), 'properties.a.default'],
    ['default null', object({ a: { type: 'string', default: null } }), 'properties.a.default'],
    ['default outside the enum', object({ a: { type: 'string', enum: ['x'], default: 'y' } }), 'properties.a.default'],
    ['default NaN', object({ a: { type: 'number', default: NaN } }), 'properties.a.default'],
    ['array default of the wrong items', object({ a: { type: 'array', items: { type: 'string' }, default: [1] } }), 'properties.a.default'],
    ['object default with an unknown key', object({ o: { type: 'object', properties: { a: { type: 'string' } }, default: { b: 'x' } } }), 'properties.o.default'],
    ['object default missing a required key', object({ o: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], default: {} } }), 'properties.o.default'],
    ['object default missing a key that has its own default', object({ o: { type: 'object', properties: { a: { type: 'string', default: 'x' } }, default: {} } }), 'properties.o.default'],
    ['description not a string', object({ a: { type: 'string', description: 1 } }), 'properties.a.description'],
    ['__proto__ key', { type: 'object', properties: JSON.parse('{"__proto__": {"type": "string"}}') }, 'properties.__proto__'],
    ['class instance as schema', object({ a: new (class Schema { type = 'string'; })() }), 'properties.a'],
  ];

  it.each(LOSSY)('%s -> %s', (_label, schema, keyword) => {
    expect(buildZodShape(schema, { quote: "'" })).toEqual({ kind: 'lossy', keyword });
  });
});
