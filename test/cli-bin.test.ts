// True command-line runs of bin/mcp-migrate.js (which imports dist/, built before the tests run).
import { afterAll, describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTree, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const BIN = join(__dirname, '..', 'bin', 'mcp-migrate.js');

function run(args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('bin/mcp-migrate.js', () => {
  it('prints the version from package.json and the help', async () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
    const cwd = await makeTree({});
    expect(run(['--version'], cwd)).toMatchObject({ status: 0, stdout: `${pkg.version}\n` });
    const help = run(['--help'], cwd);
    expect(help.status).toBe(0);
    for (const flag of ['--dry-run', '--check', '--yes', '--force', '--sdk', '--style', '--report', '--output', '--jobs']) expect(help.stdout).toContain(flag);
  });

  it('exits 2 on a bad flag and without a terminal for an interactive run', async () => {
    const cwd = await makeTree({ 'server.js': SERVER_HINT });
    const bad = run(['--sdk=v9'], cwd);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('invalid value for --sdk: "v9"');
    const noTty = run(['.'], cwd);
    expect(noTty.status).toBe(2);
    expect(noTty.stderr).toContain('--yes');
  });

  it('processes many files on worker threads with the same output as inline', async () => {
    const files: Record<string, string> = {};
    // --jobs 4 from the compiled tool sends every candidate to the workers (a second one starts once 32 wait)
    for (let i = 0; i < 108; i++) files[`src/f${String(i).padStart(3, '0')}.js`] = i % 30 === 0 ? `${SERVER_HINT}if (x ( {\n` : `${SERVER_HINT}const ok = ${i};\n`;
    const cwd = await makeTree(files);
    const pooled = run(['--dry-run', '--jobs', '4'], cwd);
    const inline = run(['--dry-run', '--jobs', '1'], cwd);
    expect(pooled.status).toBe(3);
    expect(pooled.stderr.match(/^error: src\/f\d{3}\.js: /gm)).toEqual(['error: src/f000.js: ', 'error: src/f030.js: ', 'error: src/f060.js: ', 'error: src/f090.js: ']);
    expect(pooled).toEqual(inline);
  });
});
