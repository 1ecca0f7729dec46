// One pass over a Babel AST that the audit's checks share: parent links, the nodes they look at,
// and a small lexical scope model (which declaration an identifier refers to).
// Read-only: nothing here changes the AST. It deliberately does not use @babel/traverse: its global
// path cache would be shared with the rewriter, and the audit must not throw on any input.
import type * as t from '@babel/types';
import { t as babelTypes } from '../babel.js';

const { VISITOR_KEYS, isReferenced } = babelTypes;

export type FunctionNode =
  | t.FunctionDeclaration
  | t.FunctionExpression
  | t.ArrowFunctionExpression
  | t.ObjectMethod
  | t.ClassMethod
  | t.ClassPrivateMethod;

/** One step of a destructuring pattern: the property key (or array index) a name is taken from. */
export type PatternStep = string | number | null;

export type Binding =
  | { kind: 'var' | 'let' | 'const'; name: string; declarator: t.VariableDeclarator; pattern: PatternStep[] }
  | { kind: 'param'; name: string; fn: FunctionNode; index: number; pattern: PatternStep[]; rest: boolean }
  | { kind: 'function'; name: string; fn: t.FunctionDeclaration }
  | { kind: 'class'; name: string; node: t.ClassDeclaration | t.ClassExpression }
  | { kind: 'enum'; name: string; node: t.TSEnumDeclaration | t.TSModuleDeclaration }
  | { kind: 'import'; name: string; source: string; imported: string }
  | { kind: 'catch'; name: string; clause: t.CatchClause }
  | { kind: 'function-name'; name: string; fn: t.FunctionExpression };

/**
 * The parent of each node, read from the index's document order (one map for both, not two): what a
 * Map of child to parent would answer, iterated in the order such a map would have been filled
 * (the children of each node in turn, nodes in document order).
 */
export class ParentLinks {
  constructor(private readonly index: { readonly nodes: readonly t.Node[]; readonly order: ReadonlyMap<t.Node, number>; readonly parentAt: ArrayLike<number> }) {}

  get(node: t.Node): t.Node | undefined {
    const at = this.index.order.get(node);
    if (at === undefined) return undefined;
    const p = this.index.parentAt[at]!;
    return p >= 0 ? this.index.nodes[p] : undefined;
  }

  has(node: t.Node): boolean {
    const at = this.index.order.get(node);
    return at !== undefined && this.index.parentAt[at]! >= 0;
  }

  /** The nodes in the order a Map of child to parent would iterate them (see linked). */
  keys(): IterableIterator<t.Node> {
    return this.getLinked().nodes.values();
  }

  *[Symbol.iterator](): IterableIterator<[t.Node, t.Node]> {
    const { nodes, parents } = this.getLinked();
    for (let i = 0; i < nodes.length; i++) yield [nodes[i]!, parents[i]!];
  }

  /** Every node with a parent and that parent, in the iteration order; worked out once (a 1 MB file: ~250,000). */
  private linked: { nodes: t.Node[]; parents: t.Node[] } | null = null;

  private getLinked(): { nodes: t.Node[]; parents: t.Node[] } {
    if (this.linked !== null) return this.linked;
    const { nodes, parentAt, order } = this.index;
    // children grouped by parent, parents in document order, siblings in document order: a counting sort
    const n = nodes.length;
    const start = new Int32Array(n + 1);
    for (let i = 1; i < n; i++) start[parentAt[i]! + 1]!++;
    for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
    const sorted = new Int32Array(Math.max(0, n - 1));
    // (positions 1..n-1: the Program has no parent)
    const next = start.slice(0, n);
    for (let i = 1; i < n; i++) sorted[next[parentAt[i]!]!++] = i;
    const linked = { nodes: [] as t.Node[], parents: [] as t.Node[] };
    // a node object reached twice is listed once, under the parent it was reached through last
    const reachedTwice = order.size < n;
    for (const i of sorted) {
      const node = nodes[i]!;
      if (reachedTwice && order.get(node) !== i) continue;
      linked.nodes.push(node);
      linked.parents.push(nodes[parentAt[i]!]!);
    }
    this.linked = linked;
    return linked;
  }
}

