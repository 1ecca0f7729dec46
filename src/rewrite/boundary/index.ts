// The SDK at the boundary: the SDK's Server and stdio transport own the wire, and the server's own code
// stays as it is behind them (helper-source.ts). The rewrite is a handful of text edits, read off the
// analysis' facts about where messages come in and go out:
//   1. every place the program names the process's stdin becomes the boundary's stdin
//      (`readline.createInterface({ input: process.stdin })` -> `{ input: boundary.stdin }`): the SDK
//      hands each request to the server there, one message per line;
//   2. every write to fd 1 becomes a write through the boundary (`process.stdout.write(x)` ->
//      `boundary.write(x)`, `fs.writeSync(1, x)` -> `boundary.write(x)`, `console.log(...)` ->
//      `boundary.log(...)`), and every other place that names stdout the boundary's stdout (an injected
//      stream): what the server writes is routed back to the request it answers;
//   3. the `JSON.parse` of incoming messages, where the analysis found it, becomes `boundary.parse`
//      (the handling of each request starts there);
//   4. each module that uses it imports the boundary and creates it (one per process), the first with a
//      marker saying why the dispatcher-level rewrite was not made, and the option that sends
//      console.log/info/debug through the boundary once the SDK takes stdin (a dependency's logger cannot
//      corrupt the transport; a program that only imports a module of the server is not touched).
// Deliberately not: dispatch, tools or methods; nothing of the server's own code moves. A step that
// cannot be done makes the whole rewrite `{ failed }`.
import type * as t from '@babel/types';
import { getLine } from '../../analysis/ast.js';
import type { FileFacts } from '../../analysis/facts.js';
import type { ModuleUnit } from '../../analysis/program.js';
import { type BoundaryReason, getBoundaryMarker } from '../../model/reasons.js';
import type { BoundaryFacts } from '../../model/server-model.js';
import type { ModuleKind, SdkTarget } from '../../model/types.js';
import { parseSource } from '../../parse.js';
import { importsCompanion } from '../../analysis/companions.js';
import { buildImportLine, getModuleSyntax, getSpecifier, pickFreeName } from '../companion.js';
import { EditList } from '../edits.js';
import { getImportOffset, insertBlockAtImports } from '../imports.js';
import { detectStyle, quoted, semi } from '../style.js';
import { getLineStart } from '../text.js';
import { BOUNDARY_BASENAME, buildBoundarySource, getBoundaryModule } from './helper-source.js';

export interface BoundaryRewrite {
  changes: Map<string, { before: string; after: string }>;
  companions: { path: string; content: string }[];
  fixes: string[];
  notes: string[];
}

export type BoundaryRewriteResult = BoundaryRewrite | { failed: string };

export interface BoundaryInput {
  facts: FileFacts;
  boundary: Extract<BoundaryFacts, { available: true }>;
  reason: BoundaryReason;
  sdk: SdkTarget;
  moduleKind?: ModuleKind;
  /** The line that sends console.log/info/debug through the boundary (default true). */
  guardStdout?: boolean;
  /**
   * Several entry files start this server from a module they share (the runner asks again with this set):
   * the boundary lives next to that module, so that its rewrite is the same whichever entry is rewritten.
   */
  sharedModules?: boolean;
}

