// Read-only analysis of a hand-rolled server's I/O for the envelope rewrite: where it writes to
// stdout, which function frames its messages, where it parses incoming messages and where one
// message's handling starts. It proves what the rewrite relies on or says why it cannot.
// Deliberately not: dispatch, tools or methods (the envelope does not need them), and no edits.
import type {
  CallExpression,
  ClassDeclaration,
  ClassExpression,
  Expression,
  File,
  Function as FunctionNode,
  Identifier,
  Node,
  Statement,
} from '@babel/types';
import {
  buildParentMap,
  contains,
  countDeclarations,
  getAncestors,
  getPropertyName,
  getStringifyArgument,
  isFunctionNode,
  isIdentifierNamed,
  isJsonParseCall,
  isProcessStdout,
  unwrapExpression,
  walk,
} from './envelope-walk.js';

export type Channel = 'stdout.write' | 'console' | 'writeSync';

/** One call that writes to stdout. */
export interface StdoutWrite {
  call: CallExpression;
  channel: Channel;
  /** `x` when the call writes `JSON.stringify(x)` (with or without framing), else null. */
  payload: Expression | null;
  /** The call writes exactly one JSON text and a '\n', nothing else (what the ndjson writer does). */
  ndjson: boolean;
}

/** The function that frames and writes one message: `function send(msg) { ...write(JSON.stringify(msg))... }`. */
export type Framer =
  | { kind: 'function'; fn: FunctionNode; name: string; statement: Statement; block: Node }
  | { kind: 'method'; fn: FunctionNode; name: string; classNode: ClassDeclaration | ClassExpression; paramType: string | null };

export interface ParseSite {
  /** The `JSON.parse(text)` call of incoming messages. */
  call: CallExpression;
  /** The variable the message is stored in (`msg` in `msg = JSON.parse(line)`), null for a destructuring. */
  target: string | null;
  /** Inside a `try` block: a failed parse already leaves through the server's own catch. */
  inTry: boolean;
  /** The statement holding the parse (a guard is inserted after it when it is not in a `try`). */
  statement: Statement;
  /** How the code after a failed parse must leave: the nearest loop iteration or the function. */
  exit: 'return' | 'continue' | null;
}

/** Where the handling of one incoming message starts: the envelope scope is opened there. */
export type EntrySite =
  /** `onMessage(body)` -> `envelope.scope(() => onMessage(body))` */
  | { kind: 'scope'; call: CallExpression }
  /** `(line) => {...}` or `this.onLine.bind(this)` -> `envelope.bind(...)` */
  | { kind: 'bind'; value: Expression }
  /** `handle(msg)` in the input loop -> `envelope.handle(msg, () => handle(msg))` */
  | { kind: 'handle'; expression: Expression; message: string; mode: 'sync' | 'await-argument' | 'async' };

export interface EnvelopeIo {
  framer: Framer | null;
  /** Calls of the framer: their callee becomes `envelope.send`. */
  framerCalls: CallExpression[];
  /** `process.stdout.write(JSON.stringify(x) + '\n')` outside a framer: becomes `envelope.send(x)`. */
  inlineWrites: StdoutWrite[];
  /** `console.log(...)` diagnostics: the property becomes `error`. */
  diagnostics: Identifier[];
  parse: ParseSite;
  entries: EntrySite[];
  /** Parent links of the analysed AST, for the rewrite's own checks. */
  parents: Map<Node, Node>;
}

export type Analysis = EnvelopeIo | { failed: string };

const CONSOLE_STDOUT = new Set(['log', 'info', 'debug']);
const LOOP_TYPES = new Set(['ForStatement', 'ForInStatement', 'ForOfStatement', 'WhileStatement', 'DoWhileStatement']);
/** `process.stdout.<member>` uses that neither write nor let the stream escape. */
const HARMLESS_STDOUT_MEMBERS = new Set(['fd', 'isTTY', 'columns', 'rows', 'on', 'once', 'off', 'removeListener', 'writable']);

