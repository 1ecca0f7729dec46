// The SDK rewrite: removes the stdin loop, parsing, writer and SDK-owned branches; registers one
// `setRequestHandler` per method with the branch's own body; connects a StdioServerTransport.
// Computed as text edits on the original source (see edits.ts), then pruned and re-parsed.
import * as t from '@babel/types';
import { MCP_NOTIFICATIONS, MCP_REQUESTS, SDK_OWNED_METHODS, isMcpNotification, isMcpRequestMethod, type Capability } from '../model/mcp-methods.js';
import { SDK_TARGETS } from '../model/sdk-targets.js';
import type { MethodBranch, ServerModel } from '../model/server-model.js';
import type { ModuleKind, SdkTarget, Style } from '../model/types.js';
import { renderMcpServerTools, type McpServerTools } from './mcp-server.js';
import { getKeyName, getStdoutWriteKind, getSerializedValue, getWrittenArgument, walk } from '../detect/ast.js';
import { parseSource } from '../parse.js';
import { buildThrow, renderBranchBody, type BranchContext } from './branch.js';
import { EditList } from './edits.js';
import { pruneUnusedDeclarations } from './prune.js';
import { detectStyle, quoted, semi, type CodeStyle } from './style.js';
import { findProtectedLineStarts, getLineIndent, getNodeRange, reindentText, renderRange, widenToLines } from './text.js';

export interface SdkRewriteInput {
  ast: t.File;
  source: string;
  path: string;
  model: ServerModel;
  sdk: SdkTarget;
  style: Style;
  moduleKind: ModuleKind;
}

export type SdkRewriteResult = { after: string; notes: string[]; fixes: string[]; style: Style } | { failed: string; reason: string; line: number };

const OWNED: readonly string[] = SDK_OWNED_METHODS;

