// Developer aid: rewrites __testfixtures__/mcp-migrate/*.output.* from the current pipeline, so that
// `git diff` shows what changed. Every changed output must be read before it is committed.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processSource } from '../../src/pipeline.js';
import type { PipelineOptions } from '../../src/model/types.js';
import { listFixtureCases } from '../../test/fixtures/fixture-cases.js';

const DIR = join(import.meta.dirname, '..', '..', '__testfixtures__', 'mcp-migrate');
const read = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};
for (const c of listFixtureCases(DIR)) {
  const options = { sdk: 'v1', style: 'server', ...c.options } as PipelineOptions;
  const result = processSource(c.input, readFileSync(c.input, 'utf8'), options, read);
  const target = c.output ?? join(DIR, `${c.name}.output.${c.ext}`);
  if (result.after === undefined) {
    if (c.output) rmSync(c.output);
    console.log(`${c.name}: unchanged (${result.decision.kind}${'reason' in result.decision ? ` ${result.decision.reason}` : ''})`);
    continue;
  }
  writeFileSync(target, result.after);
  console.log(`${c.name}: ${result.decision.kind}${'reason' in result.decision ? ` ${result.decision.reason}` : ''}; related ${(result.related ?? []).map((r) => r.path.split('/').pop()).join(', ') || '-'}`);
}
