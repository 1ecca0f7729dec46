// Shared steps of the envelope end-to-end tests: copy fixture servers of test/fixtures/envelope into a
// temp project, migrate it with the CLI run in-process (`mcp-migrate --yes <dir>`, the real pipeline,
// inline, no git) or with the envelope the chain takes once the proof refused the SDK at the boundary,
// and start servers, original or migrated, for a client to talk to.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { expect } from 'vitest';
import { main } from '../../src/cli/main.js';
import { processSource } from '../../src/pipeline.js';
import { readModuleSync } from '../../src/runner/read-module.js';
import type { GitClient } from '../../src/runner/git.js';
import type { JsonMessage } from './raw-client.js';

export const FIXTURES = resolve('test/fixtures/envelope');

/** tsx from the project, by absolute path, so a temp project needs no node_modules of its own. */
export const TSX = resolve('node_modules/.bin/tsx');

const NO_GIT: GitClient = { isRepo: async () => false, dirtyFiles: async () => [], changedFiles: async () => ({ kind: 'not-a-repo' }) };

export interface Project {
  dir: string;
  /** What the CLI printed. */
  output: string;
  exitCode: number;
  /** The text of a file of the project. */
  read(file: string): string;
  /** The command that starts a server file of the project. */
  command(file: string): string[];
}

/** Runs the CLI in-process on `dir`; returns its exit code and everything it printed. */
export async function runCli(args: string[], dir: string): Promise<{ exitCode: number; output: string }> {
  let output = '';
  const stream = { write: (text: string): boolean => ((output += text), true) };
  const exitCode = await main([...args, '--jobs', '1', dir], { stdout: stream, stderr: stream, isTTY: false, git: NO_GIT, cwd: dir, env: { NO_COLOR: '1' } });
  return { exitCode, output };
}

/** A temp project holding copies of the fixture servers, as written (not migrated). */
export function copyFixtures(scratch: string, files: string[], pkg: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(scratch, 'project-'));
  for (const file of files) copyFileSync(join(FIXTURES, file), join(dir, file));
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'envelope-e2e', version: '1.0.0', private: true, ...pkg }, null, 2)}\n`);
  return dir;
}

/** A temp project holding the fixture servers, migrated by `mcp-migrate --yes`. */
export async function migrateFixtures(scratch: string, files: string[], pkg: Record<string, unknown> = {}): Promise<Project> {
  const dir = copyFixtures(scratch, files, pkg);
  const { exitCode, output } = await runCli(['--yes', '--no-verify'], dir);
  return { dir, output, exitCode, read: (file) => readFileSync(join(dir, file), 'utf8'), command: (file) => commandFor(join(dir, file)) };
}

/**
 * A temp project holding the fixture servers, each rewritten as the chain rewrites it when the proof has
 * refused the SDK at the boundary (the servers but the Content-Length one would get the boundary first):
 * the pipeline in-process with that refusal, its files written as the runner writes them.
 */
export function migrateWithEnvelope(scratch: string, files: string[], pkg: Record<string, unknown> = {}): Project {
  const dir = copyFixtures(scratch, files, pkg);
  let output = '';
  for (const file of files) {
    const path = join(dir, file);
    const result = processSource(path, readFileSync(path, 'utf8'), { sdk: 'v1', style: 'server', refused: { boundary: 'refused by the test' } }, readModuleSync);
    output += `${file}: ${result.decision.kind}${'reason' in result.decision ? ` (${result.decision.reason})` : ''}\n`;
    for (const change of [{ path, after: result.after }, ...(result.related ?? [])]) if (change.after !== undefined) writeFileSync(change.path, change.after);
    for (const companion of result.companions ?? []) writeFileSync(join(dirname(companion.path), companion.path.split('/').pop()!), companion.content);
  }
  return { dir, output, exitCode: 0, read: (file) => readFileSync(join(dir, file), 'utf8'), command: (file) => commandFor(join(dir, file)) };
}

export function commandFor(path: string): string[] {
  return /\.[cm]?ts$/.test(path) ? [TSX, path] : [process.execPath, path];
}

export const INITIALIZE = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'envelope-e2e', version: '1.0.0' } };

/** jsonrpc "2.0", an id, and either a result or a {code: integer, message: string} error. */
export function expectCompliant(message: JsonMessage): void {
  expect(message.jsonrpc).toBe('2.0');
  expect('id' in message).toBe(true);
  if ('error' in message) {
    const error = message.error as { code: unknown; message: unknown };
    expect(Number.isInteger(error.code)).toBe(true);
    expect(typeof error.message).toBe('string');
    expect('result' in message).toBe(false);
  } else {
    expect('result' in message).toBe(true);
  }
}
