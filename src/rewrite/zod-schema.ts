// JSON Schema (a tool's literal `inputSchema`) -> source text of a zod raw shape for
// `server.registerTool(name, { description, inputSchema: <shape> }, handler)` (SDK v1 McpServer).
//
//   { type: 'object', properties: { text: { type: 'string', description: 'The text' },
//                                   max: { type: 'integer', minimum: 0 } }, required: ['text'] }
//   -> { text: z.string().describe('The text'), max: z.number().int().min(0).optional() }
//
// Pure: value in, text out; no AST, no zod at runtime. Either the whole schema converts, or the
// answer is `lossy` with the first keyword (as a dotted path) that stops it — never a partial shape.
//
// WHAT "LOSSLESS" MEANS. McpServer (1.32, zod 4) publishes `tools/list` as
// `z.toJSONSchema(z.object(shape), { target: 'draft-7', io: 'input' })`. The result counts as
// semantically identical to the original when they are deep-equal after these normalisations
// (1-3 leave the set of accepted instances unchanged, 4 is the one accepted tightening;
// test/zod-schema.test.ts checks every supported case against a real McpServer + Client):
//   1. key order is ignored, and `required` is compared as a set;
//   2. the published root gains `"$schema": "http://json-schema.org/draft-07/schema#"`. For the
//      keywords accepted here, draft-07 and 2020-12 (MCP's default dialect) mean the same thing;
//      `items` is only accepted as a single schema, never the tuple form where they differ;
//   3. `properties: {}` and a missing `properties` are the same; `required: []` and a missing
//      `required` are the same (the SDK always publishes `properties` at the root);
//   4. `type: 'integer'` without `minimum` / `maximum` is published with `minimum:
//      -9007199254740991` / `maximum: 9007199254740991` (zod's `.int()` means a safe integer; zod 4
//      has no unbounded integer). Only integers beyond 2^53-1, which JSON.parse cannot hold
//      exactly, become invalid. Explicit integer bounds beyond that range would be clamped: `lossy`.
// The SDK does NOT add `additionalProperties: false` (with `io: 'input'` zod leaves it out), so
// extra arguments are still accepted.
//
// WHAT A HANDLER SEES (the JSON Schema is unchanged, but the arguments are not always the same):
//   - unknown keys are accepted and then STRIPPED, at the root (the SDK wraps the shape in
//     `z.object`) and in nested objects (`z.object` here). That is why a nested object without
//     declared `properties` (a free-form bag) is `lossy`: its contents would never reach the handler.
//     Wrapping the shape in `z.looseObject(...)` keeps the extras; the root then publishes
//     `additionalProperties: {}` (still semantically identical);
//   - `default` becomes `.default(v)`: zod fills in the missing property, so the handler gets `v`
//     where it got `undefined` before (the same result when the old code fell back to the same
//     value). `.default()` also makes a property optional in the published schema, so a
//     `default` on a *required* property is `lossy`;
//   - arguments that break the schema are now rejected by the SDK before the handler runs.
//
// Supported: root `type: 'object'` + `properties` + `required`; per node `type` (string, number,
// integer, boolean, array, object), `description`, `default` (must fit the type, so the emitted
// TypeScript compiles), string `enum` (type 'string'), `minLength`/`maxLength`/`pattern`,
// `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum` (numbers), `items`/`minItems`/`maxItems`,
// nested `properties`/`required`. Everything else is `lossy`, among them: `format` (zod adds its own
// `pattern`), `$ref`, `oneOf`/`anyOf`/`allOf`, `const`, `nullable`, `title`, `examples`, explicit
// `additionalProperties`, `type` arrays, non-string or duplicate enums, both `minimum` and
// `exclusiveMinimum` (zod keeps one), a `pattern` whose `RegExp.source` differs from it
// (e.g. an unescaped `/`) or that uses `u`-flag syntax (`\p{…}`, `\u{…}`: zod compiles without `u`),
// an array without `items` (zod publishes `items: {}`).

import { assertNever } from '../model/assert-never.js';

export type ZodShapeResult =
  | {
      kind: 'ok';
      /** source text of a zod raw shape object, e.g. `{ text: z.string().describe('The text'), max: z.number().int().optional() }` */
      text: string;
    }
  | {
      kind: 'lossy';
      /** the JSON Schema keyword (and path) that prevents a lossless conversion, e.g. 'properties.when.format' */
      keyword: string;
    };

