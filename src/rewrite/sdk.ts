// The SDK rewrite: turns the server model's decisions into text edits.
//   - every reply becomes `return <result>` / `throw <error>` where it is written (calls between the
//     dispatcher and the reply return what they are handed back);
//   - the branches only initialize, ping and notifications/initialized reach are removed;
//   - where the stdin loop was started, the SDK server is created with the original name, version,
//     capabilities and instructions, the dispatcher is registered for each MCP method (and as the
//     fallback for custom methods), and a StdioServerTransport is connected;
//   - console.log and other stdout text go to stderr;
//   - declarations only the removed code used (the loop, the writer helpers, the transport object)
//     are pruned, and every edited module is re-parsed.
// Deliberately not: deciding anything. What to register, which replies are exact, where the server
// goes: the model and the plan said so; this module only writes it down.
import { t } from '../babel.js';
import { buildIndex, forEachChild, type FunctionNode, getEnclosingFunction, getLine, getMemberName, isFunctionNode, isReferenceIdentifier, resolveIdentifier, resolveName, unwrapExpression } from '../analysis/ast.js';
import { Program, type ModuleUnit } from '../analysis/program.js';
import { MCP_NOTIFICATIONS, MCP_REQUESTS, type Capability, isMcpNotification, isMcpRequestMethod } from '../model/mcp-methods.js';
import { SDK_TARGETS } from '../model/sdk-targets.js';
import type { NoReplyEnd, ServerModel } from '../model/server-model.js';
import type { BlockerReason } from '../model/reasons.js';
import { renderSdkShape, type WrittenShape, type WrittenSite } from './sdk-code.js';
import type { ModuleKind, SdkTarget } from '../model/types.js';
import { parseSource, peekParse } from '../parse.js';
import { EditList } from './edits.js';
import { hasTopImports, insertAtImports, writesImports } from './imports.js';
import { removeUnreachableBreaks } from './unreachable.js';
import { forgetScopeModel, pruneUnusedDeclarations, removeExportedWriters } from './prune.js';
import { detectStyle, quoted, semi, type CodeStyle } from './style.js';
import { findProtectedLineStarts, getLineIndent, getLineStart, getNodeRange, getRemovalRange, reindentExpression, renderRange } from './text.js';
import { isTypeScriptPath } from '../parse.js';

export interface SdkRewrite {
  /** The new text of every module that changed (the entry included when it changed). */
  changes: Map<string, { before: string; after: string }>;
  notes: string[];
  fixes: string[];
}

/** `code`: the reason the plan is given when the shape's code cannot be written (else the output check's). */
export type SdkRewriteResult = SdkRewrite | { failed: string; line: number; code?: BlockerReason };

interface Ctx {
  sdk: SdkTarget;
  moduleKind: (mod: ModuleUnit) => ModuleKind;
  shape: WrittenShape;
  edits: Map<ModuleUnit, EditList>;
  styles: Map<ModuleUnit, CodeStyle>;
  notes: string[];
  fixes: string[];
}

