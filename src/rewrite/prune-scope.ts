// The scope model the prune counts references with (./prune.ts): every binding of a module with its
// references and writes, resolved as Babel's scope tracker resolves them, built once per parse.
import { t } from '../babel.js';
import { forEachChildWithTypes, getLine, isFunctionNode, isTypedChild } from '../analysis/ast.js';

/**
 * One binding as Babel's scope tracker saw it. `node` is what declares it (the declarator, function,
 * class, param, catch clause or import specifier); `references` are the reads (identifiers, and the
 * `export` declaration around an exported one), `writes` every assignment, `x++`, `delete x`,
 * `for (x of ...)` and redeclaration (`var x` twice).
 */
export interface ScopeBinding {
  kind: 'var' | 'let' | 'const' | 'hoisted' | 'param' | 'local' | 'module' | 'unknown';
  identifier: t.Identifier;
  node: t.Node;
  /** `node`'s parent and grandparent (a declarator's declaration and the statement list around it). */
  parent: t.Node | undefined;
  grandparent: t.Node | undefined;
  /** The scope the declaring statement is in (where a declarator's initializer reads its names). */
  scope: t.Node;
  references: t.Node[];
  /** The same nodes as `references`, to tell one already counted. */
  referenced?: Set<t.Node>;
  writes: t.Node[];
}

export interface ScopeModel {
  program: t.Program;
  /** Every node that opens a scope, in source order, with its bindings in declaration order. */
  scopes: Map<t.Node, Map<string, ScopeBinding>>;
  /** The scope around each scope (see getParentScope); the Program's is null. */
  outerScopes: Map<t.Node, t.Node | null>;
  /**
   * Each scope's owner chain: the names of the functions, classes and declarators around it and its own,
   * outermost first, joined by `>` (getOwnName).
   */
  owners: Map<t.Node, string>;
  /** The nodes scanClassMembers reads (declarators, member accesses, `#x in`, classes), in source order. */
  scanned: t.Node[];
  /** The scope each of `scanned` is in. */
  scannedScopes: t.Node[];
  /** The class `this` is an instance of where each of `scanned` is (see getThisClass). */
  scannedThis: (t.ClassDeclaration | t.ClassExpression | null)[];
  /** Every name some scope declares. */
  declared: Set<string>;
}

/**
 * Bindings, references and writes of a file, the way Babel's scope tracker counts them, in one walk.
 * Where that differs from analysis/ast's scopes, prune follows Babel (its rules were tuned on it):
 * 1. A function's top-level `let`/`function` share the function's scope with its params and `var`s,
 *    and a catch body's with the catch parameter; a second declaration of a name is a write of the first.
 * 2. Identifiers in type positions count as references (`x as T`, `type A = typeof x`, `Map<string, T>`,
 *    the name in `interface I { send(): void }`), except inside `: T` annotations; interfaces, type
 *    aliases, enums, namespaces, `declare class` and `constructor(private x)` declare no binding.
 * 3. A class declaration's own scope holds its name again (the same binding).
 * 4. `import type` specifiers are not `module` bindings.
 */
