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
import { buildIndex, type FunctionNode, getEnclosingFunction, getLine, getMemberName, isReferenceIdentifier, resolveIdentifier, unwrapExpression } from '../analysis/ast.js';
import { Program, type ModuleUnit } from '../analysis/program.js';
import { SDK_TARGETS } from '../model/sdk-targets.js';
import type { NoReplyEnd, ServerModel } from '../model/server-model.js';
import type { BlockerReason } from '../model/reasons.js';
import { renderSdkShape, type WrittenShape } from './sdk-code.js';
import type { ModuleKind, SdkTarget } from '../model/types.js';
import { parseSource, peekParse } from '../parse.js';
import { EditList } from './edits.js';
import { hasTopImports, insertAtImports, writesImports } from './imports.js';
import { removeUnreachableBreaks } from './unreachable.js';
import { forgetScopeModel, pruneUnusedDeclarations, removeExportedWriters } from './prune.js';
import { quoted, semi, type CodeStyle } from './style.js';
import { getLineIndent, getNodeRange, getRemovalRange } from './text.js';
import { isTypeScriptPath } from '../parse.js';
import { getBranchRemoval, buildThrow, getGuardedStatement, getIdentityThen, getReplyRange, buildReplyStatement } from './sdk-replies.js';
import { declaresName, pickNames, buildImports, getThrowingModules, buildServerSetup } from './sdk-server.js';
import { buildInlineHandler } from './sdk-inline.js';
import { getStyle, type Ctx } from './sdk-context.js';

export interface SdkRewrite {
  /** The new text of every module that changed (the entry included when it changed). */
  changes: Map<string, { before: string; after: string }>;
  notes: string[];
  fixes: string[];
}

/** `code`: the reason the plan is given when the shape's code cannot be written (else the output check's). */
export type SdkRewriteResult = SdkRewrite | { failed: string; line: number; code?: BlockerReason };


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


function overlaps(a: { start: number; end: number }, b: { start: number; end: number }): boolean {
  return a.start < b.end && b.start < a.end;
}

function isInsideEdit(ctx: Ctx, mod: ModuleUnit, node: t.Node): boolean {
  return ctx.edits.get(mod)?.touches(node.start!, node.end!) ?? false;
}