export interface AstIndex {
  program: t.Program;
  source: string;
  parent: ParentLinks;
  calls: t.CallExpression[];
  news: t.NewExpression[];
  members: t.MemberExpression[];
  functions: FunctionNode[];
  assignments: t.AssignmentExpression[];
  updates: t.UpdateExpression[];
  loopsOverTargets: (t.ForOfStatement | t.ForInStatement)[];
  objects: t.ObjectExpression[];
  ifs: t.IfStatement[];
  switches: t.SwitchStatement[];
  returns: t.ReturnStatement[];
  throws: t.ThrowStatement[];
  identifiers: t.Identifier[];
  stringValues: Set<string>;
  /** Declarations by the node that scopes them (Program, a block, a function for its params, ...). */
  scopes: Map<t.Node, Map<string, Binding>>;
  /** Every node in document order (the order of the walk: a node before its children). */
  nodes: t.Node[];
  /** A node's position in `nodes`. */
  order: Map<t.Node, number>;
  /** The position of each node's parent (-1 for the Program). */
  parentAt: Int32Array;
}

// Keys that hold TypeScript types only: no value flows through them, so the walk skips them.
const TYPE_KEYS = new Set(['typeAnnotation', 'returnType', 'typeParameters', 'superTypeParameters', 'typeArguments', 'implements', 'predicate']);

export function isFunctionNode(node: t.Node): node is FunctionNode {
  switch (node.type) {
    case 'FunctionDeclaration':
    case 'FunctionExpression':
    case 'ArrowFunctionExpression':
    case 'ObjectMethod':
    case 'ClassMethod':
    case 'ClassPrivateMethod':
      return true;
    default:
      return false;
  }
}

/** Each node type's visitor keys without TYPE_KEYS, worked out on first use. */
const valueKeys = new Map<string, readonly string[]>();
function getValueKeys(type: string): readonly string[] | undefined {
  let keys = valueKeys.get(type);
  if (keys === undefined) {
    const all = VISITOR_KEYS[type];
    if (!all) return undefined;
    valueKeys.set(type, (keys = all.filter((key) => !TYPE_KEYS.has(key))));
  }
  return keys;
}

/** Calls `visit(child)` for each AST child of `node`, skipping type annotations. */
export function forEachChild(node: t.Node, visit: (child: t.Node) => void): void {
  const keys = getValueKeys(node.type);
  if (!keys) return;
  for (const key of keys) {
    const value = (node as unknown as Record<string, unknown>)[key];
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) visit(item);
    } else if (isNode(value)) {
      visit(value);
    }
  }
}

/**
 * Calls `visit(child)` for each AST child of `node`, type positions included, except `: T` annotations
 * (TSTypeAnnotation nodes): the children Babel's own scope crawl visits. There `x as T`,
 * `type A = typeof x`, `new Map<string, T>()` and `interface I { send(): void }` name a binding,
 * while `const x: T` does not.
 */
export function forEachChildWithTypes(node: t.Node, visit: (child: t.Node) => void): void {
  const keys = VISITOR_KEYS[node.type];
  if (!keys) return;
  for (const key of keys) {
    const value = (node as unknown as Record<string, unknown>)[key];
    if (Array.isArray(value)) {
      for (const item of value) if (isTypedChild(item)) visit(item);
    } else if (isTypedChild(value)) {
      visit(value);
    }
  }
}

/** A child forEachChildWithTypes visits: a node, except a `: T` annotation. */
export function isTypedChild(value: unknown): value is t.Node {
  return isNode(value) && value.type !== 'TSTypeAnnotation';
}

function isNode(value: unknown): value is t.Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/**
 * Each tree's index: a tree is parsed once per text and never changed, so its index never goes stale (the
 * prune moves statements of the original's tree for the time of one call, nothing else running: movePositions).
 */
