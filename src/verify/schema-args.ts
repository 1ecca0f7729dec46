// Arguments for a tool call, made up from the tool's JSON Schema `inputSchema`: the smallest object
// the schema accepts (required properties only, each with a plain value that meets its constraints),
// and one object it rejects (a required property left out, or a property of the wrong type). Pure:
// no validation library, no I/O. It deliberately does not try to satisfy every schema: a `pattern`
// none of a few candidates meets, or a `$ref` it cannot resolve, is said, not guessed.
import { isJsonObject, type JsonObject } from './connection.js';

export type Synthesised = { ok: true; value: unknown } | { ok: false; reason: string };

export interface InvalidArguments {
  value: JsonObject;
  /** What makes it invalid, for the report: "without required city", "units: a number, not a string". */
  what: string;
  /** The required arguments are left out (a tool checks that before its body runs; the safe probes send only these). */
  missingRequired?: true;
}

/** How deep `$ref`s and nested objects are followed before giving up (a recursive schema). */
const MAX_DEPTH = 8;

/** A value per `format`, for strings (the formats JSON Schema validators check). */
const FORMAT_VALUES: Readonly<Record<string, string>> = {
  'date-time': '2024-01-01T00:00:00Z',
  date: '2024-01-01',
  time: '00:00:00Z',
  duration: 'P1D',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '127.0.0.1',
  ipv6: '::1',
  uri: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  iri: 'https://example.com/',
  'iri-reference': 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
  'json-pointer': '/example',
  regex: 'example',
};

/** Strings tried, in order, against a `pattern`. */
const PATTERN_CANDIDATES = ['example', 'a', 'A', '0', '1', 'a1', 'abc', 'ABC', '123', 'example-1', 'example_1', 'x@example.com', 'https://example.com/', '2024-01-01'];

/** The wrong-type value given to a property of each type in the invalid call. */
const WRONG_TYPE_VALUES: Readonly<Record<string, { value: unknown; shown: string }>> = {
  string: { value: 12345, shown: 'a number' },
  number: { value: 'not-a-number', shown: 'a string' },
  integer: { value: 'not-an-integer', shown: 'a string' },
  boolean: { value: 'not-a-boolean', shown: 'a string' },
  array: { value: 'not-an-array', shown: 'a string' },
  object: { value: 'not-an-object', shown: 'a string' },
  null: { value: 'not-null', shown: 'a string' },
};

/** The smallest arguments object `schema` accepts; a tool with no (or an empty) schema gets `{}`. */
export function buildValidArguments(schema: unknown): Synthesised {
  if (!isJsonObject(schema)) return { ok: true, value: {} };
  const built = buildValue(schema, schema, 0);
  if (!built.ok) return built;
  return isJsonObject(built.value) ? built : { ok: false, reason: `the schema does not describe an object (it gives ${JSON.stringify(built.value)})` };
}

/**
 * Arguments `schema` rejects, or null when no object is invalid by it (no required property, no typed
 * property: any object passes). Built from the valid arguments, changing one thing.
 */
export function buildInvalidArguments(schema: unknown): InvalidArguments | null {
  if (!isJsonObject(schema)) return null;
  const root = resolveSchema(schema, schema, 0);
  if (root === null) return null;
  const valid = buildValidArguments(schema);
  const base = valid.ok && isJsonObject(valid.value) ? valid.value : {};
  const required = getRequired(root);
  if (required.length > 0) {
    const value = { ...base };
    for (const name of required) delete value[name];
    return { value, what: `without required ${required.join(', ')}`, missingRequired: true };
  }
  const properties = isJsonObject(root.properties) ? root.properties : {};
  for (const [name, property] of Object.entries(properties)) {
    const resolved = resolveSchema(property, schema, 0);
    const type = resolved === null ? undefined : getTypes(resolved)[0];
    if (resolved === null) continue;
    if (Array.isArray(resolved.enum) && resolved.enum.length > 0 && type === 'string') {
      return { value: { ...base, [name]: 'mcp-migrate-not-an-allowed-value' }, what: `${name}: a value outside its enum` };
    }
    const wrong = type === undefined ? undefined : WRONG_TYPE_VALUES[type];
    if (wrong === undefined || getTypes(resolved).length > 1) continue;
    return { value: { ...base, [name]: wrong.value }, what: `${name}: ${wrong.shown}, not ${article(type!)}` };
  }
  return null;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function getRequired(schema: JsonObject): string[] {
  return Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
}

/** The `type`s a schema allows, `null` last (a nullable string is made a string), inferred when absent. */
function getTypes(schema: JsonObject): string[] {
  const declared = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === 'string') : [];
  if (declared.length > 0) return [...declared.filter((t) => t !== 'null'), ...declared.filter((t) => t === 'null')];
  if (isJsonObject(schema.properties) || Array.isArray(schema.required)) return ['object'];
  if (schema.items !== undefined || Array.isArray(schema.prefixItems)) return ['array'];
  if (typeof schema.minLength === 'number' || typeof schema.pattern === 'string' || typeof schema.format === 'string') return ['string'];
  if (typeof schema.minimum === 'number' || typeof schema.maximum === 'number') return ['number'];
  return [];
}

