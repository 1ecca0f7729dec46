// How a server already on the official SDK is wired to stdio: which SDK generation its modules import
// (v1 `@modelcontextprotocol/sdk`, v2 `@modelcontextprotocol/server`), whether it already serves through
// v2's `serveStdio` (both protocol eras), and each `new StdioServerTransport(...)` with the
// `<server>.connect(<transport>)` that starts it (the 2025-era wiring). The transport is found however
// the module names the class: an imported or destructured name, or a member of the module object
// (`stdio_js_1.StdioServerTransport` in compiled output).
// Deliberately not: deciding whether the wiring can be upgraded (plan/) or writing it (rewrite/).
import type * as t from '@babel/types';
import { getLine, getMemberName, isReferenceIdentifier, resolveIdentifier, unwrapExpression } from './ast.js';
import type { ModuleUnit } from './program.js';

export type SdkGeneration = 'v1' | 'v2';

/** How the module names an export of an SDK module: a local name, or a member of the module object. */
export type SdkReference =
  | { kind: 'name'; local: string; declaration: t.ImportDeclaration | t.VariableDeclarator }
  | { kind: 'member'; object: string };

export interface StdioConnection {
  mod: ModuleUnit;
  /** `new StdioServerTransport(...)`. */
  transport: t.NewExpression;
  /** How the module names the transport class (and so how it can name `serveStdio`). */
  reference: SdkReference;
  /** The SDK module the class comes from (`@modelcontextprotocol/server/stdio`). */
  source: string;
  /** The declaration that holds the transport (`const transport = new StdioServerTransport()`), when one does. */
  holder: { statement: t.VariableDeclaration; declarator: t.VariableDeclarator; name: string } | null;
  /** Reads of the holder other than as the argument of `connect` (`transport.close()`). */
  otherUses: number;
  /** Callbacks the code assigns on the transport (`transport.onclose = ...`): `onclose`, `onerror`, `onmessage`. */
  callbacks: string[];
  /** What `connect` is handed: the `new` itself, the holder's name, or the member that holds it (`this.transport`). */
  passed: t.Node;
  /** `server.connect(transport)`. */
  connect: t.CallExpression;
  /** What `connect` is called on (`server`, `this.server`, `mcp.server`). */
  server: t.Expression;
}

export interface SdkWiring {
  /** The SDK generations the program's modules import. */
  generations: ReadonlySet<SdkGeneration>;
  /** The program already serves through `serveStdio` (both eras). */
  servesBothEras: boolean;
  /** Each stdio transport started by a `connect` the analysis read. */
  connections: StdioConnection[];
  /** `new StdioServerTransport(...)` whose `connect` was not found (handed on, kept in a field): line numbers. */
  unpaired: { mod: ModuleUnit; line: number }[];
  /** `@mcp-codemod-error` comments the official codemod left where it could not rewrite. */
  codemodMarkers: { mod: ModuleUnit; line: number }[];
}

const V1 = /^@modelcontextprotocol\/sdk(\/|$)/;
const V2 = /^@modelcontextprotocol\/server(\/|$)/;
const CODEMOD_MARKER = '@mcp-codemod-error';
const TRANSPORT_CLASS = 'StdioServerTransport';
const TRANSPORT_CALLBACKS = new Set(['onclose', 'onerror', 'onmessage']);

export function findSdkWiring(modules: readonly ModuleUnit[]): SdkWiring {
  const generations = new Set<SdkGeneration>();
  const connections: StdioConnection[] = [];
  const unpaired: SdkWiring['unpaired'] = [];
  const codemodMarkers: SdkWiring['codemodMarkers'] = [];
  let servesBothEras = false;
  for (const mod of modules) {
    for (const source of getSdkSources(mod)) {
      if (V1.test(source)) generations.add('v1');
      if (V2.test(source)) generations.add('v2');
    }
    for (const comment of mod.ast.comments ?? []) {
      if (comment.value.includes(CODEMOD_MARKER)) codemodMarkers.push({ mod, line: getLine(comment as unknown as t.Node) });
    }
    for (const call of mod.index.calls) {
      if (getSdkExport(mod, unwrapExpression(call.callee))?.name === 'serveStdio') servesBothEras = true;
    }
    for (const created of mod.index.news) {
      const named = getSdkExport(mod, unwrapExpression(created.callee));
      if (named?.name !== TRANSPORT_CLASS) continue;
      const connection = findConnection(mod, created, named.reference, named.source);
      if (connection !== null) connections.push(connection);
      else unpaired.push({ mod, line: getLine(created) });
    }
  }
  return { generations, servesBothEras, connections, unpaired, codemodMarkers };
}

/** The SDK modules a module imports or requires. */
function getSdkSources(mod: ModuleUnit): string[] {
  const out: string[] = [];
  for (const statement of mod.ast.program.body) {
    if (statement.type === 'ImportDeclaration' && isSdkSource(statement.source.value)) out.push(statement.source.value);
  }
  for (const call of mod.index.calls) {
    const first = call.arguments[0];
    if (isRequire(call) && first?.type === 'StringLiteral' && isSdkSource(first.value)) out.push(first.value);
  }
  return out;
}

function isSdkSource(source: string): boolean {
  return V1.test(source) || V2.test(source);
}

function isRequire(call: t.CallExpression): boolean {
  return call.callee.type === 'Identifier' && call.callee.name === 'require';
}

/**
 * The SDK export an expression names: `StdioServerTransport` imported or destructured from an SDK module,
 * or `x.StdioServerTransport` where `x` holds an SDK module (`const x = require('...')`, `import * as x`).
 */
