// After the rewrite: declarations the removed loop/writer/branches were the only users of
// (`readline`, `send`, `let buffer`, `PROTOCOL_VERSION`) go too, at any depth. Only declarations the
// original used and that have no side effects; anything the user left unused on purpose stays.
// It reads bindings the way Babel's scope tracker did when this module used @babel/traverse (so its
// output did not change): see `buildScopeModel` for where that differs from analysis/ast's scopes.
import { t } from '../babel.js';
import { forgetParse, parseSource } from '../parse.js';
import { type Edit, EditList } from './edits.js';
import { buildEditedTree } from './edited-tree.js';
import { pruneUnusedTypes } from './prune-types.js';
import { getRemovalRange } from './text.js';
import { buildScopeModel, getBinding, getParents, type ScopeBinding, type ScopeModel } from './prune-scope.js';

interface BindingInfo {
  references: number;
  /** Where each reference (read or write) is, to tell references inside other dead declarations. */
  referenceRanges: [number, number][];
  /** The node to remove: the declaration statement, or an import specifier. */
  node: t.Node;
  removable: boolean;
  /** For one name of `const { a, b } = ...`: the statement, removed once all its names are. */
  statement?: t.VariableDeclaration;
  /** For an import specifier: its import declaration. */
  importDeclaration?: t.ImportDeclaration;
}

/**
 * Each tree's model, built once: a text the first prune left as it was is the text the exported writers'
 * removal and the second prune read.
 */
const models = new WeakMap<t.File, ScopeModel>();
function getScopeModel(ast: t.File): ScopeModel {
  let model = models.get(ast);
  if (!model) models.set(ast, (model = buildScopeModel(ast)));
  return model;
}

/** Lets the model of a text pruned for the last time go (the re-check that follows reads its tree only). */
export function forgetScopeModel(ast: t.File): void {
  models.delete(ast);
}

/**
 * What a prune reads of the original (pruned against twice): each key's reference count, the simple
 * names referenced, its classes' member accesses. Kept per tree instead of the original's model, which
 * for a 1 MB file held ~35 MB through the rest of the rewrite and the re-check.
 */
interface Before {
  counts: ReadonlyMap<string, number>;
  namesUsed: ReadonlySet<string>;
  members: MemberScan;
}
const befores = new WeakMap<t.File, Before>();
function getBefore(original: t.File): Before {
  let before = befores.get(original);
  if (!before) {
    const model = models.get(original) ?? buildScopeModel(original);
    before = { counts: new Map([...getBindings(model)].map(([key, counted]) => [key, counted.references])), namesUsed: getNamesUsed(model), members: scanClassMembers(model) };
    befores.set(original, before);
  }
  return before;
}

/** The rewritten text as the original's text and the edits that made it (EditList.apply). */
export interface EditedText {
  source: string;
  edits: readonly Edit[];
}

/**
 * Below this many characters the rewritten text is parsed whole: a parse takes a few milliseconds, and the
 * parse cache hands its tree on to the checks that read the same text when the prune removes nothing.
 */
export const EDITED_TREE_MIN_CHARS = 64 * 1024;

/**
 * `original` is the file's AST as the pipeline parsed it. Reads the rewritten text's tree (a rewrite that
 * does not parse throws SourceParseError here, or, when a range the edits changed parses alone but the text
 * does not, at the parse of the pruned text that follows) and removes, in one pass, every pure declaration that
 * the original used and whose remaining references all sit inside other declarations being removed (`send`
 * used only by `ok`, `ok` used only by the removed loop). With `edited` (the original's text and the edits
 * that made `rewritten`), a long text's tree is the original's untouched statements, moved, and a parse of
 * what the edits changed (edited-tree.ts): the original's statements are back in place when this returns.
 */