export function buildScopeModel(ast: t.File): ScopeModel {
  const model: ScopeModel = { program: ast.program, scopes: new Map(), outerScopes: new Map(), owners: new Map(), scanned: [], scannedScopes: [], scannedThis: [], declared: new Set() };
  // the identifiers (with parent, grandparent and scope), writes and exports (with scope) the walk saw:
  // Babel resolves them once every declaration is known (hoisting)
  const identifiers: (t.Identifier | t.JSXIdentifier)[] = [];
  const identifierParents: t.Node[] = [];
  const identifierGrandparents: (t.Node | undefined)[] = [];
  const identifierScopes: t.Node[] = [];
  const resolved: t.Node[] = [];
  const resolvedScopes: t.Node[] = [];
  // a pre-order walk in source order; each node on the stack with its parent's Around (null: the Program)
  const stack: t.Node[] = [ast.program];
  const arounds: (Around | null)[] = [null];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const around = arounds.pop()!;
    const parent = around?.node;
    // the scope a node is in: itself when it opens one, else its parent's; a method's key and decorators
    // are in the scope around the method, and so is a switch's discriminant (getScope only)
    const skipsMethod = around !== null && isKeyOrDecoratorOf(node, around.node) && t.isMethod(around.node);
    const skipsOwn = skipsMethod || (around !== null && around.node.type === 'SwitchStatement' && around.node.discriminant === node);
    let scope: t.Node;
    let outer: t.Node;
    if (t.isScope(node, parent as t.Node)) {
      model.scopes.set(node, new Map());
      model.outerScopes.set(node, around === null ? null : skipsMethod ? around.outerOfParent : around.outer);
      scope = outer = node;
    } else if (around === null) {
      scope = outer = node;
    } else {
      scope = skipsOwn ? around.scopeOfParent : around.scope;
      outer = skipsMethod ? around.outerOfParent : around.outer;
    }
    const own = getOwnName(node);
    const owner = own === null ? (around?.owner ?? '') : around === null || around.owner === '' ? own : `${around.owner}>${own}`;
    if (scope === node) model.owners.set(node, owner);
    declareAt(model, node, around, scope);
    switch (node.type) {
      case 'Identifier':
      case 'JSXIdentifier':
        identifiers.push(node);
        identifierParents.push(parent!);
        identifierGrandparents.push(around!.parent);
        identifierScopes.push(scope);
        break;
      case 'AssignmentExpression':
      case 'UpdateExpression':
      case 'ExportNamedDeclaration':
      case 'ExportDefaultDeclaration':
        resolved.push(node);
        resolvedScopes.push(scope);
        break;
      case 'UnaryExpression':
        if (node.operator === 'delete') {
          resolved.push(node);
          resolvedScopes.push(scope);
        }
        break;
      case 'ForInStatement':
      case 'ForOfStatement':
        if (t.isPattern(node.left) || t.isIdentifier(node.left)) {
          resolved.push(node);
          resolvedScopes.push(scope);
        }
        break;
      default:
        break;
    }
    switch (node.type) {
      case 'VariableDeclarator':
      case 'MemberExpression':
      case 'OptionalMemberExpression':
      case 'BinaryExpression':
      case 'ClassDeclaration':
      case 'ClassExpression':
        model.scanned.push(node);
        model.scannedScopes.push(scope);
        model.scannedThis.push(around?.thisClass ?? null);
        break;
      default:
        break;
    }
    // the children go on the stack last first, so they come off in source order
    const keys = t.VISITOR_KEYS[node.type];
    if (!keys) continue;
    let mine: Around | null = null;
    for (let k = keys.length - 1; k >= 0; k--) {
      const value = (node as unknown as Record<string, unknown>)[keys[k]!];
      if (typeof value !== 'object' || value === null) continue;
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) {
          const child: unknown = value[i];
          if (!isTypedChild(child)) continue;
          mine ??= newAround(node, around, scope, outer, owner);
          stack.push(child);
          arounds.push(mine);
        }
      } else if (isTypedChild(value)) {
        mine ??= newAround(node, around, scope, outer, owner);
        stack.push(value);
        arounds.push(mine);
      }
    }
  }
  for (let i = 0; i < resolved.length; i++) {
    const node = resolved[i]!;
    if (node.type === 'ExportNamedDeclaration' || node.type === 'ExportDefaultDeclaration') {
      // `export function send() {}`, `export const x = 1`: the export is a reference
      for (const name of getExportedDeclarationNames(node)) addReference(getBinding(model, resolvedScopes[i]!, name), node);
    } else {
      addWrite(model, node, resolvedScopes[i]!);
    }
  }
  for (let i = 0; i < identifiers.length; i++) {
    const id = identifiers[i]!;
    // (a name no scope declares resolves to nothing: a global, a property name)
    if (!model.declared.has(id.name) || !isBabelReference(id, identifierParents[i]!, identifierGrandparents[i])) continue;
    addReference(getBinding(model, identifierScopes[i]!, id.name), id);
  }
  return model;
}