export function rewriteToSdk(input: SdkRewriteInput): SdkRewriteResult {
  const { ast, source, model } = input;
  const style = detectStyle(source);
  const typescript = /\.(c|m)?tsx?$/i.test(input.path);
  const target = SDK_TARGETS[input.sdk];
  const notes: string[] = [];
  const fixes: string[] = [];

  const registered = model.methods.filter((m) => isMcpRequestMethod(m.method));
  const notifications = model.methods.filter((m) => !OWNED.includes(m.method) && m.method.startsWith('notifications/'));
  const custom = model.methods.filter((m) => !OWNED.includes(m.method) && !isMcpRequestMethod(m.method) && !m.method.startsWith('notifications/'));
  const customNotification = notifications.find((m) => !isMcpNotification(m.method));
  if (customNotification) {
    return { failed: `the server handles ${customNotification.method}, which is not an MCP notification`, reason: 'UNSUPPORTED_CONTROL_FLOW', line: customNotification.line };
  }
  if (registered.length === 0) return { failed: 'no MCP request method is served', reason: 'NO_DISPATCH', line: model.dispatch.line };

  const taken = collectTopLevelNames(ast.program, model);
  const serverName = taken.has('server') ? 'mcpServer' : 'server';
  const anchor = model.registrationAnchor;
  const anchorIndent = getLineIndent(source, anchor.start!);
  const protocol = model.dispatch.protocol;
  const wrapErrors = (protocol.kind === 'return-result' || protocol.kind === 'assign-envelope') && protocol.errorCode !== null ? protocol.errorCode : null;
  const protectedLineStarts = findProtectedLineStarts(ast, source);
  const eol = style.eol;

  // 1. One handler per MCP method, in the order the original dispatched them (or one registerTool per tool).
  let tools: McpServerTools | null = null;
  if (input.style === 'mcp-server') {
    tools = renderMcpServerTools({ source, program: ast.program, model, sdk: input.sdk, style, anchorIndent, serverName, protectedLineStarts, typescript, fixes, notes });
    if (tools.kind === 'fallback') notes.push(`--style mcp-server not applied: ${tools.reason} (line ${tools.line}); the low-level Server keeps tools/list exactly as it was`);
  }
  const useMcpServer = tools?.kind === 'tools';
  const blocks: string[] = tools?.kind === 'tools' ? [...tools.blocks] : [];
  for (const branch of registered) {
    if (useMcpServer && (branch.method === 'tools/list' || branch.method === 'tools/call')) continue;
    const rendered = renderHandler(branch, { input, style, anchorIndent, wrapErrors, protectedLineStarts, typescript, serverName, fixes });
    if ('failed' in rendered) return rendered;
    blocks.push(rendered.text);
  }
  for (const branch of notifications) {
    const rendered = renderHandler(branch, { input, style, anchorIndent, wrapErrors: null, protectedLineStarts, typescript, serverName, fixes }, true);
    if ('failed' in rendered) return rendered;
    blocks.push(rendered.text);
    if (branch.method === 'notifications/cancelled') notes.push("notifications/cancelled runs the server's own handler in place of the SDK's (which aborted the request's signal)");
  }
  if (custom.length > 0) {
    const rendered = renderFallbackHandler(custom, { input, style, anchorIndent, wrapErrors, protectedLineStarts, typescript, serverName, fixes });
    if ('failed' in rendered) return rendered;
    blocks.push(rendered.text);
    notes.push(`custom methods ${custom.map((m) => m.method).join(', ')} keep answering through fallbackRequestHandler`);
  }

  // 2. The server, with the name, version, capabilities and instructions initialize used to send.
  const construction = buildConstruction(model, registered.map((b) => b.method), { input, style, anchorIndent, serverName, notes, protectedLineStarts });
  if ('failed' in construction) return construction;
  const constructed = useMcpServer ? construction.text.replace(' = new Server(', ' = new McpServer(') : construction.text;
  const registrations = [constructed, ...blocks].join(eol + eol);

  // 3. The transport, where the loop used to start.
  const connect = buildConnect(model, { style, typescript, serverName, moduleKind: input.moduleKind, taken, indent: getLineIndent(source, model.input.anchor.start!), sdk: input.sdk });
  if (input.sdk === 'v1') fixes.push('bad JSON gets -32700 with id null, and the server keeps serving');
  else notes.push('SDK v2 drops lines that are not JSON without a reply and offers no hook to answer them with -32700');

  const edits = new EditList();
  const loopAnchor = model.input.anchor;
  // The replaced statement starts after its line's indentation, so the first line drops it.
  const registrationsText = registrations.slice(anchorIndent.length);
  if (anchor === loopAnchor) {
    edits.replace(loopAnchor.start!, loopAnchor.end!, registrationsText + eol + eol + connect);
  } else {
    edits.replace(anchor.start!, anchor.end!, registrationsText);
    edits.replace(loopAnchor.start!, loopAnchor.end!, connect.slice(getLineIndent(source, loopAnchor.start!).length));
  }
  const removals = new Set<t.Node>([...model.input.removals, ...(model.dispatch.container ? [model.dispatch.container] : [])]);
  for (const writer of findUnusedWriterMethods(ast.program, model, removals)) removals.add(writer);
  removals.delete(anchor);
  removals.delete(loopAnchor);
  for (const node of mergeRemovals(source, [...removals], ast.program)) edits.remove(node.start, node.end);

  // 4. Logging left in the file goes to stderr; protocol writes outside the dispatcher cannot be moved.
  const writerRanges = model.writerDeclarations.map((d) => ({ start: d.start!, end: d.end! }));
  for (const call of findStdoutCalls(ast.program)) {
    if (edits.touches(call.start!, call.end!)) continue;
    if (writerRanges.some((r) => call.start! >= r.start && call.end! <= r.end)) continue;
    const kind = getStdoutWriteKind(call)!;
    if (getSerializedValue(getWrittenArgument(call, kind)) && kind !== 'console') {
      return { failed: 'the file writes JSON to stdout outside the dispatcher and its writer helpers', reason: 'UNRESOLVED_WRITER', line: call.loc!.start.line };
    }
    if (kind === 'writeSync') continue;
    const callee = call.callee as t.MemberExpression;
    if (kind === 'stdout.write') edits.replace(callee.object.start!, callee.object.end!, 'process.stderr');
    else edits.replace(callee.property.start!, callee.property.end!, 'error');
  }

  // 5. SDK imports next to the file's own.
  const schemas = [
    ...new Set([...registered.filter((b) => !(useMcpServer && b.method.startsWith('tools/'))), ...notifications].map((b) => getSchemaName(b.method))),
  ].sort();
  const useImport = model.syntax === 'import' || (model.syntax === 'none' && input.moduleKind === 'esm');
  const usesProtocolError = [...blocks, connect].some((b) => b.includes('new ProtocolError('));
  const serverClass = useMcpServer ? 'McpServer' : 'Server';
  const fromServerModule = [serverClass, ...(usesProtocolError ? ['ProtocolError'] : []), ...(tools?.kind === 'tools' && tools.usesFromJsonSchema ? ['fromJsonSchema'] : [])].sort();
  const importLines = [
    importLine(useImport, style, fromServerModule, useMcpServer ? target.mcpServerModule : target.serverModule),
    importLine(useImport, style, ['StdioServerTransport'], target.stdioModule),
    ...(target.typesModule && schemas.length > 0 ? [importLine(useImport, style, schemas, target.typesModule)] : []),
    ...(tools?.kind === 'tools' && tools.usesZod ? [importLine(useImport, style, ['z'], 'zod')] : []),
  ];
  const importAt = findImportPosition(ast.program, source);
  edits.insert(importAt.offset, importAt.before + importLines.join(eol) + importAt.after);

  const collapse = (text: string) => (/\n[ \t]*\r?\n[ \t]*\r?\n/.test(source) ? text : text.replace(/(\r?\n)([ \t]*\r?\n){2,}/g, '$1$1'));
  const rewritten = collapse(edits.apply(source));
  let pruned: string;
  try {
    // Parses the rewritten text (so it is proven to parse), then removes what only the old loop used;
    // removing whole declarations is checked again below.
    pruned = collapse(pruneUnusedDeclarations(input.path, ast, rewritten));
    if (pruned !== rewritten) parseSource(input.path, pruned);
  } catch (err) {
    return { failed: `the rewritten file does not parse: ${(err as Error).message}`, reason: 'UNSUPPORTED_CONTROL_FLOW', line: model.dispatch.line };
  }
  return { after: pruned, notes, fixes: [...new Set(fixes)], style: useMcpServer ? 'mcp-server' : 'server' };
}