export function pruneUnusedDeclarations(path: string, original: t.File, rewritten: string, externalMembers: ReadonlySet<string> = new Set(), writers: ReadonlySet<string> = new Set(), edited?: EditedText): string {
  const before = getBefore(original);
  const tree = edited !== undefined && rewritten.length >= EDITED_TREE_MIN_CHARS ? buildEditedTree(path, original, edited.source, edited.edits, rewritten) : null;
  const rewrittenAst = tree?.ast ?? parseSource(path, rewritten);
  let edits: EditList;
  try {
    edits = findDeadDeclarations(rewrittenAst, before, rewritten, externalMembers, writers);
  } finally {
    if (tree !== null) {
      models.delete(rewrittenAst);
      tree.restore();
    }
  }
  // types are pruned on their own: this model counts no `: T` annotation (prune-types.ts)
  const pruned = pruneUnusedTypes(path, original, edits.apply(rewritten));
  // A text this prune changed is not read again (its output is): its tree and model go now, not two
  // parses later (for a 1 MB file they hold ~100 MB while the rest of the rewrite runs).
  if (pruned !== rewritten && tree === null) {
    models.delete(rewrittenAst);
    forgetParse(rewritten);
  }
  return pruned;
}

/** The removals of the dead declarations of `rewritten` (its tree: `rewrittenAst`). */
function findDeadDeclarations(rewrittenAst: t.File, before: Before, rewritten: string, externalMembers: ReadonlySet<string>, writers: ReadonlySet<string>): EditList {
  const rewrittenModel = getScopeModel(rewrittenAst);
  const afterBindings = getBindings(rewrittenModel);
  // class methods and fields: referenced by name through any `.name` member access
  const beforeMembers = collectClassMembers(before.members, externalMembers, writers);
  const afterMembers = collectClassMembers(scanClassMembers(rewrittenModel), externalMembers, writers);
  // how often a key was referenced before: its binding in the original, or, for a member of the
  // rewritten file's classes, that member in the original's (undefined: no such key before)
  const referencesBefore = (key: string): number | undefined => (afterMembers.has(key) ? (beforeMembers.get(key)?.references ?? 0) : before.counts.get(key));
  // a writer helper goes once nothing calls it, even one the original never called: the SDK writes now
  // code the rewrite moved (an inline dispatch that became a handler) has new owner keys: matched by name
  const usedBefore = new Set(before.namesUsed);
  for (const key of afterMembers.keys()) if (referencesBefore(key)! > 0) usedBefore.add(simpleName(key));
  const wasUsed = (key: string): boolean => {
    const references = referencesBefore(key);
    return references !== undefined ? references > 0 : usedBefore.has(simpleName(key));
  };
  // (a binding's reference ranges are listed only once it may go: a big file has tens of thousands)
  const candidates: [string, BindingInfo][] = [];
  for (const [key, { references, binding }] of afterBindings) {
    if (!wasUsed(key) && !writers.has(simpleName(key))) continue;
    const removal = getRemovable(rewrittenModel, binding);
    if (removal.removable) candidates.push([key, { references, referenceRanges: getReferenceRanges(binding), ...removal }]);
  }
  for (const [key, info] of afterMembers) if (info.removable && (wasUsed(key) || writers.has(simpleName(key)))) candidates.push([key, info]);
  const dead = new Map<string, BindingInfo>();
  const deadSpans: [number, number][] = [];
  const inDead = ([start, end]: [number, number]) => deadSpans.some(([from, to]) => start >= from && end <= to);
  for (let changed = true; changed; ) {
    changed = false;
    for (const [key, info] of candidates) {
      const own = ([start, end]: [number, number]) => start >= info.node.start! && end <= info.node.end!;
      if (dead.has(key) || !info.referenceRanges.every((r) => inDead(r) || own(r))) continue;
      dead.set(key, info);
      deadSpans.push([info.node.start!, info.node.end!]);
      changed = true;
    }
  }
  const edits = new EditList();
  /** The dead declarations and whole destructuring statements, removed once their neighbours are known. */
  const spans: [number, number][] = [];
  const importsTouched = new Map<t.ImportDeclaration, t.Node[]>();
  const patternsTouched = new Map<t.VariableDeclaration, t.Node[]>();
  for (const info of dead.values()) {
    if (info.statement) continue;
    if (t.isImportSpecifier(info.node) || t.isImportDefaultSpecifier(info.node) || t.isImportNamespaceSpecifier(info.node)) {
      const declaration = info.importDeclaration!;
      importsTouched.set(declaration, [...(importsTouched.get(declaration) ?? []), info.node]);
      continue;
    }
    // A declaration inside another removed one goes with it.
    if ([...dead.values()].some((d) => d !== info && info.node.start! >= d.node.start! && info.node.end! <= d.node.end!)) continue;
    spans.push([info.node.start!, info.node.end!]);
  }
  for (const info of dead.values()) {
    const statement = info.statement;
    if (statement) patternsTouched.set(statement, [...(patternsTouched.get(statement) ?? []), info.node]);
  }
  for (const [statement, properties] of patternsTouched) {
    const pattern = statement.declarations[0]!.id as t.ObjectPattern;
    if (properties.length === pattern.properties.length) {
      spans.push([statement.start!, statement.end!]);
      continue;
    }
    for (const property of properties) removeListItem(rewritten, edits, property);
  }
  // neighbours with only space between them go as one: their removals would share that space
  spans.sort((a, b) => a[0] - b[0]);
  const joined: [number, number][] = [];
  for (const span of spans) {
    const last = joined[joined.length - 1];
    if (last && /^\s*$/.test(rewritten.slice(last[1], span[0]))) last[1] = Math.max(last[1], span[1]);
    else joined.push([...span]);
  }
  for (const [start, end] of joined) {
    const range = getRemovalRange(rewritten, start, end);
    edits.removeJoined(range.start, range.end);
  }
  for (const [declaration, specifiers] of importsTouched) {
    if (specifiers.length === declaration.specifiers.length) {
      const range = getRemovalRange(rewritten, declaration.start!, declaration.end!);
      edits.remove(range.start, range.end);
    } else {
      for (const specifier of specifiers) removeListItem(rewritten, edits, specifier);
    }
  }
  return edits;
}

