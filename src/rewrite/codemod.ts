// The official @modelcontextprotocol/codemod (v1-to-v2), run in memory on a server's modules: its own
// transforms on a ts-morph source file, the text read back; nothing is written. It is an optional peer
// of mcp-migrate: the runner finds it (the project's own install first, then one next to mcp-migrate)
// and hands its entry's path in; without it a server on SDK v1 is left alone and pointed at `npx`.
// Deliberately not: any rewrite of v1 code of our own. What the codemod does is its job.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The codemod's output for one module: its text, or why the codemod could not complete it. */
export type CodemodOutcome = { text: string; notes: string[] } | { failed: string; line: number };

export interface Codemod {
  /** `@modelcontextprotocol/codemod@2.3.1`: said in the notes of every move. */
  label: string;
  move(path: string, source: string): CodemodOutcome;
}

// The subset of the codemod's exported types this module uses (index.d.mts).
interface Diagnostic {
  level: 'error' | 'warning' | 'info';
  line: number;
  message: string;
  advisoryOnly?: boolean;
  insertComment?: boolean;
}
interface SourceFileLike {
  getFullText(): string;
}
interface CodemodModule {
  getMigration(name: string): { transforms: { apply(file: SourceFileLike, context: { projectType: 'server' }): { changesCount: number; diagnostics: Diagnostic[] } }[] } | undefined;
}
interface TsMorphModule {
  Project: new (options: object) => { createSourceFile(path: string, text: string, options?: object): SourceFileLike };
}

const loaded = new Map<string, Codemod | string>();

/** The codemod whose require entry is `entry`, loaded once per process; a string says why it cannot be used. */
export function loadCodemod(entry: string): Codemod | string {
  let codemod = loaded.get(entry);
  if (codemod === undefined) {
    codemod = load(entry);
    loaded.set(entry, codemod);
  }
  return codemod;
}

function load(entry: string): Codemod | string {
  try {
    const require = createRequire(entry);
    const api = require(entry) as CodemodModule;
    // ts-morph is the codemod's own dependency: the one it resolves
    const { Project } = require('ts-morph') as TsMorphModule;
    const migration = api.getMigration('v1-to-v2');
    if (migration === undefined) return 'it has no v1-to-v2 migration';
    return { label: `@modelcontextprotocol/codemod@${readVersion(entry)}`, move: (path, source) => move(Project, migration.transforms, path, source) };
  } catch (err) {
    return `it could not be loaded: ${(err as Error).message.split('\n')[0]}`;
  }
}

function move(Project: TsMorphModule['Project'], transforms: NonNullable<ReturnType<CodemodModule['getMigration']>>['transforms'], path: string, source: string): CodemodOutcome {
  const project = new Project({ useInMemoryFileSystem: true, skipAddingFilesFromTsConfig: true, compilerOptions: { allowJs: true, noEmit: true } });
  const file = project.createSourceFile(path, source, { overwrite: true });
  const diagnostics: Diagnostic[] = [];
  try {
    for (const transform of transforms) diagnostics.push(...transform.apply(file, { projectType: 'server' }).diagnostics);
  } catch (err) {
    return { failed: `the codemod failed on it: ${(err as Error).message.split('\n')[0]}`, line: 1 };
  }
  // what it would mark `@mcp-codemod-error`: the move is not complete
  const blocking = diagnostics.find((d) => d.level === 'error' || d.insertComment === true);
  if (blocking !== undefined) return { failed: `the codemod could not rewrite it: ${blocking.message}`, line: blocking.line };
  let text = file.getFullText();
  // (the codemod's own runner puts a shebang back the same way)
  const shebang = /^#![^\n]*\n/.exec(source);
  if (shebang !== null && !text.startsWith('#!')) text = shebang[0] + text;
  const notes = diagnostics.filter((d) => !d.advisoryOnly && d.level === 'warning').map((d) => `codemod, line ${d.line}: ${d.message}`);
  return { text, notes };
}

function readVersion(entry: string): string {
  // the package root: the nearest folder above the entry with the codemod's package.json
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (json.name === '@modelcontextprotocol/codemod') return json.version ?? 'unknown';
    } catch {
      // not here
    }
  }
  return 'unknown';
}