interface RenderContext {
  input: SdkRewriteInput;
  style: CodeStyle;
  anchorIndent: string;
  wrapErrors: number | null;
  protectedLineStarts: Set<number>;
  typescript: boolean;
  serverName: string;
  fixes: string[];
}

type Rendered = { text: string } | { failed: string; reason: string; line: number };

// server.setRequestHandler(CallToolRequestSchema, async (msg) => {
//   ...the branch's statements, replies turned into return / throw...
// });
// server.setNotificationHandler(CancelledNotificationSchema, async (msg) => { ... });
function renderHandler(branch: MethodBranch, ctx: RenderContext, notification = false): Rendered {
  const { style, anchorIndent } = ctx;
  const unit = style.indent;
  const wrapped = ctx.wrapErrors !== null;
  const bodyIndent = anchorIndent + unit + (wrapped ? unit : '');
  const param = buildParam(branch, ctx);
  if ('failed' in param) return param;
  const branchContext: BranchContext = {
    source: ctx.input.source,
    style,
    protocol: ctx.input.model.dispatch.protocol,
    protectedLineStarts: ctx.protectedLineStarts,
    bodyIndent,
    paramsExpression: param.paramsExpression,
    typescript: ctx.typescript,
    sdk: ctx.input.sdk,
    fixes: ctx.fixes,
    notification,
  };
  const body = renderBranchBody(branch, branchContext);
  if ('failed' in body) return body;
  const prelude = buildPrelude(branch, ctx, bodyIndent);
  if (typeof prelude !== 'string') return prelude;
  let inner = [prelude, param.prologue(bodyIndent), body.text].filter((s) => s !== '').join(style.eol);
  if (wrapped) inner = wrapInErrorCode(inner, ctx);
  const usesParam = param.name !== '' && new RegExp(`\\b${escapeRegExp(param.usedName)}\\b`).test(inner);
  const method = ctx.input.sdk === 'v2' ? quoted(style, branch.method) : getSchemaName(branch.method);
  const register = notification ? 'setNotificationHandler' : 'setRequestHandler';
  return {
    text: `${anchorIndent}${ctx.serverName}.${register}(${method}, async (${usesParam ? param.name : ''}) => {${style.eol}${inner}${style.eol}${anchorIndent}})${semi(style)}`,
  };
}