/** Removes one item of a comma list with the comma after it (or, for the last item, the one before it). */
function removeListItem(text: string, edits: EditList, node: t.Node): void {
  const next = text.slice(node.end!).match(/^\s*,\s*/);
  if (next) {
    edits.remove(node.start!, node.end! + next[0].length);
    return;
  }
  const previous = text.slice(0, node.start!).match(/,\s*$/);
  edits.remove(node.start! - (previous ? previous[0].length : 0), node.end!);
}

/**
 * Methods and fields of classes, keyed `class:<Class>.<name>`, with every `.name` access in the file as a
 * reference (whatever the object: conservative), except `this.name` in a method of a class unrelated to
 * this one (a line reader's own `this.emit(...)` is no use of the server's `emit`). Never the constructor,
 * accessors, static members, or a name another module of the program reads.
 */
function collectClassMembers(scan: MemberScan, externalMembers: ReadonlySet<string>, writers: ReadonlySet<string>): Map<string, BindingInfo> {
  const members = new Map<string, BindingInfo>();
  const { accesses, accessThis, classes, dynamic, exported } = scan;
  if (dynamic) return members;
  const related = getClassRelation(classes);
  for (const { name: className, node } of classes) {
    // code outside the program may call the methods of an exported class: only its writers go
    const isExported = exported.has(className);
    for (const member of node.body.body) {
      // public and private (`#send(msg) { ... }`, `#out = process.stdout`) members alike
      if (member.type !== 'ClassMethod' && member.type !== 'ClassProperty' && member.type !== 'ClassPrivateMethod' && member.type !== 'ClassPrivateProperty') continue;
      if (member.static) continue;
      const isPrivate = member.type === 'ClassPrivateMethod' || member.type === 'ClassPrivateProperty';
      if (!isPrivate && (member.computed || member.key.type !== 'Identifier')) continue;
      if ((member.type === 'ClassMethod' || member.type === 'ClassPrivateMethod') && member.kind !== 'method') continue;
      const name = member.key.type === 'PrivateName' ? `#${member.key.id.name}` : (member.key as t.Identifier).name;
      // a private member is read only inside its class: other modules and exports cannot reach it
      if (!isPrivate && (externalMembers.has(name) || (isExported && !writers.has(name)))) continue;
      const thisOf = accessThis.get(name) ?? [];
      const ranges = (accesses.get(name) ?? []).filter((_, i) => thisOf[i] === null || related(node, thisOf[i]!));
      const isMethod = member.type === 'ClassMethod' || member.type === 'ClassPrivateMethod';
      members.set(`class:${className}.${name}`, { references: ranges.length, referenceRanges: ranges, node: member, removable: isMethod || !member.value || isPure(member.value) });
    }
  }
  return members;
}

