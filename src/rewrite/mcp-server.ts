// `--style mcp-server`: the server-style SDK rewrite of a module (`new Server(...)`, the dispatcher
// registered with `setRequestHandler`), turned into McpServer with one `registerTool` per tool:
//
//   server.registerTool('word_count', {
//     description: 'Count words',
//     inputSchema: { text: z.string() },              (v1: zod, only when ./zod-schema.ts is lossless)
//   }, async (args) => {                               (v2: inputSchema: fromJsonSchema({ ...the literal }))
//     ...the tool's own branch of the dispatcher...
//   });
//   server.server.setRequestHandler(ListResourcesRequestSchema, handle);   (every other method as it was)
//
// It works on the rewritten text (replies are returns and throws there already), parsed again, and
// only where the split is proven: tools/list returns one literal table; tools/call picks the tool with
// a switch or if-chain on `params.name` at the top of its branch, after declarations only; each tool's
// branch ends in its own return or throw (or a `break` to a tail it then gets a copy of); a branch uses
// nothing of the request but the tool name and arguments, and nothing else of the dispatcher. Anything
// else is a `style` reason (src/model/reasons.ts) and the caller keeps the server style.
// What McpServer answers differently is returned as wire changes (src/model/wire-changes.ts).
// Deliberately not: resources, prompts and custom methods; they stay on the low-level server
// (`server.server`), answered by the dispatcher exactly as before.
import { t } from '../babel.js';
import { buildIndex, forEachChild, getLine, getMemberName, getPatternNames, isFunctionNode, isReferenceIdentifier, resolveIdentifier, unwrapExpression, getBindingWrites, type AstIndex, type Binding, type FunctionNode } from '../analysis/ast.js';
import { checkRewrite } from '../analysis/check.js';
import type { ReadModule } from '../analysis/read-module.js';
import { REASONS, type StyleReason } from '../model/reasons.js';
import { SDK_TARGETS } from '../model/sdk-targets.js';
import type { SdkTarget, Style } from '../model/types.js';
import { describeWireChange, type WireChange } from '../model/wire-changes.js';
import { parseSource } from '../parse.js';
import { EditList } from './edits.js';
import { pruneUnusedDeclarations } from './prune.js';
import { detectStyle, quoted, semi, type CodeStyle } from './style.js';
import { findProtectedLineStarts, getLineIndent, getNodeRange, getRemovalRange, reindentExpression, renderRange } from './text.js';
import { buildZodShape } from './zod-schema.js';

export type McpServerStyle =
  | { kind: 'applied'; after: string; tools: string[]; wireChanges: WireChange[] }
  | { kind: 'fallback'; reason: StyleReason; detail: string; line: number };

export interface McpServerInput {
  path: string;
  /** The module as the user wrote it (what the server-style rewrite started from): pruning compares with it. */
  original: t.File;
  /** The server-style rewrite of the module. */
  text: string;
  sdk: SdkTarget;
}

class Refusal extends Error {
  constructor(
    readonly reason: StyleReason,
    readonly detail: string,
    readonly line: number,
  ) {
    super(detail);
  }
}

const refuse = (reason: StyleReason, detail: string, node?: t.Node | null): never => {
  throw new Refusal(reason, detail, node ? getLine(node) : 0);
};

export function applyMcpServerStyle(input: McpServerInput): McpServerStyle {
  try {
    return build(input);
  } catch (err) {
    if (err instanceof Refusal) return { kind: 'fallback', reason: err.reason, detail: err.detail, line: err.line };
    // edits that meet (two branches sharing a line), a pattern the walk did not expect: the server style stands
    return { kind: 'fallback', reason: 'MCP_SERVER_SHAPE', detail: `the McpServer form could not be built: ${err instanceof Error ? err.message : String(err)}`, line: 0 };
  }
}

/** What the request is reached through, in the dispatcher, and how to name what a branch reads of it. */
interface Scope {
  index: AstIndex;
  dispatcher: FunctionNode;
}

interface ToolEntry {
  name: string;
  node: t.ObjectExpression;
  fields: Map<string, t.Node>;
  schema: unknown;
}

interface ToolBranch {
  name: string;
  /** The statements that become the handler body, in order (a copy of the shared tail included). */
  pieces: t.Statement[][];
  /** A `break;` that ends the branch and leads to the tail: not copied. */
  skip: t.Statement | null;
}

interface Branch {
  /** The statements of the branch (`case 'tools/call': { ... }` or `if (method === 'tools/call') { ... }`). */
  body: t.Statement[];
  /** How to take it out of the dispatcher. */
  arm: { kind: 'case'; node: t.SwitchCase } | { kind: 'if'; chain: t.IfStatement; test: t.Expression };
}

