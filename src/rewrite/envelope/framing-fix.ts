// One framing bug the envelope rewrite fixes although it keeps the framing: a Content-Length reader
// that buffers decoded text counts UTF-16 characters where the header counts bytes, so one non-ASCII
// body desynchronises the stream. When the reader has exactly the proven shape
//
//   let pending = '';
//   process.stdin.setEncoding('utf8');            // removed: chunks stay Buffers
//   process.stdin.on('data', (chunk) => {
//     pending += chunk;                           // -> pending = Buffer.concat([pending, chunk]);
//     const headerEnd = pending.indexOf('\r\n\r\n');           // byte offsets from here on
//     ... /Content-Length: (\d+)/.exec(pending.slice(0, headerEnd))  // -> pending.toString('utf8', 0, headerEnd)
//     if (pending.length < start + length) return;
//     const body = pending.slice(start, start + length);       // -> pending.toString('utf8', start, start + length)
//     pending = pending.slice(start + length);                 // stays a Buffer
//
// the buffer becomes a Buffer and every text read from it is decoded from bytes. Any other use of
// the buffer (split, trim, comparisons, ...) and nothing is changed. JavaScript only: in TypeScript
// the declared types would change.
import type { File, Identifier, Node } from '@babel/types';
import type { EnvelopeIo } from '../../detect/envelope-io.js';
import { isReference } from '../../detect/envelope-io.js';
import { buildReplacement, type TextEdit } from '../edits.js';
import { contains, countDeclarations, getPropertyName, isFunctionNode, isIdentifierNamed, isMemberNamed, walk } from '../../detect/envelope-walk.js';

export interface FramingFix {
  edits: TextEdit[];
}

const CONTENT_LENGTH = /content-length/i;

export function getByteFramingFix(ast: File, source: string, io: EnvelopeIo, quote: string): FramingFix | null {
  const { parents } = io;
  let encoding: { statement: Node; value: string } | null = null;
  let encodingCalls = 0;
  const listeners: Node[] = [];
  walk(ast, (node) => {
    if (node.type !== 'CallExpression' || node.callee.type !== 'MemberExpression') return;
    const object = node.callee.object;
    if (!isMemberNamed(object, 'process', 'stdin')) return;
    const method = getPropertyName(node.callee);
    if (method === 'setEncoding') {
      encodingCalls++;
      const arg = node.arguments[0];
      const statement = parents.get(node);
      if (arg?.type === 'StringLiteral' && statement?.type === 'ExpressionStatement') encoding = { statement, value: arg.value };
    }
    if ((method === 'on' || method === 'addListener') && node.arguments[0]?.type === 'StringLiteral' && node.arguments[0].value === 'data') {
      const listener = node.arguments[1];
      if (listener !== undefined && isFunctionNode(listener)) listeners.push(listener);
    }
  });
  if (listeners.length !== 1 || encodingCalls > 1) return null;
  const found = encoding as { statement: Node; value: string } | null;
  if (encodingCalls === 1 && (found === null || !/^utf-?8$/i.test(found.value))) return null;

  const listener = listeners[0]!;
  if (!isFunctionNode(listener) || listener.params.length !== 1 || listener.params[0]!.type !== 'Identifier') return null;
  const chunk = listener.params[0]!.name;
  if (!mentionsContentLength(listener)) return null;

  // pending += chunk
  let append: Node | null = null;
  let buffer: string | null = null;
  walk(listener, (node) => {
    if (node.type === 'AssignmentExpression' && node.operator === '+=' && node.left.type === 'Identifier' && isIdentifierNamed(node.right, chunk)) {
      if (append !== null) buffer = '';
      else {
        append = node;
        buffer = node.left.name;
      }
    }
  });
  if (append === null || buffer === null || buffer === '') return null;
  const name: string = buffer;
  const appendNode = append as Node;
  if (countDeclarations(ast, name) !== 1) return null;

  const edits: TextEdit[] = [buildReplacement(appendNode, `${name} = Buffer.concat([${name}, ${chunk}])`)];
  let ok = true;
  walk(ast, (node) => {
    if (!ok) return 'skip';
    if (node.type !== 'Identifier') return undefined;
    if (node.name === chunk && contains(listener, node) && node !== listener.params[0] && isReference(node, parents)) {
      const parent = parents.get(node);
      if (!(parent === appendNode)) ok = false;
      return undefined;
    }
    if (node.name !== name) return undefined;
    const use = getBufferUseEdits(node, appendNode, parents, quote);
    if (use === null) ok = false;
    else edits.push(...use);
    return undefined;
  });
  if (!ok) return null;

  if (found !== null) {
    const removal = getLineRemoval(source, found.statement);
    if (removal === null) return null;
    edits.push(removal);
  }
  return { edits };
}

