// `--style mcp-server`: one `server.registerTool(...)` per tool, when detect/tool-split.ts proves the
// split. The tool's branch body becomes its callback; its inputSchema becomes a zod shape (v1, only
// when lossless — see zod-schema.ts) or `fromJsonSchema(<the original literal>)` (v2, exact).
import * as t from '@babel/types';
import { findToolSplit, type ToolPiece } from '../detect/tool-split.js';
import type { ServerModel } from '../model/server-model.js';
import type { SdkTarget } from '../model/types.js';
import { getKeyName } from '../detect/ast.js';
import { renderBranchBody, type BranchContext } from './branch.js';
import { quoted, semi, type CodeStyle } from './style.js';
import { getLineIndent, renderRange } from './text.js';
import { buildZodShape } from './zod-schema.js';

export interface McpServerToolsContext {
  source: string;
  program: t.Program;
  model: ServerModel;
  sdk: SdkTarget;
  style: CodeStyle;
  anchorIndent: string;
  serverName: string;
  protectedLineStarts: Set<number>;
  typescript: boolean;
  fixes: string[];
  notes: string[];
}

export type McpServerTools =
  | { kind: 'tools'; blocks: string[]; usesZod: boolean; usesFromJsonSchema: boolean }
  /** Why the tools stay on the low-level Server (shown in the diff header). */
  | { kind: 'fallback'; reason: string; line: number };

export function renderMcpServerTools(ctx: McpServerToolsContext): McpServerTools {
  const others = ctx.model.methods.filter((m) => !['initialize', 'ping', 'notifications/initialized', 'tools/list', 'tools/call'].includes(m.method));
  if (others.length > 0) return { kind: 'fallback', reason: `it also serves ${others.map((m) => m.method).join(', ')}, which McpServer would take over`, line: others[0]!.line };
  const protocol = ctx.model.dispatch.protocol;
  if ((protocol.kind === 'return-result' || protocol.kind === 'assign-envelope') && protocol.errorCode !== null) {
    return { kind: 'fallback', reason: `tool errors are answered with ${protocol.errorCode}, which McpServer would turn into isError results`, line: ctx.model.dispatch.line };
  }
  const search = findToolSplit(ctx.model, ctx.program);
  if (search.kind === 'no') return { kind: 'fallback', reason: search.reason, line: search.line };
  const { split } = search;
  const blocks: string[] = [];
  let usesZod = false;
  for (const tool of split.tools) {
    const schema = renderSchema(tool, ctx);
    if ('lossy' in schema) return { kind: 'fallback', reason: `the inputSchema of tool ${tool.name} uses ${schema.lossy}, which has no lossless zod form in SDK v1`, line: tool.entry.loc!.start.line };
    usesZod ||= schema.zod;
    const block = renderTool(tool, schema.text, split.argsLocal, split.nameLocal, ctx);
    if ('failed' in block) return { kind: 'fallback', reason: block.failed, line: block.line };
    blocks.push(block.text);
  }
  ctx.fixes.push('tool arguments are validated against each inputSchema before the tool runs; tool errors come back as isError results');
  if (usesZod) ctx.notes.push('tools/list is now published from zod shapes: the same schemas plus `$schema`, and integers bounded to ±(2^53-1)');
  return {
    kind: 'tools',
    blocks,
    usesZod,
    usesFromJsonSchema: ctx.sdk === 'v2' && split.tools.some((tool) => tool.schemaNode),
  };
}

function renderSchema(tool: ToolPiece, ctx: McpServerToolsContext): { text: string | null; zod: boolean } | { lossy: string } {
  if (!tool.schemaNode) return { text: null, zod: false };
  const indent = ctx.anchorIndent + ctx.style.indent + ctx.style.indent;
  if (ctx.sdk === 'v2') {
    const text = renderRange(ctx.source, tool.schemaNode.start!, tool.schemaNode.end!, getLineIndent(ctx.source, tool.schemaNode.start!), indent, ctx.protectedLineStarts);
    return { text: `fromJsonSchema(${text})`, zod: false };
  }
  const shape = buildZodShape(tool.schema, { quote: ctx.style.quote });
  if (shape.kind === 'lossy') return { lossy: shape.keyword };
  return { text: shape.text, zod: true };
}

// server.registerTool(
//   'word_count',
//   { description: '...', inputSchema: { text: z.string() } },
//   async (args) => { ...the tool's own branch... },
// );
function renderTool(tool: ToolPiece, schema: string | null, argsLocal: string | null, nameLocal: string, ctx: McpServerToolsContext): { text: string } | { failed: string; line: number } {
  const { style, anchorIndent, source } = ctx;
  const unit = style.indent;
  const eol = style.eol;
  const comma = style.trailingComma ? ',' : '';
  const bodyIndent = anchorIndent + unit + unit;
  const branchContext: BranchContext = {
    source,
    style,
    protocol: ctx.model.dispatch.protocol,
    protectedLineStarts: ctx.protectedLineStarts,
    bodyIndent,
    paramsExpression: 'params',
    typescript: ctx.typescript,
    sdk: ctx.sdk,
    fixes: ctx.fixes,
    noReplyMessage: `Tool ${tool.name} produced no result`,
  };
  const body = renderBranchBody(tool.branch, branchContext);
  if ('failed' in body) return { failed: body.failed, line: body.line };
  const usesName = new RegExp(`\\b${nameLocal}\\b`).test(body.text);
  const prologue = usesName ? `${bodyIndent}const ${nameLocal} = ${quoted(style, tool.name)}${semi(style)}${eol}` : '';
  const usesArgs = argsLocal !== null && new RegExp(`\\b${argsLocal}\\b`).test(body.text);
  const config: string[] = [];
  for (const prop of tool.entry.properties) {
    if (!t.isObjectProperty(prop)) continue;
    const key = getKeyName(prop);
    if (key === 'description' || key === 'title') config.push(`${key}: ${source.slice(prop.value.start!, prop.value.end!)}`);
  }
  if (schema) config.push(`inputSchema: ${schema}`);
  const configText = `{${eol}${config.map((c) => `${anchorIndent}${unit}${unit}${c},`).join(eol).replace(/,$/, comma)}${eol}${anchorIndent}${unit}}`;
  return {
    text: [
      `${anchorIndent}${ctx.serverName}.registerTool(`,
      `${anchorIndent}${unit}${quoted(style, tool.name)},`,
      `${anchorIndent}${unit}${configText},`,
      `${anchorIndent}${unit}async (${usesArgs ? argsLocal : ''}) => {`,
      `${prologue}${body.text}`,
      `${anchorIndent}${unit}}${comma}`,
      `${anchorIndent})${semi(style)}`,
    ].join(eol),
  };
}