function build(input: McpServerInput): McpServerStyle {
  const { path, text, sdk } = input;
  const ast = parseSource(path, text);
  const index = buildIndex(ast, text);
  const style = detectStyle(text);
  const protectedStarts = findProtectedLineStarts(ast, text);
  const q = (value: string): string => quoted(style, value);
  const s = semi(style);
  const edits = new EditList();

  // 1. The server, the two tool registrations, the dispatcher they hand requests to.
  const construct = findServerConstruct(index);
  const serverBinding = construct.binding;
  const registrations = findRegistrations(index, serverBinding, sdk);
  const list = registrations.get('tools/list');
  const call = registrations.get('tools/call');
  if (!list || !call) return refuse('MCP_SERVER_NO_TOOL_SPLIT', 'the server answers no tools/list and tools/call: there is no tool to register', construct.statement);
  const listFn = getDispatcherName(list.handler);
  const callFn = getDispatcherName(call.handler);
  if (listFn === null || callFn === null || listFn !== callFn) return refuse('MCP_SERVER_SHAPE', 'tools/list and tools/call are not handed to one named dispatcher function of this module', call.statement);
  const dispatcher = findModuleFunction(index, listFn);
  if (!dispatcher) return refuse('MCP_SERVER_SHAPE', `the dispatcher ${listFn} is not a function declared at the top of this module`, call.statement);
  const scope: Scope = { index, dispatcher };
  if (dispatcher.body.type !== 'BlockStatement') return refuse('MCP_SERVER_SHAPE', `the dispatcher ${listFn} has no block body`, dispatcher);

  // 2. tools/list: one literal table.
  const listBranch = findMethodBranch(scope, dispatcher.body.body, 'tools/list');
  const callBranch = findMethodBranch(scope, dispatcher.body.body, 'tools/call');
  if (!listBranch || !callBranch) return refuse('MCP_SERVER_NO_TOOL_SPLIT', `the dispatcher ${listFn} does not pick tools/list and tools/call with a switch or if-chain on the method at its top level`, dispatcher);
  const tools = readToolTable(scope, listBranch);

  // 3. tools/call: one code path per tool.
  const split = splitToolCall(scope, callBranch, tools.map((tool) => tool.name));

  // 4. One registerTool per tool, where tools/list was registered.
  const unit = style.indent;
  const indent = getLineIndent(text, list.statement.start!);
  const serverName = serverBinding.name;
  const wire = new Set<WireChange>(['TOOL_ERRORS_AS_RESULTS', 'ARGUMENTS_VALIDATED', 'UNKNOWN_TOOL', 'SCHEMAS_REPUBLISHED', 'TOOLS_LIST_CHANGED']);
  let usesZod = false;
  const blocks: string[] = [];
  for (const tool of tools) {
    const branch = split.branches.get(tool.name)!;
    const config: string[] = [];
    for (const key of ['title', 'description']) {
      const node = tool.fields.get(key);
      if (node) config.push(`${key}: ${copyExpression(text, node, indent + unit)}`);
    }
    const schemaNode = tool.fields.get('inputSchema')!;
    if (sdk === 'v1') {
      const unbounded = findUnboundedInteger(tool.schema, []);
      if (unbounded !== null) return refuse('MCP_SERVER_SCHEMA_LOSSY', `the inputSchema of tool ${tool.name} has an integer without both bounds at ${unbounded}, which zod publishes with bounds ±(2^53-1)`, schemaNode);
      const shape = buildZodShape(tool.schema, { quote: style.quote });
      if (shape.kind === 'lossy') return refuse('MCP_SERVER_SCHEMA_LOSSY', `the inputSchema of tool ${tool.name} uses ${shape.keyword}, which has no lossless zod form`, schemaNode);
      config.push(`inputSchema: ${shape.text}`);
      usesZod = true;
      wire.add('ARGUMENTS_PARSED');
    } else {
      config.push(`inputSchema: fromJsonSchema(${copyExpression(text, schemaNode, indent + unit)})`);
    }
    const annotations = tool.fields.get('annotations');
    if (annotations) config.push(`annotations: ${copyExpression(text, annotations, indent + unit)}`);
    const handler = buildHandler(scope, split, branch, tool.name, style, protectedStarts, indent + unit);
    const comma = style.trailingComma ? ',' : '';
    blocks.push(
      [
        `${indent}${serverName}.registerTool(${q(tool.name)}, {`,
        ...config.map((c, i) => `${indent}${unit}${c}${i < config.length - 1 ? ',' : comma}`),
        `${indent}}, async (${handler.param}) => {`,
        handler.body,
        `${indent}})${s}`,
      ].join(style.eol),
    );
  }
  edits.replace(list.statement.start!, list.statement.end!, blocks.join(style.eol).slice(indent.length));
  const callRange = getRemovalRange(text, call.statement.start!, call.statement.end!);
  edits.remove(callRange.start, callRange.end);

  // 5. The dispatcher keeps every other method; its tools branches go.
  removeBranches(text, [listBranch, callBranch], edits);

  // 6. McpServer instead of Server; every other registration on the low-level server it holds.
  edits.replace(construct.callee.start!, construct.callee.end!, 'McpServer');
  moveConstructCapabilities(text, construct, edits, style);
  for (const member of index.members) {
    if (member.object.type !== 'Identifier' || resolveIdentifier(index, member.object) !== serverBinding) continue;
    const name = getMemberName(member);
    if (name === null || !LOW_LEVEL_MEMBERS.has(name)) continue;
    if (isInside(member, list.statement) || isInside(member, call.statement)) continue;
    edits.insert(member.object.end!, '.server');
  }
  rewriteImports(index, text, sdk, edits, style, usesZod);

  let after = edits.apply(text);
  try {
    after = pruneUnusedDeclarations(path, input.original, after);
    after = removeUnusedSdkImports(path, after, sdk);
  } catch (err) {
    return refuse('MCP_SERVER_SHAPE', `the McpServer form would not parse: ${err instanceof Error ? err.message : String(err)}`, null);
  }
  return { kind: 'applied', after, tools: tools.map((tool) => tool.name), wireChanges: [...wire] };
}

/** Members of the low-level Server that McpServer only has on `.server`. */
const LOW_LEVEL_MEMBERS = new Set(['setRequestHandler', 'setNotificationHandler', 'fallbackRequestHandler', 'fallbackNotificationHandler', 'registerCapabilities', 'removeRequestHandler']);

// ---- the server -----------------------------------------------------------------------------------

interface Construct {
  statement: t.Statement;
  callee: t.Identifier;
  expression: t.NewExpression;
  binding: Extract<Binding, { kind: 'const' | 'let' | 'var' }>;
}

/** `const server = new Server(info, options)`: exactly one. */
function findServerConstruct(index: AstIndex): Construct {
  const found = index.news.filter((n) => n.callee.type === 'Identifier' && n.callee.name === 'Server' && resolveIdentifier(index, n.callee)?.kind === 'import' || (n.callee.type === 'Identifier' && n.callee.name === 'Server' && isRequiredName(index, n.callee)));
  if (found.length !== 1) return refuse('MCP_SERVER_SHAPE', 'the rewrite does not create one `new Server(...)` held in a variable', found[1] ?? null);
  const expression = found[0]!;
  const declarator = index.parent.get(expression);
  if (!declarator || declarator.type !== 'VariableDeclarator' || declarator.id.type !== 'Identifier') return refuse('MCP_SERVER_SHAPE', 'the SDK server is not held in a variable', expression);
  const statement = index.parent.get(declarator);
  if (!statement || statement.type !== 'VariableDeclaration') return refuse('MCP_SERVER_SHAPE', 'the SDK server is not declared by a statement of its own', expression);
  const binding = resolveIdentifier(index, declarator.id);
  if (!binding || (binding.kind !== 'const' && binding.kind !== 'let' && binding.kind !== 'var')) return refuse('MCP_SERVER_SHAPE', 'the SDK server variable cannot be resolved', expression);
  return { statement, callee: expression.callee as t.Identifier, expression, binding };
}

/** `const { Server } = require(...)` binds Server as a const: still the SDK's. */
function isRequiredName(index: AstIndex, id: t.Identifier): boolean {
  const binding = resolveIdentifier(index, id);
  if (!binding || binding.kind !== 'const') return false;
  const init = binding.declarator.init;
  return init?.type === 'CallExpression' && init.callee.type === 'Identifier' && init.callee.name === 'require';
}

interface Registration {
  statement: t.ExpressionStatement;
  handler: t.Node;
}

/** `server.setRequestHandler(ListToolsRequestSchema, handle)` (v1) / `('tools/list', handle)` (v2), by method. */
function findRegistrations(index: AstIndex, server: Binding, sdk: SdkTarget): Map<string, Registration> {
  const out = new Map<string, Registration>();
  const keys: Record<string, string> = sdk === 'v1' ? { ListToolsRequestSchema: 'tools/list', CallToolRequestSchema: 'tools/call' } : { 'tools/list': 'tools/list', 'tools/call': 'tools/call' };
  for (const call of index.calls) {
    const callee = call.callee;
    if (callee.type !== 'MemberExpression' || callee.object.type !== 'Identifier' || getMemberName(callee) !== 'setRequestHandler') continue;
    if (resolveIdentifier(index, callee.object) !== server) continue;
    const [key, handler] = call.arguments;
    if (!key || !handler) continue;
    const method = key.type === 'Identifier' ? keys[key.name] : key.type === 'StringLiteral' ? keys[key.value] : undefined;
    if (method === undefined) continue;
    const statement = index.parent.get(call);
    if (!statement || statement.type !== 'ExpressionStatement') return refuse('MCP_SERVER_SHAPE', `the ${method} registration is not a statement of its own`, call);
    out.set(method, { statement, handler });
  }
  return out;
}

