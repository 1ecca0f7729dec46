// After the rewrite: declarations the removed loop/writer/branches were the only users of
// (`readline`, `send`, `let buffer`, `PROTOCOL_VERSION`) go too, at any depth. Only declarations the
// original used and that have no side effects; anything the user left unused on purpose stays.
import * as t from '@babel/types';
import { parseSource } from '../parse.js';
import traverseModule, { type NodePath, type TraverseOptions } from '@babel/traverse';

type TraverseFn = (parent: t.Node, options: TraverseOptions) => void;
// @babel/traverse is CommonJS; under NodeNext its default export arrives wrapped once more.
const traverseExport = traverseModule as unknown as { default?: TraverseFn } & TraverseFn;
const traverse: TraverseFn = traverseExport.default ?? traverseExport;
import { EditList } from './edits.js';
import { getRemovalRange } from './text.js';

interface BindingInfo {
  references: number;
  /** Where each reference (read or write) is, to tell references inside other dead declarations. */
  referenceRanges: [number, number][];
  /** The node to remove: the declaration statement, or an import specifier. */
  node: t.Node;
  removable: boolean;
}

/**
 * `original` is the file's AST as the pipeline parsed it (traversal does not change it). Parses the
 * rewritten text once (so a rewrite that does not parse throws SourceParseError here) and removes, in one
 * pass, every pure declaration that the original used and whose remaining references all sit inside
 * other declarations being removed (`send` used only by `ok`, `ok` used only by the removed loop).
 */
