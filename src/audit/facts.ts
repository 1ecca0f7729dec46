// What the audit knows about one file, computed once and shared by the checks: is it a hand-rolled
// JSON-RPC stdio server (the gate), its stdout writes, the messages they carry, its dispatches on
// `method`, the `JSON.parse` of incoming messages, and which code only runs for requests.
import type * as t from '@babel/types';
import { MCP_METHOD_NAMES } from '../model/mcp-methods.js';
import {
  type AstIndex,
  type FunctionNode,
  getEnclosingFunction,
  getMemberName,
  getMemberPath,
  getPatternNames,
  getStaticKey,
  isFunctionNode,
  resolveIdentifier,
  unwrapExpression,
} from '../analysis/ast.js';
import { type Dispatch, findDispatches, isMethodExpression } from './dispatch.js';
import { type Flow } from './flow.js';
import { IdGuards, isIdExpression } from './guards.js';
import { findMessages, type MessageInstance } from './messages.js';
import { findStdoutWrites, isStdoutStream, type StdoutWrite, type WriterHelper } from './sinks.js';

const PROCESS_MODULES = new Set(['process', 'node:process']);

export interface MessageParse {
  call: t.CallExpression;
  /** The `try` whose block holds the parse, in the same function; null when there is none. */
  tryStatement: t.TryStatement | null;
}

export class FileFacts {
  readonly writes: StdoutWrite[];
  readonly helpers: WriterHelper[];
  readonly guards: IdGuards;
  readonly sdkTransport: 'none' | 'stdio' | 'custom-streams';
  readonly isHandRolledServer: boolean;
  private cachedMessages: MessageInstance[] | null = null;
  private cachedDispatches: Dispatch[] | null = null;
  private cachedParses: MessageParse[] | null = null;
  private cachedWritingFunctions: Set<FunctionNode> | null = null;
  private cachedReturnWritten: Set<FunctionNode> | null = null;

  constructor(
    readonly index: AstIndex,
    readonly flow: Flow,
  ) {
    this.sdkTransport = getSdkTransportUse(index);
    const gateable = this.sdkTransport === 'none' && readsStdin(index);
    const found = gateable || this.sdkTransport === 'stdio' ? findStdoutWrites(index, flow) : { writes: [], helpers: [] };
    this.writes = found.writes;
    this.helpers = found.helpers;
    this.guards = new IdGuards(index, flow);
    this.isHandRolledServer = gateable && this.writesJson() && this.speaksJsonRpc();
  }

  /** Some write serialises a value to stdout (the server's replies are in this file). */
  private writesJson(): boolean {
    return this.writes.some((w) => w.payload.kind === 'message' || (w.payload.kind === 'forward' && w.payload.mode === 'json'));
  }

  /** A `jsonrpc` member, or a dispatch on `method` with MCP method names. */
  private speaksJsonRpc(): boolean {
    if (usesJsonrpc(this.index)) return true;
    if (this.dispatches.some((d) => d.branches.some((b) => MCP_METHOD_NAMES.includes(b.method)))) return true;
    return this.dispatches.some((d) => d.kind === 'map') && mentionsMcpMethod(this.index);
  }

  get messages(): MessageInstance[] {
    this.cachedMessages ??= findMessages(this.index, this.flow, this.writes);
    return this.cachedMessages;
  }

  get dispatches(): Dispatch[] {
    this.cachedDispatches ??= findDispatches(this.index);
    return this.cachedDispatches;
  }

  get messageParses(): MessageParse[] {
    this.cachedParses ??= findMessageParses(this.index, this.flow);
    return this.cachedParses;
  }

  /** Functions that write a message (directly, through a helper, or by calling one that does). */
  get writingFunctions(): Set<FunctionNode> {
    if (this.cachedWritingFunctions) return this.cachedWritingFunctions;
    const set = new Set<FunctionNode>();
    for (const write of this.writes) {
      const kind = write.payload.kind;
      if (kind === 'text' || kind === 'framing' || (kind === 'forward' && write.payload.mode === 'raw')) continue;
      const fn = getEnclosingFunction(this.index, write.call);
      if (fn) set.add(fn);
    }
    for (let round = 0; round < 2; round++) {
      for (const call of this.index.calls) {
        const callee = this.flow.resolveCallee(call);
        if (!callee || !set.has(callee)) continue;
        const fn = getEnclosingFunction(this.index, call);
        if (fn) set.add(fn);
      }
    }
    this.cachedWritingFunctions = set;
    return set;
  }