/** `handle`, or the function an arrow hands the request to: `async (request, extra) => (await handle(request, extra)) as ServerResult`, `(request, extra) => handle({ ...request, id: extra.requestId })`. */
function getDispatcherName(handler: t.Node): string | null {
  if (handler.type === 'Identifier') return handler.name;
  if (handler.type !== 'ArrowFunctionExpression' || handler.body.type === 'BlockStatement') return null;
  const first = handler.params[0];
  if (!first || first.type !== 'Identifier') return null;
  let body = unwrapExpression(handler.body);
  if (body.type === 'AwaitExpression') body = unwrapExpression(body.argument);
  if (body.type !== 'CallExpression' || body.callee.type !== 'Identifier') return null;
  // the request itself, or the request with the id the dispatcher reads: `handle({ ...request, id: extra.requestId })`
  const arg = body.arguments[0];
  if (arg?.type === 'Identifier' && arg.name === first.name) return body.callee.name;
  const spread = arg?.type === 'ObjectExpression' ? arg.properties[0] : undefined;
  return spread?.type === 'SpreadElement' && spread.argument.type === 'Identifier' && spread.argument.name === first.name ? body.callee.name : null;
}

/** `function handle(msg) {}` or `const handle = (msg) => {}` at the top of the module. */
function findModuleFunction(index: AstIndex, name: string): FunctionNode | null {
  const binding = index.scopes.get(index.program)?.get(name);
  if (!binding) return null;
  if (binding.kind === 'function') return binding.fn;
  if (binding.kind === 'const' && binding.pattern.length === 0 && binding.declarator.init) {
    const init = unwrapExpression(binding.declarator.init);
    if ((init.type === 'ArrowFunctionExpression' || init.type === 'FunctionExpression') && getBindingWrites(index, binding).length === 0) return init;
  }
  return null;
}

// ---- what a branch reads of the request ----------------------------------------------------------------

/**
 * The property path from the request an expression holds: `msg.params.name`, `params.arguments || {}`,
 * `name` from `const { name } = request.params`, ... -> ['params', 'name']. Null when it is not a plain
 * reading of the request (a call, a reassigned variable, a variable outside the dispatcher).
 */
function getRequestPath(scope: Scope, node: t.Node): string[] | null {
  const expression = unwrapExpression(node);
  switch (expression.type) {
    case 'Identifier': {
      const binding = resolveIdentifier(scope.index, expression);
      if (!binding) return null;
      if (binding.kind === 'param') {
        if (binding.fn !== scope.dispatcher || binding.index !== 0 || binding.rest) return null;
        return stringSteps(binding.pattern);
      }
      if (binding.kind !== 'const' && binding.kind !== 'let' && binding.kind !== 'var') return null;
      if (!isInside(binding.declarator, scope.dispatcher) || !binding.declarator.init || getBindingWrites(scope.index, binding).length > 0) return null;
      const base = getRequestPath(scope, binding.declarator.init);
      const steps = stringSteps(binding.pattern);
      return base === null || steps === null ? null : [...base, ...steps];
    }
    case 'MemberExpression':
    case 'OptionalMemberExpression': {
      const name = getMemberName(expression);
      const base = name === null ? null : getRequestPath(scope, expression.object);
      return base === null ? null : [...base, name!];
    }
    case 'LogicalExpression': {
      // `params || {}`, `request.params.arguments ?? {}`: the same value for every request the SDK routes here
      const right = unwrapExpression(expression.right);
      if (expression.operator === '&&' || right.type !== 'ObjectExpression' || right.properties.length > 0) return null;
      return getRequestPath(scope, expression.left);
    }
    default:
      return null;
  }
}

function stringSteps(pattern: readonly (string | number | null)[]): string[] | null {
  return pattern.every((step): step is string => typeof step === 'string') ? [...pattern] as string[] : null;
}

const isPath = (path: readonly string[] | null, ...want: string[]): boolean => path !== null && path.length === want.length && path.every((step, i) => step === want[i]);

// ---- the method branches ----------------------------------------------------------------------------------

/** The branch of `method` in a switch or if-chain on the request's method among `statements`. */
function findMethodBranch(scope: Scope, statements: readonly t.Statement[], method: string): Branch | null {
  for (const statement of statements) {
    if (statement.type === 'SwitchStatement' && isPath(getRequestPath(scope, statement.discriminant), 'method')) {
      for (const item of statement.cases) {
        if (item.test?.type !== 'StringLiteral' || item.test.value !== method) continue;
        // a case that shares its body with the case after it (`case 'tools/list': case 'x':`) is not its own
        if (item.consequent.length === 0) return null;
        const only = item.consequent.length === 1 ? item.consequent[0]! : null;
        return { body: only?.type === 'BlockStatement' ? only.body : item.consequent, arm: { kind: 'case', node: item } };
      }
    }
    if (statement.type === 'IfStatement') {
      for (let arm: t.Statement | null | undefined = statement; arm?.type === 'IfStatement'; arm = arm.alternate) {
        if (getComparedName(scope, arm.test, 'method') !== method) continue;
        return { body: arm.consequent.type === 'BlockStatement' ? arm.consequent.body : [arm.consequent], arm: { kind: 'if', chain: statement, test: arm.test } };
      }
    }
  }
  return null;
}

/** `x === 'lit'` / `'lit' == x` where x reads the request at `...path`: the literal. */
function getComparedName(scope: Scope, test: t.Node, ...path: string[]): string | null {
  const expression = unwrapExpression(test);
  if (expression.type !== 'BinaryExpression' || (expression.operator !== '===' && expression.operator !== '==')) return null;
  const [a, b] = [unwrapExpression(expression.left), unwrapExpression(expression.right)];
  if (b.type === 'StringLiteral' && isPath(getRequestPath(scope, a), ...path)) return b.value;
  if (a.type === 'StringLiteral' && isPath(getRequestPath(scope, b), ...path)) return a.value;
  return null;
}

// ---- tools/list -----------------------------------------------------------------------------------------

const TOOL_FIELDS = new Set(['name', 'title', 'description', 'inputSchema', 'annotations']);