export function getEnvelopeIo(ast: File, source: string): Analysis {
  const parents = buildParentMap(ast);
  const writes = findStdoutWrites(ast, parents);

  const escape = getStdoutEscape(ast, parents);
  if (escape !== null) return { failed: escape };

  const framerResult = getFramer(ast, source, writes, parents);
  if ('failed' in framerResult) return framerResult;
  const framer = framerResult.framer;

  const inlineWrites: StdoutWrite[] = [];
  const diagnostics: Identifier[] = [];
  for (const write of writes) {
    const insideFramer = framer !== null && contains(framer.fn, write.call);
    if (write.payload !== null && !insideFramer && !isMessageLike(write.payload)) {
      // console.log(JSON.stringify(config)): a diagnostic that happens to be JSON
      if (write.channel !== 'console') return { failed: `line ${lineOf(write.call)}: writes JSON that is not a JSON-RPC message to stdout` };
      const callee = write.call.callee;
      if (callee.type === 'MemberExpression' && callee.property.type === 'Identifier') diagnostics.push(callee.property);
      continue;
    }
    if (write.payload !== null) {
      if (insideFramer) continue;
      if (!write.ndjson) return { failed: `line ${lineOf(write.call)}: a reply is written with framing of its own outside a writer function` };
      inlineWrites.push(write);
    } else if (write.channel === 'console') {
      const callee = write.call.callee;
      if (callee.type === 'MemberExpression' && callee.property.type === 'Identifier') diagnostics.push(callee.property);
    } else if (!insideFramer) {
      return { failed: `line ${lineOf(write.call)}: writes something that is not a JSON message to stdout` };
    }
  }
  if (framer === null && inlineWrites.length === 0) return { failed: 'no JSON reply written to stdout was found' };
  if (framer !== null && inlineWrites.length > 0) {
    return { failed: `replies are written both through ${framer.name}() and inline (line ${lineOf(inlineWrites[0]!.call)})` };
  }

  const framerCalls: CallExpression[] = [];
  if (framer !== null) {
    const calls = findFramerCalls(ast, framer, parents);
    if ('failed' in calls) return calls;
    framerCalls.push(...calls.calls);
  }

  const parse = getIncomingParse(ast, framer, parents);
  if ('failed' in parse) return parse;

  const entries = findEntrySites(ast, parse, framerCalls, inlineWrites, parents);
  if ('failed' in entries) return entries;

  return { framer, framerCalls, inlineWrites, diagnostics, parse, entries: entries.entries, parents };
}

// ---------------------------------------------------------------- writes

const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'result', 'error', 'method']);

/** An object literal with a JSON-RPC member, or any other expression (a variable holding a reply). */
function isMessageLike(payload: Expression): boolean {
  const inner = unwrapExpression(payload);
  if (inner.type !== 'ObjectExpression') return true;
  return inner.properties.some(
    (p) => p.type === 'SpreadElement' || (p.type === 'ObjectProperty' && !p.computed && MESSAGE_KEYS.has(p.key.type === 'Identifier' ? p.key.name : p.key.type === 'StringLiteral' ? p.key.value : '')),
  );
}

export function findStdoutWrites(ast: File, parents: Map<Node, Node> = buildParentMap(ast)): StdoutWrite[] {
  const writes: StdoutWrite[] = [];
  walk(ast, (node) => {
    if (node.type !== 'CallExpression') return;
    const channel = getChannel(node);
    if (channel === null) return;
    const data = getWrittenData(node, channel);
    const resolved = data === null ? null : resolvePayload(data, parents);
    // console.log adds the '\n' itself; the other channels must write it.
    const ndjson = resolved !== null && resolved.ndjson && resolved.newline === (channel !== 'console');
    writes.push({ call: node, channel, payload: resolved?.payload ?? null, ndjson });
  });
  return writes;
}

function getChannel(call: CallExpression): Channel | null {
  const callee = call.callee;
  if (callee.type === 'MemberExpression' && !callee.computed) {
    const name = getPropertyName(callee);
    if (name === 'write' && isProcessStdout(callee.object)) return 'stdout.write';
    if (name !== null && CONSOLE_STDOUT.has(name) && isIdentifierNamed(callee.object, 'console')) return 'console';
    if (name === 'writeSync' && isIdentifierNamed(callee.object, 'fs') && isStdoutFd(call.arguments[0])) return 'writeSync';
  }
  if (isIdentifierNamed(callee, 'writeSync') && isStdoutFd(call.arguments[0])) return 'writeSync';
  return null;
}