export function rewriteToSdk(model: ServerModel, sdk: SdkTarget, moduleKind?: ModuleKind, guardStdout = true): SdkRewriteResult {
  // the code detection's references stand for, written where it goes (or why it cannot be)
  const shape = renderSdkShape(model.sdk!);
  if ('failed' in shape) return { failed: shape.failed.detail, line: shape.failed.line, code: shape.failed.code };
  const ctx: Ctx = { sdk, shape, edits: new Map(), styles: new Map(), notes: [], fixes: [], moduleKind: (mod) => getModuleKind(mod, moduleKind) };
  const anchorMod = shape.anchor.mod;
  const edit = (mod: ModuleUnit): EditList => {
    let list = ctx.edits.get(mod);
    if (!list) {
      list = new EditList();
      ctx.edits.set(mod, list);
    }
    return list;
  };

  // 1. Branches the SDK answers itself go; replies inside them are not rewritten.
  const removed: { mod: ModuleUnit; start: number; end: number }[] = [];
  for (const branch of shape.removableBranches) {
    const range = getBranchRemoval(branch.mod, branch.node, branch.kind);
    if (!range || removed.some((r) => r.mod === branch.mod && overlaps(r, range))) continue;
    if (range.replacement === null) edit(branch.mod).remove(range.start, range.end);
    else edit(branch.mod).replace(range.start, range.end, range.replacement);
    removed.push({ mod: branch.mod, start: range.start, end: range.end });
  }
  const isRemoved = (mod: ModuleUnit, node: t.Node): boolean => removed.some((r) => r.mod === mod && node.start! >= r.start && node.end! <= r.end);

  // 2. Replies become returns and throws.
  const removedWrites = new Set<t.Node>();
  for (const site of shape.sites) {
    if (isRemoved(site.mod, site.statement)) continue;
    const style = getStyle(ctx, site.mod);
    // `.then((result) => send({ id, result }), onError)` would keep `.then((result) => result, onError)`: `.catch(onError)` says it
    const identity = getIdentityThen(site);
    if (identity) {
      edit(site.mod).replace(identity.property.start!, identity.property.end!, 'catch');
      edit(site.mod).remove(identity.first.start!, identity.second.start!);
      continue;
    }
    const range = getReplyRange(site);
    edit(site.mod).replace(range.start, range.end, buildReplyStatement(site, style, sdk));
    for (const exit of site.unreachableAfter) {
      const range = getRemovalRange(site.mod.source, exit.start!, exit.end!);
      if (!edit(site.mod).touches(range.start, range.end)) edit(site.mod).remove(range.start, range.end);
    }
    if (site.writeStatement && !removedWrites.has(site.writeStatement)) {
      removedWrites.add(site.writeStatement);
      const target = getGuardedStatement(site.mod, site.writeStatement);
      const range = getRemovalRange(site.mod.source, target.start!, target.end!);
      if (!edit(site.mod).touches(range.start, range.end)) edit(site.mod).remove(range.start, range.end);
    }
  }
  for (const call of shape.returnedCalls) {
    if (isRemoved(call.mod, call.statement)) continue;
    const expression = call.statement.type === 'ExpressionStatement' ? call.statement.expression : call.statement.type === 'ReturnStatement' ? call.statement.argument : null;
    // inside a try whose catch must not see the reply's rejection, the promise is handed back as it is
    if (call.dropAwait && expression?.type === 'AwaitExpression') {
      const prefix = call.statement.type === 'ReturnStatement' ? 'return ' : 'return ';
      edit(call.mod).replace(call.statement.start!, expression.argument.start!, prefix);
      continue;
    }
    if (call.statement.type === 'ReturnStatement') continue;
    edit(call.mod).insert(call.statement.start!, 'return ');
  }
  for (const end of shape.noReplyEnds) {
    const style = getStyle(ctx, end.mod);
    const [code, message] = NO_REPLY_ERRORS[end.reason];
    const text = buildThrow(style, sdk, code, quoted(style, message), null);
    if (end.kind === 'return') edit(end.mod).replace(end.node.start!, end.node.end!, text);
    else if (end.fn.body.type === 'BlockStatement') {
      const body = end.fn.body;
      const indent = getLineIndent(end.mod.source, body.body[0]?.start ?? body.start!) || style.indent;
      edit(end.mod).insert(body.end! - 1, `${indent}${text}${style.eol}${getLineIndent(end.mod.source, body.end! - 1)}`.replace(/^(?=)/, ''));
    }
  }
  if (shape.noReplyEnds.some((e) => e.reason === 'unknown-method')) ctx.fixes.push('unknown methods are answered with -32601 instead of never');
  if (shape.noReplyEnds.some((e) => e.reason !== 'unknown-method')) ctx.fixes.push('requests the original never answered (an unknown tool, a path without a result) get an error reply');

  // TypeScript: a function whose replies became results no longer returns what its annotation says
  for (const fn of getAnswerFunctions(shape)) {
    const mod = fn.mod;
    const node = fn.fn;
    if (!isTypeScriptPath(mod.path) || !node.returnType || node.returnType.type !== 'TSTypeAnnotation') continue;
    const text = mod.source.slice(node.returnType.typeAnnotation.start!, node.returnType.typeAnnotation.end!);
    if (/^(?:unknown|any|Promise<(?:unknown|any)>)$/.test(text.replace(/\s+/g, ''))) continue;
    if (edit(mod).touches(node.returnType.start!, node.returnType.end!)) continue;
    edit(mod).replace(node.returnType.typeAnnotation.start!, node.returnType.typeAnnotation.end!, node.async ? 'Promise<unknown>' : 'unknown');
  }

  // The flushes of an outbox (`outbox.push(json); flush()`): its pushes were the writes and became
  // returns, so nothing is queued any more and a call of the flush is dead plumbing; it goes (the flush,
  // the outbox and its flags are pruned once unused). Not inside a flush itself: it goes whole.
  for (const { call, mod } of model.facts.outbox.flushCalls) {
    let statement: t.Node = call;
    for (let up = mod.index.parent.get(statement); up && (up.type === 'AwaitExpression' || up.type === 'UnaryExpression' || up.type === 'ParenthesizedExpression'); up = mod.index.parent.get(up)) statement = up;
    const holder = mod.index.parent.get(statement);
    if (holder?.type !== 'ExpressionStatement') continue;
    const range = getRemovalRange(mod.source, getNodeRange(mod.source, holder).start, holder.end!);
    if (!edit(mod).touches(range.start, range.end)) edit(mod).remove(range.start, range.end);
  }

  // 3. Text on stdout goes to stderr (it would corrupt the transport). When the entry loads the module
  // that serves only on demand (a CLI's `serve` command), the modules every run loads keep their console
  // calls: their other commands print as before, and the guard, installed as the serving module loads,
  // sends what they print while serving to stderr.
  const onDemand = model.facts.onDemand.has(anchorMod);
  const keptForTheGuard = (mod: ModuleUnit): boolean => onDemand && guardStdout && !model.facts.onDemand.has(mod);
  for (const sink of model.facts.sinks) {
    if (isRemoved(sink.mod, sink.call) || sink.channel !== 'console' || keptForTheGuard(sink.mod)) continue;
    const callee = unwrapExpression(sink.call.callee);
    if (callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier') continue;
    if (isInsideEdit(ctx, sink.mod, sink.call)) continue;
    // JSON written by a writer helper: the helper goes away with the replies that used it
    if (sink.json) continue;
    if (callee.property.name !== 'error') edit(sink.mod).replace(callee.property.start!, callee.property.end!, 'error');
  }

  // a catch around the inline dispatch that answered with a parse error: it rethrows, the SDK answers
  for (const { clause, statements } of shape.catchWrites) {
    const mod = shape.dispatcher.mod;
    const list = edit(mod);
    const free = statements.filter((st) => !list.touches(st.start!, st.end!));
    if (free.length === 0) continue;
    const param = clause.param?.type === 'Identifier' ? clause.param.name : null;
    if (clause.param && !param) continue;
    // a catch without a binding gets one whose name nothing in the clause uses
    const used = mod.source.slice(clause.start!, clause.end!);
    const name = param ?? ['error', 'err', 'caught'].find((n) => !new RegExp(`\\b${n}\\b`).test(used)) ?? 'caughtError';
    if (!clause.param) list.insert(clause.body.start!, `(${name}) `);
    list.replace(free[0]!.start!, free[0]!.end!, `throw ${name}${semi(getStyle(ctx, mod))}`);
    for (const st of free.slice(1)) {
      const range = getRemovalRange(mod.source, getNodeRange(mod.source, st).start, st.end!);
      list.remove(range.start, range.end);
    }
  }

  for (const statement of shape.inputStatements) {
    const range = getRemovalRange(anchorMod.source, getNodeRange(anchorMod.source, statement).start, statement.end!);
    if (!edit(anchorMod).touches(range.start, range.end)) edit(anchorMod).remove(range.start, range.end);
  }

  // 4. The SDK server where the loop was started.
  const anchor = shape.anchor;
  const style = getStyle(ctx, anchorMod);
  const indent = getLineIndent(anchorMod.source, anchor.statement.start!);
  const names = pickNames(anchorMod);
  const setup = buildServerSetup(ctx, style, indent, names);
  const anchorRange = getNodeRange(anchorMod.source, anchor.statement);
  let handlerText = '';
  if (shape.dispatcher.kind === 'inline') {
    // the code after the parse becomes the handler, placed where the loop was (its edits move with it)
    const extracted = buildInlineHandler(shape.dispatcher, edit(anchorMod), style, indent, shape.handlerName, shape.catchWrites);
    if ('failed' in extracted) return extracted;
    handlerText = extracted.text + style.eol;
    ctx.edits.set(anchorMod, edit(anchorMod).without(anchor.statement.start!, anchor.statement.end!));
  } else {
    // the loop is replaced whole: an edit inside it (its debug console.log moved to stderr) has no text left to change
    ctx.edits.set(anchorMod, edit(anchorMod).without(anchorRange.start, anchorRange.end));
  }
  if (edit(anchorMod).touches(anchorRange.start, anchorRange.end)) return { failed: 'the stdin loop overlaps code the rewrite changes', line: getLine(anchor.statement) };
  edit(anchorMod).replace(anchor.statement.start!, anchor.statement.end!, (handlerText + setup).slice(indent.length));
  // the entry point's first statement after its imports: console.log/info/debug go to stderr; in the
  // server's own module when the entry loads it only on demand (`await import('./serve.js')` in a CLI's
  // `serve` command: its other commands keep printing to stdout)
  const entry = onDemand ? anchorMod : model.facts.program.entry;
  const guard = guardStdout ? buildStdoutGuard(getStyle(ctx, entry)) : '';
  if (guardStdout) ctx.notes.push(onDemand ? 'stdout guard added: console.log/info/debug (a dependency\'s logger too) write to stderr once the module that serves is loaded (the entry loads it on demand)' : 'stdout guard added: console.log/info/debug (a dependency\'s logger too) write to stderr in the entry point');
  if (entry === anchorMod) {
    const imports = buildImports(ctx, style, anchorMod, names);
    // imports, a blank line, the guard, then what followed the imports
    const trailing = /(\r?\n)*$/.exec(imports)![0];
    insertAtImports(edit(anchorMod), anchorMod, guard ? imports.slice(0, imports.length - trailing.length) + style.eol + style.eol + guard + trailing.slice(style.eol.length) : imports, style.eol);
  }
  else {
    insertAtImports(edit(anchorMod), anchorMod, buildImports(ctx, style, anchorMod, names), style.eol);
    if (guard) insertAtImports(edit(entry), entry, guard, getStyle(ctx, entry).eol);
  }
  // v2 throws ProtocolError where an error reply was written: a module of the dispatch other than the
  // anchor's imports it too (the handler class of one module, its dispatcher in another)
  if (ctx.sdk === 'v2') {
    for (const mod of getThrowingModules(ctx)) {
      if (mod === anchorMod) continue;
      if (declaresName(mod, 'ProtocolError')) return { failed: `${mod.path.split(/[\\/]/).pop()} declares a ProtocolError of its own, which the SDK's would shadow`, line: 0 };
      const modStyle = getStyle(ctx, mod);
      const useImport = writesImports(ctx.moduleKind(mod), mod);
      const from = quoted(modStyle, SDK_TARGETS.v2.serverModule);
      const line = useImport ? `import { ProtocolError } from ${from}${semi(modStyle)}` : `const { ProtocolError } = require(${from})${semi(modStyle)}`;
      insertAtImports(edit(mod), mod, line + modStyle.eol + (hasTopImports(mod) ? '' : modStyle.eol), modStyle.eol);
    }
  }

  // 5. Apply, prune what only the removed code used, re-parse.
  const changes = new Map<string, { before: string; after: string }>();
  for (const [mod, list] of ctx.edits) {
    let after = '';
    try {
      after = list.apply(mod.source);
      after = pruneUnusedDeclarations(mod.path, mod.ast, after, getExternalMembers(model, mod), getWriterNames(model, mod), { source: mod.source, edits: list.all });
      after = removeUnreachableBreaks(mod.path, mod.source, after);
      parseSource(mod.path, after);
    } catch (err) {
      if (process.env['MCP_MIGRATE_DEBUG']) process.stderr.write(`--- ${mod.path}\n${after || list.apply(mod.source)}\n`);
      return { failed: `the rewritten ${mod.path.split(/[\\/]/).pop()} is not valid: ${(err as Error).message}`, line: 0 };
    }
    if (after !== mod.source) changes.set(mod.path, { before: mod.source, after });
  }
  dropUnreachableChanges(model, changes);
  // a writer only its module's exports still name, and no other module reads: it goes too
  for (const [path, change] of changes) {
    const mod = model.facts.program.modules.find((m) => m.path === path)!;
    // what other modules still read as code, as they read now (the calls of `channel.writeMessage` went
    // with the replies; `is out of range` in a message is no read of `out`, `process.stderr.write` none of `write`)
    const named = new Set<string>();
    const external = new Set<string>();
    for (const other of model.facts.program.modules) {
      if (other === mod) continue;
      const read = getNamesRead(other.path, changes.get(other.path)?.after ?? other.source);
      for (const name of read.names) named.add(name);
      for (const name of read.members) external.add(name);
    }
    const after = removeExportedWriters(path, change.after, getWriterNames(model, mod), (name) => named.has(name));
    // Pruned again: what removeExportedWriters removed can leave more unused (a writer only a removed parse
    // helper called), and so can members other modules no longer read. When neither happened, the first
    // prune's output is its own fixpoint: a declaration it left had a reference outside everything it
    // removed, and still has (~3% of a 1 MB file's run). TypeScript is pruned again whatever: its types go
    // after the bindings, by a model of their own that this argument does not cover.
    if (after === change.after && !isTypeScriptPath(path) && isSameSet(external, getExternalMembers(model, mod))) continue;
    change.after = pruneUnusedDeclarations(path, mod.ast, after, external, getWriterNames(model, mod));
  }
  // the prunes are done: the models of their outputs go (the re-check reads the trees, not the models)
  for (const change of changes.values()) {
    const ast = peekParse(change.after);
    if (ast !== null) forgetScopeModel(ast);
  }
  ctx.fixes.push('every reply carries "jsonrpc": "2.0" and the request id, notifications are never answered, ping is answered (the SDK does it)');
  if (sdk === 'v1') ctx.fixes.push('bad JSON gets -32700 with id null, and the server keeps serving');
  return { changes, notes: ctx.notes, fixes: ctx.fixes };
}

/**
 * The names a module reads as code: references, imported and re-exported names, destructured keys
 * (`const { write } = require('./rpc')`), members of its own values (`rpc.write`, `this.write`); not a
 * global's member (`process.stderr.write` reads no `write` of another module), not words in strings.
 */
function getNamesRead(path: string, text: string): { names: Set<string>; members: Set<string> } {
  const index = buildIndex(parseSource(path, text), text);
  const names = new Set<string>();
  const members = new Set<string>();
  for (const id of index.identifiers) {
    const parent = index.parent.get(id);
    if (parent?.type === 'ImportSpecifier' || parent?.type === 'ExportSpecifier') names.add(id.name);
    else if (parent?.type === 'ObjectProperty' && parent.key === id && index.parent.get(parent)?.type === 'ObjectPattern') names.add(id.name);
    else if ((parent?.type === 'MemberExpression' || parent?.type === 'OptionalMemberExpression') && parent.property === id) {
      if (parent.computed) continue;
      let root: t.Node = parent.object;
      while (root.type === 'MemberExpression' || root.type === 'OptionalMemberExpression') root = root.object;
      if (root.type !== 'Identifier' || resolveIdentifier(index, root) !== null) {
        names.add(id.name);
        members.add(id.name);
      }
    } else if (isReferenceIdentifier(index, id)) names.add(id.name);
  }
  return { names, members };
}

/**
 * A module the rewritten program no longer imports (the transport module whose only user was the removed
 * loop) keeps its bytes: edits there would change dead code, and the smallest diff leaves it alone.
 */
function dropUnreachableChanges(model: ServerModel, changes: Map<string, { before: string; after: string }>): void {
  const entry = model.facts.program.entry;
  const sources = new Map(model.facts.program.modules.map((m) => [m.path, m.source]));
  const read = (path: string): string | null => changes.get(path)?.after ?? sources.get(path) ?? null;
  const entryText = read(entry.path)!;
  const reachable = new Program(entry.path, entryText, parseSource(entry.path, entryText), read).loadReachable();
  const paths = new Set(reachable.map((m) => m.path));
  for (const path of [...changes.keys()]) if (!paths.has(path)) changes.delete(path);
}

/** The dispatcher, the functions whose replies became returns, and those that hand them back up. */
function getAnswerFunctions(shape: WrittenShape): { fn: FunctionNode; mod: ModuleUnit }[] {
  const out = new Map<FunctionNode, ModuleUnit>([[shape.dispatcher.fn, shape.dispatcher.mod]]);
  for (const site of shape.sites) if (site.fn) out.set(site.fn, site.mod);
  for (const call of shape.returnedCalls) {
    const fn = getEnclosingFunction(call.mod.index, call.statement);
    if (fn) out.set(fn, call.mod);
  }
  return [...out].map(([fn, mod]) => ({ fn, mod }));
}

function isSameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((item) => b.has(item));
}

