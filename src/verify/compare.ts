// The contract diff of `verify --compare` and of `--verify`: both servers are explored by the probe
// engine (./probe.ts) — listings, every tool called with made-up arguments (valid and invalid), every
// resource read, every prompt got, the custom methods — and what they answered is compared request by
// request. What only a migration changes is sorted out of the differences:
// - fixes: a rule the original breaks and the migrated server keeps (ids, `jsonrpc`, replies to
//   notifications, -32700, ping, unknown methods, stdout noise), a request the original left
//   unanswered that is now answered, a non-standard error made standard with the same message;
// - normalised: the protocol version (negotiated, so it legitimately changes), key order anywhere,
//   list order of listings, `isError: false` against no `isError`.
// Returns data; it prints nothing (src/cli/compare.ts and src/cli/verify-step.ts say it).
import { realpathSync } from 'node:fs';
import { assertNever } from '../model/assert-never.js';
import type { WireChange } from '../model/wire-changes.js';
import { isJsonObject, type JsonObject } from './connection.js';
import { verifyServer, type Exchange, type Outcome, type VerifyOptions, type VerifyResult } from './probe.js';
import { VERIFY_RULE_IDS, type VerifyRuleId } from './rules.js';

export type Checked = Extract<VerifyResult, { kind: 'checked' }>;
export type Side = 'original' | 'migrated';

/** What the two servers answer differently, one aspect of one request. */
export interface Difference {
  /** The request (`tools/call convert`), listing item (`tools/list: tool convert`), `initialize: serverInfo`, or a rule id. */
  what: string;
  aspect: 'listing' | 'result' | 'error code' | 'error message' | 'error data' | 'answer' | 'initialize' | 'rule';
  original: string;
  migrated: string;
}

/** Something the original got wrong that the migrated server gets right. */
export interface Fix {
  /** A rule id, or the request. */
  what: string;
  original: string;
  migrated: string;
}

export interface ContractDiff {
  differences: Difference[];
  fixes: Fix[];
  /** Rules both servers break (the migration did not fix them, nor cause them). */
  unfixed: Array<{ rule: VerifyRuleId; original: string; migrated: string }>;
  /** What was normalised, e.g. the protocol version. */
  notes: string[];
  /**
   * Differences the rewrite lists as its wire changes (`--style mcp-server`: McpServer's answers,
   * src/model/wire-changes.ts), each matched to one listed change: expected, so not differences.
   */
  expected: Array<Difference & { change: WireChange }>;
  /** How many requests were compared. */
  compared: number;
}

export type CompareResult =
  | ({ kind: 'compared'; equal: boolean; original: Checked; migrated: Checked } & ContractDiff)
  | { kind: 'not-started'; side: Side; reason: string; stderrTail: string }
  | { kind: 'aborted' };

export interface CompareOptions {
  original: VerifyOptions;
  migrated: VerifyOptions;
  /**
   * Run both servers at once (the default). Off when they share state a tool could change (the same
   * files, the same database): then the original runs first.
   */
  parallel?: boolean;
  /** The wire changes the rewrite lists (its diff header): differences that match one exactly are expected. */
  expected?: readonly WireChange[];
}

export async function compareServers(options: CompareOptions): Promise<CompareResult> {
  const [original, migrated] =
    options.parallel === false
      ? [await verifyServer(options.original), await verifyServer(options.migrated)]
      : await Promise.all([verifyServer(options.original), verifyServer(options.migrated)]);
  if (original.kind === 'aborted' || migrated.kind === 'aborted') return { kind: 'aborted' };
  if (original.kind === 'not-started') return { kind: 'not-started', side: 'original', reason: original.reason, stderrTail: original.stderrTail };
  if (migrated.kind === 'not-started') return { kind: 'not-started', side: 'migrated', reason: migrated.reason, stderrTail: migrated.stderrTail };
  // each side runs in its own copy of the package: a path of the copy it answers (a tool that reports
  // where it runs) is the same path for both
  const [a, b] = [withPackagePath(original, options.original.cwd), withPackagePath(migrated, options.migrated.cwd)];
  const diff = compareContracts(a, b, options.expected);
  return { kind: 'compared', equal: diff.differences.length === 0, original: a, migrated: b, ...diff };
}

