// A server already on the SDK that also writes to stdout itself (`console.log`, `process.stdout.write`)
// puts lines on the wire that are not protocol messages. Its rewrite moves exactly those writes to stderr;
// nothing else in the file changes. The writes are the analysis' own (analysis/facts.ts).
import { getMemberName, unwrapExpression } from '../analysis/ast.js';
import type { SinkCall } from '../analysis/facts.js';
import type { ModuleUnit } from '../analysis/program.js';
import { EditList } from './edits.js';

export function rewriteSdkServerStdout(entry: ModuleUnit, sinks: SinkCall[]): { after: string; notes: string[]; fixes: string[] } | null {
  const edits = new EditList();
  const lines = addStdoutMoves(entry, sinks, edits);
  if (lines === 0) return null;
  return { after: edits.apply(entry.source), notes: [], fixes: [describeStdoutMoves(lines)] };
}

/** Adds to `edits` the moves of `mod`'s own stdout writes to stderr; how many writes moved. */
export function addStdoutMoves(mod: ModuleUnit, sinks: SinkCall[], edits: EditList): number {
  let lines = 0;
  for (const sink of sinks) {
    if (sink.mod !== mod) continue;
    const callee = unwrapExpression(sink.call.callee);
    if (callee.type !== 'MemberExpression') continue;
    if (sink.channel === 'console' && callee.property.type === 'Identifier') {
      edits.replace(callee.property.start!, callee.property.end!, 'error');
    } else if (sink.channel === 'stdout.write' && callee.object.type === 'MemberExpression' && getMemberName(callee.object) === 'stdout') {
      edits.replace(callee.object.property.start!, callee.object.property.end!, 'stderr');
    } else continue;
    lines++;
  }
  return lines;
}

export function describeStdoutMoves(lines: number): string {
  return `${lines === 1 ? '1 write to stdout no longer corrupts' : `${lines} writes to stdout no longer corrupt`} the SDK transport (moved to stderr)`;
}