/** A file's classes and every `.name` access in it (what collectClassMembers reads, whatever its options). */
interface MemberScan {
  /** Members reached by computed names or destructuring: none of them can be judged unused. */
  dynamic: boolean;
  classes: { name: string; node: t.ClassDeclaration | t.ClassExpression }[];
  accesses: Map<string, [number, number][]>;
  /** For each of `accesses`: the class `this` is an instance of when the access is `this.name`, else null. */
  accessThis: Map<string, (ClassNode | null)[]>;
  exported: Set<string>;
}

type ClassNode = t.ClassDeclaration | t.ClassExpression;

function addAccess(scan: Pick<MemberScan, 'accesses' | 'accessThis'>, name: string, node: t.Node, thisClass: ClassNode | null = null): void {
  const list = scan.accesses.get(name);
  if (list) {
    list.push([node.start!, node.end!]);
    scan.accessThis.get(name)!.push(thisClass);
  } else {
    scan.accesses.set(name, [[node.start!, node.end!]]);
    scan.accessThis.set(name, [thisClass]);
  }
}

/**
 * Whether an instance of one class may be `this` in the methods of the other: the same class, one extends
 * the other in this file, or a superclass on either side is neither a class of this file nor a plain name
 * (`extends mixin(Base)`: not known). A plain name that is no class of the file (`extends EventEmitter`)
 * is a class from elsewhere, which no class of this file is a superclass of.
 */
function getClassRelation(classes: MemberScan['classes']): (a: ClassNode, b: ClassNode) => boolean {
  const byName = new Map<string, ClassNode | null>();
  for (const { name, node } of classes) byName.set(name, byName.has(name) ? null : node);
  // each class's superclasses in this file, and whether the chain ends in one not known; worked out once
  const lineages = new Map<ClassNode, { ancestors: Set<ClassNode>; open: boolean }>();
  const lineage = (cls: ClassNode): { ancestors: Set<ClassNode>; open: boolean } => {
    const known = lineages.get(cls);
    if (known) return known;
    const found = { ancestors: new Set<ClassNode>(), open: false };
    for (let at: ClassNode = cls; at.superClass; ) {
      const parent = at.superClass.type === 'Identifier' ? byName.get(at.superClass.name) : null;
      if (parent === undefined) break;
      if (parent === null || found.ancestors.has(parent)) {
        found.open = true;
        break;
      }
      found.ancestors.add(parent);
      at = parent;
    }
    lineages.set(cls, found);
    return found;
  };
  return (a, b) => {
    if (a === b) return true;
    const la = lineage(a);
    const lb = lineage(b);
    return la.open || lb.open || la.ancestors.has(b) || lb.ancestors.has(a);
  };
}