export interface ZodShapeOptions {
  quote: "'" | '"';
  /** the local name zod is imported as; default 'z' */
  zodName?: string;
}

// ---- tables -------------------------------------------------------------------------------------

const NODE_KEYWORDS = {
  string: ['type', 'description', 'default', 'enum', 'minLength', 'maxLength', 'pattern'],
  number: ['type', 'description', 'default', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
  integer: ['type', 'description', 'default', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
  boolean: ['type', 'description', 'default'],
  array: ['type', 'description', 'default', 'items', 'minItems', 'maxItems'],
  object: ['type', 'description', 'default', 'properties', 'required'],
} as const satisfies Record<string, readonly string[]>;

/** The root is the raw shape itself: nothing can carry a description or default there. */
const ROOT_KEYWORDS = ['type', 'properties', 'required'] as const;

type NodeType = keyof typeof NODE_KEYWORDS;

/** Numeric keywords -> the zod check that publishes exactly that keyword. */
const CHECKS = {
  minLength: { method: 'min', value: 'count' },
  maxLength: { method: 'max', value: 'count' },
  minItems: { method: 'min', value: 'count' },
  maxItems: { method: 'max', value: 'count' },
  minimum: { method: 'min', value: 'bound' },
  maximum: { method: 'max', value: 'bound' },
  exclusiveMinimum: { method: 'gt', value: 'bound' },
  exclusiveMaximum: { method: 'lt', value: 'bound' },
} as const;

type CheckKeyword = keyof typeof CHECKS;

/** zod keeps only one of each pair (it drops `minimum` next to `exclusiveMinimum`). */
const EXCLUSIVE_PAIRS = [
  ['minimum', 'exclusiveMinimum'],
  ['maximum', 'exclusiveMaximum'],
] as const;

// ---- model --------------------------------------------------------------------------------------

type JsonValue = string | number | boolean | JsonValue[] | { [key: string]: JsonValue };

type Base =
  | { kind: 'string' }
  | { kind: 'number'; integer: boolean }
  | { kind: 'boolean' }
  | { kind: 'enum'; values: string[] }
  | { kind: 'array'; items: ZodNode }
  | { kind: 'object'; shape: ShapeEntry[] };

type Check =
  | { method: (typeof CHECKS)[CheckKeyword]['method']; value: number }
  | { method: 'regex'; pattern: string };

interface ZodNode {
  base: Base;
  checks: Check[];
  description: string | null;
  default: { value: JsonValue } | null;
}

interface ShapeEntry {
  key: string;
  node: ZodNode;
  /** not in `required` and without a default */
  optional: boolean;
}

interface Lossy {
  lossy: string;
}

const lossy = (path: readonly string[], keyword: string): Lossy => ({ lossy: [...path, keyword].join('.') });

// ---- API ----------------------------------------------------------------------------------------

export function buildZodShape(schema: unknown, options: ZodShapeOptions): ZodShapeResult {
  const shape = resolveRoot(schema);
  if ('lossy' in shape) return { kind: 'lossy', keyword: shape.lossy };
  const printer = { quote: options.quote, z: options.zodName ?? 'z' };
  return { kind: 'ok', text: printShape(shape, printer) };
}

// ---- JSON Schema -> model -----------------------------------------------------------------------

function resolveRoot(schema: unknown): ShapeEntry[] | Lossy {
  if (!isPlainObject(schema) || schema.type !== 'object') return lossy([], 'type');
  const unknown = Object.keys(schema).find((key) => !(ROOT_KEYWORDS as readonly string[]).includes(key));
  if (unknown !== undefined) return lossy([], unknown);
  return resolveShape(schema, []);
}

function resolveShape(schema: Record<string, unknown>, path: readonly string[]): ShapeEntry[] | Lossy {
  const properties = schema.properties ?? {};
  if (!isPlainObject(properties)) return lossy(path, 'properties');
  const names = Object.keys(properties);

  const required = schema.required ?? [];
  if (
    !Array.isArray(required) ||
    !required.every((name): name is string => typeof name === 'string' && names.includes(name)) ||
    new Set(required).size !== required.length
  ) {
    return lossy(path, 'required');
  }

  const shape: ShapeEntry[] = [];
  for (const key of names) {
    const propertyPath = [...path, 'properties', key];
    // `{ __proto__: ... }` in a literal sets the prototype instead of defining a key.
    if (key === '__proto__') return lossy(path, 'properties.__proto__');
    const node = resolveNode(properties[key], propertyPath);
    if ('lossy' in node) return node;
    const isRequired = required.includes(key);
    // `.default()` makes the property optional in the published schema.
    if (isRequired && node.default) return lossy(propertyPath, 'default');
    shape.push({ key, node, optional: !isRequired && !node.default });
  }
  return shape;
}

function resolveNode(schema: unknown, path: readonly string[]): ZodNode | Lossy {
  if (!isPlainObject(schema)) return lossy(path.slice(0, -1), path[path.length - 1] ?? 'type');
  const type = schema.type;
  if (!isNodeType(type)) return lossy(path, 'type');
  const allowed: readonly string[] = NODE_KEYWORDS[type];
  const unknown = Object.keys(schema).find((key) => !allowed.includes(key));
  if (unknown !== undefined) return lossy(path, unknown);

  const base = resolveBase(type, schema, path);
  if ('lossy' in base) return base;
  const checks = resolveChecks(type, schema, path);
  if ('lossy' in checks) return checks;

  const description = schema.description ?? null;
  if (description !== null && typeof description !== 'string') return lossy(path, 'description');

  const node: ZodNode = { base, checks, description, default: null };
  if (Object.hasOwn(schema, 'default')) {
    if (!isDefaultFor(node.base, schema.default)) return lossy(path, 'default');
    node.default = { value: schema.default };
  }
  return node;
}

function resolveBase(type: NodeType, schema: Record<string, unknown>, path: readonly string[]): Base | Lossy {
  switch (type) {
    case 'string': {
      if (!Object.hasOwn(schema, 'enum')) return { kind: 'string' };
      const values = schema.enum;
      if (
        !Array.isArray(values) ||
        values.length === 0 ||
        !values.every((value): value is string => typeof value === 'string') ||
        new Set(values).size !== values.length
      ) {
        return lossy(path, 'enum');
      }
      // z.enum() has no length or pattern checks.
      const extra = ['minLength', 'maxLength', 'pattern'].find((key) => Object.hasOwn(schema, key));
      if (extra !== undefined) return lossy(path, extra);
      return { kind: 'enum', values };
    }
    case 'number':
    case 'integer':
      return { kind: 'number', integer: type === 'integer' };
    case 'boolean':
      return { kind: 'boolean' };
    case 'array': {
      // Without `items` zod would publish `items: {}`.
      if (!Object.hasOwn(schema, 'items')) return lossy(path, 'items');
      const items = resolveNode(schema.items, [...path, 'items']);
      if ('lossy' in items) return items;
      return { kind: 'array', items };
    }
    case 'object': {
      // A free-form object (no declared properties) would reach the handler as `{}`: z.object strips.
      if (!isPlainObject(schema.properties) || Object.keys(schema.properties).length === 0) {
        return lossy(path, 'properties');
      }
      const shape = resolveShape(schema, path);
      if ('lossy' in shape) return shape;
      return { kind: 'object', shape };
    }
    default:
      return assertNever(type);
  }
}

function resolveChecks(type: NodeType, schema: Record<string, unknown>, path: readonly string[]): Check[] | Lossy {
  for (const [inclusive, exclusive] of EXCLUSIVE_PAIRS) {
    if (Object.hasOwn(schema, inclusive) && Object.hasOwn(schema, exclusive)) return lossy(path, exclusive);
  }
  const checks: Check[] = [];
  for (const keyword of Object.keys(schema)) {
    if (keyword === 'pattern') {
      const pattern = getRegexSource(schema.pattern);
      if (pattern === null) return lossy(path, keyword);
      checks.push({ method: 'regex', pattern });
      continue;
    }
    if (!Object.hasOwn(CHECKS, keyword)) continue;
    const check = CHECKS[keyword as CheckKeyword];
    const value = schema[keyword];
    if (typeof value !== 'number' || !Number.isFinite(value)) return lossy(path, keyword);
    if (check.value === 'count' && !(Number.isSafeInteger(value) && value >= 0)) return lossy(path, keyword);
    // `.int()` clamps bounds to the safe-integer range.
    if (type === 'integer' && Math.abs(value) > Number.MAX_SAFE_INTEGER) return lossy(path, keyword);
    checks.push({ method: check.method, value });
  }
  return checks;
}

/**
 * The pattern, when `/pattern/` publishes exactly it again (zod publishes `regex.source`) and
 * means the same without the `u` flag (zod's) as with it (ajv's): `\p{L}` and `\u{41}` do not.
 */
function getRegexSource(pattern: unknown): string | null {
  if (typeof pattern !== 'string' || /\\[pP]\{|\\u\{/.test(pattern)) return null;
  try {
    // Also rules out unescaped `/` and line breaks, so `/${pattern}/` is a valid literal.
    return new RegExp(pattern).source === pattern ? pattern : null;
  } catch {
    return null;
  }
}

/** Whether `value` fits the zod type, so that `.default(value)` type-checks in the migrated file. */
function isDefaultFor(base: Base, value: unknown): value is JsonValue {
  switch (base.kind) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'enum':
      return typeof value === 'string' && base.values.includes(value);
    case 'array':
      return Array.isArray(value) && value.every((item) => isDefaultFor(base.items.base, item));
    case 'object': {
      if (!isPlainObject(value)) return false;
      const byKey = new Map(base.shape.map((entry) => [entry.key, entry]));
      return (
        Object.keys(value).every((key) => byKey.has(key) && isDefaultFor(byKey.get(key)!.node.base, value[key])) &&
        // `.default()` is typed by the output type, where a key with its own default is required.
        base.shape.every((entry) => entry.optional || Object.hasOwn(value, entry.key))
      );
    }
    default:
      return assertNever(base);
  }
}

// ---- model -> source text -----------------------------------------------------------------------

interface Printer {
  quote: "'" | '"';
  z: string;
}

// { key: <node>, 'not-an-identifier': <node>.optional() }
function printShape(shape: readonly ShapeEntry[], printer: Printer): string {
  if (shape.length === 0) return '{}';
  const entries = shape.map(
    (entry) => `${printKey(entry.key, printer)}: ${printNode(entry.node, printer)}${entry.optional ? '.optional()' : ''}`,
  );
  return `{ ${entries.join(', ')} }`;
}

// z.number().int().min(0).max(255).describe('...').default(0)
function printNode(node: ZodNode, printer: Printer): string {
  let text = printBase(node.base, printer);
  for (const check of node.checks) {
    text += check.method === 'regex' ? `.regex(/${check.pattern}/)` : `.${check.method}(${printNumber(check.value)})`;
  }
  if (node.description !== null) text += `.describe(${printString(node.description, printer)})`;
  if (node.default) text += `.default(${printValue(node.default.value, printer)})`;
  return text;
}

function printBase(base: Base, printer: Printer): string {
  const { z } = printer;
  switch (base.kind) {
    case 'string':
      return `${z}.string()`;
    case 'number':
      return base.integer ? `${z}.number().int()` : `${z}.number()`;
    case 'boolean':
      return `${z}.boolean()`;
    case 'enum':
      return `${z}.enum([${base.values.map((value) => printString(value, printer)).join(', ')}])`;
    case 'array':
      return `${z}.array(${printNode(base.items, printer)})`;
    case 'object':
      return `${z}.object(${printShape(base.shape, printer)})`;
    default:
      return assertNever(base);
  }
}

function printValue(value: JsonValue, printer: Printer): string {
  if (typeof value === 'string') return printString(value, printer);
  if (typeof value === 'number') return printNumber(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map((item) => printValue(item, printer)).join(', ')}]`;
  const entries = Object.entries(value).map(([key, item]) => `${printKey(key, printer)}: ${printValue(item, printer)}`);
  return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
}

function printNumber(value: number): string {
  return Object.is(value, -0) ? '0' : String(value);
}

function printKey(key: string, printer: Printer): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : printString(key, printer);
}

/** A string literal in the requested quote style (JSON escapes, with the quote characters swapped as needed). */
function printString(value: string, printer: Printer): string {
  const json = JSON.stringify(value);
  if (printer.quote === '"') return json;
  const inner = json.slice(1, -1).replace(/\\.|'/g, (match) => (match === '\\"' ? '"' : match === "'" ? "\\'" : match));
  return `'${inner}'`;
}

function isNodeType(value: unknown): value is NodeType {
  return typeof value === 'string' && Object.hasOwn(NODE_KEYWORDS, value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
