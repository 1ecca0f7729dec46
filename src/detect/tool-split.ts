// For `--style mcp-server`: is the server's tool handling provably one independent piece per tool?
// READ-ONLY. Proven when tools/list returns one literal table (inline, or a constant nothing else
// touches) and tools/call is: name/arguments taken from the params, optionally `let result`, one
// switch or if-chain on the name with one branch per tool, and optionally one reply of `result`.
// Anything else -> a reason, and the server is migrated in server style instead.
import * as t from '@babel/types';
import type { MethodBranch, Reply, ServerModel } from '../model/server-model.js';
import { getKeyName, getMemberChain, getStaticString, unwrapExpression, walk } from './ast.js';

export interface ToolPiece {
  name: string;
  /** The tool's object literal in the table (for description/title text). */
  entry: t.ObjectExpression;
  /** The inputSchema, evaluated. */
  schema: unknown;
  /** Source node of the inputSchema (v2 passes it to fromJsonSchema verbatim). */
  schemaNode: t.Node | null;
  branch: MethodBranch;
}

export interface ToolSplit {
  tools: ToolPiece[];
  argsLocal: string | null;
  nameLocal: string;
  /** The table constant when it is one (removed once unused). */
  table: t.Node;
}

export type ToolSplitSearch = { kind: 'split'; split: ToolSplit } | { kind: 'no'; reason: string; line: number };

const no = (reason: string, node: t.Node | null | undefined): ToolSplitSearch => ({ kind: 'no', reason, line: node?.loc?.start.line ?? 0 });

export function findToolSplit(model: ServerModel, program: t.Program): ToolSplitSearch {
  const list = model.methods.find((m) => m.method === 'tools/list');
  const call = model.methods.find((m) => m.method === 'tools/call');
  if (!list || !call) return no('the server has no tools/list and tools/call pair', null);
  const table = findToolTable(list, model, program);
  if ('reason' in table) return no(table.reason, table.node);
  const dispatch = findNameDispatch(call, model);
  if ('reason' in dispatch) return no(dispatch.reason, dispatch.node);

  const tools: ToolPiece[] = [];
  for (const element of table.elements) {
    if (!t.isObjectExpression(element)) return no('a tool in the table is not an object literal', element);
    const props = new Map<string, t.Node>();
    for (const prop of element.properties) {
      const key = t.isObjectProperty(prop) ? getKeyName(prop) : null;
      if (!key || !t.isObjectProperty(prop)) return no('a tool in the table has a computed or spread property', prop);
      props.set(key, prop.value);
    }
    const name = getStaticString(props.get('name'));
    if (name === null) return no('a tool name is not a string literal', element);
    const unknown = [...props.keys()].find((k) => !['name', 'description', 'title', 'inputSchema'].includes(k));
    if (unknown) return no(`tool ${name} has a "${unknown}" field registerTool would not publish the same way`, element);
    const schemaNode = props.get('inputSchema') ?? null;
    const schema = schemaNode ? evaluateStatic(schemaNode, program) : { type: 'object' };
    if (schema === NOT_STATIC) return no(`the inputSchema of tool ${name} is not a literal`, schemaNode);
    const piece = dispatch.cases.get(name);
    if (!piece) return no(`tool ${name} has no branch of its own in tools/call`, element);
    tools.push({ name, entry: element, schema, schemaNode, branch: piece });
  }
  const extra = [...dispatch.cases.keys()].find((n) => !tools.some((tool) => tool.name === n));
  if (extra) return no(`tools/call handles ${extra}, which tools/list does not list`, call.statements[0]);
  return { kind: 'split', split: { tools, argsLocal: dispatch.argsLocal, nameLocal: dispatch.nameLocal, table: table.declaration ?? table.array } };
}

interface TableFound {
  elements: t.Node[];
  array: t.ArrayExpression;
  declaration: t.VariableDeclaration | null;
}