/** The placeholder a side's own package folder becomes in what it answered. */
export const PACKAGE_PATH = '<package>';

/** `checked` with every occurrence of the folder it ran in (as given and as resolved) written as `<package>`. */
export function withPackagePath<T>(checked: T, cwd: string | undefined): T {
  if (cwd === undefined || cwd.length < 2) return checked;
  let real = cwd;
  try {
    real = realpathSync(cwd);
  } catch {
    // gone already: the folder as given
  }
  const folders = [...new Set([cwd, real])].sort((x, y) => y.length - x.length);
  const map = (value: unknown): unknown => {
    if (typeof value === 'string') return folders.reduce((text, folder) => text.split(folder).join(PACKAGE_PATH), value);
    if (Array.isArray(value)) return value.map(map);
    if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, map(v)]));
    }
    return value;
  };
  return map(checked) as T;
}

const METHOD_NOT_FOUND = -32601;

/** The listings whose items are compared one by one, and what names an item. */
const LISTINGS: Readonly<Record<string, { field: string; id: string; noun: string }>> = {
  'tools/list': { field: 'tools', id: 'name', noun: 'tool' },
  'resources/list': { field: 'resources', id: 'uri', noun: 'resource' },
  'prompts/list': { field: 'prompts', id: 'name', noun: 'prompt' },
};

export function compareContracts(original: Checked, migrated: Checked, expected: readonly WireChange[] = []): ContractDiff {
  const diff: ContractDiff = { differences: [], fixes: [], unfixed: [], notes: [], expected: [], compared: 0 };
  compareInitialize(original, migrated, diff);
  for (const [side, checked] of [['original', original], ['migrated', migrated]] as const) {
    if (checked.contract.stalled !== undefined) diff.notes.push(`the ${side}: ${checked.contract.stalled}`);
  }

  const theirs = new Map(migrated.contract.exchanges.map((e) => [e.key, e]));
  const ours = new Set(original.contract.exchanges.map((e) => e.key));
  for (const exchange of original.contract.exchanges) {
    const other = theirs.get(exchange.key);
    if (other === undefined) {
      // A call of a tool (resource, prompt) only one side lists is the listing's difference.
      if (!isItemRequest(exchange)) diff.differences.push({ what: exchange.key, aspect: 'answer', original: describeOutcome(exchange.outcome), migrated: 'not asked' });
      continue;
    }
    diff.compared++;
    const listing = LISTINGS[exchange.key];
    if (listing !== undefined && exchange.outcome.kind === 'result' && other.outcome.kind === 'result') compareListing(exchange.key, listing, exchange.outcome.value, other.outcome.value, diff);
    else compareOutcomes(exchange, other, diff);
  }
  for (const exchange of migrated.contract.exchanges) {
    if (ours.has(exchange.key) || isItemRequest(exchange)) continue;
    diff.differences.push({ what: exchange.key, aspect: 'answer', original: 'not asked', migrated: describeOutcome(exchange.outcome) });
  }

  const rules = new Map(migrated.results.map((r) => [r.rule, r]));
  for (const rule of VERIFY_RULE_IDS) {
    const before = original.results.find((r) => r.rule === rule);
    const after = rules.get(rule);
    if (before === undefined || after === undefined) continue;
    if (!before.ok && after.ok) diff.fixes.push({ what: rule, original: before.detail, migrated: after.detail });
    else if (before.ok && !after.ok) diff.differences.push({ what: rule, aspect: 'rule', original: `passes: ${before.detail}`, migrated: `fails: ${after.detail}` });
    else if (!before.ok && !after.ok) diff.unfixed.push({ rule, original: before.detail, migrated: after.detail });
  }

  // (last: a listed change may explain a rule that no longer holds, BAD_JSON_IGNORED)
  sortOutExpected(diff, expected, original, migrated);
  return diff;
}