/**
 * What the walk knows of a node whose children it visits: the node and its parent, the scope it is in
 * (itself when it opens one: getScope's answer, a switch's discriminant in the scope around the switch),
 * the same without the discriminant's rule (the walk of getParentScope), both for its parent, and its
 * owner chain.
 */
interface Around {
  node: t.Node;
  parent: t.Node | undefined;
  scope: t.Node;
  outer: t.Node;
  scopeOfParent: t.Node;
  outerOfParent: t.Node;
  owner: string;
  /** The class `this` is an instance of inside the node (null: not known). */
  thisClass: t.ClassDeclaration | t.ClassExpression | null;
}

/** The Around of a node whose children the walk visits (`around`: its parent's). */
function newAround(node: t.Node, around: Around | null, scope: t.Node, outer: t.Node, owner: string): Around {
  return { node, parent: around?.node, scope, outer, scopeOfParent: around?.scope ?? node, outerOfParent: around?.outer ?? node, owner, thisClass: getThisClass(node, around) };
}

/**
 * The class `this` is an instance of in the code inside `node` (`around`: its parent's): the class of an
 * instance method or field; none known in a function, object method, static member or at the top; an
 * arrow function and everything else keep their parent's.
 */
function getThisClass(node: t.Node, around: Around | null): t.ClassDeclaration | t.ClassExpression | null {
  switch (node.type) {
    case 'ClassMethod':
    case 'ClassPrivateMethod':
    case 'ClassProperty':
    case 'ClassPrivateProperty': {
      const cls = around?.parent;
      return !node.static && (cls?.type === 'ClassDeclaration' || cls?.type === 'ClassExpression') ? cls : null;
    }
    case 'FunctionDeclaration':
    case 'FunctionExpression':
    case 'ObjectMethod':
    case 'StaticBlock':
      return null;
    default:
      return around?.thisClass ?? null;
  }
}

/**
 * Each node's parent, for the few questions asked of references after the model is built (what exports
 * a writer); the walk itself keeps none (a 1 MB file has ~250,000 nodes).
 */
const parentsOf = new WeakMap<ScopeModel, Map<t.Node, t.Node>>();
export function getParents(model: ScopeModel): Map<t.Node, t.Node> {
  let parents = parentsOf.get(model);
  if (parents) return parents;
  parents = new Map();
  const stack: t.Node[] = [model.program];
  while (stack.length > 0) {
    const node = stack.pop()!;
    forEachChildWithTypes(node, (child) => {
      parents!.set(child, node);
      stack.push(child);
    });
  }
  parentsOf.set(model, parents);
  return parents;
}

function addReference(binding: ScopeBinding | null, node: t.Node): void {
  if (!binding) return;
  const references = binding.references;
  // a name used thousands of times: no scan of its references per reference (a few are scanned: a set
  // for each of a big file's tens of thousands of bindings costs more)
  if (binding.referenced === undefined && references.length < SCANNED_REFERENCES) {
    if (references.includes(node)) return;
  } else {
    binding.referenced ??= new Set(references);
    if (binding.referenced.has(node)) return;
    binding.referenced.add(node);
  }
  references.push(node);
}

const SCANNED_REFERENCES = 16;

function addWrite(model: ScopeModel, node: t.Node, scope: t.Node): void {
  for (const name of Object.keys(t.getAssignmentIdentifiers(node))) {
    const binding = getBinding(model, scope, name);
    if (binding && !binding.writes.includes(node)) binding.writes.push(node);
  }
}

function getExportedDeclarationNames(node: t.ExportNamedDeclaration | t.ExportDefaultDeclaration): string[] {
  const declaration = node.declaration;
  if (t.isClassDeclaration(declaration) || t.isFunctionDeclaration(declaration)) return declaration.id ? [declaration.id.name] : [];
  if (t.isVariableDeclaration(declaration)) return declaration.declarations.flatMap((d) => Object.keys(t.getBindingIdentifiers(d)));
  return [];
}