const indexes = new WeakMap<t.File, AstIndex>();

/** The index of a tree, built once (the rewrite's checks ask again for trees the analysis indexed). */
export function buildIndex(file: t.File, source: string): AstIndex {
  const known = indexes.get(file);
  if (known && known.source === source) return known;
  const index = indexTree(file, source);
  indexes.set(file, index);
  return index;
}

/** Builds the index in one iterative walk (no recursion: minified code nests deeply). */
function indexTree(file: t.File, source: string): AstIndex {
  const index: AstIndex = {
    program: file.program,
    source,
    parent: null as unknown as ParentLinks,
    calls: [],
    news: [],
    members: [],
    functions: [],
    assignments: [],
    updates: [],
    loopsOverTargets: [],
    objects: [],
    ifs: [],
    switches: [],
    returns: [],
    throws: [],
    identifiers: [],
    stringValues: new Set(),
    scopes: new Map(),
    nodes: [],
    order: new Map(),
    parentAt: new Int32Array(0),
  };
  // the parents of the nodes walked so far: collect() reads them (a declaration's scope) before the walk ends
  const parentAt: number[] = [];
  index.parent = new ParentLinks({ nodes: index.nodes, order: index.order, parentAt });
  const stack: t.Node[] = [file.program];
  const parents: number[] = [-1];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const at = index.nodes.length;
    index.nodes.push(node);
    index.order.set(node, at);
    parentAt.push(parents.pop()!);
    collect(index, node);
    // the children (forEachChild's) go on the stack last first, so they come off in source order
    const keys = getValueKeys(node.type);
    if (!keys) continue;
    for (let k = keys.length - 1; k >= 0; k--) {
      const value = (node as unknown as Record<string, unknown>)[keys[k]!];
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) {
          const item: unknown = value[i];
          if (!isNode(item)) continue;
          stack.push(item);
          parents.push(at);
        }
      } else if (isNode(value)) {
        stack.push(value);
        parents.push(at);
      }
    }
  }
  index.parentAt = Int32Array.from(parentAt);
  index.parent = new ParentLinks(index);
  return index;
}

/**
 * What the queries about a node's surroundings read, derived from the walk once per index (on first use,
 * when every declaration is in): for each node by its position, where its subtree ends, and the position
 * of its nearest enclosing function, class, `this` scope and declaring scope. Each query is then one
 * lookup instead of a walk up the parent links.
 */
interface Layout {
  /** The last position inside each node's subtree. */
  end: Int32Array;
  /** The nearest function strictly above (-1: none). */
  fn: Int32Array;
  /** The nearest class declaration or expression strictly above (-1: none). */
  cls: Int32Array;
  /** The nearest non-arrow function, class field or static block strictly above (-1: none). */
  thisScope: Int32Array;
  /** The node itself or its nearest ancestor that declares names (-1: none). */
  scope: Int32Array;
}

const layouts = new WeakMap<AstIndex, Layout>();

function getLayout(index: AstIndex): Layout {
  let layout = layouts.get(index);
  if (layout) return layout;
  const n = index.nodes.length;
  const parentAt = index.parentAt;
  const end = new Int32Array(n);
  const fn = new Int32Array(n);
  const cls = new Int32Array(n);
  const thisScope = new Int32Array(n);
  const scope = new Int32Array(n);
  // the positions of the nodes that scope declarations (a lookup per scope, not per node; a node object
  // reached twice has two positions, which only the lookup per node finds)
  const opens = new Uint8Array(n);
  if (index.order.size === n) {
    for (const node of index.scopes.keys()) {
      const at = index.order.get(node);
      if (at !== undefined) opens[at] = 1;
    }
  } else {
    for (let i = 0; i < n; i++) if (index.scopes.has(index.nodes[i]!)) opens[i] = 1;
  }
  for (let i = 0; i < n; i++) {
    const p = parentAt[i]!;
    end[i] = i;
    scope[i] = opens[i] === 1 ? i : p >= 0 ? scope[p]! : -1;
    if (p < 0) {
      fn[i] = cls[i] = thisScope[i] = -1;
      continue;
    }
    const parent = index.nodes[p]!;
    const isFn = isFunctionNode(parent);
    fn[i] = isFn ? p : fn[p]!;
    cls[i] = parent.type === 'ClassDeclaration' || parent.type === 'ClassExpression' ? p : cls[p]!;
    const ownsThis = (isFn && parent.type !== 'ArrowFunctionExpression') || parent.type === 'ClassProperty' || parent.type === 'ClassPrivateProperty' || parent.type === 'StaticBlock';
    thisScope[i] = ownsThis ? p : thisScope[p]!;
  }
  // a subtree is contiguous in document order: it ends where its last descendant is
  for (let i = n - 1; i > 0; i--) {
    const p = parentAt[i]!;
    if (end[i]! > end[p]!) end[p] = end[i]!;
  }
  layout = { end, fn, cls, thisScope, scope };
  layouts.set(index, layout);
  return layout;
}