/** `(request, extra) => handle(...)` -> `async (request, extra) => (await handle(...)) as ServerResult` (TypeScript). */
function asServerResult(handler: string, type = 'ServerResult'): string {
  const arrow = /^(\([^)]*\)) => ([\s\S]*)$/.exec(handler);
  if (!arrow) return `async (request, extra) => (await ${handler}(request, extra)) as ${type}`;
  return `async ${arrow[1]} => (await ${arrow[2]}) as ${type}`;
}

/**
 * The type a TypeScript handler's result is cast to: v1's `ServerResult` union; v2 types each method's
 * handler, so the method's own result type (`ListToolsResult`), and `Result` for the fallback.
 */
function getResultType(sdk: SdkTarget, method: string | null): string {
  if (sdk === 'v1') return 'ServerResult';
  // (through unknown: the dispatcher's own result type, a union of literals, need not overlap the SDK's)
  return `unknown as ${getResultTypeName(method)}`;
}

function getResultTypeName(method: string | null): string {
  return method !== null && isMcpRequestMethod(method) ? MCP_REQUESTS[method].result : 'Result';
}

// mcp-migrate: stdout carries the MCP protocol; console.log/info/debug (a dependency's logger too) go to stderr
// console.log = console.info = console.debug = console.error;
function buildStdoutGuard(style: CodeStyle): string {
  const eol = style.eol;
  return `// mcp-migrate: stdout carries the MCP protocol; console.log/info/debug (a dependency's logger too) go to stderr${eol}console.log = console.info = console.debug = console.error${semi(style)}${eol}`;
}

/** The error thrown where a request would otherwise end without a reply. */
const NO_REPLY_ERRORS: Record<NoReplyEnd['reason'], [string, string]> = {
  'unknown-method': ['-32601', 'Method not found'],
  'unknown-tool': ['-32602', 'Unknown tool'],
  'no-result': ['-32603', 'The server produced no result for this request'],
};

