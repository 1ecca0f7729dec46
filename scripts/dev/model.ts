// Developer aid: prints the server model (npx tsx scripts/dev/model.ts CASE_DIR...).
import { getLine } from '../../src/analysis/ast.js';
import { loadCase } from './case.js';
import { detectServer } from '../../src/detect/server.js';

const verbose = process.argv.includes('-v');
for (const dir of process.argv.slice(2).filter((a) => a !== '-v')) {
  const { name, expect, facts: load } = loadCase(dir);
  try {
    const facts = load();
    const d = detectServer(facts);
    if (d.kind !== 'server') {
      console.log(`${name} [${expect}] ${d.kind}`);
      continue;
    }
    const m = d.model;
    if (!m.sdk) {
      console.log(`${name} [${expect}] BLOCKED ${m.blockers.map((b) => `${b.code}@${b.line}: ${b.detail}`).join('; ')}`);
      continue;
    }
    const s = m.sdk;
    console.log(`${name} [${expect}] SDK d=${s.dispatcher.kind}@${getLine(s.dispatcher.fn)} sites=${s.sites.length} calls=${s.returnedCalls.length} reg=${s.registrations.join(',')} custom=${s.customMethods.join(',')} fb=${s.fallback} rm=${s.removableBranches.length} anchor=${s.anchor.mod.path.split('/').pop()}:${getLine(s.anchor.statement)} handler=${s.handler} id=${s.usesMessageId}`);
    if (verbose) {
      console.log(`  info=${s.construct.serverInfo} caps=${s.construct.capabilities} instr=${s.construct.instructions}`);
      for (const site of s.sites) console.log(`  site ${site.kind}@${site.line} ${[...site.methods].join(',')} -> ${JSON.stringify(site.reply)}`);
    }
  } catch (e) {
    console.log(`${name} CRASH ${(e as Error).stack?.split('\n').slice(0, 4).join(' | ')}`);
  }
}
