// The envelope fallback: a hand-rolled server keeps its structure and framing, and every message it
// writes goes through one small helper module (see helper-source.ts) that makes it JSON-RPC 2.0
// compliant. The rewrite is a handful of text edits on AST ranges, so untouched code stays
// byte-identical:
//   1. import the helper, with the marker comment saying why this is not the SDK rewrite;
//   2. `const envelope = createEnvelope(writeMessage)` on the server's own writer, so the framing is
//      kept (with the import when the writer is a hoisted function declaration, else right after it;
//      a writer method gets a class field instead: `envelope = createEnvelope((m) => this.write(m))`);
//   3. every call of that writer, or inline `process.stdout.write(JSON.stringify(x) + '\n')`,
//      becomes `envelope.send(x)`;
//   4. `JSON.parse(line)` of incoming messages becomes `envelope.parse(line)`;
//   5. where one message's handling starts, `envelope.scope(...)` / `bind(...)` / `handle(...)` ties
//      the replies written while handling it to that message;
//   6. `console.log` diagnostics go to `console.error`.
// Deliberately not: dispatch, tools or methods are not touched, and nothing is guessed: when a step
// cannot be proven the result is `{ failed }` and the file is left alone.
import { extname } from 'node:path';
import type { File, Node } from '@babel/types';
import { assertNever } from '../../model/assert-never.js';
import { parseSource } from '../../parse.js';
import { getEnvelopeMarker, isEnvelopeReason, type EnvelopeReason } from '../../model/reasons.js';
import { getEnvelopeIo, importsEnvelopeHelper, isInsideClassInstance, isInstanceBinding, type EnvelopeIo, type Framer } from '../../detect/envelope-io.js';
import { applyEdits, buildInsertion, buildReplacement, type TextEdit } from '../edits.js';
import { getByteFramingFix } from './framing-fix.js';
import { buildHelperSource, getHelperModule, type HelperModule } from './helper-source.js';
import { getCodeStyle, getLineIndent, quoteString, type CodeStyle } from './style.js';
import { collectIdentifierNames, contains, isIdentifierNamed, unwrapExpression, walk } from '../../detect/envelope-walk.js';

export interface EnvelopeRewrite {
  /** The rewritten file; equal to the input when the file already routes through the helper. */
  after: string;
  /** The helper module to write next to the server (empty when nothing changed). */
  companions: { path: string; content: string }[];
  /** Compliance bugs of the original that the rewrite fixes. */
  fixes: string[];
}

export type EnvelopeRewriteResult = EnvelopeRewrite | { failed: string };

const TS_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx']);

export function rewriteEnvelope(ast: File, source: string, path: string, reason: EnvelopeReason): EnvelopeRewriteResult {
  if (!isEnvelopeReason(reason)) return { failed: `unknown envelope reason ${JSON.stringify(reason)}` };
  if (importsEnvelopeHelper(ast)) return { after: source, companions: [], fixes: [] };

  const io = getEnvelopeIo(ast, source);
  if ('failed' in io) return io;

  const typescript = TS_EXTENSIONS.has(extname(path).toLowerCase());
  const syntax = typescript ? 'esm' : getModuleSyntax(ast, path);
  if (syntax === null) return { failed: 'cannot tell whether the file is an ES module or CommonJS (no import, export or require)' };
  const helper = getHelperModule(path, syntax);
  const style = getCodeStyle(ast, source);
  const taken = collectIdentifierNames(ast);
  const envelopeName = ['envelope', 'mcpEnvelope'].find((n) => !taken.has(n));
  const createName = ['createEnvelope', 'createMcpEnvelope'].find((n) => !taken.has(n));
  if (envelopeName === undefined || createName === undefined) return { failed: 'the names envelope and mcpEnvelope are both taken' };

  const context: EditContext = { ast, source, io, style, typescript, syntax, helper, envelopeName, createName, reason };
  let edits: TextEdit[];
  try {
    edits = buildEdits(context);
  } catch (err) {
    if (err instanceof RewriteRefusal) return { failed: err.message };
    throw err;
  }
  // TypeScript would see the buffer's declared type change, so the byte fix is for JavaScript only.
  const framingFix = typescript ? null : getByteFramingFix(ast, source, io, style.quote);
  if (framingFix !== null) edits.push(...framingFix.edits);

  let after: string;
  try {
    after = applyEdits(source, edits);
    parseSource(path, after);
  } catch (err) {
    return { failed: `internal error, the envelope rewrite produced no valid file: ${(err as Error).message}` };
  }
  return {
    after,
    companions: [{ path: helper.path, content: buildHelperSource(helper.kind) }],
    fixes: buildFixes(ast, io, framingFix !== null),
  };
}