/** Follows a local `$ref` (`#/$defs/x`, `#/definitions/x`); null when it cannot. */
function resolveSchema(schema: unknown, root: JsonObject, depth: number): JsonObject | null {
  if (schema === true) return {};
  if (!isJsonObject(schema)) return null;
  if (typeof schema.$ref !== 'string') return schema;
  if (depth > MAX_DEPTH || !schema.$ref.startsWith('#')) return null;
  let target: unknown = root;
  for (const part of schema.$ref.slice(1).split('/').filter((p) => p !== '')) {
    const key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
    target = isJsonObject(target) ? target[key] : undefined;
  }
  return resolveSchema(target, root, depth + 1);
}

function buildValue(input: unknown, root: JsonObject, depth: number): Synthesised {
  if (depth > MAX_DEPTH) return { ok: false, reason: 'the schema nests deeper than mcp-migrate follows' };
  const schema = resolveSchema(input, root, depth);
  if (schema === null) return { ok: false, reason: `cannot resolve ${JSON.stringify(isJsonObject(input) ? input.$ref : input)}` };
  if ('const' in schema) return { ok: true, value: schema.const };
  if (Array.isArray(schema.enum)) return schema.enum.length > 0 ? { ok: true, value: schema.enum[0] } : { ok: false, reason: 'an empty enum' };
  if ('default' in schema) return { ok: true, value: schema.default };
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return { ok: true, value: schema.examples[0] };
  if (Array.isArray(schema.allOf)) return buildValue(mergeAllOf(schema, root, depth), root, depth + 1);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (!Array.isArray(options)) continue;
    const reasons: string[] = [];
    for (const option of options) {
      const built = buildValue(isJsonObject(option) ? { ...withoutKey(schema, key), ...option } : option, root, depth + 1);
      if (built.ok) return built;
      reasons.push(built.reason);
    }
    return { ok: false, reason: reasons[0] ?? `an empty ${key}` };
  }
  const type = getTypes(schema)[0];
  switch (type) {
    case 'object':
      return buildObject(schema, root, depth);
    case 'array':
      return buildArray(schema, root, depth);
    case 'string':
      return buildString(schema);
    case 'number':
    case 'integer':
      return buildNumber(schema, type === 'integer');
    case 'boolean':
      return { ok: true, value: false };
    case 'null':
      return { ok: true, value: null };
    default:
      // No constraint at all: any value passes.
      return { ok: true, value: 'example' };
  }
}

function withoutKey(schema: JsonObject, key: string): JsonObject {
  const copy = { ...schema };
  delete copy[key];
  return copy;
}

/** `allOf` as one schema: properties and required lists joined, the other keys of the last part win. */
function mergeAllOf(schema: JsonObject, root: JsonObject, depth: number): JsonObject {
  let merged: JsonObject = withoutKey(schema, 'allOf');
  for (const part of schema.allOf as unknown[]) {
    const resolved = resolveSchema(part, root, depth + 1);
    if (resolved === null) continue;
    const properties = { ...(isJsonObject(merged.properties) ? merged.properties : {}), ...(isJsonObject(resolved.properties) ? resolved.properties : {}) };
    const required = [...new Set([...getRequired(merged), ...getRequired(resolved)])];
    merged = { ...merged, ...resolved, properties, required };
  }
  return merged;
}

