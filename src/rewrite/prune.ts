// After the rewrite: declarations the removed loop/writer/branches were the only users of
// (`readline`, `send`, `let buffer`, `PROTOCOL_VERSION`) go too, at any depth. Only declarations the
// original used and that have no side effects; anything the user left unused on purpose stays.
// It reads bindings the way Babel's scope tracker did when this module used @babel/traverse (so its
// output did not change): see `buildScopeModel` for where that differs from analysis/ast's scopes.
import { t } from '../babel.js';
import { forgetParse, parseSource } from '../parse.js';
import { forEachChildWithTypes, getLine, isFunctionNode, isTypedChild } from '../analysis/ast.js';
import { type Edit, EditList } from './edits.js';
import { buildEditedTree } from './edited-tree.js';
import { pruneUnusedTypes } from './prune-types.js';
import { getRemovalRange } from './text.js';

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
      if (name !== null && !isOtherObject(model, node, scannedScopes[i]!)) addAccess(scan, name, node, t.isThisExpression(node.object) ? model.scannedThis[i]! : null);
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
function isOtherObject(model: ScopeModel, member: t.MemberExpression, scope: t.Node): boolean {
  let root: t.Node = member.object;
  while (t.isMemberExpression(root)) root = root.object;
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

/** A node's own part of an owner chain (see ScopeModel.owners), or null: it adds none. */
function getOwnName(node: t.Node): string | null {
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

/**
 * One binding as Babel's scope tracker saw it. `node` is what declares it (the declarator, function,
 * class, param, catch clause or import specifier); `references` are the reads (identifiers, and the
 * `export` declaration around an exported one), `writes` every assignment, `x++`, `delete x`,
 * `for (x of ...)` and redeclaration (`var x` twice).
 */
interface ScopeBinding {
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

interface ScopeModel {
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
function buildScopeModel(ast: t.File): ScopeModel {
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
function getParents(model: ScopeModel): Map<t.Node, t.Node> {
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
function getBinding(model: ScopeModel, scope: t.Node, name: string): ScopeBinding | null {
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