interface EditContext {
  ast: File;
  source: string;
  io: EnvelopeIo;
  style: CodeStyle;
  typescript: boolean;
  syntax: 'esm' | 'cjs';
  helper: HelperModule;
  envelopeName: string;
  createName: string;
  reason: EnvelopeReason;
}

/** A step of the rewrite could not be proven safe; becomes `{ failed }`. */
class RewriteRefusal extends Error {}

function buildEdits(context: EditContext): TextEdit[] {
  const { io, source, style } = context;
  const edits: TextEdit[] = [buildImport(context), ...buildEnvelopeDeclaration(context)];

  // 3. writes
  for (const call of io.framerCalls) {
    const callee = call.callee;
    if (io.framer?.kind === 'method' && callee.type === 'MemberExpression') {
      edits.push(buildReplacement(callee, `${getInstanceEnvelope(context, callee.object)}.send`));
    } else {
      edits.push(buildReplacement(callee, `${getEnvelopeAt(context, call)}.send`));
    }
  }
  for (const write of io.inlineWrites) {
    const payload = write.payload!;
    edits.push({ start: write.call.start!, end: payload.start!, text: `${getEnvelopeAt(context, write.call)}.send(` });
    edits.push({ start: payload.end!, end: write.call.end!, text: ')' });
  }
  // 6. diagnostics
  for (const property of io.diagnostics) edits.push(buildReplacement(property, 'error'));

  // 4. the parse of incoming messages
  const parse = io.parse;
  const parseRef = getEnvelopeAt(context, parse.call);
  if (parse.inTry) {
    edits.push(buildReplacement(parse.call.callee, `${parseRef}.parse`));
  } else {
    const holder = io.parents.get(parse.statement);
    if (parse.target === null || parse.exit === null || !(holder?.type === 'BlockStatement' || holder?.type === 'SwitchCase')) {
      throw new RewriteRefusal(`line ${parse.call.loc?.start.line}: a failed JSON.parse is not caught, and no guard can be added after it`);
    }
    edits.push(buildReplacement(parse.call.callee, `${parseRef}.receive`));
    const indent = getLineIndent(source, parse.statement.start!);
    edits.push(buildInsertion(getEndOfLine(source, parse.statement.end!), `${style.eol}${indent}if (${parse.target} === undefined) ${parse.exit}${style.semi ? ';' : ''}`));
  }

  // 5. where one message's handling starts
  for (const entry of io.entries) {
    switch (entry.kind) {
      case 'scope': {
        const callee = entry.call.callee;
        const ref =
          io.framer?.kind === 'method' && callee.type === 'MemberExpression' && callee.object.type === 'Identifier'
            ? getInstanceEnvelope(context, callee.object)
            : getEnvelopeAt(context, entry.call);
        edits.push(buildInsertion(entry.call.start!, `${ref}.scope(() => `), buildInsertion(entry.call.end!, ')'));
        break;
      }
      case 'bind': {
        const value = entry.value;
        const target = value.type === 'CallExpression' && value.callee.type === 'MemberExpression' ? value.callee.object : value;
        const ref =
          io.framer?.kind === 'method' && target.type === 'MemberExpression' && target.object.type === 'Identifier'
            ? getInstanceEnvelope(context, target.object)
            : getEnvelopeAt(context, value);
        edits.push(buildInsertion(value.start!, `${ref}.bind(`), buildInsertion(value.end!, ')'));
        break;
      }
      case 'handle': {
        const expression = entry.expression;
        const ref = getEnvelopeAt(context, expression);
        const open = (body: string): string => `${ref}.handle(${entry.message}, ${body}`;
        const parens = expression.type === 'SequenceExpression';
        if (entry.mode === 'await-argument' && expression.type === 'AwaitExpression') {
          const argument = expression.argument;
          edits.push({ start: expression.start!, end: argument.start!, text: `await ${open(parens ? '() => (' : '() => ')}` });
        } else {
          const prefix = entry.mode === 'async' ? `await ${open('async () => ')}` : open('() => ');
          edits.push(buildInsertion(expression.start!, parens ? `${prefix}(` : prefix));
        }
        edits.push(buildInsertion(expression.end!, parens ? '))' : ')'));
        break;
      }
      default:
        assertNever(entry);
    }
  }
  return edits;
}