  /** Functions whose return value is written as the message: `out(await handle(msg))`. */
  get returnWrittenFunctions(): Set<FunctionNode> {
    if (this.cachedReturnWritten) return this.cachedReturnWritten;
    const set = new Set<FunctionNode>();
    for (const write of this.writes) {
      if (write.payload.kind !== 'message') continue;
      let node = unwrapExpression(write.payload.message);
      if (node.type === 'AwaitExpression') node = unwrapExpression(node.argument);
      if (node.type !== 'CallExpression') continue;
      const fn = this.flow.resolveCallee(node);
      if (fn) set.add(fn);
    }
    this.cachedReturnWritten = set;
    return set;
  }

  /** Message instances that pass through `region` (their literal or a call that carries them). */
  getMessagesIn(region: readonly t.Node[]): { message: MessageInstance; node: t.Node }[] {
    const out: { message: MessageInstance; node: t.Node }[] = [];
    for (const message of this.messages) {
      const inside = message.chain.filter((n) => isInRegion(n, region)).sort((a, b) => (a.start ?? 0) - (b.start ?? 0));
      if (inside.length > 0) out.push({ message, node: inside[0]! });
    }
    return out;
  }

  /**
   * The first place in `region` that writes a reply, or null.
   * - `proven`: a message that reaches stdout, a write to stdout, a `return` whose value is written, or a
   *   call of a function that writes messages, handed the message's id;
   * - `possible`: also calls of functions that write messages, and calls handed a JSON-RPC-looking
   *   literal (`envelope.send({ jsonrpc: '2.0', ... })`: a writer in another module).
   * Rules that report a reply use `proven`; rules that report a missing reply use `possible`.
   */
  findReplyIn(region: readonly t.Node[], mode: 'proven' | 'possible'): t.Node | null {
    const candidates: t.Node[] = this.getMessagesIn(region).map((m) => m.node);
    for (const write of this.writes) {
      const kind = write.payload.kind;
      if (kind === 'text' || kind === 'framing' || kind === 'forward') continue;
      if (isInRegion(write.call, region)) candidates.push(write.call);
    }
    for (const ret of this.index.returns) {
      if (!ret.argument || !isInRegion(ret, region)) continue;
      const fn = getEnclosingFunction(this.index, ret);
      if (fn && this.returnWrittenFunctions.has(fn)) candidates.push(ret);
    }
    for (const call of this.index.calls) {
      if (!isInRegion(call, region)) continue;
      const callee = this.flow.resolveCallee(call);
      const writes = callee !== null && this.writingFunctions.has(callee);
      // Proven: a reply helper handed the message's id (`fail(msg.id, -32601, ...)`); not a helper
      // answering some other request (`cancel(msg.params.requestId)`).
      if (writes && call.arguments.some((a) => isIdExpression(this.index, a))) candidates.push(call);
      else if (mode === 'possible' && (writes || call.arguments.some((a) => looksLikeMessage(a)))) candidates.push(call);
    }
    if (candidates.length === 0) return null;
    return candidates.reduce((a, b) => ((b.start ?? 0) < (a.start ?? 0) ? b : a));
  }

  /** Throw statements in `region` that are not inside a nested function. */
  findThrowsIn(region: readonly t.Node[]): t.ThrowStatement[] {
    const out: t.ThrowStatement[] = [];
    const stack: t.Node[] = [...region];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.type === 'ThrowStatement') out.push(node);
      if (isFunctionNode(node)) continue;
      switch (node.type) {
        case 'BlockStatement':
          stack.push(...node.body);
          break;
        case 'IfStatement':
          stack.push(node.consequent);
          if (node.alternate) stack.push(node.alternate);
          break;
        case 'TryStatement':
          stack.push(node.block);
          if (node.handler) stack.push(node.handler.body);
          if (node.finalizer) stack.push(node.finalizer);
          break;
        default:
          break;
      }
    }
    return out;
  }
}

/** An object literal with `jsonrpc`, or with `id` and `result` / `error`. */
function looksLikeMessage(node: t.Node): boolean {
  const expr = unwrapExpression(node);
  if (expr.type !== 'ObjectExpression') return false;
  const keys = new Set(expr.properties.map((p) => (p.type === 'SpreadElement' ? null : getStaticKey(p))));
  return keys.has('jsonrpc') || (keys.has('id') && (keys.has('result') || keys.has('error')));
}