export function rewriteBoundary(input: BoundaryInput): BoundaryRewriteResult {
  const { facts, boundary } = input;
  const entry = facts.entry;
  if (facts.program.modules.some((m) => importsCompanion(m, BOUNDARY_BASENAME))) return { changes: new Map(), companions: [], fixes: [], notes: [] };
  const edits = new Map<ModuleUnit, EditList>();
  const edit = (mod: ModuleUnit): EditList => {
    let list = edits.get(mod);
    if (!list) edits.set(mod, (list = new EditList()));
    return list;
  };
  const names = new Map<ModuleUnit, { boundary: string; create: string }>();
  const nameIn = (mod: ModuleUnit): { boundary: string; create: string } => {
    let picked = names.get(mod);
    if (!picked) {
      const local = pickFreeName(mod, ['boundary', 'mcpBoundary', 'sdkBoundary']);
      const create = pickFreeName(mod, ['createBoundary', 'createMcpBoundary']);
      if (local === null || create === null) throw new Refusal(`${fileName(mod)}: the names the boundary needs are all taken`);
      names.set(mod, (picked = { boundary: local, create }));
    }
    return picked;
  };
  // where each module first uses the boundary: its creation must come before that
  const firstUse = new Map<ModuleUnit, number>();
  const use = (mod: ModuleUnit, at: number): string => {
    firstUse.set(mod, Math.min(at, firstUse.get(mod) ?? at));
    return nameIn(mod).boundary;
  };

  try {
    // 2. writes to fd 1 (the stream named inside one goes with it)
    const taken = new Map<ModuleUnit, { start: number; end: number }[]>();
    for (const sink of boundary.sinks) {
      const { mod, call } = sink;
      const name = use(mod, call.start!);
      const callee = call.callee;
      let range: { start: number; end: number };
      if (sink.channel === 'writeSync') {
        const data = call.arguments[1];
        if (!data) throw new Refusal(`${fileName(mod)}:${getLine(call)}: a write to fd 1 without data`);
        range = { start: callee.start!, end: data.start! };
        edit(mod).replace(range.start, range.end, `${name}.write(`);
      } else {
        range = { start: callee.start!, end: callee.end! };
        edit(mod).replace(range.start, range.end, `${name}.${sink.channel === 'console' ? 'log' : 'write'}`);
      }
      taken.set(mod, [...(taken.get(mod) ?? []), range]);
    }
    // 1. and 2. every other place that names the streams
    for (const ref of [...boundary.stdin, ...boundary.stdout]) {
      const { mod, node } = ref;
      if ((taken.get(mod) ?? []).some((r) => node.start! >= r.start && node.end! <= r.end)) continue;
      const name = use(mod, node.start!);
      const text = `${name}.${ref.stream}`;
      edit(mod).replace(node.start!, node.end!, ref.shorthand ? `${(node as t.Identifier).name}: ${text}` : text);
    }
    // 3. where the server parses each message
    for (const { call, mod } of boundary.parses) {
      const name = use(mod, call.start!);
      edit(mod).replace(call.callee.start!, call.callee.end!, `${name}.parse`);
    }
    if (!names.has(entry) && names.size === 0) throw new Refusal('the program names neither stdin nor stdout where the rewrite can reach them');

    // 4. the boundary, in every module that uses it. It lives next to the entry when the entry uses it,
    //    else next to the first module that does (entries that only start one server module then ask for
    //    the same change of it; where entries share the module, always next to it).
    const shared = input.sharedModules === true ? [...names.keys()].find((m) => m !== entry) : undefined;
    const home = shared ?? (names.has(entry) ? entry : [...names.keys()][0]!);
    const companion = getBoundaryModule(home.path, getModuleSyntax(home, input.moduleKind));
    const list = (methods: string[]): string => `[${methods.map((m) => quoted(detectStyle(home.source), m)).join(', ')}]`;
    const guard = input.guardStdout !== false;
    const fields = [...(boundary.methods.length > 0 ? [`methods: ${list(boundary.methods)}`] : []), ...(boundary.known !== null ? [`known: ${list(boundary.known)}`] : []), ...(boundary.namespaced !== null ? [`namespaced: ${list(boundary.namespaced)}`] : []), ...(boundary.namespaced !== null && boundary.stems !== null ? [`stems: ${list(boundary.stems)}`] : []), ...(guard ? ['guardConsole: true'] : [])];
    const options = fields.length > 0 ? `{ ${fields.join(', ')} }` : '';
    // What the options say depends on the whole program (the methods its entry names too): where entries
    // share the module, the entry carries them, so that the shared module's change is the same for all
    // (createBoundary merges the options of every call made before start-up). An entry that does not use
    // the boundary otherwise calls it for its options alone.
    const optionsIn = shared !== undefined ? entry : home;
    const optionsOnly = shared !== undefined && !names.has(entry) && options !== '';
    if (optionsOnly) nameIn(entry);
    for (const [mod, { boundary: local, create }] of names) {
      const style = detectStyle(mod.source);
      const syntax = getModuleSyntax(mod, input.moduleKind);
      if (syntax !== companion.kind && companion.kind !== 'ts') throw new Refusal(`${fileName(mod)} is ${syntax} while the boundary module is ${companion.kind}`);
      const lines: string[] = [];
      if (mod === home) lines.push(getBoundaryMarker(input.reason));
      if (mod === home && guard) lines.push('// mcp-migrate: once the SDK takes stdin, console.log/info/debug (a dependency\'s logger too) go through the boundary: stdout carries only the protocol');
      lines.push(buildImportLine(mod, syntax, style, 'createBoundary', create, getSpecifier(mod, companion)));
      if (mod === entry && optionsOnly) lines.push(`${create}(${options})${semi(style)}`);
      else lines.push(`const ${local} = ${create}(${mod === optionsIn ? options : ''})${semi(style)}`);
      insertBoundary(edit(mod), mod, lines, style.eol, firstUse.get(mod) ?? Number.POSITIVE_INFINITY);
    }

    const changes = new Map<string, { before: string; after: string }>();
    for (const [mod, list] of edits) {
      const after = list.apply(mod.source);
      try {
        parseSource(mod.path, after);
      } catch (err) {
        return { failed: `internal error, the boundary rewrite of ${fileName(mod)} does not parse: ${(err as Error).message}` };
      }
      changes.set(mod.path, { before: mod.source, after });
    }
    return {
      changes,
      companions: [{ path: companion.path, content: buildBoundarySource(companion.kind, input.sdk) }],
      fixes: getFixes(),
      notes: [
        "the SDK owns the wire; each request reaches the server's own handling where stdin delivered it, and what the server writes back becomes its answer",
        "the server's own answer to initialize (run at start-up) gives the serverInfo, capabilities and instructions the SDK announces",
      ],
    };
  } catch (err) {
    if (err instanceof Refusal) return { failed: err.message };
    throw err;
  }
}