function isStdoutFd(node: Node | undefined): boolean {
  if (node === undefined) return false;
  if (node.type === 'NumericLiteral') return node.value === 1;
  return node.type === 'MemberExpression' && getPropertyName(node) === 'fd' && isProcessStdout(node.object);
}

function getWrittenData(call: CallExpression, channel: Channel): Node | null {
  const args = call.arguments;
  if (channel === 'console') return args.length === 1 ? args[0]! : null;
  if (channel === 'writeSync') return args[1] ?? null;
  return args[0] ?? null;
}

interface ResolvedPayload {
  payload: Expression;
  /** The data is the JSON text alone (plus an optional trailing newline). */
  ndjson: boolean;
  newline: boolean;
}

/** What JSON a written value holds: `JSON.stringify(x)`, `JSON.stringify(x) + '\n'`, `` `${body}\n` `` ... */
function resolvePayload(data: Node, parents: Map<Node, Node>): ResolvedPayload | null {
  const inner = unwrapExpression(data);
  let core: Node = inner;
  let newline = false;
  if (inner.type === 'BinaryExpression' && inner.operator === '+' && isNewlineLiteral(inner.right)) {
    core = inner.left;
    newline = true;
  } else if (
    inner.type === 'TemplateLiteral' &&
    inner.expressions.length === 1 &&
    inner.quasis[0]!.value.cooked === '' &&
    inner.quasis[1]!.value.cooked === '\n'
  ) {
    core = inner.expressions[0]!;
    newline = true;
  }
  const direct = getJsonOf(core, data, parents);
  if (direct !== null) return { payload: direct, ndjson: true, newline };
  // Framing around the JSON text (a Content-Length header, ...): find the JSON inside.
  let found: Expression | null = null;
  walk(inner, (node) => {
    if (found !== null) return 'skip';
    const json = getJsonOf(node, data, parents);
    if (json !== null) found = json;
    return undefined;
  });
  return found === null ? null : { payload: found, ndjson: false, newline: false };
}

function isNewlineLiteral(node: Node): boolean {
  return (node.type === 'StringLiteral' && node.value === '\n') || (node.type === 'TemplateLiteral' && node.expressions.length === 0 && node.quasis[0]!.value.cooked === '\n');
}

/** `JSON.stringify(x)` -> x; an identifier declared as `const body = JSON.stringify(x)` in the same function -> x. */
function getJsonOf(node: Node, site: Node, parents: Map<Node, Node>): Expression | null {
  const direct = getStringifyArgument(node);
  if (direct !== null) return direct;
  if (node.type !== 'Identifier') return null;
  const scope = getAncestors(parents, site).reverse().find((n) => isFunctionNode(n) || n.type === 'Program');
  if (scope === undefined) return null;
  let init: Expression | null = null;
  walk(scope, (n) => {
    if (n.type === 'VariableDeclarator' && isIdentifierNamed(n.id, node.name) && n.init) init = getStringifyArgument(n.init);
  });
  return init;
}

/** `process.stdout` handed to code we cannot see (aliased, destructured, passed on) makes every write unprovable. */
function getStdoutEscape(ast: File, parents: Map<Node, Node>): string | null {
  let problem: string | null = null;
  walk(ast, (node) => {
    if (problem !== null) return 'skip';
    if (node.type === 'VariableDeclarator' && node.id.type === 'ObjectPattern' && node.init && isIdentifierNamed(unwrapExpression(node.init), 'process')) {
      if (node.id.properties.some((p) => p.type === 'ObjectProperty' && isIdentifierNamed(p.key, 'stdout'))) {
        problem = `line ${lineOf(node)}: process.stdout is destructured; its writes cannot be followed`;
      }
    }
    if (node.type === 'ImportDeclaration' && /^(node:)?process$/.test(node.source.value)) {
      if (node.specifiers.some((s) => s.type === 'ImportSpecifier' && s.imported.type === 'Identifier' && s.imported.name === 'stdout')) {
        problem = `line ${lineOf(node)}: stdout is imported from process; its writes cannot be followed`;
      }
    }
    if (!isProcessStdout(node)) return undefined;
    const parent = parents.get(node);
    if (parent?.type === 'MemberExpression' && parent.object === node) {
      const member = getPropertyName(parent);
      if (member === 'write') {
        const grand = parents.get(parent);
        if (grand?.type === 'CallExpression' && grand.callee === parent) return undefined;
      } else if (member !== null && HARMLESS_STDOUT_MEMBERS.has(member)) {
        return undefined;
      }
    }
    // readline.createInterface({ input: process.stdin, output: process.stdout })
    if (parent?.type === 'ObjectProperty' && parent.value === node && isIdentifierNamed(parent.key, 'output')) return undefined;
    problem = `line ${lineOf(node)}: process.stdout is used in a way the envelope rewrite cannot follow`;
    return 'skip';
  });
  return problem;
}