/** ESM or CommonJS, as Node decides: the extension, else the package type the runner read (the same package for every module). */
function getModuleKind(mod: ModuleUnit, packageKind: ModuleKind | undefined): ModuleKind {
  if (/\.m[jt]s$/i.test(mod.path)) return 'esm';
  if (/\.c[jt]s$/i.test(mod.path)) return 'cjs';
  if (packageKind) return packageKind;
  return mod.syntax === 'esm' ? 'esm' : 'cjs';
}

/** Each module's plumbing names (detect/plumbing.ts): what the prune removes once nothing calls it. */
function getWriterNames(model: ServerModel, mod: ModuleUnit): ReadonlySet<string> {
  return model.sdk?.plumbing.get(mod) ?? new Set();
}

/** Member names other modules of the program read: a class member with such a name is never pruned here. */
function getExternalMembers(model: ServerModel, mod: ModuleUnit): Set<string> {
  const names = new Set<string>();
  for (const other of model.facts.program.modules) {
    if (other === mod) continue;
    for (const member of other.index.members) {
      const name = getMemberName(member);
      if (name !== null) names.add(name);
    }
  }
  return names;
}

function getStyle(ctx: Ctx, mod: ModuleUnit): CodeStyle {
  let style = ctx.styles.get(mod);
  if (!style) {
    style = detectStyle(mod.source);
    ctx.styles.set(mod, style);
  }
  return style;
}

function overlaps(a: { start: number; end: number }, b: { start: number; end: number }): boolean {
  return a.start < b.end && b.start < a.end;
}

function isInsideEdit(ctx: Ctx, mod: ModuleUnit, node: t.Node): boolean {
  return ctx.edits.get(mod)?.touches(node.start!, node.end!) ?? false;
}

// ---------------------------------------------------------------- replies

/**
 * A result reply that is the whole body of the first callback of `.then(onResult, onError)` and returns
 * the callback's own parameter: once it is a return, that callback does nothing, and the call is
 * `.catch(onError)`.
 */
function getIdentityThen(site: WrittenSite): { property: t.Node; first: t.Node; second: t.Node } | null {
  if (site.form !== 'arrow-body' || site.reply.kind !== 'result' || site.unreachableAfter.length > 0) return null;
  const index = site.mod.index;
  const arrow = index.parent.get(site.statement);
  if (arrow?.type !== 'ArrowFunctionExpression' || arrow.body !== site.statement || arrow.params.length !== 1) return null;
  const param = arrow.params[0]!;
  if (param.type !== 'Identifier' || site.reply.value.trim() !== param.name) return null;
  const call = index.parent.get(arrow);
  if (call?.type !== 'CallExpression' || call.arguments.length !== 2 || call.arguments[0] !== arrow) return null;
  const callee = call.callee;
  if (callee.type !== 'MemberExpression' || callee.computed || callee.property.type !== 'Identifier' || callee.property.name !== 'then') return null;
  return { property: callee.property, first: arrow, second: call.arguments[1]! };
}

/**
 * What a reply replaces: its statement, or an arrow's whole body with the parentheses around it
 * (`(id, code, message) => ({ ... })` becomes `=> { throw ... }`, never `=> ({ throw ... })`).
 */
function getReplyRange(site: WrittenSite): { start: number; end: number } {
  const node = site.statement;
  if (site.form !== 'arrow-body') return { start: node.start!, end: node.end! };
  const arrow = site.mod.index.parent.get(node);
  const extra = node.extra as { parenthesized?: boolean; parenStart?: number } | undefined;
  if (arrow?.type === 'ArrowFunctionExpression' && arrow.body === node && extra?.parenthesized && typeof extra.parenStart === 'number') return { start: extra.parenStart, end: arrow.end! };
  return { start: node.start!, end: node.end! };
}