/** `return { tools: [ { name, description, inputSchema }, ... ] }` (inline, or a constant of the module). */
function readToolTable(scope: Scope, branch: Branch): ToolEntry[] {
  const { index } = scope;
  const only = branch.body.length === 1 ? branch.body[0]! : null;
  const value = only?.type === 'ReturnStatement' && only.argument ? unwrapExpression(only.argument) : null;
  if (!value || value.type !== 'ObjectExpression' || value.properties.length !== 1) return refuse('MCP_SERVER_TOOL_TABLE', 'the tools/list branch does not only return `{ tools: [...] }`', only ?? branch.body[0]);
  const property = value.properties[0]!;
  if (property.type !== 'ObjectProperty' || getKey(property) !== 'tools') return refuse('MCP_SERVER_TOOL_TABLE', 'the tools/list branch does not only return `{ tools: [...] }`', property);
  const array = resolveConstant(index, property.value as t.Node);
  if (!array || array.type !== 'ArrayExpression') return refuse('MCP_SERVER_TOOL_TABLE', 'the tool table is not an array literal (or a constant holding one)', property.value);
  const tools: ToolEntry[] = [];
  for (const element of array.elements) {
    const entry = element ? resolveConstant(index, element) : null;
    if (!entry || entry.type !== 'ObjectExpression') return refuse('MCP_SERVER_TOOL_TABLE', 'a tool in the table is not an object literal', element ?? array);
    const fields = new Map<string, t.Node>();
    for (const prop of entry.properties) {
      const key = prop.type === 'ObjectProperty' ? getKey(prop) : null;
      if (key === null || prop.type !== 'ObjectProperty') return refuse('MCP_SERVER_TOOL_TABLE', 'a tool in the table has a computed, spread or method property', prop);
      if (!TOOL_FIELDS.has(key)) return refuse('MCP_SERVER_TOOL_TABLE', `a tool in the table has a "${key}" field that registerTool would not publish the same way`, prop);
      fields.set(key, prop.value as t.Node);
    }
    const value = evaluate(index, entry);
    if (value === NOT_STATIC) return refuse('MCP_SERVER_TOOL_TABLE', 'a tool in the table is not made of literals', entry);
    const record = value as Record<string, unknown>;
    if (typeof record.name !== 'string') return refuse('MCP_SERVER_TOOL_TABLE', 'a tool name is not a string literal', entry);
    if (!fields.has('inputSchema')) return refuse('MCP_SERVER_TOOL_TABLE', `tool ${record.name} has no inputSchema (McpServer would publish an empty one)`, entry);
    if (tools.some((tool) => tool.name === record.name)) return refuse('MCP_SERVER_TOOL_TABLE', `tool ${record.name} is listed twice`, entry);
    tools.push({ name: record.name, node: entry, fields, schema: record.inputSchema });
  }
  if (tools.length === 0) return refuse('MCP_SERVER_TOOL_TABLE', 'the tool table is empty', array);
  return tools;
}

function getKey(prop: t.ObjectProperty): string | null {
  if (!prop.computed && prop.key.type === 'Identifier') return prop.key.name;
  if (prop.key.type === 'StringLiteral') return prop.key.value;
  return null;
}

/** The literal a name stands for when it is a const of the module nothing writes; the node itself otherwise. */
function resolveConstant(index: AstIndex, node: t.Node): t.Node | null {
  const expression = unwrapExpression(node);
  if (expression.type !== 'Identifier') return expression;
  const binding = resolveIdentifier(index, expression);
  if (!binding || binding.kind !== 'const' || binding.pattern.length > 0 || !binding.declarator.init) return null;
  if (index.scopes.get(index.program)?.get(binding.name) !== binding) return null;
  return unwrapExpression(binding.declarator.init);
}

const NOT_STATIC = Symbol('not static');

/** The JSON value of a literal (objects, arrays, strings, numbers, booleans, null, module constants). */
function evaluate(index: AstIndex, node: t.Node): unknown {
  const expression = resolveConstant(index, node);
  if (!expression) return NOT_STATIC;
  switch (expression.type) {
    case 'StringLiteral':
    case 'NumericLiteral':
    case 'BooleanLiteral':
      return expression.value;
    case 'NullLiteral':
      return null;
    case 'TemplateLiteral':
      return expression.expressions.length === 0 ? expression.quasis[0]!.value.cooked ?? NOT_STATIC : NOT_STATIC;
    case 'MemberExpression': {
      // `SCHEMAS.roll`: a property of a constant object
      const name = getMemberName(expression);
      const object = name === null ? NOT_STATIC : evaluate(index, expression.object);
      return object !== null && typeof object === 'object' && !Array.isArray(object) && Object.prototype.hasOwnProperty.call(object, name!) ? (object as Record<string, unknown>)[name!] : NOT_STATIC;
    }
    case 'UnaryExpression':
      return expression.operator === '-' && expression.argument.type === 'NumericLiteral' ? -expression.argument.value : NOT_STATIC;
    case 'ArrayExpression': {
      const out: unknown[] = [];
      for (const element of expression.elements) {
        const value = element && element.type !== 'SpreadElement' ? evaluate(index, element) : NOT_STATIC;
        if (value === NOT_STATIC) return NOT_STATIC;
        out.push(value);
      }
      return out;
    }
    case 'ObjectExpression': {
      const out: Record<string, unknown> = {};
      for (const prop of expression.properties) {
        const key = prop.type === 'ObjectProperty' ? getKey(prop) : null;
        if (key === null || prop.type !== 'ObjectProperty') return NOT_STATIC;
        const value = evaluate(index, prop.value);
        if (value === NOT_STATIC) return NOT_STATIC;
        out[key] = value;
      }
      return out;
    }
    default:
      return NOT_STATIC;
  }
}

// ---- tools/call -----------------------------------------------------------------------------------------

interface Split {
  /** Declarations before the dispatch on the name (`const { name, arguments: args = {} } = request.params`). */
  prelude: t.VariableDeclaration[];
  branches: Map<string, ToolBranch>;
  /** The code of the tools/call branch, where each tool's code lies (for the references check). */
  branch: Branch;
}