/**
 * Moves each difference that one of the listed wire changes explains, and only such, to `expected`.
 * Each change is matched by what McpServer answers (read from SDK 1.32 server/mcp.js and v2's mcp.mjs):
 *   TOOLS_LIST_CHANGED     capabilities.tools is the original's plus `listChanged: true`;
 *   SCHEMAS_REPUBLISHED    a tool's inputSchema equal to the original's once zod's additions are taken
 *                          off (`$schema` at the root; an empty `properties` or `required`, the order
 *                          of `required`);
 *                          `execution: {"taskSupport":"forbidden"}` on a tool that had none;
 *   TOOL_ERRORS_AS_RESULTS a tool call the original answered with an error, now an isError result whose
 *                          text holds the original message;
 *   ARGUMENTS_VALIDATED    a call with invalid arguments now answered with McpServer's isError result
 *                          "Input validation error: ...";
 *   RESOURCE_NOT_FOUND_CODE a resources/read the original answered -32002, now -32602 (v2);
 *   BAD_JSON_IGNORED       the original answered a line that is not JSON with -32700; v2's transport skips it;
 *   V1_ERROR_PREFIX        an error message the original (SDK v1) sent as "MCP error <code>: <m>", now <m>, same code.
 */
function sortOutExpected(diff: ContractDiff, expected: readonly WireChange[], original: Checked, migrated: Checked): void {
  if (expected.length === 0) return;
  const exchanges = (side: Checked) => new Map(side.contract.exchanges.map((e) => [e.key, e]));
  const [before, after] = [exchanges(original), exchanges(migrated)];
  const toolItem = (side: Checked, name: string): JsonObject | undefined => {
    const listed = side.contract.exchanges.find((e) => e.key === 'tools/list');
    const tools = listed?.outcome.kind === 'result' && isJsonObject(listed.outcome.value) && Array.isArray(listed.outcome.value.tools) ? listed.outcome.value.tools : [];
    return tools.filter(isJsonObject).find((tool) => tool.name === name);
  };
  const explain = (d: Difference): WireChange | null => {
    if (d.aspect === 'rule' && d.what === 'parse-error-unanswered' && expected.includes('BAD_JSON_IGNORED')) return 'BAD_JSON_IGNORED';
    if (d.aspect === 'error code' && expected.includes('RESOURCE_NOT_FOUND_CODE')) {
      const [a, b] = [before.get(d.what), after.get(d.what)];
      if (a?.method === 'resources/read' && a.outcome.kind === 'error' && b?.outcome.kind === 'error' && readError(a.outcome.error).code === -32002 && readError(b.outcome.error).code === -32602) return 'RESOURCE_NOT_FOUND_CODE';
    }
    if (d.aspect === 'error message' && expected.includes('V1_ERROR_PREFIX')) {
      const [a, b] = [before.get(d.what), after.get(d.what)];
      if (a?.outcome.kind === 'error' && b?.outcome.kind === 'error') {
        const [x, y] = [readError(a.outcome.error), readError(b.outcome.error)];
        if (x.code === y.code && y.message !== null && x.message === `MCP error ${x.code}: ${y.message}`) return 'V1_ERROR_PREFIX';
      }
    }
    if (d.aspect === 'initialize' && expected.includes('INITIALIZE_OWN_FIELDS')) {
      const key = d.what.slice('initialize: '.length);
      if (!MCP_INITIALIZE_FIELDS.has(key) && migrated.contract.initialize?.[key] === undefined) return 'INITIALIZE_OWN_FIELDS';
    }
    if (d.what === 'initialize: capabilities.tools' && expected.includes('TOOLS_LIST_CHANGED')) {
      const [a, b] = [original.contract.initialize?.capabilities, migrated.contract.initialize?.capabilities];
      const [x, y] = [isJsonObject(a) ? a.tools : undefined, isJsonObject(b) ? b.tools : undefined];
      if (isJsonObject(x) && isJsonObject(y) && isSame({ ...x, listChanged: true }, y)) return 'TOOLS_LIST_CHANGED';
    }
    const field = /^tools\/list: tool (.*): (inputSchema|execution)$/.exec(d.what);
    if (field && expected.includes('SCHEMAS_REPUBLISHED')) {
      const [a, b] = [toolItem(original, field[1]!), toolItem(migrated, field[1]!)];
      if (field[2] === 'execution' && a?.execution === undefined && isSame(b?.execution, { taskSupport: 'forbidden' })) return 'SCHEMAS_REPUBLISHED';
      if (field[2] === 'inputSchema' && a !== undefined && b !== undefined && isSame(normalizeSchema(a.inputSchema, true), normalizeSchema(b.inputSchema, true))) return 'SCHEMAS_REPUBLISHED';
    }
    const [a, b] = [before.get(d.what), after.get(d.what)];
    if (a?.method !== 'tools/call' || b === undefined || b.outcome.kind !== 'result' || !isJsonObject(b.outcome.value) || b.outcome.value.isError !== true) return null;
    const text = getResultText(b.outcome.value);
    if (expected.includes('ARGUMENTS_VALIDATED') && / \(invalid: /.test(d.what) && text.includes('Input validation error: ')) return 'ARGUMENTS_VALIDATED';
    if (expected.includes('TOOL_ERRORS_AS_RESULTS') && a.outcome.kind === 'error') {
      const message = readError(a.outcome.error).message;
      if (message !== null && message !== '' && text.includes(message)) return 'TOOL_ERRORS_AS_RESULTS';
    }
    return null;
  };
  const kept: Difference[] = [];
  for (const d of diff.differences) {
    const change = explain(d);
    if (change === null) kept.push(d);
    else diff.expected.push({ ...d, change });
  }
  diff.differences = kept;
}

/** A JSON Schema without what zod's printer adds to an equal one (see src/rewrite/zod-schema.ts). */
function normalizeSchema(value: unknown, root: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => normalizeSchema(v, false));
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    if (root && key === '$schema') continue;
    if (key === 'required' && Array.isArray(v)) {
      if (v.length > 0) out[key] = [...v].map(String).sort();
      continue;
    }
    if (key === 'properties' && isJsonObject(v)) {
      if (Object.keys(v).length > 0) out[key] = Object.fromEntries(Object.entries(v).map(([k, p]) => [k, normalizeSchema(p, false)]));
      continue;
    }
    out[key] = normalizeSchema(v, false);
  }
  return out;
}

