// The SDK rewrite of an inline dispatch (./sdk.ts): the code after the parse, in the stdin loop, becomes a
// handler function of its own, with the loop's exits made returns and its catch's writes a rethrow.
import { t } from '../babel.js';
import { forEachChild, getLine, isFunctionNode, resolveName, getStoredIn } from '../analysis/ast.js';
import { type ModuleUnit } from '../analysis/program.js';
import { type WrittenShape } from './sdk-code.js';
import { EditList } from './edits.js';
import { semi, type CodeStyle } from './style.js';
import { findProtectedLineStarts, getLineIndent, getLineStart, getNodeRange, renderRange } from './text.js';
import { isTypeScriptPath } from '../parse.js';


// const handleMessage = async (msg) => {
//   <the statements after the parse, with replies as returns and throws>
// };
/**
 * The loop dispatches right after its `JSON.parse`: those statements become the handler. Walking out from
 * the parse to the loop's callback, each level keeps the statements after the one holding the parse;
 * a `try` around them is kept (its catch still handles their errors); a loop over lines ends there (its
 * `continue` and `break` end this message: they become `return`).
 */
export function buildInlineHandler(d: Extract<WrittenShape['dispatcher'], { kind: 'inline' }>, list: EditList, style: CodeStyle, indent: string, name: string, catchWrites: WrittenShape['catchWrites']): { text: string } | { failed: string; line: number } {
  const mod = d.mod;
  const source = mod.source;
  const eol = style.eol;
  const protectedStarts = findProtectedLineStarts(mod.ast, source);
  const fail = (why: string, node: t.Node): { failed: string; line: number } => ({ failed: `the dispatch after the parse cannot become a handler: ${why}`, line: getLine(node) });
  const parent = (node: t.Node): t.Node | undefined => mod.index.parent.get(node);
  const message = getParsedName(mod, d.parse);
  if (message === null) return fail('the parsed message is not stored in a variable', d.parse);
  // TypeScript: the parameter keeps the variable's declared type; an undeclared one was `any` (strict mode refuses an implicit one)
  const messageType = getDeclaredType(mod, d.parse) || (isTypeScriptPath(mod.path) ? ': any' : '');

  // `try { msg = JSON.parse(line) } catch { ... }`: the whole try is the parse
  let node: t.Node = d.parseStatement;
  const holder = parent(node);
  const tryStatement = holder && parent(holder);
  if (holder?.type === 'BlockStatement' && holder.body.length === 1 && tryStatement?.type === 'TryStatement' && tryStatement.block === holder) node = tryStatement;

  // each entry: statements of one block, and what wraps them
  type Level = { statements: t.Statement[]; wrap: t.TryStatement | null };
  const levels: Level[] = [];
  let stopLoop: t.Node | null = null;
  for (let guard = 0; guard < 20; guard++) {
    const block = parent(node);
    if (!block || block.type !== 'BlockStatement') return fail('the parse is not a statement of a block', node);
    const rest = block.body.slice(block.body.indexOf(node as t.Statement) + 1);
    const owner = parent(block);
    if (owner?.type === 'TryStatement' && owner.block === block) {
      levels.push({ statements: rest, wrap: owner });
      node = owner;
      continue;
    }
    levels.push({ statements: rest, wrap: null });
    if (owner === d.fn) break;
    if (owner && (owner.type === 'ForStatement' || owner.type === 'ForOfStatement' || owner.type === 'ForInStatement' || owner.type === 'WhileStatement' || owner.type === 'DoWhileStatement')) {
      stopLoop = owner;
      break;
    }
    if (!owner || !t.isStatement(owner)) return fail('the parse sits where its following code cannot be followed', node);
    node = owner;
  }
  // `continue` / `break` of the loop that is left behind end this message's handling
  const extracted = levels.flatMap((l) => [...l.statements, ...(l.wrap?.handler ? [l.wrap.handler.body] : [])]);
  for (const exit of findLoopExits(mod, extracted, stopLoop)) {
    if (exit.label) return fail('a labelled jump leaves the handler', exit);
    if (!list.touches(exit.start!, exit.end!)) list.replace(exit.start!, exit.end!, `return${semi(style)}`);
  }

  // render from the innermost level out
  const unit = style.indent;
  let body = '';
  let depth = indent + unit;
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i]!;
    const own = renderStatements(mod, list, level.statements, depth, protectedStarts, eol);
    const rethrowOnly = level.wrap && !level.wrap.finalizer && level.wrap.handler && isRethrowOnly(level.wrap.handler, catchWrites);
    if (level.wrap && !rethrowOnly) {
      const inner = [body, own].filter(Boolean).join(eol);
      const t = level.wrap;
      let text = `${depth}try {${eol}${reindentBlock(inner, unit)}${eol}${depth}}`;
      if (t.handler) text += ` catch${t.handler.param ? ` (${source.slice(t.handler.param.start!, t.handler.param.end!)})` : ''} {${eol}${renderStatements(mod, list, t.handler.body.body, depth + unit, protectedStarts, eol)}${eol}${depth}}`;
      if (t.finalizer) text += ` finally {${eol}${renderStatements(mod, list, t.finalizer.body, depth + unit, protectedStarts, eol)}${eol}${depth}}`;
      body = text;
    } else {
      body = [body, own].filter(Boolean).join(eol);
    }
  }
  return { text: `${indent}const ${name} = async (${message}${messageType}) => {${eol}${body}${eol}${indent}}${semi(style)}` };
}