function getSdkExport(mod: ModuleUnit, node: t.Node): { name: string; source: string; reference: SdkReference } | null {
  if (node.type === 'Identifier') {
    const binding = resolveIdentifier(mod.index, node);
    if (binding === null) return null;
    if (binding.kind === 'import') {
      if (!isSdkSource(binding.source) || binding.imported === '*' || binding.imported === 'default') return null;
      const declaration = findImportDeclaration(mod, binding.name);
      return declaration === null ? null : { name: binding.imported, source: binding.source, reference: { kind: 'name', local: binding.name, declaration } };
    }
    if ((binding.kind === 'const' || binding.kind === 'let' || binding.kind === 'var') && binding.pattern.length === 1 && typeof binding.pattern[0] === 'string') {
      const source = getRequiredSource(binding.declarator.init);
      return source === null ? null : { name: binding.pattern[0], source, reference: { kind: 'name', local: binding.name, declaration: binding.declarator } };
    }
    return null;
  }
  if (node.type === 'MemberExpression' && node.object.type === 'Identifier') {
    const name = getMemberName(node);
    const binding = resolveIdentifier(mod.index, node.object);
    if (name === null || binding === null) return null;
    let source: string | null = null;
    if (binding.kind === 'import' && (binding.imported === '*' || binding.imported === 'default')) source = binding.source;
    else if ((binding.kind === 'const' || binding.kind === 'let' || binding.kind === 'var') && binding.pattern.length === 0) source = getRequiredSource(binding.declarator.init);
    return source !== null && isSdkSource(source) ? { name, source, reference: { kind: 'member', object: node.object.name } } : null;
  }
  return null;
}

/** `require('<sdk module>')`, also through interop helpers (`__importDefault(require(...))`): its source. */
function getRequiredSource(init: t.Node | null | undefined): string | null {
  if (init == null) return null;
  const node = unwrapExpression(init);
  if (node.type !== 'CallExpression') return null;
  const first = node.arguments[0];
  if (isRequire(node)) return first?.type === 'StringLiteral' && isSdkSource(first.value) ? first.value : null;
  return first !== undefined && first.type !== 'SpreadElement' && first.type !== 'ArgumentPlaceholder' ? getRequiredSource(first) : null;
}

function findImportDeclaration(mod: ModuleUnit, local: string): t.ImportDeclaration | null {
  for (const statement of mod.ast.program.body) {
    if (statement.type === 'ImportDeclaration' && statement.specifiers.some((s) => s.local.name === local)) return statement;
  }
  return null;
}

/**
 * The `connect` that starts a transport: the transport passed straight to it, or held in a `const`/`let`
 * that is passed to it (its other reads counted), or in `this.x` / `obj.x` passed to it as the same member.
 */
function findConnection(mod: ModuleUnit, created: t.NewExpression, reference: SdkReference, source: string): StdioConnection | null {
  const parent = mod.index.parent.get(created);
  const base = { mod, transport: created, reference, source };
  const connectOf = (arg: t.Node): t.CallExpression | null => {
    const call = mod.index.parent.get(arg);
    if (call?.type !== 'CallExpression' || call.arguments[0] !== arg || call.arguments.length !== 1) return null;
    const callee = unwrapExpression(call.callee);
    return callee.type === 'MemberExpression' && getMemberName(callee) === 'connect' ? call : null;
  };
  const serverOf = (call: t.CallExpression): t.Expression => (unwrapExpression(call.callee) as t.MemberExpression).object;
  const inline = connectOf(created);
  // `<holder>.onclose = ...`: a callback the code sets on the transport
  const callbacksOn = (reads: t.Node[]): string[] =>
    reads.flatMap((read) => {
      const member = mod.index.parent.get(read);
      if (member?.type !== 'MemberExpression' || member.object !== read) return [];
      const name = getMemberName(member);
      const assignment = mod.index.parent.get(member);
      return name !== null && TRANSPORT_CALLBACKS.has(name) && assignment?.type === 'AssignmentExpression' && assignment.left === member ? [name] : [];
    });
  if (inline !== null) return { ...base, holder: null, otherUses: 0, callbacks: [], passed: created, connect: inline, server: serverOf(inline) };
  if (parent?.type === 'VariableDeclarator' && parent.init === created && parent.id.type === 'Identifier') {
    const statement = mod.index.parent.get(parent);
    if (statement?.type !== 'VariableDeclaration') return null;
    const name = parent.id.name;
    const binding = resolveIdentifier(mod.index, parent.id);
    const reads = mod.index.identifiers.filter((id) => id !== parent.id && id.name === name && isReferenceIdentifier(mod.index, id) && resolveIdentifier(mod.index, id) === binding);
    const passed = reads.filter((id) => connectOf(id) !== null);
    if (passed.length !== 1) return null;
    const connect = connectOf(passed[0]!)!;
    return { ...base, holder: { statement, declarator: parent, name }, otherUses: reads.length - 1, callbacks: callbacksOn(reads), passed: passed[0]!, connect, server: serverOf(connect) };
  }
  // `this.transport = new StdioServerTransport(); await this.server.connect(this.transport)`
  if (parent?.type === 'AssignmentExpression' && parent.right === created && parent.left.type === 'MemberExpression') {
    const text = textOf(mod, parent.left);
    const same = mod.index.members.filter((m) => m !== parent.left && textOf(mod, m) === text);
    const passed = same.filter((m) => connectOf(m) !== null);
    if (passed.length !== 1) return null;
    const connect = connectOf(passed[0]!)!;
    return { ...base, holder: null, otherUses: same.length - 1, callbacks: callbacksOn(same), passed: passed[0]!, connect, server: serverOf(connect) };
  }
  return null;
}

function textOf(mod: ModuleUnit, node: t.Node): string {
  return mod.source.slice(node.start!, node.end!);
}