function splitToolCall(scope: Scope, branch: Branch, names: readonly string[]): Split {
  const body = branch.body;
  let at = 0;
  const prelude: t.VariableDeclaration[] = [];
  while (at < body.length && body[at]!.type === 'VariableDeclaration') prelude.push(body[at++] as t.VariableDeclaration);
  for (const declaration of prelude) {
    for (const declarator of declaration.declarations) {
      if (declarator.init && !isPure(declarator.init)) return refuse('MCP_SERVER_NO_TOOL_SPLIT', 'tools/call runs code (a call, an assignment) before it picks the tool', declarator);
    }
  }
  const dispatch = body[at];
  if (!dispatch) return refuse('MCP_SERVER_NO_TOOL_SPLIT', 'tools/call does not pick the tool by its name', body[0]);
  const rest = body.slice(at + 1);
  const branches = new Map<string, ToolBranch>();
  const add = (name: string, tool: ToolBranch, node: t.Node): void => {
    if (branches.has(name)) refuse('MCP_SERVER_NO_TOOL_SPLIT', `tools/call has two branches for tool ${name}`, node);
    branches.set(name, tool);
  };

  if (dispatch.type === 'SwitchStatement' && isPath(getRequestPath(scope, dispatch.discriminant), 'params', 'name')) {
    // switch (name) { case 'a': ...; case 'b': ...; default: throw ... }   then an optional shared tail
    for (const item of dispatch.cases) {
      if (item.consequent.length === 0) return refuse('MCP_SERVER_NO_TOOL_SPLIT', 'two tools share one branch of tools/call', item);
      const statements = getCaseStatements(item);
      const breaks = findBreaks(statements);
      if (item.test === null || item.test === undefined) {
        if (breaks.length > 0 || !statements.every(isAnswer)) return refuse('MCP_SERVER_NO_TOOL_SPLIT', 'the default branch of tools/call does more than answer an unknown tool', item);
        continue;
      }
      if (item.test.type !== 'StringLiteral') return refuse('MCP_SERVER_NO_TOOL_SPLIT', 'a tools/call case is not a string literal', item.test);
      const last = statements[statements.length - 1]!;
      if (breaks.length === 0) {
        if (!terminates(last)) return refuse('MCP_SERVER_NO_TOOL_SPLIT', `the branch of tool ${item.test.value} runs on into the next one`, item);
        add(item.test.value, { name: item.test.value, pieces: [statements], skip: null }, item);
      } else {
        // `...; break;` then the tail after the switch (`return result`): the tool gets a copy of the tail
        if (breaks.length > 1 || breaks[0] !== last) return refuse('MCP_SERVER_NO_TOOL_SPLIT', `the branch of tool ${item.test.value} leaves the switch from inside (a break before its end)`, breaks[0]);
        if (rest.length === 0 || !terminates(rest[rest.length - 1]!)) return refuse('MCP_SERVER_NO_TOOL_SPLIT', 'the code after the switch on the tool name does not end with a return or throw', rest[0] ?? dispatch);
        add(item.test.value, { name: item.test.value, pieces: [statements, rest], skip: last }, item);
      }
    }
  } else if (dispatch.type === 'IfStatement' && getGuardedName(scope, dispatch) !== null) {
    // if (name !== 'only_tool') throw ...;   then the one tool's code
    const name = getGuardedName(scope, dispatch)!;
    if (rest.length === 0 || !terminates(rest[rest.length - 1]!)) return refuse('MCP_SERVER_NO_TOOL_SPLIT', `the code of tool ${name} does not end with a return or throw`, dispatch);
    add(name, { name, pieces: [rest], skip: null }, dispatch);
  } else if (dispatch.type === 'IfStatement') {
    // if (name === 'a') { ... } [else] if (name === 'b') { ... }   then only the answer to an unknown tool
    let position = at;
    let tail: t.Statement[] = [];
    for (; position < body.length; position++) {
      const statement = body[position]!;
      if (statement.type !== 'IfStatement') break;
      let arm: t.Statement | null | undefined = statement;
      for (; arm?.type === 'IfStatement'; arm = arm.alternate) {
        const name = getComparedName(scope, arm.test, 'params', 'name');
        if (name === null) return refuse('MCP_SERVER_NO_TOOL_SPLIT', 'a branch of tools/call tests something besides the tool name', arm.test);
        const statements = arm.consequent.type === 'BlockStatement' ? arm.consequent.body : [arm.consequent];
        if (statements.length === 0 || !terminates(statements[statements.length - 1]!)) return refuse('MCP_SERVER_NO_TOOL_SPLIT', `the branch of tool ${name} runs on into code other tools share`, arm);
        add(name, { name, pieces: [statements], skip: null }, arm);
      }
      if (arm) {
        tail = arm.type === 'BlockStatement' ? arm.body : [arm];
        if (position !== body.length - 1) return refuse('MCP_SERVER_NO_TOOL_SPLIT', 'code after the per-tool branches of tools/call is reached by more than unknown tools', body[position + 1]);
      }
    }
    tail = [...tail, ...body.slice(position)];
    if (!tail.every(isAnswer)) return refuse('MCP_SERVER_NO_TOOL_SPLIT', 'the code after the per-tool branches of tools/call does more than answer an unknown tool', tail.find((st) => !isAnswer(st)));
  } else {
    return refuse('MCP_SERVER_NO_TOOL_SPLIT', 'tools/call does not pick the tool with a switch or if-chain on params.name at the top of its branch', dispatch);
  }
  for (const name of names) if (!branches.has(name)) return refuse('MCP_SERVER_NO_TOOL_SPLIT', `tool ${name} has no branch of its own in tools/call`, dispatch);
  for (const name of branches.keys()) if (!names.includes(name)) return refuse('MCP_SERVER_NO_TOOL_SPLIT', `tools/call answers ${name}, which tools/list does not list`, dispatch);
  return { prelude, branches, branch };
}

/** A case's statements, its block opened: `case 'x': { ... }` and `case 'x': { ... } break;` alike. */
function getCaseStatements(item: t.SwitchCase): t.Statement[] {
  const [first, second] = item.consequent;
  if (first?.type === 'BlockStatement' && item.consequent.length === 1) return first.body;
  if (first?.type === 'BlockStatement' && item.consequent.length === 2 && second?.type === 'BreakStatement' && !second.label) return [...first.body, second];
  return item.consequent;
}

/** `if (name !== 'x') <return or throw>` with no else: the one tool is x. */
function getGuardedName(scope: Scope, statement: t.IfStatement): string | null {
  if (statement.alternate || !terminates(statement.consequent)) return null;
  const test = unwrapExpression(statement.test);
  if (test.type !== 'BinaryExpression' || (test.operator !== '!==' && test.operator !== '!=')) return null;
  const [a, b] = [unwrapExpression(test.left), unwrapExpression(test.right)];
  if (b.type === 'StringLiteral' && isPath(getRequestPath(scope, a), 'params', 'name')) return b.value;
  if (a.type === 'StringLiteral' && isPath(getRequestPath(scope, b), 'params', 'name')) return a.value;
  return null;
}

/** Control never goes past it. */
function terminates(statement: t.Statement): boolean {
  switch (statement.type) {
    case 'ReturnStatement':
    case 'ThrowStatement':
      return true;
    case 'BlockStatement':
      return statement.body.length > 0 && terminates(statement.body[statement.body.length - 1]!);
    case 'IfStatement':
      return statement.alternate !== null && statement.alternate !== undefined && terminates(statement.consequent) && terminates(statement.alternate);
    default:
      return false;
  }
}

/** A statement that only answers (the unknown-tool error McpServer now gives itself). */
function isAnswer(statement: t.Statement): boolean {
  if (statement.type === 'ThrowStatement' || statement.type === 'ReturnStatement') return isPure(statement.argument ?? null, true);
  if (statement.type === 'BlockStatement') return statement.body.every(isAnswer);
  return false;
}

/** `break;` statements among `statements` that leave the enclosing switch (not a loop or switch inside). */
function findBreaks(statements: readonly t.Statement[]): t.BreakStatement[] {
  const out: t.BreakStatement[] = [];
  const visit = (node: t.Node): void => {
    if (node.type === 'BreakStatement') {
      if (!node.label) out.push(node);
      return;
    }
    if (isFunctionNode(node) || node.type === 'SwitchStatement' || node.type === 'ForStatement' || node.type === 'ForInStatement' || node.type === 'ForOfStatement' || node.type === 'WhileStatement' || node.type === 'DoWhileStatement') return;
    forEachChild(node, visit);
  };
  for (const statement of statements) visit(statement);
  return out;
}

/** No calls, assignments, awaits or functions: reading it has no effect. `errors` allows `new Error(...)`-style throws. */
function isPure(node: t.Node | null, errors = false): boolean {
  if (!node) return true;
  let pure = true;
  const visit = (child: t.Node): void => {
    if (!pure) return;
    switch (child.type) {
      case 'CallExpression':
      case 'NewExpression':
        // `Object.assign(new Error(m), { code })`, `new McpError(...)`: how the server style throws an error
        if (errors && isErrorConstruction(child)) break;
        pure = false;
        return;
      case 'AssignmentExpression':
      case 'UpdateExpression':
      case 'AwaitExpression':
      case 'YieldExpression':
      case 'TaggedTemplateExpression':
        pure = false;
        return;
      default:
        if (isFunctionNode(child) || (child.type === 'UnaryExpression' && child.operator === 'delete')) {
          pure = false;
          return;
        }
    }
    forEachChild(child, visit);
  };
  visit(node);
  return pure;
}

