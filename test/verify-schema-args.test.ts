// Tool arguments made up from an inputSchema (src/verify/schema-args.ts): the valid ones must validate
// and the invalid ones must not, checked with a real JSON Schema validator (ajv, draft 2020-12).
import { describe, it, expect } from 'vitest';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildInvalidArguments, buildValidArguments } from '../src/verify/schema-args.js';

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

const SCHEMAS: Record<string, Record<string, unknown>> = {
  'no properties': { type: 'object' },
  'required strings and numbers': {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 }, units: { type: 'string', enum: ['metric', 'imperial'] } },
    required: ['city', 'days', 'units'],
  },
  'optional properties left out': { type: 'object', properties: { verbose: { type: 'boolean' }, limit: { type: 'number' } } },
  'string constraints': {
    type: 'object',
    properties: {
      code: { type: 'string', pattern: '^[A-Z]{3}$' },
      short: { type: 'string', minLength: 10, maxLength: 12 },
      when: { type: 'string', format: 'date-time' },
      mail: { type: 'string', format: 'email' },
      link: { type: 'string', format: 'uri' },
      id: { type: 'string', format: 'uuid' },
    },
    required: ['code', 'short', 'when', 'mail', 'link', 'id'],
  },
  'number bounds': {
    type: 'object',
    properties: {
      positive: { type: 'number', exclusiveMinimum: 0 },
      negative: { type: 'integer', maximum: -5 },
      step: { type: 'number', multipleOf: 0.5, minimum: 2 },
      tens: { type: 'integer', multipleOf: 10, exclusiveMinimum: 10 },
    },
    required: ['positive', 'negative', 'step', 'tens'],
  },
  'arrays and nested objects': {
    type: 'object',
    properties: {
      tags: { type: 'array', items: { type: 'string' }, minItems: 2, uniqueItems: true },
      point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'], additionalProperties: false },
      pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], minItems: 2 },
    },
    required: ['tags', 'point', 'pair'],
  },
  '$ref, anyOf, allOf, const, nullable, default': {
    type: 'object',
    $defs: { unit: { type: 'string', enum: ['C', 'F'] } },
    properties: {
      unit: { $ref: '#/$defs/unit' },
      value: { anyOf: [{ type: 'number', minimum: 100 }, { type: 'string' }] },
      both: { allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'boolean' } }, required: ['b'] }] },
      kind: { const: 'fixed' },
      note: { type: ['string', 'null'] },
      mode: { type: 'string', default: 'fast', enum: ['fast', 'slow'] },
    },
    required: ['unit', 'value', 'both', 'kind', 'note', 'mode'],
  },
  'minProperties beyond required': { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, minProperties: 1 },
};

describe('buildValidArguments', () => {
  it.each(Object.entries(SCHEMAS))('%s: the arguments validate', (_name, schema) => {
    const built = buildValidArguments(schema);
    expect(built.ok).toBe(true);
    const validate = ajv.compile(schema);
    expect(validate(built.ok ? built.value : undefined), JSON.stringify(validate.errors)).toBe(true);
  });

  it('takes only the required properties, with plain values', () => {
    expect(buildValidArguments(SCHEMAS['required strings and numbers'])).toEqual({ ok: true, value: { city: 'example', days: 1, units: 'metric' } });
    expect(buildValidArguments(SCHEMAS['optional properties left out'])).toEqual({ ok: true, value: {} });
    expect(buildValidArguments(undefined)).toEqual({ ok: true, value: {} });
  });

  it('says why when it cannot satisfy a schema', () => {
    expect(buildValidArguments({ type: 'object', properties: { hex: { type: 'string', pattern: '^#[0-9a-f]{6}$' } }, required: ['hex'] })).toEqual({
      ok: false,
      reason: 'hex: no string tried matches pattern "^#[0-9a-f]{6}$"',
    });
    expect(buildValidArguments({ type: 'object', properties: { x: { $ref: 'https://example.com/s.json' } }, required: ['x'] })).toMatchObject({ ok: false });
    expect(buildValidArguments({ type: 'object', properties: { n: { type: 'integer', minimum: 2, maximum: 1 } }, required: ['n'] })).toMatchObject({ ok: false });
  });
});

describe('buildInvalidArguments', () => {
  it.each(Object.entries(SCHEMAS).filter(([name]) => name !== 'no properties'))('%s: the arguments do not validate', (_name, schema) => {
    const invalid = buildInvalidArguments(schema);
    expect(invalid).not.toBeNull();
    expect(ajv.compile(schema)(invalid?.value)).toBe(false);
  });

  it('leaves out the required properties (marked: the safe probes send only these), else gives one property the wrong type, and says which', () => {
    expect(buildInvalidArguments(SCHEMAS['required strings and numbers'])).toEqual({ value: {}, what: 'without required city, days, units', missingRequired: true });
    expect(buildInvalidArguments(SCHEMAS['optional properties left out'])).toEqual({ value: { verbose: 'not-a-boolean' }, what: 'verbose: a string, not a boolean' });
  });

  it('is null when every object is valid', () => {
    expect(buildInvalidArguments({ type: 'object' })).toBeNull();
    expect(buildInvalidArguments({ type: 'object', properties: { any: {} } })).toBeNull();
  });
});