// ---------------------------------------------------------------- framer

function getFramer(ast: File, source: string, writes: StdoutWrite[], parents: Map<Node, Node>): { framer: Framer | null } | { failed: string } {
  const framers = new Set<FunctionNode>();
  for (const write of writes) {
    if (write.payload?.type !== 'Identifier') continue;
    const fn = getAncestors(parents, write.call).reverse().find(isFunctionNode);
    if (fn === undefined || fn.params.length !== 1) continue;
    const param = fn.params[0]!;
    if (isIdentifierNamed(param, write.payload.name)) framers.add(fn);
  }
  if (framers.size === 0) return { framer: null };
  if (framers.size > 1) {
    const lines = [...framers].map((fn) => lineOf(fn)).join(', ');
    return { failed: `replies are framed by more than one function (lines ${lines})` };
  }
  const fn = [...framers][0]!;
  const parent = parents.get(fn);
  if (fn.type === 'FunctionDeclaration' && fn.id && parent !== undefined) {
    return checkFunctionFramer(ast, { kind: 'function', fn, name: fn.id.name, statement: fn, block: parent });
  }
  if ((fn.type === 'ArrowFunctionExpression' || fn.type === 'FunctionExpression') && parent?.type === 'VariableDeclarator' && parent.id.type === 'Identifier') {
    const declaration = parents.get(parent);
    const block = declaration === undefined ? undefined : parents.get(declaration);
    if (declaration?.type === 'VariableDeclaration' && block !== undefined) {
      return checkFunctionFramer(ast, { kind: 'function', fn, name: parent.id.name, statement: declaration, block });
    }
  }
  if (fn.type === 'ClassMethod' && fn.kind === 'method' && !fn.static && !fn.computed && fn.key.type === 'Identifier') {
    const body = parents.get(fn);
    const classNode = body === undefined ? undefined : parents.get(body);
    if (classNode?.type === 'ClassDeclaration' || classNode?.type === 'ClassExpression') {
      const param = fn.params[0]!;
      const annotation = param.type === 'Identifier' && param.typeAnnotation?.type === 'TSTypeAnnotation' ? param.typeAnnotation.typeAnnotation : null;
      return { framer: { kind: 'method', fn, name: fn.key.name, classNode, paramType: annotation === null ? null : source.slice(annotation.start!, annotation.end!) } };
    }
  }
  return { failed: `line ${lineOf(fn)}: the function that writes replies has a shape the envelope rewrite does not follow` };
}

function checkFunctionFramer(ast: File, framer: Framer & { kind: 'function' }): { framer: Framer } | { failed: string } {
  if (framer.block.type !== 'Program' && framer.block.type !== 'BlockStatement') {
    return { failed: `line ${lineOf(framer.fn)}: the writer ${framer.name}() is not declared in a block` };
  }
  if (countDeclarations(ast, framer.name) !== 1) return { failed: `the name of the writer ${framer.name}() is declared more than once` };
  return { framer };
}

