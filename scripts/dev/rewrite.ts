// Developer aid: runs detection and the SDK rewrite on case folders and prints failures or the diff stats.
import { loadCase } from './case.js';
import { detectServer } from '../../src/detect/server.js';
import { rewriteToSdk } from '../../src/rewrite/sdk.js';

const show = process.argv.includes('-p');
for (const dir of process.argv.slice(2).filter((a) => !a.startsWith('-'))) {
  const { name, facts: load } = loadCase(dir);
  try {
    const facts = load();
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