// return <result>;
// throw Object.assign(new Error(<message>), { code: <code> });      (v1: the SDK sends code and message as they are)
// throw new ProtocolError(<code>, <message>);                        (v2)
// (result) => result                                    (the reply was an arrow's expression body)
// return Promise.reject(Object.assign(new Error(...)))  (an error inside a try whose catch answers differently)
function buildReplyStatement(site: WrittenSite, style: CodeStyle, sdk: SdkTarget): string {
  const s = semi(style);
  const reply = site.reply;
  const arrow = site.form === 'arrow-body';
  if (reply.kind === 'result') {
    // the value's later lines follow it from where it was written to the statement's line
    const value = reindentExpression(reply.value, reply.indent, getLineIndent(site.mod.source, site.statement.start!));
    return arrow ? (/^[{]/.test(value) ? `(${value})` : value) : `return ${value}${s}`;
  }
  let error: string;
  if (reply.kind === 'error-value') error = reply.value;
  else if (reply.kind === 'error-held') error = buildHeldError(sdk, reply.value, reply.shape, reply.code, quoted(style, 'string'));
  else {
    const message = reply.message ?? quoted(style, 'Error');
    const code = reply.code;
    error = code === null ? (sdk === 'v2' ? buildError(sdk, '-32603', message, reply.data) : `new Error(${message})`) : buildError(sdk, code, message, reply.data);
  }
  if (site.bypass) return arrow ? `Promise.reject(${error})` : `return Promise.reject(${error})${s}`;
  return arrow ? `{ throw ${error}${s} }` : `throw ${error}${s}`;
}

/**
 *   v1: Object.assign(new Error(message), { code })   (the SDK sends code and message as they are; McpError would prefix the message)
 *   v2: new ProtocolError(code, message)
 */
function buildError(sdk: SdkTarget, code: string, message: string, data: string | null): string {
  if (sdk === 'v2') return `new ProtocolError(${code}, ${message}${data ? `, ${data}` : ''})`;
  const codePart = code === 'code' ? 'code' : `code: ${code}`;
  const dataPart = data === null ? '' : data === 'data' ? ', data' : `, data: ${data}`;
  return `Object.assign(new Error(${message}), { ${codePart}${dataPart} })`;
}

/**
 * An error object held in a variable keeps its code, message and data as the original sent them:
 *   v1: Object.assign(new Error(err.message), err)      (the SDK sends err.code, err.message and err.data)
 *   v2: new ProtocolError(err.code, err.message, err.data)
 * one built where the reply was written is computed once, its members copied onto the error (both SDKs
 * send the thrown error's own code, message and data):
 *   Object.assign(new Error(), makeError(-32602, 'bad'))
 * and where it may also be a message string, the run time decides:
 *   typeof err === 'string' ? Object.assign(new Error(err), { code: -32603 }) : Object.assign(new Error(err.message), err)
 */
function buildHeldError(sdk: SdkTarget, value: string, shape: 'object' | 'either' | 'computed', code: string | null, stringType: string): string {
  if (shape === 'computed') return `Object.assign(new Error(), ${value})`;
  const object = sdk === 'v2' ? `new ProtocolError(${value}.code, ${value}.message, ${value}.data)` : `Object.assign(new Error(${value}.message), ${value})`;
  if (shape === 'object') return object;
  const message = code === null ? (sdk === 'v2' ? buildError(sdk, '-32603', value, null) : `new Error(${value})`) : buildError(sdk, code, value, null);
  return `typeof ${value} === ${stringType} ? ${message} : ${object}`;
}

function buildThrow(style: CodeStyle, sdk: SdkTarget, code: string, message: string, data: string | null): string {
  return `throw ${buildError(sdk, code, message, data)}${semi(style)}`;
}

/** `if (response !== undefined) send(response);` -> the whole if; otherwise the write itself. */
function getGuardedStatement(mod: ModuleUnit, write: t.Statement): t.Statement {
  let node: t.Statement = write;
  let parent = mod.index.parent.get(node);
  if (parent?.type === 'BlockStatement' && parent.body.length === 1) {
    const holder = mod.index.parent.get(parent);
    if (holder?.type === 'IfStatement' && holder.consequent === parent && !holder.alternate) return holder;
  }
  if (parent?.type === 'IfStatement' && parent.consequent === node && !parent.alternate) node = parent;
  return node;
}

// ---------------------------------------------------------------- removed branches

/** What to cut to remove a branch: a range, and text to put instead (the else part of an if). */
function getBranchRemoval(mod: ModuleUnit, node: t.Node, kind: string): { start: number; end: number; replacement: string | null } | null {
  const source = mod.source;
  const parent = mod.index.parent.get(node);
  switch (kind) {
    case 'case': {
      const kase = node as t.SwitchCase;
      const sw = parent as t.SwitchStatement;
      const index = sw.cases.indexOf(kase);
      const previous = sw.cases[index - 1];
      // `case 'tools/list': case 'ping': ...` shares the body: keep it
      if (previous && previous.consequent.length === 0) return null;
      if (kase.consequent.length === 0 && !sw.cases.slice(index + 1).some((c) => c.consequent.length > 0)) return null;
      const range = getNodeRange(source, kase);
      return { ...getRemovalRange(source, range.start, range.end), replacement: null };
    }
    case 'if': {
      const statement = node as t.IfStatement;
      // `if (method === 'initialize') {...} else <rest>`: cut up to <rest>, which stays in place (and is still rewritten)
      if (statement.alternate) {
        const start = parent?.type === 'IfStatement' && parent.alternate === statement ? statement.start! : getNodeRange(source, statement).start;
        return { start, end: statement.alternate.start!, replacement: null };
      }
      if (parent?.type === 'IfStatement' && parent.alternate === statement) {
        // `... else if (method === 'initialize') {...}` at the end of a chain
        return { start: parent.consequent.end!, end: statement.end!, replacement: '' };
      }
      const range = getNodeRange(source, statement);
      return { ...getRemovalRange(source, range.start, range.end), replacement: null };
    }
    case 'property':
    case 'element': {
      const range = getNodeRange(source, node);
      // with its comma; and the space after it when the next item follows on the same line (`{ a: 1, b: 2 }` -> `{ b: 2 }`)
      const after = /^\s*,(?:[ \t]+(?=[^\s]))?/.exec(source.slice(range.end));
      const end = after ? range.end + after[0].length : range.end;
      return { ...getRemovalRange(source, range.start, end), replacement: null };
    }
    case 'statement': {
      const range = getNodeRange(source, node);
      return { ...getRemovalRange(source, range.start, range.end), replacement: null };
    }
    default:
      return null;
  }
}

// ---------------------------------------------------------------- inline dispatch

// const handleMessage = async (msg) => {
//   <the statements after the parse, with replies as returns and throws>
// };
/**
 * The loop dispatches right after its `JSON.parse`: those statements become the handler. Walking out from
 * the parse to the loop's callback, each level keeps the statements after the one holding the parse;
 * a `try` around them is kept (its catch still handles their errors); a loop over lines ends there (its
 * `continue` and `break` end this message: they become `return`).
 */
function buildInlineHandler(d: Extract<WrittenShape['dispatcher'], { kind: 'inline' }>, list: EditList, style: CodeStyle, indent: string, name: string, catchWrites: WrittenShape['catchWrites']): { text: string } | { failed: string; line: number } {
  const mod = d.mod;
  const source = mod.source;
  const eol = style.eol;
  const protectedStarts = findProtectedLineStarts(mod.ast, source);
  const fail = (why: string, node: t.Node): { failed: string; line: number } => ({ failed: `the dispatch after the parse cannot become a handler: ${why}`, line: getLine(node) });
  const parent = (node: t.Node): t.Node | undefined => mod.index.parent.get(node);
  const message = getParsedName(mod, d.parse);
  if (message === null) return fail('the parsed message is not stored in a variable', d.parse);
  // TypeScript: the parameter keeps the variable's declared type; an undeclared one was `any` (strict mode refuses an implicit one)
  const messageType = getDeclaredType(mod, d.parse) || (isTypeScriptPath(mod.path) ? ': any' : '');

  // `try { msg = JSON.parse(line) } catch { ... }`: the whole try is the parse
  let node: t.Node = d.parseStatement;
  const holder = parent(node);
  const tryStatement = holder && parent(holder);
  if (holder?.type === 'BlockStatement' && holder.body.length === 1 && tryStatement?.type === 'TryStatement' && tryStatement.block === holder) node = tryStatement;

  // each entry: statements of one block, and what wraps them
  type Level = { statements: t.Statement[]; wrap: t.TryStatement | null };
  const levels: Level[] = [];
  let stopLoop: t.Node | null = null;
  for (let guard = 0; guard < 20; guard++) {
    const block = parent(node);
    if (!block || block.type !== 'BlockStatement') return fail('the parse is not a statement of a block', node);
    const rest = block.body.slice(block.body.indexOf(node as t.Statement) + 1);
    const owner = parent(block);
    if (owner?.type === 'TryStatement' && owner.block === block) {
      levels.push({ statements: rest, wrap: owner });
      node = owner;
      continue;
    }
    levels.push({ statements: rest, wrap: null });
    if (owner === d.fn) break;
    if (owner && (owner.type === 'ForStatement' || owner.type === 'ForOfStatement' || owner.type === 'ForInStatement' || owner.type === 'WhileStatement' || owner.type === 'DoWhileStatement')) {
      stopLoop = owner;
      break;
    }
    if (!owner || !t.isStatement(owner)) return fail('the parse sits where its following code cannot be followed', node);
    node = owner;
  }
  // `continue` / `break` of the loop that is left behind end this message's handling
  const extracted = levels.flatMap((l) => [...l.statements, ...(l.wrap?.handler ? [l.wrap.handler.body] : [])]);
  for (const exit of findLoopExits(mod, extracted, stopLoop)) {
    if (exit.label) return fail('a labelled jump leaves the handler', exit);
    if (!list.touches(exit.start!, exit.end!)) list.replace(exit.start!, exit.end!, `return${semi(style)}`);
  }

  // render from the innermost level out
  const unit = style.indent;
  let body = '';
  let depth = indent + unit;
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i]!;
    const own = renderStatements(mod, list, level.statements, depth, protectedStarts, eol);
    const rethrowOnly = level.wrap && !level.wrap.finalizer && level.wrap.handler && isRethrowOnly(level.wrap.handler, catchWrites);
    if (level.wrap && !rethrowOnly) {
      const inner = [body, own].filter(Boolean).join(eol);
      const t = level.wrap;
      let text = `${depth}try {${eol}${reindentBlock(inner, unit)}${eol}${depth}}`;
      if (t.handler) text += ` catch${t.handler.param ? ` (${source.slice(t.handler.param.start!, t.handler.param.end!)})` : ''} {${eol}${renderStatements(mod, list, t.handler.body.body, depth + unit, protectedStarts, eol)}${eol}${depth}}`;
      if (t.finalizer) text += ` finally {${eol}${renderStatements(mod, list, t.finalizer.body, depth + unit, protectedStarts, eol)}${eol}${depth}}`;
      body = text;
    } else {
      body = [body, own].filter(Boolean).join(eol);
    }
  }
  return { text: `${indent}const ${name} = async (${message}${messageType}) => {${eol}${body}${eol}${indent}}${semi(style)}` };
}

/** A catch that, once its writes rethrow, does nothing else: the `try` around the handler can go. */
function isRethrowOnly(clause: t.CatchClause, catchWrites: WrittenShape['catchWrites']): boolean {
  const writes = catchWrites.find((c) => c.clause === clause);
  if (!writes) return false;
  return clause.body.body.every((st) => writes.statements.includes(st) || (st.type === 'ReturnStatement' && !st.argument) || st.type === 'EmptyStatement');
}

