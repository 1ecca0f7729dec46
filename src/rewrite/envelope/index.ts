// The envelope fallback: a hand-rolled server keeps its structure, framing and dispatch; its I/O goes
// through one small helper module (helper-source.ts) that makes every message JSON-RPC 2.0 compliant.
// The rewrite is a handful of text edits, read off the analysis' own facts:
//   1. each module that writes to stdout or parses messages imports the helper and creates the envelope
//      (`const envelope = createEnvelope({ framing, methods })`; one instance per process), the entry with
//      a marker comment saying why this is not the SDK rewrite;
//   2. every write to fd 1 becomes a write through the envelope: `process.stdout.write(x)` and
//      `this.out.write(x)` -> `envelope.write(x)`, `fs.writeSync(1, x)` -> `envelope.write(x)`,
//      `console.log(...)` -> `envelope.log(...)`;
//   3. the `JSON.parse` of incoming messages becomes `envelope.parse` (inside a try) or `envelope.receive`
//      plus a guard (outside one, where a bad line used to crash the server).
// Deliberately not: dispatch, tools or methods are not touched; nothing is guessed, and a step that
// cannot be proven makes the whole rewrite `{ failed }`.
import { getLine, unwrapExpression } from '../../analysis/ast.js';
import type { ModuleUnit } from '../../analysis/program.js';
import { type EnvelopeReason, getEnvelopeMarker } from '../../model/reasons.js';
import type { ServerModel } from '../../model/server-model.js';
import type { ModuleKind } from '../../model/types.js';
import { parseSource } from '../../parse.js';
import { importsCompanion } from '../../analysis/companions.js';
import { buildImportLine, endOfLine, getModuleSyntax, getSpecifier, isDeclaredIn, pickFreeName } from '../companion.js';
import { EditList } from '../edits.js';
import { insertBlockAtImports } from '../imports.js';
import { detectStyle, quoted, semi } from '../style.js';
import { getLineIndent } from '../text.js';
import { buildHelperSource, getHelperModule, HELPER_BASENAME, type HelperModule } from './helper-source.js';

export interface EnvelopeRewrite {
  changes: Map<string, { before: string; after: string }>;
  companions: { path: string; content: string }[];
  fixes: string[];
}

export type EnvelopeRewriteResult = EnvelopeRewrite | { failed: string };