/** Every use of the framer must be a direct call with one argument: otherwise a reply can bypass the envelope. */
function findFramerCalls(ast: File, framer: Framer, parents: Map<Node, Node>): { calls: CallExpression[] } | { failed: string } {
  const calls: CallExpression[] = [];
  let problem: string | null = null;
  walk(ast, (node) => {
    if (problem !== null) return 'skip';
    if (framer.kind === 'method' && contains(framer.classNode, node)) {
      // `const self = this; self.write(...)` or `this.write` where `this` is not the instance: unprovable
      if (node.type === 'VariableDeclarator' && node.init?.type === 'ThisExpression') {
        problem = `line ${lineOf(node)}: this is aliased in ${framer.classNode.id?.name ?? 'the class'}; the writer's calls cannot be followed`;
        return 'skip';
      }
      if (node.type === 'MemberExpression' && node.object.type === 'ThisExpression' && getPropertyName(node) === framer.name && !isInsideClassInstance(node, framer.classNode, parents)) {
        problem = `line ${lineOf(node)}: this.${framer.name} is used where this is not the instance`;
        return 'skip';
      }
    }
    if (!isFramerReference(node, framer, parents)) return undefined;
    const parent = parents.get(node);
    if (parent?.type === 'CallExpression' && parent.callee === node && parent.arguments.length === 1 && parent.arguments[0]!.type !== 'SpreadElement') {
      calls.push(parent);
    } else {
      problem = `line ${lineOf(node)}: the writer ${framer.name}() is used other than by a direct call`;
    }
    return undefined;
  });
  if (problem !== null) return { failed: problem };
  if (calls.length === 0) return { failed: `the writer ${framer.name}() is never called` };
  return { calls };
}

/** Is this node a reference to the framer (`send`, `this.write`, `server.write`)? */
function isFramerReference(node: Node, framer: Framer, parents: Map<Node, Node>): boolean {
  if (framer.kind === 'function') return node.type === 'Identifier' && node.name === framer.name && isReference(node, parents);
  if (node.type !== 'MemberExpression' || node.computed || getPropertyName(node) !== framer.name) return false;
  if (node.object.type === 'ThisExpression') return isInsideClassInstance(node, framer.classNode, parents);
  return node.object.type === 'Identifier' && isInstanceBinding(node.object.name, framer.classNode, parents);
}

/** An identifier that reads a variable (not a property name, a declaration or a label). */
export function isReference(node: Identifier, parents: Map<Node, Node>): boolean {
  const parent = parents.get(node);
  if (parent === undefined) return false;
  switch (parent.type) {
    case 'MemberExpression':
    case 'OptionalMemberExpression':
      return parent.object === node || parent.computed;
    case 'ObjectProperty':
      return parent.value === node && parents.get(parent)?.type !== 'ObjectPattern';
    case 'ClassMethod':
    case 'ObjectMethod':
    case 'ClassProperty':
      return parent.computed && parent.key === node;
    case 'FunctionDeclaration':
    case 'FunctionExpression':
      return false;
    case 'VariableDeclarator':
      return parent.init === node;
    case 'LabeledStatement':
    case 'BreakStatement':
    case 'ContinueStatement':
    case 'ImportSpecifier':
    case 'ImportDefaultSpecifier':
    case 'ImportNamespaceSpecifier':
    case 'ExportSpecifier':
    case 'CatchClause':
      return false;
    case 'ArrowFunctionExpression':
      return parent.body === node;
    default:
      return true;
  }
}

/** `this` in this node is an instance of the class: only arrows between the node and a method or field of the class. */
export function isInsideClassInstance(node: Node, classNode: Node, parents: Map<Node, Node>): boolean {
  for (let current = parents.get(node); current !== undefined; current = parents.get(current)) {
    if (current.type === 'ArrowFunctionExpression') continue;
    if (current.type === 'ClassMethod' || current.type === 'ClassPrivateMethod') {
      return !current.static && parents.get(parents.get(current)!) === classNode;
    }
    if (current.type === 'ClassProperty' || current.type === 'ClassPrivateProperty') {
      return !current.static && parents.get(parents.get(current)!) === classNode;
    }
    if (isFunctionNode(current) || current.type === 'Program') return false;
  }
  return false;
}

/** `const server = new NumeralsServer()`, declared once. */
export function isInstanceBinding(name: string, classNode: ClassDeclaration | ClassExpression, parents: Map<Node, Node>): boolean {
  const className = classNode.id?.name;
  if (className === undefined) return false;
  const root = getAncestors(parents, classNode)[0];
  if (root?.type !== 'File') return false;
  let instance = false;
  walk(root, (n) => {
    if (n.type === 'VariableDeclarator' && isIdentifierNamed(n.id, name) && n.init) {
      const init = unwrapExpression(n.init);
      if (init.type === 'NewExpression' && isIdentifierNamed(init.callee, className)) instance = true;
    }
  });
  return instance && countDeclarations(root, name) === 1;
}

