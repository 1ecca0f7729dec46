// Parsing: one place that knows which parser a file extension needs, and that a deeply nested file
// still parses. Deliberately does not transform anything.
//
// Babel's parser is recursive descent: every level of nesting (`[[[...]]]`, `if { if { ... } }`, a long
// `a + b + ...` chain) costs stack frames, and the main thread's V8 stack (~1 MB, fixed at start-up;
// `v8.setFlagsFromString('--stack-size')` does not raise it afterwards — measured) runs out at a few
// hundred levels: 300–900 depending on the construct and on how warm the JIT is. A file that overflows
// is parsed again on a short-lived thread whose stack is LARGE_STACK_MB (a worker thread's stack size
// is set at creation, `resourceLimits.stackSizeMb`); the main thread blocks on it (Atomics.wait), so
// `parseSource` stays synchronous. The tree comes back as JSON: comments attached to nodes are copies
// of those in `ast.comments`, positions are not shared, and nodes lose Babel's Node prototype (nothing
// here relies on any of that).
import type { ParserOptions, ParserPlugin } from '@babel/parser';
import type { File } from '@babel/types';
import { createRequire } from 'node:module';
import { compactPositions } from './analysis/ast.js';
import { babelParser } from './babel.js';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';

/** Stack of the thread that parses a file too deeply nested for the current one (64 MB: ~60x the main thread's). */
export const LARGE_STACK_MB = 64;
/** How long the deep parse may take before the file is given up on (a 1 MB file parses in well under a second). */
const LARGE_STACK_TIMEOUT_MS = 60_000;

/** A TypeScript module by its name (`.ts`, `.mts`, `.cts`, `.tsx`, any case): parsed, and written, as TypeScript. */
export function isTypeScriptPath(path: string): boolean {
  return /\.[cm]?tsx?$/i.test(path);
}

export function getParserPlugins(path: string): ParserPlugin[] {
  if (!isTypeScriptPath(path)) return ['jsx'];
  return path.toLowerCase().endsWith('.tsx') ? ['typescript', 'jsx'] : ['typescript'];
}

export class SourceParseError extends Error {
  constructor(
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
  }
}

function getParserOptions(path: string): ParserOptions {
  return {
    sourceType: 'unambiguous',
    allowReturnOutsideFunction: true,
    allowAwaitOutsideFunction: true,
    // @ts-expect-error -- allowHashBang is accepted by the parser but missing from its ParserOptions typings
    allowHashBang: true,
    errorRecovery: false,
    plugins: getParserPlugins(path),
  };
}

/**
 * Parses a JS/TS source file. Throws SourceParseError with the parser's message and position; a file
 * nested too deeply for this thread's stack is parsed on a thread with a larger one.
 */
export function parseSource(path: string, source: string): File {
  const plugins = getParserPlugins(path).join('+');
  const cached = recent.find((r) => r.source === source && r.plugins === plugins);
  if (cached) return cached.ast;
  let ast: File;
  try {
    ast = babelParser.parse(source, getParserOptions(path));
  } catch (err) {
    if (!isStackOverflow(err)) throw toParseError(err);
    ast = parseOnLargeStack(path, source);
  }
  compactPositions(ast);
  recent.unshift({ source, plugins, ast });
  recent.length = Math.min(recent.length, RECENT_PARSES);
  return ast;
}

/** Where a range parsed on its own sits in its text, and how the text around it is parsed. */
export interface RangeContext {
  /** Offset, 1-based line and 0-based column of the range's first character in the whole text. */
  index: number;
  line: number;
  column: number;
  sourceType: 'script' | 'module';
  strict: boolean;
}

/**
 * The statements of one range of a text, parsed on their own with the positions they have in the whole
 * text (`context`), and the same compact positions as parseSource's trees. Not cached. Null when the range
 * does not parse on its own (or is nested too deeply for this thread): the caller parses the whole text.
 */
export function parseRange(path: string, range: string, context: RangeContext): File | null {
  try {
    const ast = babelParser.parse(range, {
      ...getParserOptions(path),
      sourceType: context.sourceType,
      strictMode: context.strict,
      startIndex: context.index,
      startLine: context.line,
      startColumn: context.column,
    });
    compactPositions(ast);
    return ast;
  } catch {
    return null;
  }
}

/**
 * The trees of the last texts parsed. The phases of one file's migration parse the same text more than
 * once (the rewrite checked after pruning, the checked text re-analysed, the entry re-read for what it
 * still imports): the same text gives back the same tree, which nothing changes (rewrites are text
 * edits). Only a few: a 1 MB file's tree is 40-70 MB, and older texts are not asked for again.
 */
const recent: { source: string; plugins: string; ast: File }[] = [];
const RECENT_PARSES = 2;

/** The tree of `source` when it is one of the last texts parsed, without parsing it (null otherwise). */
export function peekParse(source: string): File | null {
  return recent.find((r) => r.source === source)?.ast ?? null;
}