export function isInRegion(node: t.Node, region: readonly t.Node[]): boolean {
  if (node.start == null || node.end == null) return false;
  return region.some((r) => r.start != null && r.end != null && node.start! >= r.start && node.end! <= r.end);
}

function readsStdin(index: AstIndex): boolean {
  for (const member of index.members) {
    if (getMemberName(member) === 'stdin') {
      const path = getMemberPath(member);
      if (path === 'process.stdin' || path === 'globalThis.process.stdin') return true;
    }
  }
  for (const id of index.identifiers) {
    if (id.name !== 'stdin') continue;
    const binding = resolveIdentifier(index, id);
    if (binding?.kind === 'import' && PROCESS_MODULES.has(binding.source) && binding.imported === 'stdin') return true;
    if ((binding?.kind === 'const' || binding?.kind === 'let' || binding?.kind === 'var') && binding.pattern[0] === 'stdin') {
      const init = binding.declarator.init ? unwrapExpression(binding.declarator.init) : null;
      if (init?.type === 'Identifier' && init.name === 'process') return true;
    }
  }
  return false;
}

function usesJsonrpc(index: AstIndex): boolean {
  for (const object of index.objects) {
    for (const prop of object.properties) {
      if (prop.type === 'ObjectProperty' && getStaticKey(prop) === 'jsonrpc') return true;
    }
  }
  return false;
}

function mentionsMcpMethod(index: AstIndex): boolean {
  if (MCP_METHOD_NAMES.some((name) => index.stringValues.has(name))) return true;
  // Handler maps with identifier keys: { initialize(params) {...} }
  for (const object of index.objects) {
    for (const prop of object.properties) {
      if ((prop.type === 'ObjectMethod' || prop.type === 'ObjectProperty') && getStaticKey(prop) === 'initialize') return true;
    }
  }
  return false;
}

/** The SDK packages, or a local module (which may re-export the SDK's transport). */
function isSdkModule(source: string): boolean {
  return source.startsWith('@modelcontextprotocol/') || source.startsWith('./') || source.startsWith('../');
}

/**
 * `stdio` when the file builds the SDK's `StdioServerTransport` on the process streams;
 * `custom-streams` when it hands the transport other streams (stdout is then free to use).
 */
function getSdkTransportUse(index: AstIndex): 'none' | 'stdio' | 'custom-streams' {
  let imported = false;
  for (const id of index.identifiers) {
    if (id.name === 'StdioServerTransport' && isSdkBinding(resolveIdentifier(index, id))) imported = true;
  }
  // new sdk.StdioServerTransport(), with `sdk` a namespace import or require() of the SDK (compiled CJS)
  for (const node of index.news) {
    const callee = unwrapExpression(node.callee);
    if (callee.type !== 'MemberExpression' || getMemberName(callee) !== 'StdioServerTransport') continue;
    const object = unwrapExpression(callee.object);
    if (object.type === 'Identifier' && isSdkBinding(resolveIdentifier(index, object))) imported = true;
  }
  if (!imported) return 'none';
  for (const node of index.news) {
    const callee = unwrapExpression(node.callee);
    const name = callee.type === 'Identifier' ? callee.name : callee.type === 'MemberExpression' ? getMemberName(callee) : null;
    if (name !== 'StdioServerTransport') continue;
    const stdout = node.arguments[1];
    if (stdout && stdout.type !== 'SpreadElement' && stdout.type !== 'ArgumentPlaceholder' && !isStdoutStream(index, stdout, 0)) return 'custom-streams';
  }
  return 'stdio';
}

/** An import of, or a variable initialised from `require()` / `await import()` of, an SDK module. */
function isSdkBinding(binding: ReturnType<typeof resolveIdentifier>): boolean {
  if (binding?.kind === 'import') return isSdkModule(binding.source);
  if ((binding?.kind !== 'const' && binding?.kind !== 'let' && binding?.kind !== 'var') || !binding.declarator.init) return false;
  let init = unwrapExpression(binding.declarator.init);
  if (init.type === 'AwaitExpression') init = unwrapExpression(init.argument);
  let arg: t.Node | undefined;
  if (init.type === 'ImportExpression') arg = init.source;
  else if (init.type === 'CallExpression') {
    const callee = unwrapExpression(init.callee);
    if ((callee.type === 'Identifier' && callee.name === 'require') || callee.type === 'Import') arg = init.arguments[0];
  }
  return arg?.type === 'StringLiteral' && isSdkModule(arg.value);
}