// ---------------------------------------------------------------- parse

function getIncomingParse(ast: File, framer: Framer | null, parents: Map<Node, Node>): ParseSite | { failed: string } {
  const candidates: { site: ParseSite; strong: boolean }[] = [];
  walk(ast, (node) => {
    if (!isJsonParseCall(node) || node.type !== 'CallExpression') return;
    if (framer !== null && contains(framer.fn, node)) return;
    const site = getParseSite(node, parents);
    if (site === null) return;
    const strength = getIncomingStrength(site, parents);
    if (strength !== null) candidates.push({ site, strong: strength === 'strong' });
  });
  const strong = candidates.filter((c) => c.strong);
  const chosen = strong.length > 0 ? strong : candidates;
  if (chosen.length === 0) return { failed: 'cannot find where incoming messages are parsed (JSON.parse of a message whose method is read)' };
  if (chosen.length > 1) return { failed: `incoming messages seem to be parsed in more than one place (lines ${chosen.map((c) => lineOf(c.site.call)).join(', ')})` };
  return chosen[0]!.site;
}

function getParseSite(call: CallExpression, parents: Map<Node, Node>): ParseSite | null {
  let top: Node = call;
  for (let p = parents.get(top); p !== undefined && isTransparent(p); p = parents.get(top)) top = p;
  const parent = parents.get(top);
  let target: string | null = null;
  let statement: Node | undefined;
  if (parent?.type === 'VariableDeclarator' && parent.init === top) {
    if (parent.id.type === 'Identifier') target = parent.id.name;
    else if (!(parent.id.type === 'ObjectPattern' && hasMethodKey(parent.id))) return null;
    statement = parents.get(parent);
  } else if (parent?.type === 'AssignmentExpression' && parent.right === top && parent.operator === '=' && parent.left.type === 'Identifier') {
    target = parent.left.name;
    statement = parents.get(parent);
  } else if (parent?.type === 'CallExpression' && parent.arguments.length === 1 && parent.arguments[0] === top) {
    // handle(JSON.parse(line))
    statement = parents.get(parent);
  } else {
    return null;
  }
  if (statement === undefined || !(statement.type === 'VariableDeclaration' || statement.type === 'ExpressionStatement')) return null;
  const ancestors = getAncestors(parents, call).reverse();
  let inTry = false;
  let exit: ParseSite['exit'] = null;
  for (let i = 0; i < ancestors.length; i++) {
    const node = ancestors[i]!;
    if (node.type === 'TryStatement' && contains(node.block, call) && exit === null) inTry = true;
    if (exit === null && LOOP_TYPES.has(node.type)) exit = 'continue';
    if (isFunctionNode(node)) {
      exit ??= 'return';
      break;
    }
  }
  return { call, target, inTry, statement: statement as Statement, exit };
}

function isTransparent(node: Node): boolean {
  return (
    node.type === 'ParenthesizedExpression' ||
    node.type === 'TSAsExpression' ||
    node.type === 'TSNonNullExpression' ||
    node.type === 'TSTypeAssertion' ||
    node.type === 'TSSatisfiesExpression'
  );
}

function hasMethodKey(pattern: Node): boolean {
  return pattern.type === 'ObjectPattern' && pattern.properties.some((p) => p.type === 'ObjectProperty' && isIdentifierNamed(p.key, 'method'));
}

/** 'strong': the parsed value's `.method` is read; 'weak': it is handed to a call; null: not a message. */
function getIncomingStrength(site: ParseSite, parents: Map<Node, Node>): 'strong' | 'weak' | null {
  if (site.target === null) return site.statement.type === 'VariableDeclaration' ? 'strong' : 'weak';
  const fn = getAncestors(parents, site.call).reverse().find(isFunctionNode);
  const scope = fn ?? getAncestors(parents, site.call)[0];
  if (scope === undefined) return null;
  let strength: 'strong' | 'weak' | null = null;
  walk(scope, (node) => {
    if (strength === 'strong') return 'skip';
    if (node.type === 'MemberExpression' && isIdentifierNamed(node.object, site.target!) && getPropertyName(node) === 'method') strength = 'strong';
    if (node.type === 'CallExpression' && node !== site.call && node.arguments.some((a) => isIdentifierNamed(a, site.target!))) strength ??= 'weak';
    return undefined;
  });
  return strength;
}

