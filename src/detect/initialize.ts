// The initialize reply of a server (./sdk-shape.ts builds the SDK server from it), and the reads of the
// analysis' events the SDK shape shares: a store nothing reads, a value only logged.
import { t } from '../babel.js';
import { getMemberName, isFunctionNode, resolveIdentifier, unwrapExpression } from '../analysis/ast.js';
import { type FileFacts } from '../analysis/facts.js';
import { type Event, type WriteData } from '../analysis/interp.js';
import { isLoggingHelperCall, isWithinFrame, type MessagePath } from '../analysis/messages.js';
import type { ModuleUnit } from '../analysis/program.js';
import { getFieldNode } from '../analysis/render.js';
import type { BlockerReason } from '../model/reasons.js';
import type { InitializeInfo } from '../model/server-model.js';


export function getInitializeInfo(facts: FileFacts, paths: MessagePath[], block: (code: BlockerReason, node: t.Node | null, detail: string) => void): InitializeInfo | null {
  const init = paths.find((p) => p.method === 'initialize' && !p.notification && p.replies.some((r) => r.kind === 'result'));
  if (!init) {
    // no path reaches a branch for one method: the dispatch is what was not understood, not initialize
    if (!paths.some((p) => p.method !== null)) block('NO_DISPATCH', facts.consumers[0]!.node, 'no request reaches a branch for a method the analysis can name: the lookup on `method` is not one it follows');
    else block('NO_SERVER_INFO', facts.consumers[0]!.node, 'no initialize reply was found');
    return null;
  }
  const reply = init.replies.find((r) => r.kind === 'result')!;
  const value = (reply.event.data as Extract<WriteData, { kind: 'json' }>).value;
  const fields = facts.interp.getFields(value, init.path.state, reply.event.frame);
  const result = fields?.get('result');
  const resultFields = result ? facts.interp.getFields(result, init.path.state, reply.event.frame) : null;
  if (!resultFields || !resultFields.has('serverInfo')) {
    block('NO_SERVER_INFO', reply.event.call, 'the initialize result has no serverInfo the tool can read');
    return null;
  }
  // state the initialize handler changes would be lost: the SDK answers initialize itself
  // (only in the code handling the message: the input side's own state, a line buffer, goes with the loop)
  const effects = init.events
    .slice(init.parseIndex)
    .filter((e) => e.e === 'effect' && e.what === 'assign' && isWithinFrame(e.frame, init.parseFrame) && !isDeadStore(facts, e));
  if (effects.length > 0) {
    block('SDK_OWNED_SIDE_EFFECTS', effects[0]!.e === 'effect' ? (effects[0] as Extract<Event, { e: 'effect' }>).node : null, 'the initialize handler changes server state');
    return null;
  }
  // the fields as written in the reply, so a constant keeps its name (`serverInfo: SERVER_INFO`)
  const origin = value.origin;
  const written = (name: string) => {
    const inReply = origin && origin.node.type === 'ObjectExpression' ? getFieldNode(origin.node, origin.frame, origin.frame?.mod ?? facts.entry, 'result') : null;
    const found = inReply ? getFieldNode(inReply.node, inReply.frame, inReply.mod, name) : null;
    if (found) return found;
    // the result built elsewhere (`result: await handler(params)`): the object the handler returned
    const built = result?.origin;
    if (!built || built.node.type !== 'ObjectExpression') return null;
    return getFieldNode(built.node, built.frame, built.frame?.mod ?? facts.entry, name);
  };
  return {
    serverInfo: resultFields.get('serverInfo')!,
    capabilities: resultFields.get('capabilities') ?? null,
    instructions: resultFields.get('instructions') ?? null,
    written: { serverInfo: written('serverInfo'), capabilities: written('capabilities'), instructions: written('instructions') },
  };
}

/**
 * An assignment to state nothing ever reads (`clientName = params.clientInfo.name` with no reader):
 * dropping or reordering it cannot change what the server does.
 */
export function isDeadStore(facts: FileFacts, e: Event): boolean {
  if (e.e !== 'effect' || e.what !== 'assign') return false;
  const node = e.node;
  const target = node.type === 'AssignmentExpression' ? node.left : node.type === 'UpdateExpression' ? node.argument : null;
  if (!target) return false;
  const mod = e.frame.mod;
  if (target.type === 'Identifier') {
    const binding = resolveIdentifier(mod.index, target);
    if (!binding) return false;
    // an exported binding may be read by another module
    if (getExportedLocalNames(mod).has(target.name)) return false;
    for (const id of mod.index.identifiers) {
      if (id === target || id.name !== target.name) continue;
      if (resolveIdentifier(mod.index, id) !== binding) continue;
      const parent = mod.index.parent.get(id);
      const written = (parent?.type === 'AssignmentExpression' && parent.left === id && parent.operator === '=') || parent?.type === 'VariableDeclarator';
      if (!written && !isLoggedOnly(facts, mod, id)) return false;
    }
    return true;
  }
  if (target.type === 'MemberExpression' && target.object.type === 'ThisExpression') {
    const name = getMemberName(target);
    if (name === null) return false;
    for (const m of facts.program.modules) {
      for (const member of m.index.members) {
        if (member === target || getMemberName(member) !== name) continue;
        const parent = m.index.parent.get(member);
        if (!(parent?.type === 'AssignmentExpression' && parent.left === member && parent.operator === '=') && !isLoggedOnly(facts, m, member)) return false;
      }
    }
    return true;
  }
  return false;
}

/**
 * A read that only feeds a log line: inside the arguments of `console.*(...)`, `process.stderr.write(...)`
 * or a helper that can only write to stderr (`` log(`#${this.count} <- ${method}`) ``). A counter kept for
 * the log is no state a client can see.
 */
function isLoggedOnly(facts: FileFacts, mod: ModuleUnit, node: t.Node): boolean {
  let child: t.Node = node;
  for (let parent = mod.index.parent.get(node); parent; child = parent, parent = mod.index.parent.get(parent)) {
    if (isFunctionNode(parent) || t.isStatement(parent)) return false;
    if (parent.type !== 'CallExpression' || parent.callee === child) continue;
    const callee = unwrapExpression(parent.callee);
    if (callee.type === 'MemberExpression') {
      const object = unwrapExpression(callee.object);
      if (object.type === 'Identifier' && object.name === 'console' && resolveIdentifier(mod.index, object) === null) return true;
      if (object.type === 'MemberExpression' && getMemberName(object) === 'stderr' && object.object.type === 'Identifier' && object.object.name === 'process' && getMemberName(callee) === 'write') return true;
    }
    return isLoggingHelperCall(facts, mod, parent);
  }
  return false;
}

/** Local names a module exports (ES `export` declarations and specifiers, CommonJS `exports.x = x`). */
export function getExportedLocalNames(mod: ModuleUnit): Set<string> {
  const names = new Set<string>();
  for (const statement of mod.ast.program.body) {
    if (statement.type === 'ExportNamedDeclaration') {
      const d = statement.declaration;
      if (d?.type === 'VariableDeclaration') for (const decl of d.declarations) if (decl.id.type === 'Identifier') names.add(decl.id.name);
      for (const spec of statement.specifiers) if (spec.type === 'ExportSpecifier') names.add(spec.local.name);
    }
    if (statement.type === 'ExpressionStatement' && statement.expression.type === 'AssignmentExpression') {
      const right = statement.expression.right;
      if (right.type === 'Identifier') names.add(right.name);
      if (right.type === 'ObjectExpression') for (const p of right.properties) if (p.type === 'ObjectProperty' && p.value.type === 'Identifier') names.add(p.value.name);
    }
  }
  return names;
}