function getResultText(value: JsonObject): string {
  return (Array.isArray(value.content) ? value.content : [])
    .filter(isJsonObject)
    .map((c) => (typeof c.text === 'string' ? c.text : ''))
    .join('\n');
}

/** A request about one listed item (a tool call, a resource read, a prompt get). */
function isItemRequest(exchange: Exchange): boolean {
  return exchange.method === 'tools/call' || exchange.method === 'resources/read' || exchange.method === 'prompts/get';
}

/** The fields MCP defines for the initialize result (any revision). */
const MCP_INITIALIZE_FIELDS: ReadonlySet<string> = new Set(['protocolVersion', 'capabilities', 'serverInfo', 'instructions', '_meta']);

/** Capability -> the listing that shows whether a server serves it. */
const CAPABILITY_LISTINGS: Readonly<Record<string, string>> = { tools: 'tools/list', resources: 'resources/list', prompts: 'prompts/list' };

function compareInitialize(original: Checked, migrated: Checked, diff: ContractDiff): void {
  const before = original.contract.initialize ?? {};
  const after = migrated.contract.initialize ?? {};
  if (original.protocolVersion !== migrated.protocolVersion) {
    diff.notes.push(`protocolVersion ${JSON.stringify(original.protocolVersion)} -> ${JSON.stringify(migrated.protocolVersion)}: negotiated, not compared`);
  }
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  keys.delete('protocolVersion');
  for (const key of [...keys].sort()) {
    if (isSame(before[key], after[key])) continue;
    // An initialize result without serverInfo/capabilities is a rule the migration fixes (initialize-failed).
    if (before[key] === undefined && (key === 'serverInfo' || key === 'capabilities')) continue;
    if (key === 'capabilities' && isJsonObject(before[key]) && isJsonObject(after[key])) {
      compareCapabilities(before[key], after[key], original, diff);
      continue;
    }
    diff.differences.push({ what: `initialize: ${key}`, aspect: 'initialize', original: describeValue(before[key]), migrated: describeValue(after[key]) });
  }
}

