// Finding the stdin loop: readline 'line' events, `for await` over readline, or raw 'data' chunks.
// Read-only: says which statements exist only to read stdin and where the per-line code is.
import * as t from '@babel/types';
import type { InputKind } from '../model/server-model.js';
import { findNamedFunctions, getKeyName, getMemberChain, getStaticString, walk } from './ast.js';

export interface FoundLoop {
  kind: InputKind;
  line: number;
  removals: t.Node[];
  anchor: t.Node;
  anchorInFunction: boolean;
  /** The function that runs once per line (or per chunk), and the statements it runs. */
  body: t.Statement[];
  /** The class that owns the loop when it lives in methods (`this.onLine(line)`). */
  ownerClass: t.ClassDeclaration | t.ClassExpression | null;
}

export type LoopSearch = { kind: 'found'; loop: FoundLoop } | { kind: 'none' } | { kind: 'unsupported'; line: number; detail: string };

interface Container {
  statements: t.Statement[];
  inFunction: boolean;
  ownerClass: t.ClassDeclaration | t.ClassExpression | null;
}

/** Every statement list of the program (top level, function bodies, class methods), with where it sits. */
function* listContainers(program: t.Program): Generator<Container> {
  yield { statements: program.body, inFunction: false, ownerClass: null };
  const classes: (t.ClassDeclaration | t.ClassExpression)[] = [];
  walk(program, (node) => {
    if (t.isClassDeclaration(node) || t.isClassExpression(node)) classes.push(node);
  });
  const owner = (fn: t.Node) => classes.find((c) => c.body.body.includes(fn as t.ClassMethod)) ?? null;
  const functions: t.Function[] = [];
  walk(program, (node) => {
    if (t.isFunction(node) && t.isBlockStatement(node.body)) functions.push(node);
  });
  for (const fn of functions) {
    yield { statements: (fn.body as t.BlockStatement).body, inFunction: true, ownerClass: owner(fn) };
  }
}

function isStdinInterface(node: t.Node | null | undefined): node is t.CallExpression {
  if (!t.isCallExpression(node)) return false;
  const callee = getMemberChain(node.callee);
  if (!callee || !(callee === 'createInterface' || callee.endsWith('.createInterface'))) return false;
  const options = node.arguments[0];
  if (!t.isObjectExpression(options)) return false;
  return options.properties.some(
    (p) => t.isObjectProperty(p) && getKeyName(p) === 'input' && getMemberChain(p.value) === 'process.stdin',
  );
}

/** `<target>.on('<event>', cb)` as a statement expression. */
function getOnCall(statement: t.Statement, event: string): { target: t.Expression; callback: t.Node } | null {
  if (!t.isExpressionStatement(statement)) return null;
  const call = statement.expression;
  if (!t.isCallExpression(call) || !t.isMemberExpression(call.callee)) return null;
  const method = t.isIdentifier(call.callee.property) && !call.callee.computed ? call.callee.property.name : null;
  if (method !== 'on' && method !== 'addListener') return null;
  if (getStaticString(call.arguments[0]) !== event) return null;
  const callback = call.arguments[1];
  if (!callback) return null;
  return { target: call.callee.object as t.Expression, callback };
}

function getFunctionStatements(fn: t.Node): t.Statement[] | null {
  if (!t.isFunction(fn)) return null;
  if (t.isBlockStatement(fn.body)) return fn.body.body;
  return [t.expressionStatement(fn.body)];
}

/**
 * `(line) => this.onLine(line)` or `(line) => handleLine(line)`: the per-line work lives in another
 * function of the file. Returns that function and its declaration (removed with the loop).
 */
function followDelegate(callback: t.Node, program: t.Program, ownerClass: Container['ownerClass']): { fn: t.Function; declaration: t.Node } | null {
  if (!t.isArrowFunctionExpression(callback) && !t.isFunctionExpression(callback)) return null;
  const statements = getFunctionStatements(callback);
  if (!statements || statements.length !== 1 || !t.isExpressionStatement(statements[0])) return null;
  const call = statements[0].expression;
  if (!t.isCallExpression(call)) return null;
  const name = getMemberChain(call.callee);
  if (!name) return null;
  if (name.startsWith('this.') && ownerClass) {
    const member = ownerClass.body.body.find((m) => t.isClassMethod(m) && getKeyName(m) === name.slice(5));
    return member && t.isClassMethod(member) ? { fn: member, declaration: member } : null;
  }
  return findNamedFunctions(program).get(name) ?? null;
}