// ---------------------------------------------------------------- entry

function findEntrySites(
  ast: File,
  parse: ParseSite,
  framerCalls: CallExpression[],
  inlineWrites: StdoutWrite[],
  parents: Map<Node, Node>,
): { entries: EntrySite[] } | { failed: string } {
  const ancestors = getAncestors(parents, parse.call).reverse();
  const fnIndex = ancestors.findIndex(isFunctionNode);
  if (fnIndex < 0) return { failed: 'incoming messages are parsed at module level; there is no per-message function to scope' };
  const fn = ancestors[fnIndex] as FunctionNode;
  const loop = ancestors.slice(0, fnIndex).find((n) => LOOP_TYPES.has(n.type));
  const writeCalls = [...framerCalls, ...inlineWrites.map((w) => w.call)];
  if (loop !== undefined) return getHandleSite(parse, loop, writeCalls);
  return findScopeSites(ast, fn, parents);
}

/** Several messages per call (a loop over lines): wrap the statement that dispatches the message. */
function getHandleSite(parse: ParseSite, loop: Node, writeCalls: CallExpression[]): { entries: EntrySite[] } | { failed: string } {
  const message = parse.target;
  if (message === null) return { failed: `line ${lineOf(parse.call)}: the parsed message is destructured, not kept in one variable` };
  const body = 'body' in loop ? (loop.body as Node) : null;
  if (body === null || body.type !== 'BlockStatement') return { failed: `line ${lineOf(loop)}: the input loop has no block body` };
  const holder = body.body.findIndex((s) => contains(s, parse.call));
  if (holder < 0) return { failed: `line ${lineOf(parse.call)}: the parse is not in the input loop's body` };
  const after = body.body.slice(holder + 1).filter(
    (statement) => writeCalls.some((call) => contains(statement, call)) || passesMessage(statement, message),
  );
  if (after.length !== 1) {
    return { failed: `line ${lineOf(loop)}: the input loop hands the message on in ${after.length === 0 ? 'no' : 'more than one'} statement` };
  }
  const statement = after[0]!;
  if (statement.type !== 'ExpressionStatement') return { failed: `line ${lineOf(statement)}: the message is dispatched by a statement the rewrite does not wrap` };
  const expression = statement.expression;
  if (containsYield(expression)) return { failed: `line ${lineOf(statement)}: the dispatch uses yield` };
  const mode = expression.type === 'AwaitExpression' ? 'await-argument' : containsAwait(expression) ? 'async' : 'sync';
  return { entries: [{ kind: 'handle', expression, message, mode }] };
}

function passesMessage(statement: Node, message: string): boolean {
  let found = false;
  walk(statement, (node) => {
    if (found) return 'skip';
    const logging = node.type === 'CallExpression' && node.callee.type === 'MemberExpression' && isIdentifierNamed(node.callee.object, 'console');
    if ((node.type === 'CallExpression' || node.type === 'NewExpression') && !logging && node.arguments.some((a) => isIdentifierNamed(a, message))) found = true;
    return undefined;
  });
  return found;
}