/** Babel's ReferencedIdentifier, without the right side of `A.B` in a type and the name in `import x = ...`. */
function isBabelReference(id: t.Identifier | t.JSXIdentifier, parent: t.Node, grandparent: t.Node | undefined): boolean {
  // `<div>` is an element, `<Tool>` and `<ui.Tool>` name bindings
  if (id.type === 'JSXIdentifier' && !t.isJSXMemberExpression(parent) && /^[a-z]/.test(id.name)) return false;
  if (!t.isReferenced(id, parent, grandparent)) return false;
  if (t.isTSQualifiedName(parent) && parent.right === id) return false;
  return !t.isTSImportEqualsDeclaration(parent);
}

/** Registers what `node` declares (`scope`: the scope it is in), in the scope Babel puts it (see buildScopeModel). */
function declareAt(model: ScopeModel, node: t.Node, around: Around | null, scope: t.Node): void {
  switch (node.type) {
    case 'ImportDeclaration': {
      const into = getBlockParent(model, scope);
      const typeOnly = node.importKind === 'type' || node.importKind === 'typeof';
      const site = childSiteOf(node, around, scope);
      for (const spec of node.specifiers) {
        const isType = typeOnly || (spec.type === 'ImportSpecifier' && (spec.importKind === 'type' || spec.importKind === 'typeof'));
        declareBinding(model, into, isType ? 'unknown' : 'module', site, spec);
      }
      break;
    }
    case 'TSImportEqualsDeclaration':
      declareBinding(model, getBlockParent(model, scope), 'unknown', siteOf(around, scope), node);
      break;
    case 'VariableDeclaration': {
      const into = node.kind === 'var' ? getFunctionParent(model, scope) : getBlockParent(model, scope);
      const kind = node.kind === 'var' ? 'var' : node.kind === 'let' ? 'let' : 'const';
      const site = childSiteOf(node, around, scope);
      for (const declarator of node.declarations) declareBinding(model, into, kind, site, declarator);
      break;
    }
    case 'FunctionDeclaration':
      if (node.id) declareBinding(model, getBlockParent(model, getParentScope(model, node)!), 'hoisted', siteOf(around, scope), node, node.id);
      break;
    case 'ClassDeclaration': {
      if (!node.id || node.declare) break;
      const outer = getParentScope(model, node)!;
      declareBinding(model, getBlockParent(model, outer), 'let', siteOf(around, scope), node, node.id);
      const binding = getBinding(model, outer, node.id.name);
      if (binding) model.scopes.get(node)!.set(node.id.name, binding);
      break;
    }
    case 'ClassExpression':
      if (node.id) declareBinding(model, node, 'local', siteOf(around, scope), node, node.id);
      break;
    case 'CatchClause':
      if (node.param) declareBinding(model, node, 'let', siteOf(around, scope), node, node.param);
      break;
    default:
      break;
  }
  if (isFunctionNode(node)) {
    const site = childSiteOf(node, around, scope);
    for (const param of node.params) declareBinding(model, node, 'param', site, param);
    if (node.type === 'FunctionExpression' && node.id) declareBinding(model, node, 'local', siteOf(around, scope), node, node.id);
  }
}

/** Where a declaring node sits (see ScopeBinding). */
interface Site {
  parent: t.Node | undefined;
  grandparent: t.Node | undefined;
  scope: t.Node;
}

/** The site of the node the walk is at (`around`: its parent's). */
function siteOf(around: Around | null, scope: t.Node): Site {
  return { parent: around?.node, grandparent: around?.parent, scope };
}

/** The site of a child of the node the walk is at: a declarator, an import specifier, a param. */
function childSiteOf(node: t.Node, around: Around | null, scope: t.Node): Site {
  return { parent: node, grandparent: around?.node, scope };
}

