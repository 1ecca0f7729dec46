// Issue 10, item 7 (package.json): a symlinked package.json is written at its target (not refused as
// "no longer a regular file"), and duplicate keys are no internal error.
import { afterAll, describe, it, expect } from 'vitest';
import { lstat, readdir, readlink, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import type { FileResult } from '../src/model/types.js';
import { ChangeApplier, writeFileAtomic } from '../src/runner/commit.js';
import { addDependencies } from '../src/runner/manifest.js';
import { makeHarness, makeTree, read, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const MIGRATE = `${SERVER_HINT}// MIGRATE_ME\n`;

describe('package.json edge cases', () => {
  it('a symlinked package.json is written at its target; the link stays a link', async () => {
    const shared = '{\n  "name": "shared"\n}\n';
    const root = await makeTree({ 'shared/package.json': shared, 'pkg/server.js': 'a' });
    await symlink('../shared/package.json', join(root, 'pkg/package.json'));
    const after = '{\n  "name": "shared",\n  "dependencies": {}\n}\n';
    await writeFileAtomic(join(root, 'pkg/package.json'), shared, after);
    expect((await lstat(join(root, 'pkg/package.json'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(root, 'pkg/package.json'))).toBe('../shared/package.json');
    expect(await read(root, 'shared/package.json')).toBe(after);
    expect(await readdir(join(root, 'shared'))).toEqual(['package.json']);
  });

  it('ChangeApplier adds the dependency through a symlinked package.json', async () => {
    const shared = '{"name":"shared"}';
    const root = await makeTree({ 'shared/package.json': shared, 'pkg/server.js': 'a' });
    await symlink(join(root, 'shared/package.json'), join(root, 'pkg/package.json'));
    const file: FileResult = { path: join(root, 'pkg/server.js'), before: 'a', after: 'A', decision: { kind: 'sdk', sdk: 'v1', style: 'server', notes: [] }, fixes: [], findings: [], diagnostics: [] };
    const applier = new ChangeApplier({
      manifests: [{ change: { path: join(root, 'pkg/package.json'), before: shared, after: '{"name":"shared","dependencies":{"zod":"^4"}}', added: { zod: '^4' }, installCommand: 'npm install' }, packageDir: join(root, 'pkg'), installDir: join(root, 'pkg'), files: [file.path] }],
      companions: [],
    });
    const outcome = await applier.apply(file);
    expect(outcome.error).toBeUndefined();
    expect(await read(root, 'shared/package.json')).toContain('"zod":"^4"');
    expect(await read(root, 'pkg/server.js')).toBe('A');
  });

  it('duplicate keys: the dependency goes where JSON.parse (and npm) look, the last "dependencies"', () => {
    const text = '{\n  "name": "x",\n  "dependencies": {\n    "a": "1"\n  },\n  "dependencies": {\n    "b": "2"\n  }\n}\n';
    const result = addDependencies(text, { zod: '^4.1.0' });
    expect(JSON.parse(result)).toEqual({ name: 'x', dependencies: { b: '2', zod: '^4.1.0' } });
    const doubled = '{"name":"x","name":"y","dependencies":{"a":"1","a":"2"}}';
    expect(JSON.parse(addDependencies(doubled, { zod: '^4.1.0' })).dependencies).toEqual({ a: '2', zod: '^4.1.0' });
  });

  it('duplicate keys in a real run: migrated, no internal error', async () => {
    const pkg = '{\n  "name": "demo",\n  "dependencies": {},\n  "dependencies": {\n    "left-pad": "1.0.0"\n  }\n}\n';
    const root = await makeTree({ 'package.json': pkg, 'server.js': MIGRATE });
    const h = makeHarness(root);
    expect(await main(['--yes', '--no-verify'], h.deps)).toBe(0);
    expect(h.stderr()).not.toContain('internal error');
    expect(JSON.parse(await read(root, 'package.json')).dependencies).toMatchObject({ 'left-pad': '1.0.0', '@modelcontextprotocol/server': expect.any(String) });
  });
});