function isErrorConstruction(node: t.CallExpression | t.NewExpression): boolean {
  const callee = node.callee;
  if (node.type === 'NewExpression') return callee.type === 'Identifier' && /^(?:[A-Z]\w*)?Error$/.test(callee.name);
  return callee.type === 'MemberExpression' && callee.object.type === 'Identifier' && callee.object.name === 'Object' && getMemberName(callee) === 'assign';
}

// ---- one handler ---------------------------------------------------------------------------------------

/**
 * The body of `async (args) => { ... }` for one tool: the declarations of the tools/call branch it uses
 * (the tool name becomes its literal, the arguments the handler's parameter), then its own code.
 */
function buildHandler(scope: Scope, split: Split, tool: ToolBranch, name: string, style: CodeStyle, protectedStarts: Set<number>, indent: string): { param: string; body: string } {
  const { index } = scope;
  const source = index.source;
  const q = (value: string): string => quoted(style, value);
  const s = semi(style);
  const pieces = tool.pieces.map((statements) => statements.filter((st) => st !== tool.skip)).filter((p) => p.length > 0);
  const ranges = pieces.map((p) => ({ start: getNodeRange(source, p[0]!).start, end: p[p.length - 1]!.end! }));
  const inCopied = (node: t.Node): boolean => ranges.some((r) => node.start! >= r.start && node.end! <= r.end);

  // the prelude's names: how each reads the request
  const preludeNames = new Map<string, { declarator: t.VariableDeclarator; declaration: t.VariableDeclaration; path: string[] | null }>();
  for (const declaration of split.prelude) {
    for (const declarator of declaration.declarations) {
      const base = declarator.init ? getRequestPath(scope, declarator.init) : null;
      for (const { name: local, pattern } of getPatternNames(declarator.id)) {
        const steps = stringSteps(pattern);
        preludeNames.set(local, { declarator, declaration, path: base === null || steps === null ? null : [...base, ...steps] });
      }
    }
  }
  const argsLocal = [...preludeNames].find(([, info]) => isPath(info.path, 'params', 'arguments'))?.[0] ?? null;
  // the handler's parameter: the name the branch already gives the arguments, or one its code does not declare
  const declared = new Set<string>();
  for (const [node, names] of index.scopes) if (inCopied(node)) for (const local of names.keys()) declared.add(local);
  const param = argsLocal ?? ['args', 'input', 'toolArgs', 'toolArguments'].find((n) => !declared.has(n) && !preludeNames.has(n)) ?? refuse('MCP_SERVER_NO_TOOL_SPLIT', `the code of tool ${name} declares every name the handler's parameter could take`, null);
  let argsRead = false;

  // every reference in the copied code (and in the prelude declarations it uses): rewritten or proven local
  const edits = new EditList();
  const used = new Set<string>();
  const check = (root: t.Node): void => {
    const visit = (node: t.Node): void => {
      if (node.type === 'ThisExpression') refuse('MCP_SERVER_NO_TOOL_SPLIT', `the code of tool ${name} uses \`this\` of the dispatcher`, node);
      if (node.type === 'MemberExpression' || node.type === 'OptionalMemberExpression' || node.type === 'LogicalExpression') {
        const path = getRequestPath(scope, node);
        if (isPath(path, 'params', 'name') && !isPreludeRead(node)) {
          replaceParenthesized(source, node, q(name), edits);
          return;
        }
        if (isPath(path, 'params', 'arguments') && !isPreludeRead(node)) {
          replaceParenthesized(source, node, param, edits);
          argsRead = true;
          return;
        }
      }
      if (node.type === 'Identifier' && isReferenceIdentifier(index, node)) {
        const binding = resolveIdentifier(index, node);
        if (node.name === 'arguments' && !binding) refuse('MCP_SERVER_NO_TOOL_SPLIT', `the code of tool ${name} reads \`arguments\` of the dispatcher`, node);
        const declared = binding === null ? null : getBindingNode(binding);
        if (binding && !isModuleLevel(index, binding) && declared !== null && !inCopied(declared)) {
          const prelude = preludeNames.get(node.name);
          if (!prelude || declared !== prelude.declarator) {
            refuse('MCP_SERVER_NO_TOOL_SPLIT', `the code of tool ${name} uses \`${node.name}\` of the dispatcher, which a registerTool handler does not have`, node);
          }
          if (!used.has(node.name)) {
            used.add(node.name);
            if (prelude!.path === null && prelude!.declarator.init) check(prelude!.declarator.init);
          }
        }
      }
      forEachChild(node, visit);
    };
    visit(root);
  };
  // an identifier declared by the prelude reads the request through its own declaration: kept as a name
  const isPreludeRead = (node: t.Node): boolean => {
    let root = unwrapExpression(node);
    while (root.type === 'MemberExpression' || root.type === 'OptionalMemberExpression' || root.type === 'LogicalExpression') root = unwrapExpression(root.type === 'LogicalExpression' ? root.left : root.object);
    if (root.type !== 'Identifier') return false;
    const info = preludeNames.get(root.name);
    const binding = resolveIdentifier(index, root);
    return info !== undefined && binding !== null && getBindingNode(binding) === info.declarator && info.path !== null && (isPath(info.path, 'params', 'arguments') || info.path.length > 2);
  };
  for (const piece of pieces) for (const statement of piece) check(statement);

  // the prelude, as this handler needs it
  const lines: string[] = [];
  for (const declaration of split.prelude) {
    for (const declarator of declaration.declarations) {
      const base = declarator.init ? getRequestPath(scope, declarator.init) : null;
      if (base !== null) {
        for (const { name: local } of getPatternNames(declarator.id)) {
          if (!used.has(local)) continue;
          const path = preludeNames.get(local)!.path;
          if (isPath(path, 'params', 'arguments')) {
            argsRead = true;
            if (local !== param) lines.push(`const ${local} = ${param}${s}`);
            continue;
          }
          if (isPath(path, 'params', 'name')) {
            lines.push(`const ${local} = ${q(name)}${s}`);
            continue;
          }
          // a default inside the pattern would be lost in `const x = args.x`
          if (path !== null && path.length > 2 && path[0] === 'params' && path[1] === 'arguments' && !source.slice(declarator.id.start!, declarator.id.end!).includes('=')) {
            argsRead = true;
            lines.push(`const ${local} = ${param}${path.slice(2).map((step) => (/^[A-Za-z_$][\w$]*$/.test(step) ? `.${step}` : `[${q(step)}]`)).join('')}${s}`);
            continue;
          }
          refuse('MCP_SERVER_NO_TOOL_SPLIT', `the code of tool ${name} uses \`${local}\`, which reads ${path === null ? 'the request in a way the rewrite cannot follow' : `request.${path.join('.')}`}`, declarator);
        }
        continue;
      }
      const names = getPatternNames(declarator.id).map((n) => n.name);
      if (!names.some((n) => used.has(n))) continue;
      const text = declarator.init ? `${source.slice(declarator.id.start!, declarator.id.end!)} = ${edits.apply(source, declarator.init.start!, declarator.init.end!)}` : source.slice(declarator.id.start!, declarator.id.end!);
      lines.push(`${declaration.kind} ${text}${s}`);
    }
  }
  const eol = style.eol;
  const body = [
    ...lines.map((line) => `${indent}${line}`),
    ...pieces.map((piece) => {
      const range = { start: getNodeRange(source, piece[0]!).start, end: piece[piece.length - 1]!.end! };
      const from = getLineIndent(source, range.start);
      return indent + renderRange(source, range.start, range.end, from, indent, protectedStarts, edits);
    }),
  ].join(eol);
  return { param: argsRead || used.has(param) ? param : '', body };
}