// server.fallbackRequestHandler = async (msg) => {
//   if (msg.method === 'db/stats') { ... }
//   throw Object.assign(new Error('Method not found'), { code: -32601 });
// };
function renderFallbackHandler(branches: MethodBranch[], ctx: RenderContext): Rendered {
  const { style, anchorIndent } = ctx;
  const unit = style.indent;
  const model = ctx.input.model;
  const name = model.message.kind === 'identifier' ? model.message.name : 'request';
  const parts: string[] = [];
  for (const branch of branches) {
    const bodyIndent = anchorIndent + unit + unit + (ctx.wrapErrors !== null ? unit : '');
    const param = buildParam(branch, ctx);
    if ('failed' in param) return param;
    const body = renderBranchBody(branch, {
      source: ctx.input.source,
      style,
      protocol: model.dispatch.protocol,
      protectedLineStarts: ctx.protectedLineStarts,
      bodyIndent,
      paramsExpression: `${name}.params`,
      typescript: ctx.typescript,
      sdk: ctx.input.sdk,
      fixes: ctx.fixes,
    });
    if ('failed' in body) return body;
    const prelude = buildPrelude(branch, ctx, bodyIndent);
    if (typeof prelude !== 'string') return prelude;
    let inner = [prelude, param.prologue(bodyIndent), body.text].filter((s) => s !== '').join(style.eol);
    if (model.message.kind === 'pattern') {
      const locals = [...model.message.properties.entries()].filter(([key, local]) => key !== 'id' && new RegExp(`\\b${escapeRegExp(local)}\\b`).test(inner));
      if (locals.length > 0) {
        const destructure = `${anchorIndent}${unit}${unit}const { ${locals.map(([key, local]) => (key === local ? key : `${key}: ${local}`)).join(', ')} } = ${name}${semi(style)}`;
        inner = destructure + style.eol + inner;
      }
    }
    if (ctx.wrapErrors !== null) inner = wrapInErrorCode(inner, { ...ctx, anchorIndent: anchorIndent + unit });
    parts.push(`${anchorIndent}${unit}if (${name}.method === ${quoted(style, branch.method)}) {${style.eol}${inner}${style.eol}${anchorIndent}${unit}}`);
  }
  const notFound = buildThrow({ style, sdk: ctx.input.sdk }, '-32601', quoted(style, 'Method not found'));
  const paramType = ctx.typescript ? '' : '';
  return {
    text: `${anchorIndent}${ctx.serverName}.fallbackRequestHandler = async (${name}${paramType}) => {${style.eol}${parts.join(style.eol)}${style.eol}${anchorIndent}${unit}${notFound}${style.eol}${anchorIndent}}${semi(style)}`,
  };
}

//   try {
//     ...
//   } catch (error) {
//     throw Object.assign(new Error(error.message), { code: -32000 });
//   }
function wrapInErrorCode(inner: string, ctx: RenderContext): string {
  const { style, anchorIndent } = ctx;
  const unit = style.indent;
  const outer = anchorIndent + unit;
  const message = ctx.typescript ? '(error as Error).message' : 'error.message';
  const rethrow = buildThrow({ style, sdk: ctx.input.sdk }, String(ctx.wrapErrors), message);
  return [
    `${outer}// Errors thrown here reached the client as ${ctx.wrapErrors} with their message; they still do.`,
    `${outer}try {`,
    inner,
    `${outer}} catch (error) {`,
    `${outer}${unit}${rethrow}`,
    `${outer}}`,
  ].join(style.eol);
}

/**
 * The dispatcher's own declarations from the message (`const params = msg.params || {}`,
 * `const { params = {} } = msg`) that this branch reads, trimmed to what it reads.
 */
