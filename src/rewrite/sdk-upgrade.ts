// A server already on SDK v2 but wired the 2025 way (`await server.connect(new StdioServerTransport())`)
// speaks only the 2025 protocol era. Its upgrade hands the same server to `serveStdio`, which serves both
// eras and pins that one instance for the connection: the `connect` call becomes
// `serveStdio(() => server)`; a transport the code configures or reads elsewhere is handed on as
// `{ transport }`; the transport's declaration goes when nothing else reads it; the import names
// `serveStdio` (and keeps `StdioServerTransport` only where it is still used). Nothing else changes.
// The wiring is the analysis' own (analysis/sdk-wiring.ts); this module only writes edits.
import type * as t from '@babel/types';
import { unwrapExpression } from '../analysis/ast.js';
import type { ModuleUnit } from '../analysis/program.js';
import type { StdioConnection } from '../analysis/sdk-wiring.js';
import type { SinkCall } from '../analysis/facts.js';
import { EditList } from './edits.js';
import { addStdoutMoves, describeStdoutMoves } from './sdk-stdout.js';
import { getRemovalRange } from './text.js';

const SERVE = 'serveStdio';

export interface SdkUpgrade {
  /** Every module the upgrade changes (the connection's, and the entry's stdout writes). */
  changes: Map<string, { before: string; after: string }>;
  notes: string[];
  fixes: string[];
}

/** The upgrade of `connection` to `serveStdio`, with the entry's own stdout writes moved to stderr. */
export function rewriteSdkUpgrade(entry: ModuleUnit, sinks: SinkCall[], connection: StdioConnection): SdkUpgrade | { failed: string } {
  const edits = new Map<ModuleUnit, EditList>([[entry, new EditList()]]);
  const moved = addStdoutMoves(entry, sinks, edits.get(entry)!);
  if (!edits.has(connection.mod)) edits.set(connection.mod, new EditList());
  const failed = addSdkUpgradeEdits(connection, edits.get(connection.mod)!);
  if (failed !== null) return failed;
  const changes = new Map<string, { before: string; after: string }>();
  for (const [mod, list] of edits) if (list.size > 0) changes.set(mod.path, { before: mod.source, after: list.apply(mod.source) });
  const where = connection.mod === entry ? '' : ` (${connection.mod.path.split(/[\\/]/).pop()})`;
  return {
    changes,
    notes: [`upgraded to the 2026-07-28 era: \`${connection.mod.source.slice(connection.connect.start!, connection.connect.end!)}\`${where} becomes serveStdio, which pins this one server for the connection and serves 2025-era and 2026-07-28 clients`],
    fixes: ['clients of the 2026-07-28 revision (server/discover, a version in each request) reach the server; 2025-era clients are served as before', ...(moved > 0 ? [describeStdoutMoves(moved)] : [])],
  };
}

/** Adds the upgrade's edits to `edits` (the edits of `connection.mod`); a reason when it cannot be written. */
function addSdkUpgradeEdits(connection: StdioConnection, edits: EditList): { failed: string } | null {
  const { mod, transport, holder, connect, server, reference } = connection;
  if (reference.kind === 'name' && mod.index.identifiers.some((id) => id.name === SERVE)) return { failed: `\`${SERVE}\` already names something else in ${mod.path}` };
  const text = (node: t.Node): string => mod.source.slice(node.start!, node.end!);
  // the transport stays when it is configured (arguments), read elsewhere, or held in a member
  const dropsTransport = transport.arguments.length === 0 && connection.otherUses === 0 && (holder === null ? connection.passed === transport : holder.statement.declarations.length === 1);
  const serve = reference.kind === 'member' ? `${reference.object}.${SERVE}` : SERVE;
  const options = dropsTransport ? '' : `, { transport: ${text(connection.passed)} }`;
  let call = `${serve}(() => ${text(server)}${options})`;
  // `connect` returns a promise; `serveStdio` a handle: where the promise is used beyond being awaited or
  // dropped (`.then(...)`, returned, passed on), a resolved promise of the handle stands in
  const parent = mod.index.parent.get(connect);
  const awaitedOrDropped = parent?.type === 'ExpressionStatement' || parent?.type === 'AwaitExpression';
  if (!awaitedOrDropped) call = `Promise.resolve(${call})`;
  edits.replace(connect.start!, connect.end!, call);
  if (dropsTransport && holder !== null) {
    const range = getRemovalRange(mod.source, holder.statement.start!, holder.statement.end!);
    edits.remove(range.start, range.end);
  }
  if (reference.kind === 'name') return addServeImport(mod, reference.local, reference.declaration, dropsTransport ? transport : null, edits);
  return null;
}

/**
 * Names `serveStdio` where the transport class is imported or required from the same SDK module: the
 * class's specifier is replaced when the removed `new` was its only use, else `serveStdio` is added after it.
 */
function addServeImport(mod: ModuleUnit, local: string, declaration: t.ImportDeclaration | t.VariableDeclarator, removed: t.NewExpression | null, edits: EditList): { failed: string } | null {
  const specifier = findSpecifier(declaration, local);
  if (specifier === null) return { failed: `the import of StdioServerTransport in ${mod.path} has a form the upgrade does not edit` };
  // every other mention of the name, type positions included (read from the text: a mention in a comment
  // only keeps the import)
  const removedCallee = removed === null ? null : unwrapExpression(removed.callee);
  const skipped = [declaration, ...(removedCallee === null ? [] : [removedCallee])];
  const mentions = [...mod.source.matchAll(new RegExp(`(?<![\\w$])${local.replace(/\$/g, '\\$')}(?![\\w$])`, 'g'))];
  const otherUses = mentions.filter((m) => !skipped.some((node) => m.index >= node.start! && m.index < node.end!));
  if (otherUses.length === 0) edits.replace(specifier.start!, specifier.end!, SERVE);
  else edits.insert(specifier.end!, `, ${SERVE}`);
  return null;
}

/** The specifier (`StdioServerTransport`, `X as Y`) or destructured property that binds `local`. */
function findSpecifier(declaration: t.ImportDeclaration | t.VariableDeclarator, local: string): t.Node | null {
  if (declaration.type === 'ImportDeclaration') {
    return declaration.specifiers.find((s) => s.type === 'ImportSpecifier' && s.local.name === local) ?? null;
  }
  if (declaration.id.type !== 'ObjectPattern') return null;
  for (const property of declaration.id.properties) {
    if (property.type === 'ObjectProperty' && property.value.type === 'Identifier' && property.value.name === local) return property;
  }
  return null;
}