function scanClassMembers(model: ScopeModel): MemberScan {
  const scan = { accesses: new Map<string, [number, number][]>(), accessThis: new Map<string, (ClassNode | null)[]>() };
  const classes: { name: string; node: t.ClassDeclaration | t.ClassExpression }[] = [];
  let dynamic = false;
  const { scanned, scannedScopes } = model;
  const roots = new Map<t.Node, t.Node>();
  for (let i = 0; i < scanned.length; i++) {
    const node = scanned[i]!;
    if (node.type === 'VariableDeclarator') {
      if (t.isObjectPattern(node.id) && t.isThisExpression(node.init)) dynamic = true;
    } else if (node.type === 'MemberExpression') {
      const property = node.property;
      if (node.computed && !t.isStringLiteral(property) && !t.isNumericLiteral(property) && t.isThisExpression(node.object)) dynamic = true;
      // `this.#send`: a private name is its own key, `#send` (never the same member as a `send`)
      const name = t.isPrivateName(property) ? `#${property.id.name}` : !node.computed && t.isIdentifier(property) ? property.name : t.isStringLiteral(property) ? property.value : null;
      // `transport.send(...)` on an object made by `new OtherClass()` or a built-in is not a use of this class's `send`
      if (name !== null && !isOtherObject(model, node, scannedScopes[i]!, roots)) addAccess(scan, name, node, t.isThisExpression(node.object) ? model.scannedThis[i]! : null);
    } else if (node.type === 'OptionalMemberExpression') {
      const property = node.property;
      // (`this?.#send`: Babel types its property as an expression, the private name is read off the node)
      const name = (property as t.Node).type === 'PrivateName' ? `#${(property as unknown as t.PrivateName).id.name}` : !node.computed && t.isIdentifier(property) ? property.name : null;
      if (name !== null) addAccess(scan, name, node, t.isThisExpression(node.object) ? model.scannedThis[i]! : null);
    } else if (node.type === 'BinaryExpression' && node.operator === 'in' && t.isPrivateName(node.left)) {
      // `#send in obj`: a brand check reads the private name too
      const name = `#${node.left.id.name}`;
      addAccess(scan, name, node);
    } else if (node.type === 'ClassDeclaration' || node.type === 'ClassExpression') {
      classes.push({ name: node.id?.name ?? `@${node.start}`, node });
    }
  }
  return { dynamic, classes, ...scan, exported: getExportedNames(model.program) };
}

/**
 * The object of a member access is not an instance of a class of this file: `process.stderr.write`
 * (a global), `fs.write` (an import), or a `const x = new C(...)` whose class is declared elsewhere.
 */
function isOtherObject(model: ScopeModel, member: t.MemberExpression, scope: t.Node, roots: Map<t.Node, t.Node>): boolean {
  const root = getChainRoot(member.object, roots);
  if (t.isIdentifier(root)) {
    const binding = getBinding(model, scope, root.name);
    if (!binding || binding.kind === 'module') return true;
  }
  const object = member.object;
  if (!t.isIdentifier(object)) return false;
  const declarator = getBinding(model, scope, object.name)?.node;
  if (!declarator || !t.isVariableDeclarator(declarator) || !t.isNewExpression(declarator.init) || !t.isIdentifier(declarator.init.callee)) return false;
  const cls = getBinding(model, scope, declarator.init.callee.name);
  return !cls || cls.kind === 'module' || !t.isClassDeclaration(cls.node);
}

/**
 * What a member chain starts from (`a` of `a.b.c`), remembered for every link on the way, so that the
 * links of one chain of n members cost n steps between them, not n^2 / 2.
 */
function getChainRoot(node: t.Node, roots: Map<t.Node, t.Node>): t.Node {
  const links: t.Node[] = [];
  let root = node;
  while (t.isMemberExpression(root)) {
    const known = roots.get(root);
    if (known !== undefined) {
      root = known;
      break;
    }
    links.push(root);
    root = root.object;
  }
  for (const link of links) roots.set(link, root);
  return root;
}

/** Names a module exports: `export class X`, `export { X }`, `module.exports = X`, `exports.X = X`, `module.exports = { X }`. */
function getExportedNames(program: t.Program): Set<string> {
  const names = new Set<string>();
  for (const statement of program.body) {
    if (t.isExportNamedDeclaration(statement)) {
      const d = statement.declaration;
      if (d && (t.isClassDeclaration(d) || t.isFunctionDeclaration(d)) && d.id) names.add(d.id.name);
      for (const spec of statement.specifiers) if (t.isExportSpecifier(spec)) names.add(spec.local.name);
    }
    if (t.isExportDefaultDeclaration(statement)) {
      const d = statement.declaration;
      if (t.isIdentifier(d)) names.add(d.name);
      else if ((t.isClassDeclaration(d) || t.isFunctionDeclaration(d)) && d.id) names.add(d.id.name);
    }
    if (t.isExpressionStatement(statement) && t.isAssignmentExpression(statement.expression)) {
      const right = statement.expression.right;
      if (t.isIdentifier(right)) names.add(right.name);
      if (t.isObjectExpression(right)) for (const p of right.properties) if (t.isObjectProperty(p) && t.isIdentifier(p.value)) names.add(p.value.name);
    }
  }
  return names;
}