/**
 * Capability by capability. One the migrated server declares and the original did not, while the
 * original served its listing all the same, is a fix: clients only ask for what is declared.
 */
function compareCapabilities(before: JsonObject, after: JsonObject, original: Checked, diff: ContractDiff): void {
  for (const name of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    if (isSame(before[name], after[name])) continue;
    const listing = CAPABILITY_LISTINGS[name];
    const served = listing !== undefined && original.contract.exchanges.some((e) => e.key === listing && e.outcome.kind === 'result');
    if (before[name] === undefined && served) {
      diff.fixes.push({ what: `initialize: capabilities.${name}`, original: `not declared, though ${listing} was served`, migrated: `declared ${describeValue(after[name])}` });
      continue;
    }
    diff.differences.push({ what: `initialize: capabilities.${name}`, aspect: 'initialize', original: describeValue(before[name]), migrated: describeValue(after[name]) });
  }
}

function compareListing(key: string, listing: { field: string; id: string; noun: string }, before: unknown, after: unknown, diff: ContractDiff): void {
  const items = (value: unknown): Map<string, JsonObject> => {
    const list = isJsonObject(value) && Array.isArray(value[listing.field]) ? (value[listing.field] as unknown[]).filter(isJsonObject) : [];
    return new Map(list.map((item, index) => [typeof item[listing.id] === 'string' ? (item[listing.id] as string) : `#${index}`, item]));
  };
  const ours = items(before);
  const theirs = items(after);
  for (const [id, item] of ours) {
    const other = theirs.get(id);
    if (other === undefined) {
      diff.differences.push({ what: `${key}: ${listing.noun} ${id}`, aspect: 'listing', original: 'listed', migrated: 'not listed' });
      continue;
    }
    for (const field of [...new Set([...Object.keys(item), ...Object.keys(other)])].sort()) {
      if (isSame(item[field], other[field])) continue;
      diff.differences.push({ what: `${key}: ${listing.noun} ${id}: ${field}`, aspect: 'listing', original: describeValue(item[field]), migrated: describeValue(other[field]) });
    }
  }
  for (const id of theirs.keys()) {
    if (!ours.has(id)) diff.differences.push({ what: `${key}: ${listing.noun} ${id}`, aspect: 'listing', original: 'not listed', migrated: 'listed' });
  }
  // the rest of the result (nextCursor, _meta)
  const rest = (value: unknown): JsonObject => {
    const copy = isJsonObject(value) ? { ...value } : {};
    delete copy[listing.field];
    return copy;
  };
  if (!isSame(rest(before), rest(after))) diff.differences.push({ what: key, aspect: 'result', original: describeValue(rest(before)), migrated: describeValue(rest(after)) });
}

