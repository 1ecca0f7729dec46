// Shared steps of the envelope end-to-end tests: copy a fixture case to a temp dir, apply the
// envelope rewrite to its server file the way the pipeline does (parse, detect, rewrite, write the
// companions), and compare what a client sees.
import { cpSync, existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { findEnvelopeReason } from '../../src/detect/envelope-signals.js';
import { parseSource } from '../../src/parse.js';
import type { EnvelopeReason } from '../../src/model/envelope-reasons.js';
import { rewriteEnvelope } from '../../src/rewrite/envelope/index.js';
import type { CaseFile, JsonMessage } from './raw-client.js';

/** The corpus copy shared by every end-to-end test. */
export const FIXTURES = resolve('test/fixtures/corpus');

export function readCase(name: string): CaseFile {
  const spec = JSON.parse(readFileSync(join(FIXTURES, name, 'case.json'), 'utf8')) as CaseFile;
  // `npx tsx ...` from a temp dir: use the project's own tsx, through the node_modules link below
  if (spec.run[0] === 'npx' && spec.run[1] === 'tsx') return { ...spec, run: [resolve('node_modules/.bin/tsx'), ...spec.run.slice(2)] };
  return spec;
}

export interface Migrated {
  dir: string;
  file: string;
  before: string;
  after: string;
  /** What detection said; null when the server is an SDK case the test forces through the envelope. */
  detected: EnvelopeReason | null;
  fixes: string[];
}

/** A copy of the case, with node_modules linked so TypeScript cases run and type-check. */
export function copyCase(name: string, scratch: string): string {
  const dir = mkdtempSync(join(scratch, `${name}-`));
  cpSync(join(FIXTURES, name), dir, { recursive: true });
  if (!existsSync(join(dir, 'node_modules'))) symlinkSync(resolve('node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/**
 * Rewrites `serverFile` of a copy of the case. `reason` forces the envelope on a server detection
 * does not send there (the SDK cases), to prove the rewrite on every shape of the corpus.
 */
export function migrateCase(name: string, scratch: string, serverFile: string, reason?: EnvelopeReason): Migrated {
  const dir = copyCase(name, scratch);
  const file = join(dir, serverFile);
  const before = readFileSync(file, 'utf8');
  const ast = parseSource(file, before);
  const detected = findEnvelopeReason(ast, before)?.reason ?? null;
  const chosen = reason ?? detected;
  if (chosen === null) throw new Error(`${name}: no envelope reason found`);
  const result = rewriteEnvelope(ast, before, file, chosen);
  if ('failed' in result) throw new Error(`${name}: ${result.failed}`);
  writeFileSync(file, result.after);
  for (const companion of result.companions) writeFileSync(companion.path, companion.content);
  return { dir, file, before, after: result.after, detected, fixes: result.fixes };
}

/** What a client sees of one answer: the result, or the error's code and message. */
export function getOutcome(response: JsonMessage): unknown {
  if ('error' in response) {
    const error = response.error as { code?: unknown; message?: unknown } | string;
    return typeof error === 'object' && error !== null ? { error: { code: error.code, message: error.message } } : { error };
  }
  return { result: response.result };
}

/** jsonrpc "2.0", and either a result or a {code: integer, message: string} error. */
export function expectCompliant(message: JsonMessage): void {
  expect(message.jsonrpc).toBe('2.0');
  if ('error' in message) {
    const error = message.error as { code: unknown; message: unknown };
    expect(Number.isInteger(error.code)).toBe(true);
    expect(typeof error.message).toBe('string');
    expect('result' in message).toBe(false);
  } else {
    expect('result' in message).toBe(true);
  }
}
