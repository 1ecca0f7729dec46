// One tool's `registerTool` handler for `--style mcp-server` (./mcp-server.ts): its branch of the dispatcher
// as the handler's body, reading the arguments where it read the request.
import { t } from '../babel.js';
import { forEachChild, getPatternNames, isReferenceIdentifier, resolveIdentifier, unwrapExpression, type AstIndex, type Binding } from '../analysis/ast.js';
import { EditList } from './edits.js';
import { quoted, semi, type CodeStyle } from './style.js';
import { getLineIndent, getNodeRange, reindentExpression, renderRange } from './text.js';
import { getRequestPath, isPath, refuse, type Scope, stringSteps, type ToolBranch } from './mcp-server-request.js';
import type { Split } from './mcp-server-tools.js';


/**
 * The body of `async (args) => { ... }` for one tool: the declarations of the tools/call branch it uses
 * (the tool name becomes its literal, the arguments the handler's parameter), then its own code.
 */
export function buildHandler(scope: Scope, split: Split, tool: ToolBranch, name: string, style: CodeStyle, protectedStarts: Set<number>, indent: string): { param: string; body: string } {
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


/** An expression's text, its later lines moved to `indent`. */
export function copyExpression(source: string, node: t.Node, indent: string): string {
  return reindentExpression(source.slice(node.start!, node.end!), getLineIndent(source, node.start!), indent);
}

/**
 * zod 4 has no unbounded integer: `z.number().int()` is published with `minimum: -(2^53-1)` and
 * `maximum: 2^53-1`. ./zod-schema.ts accepts that as a tightening; tools/list would still show bounds
 * the original never published, so here it is not lossless. The dotted path of the first such node.
 */
export function findUnboundedInteger(schema: unknown, path: string[]): string | null {
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