/** A binding with its key's reference count (reads and writes). */
interface CountedBinding {
  references: number;
  binding: ScopeBinding;
}

/** Each model's bindings, collected once (a module is pruned twice against its original). Read only. */
const bindingsOf = new WeakMap<ScopeModel, ReadonlyMap<string, CountedBinding>>();
function getBindings(model: ScopeModel): ReadonlyMap<string, CountedBinding> {
  let bindings = bindingsOf.get(model);
  if (!bindings) bindingsOf.set(model, (bindings = collectBindings(model)));
  return bindings;
}

/** A key's last name: its binding's or member's own name (`send` of `start>send`, `class:Io.send`). */
function simpleName(key: string): string {
  return key.slice(Math.max(key.lastIndexOf('>'), key.lastIndexOf('.')) + 1);
}

/** The simple names of a model's keys that were referenced. */
const namesUsedOf = new WeakMap<ScopeModel, ReadonlySet<string>>();
function getNamesUsed(model: ScopeModel): ReadonlySet<string> {
  let names = namesUsedOf.get(model);
  if (!names) {
    names = new Set([...getBindings(model)].filter(([, counted]) => counted.references > 0).map(([key]) => simpleName(key)));
    namesUsedOf.set(model, names);
  }
  return names;
}

/**
 * Every binding of every scope, keyed by the chain of named functions around it plus its name. Scopes
 * in source order and a later scope with the same key replaces the earlier one's entry, as before.
 */
function collectBindings(model: ScopeModel): Map<string, CountedBinding> {
  const bindings = new Map<string, CountedBinding>();
  for (const [scope, names] of model.scopes) {
    // a parameter pattern has a scope of its own, but never held bindings
    if (t.isPattern(scope) || names.size === 0) continue;
    const owner = model.owners.get(scope)!;
    for (const [name, binding] of names) bindings.set(`${owner}>${name}`, { references: binding.references.length + binding.writes.length, binding });
  }
  return bindings;
}

/** Where a binding is read or written. */
function getReferenceRanges(binding: ScopeBinding): [number, number][] {
  return [...binding.references, ...binding.writes].map((n): [number, number] => [n.start!, n.end!]);
}


function getRemovable(model: ScopeModel, binding: ScopeBinding): Pick<BindingInfo, 'node' | 'removable' | 'statement' | 'importDeclaration'> {
  const node = binding.node;
  const parent = binding.parent;
  if (t.isFunctionDeclaration(node)) return { node, removable: t.isBlockStatement(parent) || t.isProgram(parent) };
  if (t.isImportSpecifier(node) || t.isImportDefaultSpecifier(node) || t.isImportNamespaceSpecifier(node)) {
    return { node, removable: true, importDeclaration: parent as t.ImportDeclaration };
  }
  if (t.isVariableDeclarator(node) && t.isVariableDeclaration(parent) && parent.declarations.length === 1) {
    const declaration = parent;
    const pure = (!node.init || isPure(node.init) || isPureCall(model, binding.scope, node.init)) && (t.isIdentifier(node.id) || isSimplePattern(node.id));
    const statementList = binding.grandparent;
    const inStatementList = t.isBlockStatement(statementList) || t.isProgram(statementList);
    if (t.isObjectPattern(node.id) && node.id.properties.length > 1) {
      // `const { send, listen } = require('./io')`: each name goes alone, the statement once all have
      const property = node.id.properties.find((p) => t.isObjectProperty(p) && t.isIdentifier(p.value) && p.value === binding.identifier);
      if (!property) return { node: declaration, removable: false };
      return { node: property, removable: pure && inStatementList, statement: declaration };
    }
    return { node: declaration, removable: pure && inStatementList };
  }
  return { node, removable: false };
}