/**
 * `JSON.parse` calls that produce the incoming message: their result has its `method` read, directly
 * or through the function it is passed to.
 *   msg = JSON.parse(line); ... msg.method            handle(JSON.parse(line)) with handle({ method })
 */
function findMessageParses(index: AstIndex, flow: Flow): MessageParse[] {
  const out: MessageParse[] = [];
  for (const call of index.calls) {
    if (getMemberPath(unwrapExpression(call.callee)) !== 'JSON.parse') continue;
    if (!isParsedMessage(index, flow, call)) continue;
    out.push({ call, tryStatement: getEnclosingTry(index, call) });
  }
  return out;
}

function isParsedMessage(index: AstIndex, flow: Flow, call: t.CallExpression): boolean {
  let node: t.Node = call;
  let parent = index.parent.get(node);
  while (parent && (parent.type === 'TSAsExpression' || parent.type === 'TSSatisfiesExpression' || parent.type === 'ParenthesizedExpression'
    || parent.type === 'TSNonNullExpression' || parent.type === 'TSTypeAssertion' || parent.type === 'AwaitExpression')) {
    node = parent;
    parent = index.parent.get(node);
  }
  if (!parent) return false;
  if (parent.type === 'VariableDeclarator' && parent.init === node) return patternReadsMethod(index, flow, parent.id, 0);
  if (parent.type === 'AssignmentExpression' && parent.right === node && parent.left.type === 'Identifier') {
    return bindingReadsMethod(index, flow, resolveIdentifier(index, parent.left), 0);
  }
  if ((parent.type === 'CallExpression' || parent.type === 'NewExpression') && parent.callee !== node) {
    return argumentReadsMethod(index, flow, parent, parent.arguments.indexOf(node as t.Expression), 0);
  }
  return false;
}

function patternReadsMethod(index: AstIndex, flow: Flow, pattern: t.Node, depth: number): boolean {
  if (pattern.type === 'ObjectPattern') {
    return pattern.properties.some((p) => p.type === 'ObjectProperty' && getStaticKey(p) === 'method');
  }
  if (pattern.type !== 'Identifier') return false;
  return bindingReadsMethod(index, flow, resolveIdentifier(index, pattern), depth);
}

type BindingOrNull = ReturnType<typeof resolveIdentifier>;

/** Whether a variable or parameter holding a message has its `method` read (or is passed on to where it is). */
function bindingReadsMethod(index: AstIndex, flow: Flow, binding: BindingOrNull, depth: number): boolean {
  if (!binding || depth > 3) return false;
  for (const ref of flow.getReferences(binding)) {
    const parent = index.parent.get(ref);
    if (!parent) continue;
    if ((parent.type === 'MemberExpression' || parent.type === 'OptionalMemberExpression') && parent.object === ref && isMethodExpression(index, parent)) return true;
    if (parent.type === 'VariableDeclarator' && parent.init === ref && parent.id.type === 'ObjectPattern'
      && getPatternNames(parent.id).some((n) => n.pattern[0] === 'method')) return true;
    if ((parent.type === 'CallExpression' || parent.type === 'NewExpression') && parent.callee !== ref
      && argumentReadsMethod(index, flow, parent, parent.arguments.indexOf(ref), depth + 1)) return true;
  }
  return false;
}

function argumentReadsMethod(index: AstIndex, flow: Flow, call: t.CallExpression | t.NewExpression, position: number, depth: number): boolean {
  if (position < 0 || depth > 3) return false;
  const fn = flow.resolveCallee(call);
  const param = fn?.params[position];
  if (!fn || !param) return false;
  const target = param.type === 'AssignmentPattern' ? param.left : param.type === 'TSParameterProperty' ? param.parameter : param;
  if (target.type === 'ObjectPattern') return patternReadsMethod(index, flow, target, depth);
  if (target.type !== 'Identifier') return false;
  const binding = index.scopes.get(fn)?.get(target.name) ?? null;
  return bindingReadsMethod(index, flow, binding, depth);
}

function getEnclosingTry(index: AstIndex, node: t.Node): t.TryStatement | null {
  let current = node;
  for (;;) {
    const parent = index.parent.get(current);
    if (!parent || isFunctionNode(parent)) return null;
    if (parent.type === 'TryStatement' && parent.block === current) return parent;
    current = parent;
  }
}
