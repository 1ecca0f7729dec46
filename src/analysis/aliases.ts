// Import aliases a package declares for its own files: package.json `imports` (`#lib/*` -> `./lib/*`)
// and tsconfig/jsconfig `compilerOptions.paths` (`@/*` -> `src/*`, from `baseUrl` or the config's own
// folder). A server whose writer helpers sit behind such an alias is one program: without this, the
// writer module was never loaded and the analysis saw replies but no writes.
// Reads through the program's ReadModule (no I/O of its own). Deliberately not: `extends` chains of a
// tsconfig, conditions beyond node/import/require/default, or package names (a workspace package is
// another package): an alias that does not resolve leaves the import unknown, as before.
import { dirname, join } from 'node:path';
import type { ReadModule } from './read-module.js';
import { parseJsonLoosely } from './jsonc.js';

interface AliasTable {
  /** The folder the targets are relative to. */
  base: string;
  /** Pattern (`#lib/*`, `@/*`, `config`) -> targets, each with at most one `*`. */
  entries: Array<{ pattern: string; targets: string[] }>;
}

/** How many folders up a config is looked for: a server's files sit a few levels below their package root. */
const MAX_LEVELS = 8;

export class AliasResolver {
  private readonly imports = new Map<string, AliasTable | null>();
  private readonly paths = new Map<string, AliasTable | null>();

  constructor(private readonly read: ReadModule) {}

  /** The paths (without extension resolution) `specifier` names from `fromPath` through an alias, or []. */
  resolve(fromPath: string, specifier: string): string[] {
    const table = specifier.startsWith('#') ? this.findTable(dirname(fromPath), this.imports, readImports) : this.findTable(dirname(fromPath), this.paths, readPaths);
    if (table === null) return [];
    for (const { pattern, targets } of table.entries) {
      const star = pattern.indexOf('*');
      let hole: string | null = null;
      if (star === -1) hole = pattern === specifier ? '' : null;
      else if (specifier.length >= pattern.length - 1 && specifier.startsWith(pattern.slice(0, star)) && specifier.endsWith(pattern.slice(star + 1))) {
        hole = specifier.slice(star, specifier.length - (pattern.length - star - 1));
      }
      if (hole === null) continue;
      return targets.map((target) => join(table.base, target.replace('*', hole!)));
    }
    return [];
  }

  /** Whether the package holding `fromPath` declares any alias (package.json `imports`, tsconfig/jsconfig `paths`). */
  declaresAliases(fromPath: string): boolean {
    const dir = dirname(fromPath);
    return (this.findTable(dir, this.imports, readImports)?.entries.length ?? 0) > 0 || (this.findTable(dir, this.paths, readPaths)?.entries.length ?? 0) > 0;
  }

  /** The nearest table above `dir`, stopping at the package root (the first folder with a package.json). */
  private findTable(dir: string, cache: Map<string, AliasTable | null>, load: (dir: string, read: ReadModule) => AliasTable | null | 'none'): AliasTable | null {
    const visited: string[] = [];
    let found: AliasTable | null = null;
    for (let level = 0, at = dir; level < MAX_LEVELS; level++) {
      const cached = cache.get(at);
      if (cached !== undefined) {
        found = cached;
        break;
      }
      visited.push(at);
      const loaded = load(at, this.read);
      if (loaded !== 'none') {
        found = loaded;
        break;
      }
      const parent = dirname(at);
      if (parent === at || this.read(join(at, 'package.json')) !== null) break;
      at = parent;
    }
    for (const path of visited) cache.set(path, found);
    return found;
  }
}

/** package.json `imports` of the package in `dir`; 'none' when there is no package.json there. */
function readImports(dir: string, read: ReadModule): AliasTable | null | 'none' {
  const text = read(join(dir, 'package.json'));
  if (text === null) return 'none';
  const json = parseJsonLoosely(text);
  const imports = isRecord(json) ? json.imports : undefined;
  if (!isRecord(imports)) return null;
  const entries: AliasTable['entries'] = [];
  for (const [pattern, value] of Object.entries(imports)) {
    const target = pickCondition(value);
    if (pattern.startsWith('#') && target !== null && target.startsWith('./')) entries.push({ pattern, targets: [target] });
  }
  return { base: dir, entries: sortBySpecificity(entries) };
}

/** tsconfig.json / jsconfig.json `compilerOptions.paths` in `dir`; 'none' when neither file is there. */
function readPaths(dir: string, read: ReadModule): AliasTable | null | 'none' {
  const text = read(join(dir, 'tsconfig.json')) ?? read(join(dir, 'jsconfig.json'));
  if (text === null) return 'none';
  const json = parseJsonLoosely(text);
  const options = isRecord(json) && isRecord(json.compilerOptions) ? json.compilerOptions : null;
  if (options === null || !isRecord(options.paths)) return null;
  const base = typeof options.baseUrl === 'string' ? join(dir, options.baseUrl) : dir;
  const entries: AliasTable['entries'] = [];
  for (const [pattern, value] of Object.entries(options.paths)) {
    const targets = Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && (v.match(/\*/g) ?? []).length <= 1) : [];
    if ((pattern.match(/\*/g) ?? []).length <= 1 && targets.length > 0) entries.push({ pattern, targets });
  }
  return { base, entries: sortBySpecificity(entries) };
}

/** `"./lib/x.js"`, or the first of node / import / require / default in a conditions object. */
function pickCondition(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (!isRecord(value)) return null;
  for (const key of ['node', 'import', 'require', 'default']) {
    const picked = pickCondition(value[key]);
    if (picked !== null) return picked;
  }
  return null;
}

/** Exact patterns first, then the longest prefix before the `*` (how Node and TypeScript pick). */
function sortBySpecificity(entries: AliasTable['entries']): AliasTable['entries'] {
  const rank = (p: string): number => (p.includes('*') ? p.indexOf('*') : Number.MAX_SAFE_INTEGER);
  return entries.sort((a, b) => rank(b.pattern) - rank(a.pattern));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