/** One message per call of the parsing function: open the scope where that function is called. */
function findScopeSites(ast: File, fn: FunctionNode, parents: Map<Node, Node>): { entries: EntrySite[] } | { failed: string } {
  const parent = parents.get(fn);
  if ((fn.type === 'ArrowFunctionExpression' || fn.type === 'FunctionExpression') && parent?.type === 'CallExpression' && parent.arguments.includes(fn)) {
    return { entries: [{ kind: 'bind', value: fn }] };
  }
  let name: string | null = null;
  let classNode: ClassDeclaration | ClassExpression | null = null;
  if (fn.type === 'FunctionDeclaration' && fn.id) name = fn.id.name;
  else if ((fn.type === 'ArrowFunctionExpression' || fn.type === 'FunctionExpression') && parent?.type === 'VariableDeclarator' && parent.id.type === 'Identifier') name = parent.id.name;
  else if (fn.type === 'ClassMethod' && fn.kind === 'method' && !fn.static && !fn.computed && fn.key.type === 'Identifier') {
    name = fn.key.name;
    const cls = parents.get(parents.get(fn)!);
    if (cls?.type === 'ClassDeclaration' || cls?.type === 'ClassExpression') classNode = cls;
  }
  if (name === null || (fn.type === 'ClassMethod' && classNode === null)) {
    return { failed: `line ${lineOf(fn)}: the function that parses incoming messages has a shape the envelope rewrite does not follow` };
  }
  if (classNode === null && countDeclarations(ast, name) !== 1) return { failed: `the name ${name}() is declared more than once` };

  const entries: EntrySite[] = [];
  let problem: string | null = null;
  walk(ast, (node) => {
    if (problem !== null) return 'skip';
    let reference: Expression | null = null;
    if (classNode === null) {
      if (node.type === 'Identifier' && node.name === name && isReference(node, parents)) reference = node;
    } else if (node.type === 'MemberExpression' && !node.computed && getPropertyName(node) === name) {
      if (node.object.type === 'ThisExpression' && isInsideClassInstance(node, classNode, parents)) reference = node;
      else if (node.object.type === 'Identifier' && isInstanceBinding(node.object.name, classNode, parents)) reference = node;
    }
    if (reference === null) return undefined;
    const use = parents.get(reference);
    if (use?.type === 'CallExpression' && use.callee === reference) {
      if (use.arguments.some((a) => containsAwait(a) || containsYield(a))) problem = `line ${lineOf(use)}: the call of ${name}() awaits in its arguments`;
      else entries.push({ kind: 'scope', call: use });
    } else if (use?.type === 'MemberExpression' && use.object === reference && getPropertyName(use) === 'bind') {
      const bindCall = parents.get(use);
      if (bindCall?.type === 'CallExpression' && bindCall.callee === use) entries.push({ kind: 'bind', value: bindCall });
      else problem = `line ${lineOf(use)}: ${name}() is used in a way the envelope rewrite cannot follow`;
    } else {
      entries.push({ kind: 'bind', value: reference });
    }
    return undefined;
  });
  if (problem !== null) return { failed: problem };
  if (entries.length === 0) return { failed: `${name}(), which parses incoming messages, is never called` };
  return { entries };
}

function containsAwait(node: Node): boolean {
  return containsOutsideFunctions(node, 'AwaitExpression');
}

function containsYield(node: Node): boolean {
  return containsOutsideFunctions(node, 'YieldExpression');
}

function containsOutsideFunctions(root: Node, type: string): boolean {
  let found = false;
  walk(root, (node) => {
    if (found || (node !== root && isFunctionNode(node))) return 'skip';
    if (node.type === type) found = true;
    return undefined;
  });
  return found;
}

// ---------------------------------------------------------------- helpers

export function lineOf(node: Node): number {
  return node.loc?.start.line ?? 0;
}

/** Whether a module imports or requires the envelope helper (the file was already rewritten). */
export function isEnvelopeSpecifier(specifier: string): boolean {
  return /(^|\/)mcp-envelope(\.[cm]?[jt]s)?$/.test(specifier);
}

export function importsEnvelopeHelper(ast: File): boolean {
  let found = false;
  walk(ast, (node) => {
    if (found) return 'skip';
    if (node.type === 'ImportDeclaration' && isEnvelopeSpecifier(node.source.value)) found = true;
    if (
      node.type === 'CallExpression' &&
      isIdentifierNamed(node.callee, 'require') &&
      node.arguments[0]?.type === 'StringLiteral' &&
      isEnvelopeSpecifier(node.arguments[0].value)
    ) {
      found = true;
    }
    return undefined;
  });
  return found;
}

/**
 * Every call that writes one reply (a framer call or an inline JSON write), best effort: used by
 * detection, which must not fail where the rewrite would.
 */
export function findReplyWrites(ast: File, source: string): CallExpression[] {
  const parents = buildParentMap(ast);
  const writes = findStdoutWrites(ast, parents);
  const framerResult = getFramer(ast, source, writes, parents);
  const framer = 'framer' in framerResult ? framerResult.framer : null;
  const out = writes.filter((w) => w.payload !== null && !(framer !== null && contains(framer.fn, w.call))).map((w) => w.call);
  if (framer !== null) {
    const calls = findFramerCalls(ast, framer, parents);
    if ('calls' in calls) out.push(...calls.calls);
  }
  return out;
}