function buildPrelude(branch: MethodBranch, ctx: RenderContext, indent: string): string | { failed: string; reason: string; line: number } {
  const { source, model } = ctx.input;
  const idAlias = model.message.kind === 'identifier' ? model.message.aliases?.get('id') : undefined;
  if (idAlias && branchUsesIdOutsideReplies(branch, idAlias)) {
    return { failed: 'a handler reads the request id', reason: 'USES_REQUEST_ID', line: branch.line };
  }
  const lines: string[] = [];
  for (const declaration of model.prelude) {
    const declarator = declaration.declarations[0]!;
    if (t.isIdentifier(declarator.id)) {
      if (declarator.id.name === idAlias) continue;
      if (branch.statements.some((s) => mentionsNames(s, [declarator.id.type === 'Identifier' ? declarator.id.name : ''], true))) {
        lines.push(indent + source.slice(declaration.start!, declaration.end!).replace(/\s*\n\s*/g, ' '));
      }
      continue;
    }
    if (t.isObjectPattern(declarator.id)) {
      const kept = declarator.id.properties.filter((prop) => {
        if (!t.isObjectProperty(prop)) return true;
        const key = getKeyName(prop);
        if (key === 'id' || key === 'method') return branch.statements.some((s) => mentionsNames(s, namesIn(prop.value), true)) && key !== 'id';
        return branch.statements.some((s) => mentionsNames(s, namesIn(prop.value), true));
      });
      if (kept.length === 0) continue;
      const props = kept.map((p) => source.slice(p.start!, p.end!)).join(', ');
      lines.push(`${indent}${declaration.kind} { ${props} } = ${source.slice(declarator.init!.start!, declarator.init!.end!)}${semi(ctx.style)}`);
    }
  }
  return lines.join(ctx.style.eol);
}

interface Param {
  /** The handler's parameter text ('' for none). */
  name: string;
  /** Name to look for in the body to decide whether the parameter is needed. */
  usedName: string;
  paramsExpression: string;
  prologue: (indent: string) => string;
}

function buildParam(branch: MethodBranch, ctx: RenderContext): Param | { failed: string; reason: string; line: number } {
  const { source } = ctx.input;
  const binding = ctx.input.model.message;
  const prologue = (indent: string) => {
    if (!branch.prologue) return '';
    const paramText = source.slice(branch.prologue.param.start!, branch.prologue.param.end!);
    const initText = source.slice(branch.prologue.init.start!, branch.prologue.init.end!);
    const used = branch.statements.some((s) => mentionsNames(s, namesIn(branch.prologue!.param)));
    return used ? `${indent}const ${paramText} = ${initText}${semi(ctx.style)}` : '';
  };
  if (binding.kind === 'identifier') {
    return { name: binding.name, usedName: binding.name, paramsExpression: `${binding.name}.params`, prologue };
  }
  // ({ id, method, params }) => only the properties the body still reads; the request id is the SDK's.
  const used = [...binding.properties.entries()].filter(([, local]) => branch.statements.some((s) => mentionsNames(s, [local], true)));
  const idLocal = binding.properties.get('id');
  if (idLocal && used.some(([, local]) => local === idLocal) && branchUsesIdOutsideReplies(branch, idLocal)) {
    return { failed: 'a handler reads the request id', reason: 'USES_REQUEST_ID', line: branch.line };
  }
  const kept = used.filter(([key]) => key !== 'id');
  const paramsLocal = binding.properties.get('params');
  const needsParams = branch.method === 'tools/call';
  if (needsParams && !kept.some(([key]) => key === 'params')) kept.push(['params', paramsLocal ?? 'params']);
  const text = kept.length === 0 ? '' : `{ ${kept.map(([key, local]) => (key === local ? key : `${key}: ${local}`)).join(', ')} }`;
  return { name: text, usedName: kept.length ? kept[0]![1] : '', paramsExpression: paramsLocal ?? 'params', prologue };
}

function branchUsesIdOutsideReplies(branch: MethodBranch, idLocal: string): boolean {
  const sites = new Set(branch.replies.map((r) => r.site));
  let found = false;
  for (const statement of branch.statements) {
    walk(statement, (node) => {
      if (found || sites.has(node)) return false;
      if (t.isIdentifier(node, { name: idLocal })) found = true;
      return true;
    });
  }
  return found;
}