/** `(params.arguments || {})` -> `args`, not `(args)`. */
function replaceParenthesized(source: string, node: t.Node, text: string, edits: EditList): void {
  const extra = node.extra as { parenthesized?: boolean; parenStart?: number } | undefined;
  if (extra?.parenthesized === true && typeof extra.parenStart === 'number' && source[node.end!] === ')') edits.replace(extra.parenStart, node.end! + 1, text);
  else edits.replace(node.start!, node.end!, text);
}

/** The node that declares `binding`; null for an import (the binding records no node of its own). */
function getBindingNode(binding: Binding): t.Node | null {
  switch (binding.kind) {
    case 'var':
    case 'let':
    case 'const':
      return binding.declarator;
    case 'param':
    case 'function':
    case 'function-name':
      return binding.fn;
    case 'class':
    case 'enum':
      return binding.node;
    case 'catch':
      return binding.clause;
    case 'import':
      return null;
  }
}

function isModuleLevel(index: AstIndex, binding: Binding): boolean {
  return binding.kind === 'import' || index.scopes.get(index.program)?.get(binding.name) === binding;
}

function isInside(node: t.Node, outer: t.Node): boolean {
  return node.start! >= outer.start! && node.end! <= outer.end!;
}

/** An expression's text, its later lines moved to `indent`. */
function copyExpression(source: string, node: t.Node, indent: string): string {
  return reindentExpression(source.slice(node.start!, node.end!), getLineIndent(source, node.start!), indent);
}

/**
 * zod 4 has no unbounded integer: `z.number().int()` is published with `minimum: -(2^53-1)` and
 * `maximum: 2^53-1`. ./zod-schema.ts accepts that as a tightening; tools/list would still show bounds
 * the original never published, so here it is not lossless. The dotted path of the first such node.
 */
function findUnboundedInteger(schema: unknown, path: string[]): string | null {
  if (Array.isArray(schema)) return null;
  if (schema === null || typeof schema !== 'object') return null;
  const node = schema as Record<string, unknown>;
  const bounded = (a: string, b: string): boolean => typeof node[a] === 'number' || typeof node[b] === 'number';
  if (node.type === 'integer' && !(bounded('minimum', 'exclusiveMinimum') && bounded('maximum', 'exclusiveMaximum'))) return [...path, 'type'].join('.');
  if (node.items !== undefined) {
    const found = findUnboundedInteger(node.items, [...path, 'items']);
    if (found !== null) return found;
  }
  if (node.properties !== null && typeof node.properties === 'object') {
    for (const [key, value] of Object.entries(node.properties as Record<string, unknown>)) {
      const found = findUnboundedInteger(value, [...path, 'properties', key]);
      if (found !== null) return found;
    }
  }
  return null;
}

// ---- the rest of the module ---------------------------------------------------------------------------

/** Takes the tools branches out of the dispatcher; an if-chain is written again from the arms it keeps. */
function removeBranches(source: string, branches: Branch[], edits: EditList): void {
  const chains = new Map<t.IfStatement, t.Expression[]>();
  for (const branch of branches) {
    if (branch.arm.kind === 'case') {
      const range = getRemovalRange(source, getNodeRange(source, branch.arm.node).start, branch.arm.node.end!);
      edits.remove(range.start, range.end);
    } else {
      chains.set(branch.arm.chain, [...(chains.get(branch.arm.chain) ?? []), branch.arm.test]);
    }
  }
  for (const [chain, tests] of chains) {
    const arms: { test: t.Expression; consequent: t.Statement }[] = [];
    let rest: t.Statement | null = null;
    for (let arm: t.Statement | null | undefined = chain; arm; ) {
      if (arm.type !== 'IfStatement') {
        rest = arm;
        break;
      }
      if (!tests.includes(arm.test)) arms.push({ test: arm.test, consequent: arm.consequent });
      arm = arm.alternate;
    }
    const text = (node: t.Node): string => source.slice(node.start!, node.end!);
    if (arms.length === 0 && rest === null) {
      const range = getRemovalRange(source, getNodeRange(source, chain).start, chain.end!);
      edits.remove(range.start, range.end);
      continue;
    }
    const written = arms.map((arm) => `if (${text(arm.test)}) ${text(arm.consequent)}`).join(' else ');
    edits.replace(chain.start!, chain.end!, arms.length === 0 ? text(rest!) : rest ? `${written} else ${text(rest)}` : written);
  }
}

/**
 * McpServer installs its own resources and prompts handlers (and resources/templates/list) when its
 * constructor is given those capabilities; the server's own handlers answer them here, so those
 * capabilities are registered on the low-level server instead: `server.server.registerCapabilities(...)`.
 */
function moveConstructCapabilities(source: string, construct: Construct, edits: EditList, style: CodeStyle): void {
  const options = construct.expression.arguments[1];
  if (!options || options.type !== 'ObjectExpression') return;
  const property = options.properties.find((p): p is t.ObjectProperty => p.type === 'ObjectProperty' && getKey(p) === 'capabilities');
  if (!property) return;
  const value = unwrapExpression(property.value);
  const SAFE = new Set(['tools', 'logging', 'completions', 'experimental']);
  if (value.type === 'ObjectExpression' && value.properties.every((p) => p.type === 'ObjectProperty' && SAFE.has(getKey(p) ?? ''))) return;
  const capabilities = source.slice(property.value.start!, property.value.end!);
  if (options.properties.length === 1) edits.remove(construct.expression.arguments[0]!.end!, options.end!);
  else {
    const index = options.properties.indexOf(property);
    const next = options.properties[index + 1];
    const previous = options.properties[index - 1];
    if (next) edits.remove(property.start!, next.start!);
    else edits.remove(previous!.end!, property.end!);
  }
  const statementIndent = getLineIndent(source, construct.statement.start!);
  edits.insert(construct.statement.end!, `${style.eol}${statementIndent}${construct.binding.name}.server.registerCapabilities(${capabilities})${semi(style)}`);
}

