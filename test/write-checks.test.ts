// runner/write-checks.ts: the lookups the plans make about each changed file, started as its result
// comes back and asked once per scan.
import { afterAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileResult } from '../src/model/types.js';
import { WriteChecks } from '../src/runner/write-checks.js';
import { makeTree, removeTrees } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const result = (path: string, before: string, related: FileResult['related'] = []): FileResult => ({
  path,
  before,
  after: `${before}// changed\n`,
  related,
  decision: { kind: 'envelope', notes: [] } as unknown as FileResult['decision'],
  fixes: [],
  findings: [],
  diagnostics: [],
});

describe('WriteChecks', () => {
  it('looks at a changed file and its related modules once, when the result comes back: the bytes then are what counts', async () => {
    const root = await makeTree({ 'server.js': 'serve();\n', 'lib.js': 'lib();\n' });
    const checks = new WriteChecks(root);
    checks.prepare(result(join(root, 'server.js'), 'serve();\n', [{ path: join(root, 'lib.js'), before: 'lib();\n', after: 'lib2();\n' }]));
    expect(await checks.getFileRefusal(join(root, 'server.js'), 'serve();\n')).toBeNull();
    expect(await checks.getFileRefusal(join(root, 'lib.js'), 'lib();\n')).toBeNull();
    // changed on disk afterwards: the answer of this scan stands (the write itself checks the bytes again)
    await writeFile(join(root, 'lib.js'), 'edited();\n');
    expect(await checks.getFileRefusal(join(root, 'lib.js'), 'lib();\n')).toBeNull();
    // another text of the same path is another question
    expect(await checks.getFileRefusal(join(root, 'lib.js'), 'lib();\r\n')).toBe('is not valid UTF-8 text (or changed while it was read); left untouched');
  });

  it('refuses a file outside the scanned folder, and asks about an unchanged result nothing', async () => {
    const root = await makeTree({ 'in/server.js': 'serve();\n', 'out/other.js': 'other();\n' });
    const checks = new WriteChecks(join(root, 'in'));
    expect(await checks.getFileRefusal(join(root, 'out/other.js'), 'other();\n')).toMatch(/^outside the scanned folder \(.*\): not written$/);
    const unchanged = { ...result(join(root, 'in/server.js'), 'serve();\n'), after: undefined };
    checks.prepare(unchanged);
    await writeFile(join(root, 'in/server.js'), 'edited();\n');
    expect(await checks.getFileRefusal(join(root, 'in/server.js'), 'serve();\n')).toBe('is not valid UTF-8 text (or changed while it was read); left untouched');
  });

  it('plans a package\'s install once, at its workspace root\'s lockfile', async () => {
    const root = await makeTree({
      'package.json': '{"name":"mono","private":true,"workspaces":["packages/*"]}\n',
      'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
      'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n",
      'packages/a/package.json': '{"name":"a"}\n',
    });
    const checks = new WriteChecks(root);
    const first = checks.getInstallPlan(join(root, 'packages/a'));
    expect(checks.getInstallPlan(join(root, 'packages/a'))).toBe(first);
    expect(await first).toEqual({ command: 'pnpm install', dir: root, lockfile: ['pnpm', 'install', '--lockfile-only', '--ignore-scripts'] });
  });
});