/** `: JsonRpcRequest` of `let msg: JsonRpcRequest;` (TypeScript), so the handler's parameter keeps the type. */
function getDeclaredType(mod: ModuleUnit, call: t.CallExpression): string {
  const message = getParsedName(mod, call);
  if (message === null) return '';
  const binding = resolveName(mod.index, call, message);
  if (!binding || !('declarator' in binding)) return '';
  const id = binding.declarator.id;
  const annotation = id.type === 'Identifier' ? id.typeAnnotation : null;
  if (annotation && annotation.type === 'TSTypeAnnotation') return mod.source.slice(annotation.start!, annotation.end!);
  // `const msg = JSON.parse(line) as RpcRequest` (or `<RpcRequest>JSON.parse(line)`): the cast is the type
  const cast = getCastType(mod, call);
  return cast === null ? '' : `: ${mod.source.slice(cast.start!, cast.end!)}`;
}

/** The type the parsed message is cast to (the outermost cast around `call`), unless it is `unknown`. */
function getCastType(mod: ModuleUnit, call: t.CallExpression): t.TSType | null {
  let type: t.TSType | null = null;
  for (let node = mod.index.parent.get(call); node && (node.type === 'TSAsExpression' || node.type === 'TSTypeAssertion' || node.type === 'ParenthesizedExpression' || node.type === 'TSNonNullExpression'); node = mod.index.parent.get(node)) {
    if (node.type === 'TSAsExpression' || node.type === 'TSTypeAssertion') type = node.typeAnnotation;
  }
  return type === null || type.type === 'TSUnknownKeyword' ? null : type;
}

/** The name `JSON.parse(...)` is stored in (`const msg = ...`, `msg = ...`). */
function getParsedName(mod: ModuleUnit, call: t.CallExpression): string | null {
  let node: t.Node = call;
  let parent = mod.index.parent.get(node);
  while (parent && (parent.type === 'TSAsExpression' || parent.type === 'ParenthesizedExpression' || parent.type === 'TSNonNullExpression' || parent.type === 'TSTypeAssertion')) {
    node = parent;
    parent = mod.index.parent.get(node);
  }
  if (parent?.type === 'VariableDeclarator' && parent.init === node && parent.id.type === 'Identifier') return parent.id.name;
  if (parent?.type === 'AssignmentExpression' && parent.right === node && parent.left.type === 'Identifier') return parent.left.name;
  return null;
}

/** `continue` and `break` statements in `statements` that target `loop` (the loop over lines left behind). */
function findLoopExits(mod: ModuleUnit, statements: t.Node[], loop: t.Node | null): (t.ContinueStatement | t.BreakStatement)[] {
  const out: (t.ContinueStatement | t.BreakStatement)[] = [];
  const visit = (node: t.Node, insideLoop: boolean, insideSwitch: boolean): void => {
    if (isFunctionNode(node)) return;
    if (node.type === 'ContinueStatement' && (!insideLoop || node.label)) out.push(node);
    if (node.type === 'BreakStatement' && ((!insideLoop && !insideSwitch) || node.label)) out.push(node);
    const loopHere = node.type === 'ForStatement' || node.type === 'ForOfStatement' || node.type === 'ForInStatement' || node.type === 'WhileStatement' || node.type === 'DoWhileStatement';
    forEachChild(node, (child) => visit(child, insideLoop || loopHere, insideSwitch || node.type === 'SwitchStatement'));
  };
  for (const statement of statements) visit(statement, false, false);
  return loop === null ? out.filter((n) => n.label) : out;
}

/** Consecutive statements, with the rewrite's edits applied, re-indented to `to`. */
function renderStatements(mod: ModuleUnit, list: EditList, statements: t.Statement[], to: string, protectedStarts: Set<number>, eol: string): string {
  if (statements.length === 0) return '';
  const source = mod.source;
  const first = getNodeRange(source, statements[0]!).start;
  const lineStart = getLineStart(source, first);
  // from the start of the line, so an edit that removes the first statement's whole lines is inside
  const start = /^[ \t]*$/.test(source.slice(lineStart, first)) ? lineStart : first;
  const last = getNodeRange(source, statements[statements.length - 1]!).end;
  // to the end of the last line, so an edit that removes the last statement's whole lines is inside
  const lineEnd = /^[ \t]*\r?\n/.exec(source.slice(last));
  const end = lineEnd ? last + lineEnd[0].length : last;
  const from = getLineIndent(source, first);
  const text = renderRange(source, start, end, from, to, protectedStarts, list);
  return `${to}${text.replace(/^\s+/, '')}`.replace(/\s+$/, '').split(/\r?\n/).join(eol);
}

function reindentBlock(text: string, unit: string): string {
  return text
    .split(/\r?\n/)
    .map((l) => (l.trim() ? unit + l : l))
    .join('\n');
}

// ---------------------------------------------------------------- the server

interface Names {
  server: string;
  transport: string;
  /** The SDK's classes as this module names them: `Server`, or `SdkServer` where the module declares a `Server` of its own. */
  serverClass: string;
  transportClass: string;
  /** The wrapper that runs handlers one at a time, and the promise it chains them on (SdkShape.oneAtATime). */
  oneAtATime: string;
  handling: string;
}

/** `server` and `transport` (and the SDK classes' own names), unless the module already uses those names for something. */
function pickNames(mod: ModuleUnit): Names {
  const taken = new Set<string>();
  for (const scope of mod.index.scopes.values()) for (const name of scope.keys()) taken.add(name);
  const pick = (options: string[]): string => options.find((n) => !taken.has(n)) ?? `${options[0]}_${Math.abs(hash(mod.path)) % 1000}`;
  return {
    server: pick(['server', 'mcpServer', 'sdkServer']),
    transport: pick(['transport', 'stdioTransport', 'sdkTransport']),
    // `class Server { ... }` of the user's own: the SDK's is imported under another name
    serverClass: pick(['Server', 'SdkServer', 'McpSdkServer']),
    transportClass: pick(['StdioServerTransport', 'SdkStdioServerTransport']),
    oneAtATime: pick(['oneAtATime', 'inArrivalOrder', 'serialHandler']),
    handling: pick(['handling', 'handlingQueue', 'previousHandling']),
  };
}

function hash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
  return h;
}