/** Whether `node` lies inside `ancestor` (strictly: a node is not inside itself). */
export function isInside(index: AstIndex, node: t.Node, ancestor: t.Node): boolean {
  const at = index.order.get(node);
  const outer = index.order.get(ancestor);
  if (at === undefined || outer === undefined) return false;
  return at > outer && at <= getLayout(index).end[outer]!;
}

/** The positions in document order of the nodes of `list` (a list of the index, itself in document order) that lie inside `ancestor`: a slice, found by binary search. */
export function sliceInside<T extends t.Node>(index: AstIndex, list: readonly T[], ancestor: t.Node): T[] {
  const outer = index.order.get(ancestor);
  if (outer === undefined) return [];
  const last = getLayout(index).end[outer]!;
  const first = lowerBound(index, list, outer + 1);
  const stop = lowerBound(index, list, last + 1);
  return list.slice(first, stop);
}

/** The first position in `list` whose node comes at or after document position `at`. */
function lowerBound(index: AstIndex, list: readonly t.Node[], at: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (index.order.get(list[mid]!)! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function collect(index: AstIndex, node: t.Node): void {
  switch (node.type) {
    case 'CallExpression':
      index.calls.push(node);
      break;
    case 'NewExpression':
      index.news.push(node);
      break;
    case 'MemberExpression':
      index.members.push(node);
      break;
    case 'AssignmentExpression':
      index.assignments.push(node);
      break;
    case 'UpdateExpression':
      index.updates.push(node);
      break;
    case 'ForOfStatement':
    case 'ForInStatement':
      index.loopsOverTargets.push(node);
      break;
    case 'ObjectExpression':
      index.objects.push(node);
      break;
    case 'IfStatement':
      index.ifs.push(node);
      break;
    case 'SwitchStatement':
      index.switches.push(node);
      break;
    case 'ReturnStatement':
      index.returns.push(node);
      break;
    case 'ThrowStatement':
      index.throws.push(node);
      break;
    case 'Identifier':
      index.identifiers.push(node);
      break;
    case 'StringLiteral':
      index.stringValues.add(node.value);
      break;
    case 'VariableDeclaration':
      declareVariables(index, node);
      break;
    case 'FunctionDeclaration':
      if (node.id) declare(index, getBlockScope(index, node), { kind: 'function', name: node.id.name, fn: node });
      break;
    case 'ClassDeclaration':
      if (node.id) declare(index, getBlockScope(index, node), { kind: 'class', name: node.id.name, node });
      break;
    case 'ClassExpression':
      if (node.id) declare(index, node, { kind: 'class', name: node.id.name, node });
      break;
    case 'TSEnumDeclaration':
      declare(index, getBlockScope(index, node), { kind: 'enum', name: node.id.name, node });
      break;
    case 'TSModuleDeclaration':
      if (node.id.type === 'Identifier') declare(index, getBlockScope(index, node), { kind: 'enum', name: node.id.name, node });
      break;
    case 'CatchClause':
      if (node.param) {
        for (const { name } of getPatternNames(node.param)) declare(index, node, { kind: 'catch', name, clause: node });
      }
      break;
    case 'TSImportEqualsDeclaration':
      // import readline = require('readline')
      if (node.moduleReference.type === 'TSExternalModuleReference') {
        declare(index, index.program, { kind: 'import', name: node.id.name, source: node.moduleReference.expression.value, imported: '*' });
      }
      break;
    case 'ImportDeclaration':
      for (const spec of node.specifiers) {
        const imported =
          spec.type === 'ImportSpecifier'
            ? spec.imported.type === 'Identifier'
              ? spec.imported.name
              : spec.imported.value
            : spec.type === 'ImportDefaultSpecifier'
              ? 'default'
              : '*';
        declare(index, index.program, { kind: 'import', name: spec.local.name, source: node.source.value, imported });
      }
      break;
    default:
      break;
  }
  if (isFunctionNode(node)) {
    index.functions.push(node);
    node.params.forEach((param, i) => {
      const rest = param.type === 'RestElement';
      for (const { name, pattern } of getPatternNames(param)) {
        declare(index, node, { kind: 'param', name, fn: node, index: i, pattern, rest });
      }
    });
    if (node.type === 'FunctionExpression' && node.id) {
      declare(index, node, { kind: 'function-name', name: node.id.name, fn: node });
    }
  }
}

function declare(index: AstIndex, scope: t.Node, binding: Binding): void {
  let names = index.scopes.get(scope);
  if (!names) {
    names = new Map();
    index.scopes.set(scope, names);
  }
  // First declaration wins (a `var` declared twice is one binding).
  if (!names.has(binding.name)) names.set(binding.name, binding);
}

function declareVariables(index: AstIndex, node: t.VariableDeclaration): void {
  const kind = node.kind === 'var' ? 'var' : node.kind === 'let' ? 'let' : 'const';
  const scope = kind === 'var' ? getFunctionScope(index, node) : getBlockScope(index, node);
  for (const declarator of node.declarations) {
    for (const { name, pattern } of getPatternNames(declarator.id)) {
      declare(index, scope, { kind, name, declarator, pattern });
    }
  }
}

function isBlockScope(node: t.Node): boolean {
  switch (node.type) {
    case 'Program':
    case 'BlockStatement':
    case 'StaticBlock':
    case 'ForStatement':
    case 'ForInStatement':
    case 'ForOfStatement':
    case 'SwitchStatement':
    case 'TSModuleBlock':
      return true;
    default:
      return isFunctionNode(node);
  }
}

function getBlockScope(index: AstIndex, node: t.Node): t.Node {
  let current = index.parent.get(node);
  while (current && !isBlockScope(current)) current = index.parent.get(current);
  return current ?? index.program;
}

function getFunctionScope(index: AstIndex, node: t.Node): t.Node {
  let current = index.parent.get(node);
  while (current && current.type !== 'Program' && current.type !== 'StaticBlock' && !isFunctionNode(current)) {
    current = index.parent.get(current);
  }
  return current ?? index.program;
}

/** The names a binding pattern declares, each with the destructuring path it is read from. */
export function getPatternNames(pattern: t.Node, prefix: PatternStep[] = []): { name: string; pattern: PatternStep[] }[] {
  const out: { name: string; pattern: PatternStep[] }[] = [];
  const stack: { node: t.Node; path: PatternStep[] }[] = [{ node: pattern, path: prefix }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    switch (node.type) {
      case 'Identifier':
        out.push({ name: node.name, pattern: path });
        break;
      case 'AssignmentPattern':
        stack.push({ node: node.left, path });
        break;
      case 'RestElement':
        stack.push({ node: node.argument, path: [...path, null] });
        break;
      case 'TSParameterProperty':
        stack.push({ node: node.parameter, path });
        break;
      case 'ArrayPattern':
        node.elements.forEach((el, i) => {
          if (el) stack.push({ node: el, path: [...path, i] });
        });
        break;
      case 'ObjectPattern':
        for (const prop of node.properties) {
          if (prop.type === 'RestElement') stack.push({ node: prop.argument, path: [...path, null] });
          else stack.push({ node: prop.value, path: [...path, getStaticKey(prop)] });
        }
        break;
      default:
        break;
    }
  }
  return out;
}

/** The static name of a property key (`a`, `'a'`, `['a']`), or null when computed. */
export function getStaticKey(prop: { key: t.Node; computed?: boolean }): string | null {
  const key = prop.key;
  if (!prop.computed && key.type === 'Identifier') return key.name;
  if (key.type === 'StringLiteral') return key.value;
  if (key.type === 'NumericLiteral') return String(key.value);
  if (key.type === 'TemplateLiteral' && key.expressions.length === 0) return key.quasis[0]?.value.cooked ?? null;
  return null;
}

/** The static property name of `a.b` / `a['b']`, or null. */
export function getMemberName(node: t.MemberExpression | t.OptionalMemberExpression): string | null {
  if (!node.computed && node.property.type === 'Identifier') return node.property.name;
  if (node.property.type === 'StringLiteral') return node.property.value;
  // `this.#onLine`: named as the class declares it (`#onLine`, the key of its private members)
  if (node.property.type === 'PrivateName') return `#${node.property.id.name}`;
  return null;
}

/** Which declaration `name`, referenced at `node`, resolves to; null for globals. */
export function resolveName(index: AstIndex, node: t.Node, name: string): Binding | null {
  const at = index.order.get(node);
  if (at === undefined) {
    // a node outside the index's tree: only its own declarations, if any, can name it
    return index.scopes.get(node)?.get(name) ?? null;
  }
  const { scope } = getLayout(index);
  // from the nearest declaring node up through the declaring nodes above it
  for (let s = scope[at]!; s >= 0; ) {
    const found = index.scopes.get(index.nodes[s]!)!.get(name);
    if (found) return found;
    const p = index.parentAt[s]!;
    s = p >= 0 ? scope[p]! : -1;
  }
  return null;
}

export function resolveIdentifier(index: AstIndex, id: t.Identifier): Binding | null {
  return resolveName(index, id, id.name);
}

/**
 * The variable a value is stored in, `x` of `const x = <value>` or `x = <value>` (through parentheses and
 * TypeScript's `as`, `!` and `<T>`), or null.
 */
export function getStoredIn(index: AstIndex, value: t.Node): t.Identifier | null {
  let node: t.Node = value;
  let parent = index.parent.get(node);
  while (parent && (parent.type === 'TSAsExpression' || parent.type === 'ParenthesizedExpression' || parent.type === 'TSNonNullExpression' || parent.type === 'TSTypeAssertion')) {
    node = parent;
    parent = index.parent.get(node);
  }
  if (parent?.type === 'VariableDeclarator' && parent.init === node && parent.id.type === 'Identifier') return parent.id;
  if (parent?.type === 'AssignmentExpression' && parent.right === node && parent.left.type === 'Identifier') return parent.left;
  return null;
}

/** Strips parentheses, TypeScript casts and non-null assertions: `(x as T)!` -> `x`. */
export function unwrapExpression(node: t.Node): t.Node {
  let current = node;
  for (;;) {
    switch (current.type) {
      case 'ParenthesizedExpression':
      case 'TSAsExpression':
      case 'TSSatisfiesExpression':
      case 'TSNonNullExpression':
      case 'TSTypeAssertion':
      case 'TypeCastExpression':
      case 'TSInstantiationExpression':
        current = current.expression;
        break;
      default:
        return current;
    }
  }
}

/** The nearest ancestor of `node` that is a function, or null at the top level. */
export function getEnclosingFunction(index: AstIndex, node: t.Node): FunctionNode | null {
  const at = index.order.get(node);
  if (at === undefined) return null;
  const fn = getLayout(index).fn[at]!;
  return fn >= 0 ? (index.nodes[fn] as FunctionNode) : null;
}


/**
 * Where a node starts, kept small. Babel gives every node a `loc` of three objects (~130 bytes; a 1 MB
 * file's ~250,000 nodes carry ~33 MB of them, half its tree, and a rewrite holds two or three such trees
 * at once), of which this code reads one number: the start line. Every tree parseSource gives out has
 * that line in its place (compactPositions: `node.loc` becomes the number). getLine reads either form
 * (a tree parsed elsewhere keeps Babel's), and nothing else reads `loc` (test/positions.test.ts holds
 * the sources to that); getColumn works the column out from the text.
 */
export function getLine(node: t.Node, fallback = 0): number {
  const loc = (node as { loc?: unknown }).loc;
  if (typeof loc === 'number') return loc;
  return (loc as t.SourceLocation | null | undefined)?.start.line ?? fallback;
}

/** Replaces the `loc` of every node of a tree (type annotations too) by its start line (see getLine). */
export function compactPositions(file: t.File): void {
  forEachNode(file.program, (node) => {
    const loc = node.loc;
    if (typeof loc === 'object' && loc !== null) (node as unknown as { loc: number }).loc = loc.start.line;
  });
}

/**
 * Moves every node of a subtree by `delta` characters and `lines` lines (rewrite/edited-tree.ts moves
 * statements of a tree to where an edited text has them, and back): offsets and the compact start line.
 */
export function movePositions(root: t.Node, delta: number, lines: number): void {
  forEachNode(root, (node) => {
    node.start! += delta;
    node.end! += delta;
    if (typeof node.loc === 'number') (node as unknown as { loc: number }).loc += lines;
  });
}

/** Every node of a subtree, type annotations too, each once (a loop: trees are as deep as their code). */
function forEachNode(root: t.Node, visit: (node: t.Node) => void): void {
  const stack: t.Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    visit(node);
    const keys = VISITOR_KEYS[node.type];
    if (!keys) continue;
    for (let k = 0; k < keys.length; k++) {
      const value = (node as unknown as Record<string, unknown>)[keys[k]!];
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (isNode(value[i])) stack.push(value[i] as t.Node);
      } else if (isNode(value)) {
        stack.push(value);
      }
    }
  }
}