/**
 * After the imports, with a blank line after the block when there are none; before the top-level
 * statement of the first use when that comes earlier (`const rl = require('readline').createInterface({
 * input: process.stdin })` is a require statement: the boundary must exist when it runs).
 */
function insertBoundary(list: EditList, mod: ModuleUnit, lines: string[], eol: string, firstUse: number): void {
  const { offset } = getImportOffset(mod);
  const statement = mod.ast.program.body.find((s) => s.start! <= firstUse && firstUse < s.end!);
  if (statement !== undefined && statement.start! < offset) {
    const at = getLineStart(mod.source, statement.start!);
    if (!/^[ \t]*$/.test(mod.source.slice(at, statement.start!))) throw new Refusal(`${fileName(mod)}:${getLine(statement)}: the boundary would be used before it is created`);
    list.insert(at, lines.join(eol) + eol);
    return;
  }
  insertBlockAtImports(list, mod, lines, eol);
}

/** A step of the rewrite could not be done; becomes `{ failed }`. */
class Refusal extends Error {}

function fileName(mod: ModuleUnit): string {
  return mod.path.split(/[\\/]/).pop() ?? mod.path;
}

function getFixes(): string[] {
  return [
    'every reply carries "jsonrpc": "2.0" and the id of the request it answers (the SDK writes it)',
    'notifications are never answered, and a request is answered at most once',
    'error replies are {code, message} objects',
    'ping is answered (the SDK does it)',
    'bad JSON is answered with -32700 and id null, and the server keeps serving',
    'text that is not a protocol message goes to stderr',
    'resources/read contents without a uri carry the one requested (clients reject them without it)',
    'the capabilities announced include those of the MCP methods the server answers and did not declare',
  ];
}