/** Babel's registerBinding: the first declaration of a name in a scope wins, later ones write it. */
function declareBinding(model: ScopeModel, scope: t.Node, kind: ScopeBinding['kind'], site: Site, node: t.Node, target: t.Node = node): void {
  const names = model.scopes.get(scope)!;
  // (a lone name, most declarations: what getBindingIdentifiers answers for it, without its walk)
  const lone = target.type === 'Identifier' ? target : target.type === 'VariableDeclarator' && target.id.type === 'Identifier' ? target.id : null;
  if (lone !== null) {
    declareName(model, names, kind, site, node, lone.name, lone);
    return;
  }
  for (const [name, list] of Object.entries(t.getBindingIdentifiers(target, true, true) as Record<string, t.Identifier[]>)) {
    for (const identifier of list) declareName(model, names, kind, site, node, name, identifier);
  }
}

function declareName(model: ScopeModel, names: Map<string, ScopeBinding>, kind: ScopeBinding['kind'], site: Site, node: t.Node, name: string, identifier: t.Identifier): void {
  const existing = names.get(name);
  if (existing?.identifier === identifier) return;
  if (!existing) {
    names.set(name, { kind, identifier, node, parent: site.parent, grandparent: site.grandparent, scope: site.scope, references: [], writes: [] });
    model.declared.add(name);
  } else if (!existing.writes.includes(node)) existing.writes.push(node);
}

function isKeyOrDecoratorOf(node: t.Node, parent: t.Node): boolean {
  const holder = parent as t.Node & { key?: t.Node; decorators?: t.Node[] | null };
  return holder.key === node || (holder.decorators?.includes(node) ?? false);
}

/** The scope around a scope; a method's key and decorators are skipped to the class. */
function getParentScope(model: ScopeModel, scope: t.Node): t.Node | null {
  return model.outerScopes.get(scope) ?? null;
}

/** The nearest scope that holds `let`/`function` declarations (not a class, not a parameter pattern). */
function getBlockParent(model: ScopeModel, scope: t.Node): t.Node {
  let current: t.Node | null = scope;
  while (current && !t.isBlockParent(current)) current = getParentScope(model, current);
  return current ?? scope;
}

/** The nearest function, static block or namespace body (where `var` lives), else the program. */
function getFunctionParent(model: ScopeModel, scope: t.Node): t.Node {
  let current: t.Node | null = scope;
  let last = scope;
  while (current && !t.isFunctionParent(current)) {
    last = current;
    current = getParentScope(model, current);
  }
  return current ?? last;
}

/**
 * Babel's getBinding: the nearest declaration of `name` seen from `scope`. From a parameter's default
 * value only params and the function's own name are seen in the function's scope; `arguments` stops
 * at the nearest non-arrow function.
 */
export function getBinding(model: ScopeModel, scope: t.Node, name: string): ScopeBinding | null {
  let previous: t.Node | null = null;
  for (let current: t.Node | null = scope; current; current = getParentScope(model, current)) {
    const binding = model.scopes.get(current)?.get(name);
    if (binding) {
      if (!(previous && t.isPattern(previous) && binding.kind !== 'param' && binding.kind !== 'local')) return binding;
    } else if (name === 'arguments' && t.isFunction(current) && !t.isArrowFunctionExpression(current)) {
      return null;
    }
    previous = current;
  }
  return null;
}

/** A node's own part of an owner chain (see ScopeModel.owners), or null: it adds none. */
export function getOwnName(node: t.Node): string | null {
  switch (node.type) {
    case 'FunctionDeclaration':
      return node.id ? node.id.name : `@${getLine(node)}`;
    case 'ClassDeclaration':
      return node.id ? node.id.name : null;
    case 'ClassMethod':
      return node.key.type === 'Identifier' ? node.key.name : `@${getLine(node)}`;
    case 'ClassPrivateMethod':
      return `#${node.key.id.name}`;
    case 'VariableDeclarator':
      return node.id.type === 'Identifier' ? node.id.name : null;
    case 'FunctionExpression':
    case 'ArrowFunctionExpression':
    case 'ObjectMethod':
      return `@${getLine(node)}`;
    default:
      return null;
  }
}