function namesIn(node: t.Node): string[] {
  const names: string[] = [];
  walk(node, (n) => {
    if (t.isIdentifier(n)) names.push(n.name);
  });
  return names;
}

/** Whether statements reference any of `names` (as variables, not property keys). */
function mentionsNames(statement: t.Node, names: string[], skipReplyIds = false): boolean {
  let found = false;
  walk(statement, (node, parent) => {
    if (found) return false;
    if (skipReplyIds && t.isObjectProperty(node) && getKeyName(node) === 'id') return false;
    if (t.isIdentifier(node) && names.includes(node.name)) {
      const isKey = parent && (t.isObjectProperty(parent) || t.isMemberExpression(parent)) && ((parent as t.ObjectProperty).key === node || (parent as t.MemberExpression).property === node) && !(parent as t.MemberExpression).computed && !(t.isObjectProperty(parent) && parent.shorthand);
      if (!isKey) found = true;
    }
    return true;
  });
  return found;
}

// const server = new Server({ name, version }, { capabilities: { tools: {} }, instructions });
function buildConstruction(
  model: ServerModel,
  methods: string[],
  ctx: { input: SdkRewriteInput; style: CodeStyle; anchorIndent: string; serverName: string; notes: string[]; protectedLineStarts: Set<number> },
): { text: string } | { failed: string; reason: string; line: number } {
  const { source } = ctx.input;
  const { style, anchorIndent } = ctx;
  const text = (node: t.Node) => renderRange(source, node.start!, node.end!, getLineIndent(source, node.start!), anchorIndent, ctx.protectedLineStarts);
  const info = model.initialize?.serverInfo;
  const infoText = info ? text(info) : `{ name: ${quoted(style, baseName(ctx.input.path))}, version: ${quoted(style, '0.0.0')} }`;
  if (!info) ctx.notes.push('no serverInfo was found: the server is named after its file, version 0.0.0');
  const needed = [...new Set(methods.map((m) => MCP_REQUESTS[m as keyof typeof MCP_REQUESTS].capability))];
  const capabilities = buildCapabilities(model.initialize?.capabilities ?? null, needed, source, ctx.notes);
  const options = [`capabilities: ${capabilities}`];
  if (model.initialize?.instructions) options.push(`instructions: ${text(model.initialize.instructions)}`);
  const oneLine = `${anchorIndent}const ${ctx.serverName} = new Server(${infoText}, { ${options.join(', ')} })${semi(style)}`;
  if (oneLine.length <= 100 && !oneLine.includes('\n')) return { text: oneLine };
  const unit = style.indent;
  const comma = style.trailingComma ? ',' : '';
  const lines = options.map((o, i) => `${anchorIndent}${unit}${reindentText(o, anchorIndent, anchorIndent + unit)}${i < options.length - 1 ? ',' : comma}`);
  return { text: `${anchorIndent}const ${ctx.serverName} = new Server(${infoText}, {${style.eol}${lines.join(style.eol)}${style.eol}${anchorIndent}})${semi(style)}` };
}

/** The original capabilities object, plus any capability the served methods need but it did not declare. */
function buildCapabilities(node: t.Node | null, needed: Capability[], source: string, notes: string[]): string {
  if (node && t.isObjectExpression(node)) {
    const declared = node.properties.map((p) => (t.isObjectProperty(p) ? getKeyName(p) : null));
    const missing = needed.filter((c) => !declared.includes(c));
    const original = source.slice(node.start!, node.end!);
    if (missing.length === 0) return original.replace(/\s*\n\s*/g, ' ');
    notes.push(`declares the ${missing.join(', ')} capabilit${missing.length > 1 ? 'ies' : 'y'} it serves but did not announce`);
    const props = node.properties.map((p) => source.slice(p.start!, p.end!));
    return `{ ${[...props, ...missing.map((c) => `${c}: {}`)].join(', ')} }`;
  }
  if (node) return source.slice(node.start!, node.end!);
  return `{ ${needed.map((c) => `${c}: {}`).join(', ')} }`;
}

function baseName(path: string): string {
  const file = path.split(/[\\/]/).pop() ?? 'server';
  return file.replace(/\.[^.]+$/, '');
}