// 1. import { createEnvelope } from './mcp-envelope.js'  (with the marker above it)
function buildImport(context: EditContext): TextEdit {
  const { ast, source, style, syntax, helper, createName } = context;
  const semi = style.semi ? ';' : '';
  const specifier = quoteString(helper.specifier, style);
  const imported = createName === 'createEnvelope' ? 'createEnvelope' : `createEnvelope${syntax === 'esm' ? ' as ' : ': '}${createName}`;
  let text =
    syntax === 'esm'
      ? `import { ${imported} } from ${specifier}${semi}`
      : `${style.declaration} { ${imported} } = require(${specifier})${semi}`;
  if (isMarkerWanted(ast, source)) text = `${getEnvelopeMarker(context.reason)}${style.eol}${text}`;
  const framer = context.io.framer;
  if (framer === null) {
    // inline writes: the envelope writes newline-delimited JSON itself
    text += `${style.eol}${style.eol}${style.declaration} ${context.envelopeName} = ${createName}(${buildNdjsonWriter(context)})${semi}`;
  } else if (isHoistedAt(framer, 'Program')) {
    // a function declaration is hoisted: declared with the import, the envelope is ready before any code runs
    text += `${style.eol}${style.eol}${style.declaration} ${context.envelopeName} = ${createName}(${framer.name})${semi}`;
  }

  const body = ast.program.body;
  const imports = body.filter((s) => (syntax === 'esm' ? isImport(s) : isRequireDeclaration(s)));
  const last = imports[imports.length - 1];
  if (last !== undefined) return buildInsertion(getEndOfLine(source, last.end!), `${style.eol}${text}`);
  const directive = ast.program.directives[ast.program.directives.length - 1];
  if (directive !== undefined) return buildInsertion(getEndOfLine(source, directive.end!), `${style.eol}${style.eol}${text}`);
  const first = body[0];
  if (first === undefined) throw new RewriteRefusal('the file has no statements');
  return buildInsertion(first.start!, `${text}${style.eol}${style.eol}`);
}

function buildNdjsonWriter(context: EditContext): string {
  const param = context.typescript ? 'message: unknown' : 'message';
  return `(${param}) => process.stdout.write(JSON.stringify(message) + ${quoteString('\n', context.style)})`;
}