function isSimplePattern(node: t.Node): boolean {
  return t.isObjectPattern(node) && node.properties.every((p) => t.isObjectProperty(p) && t.isIdentifier(p.value));
}

function isPure(node: t.Node): boolean {
  if (t.isLiteral(node) && !t.isTemplateLiteral(node)) return true;
  if (t.isTemplateLiteral(node)) return node.expressions.every(isPure);
  if (t.isArrowFunctionExpression(node) || t.isFunctionExpression(node) || t.isIdentifier(node) || t.isThisExpression(node)) return true;
  if (t.isObjectExpression(node)) return node.properties.every((p) => t.isObjectProperty(p) && !p.computed && isPure(p.value));
  if (t.isArrayExpression(node)) return node.elements.every((e) => e !== null && isPure(e));
  if (t.isMemberExpression(node)) return isPure(node.object) && (!node.computed || isPure(node.property));
  // `typeof msg.id === 'number' ? msg.id : null`, `msg.params || {}`, `!msg.id`
  if (t.isConditionalExpression(node)) return isPure(node.test) && isPure(node.consequent) && isPure(node.alternate);
  if (t.isBinaryExpression(node) || t.isLogicalExpression(node)) return t.isExpression(node.left) && isPure(node.left) && isPure(node.right);
  if (t.isUnaryExpression(node)) return node.operator !== 'delete' && isPure(node.argument);
  // require('readline') / require('node:fs')
  if (t.isCallExpression(node) && t.isIdentifier(node.callee, { name: 'require' }) && node.arguments.length === 1 && t.isStringLiteral(node.arguments[0])) return true;
  if (t.isTSAsExpression(node)) return isPure(node.expression);
  // `new Transport(process.stdin, process.stdout)` whose only use was removed: the object goes with it
  if (t.isNewExpression(node)) return t.isIdentifier(node.callee) && node.arguments.every((a) => t.isExpression(a) && isPure(a));
  // readline.createInterface({ input, output }): an interface nothing reads any more
  const callee = t.isCallExpression(node) ? node.callee : null;
  const name = callee && t.isMemberExpression(callee) && t.isIdentifier(callee.property) ? callee.property.name : callee && t.isIdentifier(callee) ? callee.name : null;
  if (name === 'createInterface') return (node as t.CallExpression).arguments.every((a) => t.isExpression(a) && isPure(a));
  return false;
}

/**
 * `makeReader()` where `function makeReader() { return readline.createInterface({ input: process.stdin }); }`:
 * a call of a function of this file whose whole body returns a pure value is as pure as that value.
 */
function isPureCall(model: ScopeModel, scope: t.Node, node: t.Node): boolean {
  if (!t.isCallExpression(node) || !t.isIdentifier(node.callee) || node.arguments.length > 0) return false;
  const fn = getBinding(model, scope, node.callee.name)?.node;
  const body = t.isFunctionDeclaration(fn) ? fn.body.body : null;
  return body !== null && body.length === 1 && t.isReturnStatement(body[0]) && body[0].argument != null && isPure(body[0].argument);
}

/**
 * Writers a module still exports after the rewrite (`module.exports = { emit, listen }`) that no other
 * module of the program reads any more: the SDK owns stdout, so the writer goes, with its export entry.
 * `readElsewhere(name)` says whether another module still reads the name. Returns the text unchanged
 * when there is nothing to remove.
 */