// const server = new Server({ name, version }, { capabilities, instructions });
// server.setRequestHandler(ListToolsRequestSchema, handleMessage);
// server.fallbackRequestHandler = handleMessage;
// const transport = new StdioServerTransport();
// transport.onerror = ...;   (v1: answers bad JSON with -32700)
// await server.connect(transport);
function buildServerSetup(ctx: Ctx, style: CodeStyle, indent: string, names: Names): string {
  const { shape, sdk } = ctx;
  const s = semi(style);
  const unit = style.indent;
  // TypeScript: what the dispatcher returns is typed by the original (often `unknown`): the SDK wants a ServerResult
  const typed = isTypeScriptPath(shape.anchor.mod.path);
  const result = (call: string): string => (typed ? `(await ${call}) as ${getResultType(sdk, null)}` : call);
  const eol = style.eol;
  const q = (v: string) => quoted(style, v);
  const lines: string[] = [];
  const needed = getNeededCapabilities(shape.registrations);
  const construct = shape.construct;
  const capabilities = construct.capabilities ?? `{ ${needed.map((c) => `${c}: {}`).join(', ')} }`;
  const options = [`capabilities: ${capabilities}`];
  if (construct.instructions) options.push(`instructions: ${construct.instructions}`);
  const optionsText = options.join(', ').length > 60 || options.some((o) => o.includes('\n')) ? `{${eol}${options.map((o) => `${indent}${unit}${o}`).join(`,${eol}`)}${style.trailingComma ? ',' : ''}${eol}${indent}}` : `{ ${options.join(', ')} }`;
  lines.push(`${indent}const ${names.server} = new ${names.serverClass}(${construct.serverInfo}, ${optionsText})${s}`);
  const missing = construct.capabilities === null ? [] : construct.capabilityKeys === null ? needed : needed.filter((c) => !construct.capabilityKeys!.includes(c));
  if (missing.length > 0) {
    lines.push(`${indent}${names.server}.registerCapabilities({ ${missing.map((c) => `${c}: {}`).join(', ')} })${s}`);
    ctx.notes.push(`capabilities ${missing.join(', ')} added: the server answers those methods, so the SDK must advertise them`);
  }
  // the original handled one message at a time (a promise queue): every handler waits for the one before
  const serial = (handler: string): string => (shape.oneAtATime ? `${names.oneAtATime}(${handler})` : handler);
  const [open, close] = shape.oneAtATime ? [`${names.oneAtATime}(`, ')'] : ['', ''];
  if (shape.oneAtATime) {
    lines.push(...buildOneAtATime(style, indent, names, typed));
    ctx.notes.push('messages are still handled one at a time, in the order they arrive, as the original\'s promise queue did (the SDK would run handlers concurrently)');
  }
  for (const method of shape.registrations) {
    const key = sdk === 'v2' ? q(method) : MCP_REQUESTS[method as keyof typeof MCP_REQUESTS].schema;
    if (method === 'resources/read' && shape.readsWithoutUri) {
      // server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      //   const result = await handleMessage(request);
      //   return { ...result, contents: result.contents.map((content) => ({ uri: request.params.uri, ...content })) };
      // });
      const arrow = /^\(request(?:, extra)?\) => ([\s\S]*)$/.exec(shape.handler);
      const call = arrow ? arrow[1]! : `${shape.handler}(request, extra)`;
      lines.push(
        `${indent}${names.server}.setRequestHandler(${key}, ${open}async (request, extra) => {`,
        `${indent}${unit}const result = ${typed ? `(await ${call}) as { contents: object[] }` : `await ${call}`}${s}`,
        `${indent}${unit}// each content names the resource it belongs to (MCP requires it; the original left it out)`,
        `${indent}${unit}return { ...result, contents: result.contents.map((content) => ({ uri: request.params.uri, ...content })) }${typed ? ` as ${getResultType(sdk, method)}` : ''}${s}`,
        `${indent}}${close})${s}`,
      );
      ctx.fixes.push('resources/read contents carry the uri they belong to (clients reject them without it)');
      continue;
    }
    lines.push(`${indent}${names.server}.setRequestHandler(${key}, ${serial(typed ? asServerResult(shape.handler, getResultType(sdk, method)) : shape.handler)})${s}`);
  }
  if (shape.fallback && shape.customMethods.length > 0 && !shape.runtimeMethods) {
    // server.fallbackRequestHandler = async (request, extra) => {
    //   if (!['db/stats'].includes(request.method)) throw Object.assign(new Error('Method not found'), { code: -32601 });
    //   return handleMessage(request);
    // };
    const arrow = /^\((request(?:, extra)?)\) => ([\s\S]*)$/.exec(shape.handler);
    const params = arrow ? arrow[1]! : 'request, extra';
    const call = arrow ? arrow[2]! : `${shape.handler}(request, extra)`;
    const list = `[${shape.customMethods.map((m) => q(m)).join(', ')}]`;
    lines.push(
      `${indent}${names.server}.fallbackRequestHandler = ${open}async (${params}) => {`,
      `${indent}${unit}// the server's own methods; any other method is answered -32601, as JSON-RPC requires`,
      `${indent}${unit}if (!${list}.includes(request.method)) ${buildThrow(style, sdk, '-32601', q('Method not found'), null)}`,
      `${indent}${unit}return ${result(call)}${s}`,
      `${indent}}${close}${s}`,
    );
    ctx.notes.push(`custom methods ${shape.customMethods.join(', ')} keep answering through fallbackRequestHandler`);
  } else if (shape.fallback) {
    lines.push(`${indent}${names.server}.fallbackRequestHandler = ${serial(typed ? asServerResult(shape.handler, getResultType(sdk, null)) : shape.handler)}${s}`);
    if (shape.customMethods.length > 0) ctx.notes.push(`custom methods ${shape.customMethods.join(', ')} keep answering through fallbackRequestHandler`);
  }
  // server.setNotificationHandler(CancelledNotificationSchema, handleMessage);   (the server's own handling)
  // server.fallbackNotificationHandler = async (notification) => { if ([...].includes(notification.method)) await ... };
  if (shape.notificationHandler !== null && shape.notifications.length > 0) {
    const call = (param: string): string => {
      const arrow = /^\((\w+)(?:, extra)?\) => ([\s\S]*)$/.exec(shape.notificationHandler!);
      return arrow ? arrow[2]!.replace(new RegExp(`\\b${arrow[1]}\\b`, 'g'), param) : `${shape.notificationHandler}(${param})`;
    };
    // a notification handler returns nothing: TypeScript wants exactly that
    const handlerFor = typed ? `async (notification) => {${eol}${indent}${unit}await ${call('notification')}${s}${eol}${indent}}` : shape.notificationHandler;
    const custom: string[] = [];
    for (const method of shape.notifications) {
      if (!isMcpNotification(method)) {
        custom.push(method);
        continue;
      }
      const key = sdk === 'v2' ? q(method) : MCP_NOTIFICATIONS[method].schema;
      lines.push(`${indent}${names.server}.setNotificationHandler(${key}, ${serial(handlerFor)})${s}`);
    }
    if (custom.length > 0) {
      lines.push(
        `${indent}${names.server}.fallbackNotificationHandler = ${open}async (notification) => {`,
        `${indent}${unit}if (${`[${custom.map((m) => q(m)).join(', ')}]`}.includes(notification.method)) await ${call('notification')}${s}`,
        `${indent}}${close}${s}`,
      );
    }
    ctx.notes.push(`notifications ${shape.notifications.join(', ')} keep reaching the server's own code through a notification handler`);
  }
  if (sdk === 'v2') {
    // serveStdio(() => { const server = ...; return server; }): one factory serves 2025-era and 2026-07-28 clients
    // (its transport ignores a line that is not JSON: listed in the header as a wire change, BAD_JSON_IGNORED)
    const body = lines.map((l) => l.split(eol).map((part) => unit + part).join(eol).replace(/\(request, extra\)/g, '(request, ctx)').replace(/extra\.requestId/g, 'ctx.mcpReq.id'));
    return [`${indent}serveStdio(() => {`, ...body, `${indent}${unit}return ${names.server}${s}`, `${indent}})${s}`].join(eol);
  }
  const t = names.transport;
  lines.push(`${indent}const ${t} = new ${names.transportClass}()${s}`);
  if (sdk === 'v1') {
    const ts = isTypeScriptPath(shape.anchor.mod.path);
    lines.push(
      `${indent}// The SDK transport drops lines that are not JSON; JSON-RPC 2.0 answers them with -32700 and id null.`,
      `${indent}${t}.onerror = (error) => {`,
      `${indent}${unit}if (error instanceof SyntaxError) {`,
      ...(ts ? [`${indent}${unit}${unit}// @ts-expect-error -- the SDK message type has no null id, which JSON-RPC 2.0 requires here`] : []),
      `${indent}${unit}${unit}void ${t}.send({ jsonrpc: ${q('2.0')}, id: null, error: { code: -32700, message: ${q('Parse error')} } })${s}`,
      `${indent}${unit}}`,
      `${indent}}${s}`,
    );
  }
  // top-level await only in an ES module; inside a function only when it is async
  const canAwait = shape.anchor.fn ? shape.anchor.async : ctx.moduleKind(shape.anchor.mod) === 'esm';
  if (canAwait) lines.push(`${indent}await ${names.server}.connect(${t})${s}`);
  else {
    lines.push(`${indent}${names.server}.connect(${t}).catch((error) => {`, `${indent}${unit}console.error(error)${s}`, `${indent}${unit}process.exit(1)${s}`, `${indent}})${s}`);
  }
  return lines.join(eol);
}