/** A catch that, once its writes rethrow, does nothing else: the `try` around the handler can go. */
function isRethrowOnly(clause: t.CatchClause, catchWrites: WrittenShape['catchWrites']): boolean {
  const writes = catchWrites.find((c) => c.clause === clause);
  if (!writes) return false;
  return clause.body.body.every((st) => writes.statements.includes(st) || (st.type === 'ReturnStatement' && !st.argument) || st.type === 'EmptyStatement');
}

/** `: JsonRpcRequest` of `let msg: JsonRpcRequest;` (TypeScript), so the handler's parameter keeps the type. */
function getDeclaredType(mod: ModuleUnit, call: t.CallExpression): string {
  const message = getParsedName(mod, call);
  if (message === null) return '';
  const binding = resolveName(mod.index, call, message);
  if (!binding || !('declarator' in binding)) return '';
  const id = binding.declarator.id;
  const annotation = id.type === 'Identifier' ? id.typeAnnotation : null;
  if (annotation && annotation.type === 'TSTypeAnnotation') return mod.source.slice(annotation.start!, annotation.end!);
  // `const msg = JSON.parse(line) as RpcRequest` (or `<RpcRequest>JSON.parse(line)`): the cast is the type
  const cast = getCastType(mod, call);
  return cast === null ? '' : `: ${mod.source.slice(cast.start!, cast.end!)}`;
}

/** The type the parsed message is cast to (the outermost cast around `call`), unless it is `unknown`. */
function getCastType(mod: ModuleUnit, call: t.CallExpression): t.TSType | null {
  let type: t.TSType | null = null;
  for (let node = mod.index.parent.get(call); node && (node.type === 'TSAsExpression' || node.type === 'TSTypeAssertion' || node.type === 'ParenthesizedExpression' || node.type === 'TSNonNullExpression'); node = mod.index.parent.get(node)) {
    if (node.type === 'TSAsExpression' || node.type === 'TSTypeAssertion') type = node.typeAnnotation;
  }
  return type === null || type.type === 'TSUnknownKeyword' ? null : type;
}

/** The name `JSON.parse(...)` is stored in (`const msg = ...`, `msg = ...`). */
function getParsedName(mod: ModuleUnit, call: t.CallExpression): string | null {
  return getStoredIn(mod.index, call)?.name ?? null;
}

/** `continue` and `break` statements in `statements` that target `loop` (the loop over lines left behind). */
function findLoopExits(mod: ModuleUnit, statements: t.Node[], loop: t.Node | null): (t.ContinueStatement | t.BreakStatement)[] {
  const out: (t.ContinueStatement | t.BreakStatement)[] = [];
  const visit = (node: t.Node, insideLoop: boolean, insideSwitch: boolean): void => {
    if (isFunctionNode(node)) return;
    if (node.type === 'ContinueStatement' && (!insideLoop || node.label)) out.push(node);
    if (node.type === 'BreakStatement' && ((!insideLoop && !insideSwitch) || node.label)) out.push(node);
    const loopHere = node.type === 'ForStatement' || node.type === 'ForOfStatement' || node.type === 'ForInStatement' || node.type === 'WhileStatement' || node.type === 'DoWhileStatement';
    forEachChild(node, (child) => visit(child, insideLoop || loopHere, insideSwitch || node.type === 'SwitchStatement'));
  };
  for (const statement of statements) visit(statement, false, false);
  return loop === null ? out.filter((n) => n.label) : out;
}

/** Consecutive statements, with the rewrite's edits applied, re-indented to `to`. */
function renderStatements(mod: ModuleUnit, list: EditList, statements: t.Statement[], to: string, protectedStarts: Set<number>, eol: string): string {
  if (statements.length === 0) return '';
  const source = mod.source;
  const first = getNodeRange(source, statements[0]!).start;
  const lineStart = getLineStart(source, first);
  // from the start of the line, so an edit that removes the first statement's whole lines is inside
  const start = /^[ \t]*$/.test(source.slice(lineStart, first)) ? lineStart : first;
  const last = getNodeRange(source, statements[statements.length - 1]!).end;
  // to the end of the last line, so an edit that removes the last statement's whole lines is inside
  const lineEnd = /^[ \t]*\r?\n/.exec(source.slice(last));
  const end = lineEnd ? last + lineEnd[0].length : last;
  const from = getLineIndent(source, first);
  const text = renderRange(source, start, end, from, to, protectedStarts, list);
  return `${to}${text.replace(/^\s+/, '')}`.replace(/\s+$/, '').split(/\r?\n/).join(eol);
}

function reindentBlock(text: string, unit: string): string {
  return text
    .split(/\r?\n/)
    .map((l) => (l.trim() ? unit + l : l))
    .join('\n');
}