// 2. const envelope = createEnvelope(writeMessage)   /   envelope = createEnvelope((message) => this.write(message))
function buildEnvelopeDeclaration(context: EditContext): TextEdit[] {
  const { io, source, style, envelopeName, createName } = context;
  const framer = io.framer;
  const semi = style.semi ? ';' : '';
  if (framer === null || isHoistedAt(framer, 'Program')) return [];
  if (framer.kind === 'function') {
    const declaration = `${style.declaration} ${envelopeName} = ${createName}(${framer.name})${semi}`;
    const indent = getLineIndent(source, framer.statement.start!);
    if (isHoistedAt(framer, 'BlockStatement')) {
      // first in the block that hoists the writer, so every line of the block can use it
      return [buildInsertion(framer.block.start! + 1, `${style.eol}${indent}${declaration}`)];
    }
    // `const send = (m) => ...`: right after it, so the envelope exists exactly when the writer does
    return [buildInsertion(getEndOfLine(source, framer.statement.end!), `${style.eol}${style.eol}${indent}${declaration}`)];
  }
  const classBody = framer.classNode.body;
  const first = classBody.body[0]!;
  const indent = getLineIndent(source, first.start!);
  const param = context.typescript && framer.paramType !== null ? `message: ${framer.paramType}` : 'message';
  const usedOutside = hasOutsideInstanceUse(context);
  const modifiers = context.typescript ? (usedOutside ? 'readonly ' : 'private readonly ') : '';
  const hazard = !style.semi && /^[[(*`]/.test(source.slice(first.start!, first.start! + 1));
  const field = `${modifiers}${envelopeName} = ${createName}((${param}) => this.${framer.name}(message))${semi || (hazard ? ';' : '')}`;
  return [buildInsertion(classBody.start! + 1, `${style.eol}${indent}${field}${style.eol}`)];
}

/** The writer is a function declaration directly in a Program or in a block. */
function isHoistedAt(framer: Framer, block: 'Program' | 'BlockStatement'): boolean {
  return framer.kind === 'function' && framer.statement.type === 'FunctionDeclaration' && framer.block.type === block;
}

/** `server.receive(line)` outside the class: the field is then used from outside, so it cannot be private. */
function hasOutsideInstanceUse(context: EditContext): boolean {
  const framer = context.io.framer;
  if (framer?.kind !== 'method') return false;
  const sites: Node[] = [...context.io.framerCalls, context.io.parse.call];
  for (const entry of context.io.entries) sites.push(entry.kind === 'scope' ? entry.call : entry.kind === 'bind' ? entry.value : entry.expression);
  return sites.some((site) => !isInsideClassInstance(site, framer.classNode, context.io.parents));
}

/** The expression that reaches the envelope at a site: `envelope` or `this.envelope`. */
function getEnvelopeAt(context: EditContext, site: Node): string {
  const framer = context.io.framer;
  if (framer === null) return context.envelopeName;
  if (framer.kind === 'function') {
    if (!contains(framer.block, site)) {
      throw new RewriteRefusal(`line ${site.loc?.start.line}: the envelope would not be in scope here (the writer ${framer.name}() is declared in an inner block)`);
    }
    return context.envelopeName;
  }
  if (!isInsideClassInstance(site, framer.classNode, context.io.parents)) {
    throw new RewriteRefusal(`line ${site.loc?.start.line}: the writer is a method of ${framer.classNode.id?.name ?? 'a class'}, and this code has no instance of it`);
  }
  return `this.${context.envelopeName}`;
}

/** `this.write(...)` -> `this.envelope`, `server.write(...)` -> `server.envelope`. */
function getInstanceEnvelope(context: EditContext, object: Node): string {
  const framer = context.io.framer;
  if (framer?.kind !== 'method') throw new RewriteRefusal('internal: no method writer');
  if (object.type === 'ThisExpression') return `this.${context.envelopeName}`;
  if (object.type === 'Identifier' && isInstanceBinding(object.name, framer.classNode, context.io.parents)) return `${object.name}.${context.envelopeName}`;
  throw new RewriteRefusal(`line ${object.loc?.start.line}: cannot tell which instance this call belongs to`);
}

/** After a statement's trailing `// comment` on the same line, so the comment stays with its statement. */
function getEndOfLine(source: string, offset: number): number {
  const rest = /^[ \t]*(\/\/[^\r\n]*|\/\*[^\r\n]*?\*\/[ \t]*)?(?=\r?\n|$)/.exec(source.slice(offset));
  return rest === null ? offset : offset + rest[0].length;
}

function isImport(node: Node): boolean {
  return node.type === 'ImportDeclaration' || node.type === 'TSImportEqualsDeclaration';
}

/** `const x = require('x')`, `const { a } = require('x')`, `const y = require('x').y`. */
function isRequireDeclaration(node: Node): boolean {
  if (node.type !== 'VariableDeclaration') return false;
  return node.declarations.every((d) => {
    if (!d.init) return false;
    let init: Node = unwrapExpression(d.init);
    while (init.type === 'MemberExpression') init = init.object;
    return init.type === 'CallExpression' && isIdentifierNamed(init.callee, 'require');
  });
}

function isMarkerWanted(ast: File, source: string): boolean {
  if (source.includes('mcp-migrate: envelope (')) return false;
  return !(ast.comments ?? []).some((c) => /^\s*mcp-migrate-ignore\b/.test(c.value));
}

/** 'esm' for import/export, 'cjs' for require/module.exports/'use strict', null when nothing tells. */
export function getModuleSyntax(ast: File, path: string): 'esm' | 'cjs' | null {
  const ext = extname(path).toLowerCase();
  if (ext === '.mjs') return 'esm';
  if (ext === '.cjs') return 'cjs';
  let esm = false;
  let cjs = ast.program.directives.some((d) => d.value.value === 'use strict');
  walk(ast, (node) => {
    if (node.type === 'ImportDeclaration' || node.type === 'ExportNamedDeclaration' || node.type === 'ExportDefaultDeclaration' || node.type === 'ExportAllDeclaration') esm = true;
    if (node.type === 'MetaProperty' && node.meta.name === 'import') esm = true;
    if (node.type === 'CallExpression' && isIdentifierNamed(node.callee, 'require')) cjs = true;
    if (node.type === 'Identifier' && (node.name === '__dirname' || node.name === '__filename')) cjs = true;
    if (node.type === 'MemberExpression' && isIdentifierNamed(node.object, 'module') && isIdentifierNamed(node.property, 'exports')) cjs = true;
  });
  if (esm) return 'esm';
  return cjs ? 'cjs' : null;
}

/**
 * What the envelope fixes in this server. The first three hold for every reply; the others are
 * claimed only where the original visibly lacked them.
 */
function buildFixes(ast: File, io: EnvelopeIo, framing: boolean): string[] {
  const fixes = [
    'every reply carries "jsonrpc": "2.0" and echoes the id of the request it answers',
    'notifications are never answered, and a request is answered at most once',
    'error replies are {code, message} objects with standard codes',
  ];
  if (!io.parse.inTry) fixes.push('bad JSON is answered with -32700 and id null instead of crashing the server');
  else if (!hasWriteInParseCatch(io)) fixes.push('bad JSON is answered with -32700 and id null instead of being dropped');
  if (!mentionsPing(ast)) fixes.push('ping is answered');
  if (io.diagnostics.length > 0) fixes.push(`console.log diagnostics go to stderr (${io.diagnostics.length})`);
  if (framing) fixes.push('Content-Length is counted in bytes, not UTF-16 characters');
  return fixes;
}

/** The server answers a failed parse itself (in the catch block of the parse). */
function hasWriteInParseCatch(io: EnvelopeIo): boolean {
  const writes = [...io.framerCalls, ...io.inlineWrites.map((w) => w.call)];
  for (let node = io.parents.get(io.parse.call); node !== undefined; node = io.parents.get(node)) {
    if (node.type === 'TryStatement' && contains(node.block, io.parse.call)) {
      const handler = node.handler;
      return handler !== null && handler !== undefined && writes.some((w) => contains(handler, w));
    }
  }
  return false;
}

/** A 'ping' string or an onPing-like name: the server handles ping itself. */
function mentionsPing(ast: File): boolean {
  let found = false;
  walk(ast, (node) => {
    if (found) return 'skip';
    if (node.type === 'StringLiteral' && node.value === 'ping') found = true;
    if (node.type === 'Identifier' && /^(on|handle)?ping$/i.test(node.name)) found = true;
    return undefined;
  });
  return found;
}