// let handling = Promise.resolve();
// const oneAtATime = (handler) => (...args) => {
//   const run = handling.then(() => handler(...args));
//   handling = run.catch(() => undefined);
//   return run;
// };
function buildOneAtATime(style: CodeStyle, indent: string, names: Names, typed: boolean): string[] {
  const s = semi(style);
  const unit = style.indent;
  const { oneAtATime, handling } = names;
  return [
    `${indent}// one message at a time, in the order they arrive, as the original's promise queue handled them`,
    `${indent}let ${handling}${typed ? ': Promise<unknown>' : ''} = Promise.resolve()${s}`,
    typed
      ? `${indent}const ${oneAtATime} = <A extends unknown[], R,>(handler: (...args: A) => R) => (...args: A): Promise<Awaited<R>> => {`
      : `${indent}const ${oneAtATime} = (handler) => (...args) => {`,
    `${indent}${unit}const run = ${handling}.then(() => handler(...args))${typed ? ' as Promise<Awaited<R>>' : ''}${s}`,
    `${indent}${unit}${handling} = run.catch(() => undefined)${s}`,
    `${indent}${unit}return run${s}`,
    `${indent}}${s}`,
  ];
}

function getNeededCapabilities(methods: string[]): Capability[] {
  const out: Capability[] = [];
  for (const method of methods) {
    if (!isMcpRequestMethod(method)) continue;
    const capability = MCP_REQUESTS[method].capability;
    if (!out.includes(capability)) out.push(capability);
  }
  return out;
}

function buildImports(ctx: Ctx, style: CodeStyle, mod: ModuleUnit, names: Names): string {
  const s = semi(style);
  const q = (v: string) => quoted(style, v);
  const useImport = writesImports(ctx.moduleKind(mod), mod);
  const line = (list: string[], from: string): string => {
    if (useImport) return `import { ${list.join(', ')} } from ${q(from)}${s}`;
    // require() brings values; a type comes with `import type` (TypeScript only)
    const types = list.filter((n) => n.startsWith('type ')).map((n) => n.slice(5));
    const values = list.filter((n) => !n.startsWith('type ')).map(asDestructured);
    return [...(types.length > 0 ? [`import type { ${types.join(', ')} } from ${q(from)}${s}`] : []), ...(values.length > 0 ? [`const { ${values.join(', ')} } = require(${q(from)})${s}`] : [])].join(style.eol);
  };
  const lines: string[] = [];
  if (/\.cts$/i.test(mod.path)) return buildCtsImports(ctx, style, mod, names);
  for (const [list, from] of getSdkImports(ctx, names)) lines.push(line(list, from));
  void names;
  const eol = style.eol;
  return lines.join(eol) + eol + (hasTopImports(mod) ? '' : eol);
}

// import { createRequire } from 'node:module';
// const sdkRequire = createRequire(__filename);
// const { Server } = sdkRequire('@modelcontextprotocol/sdk/server/index.js') as typeof import('@modelcontextprotocol/sdk/server/index.js');
// tsx runs a .cts file through Node's ESM loader, whose require() cannot load the SDK's CommonJS build
// (its circular requires fail on Node 20); a require made with createRequire is Node's own.
function buildCtsImports(ctx: Ctx, style: CodeStyle, mod: ModuleUnit, names: Names): string {
  const s = semi(style);
  const q = (v: string) => quoted(style, v);
  const taken = new Set<string>();
  for (const scope of mod.index.scopes.values()) for (const name of scope.keys()) taken.add(name);
  const req = taken.has('sdkRequire') ? 'mcpSdkRequire' : 'sdkRequire';
  const load = (list: string[], from: string): string => `const { ${list.join(', ')} } = ${req}(${q(from)}) as typeof import(${q(from)})${s}`;
  const lines = [
    `import { createRequire } from ${q('node:module')}${s}`,
    `// tsx loads a .cts file through Node's ESM loader, whose require() cannot load the SDK's CommonJS build: use Node's own`,
    `const ${req} = createRequire(__filename)${s}`,
    ...getSdkImports(ctx, names).flatMap(([list, from]) => {
      // types are imported as types (erased); values come through Node's require
      const types = list.filter((n) => n.startsWith('type ')).map((n) => n.slice(5));
      const values = list.filter((n) => !n.startsWith('type ')).map(asDestructured);
      return [...(types.length > 0 ? [`import type { ${types.join(', ')} } from ${q(from)}${s}`] : []), ...(values.length > 0 ? [load(values, from)] : [])];
    }),
  ];
  return lines.join(style.eol) + style.eol + (hasTopImports(mod) ? '' : style.eol);
}

/**
 * What the rewrite imports, by module:
 *   v1: Server; StdioServerTransport; the request schemas it registers
 *   v2: Server (and ProtocolError when it throws one); serveStdio, which serves both protocol eras
 */
function getSdkImports(ctx: Ctx, local: Names): [string[], string][] {
  const target = SDK_TARGETS[ctx.sdk];
  const server = local.serverClass === 'Server' ? 'Server' : `Server as ${local.serverClass}`;
  if (ctx.sdk === 'v2') {
    const names = usesProtocolError(ctx) ? ['ProtocolError', server] : [server];
    if (isTypeScriptPath(ctx.shape.anchor.mod.path)) {
      const types = new Set(ctx.shape.registrations.map((m) => getResultTypeName(m)));
      if (ctx.shape.fallback) types.add(getResultTypeName(null));
      names.push(...[...types].sort().map((type) => `type ${type}`));
    }
    return [[names, target.serverModule], [['serveStdio'], target.stdioModule]];
  }
  const transport = local.transportClass === 'StdioServerTransport' ? 'StdioServerTransport' : `StdioServerTransport as ${local.transportClass}`;
  const out: [string[], string][] = [[[server], target.serverModule], [[transport], target.stdioModule]];
  const schemas: string[] = [
    ...ctx.shape.registrations.map((m) => MCP_REQUESTS[m as keyof typeof MCP_REQUESTS].schema),
    ...ctx.shape.notifications.filter(isMcpNotification).map((m) => MCP_NOTIFICATIONS[m].schema),
  ].sort();
  if (isTypeScriptPath(ctx.shape.anchor.mod.path)) schemas.push('type ServerResult');
  if (schemas.length > 0) out.push([schemas, target.typesModule!]);
  return out;
}

/** An import specifier as a destructuring property: `Server as SdkServer` -> `Server: SdkServer`. */
function asDestructured(specifier: string): string {
  return specifier.replace(' as ', ': ');
}


function usesProtocolError(ctx: Ctx): boolean {
  return ctx.shape.sites.some((s) => s.reply.kind === 'error' || s.reply.kind === 'error-held') || ctx.shape.noReplyEnds.length > 0;
}

/** The modules where an error reply becomes a thrown ProtocolError (v2). */
function getThrowingModules(ctx: Ctx): Set<ModuleUnit> {
  const mods = new Set<ModuleUnit>();
  for (const site of ctx.shape.sites) if (site.reply.kind === 'error' || (site.reply.kind === 'error-held' && site.reply.shape !== 'computed')) mods.add(site.mod);
  for (const end of ctx.shape.noReplyEnds) mods.add(end.mod);
  return mods;
}

/** Whether some scope of the module declares `name`. */
function declaresName(mod: ModuleUnit, name: string): boolean {
  for (const scope of mod.index.scopes.values()) if (scope.has(name)) return true;
  return false;
}

export { getMemberName };
