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
import { buildIndex, getMemberName, isReferenceIdentifier, resolveIdentifier, unwrapExpression, getBindingWrites, type AstIndex, type Binding, type FunctionNode } from '../analysis/ast.js';
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
import { findProtectedLineStarts, getLineIndent, getNodeRange, getRemovalRange } from './text.js';
import { buildZodShape } from './zod-schema.js';
import { splitToolCall, readToolTable, getKey } from './mcp-server-tools.js';
import { type Branch, findMethodBranch, isInside, Refusal, refuse, type Scope } from './mcp-server-request.js';
import { copyExpression, findUnboundedInteger, buildHandler } from './mcp-server-handler.js';

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

export function applyMcpServerStyle(input: McpServerInput): McpServerStyle {
  try {
    return build(input);
  } catch (err) {
    if (err instanceof Refusal) return { kind: 'fallback', reason: err.reason, detail: err.detail, line: err.line };
    // edits that meet (two branches sharing a line), a pattern the walk did not expect: the server style stands
    return { kind: 'fallback', reason: 'MCP_SERVER_SHAPE', detail: `the McpServer form could not be built: ${err instanceof Error ? err.message : String(err)}`, line: 0 };
  }
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