function findToolTable(list: MethodBranch, model: ServerModel, program: t.Program): TableFound | { reason: string; node: t.Node | null } {
  let value: t.Node | null = null;
  const reply = list.replies.find((r) => r.kind === 'result');
  if (reply && reply.kind === 'result') value = reply.value;
  else if (model.dispatch.protocol.kind === 'return-result') {
    const last = list.statements[list.statements.length - 1];
    if (last && t.isReturnStatement(last)) value = last.argument ?? null;
  }
  const statements = list.statements.filter((s) => !(t.isBreakStatement(s) && !s.label));
  if (statements.length !== 1) return { reason: 'tools/list does more than return its table', node: statements[1] ?? list.statements[0] ?? null };
  const result = value ? unwrapExpression(value) : null;
  if (!result || !t.isObjectExpression(result) || result.properties.length !== 1) return { reason: 'tools/list does not return { tools }', node: value };
  const prop = result.properties[0]!;
  if (!t.isObjectProperty(prop) || getKeyName(prop) !== 'tools') return { reason: 'tools/list does not return { tools }', node: prop };
  const tools = unwrapExpression(prop.value);
  if (t.isArrayExpression(tools)) return { elements: tools.elements.filter((e): e is t.Expression => e !== null), array: tools, declaration: null };
  if (!t.isIdentifier(tools)) return { reason: 'the tool list is computed', node: tools };
  const declaration = program.body.find(
    (s): s is t.VariableDeclaration => t.isVariableDeclaration(s) && s.declarations.length === 1 && t.isIdentifier(s.declarations[0]!.id, { name: tools.name }),
  );
  const init = declaration?.declarations[0]!.init;
  const array = init ? unwrapExpression(init) : null;
  if (!declaration || !array || !t.isArrayExpression(array)) return { reason: `the tool table ${tools.name} is not a top-level array literal`, node: tools };
  // Any other use of the table (filtering, push, lookups) means registerTool calls could not replace it.
  let uses = 0;
  walk(program, (node, parent) => {
    if (!t.isIdentifier(node, { name: tools.name }) || node === declaration.declarations[0]!.id) return true;
    const isKey = parent !== null && ((t.isObjectProperty(parent) && parent.key === node && !parent.computed) || (t.isMemberExpression(parent) && parent.property === node && !parent.computed));
    if (!isKey) uses++;
    return true;
  });
  if (uses !== 1) return { reason: `the tool table ${tools.name} is used outside tools/list`, node: declaration };
  return { elements: array.elements.filter((e): e is t.Expression => e !== null), array, declaration };
}

interface NameDispatch {
  cases: Map<string, MethodBranch>;
  nameLocal: string;
  argsLocal: string | null;
}

/** tools/call: [name/args declarations] [let result] switch/if on name [reply of result]. */
function findNameDispatch(call: MethodBranch, model: ServerModel): NameDispatch | { reason: string; node: t.Node | null } {
  let nameLocal: string | null = null;
  let argsLocal: string | null = null;
  let resultLocal: string | null = null;
  let dispatch: t.Statement | null = null;
  const statements = call.statements;
  let index = 0;
  for (; index < statements.length; index++) {
    const statement = statements[index]!;
    if (!t.isVariableDeclaration(statement)) break;
    for (const declarator of statement.declarations) {
      if (t.isObjectPattern(declarator.id) && declarator.init && isParamsRead(declarator.init, model)) {
        for (const prop of declarator.id.properties) {
          if (!t.isObjectProperty(prop)) return { reason: 'tools/call destructures its params with a rest element', node: prop };
          const key = getKeyName(prop);
          const local = t.isAssignmentPattern(prop.value) ? prop.value.left : prop.value;
          if (!t.isIdentifier(local)) return { reason: 'tools/call destructures its params deeply', node: prop };
          if (key === 'name') nameLocal = local.name;
          else if (key === 'arguments') argsLocal = local.name;
          else return { reason: `tools/call reads params.${key}`, node: prop };
        }
      } else if (t.isIdentifier(declarator.id) && declarator.init && isParamsRead(declarator.init, model)) {
        continue; // const params = msg.params ?? {}
      } else if (t.isIdentifier(declarator.id) && declarator.init && isParamsRead(declarator.init, model, 'name')) nameLocal = declarator.id.name;
      else if (t.isIdentifier(declarator.id) && declarator.init && isParamsRead(declarator.init, model, 'arguments')) argsLocal = declarator.id.name;
      else if (t.isIdentifier(declarator.id) && !declarator.init && statement.kind !== 'const') resultLocal = declarator.id.name;
      else return { reason: describeDelegation(declarator.init) ?? 'tools/call computes something before choosing the tool', node: declarator };
    }
  }
  dispatch = statements[index] ?? null;
  const delegated = describeDelegation(dispatch);
  if (delegated) return { reason: delegated, node: dispatch };
  const rest = statements.slice(index + 1);
  if (!nameLocal || !dispatch) return { reason: 'tools/call does not choose the tool by params.name', node: dispatch };
  const tail = rest.filter((s) => !(t.isBreakStatement(s) && !s.label)).filter((s) => !call.replies.some((r) => r.site === s && r.kind === 'result' && resultLocal && t.isIdentifier(r.value, { name: resultLocal })));
  if (tail.length > 0) return { reason: 'the tools share code after the per-tool branches', node: tail[0]! };

  const cases = new Map<string, MethodBranch>();
  const name = nameLocal;
  const addCase = (tool: string, body: t.Statement[], node: t.Node) => {
    const range = { start: node.start!, end: node.end! };
    const replies: Reply[] = call.replies.filter((r) => r.site.start! >= range.start && r.site.end! <= range.end);
    if (resultLocal) replies.push(...findResultAssignments(body, resultLocal));
    cases.set(tool, { method: 'tools/call', line: node.loc!.start.line, statements: body, prologue: null, replies });
  };
  if (t.isSwitchStatement(dispatch) && t.isIdentifier(dispatch.discriminant, { name })) {
    for (const switchCase of dispatch.cases) {
      if (!switchCase.test) continue; // default: unknown tools, which McpServer answers itself
      const tool = getStaticString(switchCase.test);
      if (tool === null || switchCase.consequent.length === 0) return { reason: 'a tools/call case is shared or not a string', node: switchCase };
      const body = switchCase.consequent.length === 1 && t.isBlockStatement(switchCase.consequent[0]) ? switchCase.consequent[0].body : switchCase.consequent;
      addCase(tool, body, switchCase);
    }
    return { cases, nameLocal: name, argsLocal };
  }
  if (t.isIfStatement(dispatch)) {
    let current: t.Statement | null | undefined = dispatch;
    while (current && t.isIfStatement(current)) {
      const test = unwrapExpression(current.test);
      const tool = t.isBinaryExpression(test) && test.operator === '===' && t.isIdentifier(test.left, { name }) ? getStaticString(test.right) : null;
      if (tool === null) return { reason: 'a tools/call branch does not compare the tool name', node: current };
      addCase(tool, t.isBlockStatement(current.consequent) ? current.consequent.body : [current.consequent], current);
      current = current.alternate;
    }
    return { cases, nameLocal: name, argsLocal };
  }
  return { reason: 'tools/call does not switch on the tool name', node: dispatch };
}

