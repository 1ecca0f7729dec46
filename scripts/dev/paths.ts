// Developer aid: prints the interpreted paths of a server file (npx tsx scripts/dev/paths.ts FILE).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { getLine } from '../../src/analysis/ast.js';
import type { t } from '../../src/babel.js';
import { buildFacts } from '../../src/analysis/facts.js';
import { describeVal, type Val } from '../../src/analysis/values.js';
import { parseSource } from '../../src/parse.js';

const file = resolve(process.argv[2]!);
const source = readFileSync(file, 'utf8');
const facts = buildFacts(file, source, parseSource(file, source), (p) => {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return null;
  }
});
const line = (n: t.Node) => getLine(n) || '?';
console.log('modules', facts.program.modules.map((m) => m.path.split('/').pop()));
console.log('consumers', facts.consumers.map((c) => `${c.kind}@${line(c.node)}`));
console.log('sinks', facts.sinks.map((s) => `${s.channel}@${s.mod.path.split('/').pop()}:${line(s.call)}`));
console.log('paths', facts.paths.length, 'incomplete', facts.incomplete);
const show = (v: Val, fields = 0): string => {
  if (v.k === 'obj' && fields < 2) {
    return v.k;
  }
  return describeVal(v);
};
for (const p of facts.paths) {
  const cons = [...p.state.cons].map(([k, c]) => `${k}${c.eq !== undefined ? `=${JSON.stringify(c.eq)}` : ''}${c.neq.length ? `≠${c.neq.length}` : ''}${c.defined !== undefined ? (c.defined ? '+' : '-') : ''}`).join(' ');
  const ev = p.state.events
    .filter((e) => e.e === 'write' || e.e === 'parse' || e.e === 'incomplete' || e.e === 'computed-key' || e.e === 'runtime-table')
    .map((e) => {
      if (e.e === 'write') {
        const d = e.data;
        if (d.kind === 'json') {
          const v = d.value;
          let keys = '';
          if (v.k === 'obj') {
            const f = facts.interp.getFields(v, p.state, e.frame);
            keys = f ? [...f.keys()].join(',') : '?';
          }
          return `W${line(e.call)}:${d.framing}{${keys}}${show(v)}`;
        }
        return `W${line(e.call)}:${d.kind}`;
      }
      if (e.e === 'parse') return `P${e.ok ? '+' : '-'}`;
      if (e.e === 'incomplete') return `!${e.why}@${line(e.node)}`;
      return `${e.e}@${line(e.node)}`;
    })
    .join(' ');
  console.log(`[${cons}] ${p.completion.type} :: ${ev}`);
}