function compareOutcomes(exchange: Exchange, other: Exchange, diff: ContractDiff): void {
  const what = exchange.key;
  const [before, after] = [exchange.outcome, other.outcome];
  if (before.kind === 'no-reply') {
    if (after.kind !== 'no-reply') diff.fixes.push({ what, original: 'no reply', migrated: `answered ${describeOutcome(after)}` });
    return;
  }
  if (after.kind === 'no-reply') {
    diff.differences.push({ what, aspect: 'answer', original: describeOutcome(before), migrated: after.detail });
    return;
  }
  if (before.kind === 'result' && after.kind === 'result') {
    if (isSame(normalizeResult(before.value), normalizeResult(after.value))) return;
    // resources/read contents without their `uri` (required by the schema) that now carry the one read
    const uri = exchange.method === 'resources/read' && isJsonObject(exchange.params) ? exchange.params.uri : undefined;
    if (typeof uri === 'string' && isSame(normalizeResult(withContentUris(before.value, uri)), normalizeResult(after.value))) {
      diff.fixes.push({ what, original: 'contents without their uri', migrated: `each content carries uri ${JSON.stringify(uri)}` });
      return;
    }
    diff.differences.push({ what, aspect: 'result', original: describeValue(before.value), migrated: describeValue(after.value) });
    return;
  }
  if (before.kind === 'error' && after.kind === 'error') {
    const [a, b] = [readError(before.error), readError(after.error)];
    if (!a.standard && b.standard && (a.message === null || a.message === b.message)) {
      diff.fixes.push({ what, original: `non-standard error ${describeValue(before.error)}`, migrated: `error ${b.code} ${JSON.stringify(b.message)}` });
      return;
    }
    // A listing neither server declares is an unknown method to both: the original's own error for it
    // becoming -32601 is the unknown-method fix, not a change of contract.
    if (exchange.undeclared === true && other.undeclared === true && b.code === METHOD_NOT_FOUND && a.code !== METHOD_NOT_FOUND) {
      diff.fixes.push({ what, original: describeOutcome(before), migrated: describeOutcome(after) });
      return;
    }
    // -32601 says "no such method" whatever its text ("Method not found", "Unknown method: x/y")
    if (a.code === METHOD_NOT_FOUND && b.code === METHOD_NOT_FOUND && a.data === b.data) {
      if (a.message !== b.message) diff.notes.push(`${what}: both -32601; the messages (${JSON.stringify(a.message)}, ${JSON.stringify(b.message)}) not compared`);
      return;
    }
    if (!isSame(a.code, b.code)) diff.differences.push({ what, aspect: 'error code', original: describeValue(a.code), migrated: describeValue(b.code) });
    if (!isSame(a.message, b.message)) diff.differences.push({ what, aspect: 'error message', original: describeValue(a.message), migrated: describeValue(b.message) });
    if (!isSame(a.data, b.data)) diff.differences.push({ what, aspect: 'error data', original: describeValue(a.data), migrated: describeValue(b.data) });
    return;
  }
  diff.differences.push({ what, aspect: 'answer', original: describeOutcome(before), migrated: describeOutcome(after) });
}

/** The parts of an error reply; `standard` when it is `{ code: <integer>, message: <string> }`. */
function readError(error: unknown): { code: unknown; message: string | null; data: unknown; standard: boolean } {
  if (!isJsonObject(error)) return { code: undefined, message: typeof error === 'string' ? error : null, data: undefined, standard: false };
  const message = typeof error.message === 'string' ? error.message : null;
  return { code: error.code, message, data: error.data, standard: Number.isInteger(error.code) && message !== null };
}

/** A resources/read result whose contents without a `uri` get `uri` (first among their keys, as the SDK rewrite puts it). */
function withContentUris(value: unknown, uri: string): unknown {
  if (!isJsonObject(value) || !Array.isArray(value.contents)) return value;
  return { ...value, contents: value.contents.map((c) => (isJsonObject(c) && !('uri' in c) ? { uri, ...c } : c)) };
}

/** `isError: false` says what no `isError` says. */
function normalizeResult(value: unknown): unknown {
  if (!isJsonObject(value) || value.isError !== false) return value;
  const copy = { ...value };
  delete copy.isError;
  return copy;
}

/** Deep equality with object key order ignored (array order counts). */
export function isSame(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'undefined';
  return JSON.stringify(value, (_key, v: unknown) => (isJsonObject(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v));
}

function clip(text: string, max = 160): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function describeValue(value: unknown): string {
  return value === undefined ? '(absent)' : clip(JSON.stringify(value));
}

export function describeOutcome(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'result':
      return `result ${describeValue(outcome.value)}`;
    case 'error': {
      const error = readError(outcome.error);
      return error.standard ? clip(`error ${String(error.code)} ${JSON.stringify(error.message)}`) : `error ${describeValue(outcome.error)}`;
    }
    case 'no-reply':
      return outcome.detail;
    default:
      return assertNever(outcome);
  }
}
