// How the input side of a server frames what it reads: does the code an incoming message passes
// through before it is parsed read a Content-Length header (`/content-length:\s*(\d+)/i.exec(header)`,
// `headers['content-length']`, `buffer.indexOf('\r\n\r\n')`)? Only code that READS counts: a literal a
// string is built from (`'Content-Length: ' + n`, a log line, a comment) says nothing about the input.
// The read side is the code on the way to the parse, taken from the interpreted paths: the consumer's
// own handler or loop, every function entered before the parse, and the functions active at the parse.
// Deliberately not: judging the writes (interp.ts classifies them) or deciding anything (detect/ does).
import type * as t from '@babel/types';
import { forEachChild, getMemberName, resolveIdentifier, unwrapExpression } from './ast.js';
import type { FileFacts } from './facts.js';
import type { MessagePath } from './messages.js';
import type { ModuleUnit } from './program.js';
import type { Frame } from './values.js';

/** Methods that look for a literal in text (or test text against it): the literal is read, not written. */
const READ_METHODS = new Set(['indexOf', 'lastIndexOf', 'includes', 'startsWith', 'search', 'split', 'match', 'matchAll', 'exec', 'test', 'get', 'has']);

const CONTENT_LENGTH = /content-length/i;
const HEADER_END = '\r\n\r\n';

/** The first literal on the read side that parses a Content-Length header (or splits a header block off), or null. */
export function findHeaderRead(facts: FileFacts, paths: MessagePath[]): { node: t.Node; mod: ModuleUnit } | null {
  const roots = new Map<t.Node, ModuleUnit>();
  for (const consumer of facts.consumers) {
    if (consumer.node.type === 'ForOfStatement') roots.set(consumer.node.body, consumer.mod);
    else if (consumer.handler?.k === 'func') roots.set(consumer.handler.fn, consumer.handler.mod);
  }
  const addFrame = (frame: Frame | null): void => {
    for (let f = frame; f; f = f.caller) if (f.fn) roots.set(f.fn, f.mod);
  };
  for (const p of paths) {
    for (let i = 0; i < p.parseIndex; i++) {
      const e = p.events[i]!;
      if (e.e === 'enter') addFrame(e.frame);
    }
    addFrame(p.parseFrame);
  }
  for (const [root, mod] of roots) {
    const found = findHeaderReadIn(root, mod);
    if (found) return { node: found, mod };
  }
  return null;
}

/** Walks `root` (iteratively) for a literal read as a header; a constant it names is looked at too. */
function findHeaderReadIn(root: t.Node, mod: ModuleUnit): t.Node | null {
  const stack: t.Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isHeaderLiteral(node) && isReadPosition(node, mod)) return node;
    if (node.type === 'Identifier') {
      // `const HEADER = /Content-Length: (\d+)/i` declared outside the reader, used in it
      const binding = resolveIdentifier(mod.index, node);
      const init = binding?.kind === 'const' && binding.pattern.length === 0 ? binding.declarator.init : null;
      if (init && isHeaderLiteral(unwrapExpression(init)) && isReadPosition(node, mod)) return node;
    }
    forEachChild(node, (child) => stack.push(child));
  }
  return null;
}

function isHeaderLiteral(node: t.Node): boolean {
  switch (node.type) {
    case 'RegExpLiteral':
      return CONTENT_LENGTH.test(node.pattern) || node.pattern.includes('\\r\\n\\r\\n');
    case 'StringLiteral':
      return CONTENT_LENGTH.test(node.value) || node.value === HEADER_END;
    case 'TemplateLiteral':
      return node.expressions.length === 0 && (CONTENT_LENGTH.test(node.quasis[0]?.value.cooked ?? '') || node.quasis[0]?.value.cooked === HEADER_END);
    default:
      return false;
  }
}

/**
 * Is the literal used to read text? A regular expression always is (it is matched against something);
 * a string is when it is searched for (`text.indexOf(lit)`, `text.split(lit)`), compared with
 * (`name === lit`, `case lit:`) or used as a key (`headers[lit]`, `headers.get(lit)`).
 */
function isReadPosition(node: t.Node, mod: ModuleUnit): boolean {
  let child = node;
  let parent = mod.index.parent.get(child);
  // `(LIT as string)`, `/re/i.exec(x)!`
  while (parent && unwrapExpression(parent) !== parent) {
    child = parent;
    parent = mod.index.parent.get(child);
  }
  if (!parent) return false;
  if (node.type === 'RegExpLiteral' || (node.type === 'Identifier' && isRegExpConstant(node, mod))) {
    // a pattern written into text (`write(String(/x/))`) is too odd to weigh: any use of a pattern reads
    return true;
  }
  switch (parent.type) {
    case 'CallExpression':
    case 'OptionalCallExpression': {
      if (!parent.arguments.includes(child as t.Expression)) return false;
      const callee = unwrapExpression(parent.callee);
      if (callee.type === 'Identifier') return callee.name === 'RegExp';
      if (callee.type !== 'MemberExpression' && callee.type !== 'OptionalMemberExpression') return false;
      const name = getMemberName(callee);
      return name !== null && READ_METHODS.has(name);
    }
    case 'NewExpression': {
      const callee = unwrapExpression(parent.callee);
      return callee.type === 'Identifier' && callee.name === 'RegExp';
    }
    case 'BinaryExpression':
      return ['===', '==', '!==', '!='].includes(parent.operator);
    case 'SwitchCase':
      return parent.test === child;
    case 'MemberExpression':
    case 'OptionalMemberExpression':
      return parent.computed && parent.property === child;
    default:
      return false;
  }
}

function isRegExpConstant(id: t.Identifier, mod: ModuleUnit): boolean {
  const binding = resolveIdentifier(mod.index, id);
  const init = binding?.kind === 'const' ? binding.declarator.init : null;
  return init ? unwrapExpression(init).type === 'RegExpLiteral' : false;
}
