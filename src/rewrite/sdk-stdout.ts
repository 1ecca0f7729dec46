// A server already on the SDK that also writes to stdout itself (`console.log`, `process.stdout.write`)
// puts lines on the wire that are not protocol messages. Its rewrite moves exactly those writes to stderr;
// nothing else in the file changes.
import * as t from '@babel/types';
import { getMemberChain, getStdoutWriteKind, walk } from '../detect/ast.js';
import { EditList } from './edits.js';

export function rewriteSdkServerStdout(ast: t.File, source: string): { after: string; notes: string[]; fixes: string[] } | null {
  const edits = new EditList();
  let lines = 0;
  walk(ast.program, (node) => {
    if (!t.isCallExpression(node) || !t.isMemberExpression(node.callee)) return true;
    const kind = getStdoutWriteKind(node);
    if (kind === 'console') edits.replace(node.callee.property.start!, node.callee.property.end!, 'error');
    else if (kind === 'stdout.write' && getMemberChain(node.callee) === 'process.stdout.write') {
      edits.replace(node.callee.object.start!, node.callee.object.end!, 'process.stderr');
    } else return true;
    lines++;
    return true;
  });
  if (edits.size === 0) return null;
  return {
    after: edits.apply(source),
    notes: ['already on the SDK: only its own stdout writes move to stderr'],
    fixes: [`${lines} write${lines === 1 ? '' : 's'} to stdout no longer corrupt the SDK transport (moved to stderr)`],
  };
}