/** `callTool(params.name, ...)`: the per-tool branches live in another function. */
function describeDelegation(node: t.Node | null | undefined): string | null {
  let found: string | null = null;
  if (!node) return null;
  walk(node, (n) => {
    if (found) return false;
    if (t.isCallExpression(n) && n.arguments.some((a) => (getMemberChain(unwrapExpression(a)) ?? '').endsWith('.name') || (t.isCallExpression(a) && a.arguments.some((b) => (getMemberChain(b) ?? '').endsWith('.name'))))) {
      found = `tools/call hands the tool name to ${getMemberChain(n.callee) ?? 'a function'}(), so the per-tool branches are not in tools/call itself`;
    }
    return true;
  });
  return found;
}

/** `request.params || {}`, `msg.params.name`, `params.arguments ?? {}` (the message's params). */
function isParamsRead(init: t.Node, model: ServerModel, member?: string): boolean {
  let node = unwrapExpression(init);
  if (t.isLogicalExpression(node)) node = unwrapExpression(node.left);
  const chain = getMemberChain(node);
  if (!chain) return false;
  const message = model.message.kind === 'identifier' ? model.message.name : model.message.properties.get('params') ?? '';
  const params = model.message.kind === 'identifier' ? `${message}.params` : message;
  return member ? chain === `${params}.${member}` : chain === params;
}

/** `result = x` inside a case becomes the tool's `return x`. */
function findResultAssignments(body: t.Statement[], resultLocal: string): Reply[] {
  const replies: Reply[] = [];
  const root = { type: 'BlockStatement', body, directives: [] } as unknown as t.BlockStatement;
  walk(root, (node) => {
    if (t.isFunction(node)) return false;
    if (t.isExpressionStatement(node) && t.isAssignmentExpression(node.expression, { operator: '=' }) && t.isIdentifier(node.expression.left, { name: resultLocal })) {
      replies.push({ kind: 'result', site: node, value: node.expression.right });
      return false;
    }
    return true;
  });
  return replies;
}

export const NOT_STATIC = Symbol('not static');

/** The value of a literal expression (objects, arrays, strings, numbers, booleans, null, top-level const references). */
export function evaluateStatic(node: t.Node, program: t.Program, depth = 0): unknown {
  if (depth > 20) return NOT_STATIC;
  const inner = unwrapExpression(node);
  if (t.isStringLiteral(inner) || t.isNumericLiteral(inner) || t.isBooleanLiteral(inner)) return inner.value;
  if (t.isNullLiteral(inner)) return null;
  if (t.isTemplateLiteral(inner) && inner.expressions.length === 0) return inner.quasis[0]!.value.cooked;
  if (t.isUnaryExpression(inner) && inner.operator === '-' && t.isNumericLiteral(inner.argument)) return -inner.argument.value;
  if (t.isArrayExpression(inner)) {
    const values: unknown[] = [];
    for (const element of inner.elements) {
      if (!element || t.isSpreadElement(element)) return NOT_STATIC;
      const value = evaluateStatic(element, program, depth + 1);
      if (value === NOT_STATIC) return NOT_STATIC;
      values.push(value);
    }
    return values;
  }
  if (t.isObjectExpression(inner)) {
    const value: Record<string, unknown> = {};
    for (const prop of inner.properties) {
      if (!t.isObjectProperty(prop)) return NOT_STATIC;
      const key = getKeyName(prop);
      if (key === null) return NOT_STATIC;
      const v = evaluateStatic(prop.value, program, depth + 1);
      if (v === NOT_STATIC) return NOT_STATIC;
      value[key] = v;
    }
    return value;
  }
  if (t.isIdentifier(inner)) {
    const declaration = program.body.find(
      (s): s is t.VariableDeclaration => t.isVariableDeclaration(s) && s.kind === 'const' && s.declarations.some((d) => t.isIdentifier(d.id, { name: inner.name })),
    );
    const init = declaration?.declarations.find((d) => t.isIdentifier(d.id, { name: inner.name }))?.init;
    return init ? evaluateStatic(init, program, depth + 1) : NOT_STATIC;
  }
  return NOT_STATIC;
}
