// Developer aid: runs detection and the SDK rewrite on case folders and prints failures or the diff stats.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildFacts } from '../../src/analysis/facts.js';
import { detectServer } from '../../src/detect/server.js';
import { parseSource } from '../../src/parse.js';
import { rewriteToSdk } from '../../src/rewrite/sdk.js';

const show = process.argv.includes('-p');
for (const dir of process.argv.slice(2).filter((a) => !a.startsWith('-'))) {
  const kase = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8'));
  const entry = resolve(dir, kase.run.slice(1).find((a: string) => /\.[cm]?[jt]s$/.test(a)));
  const source = readFileSync(entry, 'utf8');
  const name = dir.replace(/\/$/, '').split('/').pop();
  try {
    const facts = buildFacts(entry, source, parseSource(entry, source), (p) => {
      try {
        return readFileSync(p, 'utf8');
      } catch {
        return null;
      }
    });
    const d = detectServer(facts);
    if (d.kind !== 'server' || !d.model.sdk) {
      console.log(`${name}: ${d.kind} ${d.kind === 'server' ? d.model.blockers.map((b) => b.code).join(',') : ''}`);
      continue;
    }
    const r = rewriteToSdk(d.model, 'v1');
    if ('failed' in r) console.log(`${name}: FAILED ${r.failed}`);
    else {
      console.log(`${name}: ok ${[...r.changes.keys()].map((p) => p.split('/').pop()).join(',')}`);
      if (show) for (const [p, c] of r.changes) console.log(`--- ${p}\n${c.after}`);
    }
  } catch (e) {
    console.log(`${name}: CRASH ${(e as Error).stack?.split('\n').slice(0, 5).join(' | ')}`);
  }
}