export function removeExportedWriters(path: string, text: string, writers: ReadonlySet<string>, readElsewhere: (name: string) => boolean): string {
  // every export form below spells `export` in the text (`export`, `exports.`, `module.exports`), unless an
  // escape spells the name (`module.\u0065xports`): a text with neither exports nothing, and needs no
  // model (~5% of a 1 MB file's run)
  if (writers.size === 0 || !/export|\\u/.test(text)) return text;
  const ast = parseSource(path, text);
  const model = getScopeModel(ast);
  const edits = new EditList();
  for (const [name, binding] of model.scopes.get(ast.program)!) {
    if (!writers.has(name) || readElsewhere(name)) continue;
    const declaration = getModuleLevelDeclaration(binding);
    if (!declaration) continue;
    const exportsAt: ExportEntry[] = [];
    const onlyExported = binding.references.every((ref) => {
      // `export function emit() {}`: the export declaration itself counts as a reference
      if (t.isExportNamedDeclaration(ref) && ref === declaration) return true;
      const entry = getExportEntry(model, ref);
      if (entry) exportsAt.push(entry);
      return entry !== null;
    });
    if (!onlyExported || binding.writes.length > 0) continue;
    for (const entry of exportsAt) {
      if (entry.kind === 'item') removeListItem(text, edits, entry.node);
      else {
        const range = getRemovalRange(text, entry.node.start!, entry.node.end!);
        edits.remove(range.start, range.end);
      }
    }
    const range = getRemovalRange(text, declaration.start!, declaration.end!);
    edits.remove(range.start, range.end);
  }
  return edits.apply(text);
}

/** `function emit() {}` or `const emit = (...) => ...` at the top of the module (the statement to remove). */
function getModuleLevelDeclaration(binding: ScopeBinding): t.Statement | null {
  const { node, parent, grandparent } = binding;
  if (t.isFunctionDeclaration(node) && t.isProgram(parent)) return node;
  // `export function emit() {}`: the export goes with it
  if (t.isFunctionDeclaration(node) && t.isExportNamedDeclaration(parent) && t.isProgram(grandparent)) return parent;
  if (t.isVariableDeclarator(node) && (t.isArrowFunctionExpression(node.init) || t.isFunctionExpression(node.init))) {
    if (t.isVariableDeclaration(parent) && parent.declarations.length === 1 && t.isProgram(grandparent)) return parent;
  }
  return null;
}

/** What exports a name: an entry of a list (`{ emit, listen }`), or a statement of its own. */
type ExportEntry = { kind: 'item' | 'statement'; node: t.Node };

/**
 * The export a reference is, if it is one: `{ emit }` of `module.exports = {...}`, `export { emit }`,
 * `exports.emit = emit` / `module.exports.emit = emit`. An only entry takes its statement with it.
 */
function getExportEntry(model: ScopeModel, ref: t.Node): ExportEntry | null {
  const parents = getParents(model);
  const parent = parents.get(ref);
  if (!parent) return null;
  if (t.isExportSpecifier(parent)) {
    const declaration = parents.get(parent) as t.ExportNamedDeclaration;
    return declaration.specifiers.length > 1 ? { kind: 'item', node: parent } : { kind: 'statement', node: declaration };
  }
  if (t.isObjectProperty(parent) && parent.value === ref) {
    const object = parents.get(parent);
    const assignment = object && parents.get(object);
    const statement = assignment && parents.get(assignment);
    if (!t.isObjectExpression(object) || !t.isAssignmentExpression(assignment) || !isModuleExports(assignment.left)) return null;
    if (object.properties.length > 1) return { kind: 'item', node: parent };
    return t.isExpressionStatement(statement) ? { kind: 'statement', node: statement } : null;
  }
  if (t.isAssignmentExpression(parent) && parent.operator === '=' && parent.right === ref && t.isMemberExpression(parent.left)) {
    const target = parent.left.object;
    const statement = parents.get(parent);
    const onExports = t.isIdentifier(target, { name: 'exports' }) || isModuleExports(target);
    if (onExports && t.isExpressionStatement(statement)) return { kind: 'statement', node: statement };
  }
  return null;
}

function isModuleExports(node: t.Node): boolean {
  return t.isMemberExpression(node) && t.isIdentifier(node.object, { name: 'module' }) && t.isIdentifier(node.property, { name: 'exports' });
}
