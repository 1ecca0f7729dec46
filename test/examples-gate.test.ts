// examples/batch/gate.sh: a gate that tells "migration pending" (exit 1) from "npm could not install
// mcp-migrate" (exit 4), run for real with bash and npm. The package npm installs is a tarball of a small
// shim named mcp-migrate whose command runs this checkout's bin/mcp-migrate.js (dist/, built before the
// tests run): no registry is needed.
import { afterAll, beforeAll, describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTree, removeTrees } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const ROOT = join(import.meta.dirname, '..');
const GATE = join(ROOT, 'examples', 'batch', 'gate.sh');
const CORPUS = join(ROOT, 'test', 'fixtures', 'corpus');
let tarball = '';

beforeAll(async () => {
  const shim = await makeTree({
    'package.json': JSON.stringify({ name: 'mcp-migrate', version: '0.0.0-shim', type: 'module', bin: { 'mcp-migrate': 'cli.js' } }),
    'cli.js': `#!/usr/bin/env node\nimport ${JSON.stringify(join(ROOT, 'bin', 'mcp-migrate.js'))};\n`,
  });
  const pack = spawnSync('npm', ['pack', '--json', '--pack-destination', shim], { cwd: shim, encoding: 'utf8' });
  expect(pack.status, pack.stderr).toBe(0);
  tarball = join(shim, (JSON.parse(pack.stdout) as { filename: string }[])[0]!.filename);
}, 60_000);

function gate(cwd: string, pkg: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('bash', [GATE], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', MCP_MIGRATE_PACKAGE: pkg } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('examples/batch/gate.sh', () => {
  it('exits 1 and says "migration pending" for a hand-rolled server', async () => {
    const repo = await makeTree({ 'package.json': '{"name": "units"}\n', 'server.js': readFileSync(join(CORPUS, '01-cjs-readline-bare-ifs', 'server.js'), 'utf8') });
    const run = gate(repo, tarball);
    expect(run.status, run.stderr).toBe(1);
    expect(run.stdout).toBe('migration pending: 1 file(s); run mcp-migrate in this repository and commit the result\n');
  });

  it('exits 0 when nothing is pending', async () => {
    const repo = await makeTree({ 'index.js': 'console.log("hello")\n' });
    const run = gate(repo, tarball);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe('nothing pending\n');
  });

  it('exits 4, not 1, when npm cannot install mcp-migrate, and shows npm\'s error', async () => {
    const repo = await makeTree({ 'server.js': readFileSync(join(CORPUS, '01-cjs-readline-bare-ifs', 'server.js'), 'utf8') });
    const missing = join(repo, 'no-such-mcp-migrate.tgz');
    const run = gate(repo, missing);
    expect(run.status).toBe(4);
    expect(run.stdout).toBe(`could not install ${missing} (npm's error is above): nothing was checked\n`);
    expect(run.stderr).toMatch(/npm (ERR!|error)/);
  });

  it('exits 3 when a file could not be processed', async () => {
    const repo = await makeTree({ 'package.json': '{ "name": "broken", }\n', 'server.js': readFileSync(join(CORPUS, '01-cjs-readline-bare-ifs', 'server.js'), 'utf8') });
    const run = gate(repo, tarball);
    expect(run.status, run.stderr).toBe(3);
    expect(run.stdout).toMatch(/^\d+ file\(s\) could not be processed \(named above\)\n$/);
  });
});