function buildObject(schema: JsonObject, root: JsonObject, depth: number): Synthesised {
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const value: JsonObject = {};
  const names = getRequired(schema);
  // minProperties beyond the required ones: the first optional properties too.
  const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  for (const name of Object.keys(properties)) {
    if (names.length >= minProperties) break;
    if (!names.includes(name)) names.push(name);
  }
  for (const name of names) {
    const property = properties[name];
    const built = property === undefined ? { ok: true as const, value: 'example' } : buildValue(property, root, depth + 1);
    if (!built.ok) return { ok: false, reason: `${name}: ${built.reason}` };
    value[name] = built.value;
  }
  return { ok: true, value };
}

function buildArray(schema: JsonObject, root: JsonObject, depth: number): Synthesised {
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? (schema.items as unknown[]) : [];
  const items: unknown[] = [];
  for (let i = 0; i < minItems; i++) {
    const itemSchema = i < prefix.length ? prefix[i] : Array.isArray(schema.items) ? schema.additionalItems ?? {} : schema.items ?? {};
    const built = buildValue(itemSchema, root, depth + 1);
    if (!built.ok) return { ok: false, reason: `item ${i}: ${built.reason}` };
    // uniqueItems: numbers and strings made distinct
    items.push(schema.uniqueItems === true && i > 0 ? makeDistinct(built.value, i) : built.value);
  }
  return { ok: true, value: items };
}

function makeDistinct(value: unknown, i: number): unknown {
  if (typeof value === 'number') return value + i;
  if (typeof value === 'string') return `${value}${i}`;
  return value;
}

function buildString(schema: JsonObject): Synthesised {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  const fits = (text: string): boolean => [...text].length >= minLength && [...text].length <= maxLength;
  const format = typeof schema.format === 'string' ? FORMAT_VALUES[schema.format] : undefined;
  const candidates = [...(format === undefined ? [] : [format]), ...PATTERN_CANDIDATES];
  let pattern: RegExp | null = null;
  if (typeof schema.pattern === 'string') {
    try {
      pattern = new RegExp(schema.pattern, 'u');
    } catch {
      return { ok: false, reason: `pattern ${JSON.stringify(schema.pattern)} is not a regular expression mcp-migrate can read` };
    }
  }
  for (const candidate of candidates) {
    const sized = sizeString(candidate, minLength, maxLength);
    if (fits(sized) && (pattern === null || pattern.test(sized))) return { ok: true, value: sized };
  }
  return { ok: false, reason: `no string tried matches pattern ${JSON.stringify(schema.pattern)}` };
}

/** Pads with "x" up to minLength, cuts at maxLength. */
function sizeString(text: string, minLength: number, maxLength: number): string {
  const chars = [...text];
  while (chars.length < minLength) chars.push('x');
  return chars.slice(0, Math.max(minLength, Math.min(chars.length, maxLength))).join('');
}

function buildNumber(schema: JsonObject, integer: boolean): Synthesised {
  const num = (key: string): number | undefined => (typeof schema[key] === 'number' ? (schema[key] as number) : undefined);
  const minimum = num('minimum');
  const maximum = num('maximum');
  // draft 4 writes `exclusiveMinimum: true` next to `minimum`; later drafts give the bound itself
  const exclusiveMinimum = num('exclusiveMinimum') ?? (schema.exclusiveMinimum === true ? minimum : undefined);
  const exclusiveMaximum = num('exclusiveMaximum') ?? (schema.exclusiveMaximum === true ? maximum : undefined);
  const step = num('multipleOf');
  const unit = step ?? 1;
  const allowed = (value: number): boolean =>
    (minimum === undefined || value >= minimum) &&
    (maximum === undefined || value <= maximum) &&
    (exclusiveMinimum === undefined || value > exclusiveMinimum) &&
    (exclusiveMaximum === undefined || value < exclusiveMaximum) &&
    (!integer || Number.isInteger(value)) &&
    (step === undefined || Number.isInteger(value / step));
  // 1 first (0 tends to divide, or to be read as "missing"), then values at the bounds.
  const bounds = [minimum, maximum, exclusiveMinimum === undefined ? undefined : exclusiveMinimum + unit, exclusiveMaximum === undefined ? undefined : exclusiveMaximum - unit];
  const candidates = [1, ...bounds.filter((b): b is number => b !== undefined).flatMap((b) => [b, Math.ceil(b / unit) * unit, Math.floor(b / unit) * unit]), 0];
  const value = candidates.find(allowed);
  return value === undefined ? { ok: false, reason: 'no number tried meets its minimum, maximum and multipleOf' } : { ok: true, value };
}