export function pruneUnusedDeclarations(path: string, original: t.File, rewritten: string, externalMembers: ReadonlySet<string> = new Set(), writers: ReadonlySet<string> = new Set()): string {
  const before = collectBindings(original);
  const rewrittenAst = parseSource(path, rewritten);
  const after = collectBindings(rewrittenAst);
  // class methods and fields: referenced by name through any `.name` member access
  const beforeMembers = collectClassMembers(original, externalMembers, writers);
  for (const [key, info] of collectClassMembers(rewrittenAst, externalMembers, writers)) {
    before.set(key, { ...info, references: beforeMembers.get(key)?.references ?? 0 });
    after.set(key, info);
  }
  // a writer helper goes once nothing calls it, even one the original never called: the SDK writes now
  const simpleName = (key: string): string => key.slice(Math.max(key.lastIndexOf('>'), key.lastIndexOf('.')) + 1);
  // code the rewrite moved (an inline dispatch that became a handler) has new owner keys: matched by name
  const usedBefore = new Set([...before].filter(([, info]) => info.references > 0).map(([key]) => simpleName(key)));
  const wasUsed = (key: string): boolean => (before.has(key) ? before.get(key)!.references > 0 : usedBefore.has(simpleName(key)));
  const candidates = [...after].filter(([key, info]) => info.removable && (wasUsed(key) || writers.has(simpleName(key))));
  const dead = new Map<string, BindingInfo>();
  const inDead = ([start, end]: [number, number]) => [...dead.values()].some((d) => start >= d.node.start! && end <= d.node.end!);
  for (let changed = true; changed; ) {
    changed = false;
    for (const [key, info] of candidates) {
      const own = ([start, end]: [number, number]) => start >= info.node.start! && end <= info.node.end!;
      if (dead.has(key) || !info.referenceRanges.every((r) => inDead(r) || own(r))) continue;
      dead.set(key, info);
      changed = true;
    }
  }
  const edits = new EditList();
  const importsTouched = new Map<t.ImportDeclaration, t.Node[]>();
  const patternsTouched = new Map<t.VariableDeclaration, t.Node[]>();
  for (const info of dead.values()) {
    if ((info.node as t.Node & { _statement?: t.Node })._statement) continue;
    if (t.isImportSpecifier(info.node) || t.isImportDefaultSpecifier(info.node) || t.isImportNamespaceSpecifier(info.node)) {
      const declaration = (info.node as t.Node & { _parent?: t.ImportDeclaration })._parent!;
      importsTouched.set(declaration, [...(importsTouched.get(declaration) ?? []), info.node]);
      continue;
    }
    // A declaration inside another removed one goes with it.
    if ([...dead.values()].some((d) => d !== info && info.node.start! >= d.node.start! && info.node.end! <= d.node.end!)) continue;
    const range = getRemovalRange(rewritten, info.node.start!, info.node.end!);
    if (!edits.touches(range.start, range.end)) edits.remove(range.start, range.end);
  }
  for (const info of dead.values()) {
    const statement = (info.node as t.Node & { _statement?: t.VariableDeclaration })._statement;
    if (statement) patternsTouched.set(statement, [...(patternsTouched.get(statement) ?? []), info.node]);
  }
  for (const [statement, properties] of patternsTouched) {
    const pattern = statement.declarations[0]!.id as t.ObjectPattern;
    if (properties.length === pattern.properties.length) {
      const range = getRemovalRange(rewritten, statement.start!, statement.end!);
      if (!edits.touches(range.start, range.end)) edits.remove(range.start, range.end);
      continue;
    }
    for (const property of properties) removeListItem(rewritten, edits, property);
  }
  for (const [declaration, specifiers] of importsTouched) {
    if (specifiers.length === declaration.specifiers.length) {
      const range = getRemovalRange(rewritten, declaration.start!, declaration.end!);
      edits.remove(range.start, range.end);
    } else {
      for (const specifier of specifiers) removeListItem(rewritten, edits, specifier);
    }
  }
  return edits.apply(rewritten);
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
 * reference (whatever the object: conservative). Never the constructor, accessors, static members, or a
 * name another module of the program reads.
 */
function collectClassMembers(ast: t.File, externalMembers: ReadonlySet<string>, writers: ReadonlySet<string>): Map<string, BindingInfo> {
  const members = new Map<string, BindingInfo>();
  const accesses = new Map<string, [number, number][]>();
  const classes: { name: string; node: t.ClassDeclaration | t.ClassExpression }[] = [];
  // members reached by computed names or destructuring: none of them can be judged unused
  let dynamic = false;
  traverse(ast, {
    VariableDeclarator(path: NodePath<t.VariableDeclarator>) {
      if (t.isObjectPattern(path.node.id) && t.isThisExpression(path.node.init)) dynamic = true;
    },
    MemberExpression(path: NodePath<t.MemberExpression>) {
      const property = path.node.property;
      if (path.node.computed && !t.isStringLiteral(property) && !t.isNumericLiteral(property) && t.isThisExpression(path.node.object)) dynamic = true;
      const name = !path.node.computed && t.isIdentifier(property) ? property.name : t.isStringLiteral(property) ? property.value : null;
      // `transport.send(...)` on an object made by `new OtherClass()` or a built-in is not a use of this class's `send`
      if (name !== null && !isOtherObject(path)) accesses.set(name, [...(accesses.get(name) ?? []), [path.node.start!, path.node.end!]]);
    },
    OptionalMemberExpression(path: NodePath<t.OptionalMemberExpression>) {
      const property = path.node.property;
      if (!path.node.computed && t.isIdentifier(property)) accesses.set(property.name, [...(accesses.get(property.name) ?? []), [path.node.start!, path.node.end!]]);
    },
    Class(path: NodePath<t.Class>) {
      const node = path.node as t.ClassDeclaration | t.ClassExpression;
      classes.push({ name: node.id?.name ?? `@${node.start}`, node });
    },
  });
  if (dynamic) return members;
  const exported = getExportedNames(ast);
  for (const { name: className, node } of classes) {
    // code outside the program may call the methods of an exported class: only its writers go
    const isExported = exported.has(className);
    for (const member of node.body.body) {
      if (member.type !== 'ClassMethod' && member.type !== 'ClassProperty') continue;
      if (member.static || member.computed || member.key.type !== 'Identifier') continue;
      if (member.type === 'ClassMethod' && member.kind !== 'method') continue;
      const name = member.key.name;
      if (externalMembers.has(name) || (isExported && !writers.has(name))) continue;
      const ranges = accesses.get(name) ?? [];
      members.set(`class:${className}.${name}`, { references: ranges.length, referenceRanges: ranges, node: member, removable: member.type === 'ClassMethod' || !member.value || isPure(member.value) });
    }
  }
  return members;
}

/**
 * The object of a member access is not an instance of a class of this file: `process.stderr.write`
 * (a global), `fs.write` (an import), or a `const x = new C(...)` whose class is declared elsewhere.
 */
function isOtherObject(path: NodePath<t.MemberExpression>): boolean {
  let root: t.Node = path.node.object;
  while (t.isMemberExpression(root)) root = root.object;
  if (t.isIdentifier(root)) {
    const binding = path.scope.getBinding(root.name);
    if (!binding || binding.kind === 'module') return true;
  }
  const object = path.node.object;
  if (!t.isIdentifier(object)) return false;
  const binding = path.scope.getBinding(object.name);
  const declarator = binding?.path.node;
  if (!declarator || !t.isVariableDeclarator(declarator) || !t.isNewExpression(declarator.init) || !t.isIdentifier(declarator.init.callee)) return false;
  const cls = path.scope.getBinding(declarator.init.callee.name);
  return !cls || cls.kind === 'module' || !t.isClassDeclaration(cls.path.node);
}

/** Names a module exports: `export class X`, `export { X }`, `module.exports = X`, `exports.X = X`, `module.exports = { X }`. */
function getExportedNames(ast: t.File): Set<string> {
  const names = new Set<string>();
  for (const statement of ast.program.body) {
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

/** Every binding of every scope, keyed by the chain of named functions around it plus its name. */
function collectBindings(ast: t.File): Map<string, BindingInfo> {
  const bindings = new Map<string, BindingInfo>();
  traverse(ast, {
    Scopable(path: NodePath<t.Scopable>) {
      if (path.scope.block !== path.node) return;
      const owner = getOwnerChain(path);
      for (const [name, binding] of Object.entries(path.scope.bindings)) {
        const key = `${owner}>${name}`;
        const paths = [...binding.referencePaths, ...binding.constantViolations];
        const referenceRanges = paths.map((p): [number, number] => [p.node.start!, p.node.end!]);
        bindings.set(key, { references: paths.length, referenceRanges, ...getRemovable(binding.path, binding.identifier) });
      }
    },
  });
  return bindings;
}

function getOwnerChain(path: NodePath): string {
  const names: string[] = [];
  let current: NodePath | null = path;
  while (current) {
    const node = current.node;
    if ((t.isFunctionDeclaration(node) || t.isClassDeclaration(node)) && node.id) names.push(node.id.name);
    else if (t.isClassMethod(node) && t.isIdentifier(node.key)) names.push(node.key.name);
    else if (t.isVariableDeclarator(node) && t.isIdentifier(node.id)) names.push(node.id.name);
    else if (t.isFunction(node)) names.push(`@${node.loc?.start.line ?? 0}`);
    current = current.parentPath;
  }
  return names.reverse().join('>');
}

function getRemovable(path: NodePath, identifier: t.Identifier): { node: t.Node; removable: boolean } {
  const node = path.node;
  if (t.isFunctionDeclaration(node)) return { node, removable: t.isBlockStatement(path.parent) || t.isProgram(path.parent) };
  if (t.isImportSpecifier(node) || t.isImportDefaultSpecifier(node) || t.isImportNamespaceSpecifier(node)) {
    (node as t.Node & { _parent?: t.Node })._parent = path.parent;
    return { node, removable: true };
  }
  if (t.isVariableDeclarator(node) && t.isVariableDeclaration(path.parent) && path.parent.declarations.length === 1) {
    const declaration = path.parent;
    const pure = (!node.init || isPure(node.init) || isPureCall(path, node.init)) && (t.isIdentifier(node.id) || isSimplePattern(node.id));
    const inStatementList = t.isBlockStatement(path.parentPath?.parent) || t.isProgram(path.parentPath?.parent);
    if (t.isObjectPattern(node.id) && node.id.properties.length > 1) {
      // `const { send, listen } = require('./io')`: each name goes alone, the statement once all have
      const property = node.id.properties.find((p) => t.isObjectProperty(p) && t.isIdentifier(p.value) && p.value === identifier);
      if (!property) return { node: declaration, removable: false };
            (property as t.Node & { _statement?: t.Node })._statement = declaration;
      return { node: property, removable: pure && inStatementList };
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
function isPureCall(path: NodePath, node: t.Node): boolean {
  if (!t.isCallExpression(node) || !t.isIdentifier(node.callee) || node.arguments.length > 0) return false;
  const binding = path.scope.getBinding(node.callee.name);
  const fn = binding?.path.node;
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
  const ast = parseSource(path, text);
  const edits = new EditList();
  traverse(ast, {
    Program(programPath: NodePath<t.Program>) {
      for (const [name, binding] of Object.entries(programPath.scope.bindings)) {
        if (!writers.has(name) || readElsewhere(name)) continue;
        const declaration = getModuleLevelDeclaration(binding.path);
        if (!declaration) continue;
        const exportsAt: t.Node[] = [];
        const onlyExported = binding.referencePaths.every((ref) => {
          // `export function emit() {}`: Babel counts the export declaration itself as a reference
          if (t.isExportNamedDeclaration(ref.node) && ref.node === declaration) return true;
          const entry = getExportEntry(ref);
          if (entry) exportsAt.push(entry);
          return entry !== null;
        });
        if (!onlyExported || binding.constantViolations.length > 0) continue;
        for (const entry of exportsAt) removeListItem(text, edits, entry);
        const range = getRemovalRange(text, declaration.start!, declaration.end!);
        edits.remove(range.start, range.end);
      }
    },
  });
  return edits.apply(text);
}

/** `function emit() {}` or `const emit = (...) => ...` at the top of the module (the statement to remove). */
function getModuleLevelDeclaration(path: NodePath): t.Statement | null {
  const node = path.node;
  if (t.isFunctionDeclaration(node) && t.isProgram(path.parent)) return node;
  // `export function emit() {}`: the export goes with it
  if (t.isFunctionDeclaration(node) && t.isExportNamedDeclaration(path.parent) && t.isProgram(path.parentPath?.parent)) return path.parent;
  if (t.isVariableDeclarator(node) && (t.isArrowFunctionExpression(node.init) || t.isFunctionExpression(node.init))) {
    const statement = path.parentPath;
    if (statement && t.isVariableDeclaration(statement.node) && statement.node.declarations.length === 1 && t.isProgram(statement.parent)) return statement.node;
  }
  return null;
}

/** The entry a reference is in, when it is an export: `{ emit }` of `module.exports = {...}`, `export { emit }`. */
function getExportEntry(ref: NodePath): t.Node | null {
  const parent = ref.parentPath;
  if (!parent) return null;
  if (t.isExportSpecifier(parent.node)) {
    const declaration = parent.parent as t.ExportNamedDeclaration;
    return declaration.specifiers.length > 1 ? parent.node : null;
  }
  if (t.isObjectProperty(parent.node) && parent.node.value === ref.node) {
    const object = parent.parentPath;
    const assignment = object?.parentPath?.node;
    if (object && t.isObjectExpression(object.node) && object.node.properties.length > 1 && t.isAssignmentExpression(assignment) && isModuleExports(assignment.left)) return parent.node;
  }
  return null;
}

function isModuleExports(node: t.Node): boolean {
  return t.isMemberExpression(node) && t.isIdentifier(node.object, { name: 'module' }) && t.isIdentifier(node.property, { name: 'exports' });
}
