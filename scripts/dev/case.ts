// Developer aid shared by the scripts of this folder: a case folder (case.json + project) read as the
// CLI reads it, up to its facts.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildFacts, type FileFacts } from '../../src/analysis/facts.js';
import { parseSource } from '../../src/parse.js';

export function readModule(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The case's entry (the first source file of its `run` command), its text and its facts. */
export function loadCase(dir: string): { name: string; expect: string; entry: string; source: string; facts: () => FileFacts } {
  const kase = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8')) as { run: string[]; expect: string };
  const entry = resolve(dir, kase.run.slice(1).find((a) => /\.[cm]?[jt]s$/.test(a))!);
  const source = readFileSync(entry, 'utf8');
  const name = dir.replace(/\/$/, '').split('/').pop()!;
  return { name, expect: kase.expect, entry, source, facts: () => buildFacts(entry, source, parseSource(entry, source), readModule) };
}