// const transport = new StdioServerTransport();
// transport.onerror = (error) => { if (error instanceof SyntaxError) void transport.send({ ... -32700 ... }) };
// await server.connect(transport);
function buildConnect(
  model: ServerModel,
  ctx: { style: CodeStyle; typescript: boolean; serverName: string; moduleKind: ModuleKind; taken: Set<string>; indent: string; sdk: SdkTarget },
): string {
  const { style, indent } = ctx;
  const unit = style.indent;
  const s = semi(style);
  const q = (v: string) => quoted(style, v);
  // v2's transport skips unparseable lines before any hook sees them: nothing to answer there.
  const setup = (i: string) => ctx.sdk === 'v2' ? [`${i}const transport = new StdioServerTransport()${s}`] : [
    `${i}const transport = new StdioServerTransport()${s}`,
    `${i}// The SDK transport drops lines that are not JSON; JSON-RPC 2.0 answers them with -32700 and id null.`,
    `${i}transport.onerror = (error) => {`,
    `${i}${unit}if (error instanceof SyntaxError) {`,
    ...(ctx.typescript ? [`${i}${unit}${unit}// @ts-expect-error -- the SDK message type has no null id, which JSON-RPC 2.0 requires here`] : []),
    `${i}${unit}${unit}void transport.send({ jsonrpc: ${q('2.0')}, id: null, error: { code: -32700, message: ${q('Parse error')} } })${s}`,
    `${i}${unit}}`,
    `${i}}${s}`,
  ];
  const fail = (i: string) => [`${i}${unit}console.error(error)${s}`, `${i}${unit}process.exit(1)${s}`];
  if (model.input.anchorInFunction) {
    return [...setup(indent), `${indent}${ctx.serverName}.connect(transport).catch((error) => {`, ...fail(indent), `${indent}})${s}`].join(style.eol);
  }
  if (ctx.moduleKind === 'esm') {
    return [...setup(indent), `${indent}await ${ctx.serverName}.connect(transport)${s}`].join(style.eol);
  }
  const main = ctx.taken.has('main') ? 'startServer' : 'main';
  return [
    `${indent}async function ${main}() {`,
    ...setup(indent + unit),
    `${indent}${unit}await ${ctx.serverName}.connect(transport)${s}`,
    `${indent}}`,
    '',
    `${indent}${main}().catch((error) => {`,
    ...fail(indent),
    `${indent}})${s}`,
  ].join(style.eol);
}

function importLine(useImport: boolean, style: CodeStyle, names: string[], from: string): string {
  let list = names.join(', ');
  if (list.length + from.length > 70 && names.length > 1) {
    const comma = style.trailingComma ? ',' : '';
    list = style.eol + names.map((n) => style.indent + n).join(',' + style.eol) + comma + style.eol;
    return useImport ? `import {${list}} from ${quoted(style, from)}${semi(style)}` : `const {${list}} = require(${quoted(style, from)})${semi(style)}`;
  }
  return useImport ? `import { ${list} } from ${quoted(style, from)}${semi(style)}` : `const { ${list} } = require(${quoted(style, from)})${semi(style)}`;
}

/** After the file's last leading import/require (so a removed `readline` import leaves the SDK in its place). */
function findImportPosition(program: t.Program, source: string): { offset: number; before: string; after: string } {
  const eol = source.includes('\r\n') ? '\r\n' : '\n';
  let last: t.Statement | null = null;
  for (const statement of program.body) {
    if (t.isImportDeclaration(statement) || isRequireDeclaration(statement)) last = statement;
    else if (last || !(t.isExpressionStatement(statement) && t.isStringLiteral(statement.expression))) break;
  }
  if (last) return { offset: last.end!, before: eol, after: '' };
  const first = program.body[0];
  if (!first) return { offset: source.length, before: '', after: eol };
  const start = getNodeRange(source, first).start;
  const ownComments = start < first.start!;
  // Keep a file header comment above the imports.
  const offset = ownComments && first.leadingComments?.[0]?.start === 0 ? first.start! : start;
  return { offset, before: '', after: eol + eol };
}