/** The edits one occurrence of the buffer variable needs, [] when it works on a Buffer as is, null when unproven. */
function getBufferUseEdits(node: Identifier, append: Node, parents: Map<Node, Node>, quote: string): TextEdit[] | null {
  const parent = parents.get(node);
  if (parent === undefined) return null;
  // let pending = ''
  if (parent.type === 'VariableDeclarator' && parent.id === node) {
    const init = parent.init;
    const declaration = parents.get(parent);
    if (declaration?.type !== 'VariableDeclaration' || declaration.kind === 'const') return null;
    if (init?.type === 'StringLiteral' && init.value === '') return [buildReplacement(init, 'Buffer.alloc(0)')];
    return null;
  }
  if (parent === append) return [];
  // pending = pending.slice(n)
  if (parent.type === 'AssignmentExpression' && parent.left === node && parent.operator === '=') {
    return isSliceOf(parent.right, node.name) ? [] : null;
  }
  if (parent.type !== 'MemberExpression' || parent.object !== node || parent.computed) return null;
  const member = getPropertyName(parent);
  if (member === 'length') return [];
  const call = parents.get(parent);
  if (call?.type !== 'CallExpression' || call.callee !== parent) return null;
  if (member === 'indexOf') return call.arguments[0]?.type === 'StringLiteral' ? [] : null;
  if (member !== 'slice' || call.arguments.length < 1 || call.arguments.length > 2 || call.arguments.some((a) => a.type === 'SpreadElement')) return null;
  const holder = parents.get(call);
  if (holder?.type === 'AssignmentExpression' && holder.right === call && isIdentifierNamed(holder.left, node.name)) return [];
  // text read from the buffer: decode exactly those bytes
  return [buildReplacement(parent.property, 'toString'), { start: call.arguments[0]!.start!, end: call.arguments[0]!.start!, text: `${quote}utf8${quote}, ` }];
}

function isSliceOf(node: Node, name: string): boolean {
  return node.type === 'CallExpression' && node.callee.type === 'MemberExpression' && isIdentifierNamed(node.callee.object, name) && getPropertyName(node.callee) === 'slice';
}

function mentionsContentLength(root: Node): boolean {
  let found = false;
  walk(root, (node) => {
    if (node.type === 'RegExpLiteral' && CONTENT_LENGTH.test(node.pattern)) found = true;
    if (node.type === 'StringLiteral' && CONTENT_LENGTH.test(node.value)) found = true;
  });
  return found;
}

/** Removes a statement that has a line of its own, line break included. */
function getLineRemoval(source: string, statement: Node): TextEdit | null {
  const lineStart = source.lastIndexOf('\n', statement.start! - 1) + 1;
  if (!/^[ \t]*$/.test(source.slice(lineStart, statement.start!))) return null;
  const rest = /^[ \t]*(\r?\n)/.exec(source.slice(statement.end!));
  if (rest === null) return null;
  return { start: lineStart, end: statement.end! + rest[0].length, text: '' };
}