/** Lets the tree of `source` go (a text its caller knows will not be parsed again). */
export function forgetParse(source: string): void {
  const at = recent.findIndex((r) => r.source === source);
  if (at !== -1) recent.splice(at, 1);
}

function isStackOverflow(err: unknown): boolean {
  return err instanceof RangeError && /call stack/i.test(err.message);
}

function toParseError(err: unknown): SourceParseError {
  const e = err as { message?: string; loc?: { line: number; column: number } };
  return new SourceParseError((e.message ?? String(err)).replace(/\s*\(\d+:\d+\)$/, ''), e.loc?.line, e.loc === undefined ? undefined : e.loc.column + 1);
}

/** What the deep-parse thread posts back. */
type DeepReply = { ok: true; json: string } | { ok: false; message: string; line?: number; column?: number; overflow: boolean };

// The thread's whole program (CommonJS, evaluated): parse, post the tree (or the error), wake the caller.
// The tree travels flat, as JSON of a table: every object and array of the tree once, its object members
// written as {"$i": <row>}. Not the tree itself: structured clone is recursive on the receiving side and
// overflows the caller's stack again at ~1,200 levels. Not JSON of the tree: V8's JSON.stringify takes
// time quadratic in the depth (a flat `1 + 1 + ...` of 60,000 terms: 28 s, 200,000: past the minute),
// while the table is written and read in one pass each. JSON has no Infinity (a `1e999` literal's
// value): such numbers travel as {"$number": "Infinity"}.
const DEEP_PARSE_THREAD = `
const { workerData } = require('node:worker_threads');
const { parserPath, source, options, port, flag } = workerData;
let reply;
try {
  const ast = require(parserPath).parse(source, options);
  const table = [];
  const rows = new Map();
  const encode = (value) => {
    if (value !== null && typeof value === 'object') {
      let row = rows.get(value);
      if (row === undefined) {
        row = table.length;
        rows.set(value, row);
        table.push(value);
      }
      return { $i: row };
    }
    if (typeof value === 'number' && !Number.isFinite(value)) return { $number: String(value) };
    return value;
  };
  encode(ast);
  for (let row = 0; row < table.length; row++) {
    const value = table[row];
    if (Array.isArray(value)) table[row] = value.map(encode);
    else {
      const flat = {};
      for (const key of Object.keys(value)) flat[key] = encode(value[key]);
      table[row] = flat;
    }
  }
  reply = { ok: true, json: JSON.stringify(table) };
} catch (err) {
  const overflow = err instanceof RangeError && /call stack/i.test(err.message);
  reply = { ok: false, message: String((err && err.message) || err), line: err && err.loc && err.loc.line, column: err && err.loc && err.loc.column, overflow };
}
port.postMessage(reply);
Atomics.store(flag, 0, 1);
Atomics.notify(flag, 0);
`;

let parserPath: string | null = null;

function parseOnLargeStack(path: string, source: string): File {
  parserPath ??= createRequire(import.meta.url).resolve('@babel/parser');
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(DEEP_PARSE_THREAD, {
    eval: true,
    workerData: { parserPath, source, options: getParserOptions(path), port: port2, flag },
    transferList: [port2],
    resourceLimits: { stackSizeMb: LARGE_STACK_MB },
    stdout: true,
    stderr: true,
  });
  try {
    const waited = Atomics.wait(flag, 0, 0, LARGE_STACK_TIMEOUT_MS);
    const received = receiveMessageOnPort(port1) as { message: DeepReply } | undefined;
    if (waited === 'timed-out' || received === undefined) {
      throw new SourceParseError(`nested too deeply to parse (no result within ${LARGE_STACK_TIMEOUT_MS / 1000} s)`);
    }
    const reply = received.message;
    if (reply.ok) return readTable(JSON.parse(reply.json) as unknown[]);
    if (reply.overflow) throw new SourceParseError(`nested too deeply to parse, even with a ${LARGE_STACK_MB} MB stack`);
    throw toParseError({ message: reply.message, loc: reply.line === undefined ? undefined : { line: reply.line, column: reply.column ?? 0 } });
  } finally {
    port1.close();
    void worker.terminate();
  }
}

/** The tree the deep-parse thread wrote as a table (rows of members, `{"$i": row}` for an object): one pass, no recursion. */
function readTable(table: unknown[]): File {
  const read = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value;
    const ref = value as { $i?: unknown; $number?: unknown };
    return typeof ref.$i === 'number' ? table[ref.$i] : Number(ref.$number);
  };
  for (const row of table) {
    if (Array.isArray(row)) for (let i = 0; i < row.length; i++) row[i] = read(row[i]);
    else for (const [key, value] of Object.entries(row as Record<string, unknown>)) (row as Record<string, unknown>)[key] = read(value);
  }
  return table[0] as File;
}
