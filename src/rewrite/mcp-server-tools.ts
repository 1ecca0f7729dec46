// The tools of `--style mcp-server` (./mcp-server.ts): the literal table tools/list returns, and the branch
// of tools/call each tool takes, proven separable.
import { t } from '../babel.js';
import { forEachChild, getMemberName, isFunctionNode, resolveIdentifier, unwrapExpression, type AstIndex } from '../analysis/ast.js';
import { type Branch, getComparedName, getRequestPath, isPath, refuse, type Scope, type ToolBranch, type ToolEntry } from './mcp-server-request.js';


const TOOL_FIELDS = new Set(['name', 'title', 'description', 'inputSchema', 'annotations']);

/** `return { tools: [ { name, description, inputSchema }, ... ] }` (inline, or a constant of the module). */
export function readToolTable(scope: Scope, branch: Branch): ToolEntry[] {
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

export function getKey(prop: t.ObjectProperty): string | null {
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

export interface Split {
  /** Declarations before the dispatch on the name (`const { name, arguments: args = {} } = request.params`). */
  prelude: t.VariableDeclaration[];
  branches: Map<string, ToolBranch>;
  /** The code of the tools/call branch, where each tool's code lies (for the references check). */
  branch: Branch;
}

export function splitToolCall(scope: Scope, branch: Branch, names: readonly string[]): Split {
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