export function rewriteEnvelope(model: ServerModel, reason: EnvelopeReason, moduleKind?: ModuleKind): EnvelopeRewriteResult {
  const facts = model.facts;
  const entry = facts.entry;
  if (facts.program.modules.some((m) => importsCompanion(m, HELPER_BASENAME))) return { changes: new Map(), companions: [], fixes: [] };

  const kindOf = (mod: ModuleUnit): 'esm' | 'cjs' => getModuleSyntax(mod, moduleKind);
  const edits = new Map<ModuleUnit, EditList>();
  const edit = (mod: ModuleUnit): EditList => {
    let list = edits.get(mod);
    if (!list) edits.set(mod, (list = new EditList()));
    return list;
  };
  const names = new Map<ModuleUnit, { envelope: string; create: string }>();
  const nameIn = (mod: ModuleUnit): { envelope: string; create: string } => {
    let picked = names.get(mod);
    if (!picked) {
      const envelope = pickFreeName(mod, ['envelope', 'mcpEnvelope', 'jsonRpcEnvelope']);
      const create = pickFreeName(mod, ['createEnvelope', 'createMcpEnvelope']);
      if (!envelope || !create) throw new Refusal(`${fileName(mod)}: the names the envelope needs are all taken`);
      picked = { envelope, create };
      names.set(mod, picked);
    }
    return picked;
  };

  // No half envelope: the helper answers ping, bad JSON and unknown methods at the parse, so a server
  // whose own writes it cannot take (written by a package, or a module behind an import the analysis
  // could not resolve) would answer those twice, and its notifications still. Both sides or neither.
  if (facts.sinks.length === 0) {
    return { failed: 'no write to stdout was found in the modules the analysis reads (the replies are written by code it cannot see: a package, or an import it could not resolve), so the envelope could take the parse but not the replies' };
  }
  let helper: HelperModule;
  try {
    // 2. writes to fd 1
    for (const sink of facts.sinks) {
      const mod = sink.mod;
      const call = sink.call;
      const name = nameIn(mod).envelope;
      const callee = unwrapExpression(call.callee);
      if (sink.channel === 'writeSync') {
        const data = call.arguments[1];
        if (!data) throw new Refusal(`${fileName(mod)}:${getLine(call)}: a write to fd 1 without data`);
        edit(mod).replace(call.callee.start!, data.start!, `${name}.write(`);
      } else if (sink.channel === 'console') {
        edit(mod).replace(callee.start!, callee.end!, `${name}.log`);
      } else {
        edit(mod).replace(callee.start!, callee.end!, `${name}.write`);
      }
    }
    // 3. the parse of incoming messages
    for (const { call, mod, receipt } of model.envelope.parses) {
      const name = nameIn(mod).envelope;
      const style = detectStyle(mod.source);
      if (receipt.kind === 'guard') {
        edit(mod).replace(call.callee.start!, call.callee.end!, `${name}.receive`);
        const indent = getLineIndent(mod.source, receipt.statement.start!);
        edit(mod).insert(endOfLine(mod.source, receipt.statement.end!), `${style.eol}${indent}if (${receipt.target} === undefined) ${receipt.exit}${semi(style)}`);
      } else if (receipt.kind === 'hoisted') {
        // `this.emit('message', JSON.parse(line));`: the message is received into a name of its own first,
        // so that a bad line ends the handling the way the guard above does, not the server
        const target = ['message', 'incoming', 'parsedMessage'].find((n) => !isDeclaredIn(mod, n));
        if (!target) throw new Refusal(`${fileName(mod)}:${getLine(call)}: the names a received message needs are all taken`);
        const indent = getLineIndent(mod.source, receipt.statement.start!);
        const received = `${name}.receive(${mod.source.slice(receipt.text.start!, receipt.text.end!)})`;
        edit(mod).insert(receipt.statement.start!, `const ${target} = ${received}${semi(style)}${style.eol}${indent}if (${target} === undefined) ${receipt.exit}${semi(style)}${style.eol}${indent}`);
        edit(mod).replace(call.start!, call.end!, target);
      } else {
        // inside a try, the parse's own error handling stays; outside one with no place for a guard, the
        // line is answered and the parse throws as it did (the audit does not call that crash fixed)
        edit(mod).replace(call.callee.start!, call.callee.end!, `${name}.parse`);
      }
    }
    // an unknown method the server never answers: the envelope answers it where its handling ends
    for (const end of model.envelope.unansweredEnds) {
      const mod = end.mod;
      const style = detectStyle(mod.source);
      const name = nameIn(mod).envelope;
      const text = `${name}.send({ error: { code: -32601, message: ${quoted(style, 'Method not found')} } })${semi(style)}`;
      if (end.kind === 'return') {
        const parent = mod.index.parent.get(end.node);
        const inList = parent?.type === 'BlockStatement' || parent?.type === 'Program' || parent?.type === 'SwitchCase' || parent?.type === 'StaticBlock';
        // `if (x) return;` takes one statement: the send and the return go in a block of their own
        if (inList) edit(mod).insert(end.node.start!, `${text}${style.eol}${getLineIndent(mod.source, end.node.start!)}`);
        // (on one line the statements need a `;` between them, whatever the file's style)
        else edit(mod).replace(end.node.start!, end.node.end!, `{ ${text.replace(/;?$/, ';')} ${mod.source.slice(end.node.start!, end.node.end!)} }`);
      } else if (end.fn.body.type === 'BlockStatement') {
        const body = end.fn.body;
        const last = body.body[body.body.length - 1];
        const indent = last ? getLineIndent(mod.source, last.start!) : style.indent;
        edit(mod).insert(last ? endOfLine(mod.source, last.end!) : body.start! + 1, `${style.eol}${indent}${text}`);
      }
    }
    // 1. the helper, in every module that uses it. It lives next to the entry when the entry uses it, else
    //    next to the first module that does: entries (bin/serve.js, src/main.js) that only start one server
    //    module then ask for the same change of it (a helper beside each entry gave it a different import each).
    const home = names.has(entry) || names.size === 0 ? entry : [...names.keys()][0]!;
    helper = getHelperModule(home.path, kindOf(home));
    const framing = model.framing;
    for (const [mod] of names) {
      const style = detectStyle(mod.source);
      const { envelope, create } = names.get(mod)!;
      const specifier = getSpecifier(mod, helper);
      if (kindOf(mod) !== helper.kind && helper.kind !== 'ts') throw new Refusal(`${fileName(mod)} is ${kindOf(mod)} while the helper module is ${helper.kind}`);
      const lines: string[] = [];
      if (mod === home) lines.push(getEnvelopeMarker(reason));
      lines.push(buildImportLine(mod, kindOf(mod), style, 'createEnvelope', create, specifier));
      const options = [`framing: ${quoted(style, framing)}`];
      if (model.envelope.methods !== null) options.push(`methods: [${model.envelope.methods.map((m) => quoted(style, m)).join(', ')}]`);
      lines.push(`const ${envelope} = ${create}({ ${options.join(', ')} })${semi(style)}`);
      if (mod.ast.program.body.length === 0) throw new Refusal(`${fileName(mod)} has no statements`);
      insertBlockAtImports(edit(mod), mod, lines, style.eol);
    }
  } catch (err) {
    if (err instanceof Refusal) return { failed: err.message };
    throw err;
  }

  const changes = new Map<string, { before: string; after: string }>();
  for (const [mod, list] of edits) {
    const after = list.apply(mod.source);
    try {
      parseSource(mod.path, after);
    } catch (err) {
      return { failed: `internal error, the envelope rewrite of ${fileName(mod)} does not parse: ${(err as Error).message}` };
    }
    changes.set(mod.path, { before: mod.source, after });
  }
  return { changes, companions: [{ path: helper.path, content: buildHelperSource(helper.kind) }], fixes: getFixes(model) };
}

/** A step of the rewrite could not be proven safe; becomes `{ failed }`. */
class Refusal extends Error {}

function fileName(mod: ModuleUnit): string {
  return mod.path.split(/[\\/]/).pop() ?? mod.path;
}

function getFixes(model: ServerModel): string[] {
  const fixes = [
    'every reply carries "jsonrpc": "2.0" and echoes the id of the request it answers',
    'notifications are never answered, and a request is answered at most once',
    'error replies are {code, message} objects',
    'bad JSON is answered with -32700 and id null',
    'text that is not a protocol message goes to stderr',
  ];
  if (model.envelope.methods !== null) fixes.push('ping is answered, and unknown methods get -32601');
  else if (model.envelope.answersUnknownMethods) fixes.push("ping is answered, and the server's answer to an unknown method gets -32601");
  else fixes.push('ping is answered');
  if (model.framing === 'content-length') fixes.push('Content-Length is counted in bytes');
  return fixes;
}