/** The 1-based column of a node's start in `source`: past the last line break before it (Babel's four: \n, \r, U+2028, U+2029). */
export function getColumn(source: string, node: t.Node): number {
  const start = node.start!;
  let at = start - 1;
  while (at >= 0) {
    const code = source.charCodeAt(at);
    if (code === 10 || code === 13 || code === 0x2028 || code === 0x2029) break;
    at--;
  }
  return start - at;
}

/** `a.b.c` for a chain of static member accesses on an identifier, else null. */
export function getMemberPath(node: t.Node): string | null {
  const parts: string[] = [];
  let current = unwrapExpression(node);
  for (;;) {
    if (current.type === 'Identifier') {
      parts.unshift(current.name);
      return parts.join('.');
    }
    if (current.type === 'ThisExpression') {
      parts.unshift('this');
      return parts.join('.');
    }
    if (current.type !== 'MemberExpression' && current.type !== 'OptionalMemberExpression') return null;
    const name = getMemberName(current);
    if (name === null) return null;
    parts.unshift(name);
    current = unwrapExpression(current.object);
  }
}

/** A code span for messages: backticks around text, with a fence longer than any backtick run inside. */
export function code(text: string): string {
  const runs = text.match(/`+/g) ?? [];
  const fence = '`'.repeat(Math.max(0, ...runs.map((r) => r.length)) + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** The value of a numeric literal, `-1` and `+1` included; null otherwise. */
export function getNumericValue(node: t.Node): number | null {
  const expr = unwrapExpression(node);
  if (expr.type === 'NumericLiteral') return expr.value;
  if (expr.type === 'UnaryExpression' && (expr.operator === '-' || expr.operator === '+')) {
    const inner = unwrapExpression(expr.argument);
    if (inner.type === 'NumericLiteral') return expr.operator === '-' ? -inner.value : inner.value;
  }
  return null;
}

/** A string known statically: `'a'`, `"a"`, a template literal without expressions. */
export function getStringValue(node: t.Node): string | null {
  const expr = unwrapExpression(node);
  if (expr.type === 'StringLiteral') return expr.value;
  if (expr.type === 'TemplateLiteral' && expr.expressions.length === 0) return expr.quasis[0]?.value.cooked ?? null;
  return null;
}

/** The function whose `this` a node sees: the nearest enclosing non-arrow function (or class field initializer's class). */
export function getThisScope(index: AstIndex, node: t.Node): t.Node | null {
  const at = index.order.get(node);
  if (at === undefined) return null;
  const scope = getLayout(index).thisScope[at]!;
  return scope >= 0 ? index.nodes[scope]! : null;
}

/** The class a method, field or node inside them belongs to (the nearest enclosing class body). */
export function getEnclosingClass(index: AstIndex, node: t.Node): t.ClassDeclaration | t.ClassExpression | null {
  const at = index.order.get(node);
  if (at === undefined) return null;
  const cls = getLayout(index).cls[at]!;
  return cls >= 0 ? (index.nodes[cls] as t.ClassDeclaration | t.ClassExpression) : null;
}

/** `module.exports` (also `module['exports']`). */
export function isModuleExports(node: t.Node): boolean {
  return node.type === 'MemberExpression' && node.object.type === 'Identifier' && node.object.name === 'module' && getMemberName(node) === 'exports';
}

/** The catch clause of the `try` around `node` in its own function, or null. */
export function getCatchClause(index: AstIndex, node: t.Node): t.CatchClause | null {
  let current = node;
  for (let parent = index.parent.get(current); parent && !isFunctionNode(parent); current = parent, parent = index.parent.get(current)) {
    if (parent.type === 'TryStatement' && parent.block === current && parent.handler) return parent.handler;
  }
  return null;
}

/** Whether `id` is read as a value here (Babel's own reference test, over the parent links of the index). */
export function isReferenceIdentifier(index: AstIndex, id: t.Identifier): boolean {
  const parent = index.parent.get(id);
  if (!parent) return false;
  if (parent.type === 'ObjectProperty' && parent.shorthand && parent.value === id) {
    // `{ id }` in an object literal reads id; in a pattern it declares it
    const holder = index.parent.get(parent);
    return holder?.type === 'ObjectExpression';
  }
  return isReferenced(id, parent, index.parent.get(parent));
}

/**
 * Every place that writes a binding after its declaration: `x = ...`, `x += ...`, `x++`, `for (x of ...)`,
 * and destructuring assignments. Computed once per index.
 */
export function getBindingWrites(index: AstIndex, binding: Binding): t.Node[] {
  let writes = bindingWrites.get(index);
  if (!writes) {
    writes = new Map();
    bindingWrites.set(index, writes);
    const add = (target: t.Node, site: t.Node): void => {
      for (const { name } of getPatternNames(target)) {
        const id = findPatternIdentifier(target, name);
        if (!id) continue;
        const found = resolveName(index, id, name);
        if (!found) continue;
        const list = writes!.get(found) ?? [];
        list.push(site);
        writes!.set(found, list);
      }
    };
    for (const assignment of index.assignments) add(assignment.left, assignment);
    for (const update of index.updates) if (update.argument.type === 'Identifier') add(update.argument, update);
    for (const loop of index.loopsOverTargets) if (loop.left.type !== 'VariableDeclaration') add(loop.left, loop);
  }
  return writes.get(binding) ?? [];
}

const bindingWrites = new WeakMap<AstIndex, Map<Binding, t.Node[]>>();

function findPatternIdentifier(pattern: t.Node, name: string): t.Identifier | null {
  const stack: t.Node[] = [pattern];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'Identifier') {
      if (node.name === name) return node;
      continue;
    }
    forEachChild(node, (child) => stack.push(child));
  }
  return null;
}
