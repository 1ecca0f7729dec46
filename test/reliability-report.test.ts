// Issue 10, item 7 (reports and flags): SARIF keeps a backslash in a POSIX file name (it is part of
// the name, not a separator), and --jobs is capped at the number of cores.
import { afterAll, describe, it, expect } from 'vitest';
import { parseCliArgs } from '../src/cli/args.js';
import { main } from '../src/cli/main.js';
import { buildSarif } from '../src/cli/report/sarif.js';
import type { FileResult, RunSummary } from '../src/model/types.js';
import { makeHarness, makeTree, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

function pending(path: string): FileResult {
  return { path, before: 'a', after: 'b', decision: { kind: 'sdk', sdk: 'v1', style: 'server', notes: [] }, fixes: [], findings: [], diagnostics: [] };
}

function summaryOf(files: FileResult[]): RunSummary {
  return { root: '/repo', mode: 'check', files, manifests: [], written: [], exitCode: 1 };
}

describe('SARIF file names', () => {
  it.runIf(process.platform !== 'win32')('a backslash in a POSIX file name stays part of the name (%5C), never a separator', () => {
    const log = buildSarif(summaryOf([pending('src/a\\b.js'), pending('dir\\x/server.js')]));
    const uris = log.runs[0]!.results!.map((r) => r.locations![0]!.physicalLocation!.artifactLocation!.uri);
    expect(uris).toEqual(['src/a%5Cb.js', 'dir%5Cx/server.js']);
  });

  it('an absolute path (a target outside the root) is a file: URI', () => {
    const log = buildSarif(summaryOf([pending('/elsewhere/s p.js')]));
    expect(log.runs[0]!.results![0]!.locations![0]!.physicalLocation!.artifactLocation).toEqual({ uri: 'file:///elsewhere/s%20p.js' });
  });

  it.runIf(process.platform !== 'win32')('end to end: a server named a\\b.js is reported under its own name', async () => {
    const root = await makeTree({ 'src/a\\b.js': `${SERVER_HINT}// MIGRATE_ME\n` });
    const h = makeHarness(root);
    expect(await main(['--check', '--report', 'sarif'], h.deps)).toBe(1);
    const log = JSON.parse(h.stdout()) as ReturnType<typeof buildSarif>;
    expect(log.runs[0]!.results!.map((r) => r.locations![0]!.physicalLocation!.artifactLocation!.uri)).toContain('src/a%5Cb.js');
  });
});

describe('--jobs', () => {
  it('is capped at the number of cores (1,000 workers took 10 GB)', () => {
    expect(parseCliArgs(['--jobs', '1000'], 2)).toMatchObject({ kind: 'run', options: { jobs: 2 } });
    expect(parseCliArgs(['--jobs', '1'], 2)).toMatchObject({ kind: 'run', options: { jobs: 1 } });
    expect(parseCliArgs(['--jobs', '2'], 8)).toMatchObject({ kind: 'run', options: { jobs: 2 } });
  });

});