export function findInputLoop(program: t.Program): LoopSearch {
  for (const container of listContainers(program)) {
    const { statements } = container;
    for (let i = 0; i < statements.length; i++) {
      const statement = statements[i]!;

      // process.stdin.on('data', (chunk) => { ... })
      const data = getOnCall(statement, 'data');
      if (data && getMemberChain(data.target) === 'process.stdin') {
        const body = getFunctionStatements(data.callback);
        if (!body) return { kind: 'unsupported', line: statement.loc!.start.line, detail: "the 'data' handler is not a function" };
        const removals: t.Node[] = [statement, ...findStdinSetup(statements)];
        return { kind: 'found', loop: makeLoop('stdin-data', statement, removals, container, body) };
      }

      // readline.createInterface({ input: process.stdin }).on('line', cb)
      if (t.isExpressionStatement(statement)) {
        const chained = getOnCall(statement, 'line');
        if (chained && isStdinInterface(chained.target)) {
          return lineLoop(program, container, statement, [statement], chained.callback);
        }
      }

      // const rl = readline.createInterface({ input: process.stdin, ... })
      if (t.isVariableDeclaration(statement) && statement.declarations.length === 1) {
        const declarator = statement.declarations[0]!;
        if (!t.isIdentifier(declarator.id) || !isStdinInterface(declarator.init)) continue;
        const rl = declarator.id.name;
        for (let j = i + 1; j < statements.length; j++) {
          const next = statements[j]!;
          const on = getOnCall(next, 'line');
          if (on && getMemberChain(on.target) === rl) {
            return lineLoop(program, container, next, [statement, next], on.callback);
          }
          if (t.isForOfStatement(next) && next.await && t.isIdentifier(next.right) && next.right.name === rl) {
            return forAwaitLoop(program, container, statement, next);
          }
        }
        return { kind: 'unsupported', line: statement.loc!.start.line, detail: `no 'line' handler or for-await loop reads ${rl}` };
      }
    }
  }
  return { kind: 'none' };
}

function lineLoop(program: t.Program, container: Container, anchor: t.Statement, removals: t.Node[], callback: t.Node): LoopSearch {
  const delegate = followDelegate(callback, program, container.ownerClass);
  const fn = delegate ? delegate.fn : callback;
  const body = getFunctionStatements(fn);
  if (!body) return { kind: 'unsupported', line: anchor.loc!.start.line, detail: "the 'line' handler is not a function" };
  const all = delegate ? [...removals, delegate.declaration] : removals;
  return { kind: 'found', loop: makeLoop('readline-line', anchor, all, container, body) };
}

/**
 * async function main() { const rl = createInterface(...); for await (const line of rl) { ... } }
 * main();
 * The whole function exists to read stdin when it holds nothing else; its call becomes the anchor.
 */
function forAwaitLoop(program: t.Program, container: Container, declaration: t.Statement, loop: t.ForOfStatement): LoopSearch {
  const body = t.isBlockStatement(loop.body) ? loop.body.body : [loop.body];
  if (!container.inFunction) {
    return { kind: 'found', loop: makeLoop('readline-for-await', loop, [declaration, loop], container, body) };
  }
  const fn = program.body.find(
    (s): s is t.FunctionDeclaration => t.isFunctionDeclaration(s) && (s.body.body as t.Statement[]) === container.statements,
  );
  const others = container.statements.filter((s) => s !== declaration && s !== loop);
  if (!fn || !fn.id || others.length > 0) {
    return { kind: 'unsupported', line: loop.loc!.start.line, detail: 'the for-await loop shares its function with other code' };
  }
  const name = fn.id.name;
  const call = program.body.find((s) => t.isExpressionStatement(s) && isCallOf(s.expression, name));
  if (!call) return { kind: 'unsupported', line: loop.loc!.start.line, detail: `${name}() is not called at the top level` };
  const found = makeLoop('readline-for-await', call, [fn, call], { ...container, inFunction: false }, body);
  return { kind: 'found', loop: found };
}

/** `main()`, `main().catch(...)`, `void main()`, `await main()`. */
function isCallOf(expression: t.Expression, name: string): boolean {
  let current: t.Node = expression;
  if (t.isUnaryExpression(current) && current.operator === 'void') current = current.argument;
  if (t.isAwaitExpression(current)) current = current.argument;
  if (t.isCallExpression(current) && t.isMemberExpression(current.callee)) {
    const method = getMemberChain(current.callee)?.split('.').pop();
    if ((method === 'catch' || method === 'then') && t.isCallExpression(current.callee.object)) current = current.callee.object;
  }
  return t.isCallExpression(current) && t.isIdentifier(current.callee) && current.callee.name === name && current.arguments.length === 0;
}

/** `process.stdin.setEncoding('utf8')`, `process.stdin.resume()` next to a 'data' loop. */
function findStdinSetup(statements: t.Statement[]): t.Statement[] {
  return statements.filter((s) => {
    if (!t.isExpressionStatement(s) || !t.isCallExpression(s.expression)) return false;
    const callee = getMemberChain(s.expression.callee);
    return callee === 'process.stdin.setEncoding' || callee === 'process.stdin.resume';
  });
}

function makeLoop(kind: InputKind, anchor: t.Node, removals: t.Node[], container: Container, body: t.Statement[]): FoundLoop {
  return {
    kind,
    line: anchor.loc!.start.line,
    removals,
    anchor,
    anchorInFunction: container.inFunction,
    body,
    ownerClass: container.ownerClass,
  };
}