function isRequireDeclaration(statement: t.Statement): boolean {
  if (!t.isVariableDeclaration(statement)) return false;
  return statement.declarations.every((d) => {
    let init = d.init;
    while (init && t.isMemberExpression(init)) init = init.object;
    return !!init && t.isCallExpression(init) && t.isIdentifier(init.callee, { name: 'require' });
  });
}

/** Names declared at the top level that stay after the rewrite. */
function collectTopLevelNames(program: t.Program, model: ServerModel): Set<string> {
  const removed = new Set<t.Node>([...model.input.removals, ...(model.dispatch.container ? [model.dispatch.container] : [])]);
  const names = new Set<string>();
  for (const statement of program.body) {
    if (removed.has(statement)) continue;
    if (t.isFunctionDeclaration(statement) && statement.id) names.add(statement.id.name);
    if (t.isClassDeclaration(statement) && statement.id) names.add(statement.id.name);
    if (t.isVariableDeclaration(statement)) for (const d of statement.declarations) for (const n of namesIn(d.id)) names.add(n);
    if (t.isImportDeclaration(statement)) for (const s of statement.specifiers) names.add(s.local.name);
  }
  return names;
}

/** Whole-line ranges of the removed nodes, merged where only whitespace separates them. */
function mergeRemovals(source: string, nodes: t.Node[], program: t.Program): { start: number; end: number }[] {
  const ranges = nodes
    .map((node) => {
      // Comments directly above a removed statement describe it, except above the first one (the file header).
      const range = node === program.body[0] ? { start: node.start!, end: node.end! } : getNodeRange(source, node);
      return widenToLines(source, range.start, range.end);
    })
    .sort((a, b) => a.start - b.start);
  const merged: { start: number; end: number }[] = [];
  for (const range of ranges.map((r) => tidyBlankLines(source, r))) {
    const previous = merged[merged.length - 1];
    if (previous && !/\S/.test(source.slice(previous.end, range.start))) previous.end = Math.max(previous.end, range.end);
    else if (previous && range.start < previous.end) previous.end = Math.max(previous.end, range.end);
    else merged.push({ ...range });
  }
  return merged;
}

/** Writer helpers that are class methods (`private send()`): prune cannot see `this.send`, so check here. */
function findUnusedWriterMethods(program: t.Program, model: ServerModel, removals: Set<t.Node>): t.Node[] {
  const removed = [...removals].map((n) => ({ start: n.start!, end: n.end! }));
  const replySites = model.methods.flatMap((m) => m.replies.map((r) => r.site));
  return model.writerDeclarations.filter((declaration) => {
    if (!t.isClassMethod(declaration)) return false;
    const name = getKeyName(declaration);
    let used = false;
    walk(program, (node) => {
      if (used) return false;
      if (node === declaration) return false;
      if (removed.some((r) => node.start! >= r.start && node.end! <= r.end) || replySites.includes(node)) return false;
      if (t.isMemberExpression(node) && t.isThisExpression(node.object) && t.isIdentifier(node.property, { name: name ?? '' })) used = true;
      return true;
    });
    return !used;
  });
}

/** A removal right before a closing brace also takes the blank line that separated it from the code above. */
function tidyBlankLines(source: string, range: { start: number; end: number }): { start: number; end: number } {
  const rest = source.slice(range.end);
  const before = source.slice(0, range.start);
  const blankAbove = /\n[ \t]*\r?\n$/.exec(before);
  if (blankAbove && /^[ \t]*[}\]]/.test(rest)) return { start: range.start - blankAbove[0].length + 1, end: range.end };
  return range;
}

function findStdoutCalls(program: t.Program): t.CallExpression[] {
  const calls: t.CallExpression[] = [];
  walk(program, (node) => {
    if (t.isCallExpression(node) && getStdoutWriteKind(node)) calls.push(node);
  });
  return calls;
}

/** The v1 schema a method registers with (requests and notifications share one namespace of method names). */
function getSchemaName(method: string): string {
  if (isMcpRequestMethod(method)) return MCP_REQUESTS[method].schema;
  if (isMcpNotification(method)) return MCP_NOTIFICATIONS[method].schema;
  throw new Error(`no SDK schema for ${method}`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

