import { readFileSync } from 'node:fs';
import { buildFacts } from '../../src/analysis/facts.js';
import { detectServer } from '../../src/detect/server.js';
import { rewriteToSdk } from '../../src/rewrite/sdk.js';
import { parseSource } from '../../src/parse.js';
import { createTwoFilesPatch } from 'diff';
const entry = process.argv[2];
const src = readFileSync(entry, 'utf8');
const facts = buildFacts(entry, src, parseSource(entry, src), (p) => { try { return readFileSync(p, 'utf8'); } catch { return null; } });
const d = detectServer(facts);
if (d.kind !== 'server' || !d.model.sdk) { console.log(d.kind, d.kind === 'server' ? d.model.blockers : ''); process.exit(0); }
const r = rewriteToSdk(d.model, 'v1');
if ('failed' in r) { console.log('FAILED', r); process.exit(0); }
for (const [p, c] of r.changes) if (!process.argv[3] || p.endsWith(process.argv[3])) console.log(createTwoFilesPatch(p, p, c.before, c.after));
