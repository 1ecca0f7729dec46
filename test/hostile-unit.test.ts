// Issue 19, item 9: a rewrite that changes several files (an entry and a module it imports) is one
// change: asked about once, written all or nothing, and a run killed between its renames is finished
// by the next run (the journal), so no half migration is ever left for a later run to call
// ALREADY_ON_SDK.
import { afterAll, describe, it, expect } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import type { FileResult, PipelineOptions } from '../src/model/types.js';
import { ChangeApplier, getTempFileName, recoverJournals } from '../src/runner/commit.js';
import { createFakePipeline, makeHarness, makeTree, read, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';

afterAll(removeTrees);

const MIGRATE = `${SERVER_HINT}// MIGRATE_ME\nrequire('./lib.js') // RELATED\n`;
const LIB = 'module.exports = 1; /* RELATED_ME */\n';

function pipelineWithRelated(): (path: string, source: string, options: PipelineOptions) => FileResult {
  const { process } = createFakePipeline();
  return (path, source, options) => {
    const result = process(path, source, options);
    const match = /require\('([^']+)'\) \/\/ RELATED/.exec(source);
    if (match === null || result.after === undefined) return result;
    const modulePath = join(dirname(path), match[1]!);
    const before = readFileSync(modulePath, 'utf8');
    return { ...result, related: [{ path: modulePath, before, after: before.replace('RELATED_ME', 'REWRITTEN') }] };
  };
}

describe('a rewrite of two files is one question (review)', () => {
  it('asked once; "skip" leaves both, "apply" writes both', async () => {
    const root = await makeTree({ 'server.js': MIGRATE, 'lib.js': LIB });
    const skip = makeHarness(root, { isTTY: true, process: pipelineWithRelated() }, ['skip']);
    expect(await main(['--no-verify'], skip.deps)).toBe(0);
    expect(skip.questions).toHaveLength(1);
    expect(skip.questions[0]).toMatchObject({ kind: 'file', path: 'server.js', why: 'written together with lib.js' });
    expect([await read(root, 'server.js'), await read(root, 'lib.js')]).toEqual([MIGRATE, LIB]);
    const apply = makeHarness(root, { isTTY: true, process: pipelineWithRelated() }, ['apply']);
    expect(await main(['--no-verify'], apply.deps)).toBe(0);
    expect(apply.questions).toHaveLength(1);
    expect(await read(root, 'server.js')).toContain('MIGRATED_v2_server');
    expect(await read(root, 'lib.js')).toContain('REWRITTEN');
  });
});

describe('ChangeApplier.applyUnit', () => {
  const unit = (root: string): FileResult[] => [
    { path: join(root, 'server.js'), before: MIGRATE, after: 'NEW SERVER\n', decision: { kind: 'envelope', reason: 'COMPUTED_DISPATCH', hint: '' }, fixes: [], findings: [], diagnostics: [] },
    { path: join(root, 'lib.js'), before: LIB, after: 'NEW LIB\n', decision: { kind: 'envelope', reason: 'COMPUTED_DISPATCH', hint: '' }, fixes: [], findings: [], diagnostics: [], partOf: join(root, 'server.js') },
  ];

  it('writes nothing when one of its files changed on disk since it was read', async () => {
    const root = await makeTree({ 'server.js': MIGRATE, 'lib.js': LIB });
    await writeFile(join(root, 'lib.js'), 'edited meanwhile\n');
    const outcome = await new ChangeApplier({ manifests: [], companions: [] }).applyUnit(unit(root));
    expect(outcome.error).toContain('changed on disk');
    expect(outcome.written).toEqual([]);
    expect(await read(root, 'server.js')).toBe(MIGRATE);
  });

  it('writes both, and leaves no journal behind', async () => {
    const root = await makeTree({ 'server.js': MIGRATE, 'lib.js': LIB });
    const outcome = await new ChangeApplier({ manifests: [], companions: [] }, (p) => p, { journalDir: root }).applyUnit(unit(root));
    expect(outcome.error).toBeUndefined();
    expect([await read(root, 'server.js'), await read(root, 'lib.js')]).toEqual(['NEW SERVER\n', 'NEW LIB\n']);
    await expect(recoverJournals(root)).resolves.toEqual({ finished: [], failed: [] });
  });
});

describe('a run killed between the renames of a unit', () => {
  it('is finished by the next run before it looks at the tree', async () => {
    const root = await makeTree({ 'server.js': 'MIGRATED SERVER\n', 'lib.js': LIB });
    // What a kill after the first rename leaves: server.js renamed, lib.js's temp file, the journal.
    const temp = join(root, getTempFileName(join(root, 'lib.js')).replace(/-\d+-/, '-999999-'));
    await writeFile(temp, 'NEW LIB\n');
    const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
    const journal = {
      tool: 'mcp-migrate',
      entries: [
        { target: join(root, 'server.js'), temp: join(root, '.server.js.mcp-migrate-999999-00000000.tmp'), before: sha(MIGRATE), after: sha('MIGRATED SERVER\n') },
        { target: join(root, 'lib.js'), temp, before: sha(LIB), after: sha('NEW LIB\n') },
      ],
    };
    await writeFile(join(root, '.mcp-migrate-journal-999999-0badf00d.json'), JSON.stringify(journal));
    const h = makeHarness(root);
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(0);
    expect(h.stdout()).toContain('Finished writing 1 file(s) an interrupted run had begun: lib.js');
    expect(await read(root, 'lib.js')).toBe('NEW LIB\n');
    expect(await recoverJournals(root)).toEqual({ finished: [], failed: [] });
  });
});
