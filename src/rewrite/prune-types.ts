// After the rewrite, for TypeScript: the module-level interfaces and type aliases that only removed code
// used (`interface RpcResponse` of a removed `send(msg: RpcResponse)`, `type Handler` of a removed loop)
// go too. prune.ts leaves types to this module: its binding model counts no `: T` annotation, where most
// type uses are. Conservative like it: only a type the original used, that is not exported or declared
// twice (merging), and whose name no value at the top level shares; a type the user left unused stays.
import { t } from '../babel.js';
import { parseSource } from '../parse.js';
import { EditList } from './edits.js';
import { getRemovalRange } from './text.js';

type TypeDeclaration = t.TSInterfaceDeclaration | t.TSTypeAliasDeclaration;

export function pruneUnusedTypes(path: string, original: t.File, rewritten: string): string {
  const before = getTypeUses(original);
  if (before.declared.size === 0) return rewritten;
  const after = getTypeUses(parseSource(path, rewritten));
  const dead = new Set<string>();
  // a type used only by another dead type goes with it (`RpcError` used only in `RpcResponse`)
  for (let changed = true; changed; ) {
    changed = false;
    for (const [name, declaration] of after.declared) {
      if (dead.has(name) || (before.uses.get(name)?.length ?? 0) === 0) continue;
      const live = (after.uses.get(name) ?? []).filter((use) => !isWithin(use, declaration) && ![...dead].some((d) => isWithin(use, after.declared.get(d)!)));
      if (live.length > 0) continue;
      dead.add(name);
      changed = true;
    }
  }
  if (dead.size === 0) return rewritten;
  const edits = new EditList();
  for (const name of dead) {
    const declaration = after.declared.get(name)!;
    const range = getRemovalRange(rewritten, declaration.start!, declaration.end!);
    edits.remove(range.start, range.end);
  }
  return edits.apply(rewritten);
}

/** Module-level type declarations (one per name, not exported, no value of that name) and every use of a type name. */
function getTypeUses(ast: t.File): { declared: Map<string, TypeDeclaration>; uses: Map<string, t.Node[]> } {
  const declared = new Map<string, TypeDeclaration>();
  const twice = new Set<string>();
  const values = new Set<string>();
  for (const statement of ast.program.body) {
    if (t.isTSInterfaceDeclaration(statement) || t.isTSTypeAliasDeclaration(statement)) {
      if (statement.declare === true) continue;
      const name = statement.id.name;
      if (declared.has(name)) twice.add(name);
      declared.set(name, statement);
    } else {
      const inner = t.isExportNamedDeclaration(statement) || t.isExportDefaultDeclaration(statement) ? statement.declaration : statement;
      if (inner === null || inner === undefined || t.isTSInterfaceDeclaration(inner) || t.isTSTypeAliasDeclaration(inner)) {
        // exported types are used elsewhere: never removed
        if (inner !== null && inner !== undefined && (t.isTSInterfaceDeclaration(inner) || t.isTSTypeAliasDeclaration(inner))) twice.add(inner.id.name);
        continue;
      }
      if (t.isStatement(inner) || t.isExpression(inner)) for (const name of Object.keys(t.getBindingIdentifiers(inner, false, true))) values.add(name);
    }
    // `export { RpcRequest }` / `export type { RpcRequest }`
    if (t.isExportNamedDeclaration(statement)) {
      for (const specifier of statement.specifiers) if (t.isExportSpecifier(specifier)) twice.add(specifier.local.name);
    }
  }
  for (const name of [...twice, ...values]) declared.delete(name);
  const uses = new Map<string, t.Node[]>();
  // uses are counted for the declared types only: none, no walk (every JavaScript file)
  if (declared.size === 0) return { declared, uses };
  const stack: t.Node[] = [ast.program];
  while (stack.length > 0) {
    const node = stack.pop()!;
    // `RpcRequest`, `RpcRequest<T>`, `ns.RpcRequest` is another module's; `interface A extends RpcRequest`
    const name = t.isTSTypeReference(node) && t.isIdentifier(node.typeName) ? node.typeName.name : t.isTSExpressionWithTypeArguments(node) && t.isIdentifier(node.expression) ? node.expression.name : null;
    if (name !== null && declared.has(name)) {
      const list = uses.get(name);
      if (list) list.push(node);
      else uses.set(name, [node]);
    }
    for (const key of t.VISITOR_KEYS[node.type] ?? []) {
      const value = (node as unknown as Record<string, unknown>)[key];
      for (const child of Array.isArray(value) ? value : [value]) if (isNode(child)) stack.push(child);
    }
  }
  return { declared, uses };
}

function isWithin(node: t.Node, outer: t.Node): boolean {
  return node.start! >= outer.start! && node.end! <= outer.end!;
}

function isNode(value: unknown): value is t.Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}