/** Server -> McpServer (and zod / fromJsonSchema); the tool request schemas are no longer imported. */
function rewriteImports(index: AstIndex, source: string, sdk: SdkTarget, edits: EditList, style: CodeStyle, usesZod: boolean): void {
  const target = SDK_TARGETS[sdk];
  const eol = style.eol;
  const drop = new Set(['ListToolsRequestSchema', 'CallToolRequestSchema']);
  let done = false;
  for (const statement of index.program.body) {
    const list = getImportList(source, statement);
    if (!list) continue;
    if (list.from === target.serverModule && list.names.includes('Server')) {
      const names = list.names.map((n) => (n === 'Server' ? 'McpServer' : n));
      if (sdk === 'v2') names.push('fromJsonSchema');
      const from = sdk === 'v1' ? target.mcpServerModule : list.from;
      if (sdk === 'v1' && list.names.length > 1) refuse('MCP_SERVER_SHAPE', 'the SDK server import brings more than Server', statement);
      const lines = [list.write(names, from)];
      if (usesZod) lines.push(list.write(['z'], 'zod'));
      edits.replace(statement.start!, statement.end!, lines.join(eol));
      done = true;
    } else if (sdk === 'v1' && list.from === target.typesModule && list.names.some((n) => drop.has(n))) {
      const names = list.names.filter((n) => !drop.has(n));
      if (names.length > 0) edits.replace(statement.start!, statement.end!, list.write(names, list.from));
      else {
        const range = getRemovalRange(source, statement.start!, statement.end!);
        edits.remove(range.start, range.end);
      }
    }
  }
  if (!done) refuse('MCP_SERVER_SHAPE', 'the SDK Server is not imported by a plain import or require of its own', null);
}

/**
 * Names the server style imported for code that went with the dispatcher (`ProtocolError` its throws
 * used, `type ServerResult` its casts): unused now, so not imported. Only the SDK's and zod's imports.
 */
function removeUnusedSdkImports(path: string, text: string, sdk: SdkTarget): string {
  const target = SDK_TARGETS[sdk];
  const modules = new Set<string>([target.serverModule, target.mcpServerModule, target.stdioModule, 'zod', ...(target.typesModule ? [target.typesModule] : [])]);
  const index = buildIndex(parseSource(path, text), text);
  const read = new Set<string>();
  for (const id of index.identifiers) if (isReferenceIdentifier(index, id) || index.parent.get(id)?.type === 'TSTypeReference') read.add(id.name);
  const edits = new EditList();
  for (const statement of index.program.body) {
    const list = getImportList(text, statement);
    if (!list || !modules.has(list.from)) continue;
    const names = list.names.filter((n) => read.has(n.replace(/^type /, '')));
    if (names.length === list.names.length) continue;
    if (names.length > 0) edits.replace(statement.start!, statement.end!, list.write(names, list.from));
    else {
      const range = getRemovalRange(text, statement.start!, statement.end!);
      edits.remove(range.start, range.end);
    }
  }
  return edits.apply(text);
}

/** `import { a, type B } from 'x'` / `const { a } = require('x')`: the names, and how to write the line again. */
function getImportList(source: string, statement: t.Statement): { from: string; names: string[]; write: (names: string[], from: string) => string } | null {
  if (statement.type === 'ImportDeclaration' && statement.importKind !== 'type' && statement.specifiers.every((sp) => sp.type === 'ImportSpecifier' && sp.imported.type === 'Identifier' && sp.local.name === sp.imported.name)) {
    const names = statement.specifiers.map((sp) => `${(sp as t.ImportSpecifier).importKind === 'type' ? 'type ' : ''}${sp.local.name}`);
    const quote = source[statement.source.start!] ?? "'";
    const semicolon = source[statement.end! - 1] === ';' ? ';' : '';
    return { from: statement.source.value, names, write: (list, from) => `import { ${list.join(', ')} } from ${quote}${from}${quote}${semicolon}` };
  }
  if (statement.type === 'VariableDeclaration' && statement.declarations.length === 1) {
    const declarator = statement.declarations[0]!;
    const init = declarator.init;
    if (declarator.id.type !== 'ObjectPattern' || init?.type !== 'CallExpression' || init.callee.type !== 'Identifier' || init.callee.name !== 'require') return null;
    const arg = init.arguments[0];
    if (arg?.type !== 'StringLiteral') return null;
    const names: string[] = [];
    for (const prop of declarator.id.properties) {
      if (prop.type !== 'ObjectProperty' || !prop.shorthand || prop.key.type !== 'Identifier') return null;
      names.push(prop.key.name);
    }
    const quote = source[arg.start!] ?? "'";
    const semicolon = source[statement.end! - 1] === ';' ? ';' : '';
    return { from: arg.value, names, write: (list, from) => `${statement.kind} { ${list.join(', ')} } = require(${quote}${from}${quote})${semicolon}` };
  }
  return null;
}

// ---- the step the pipeline runs --------------------------------------------------------------------------

export interface StyledChanges {
  changes: Map<string, { before: string; after: string }>;
  style: Style;
  /** For the diff header: what was registered, every wire change, or why the server style stands. */
  notes: string[];
  wireChanges: WireChange[];
  styleReason?: StyleReason;
}

/**
 * `--style mcp-server` on a finished server-style rewrite: the McpServer form when it can be built and
 * passes the same re-check (parse, analysis, every name bound), else the server style with its reason.
 */
export function decideMcpServerStyle(
  entry: { path: string; source: string; ast: t.File },
  changes: Map<string, { before: string; after: string }>,
  sdk: SdkTarget,
  read: ReadModule | null,
  /** The McpServer form of this file already answered worse side by side (the proof): its differences. */
  refused?: string,
): StyledChanges {
  const fallback = (reason: StyleReason, detail: string, at: number): StyledChanges => {
    const line = at > 0 ? mapLine(own?.after ?? '', at, entry.source) : 0;
    return {
    changes,
    style: 'server',
    notes: [`--style mcp-server not applied: ${detail}${line > 0 ? ` (line ${line})` : ''} [${reason}] — ${REASONS[reason].hint}`],
    wireChanges: [],
    styleReason: reason,
    };
  };
  const own = changes.get(entry.path);
  if (refused !== undefined) return fallback('MCP_SERVER_ANSWERS_DIFFERENTLY', `run side by side with the original, the McpServer form answered worse than its listed wire changes allow: ${refused}`, 0);
  if (!own || changes.size > 1) return fallback('MCP_SERVER_SHAPE', 'the server-style rewrite changes modules besides this file', 0);
  const styled = applyMcpServerStyle({ path: entry.path, original: entry.ast, text: own.after, sdk });
  if (styled.kind === 'fallback') return fallback(styled.reason, styled.detail, styled.line);
  const next = new Map([[entry.path, { before: own.before, after: styled.after }]]);
  const problem = checkRewrite(entry, next, read, true);
  if (problem) return fallback('MCP_SERVER_SHAPE', `the McpServer form failed its re-check: ${problem.message}`, problem.line);
  return {
    changes: next,
    style: 'mcp-server',
    notes: [`tools registered with McpServer.registerTool: ${styled.tools.join(', ')}`, ...styled.wireChanges.map((change) => `wire change: ${describeWireChange(change, sdk)}`)],
    wireChanges: styled.wireChanges,
  };
}

/**
 * A line of the server-style rewrite as a line of the file the user wrote: the line whose text (trimmed)
 * is the same and appears once there; 0 when there is no such line (code the rewrite wrote itself).
 */
function mapLine(rewritten: string, line: number, original: string): number {
  const text = rewritten.split(/\r?\n/)[line - 1]?.trim() ?? '';
  if (text === '') return 0;
  const matches: number[] = [];
  original.split(/\r?\n/).forEach((candidate, i) => {
    if (candidate.trim() === text) matches.push(i + 1);
  });
  return matches.length === 1 ? matches[0]! : 0;
}
