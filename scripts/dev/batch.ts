// Developer aid: summarises the interpreted paths of every case folder given (entry from case.json).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildFacts } from '../../src/analysis/facts.js';
import { parseSource } from '../../src/parse.js';

for (const dir of process.argv.slice(2)) {
  const kase = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8'));
  const entry = resolve(dir, kase.run.slice(1).find((a: string) => /\.[cm]?[jt]s$/.test(a)));
  const source = readFileSync(entry, 'utf8');
  const t0 = Date.now();
  try {
    const facts = buildFacts(entry, source, parseSource(entry, source), (p) => {
      try {
        return readFileSync(p, 'utf8');
      } catch {
        return null;
      }
    });
    const methods = new Map<string, Set<string>>();
    for (const p of facts.paths) {
      const m = p.state.cons.get('method')?.eq;
      const key = m === undefined ? (p.state.cons.get('method')?.neq.length ? '<other>' : '<any>') : String(m);
      const set = methods.get(key) ?? new Set();
      for (const e of p.state.events) {
        if (e.e === 'write' && e.data.kind === 'json') {
          const v = e.data.value;
          const f = v.k === 'obj' ? facts.interp.getFields(v, p.state, e.frame) : null;
          set.add(f ? (f.has('error') ? 'E' : f.has('result') ? 'R' : '?') : v.k);
        }
      }
      if (!p.state.events.some((e) => e.e === 'write' && e.data.kind === 'json')) set.add('-');
      methods.set(key, set);
    }
    const summary = [...methods].map(([k, v]) => `${k}:${[...v].join('')}`).join(' ');
    console.log(`${dir.replace(/\/$/, '').split('/').pop()} [${kase.expect}] c=${facts.consumers.length} p=${facts.paths.length}${facts.incomplete ? ' INCOMPLETE' : ''} ${Date.now() - t0}ms :: ${summary}`);
  } catch (e) {
    console.log(`${dir.replace(/\/$/, '').split('/').pop()} CRASH ${(e as Error).stack?.split('\n').slice(0, 3).join(' | ')}`);
  }
}
