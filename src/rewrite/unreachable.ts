// After the SDK rewrite: a `break;` in a switch case that the rewrite made unreachable goes. Replies
// became `return`s and error replies `throw`s, so
//
//   case 'tools/call':                              case 'tools/call':
//     if (!tool) { send(error); } else { send(r); }    if (!tool) { throw ...; } else { return r; }
//     break;                                          break;   <- never runs
//
// A reply statement followed directly by `break;` is handled where the reply is rewritten; this catches
// the `break;` after an if / else (or block) whose every branch now returns or throws. Only a break whose
// preceding statement the rewrite changed: a user's own `return; break;` is code it did not need to touch.
import { t } from '../babel.js';
import { parseSource } from '../parse.js';
import { EditList } from './edits.js';
import { getRemovalRange } from './text.js';

export function removeUnreachableBreaks(path: string, before: string, after: string): string {
  if (!/\bbreak\s*;/.test(after)) return after;
  const ast = parseSource(path, after);
  const edits = new EditList();
  const stack: t.Node[] = [ast.program];
  while (stack.length > 0) {
    const node = stack.pop()!;
    // the statements of a case, and of a `case x: { ... }` block
    const lists = t.isSwitchCase(node) ? [node.consequent, ...node.consequent.filter((s): s is t.BlockStatement => t.isBlockStatement(s)).map((b) => b.body)] : [];
    for (const list of lists) {
      for (let i = 1; i < list.length; i++) {
        const statement = list[i]!;
        const previous = list[i - 1]!;
        if (!t.isBreakStatement(statement) || statement.label || !alwaysExits(previous)) continue;
        if (before.includes(after.slice(previous.start!, previous.end!))) continue;
        const range = getRemovalRange(after, statement.start!, statement.end!);
        edits.remove(range.start, range.end);
      }
    }
    for (const key of t.VISITOR_KEYS[node.type] ?? []) {
      const value = (node as unknown as Record<string, unknown>)[key];
      for (const child of Array.isArray(value) ? value : [value]) if (isNode(child)) stack.push(child);
    }
  }
  return edits.apply(after);
}

/** Whether control never continues past `node`: a return or throw, a block ending in one, an if whose both branches do. */
function alwaysExits(node: t.Statement): boolean {
  if (t.isReturnStatement(node) || t.isThrowStatement(node)) return true;
  if (t.isBlockStatement(node)) return node.body.length > 0 && alwaysExits(node.body[node.body.length - 1]!);
  if (t.isIfStatement(node)) return node.alternate !== null && node.alternate !== undefined && alwaysExits(node.consequent) && alwaysExits(node.alternate);
  return false;
}

function isNode(value: unknown): value is t.Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}
