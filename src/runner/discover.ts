// Discovery: which files a run looks at. Walks the given files and directories, never follows
// symbolic links, skips dependency/build/VCS directories and whatever .gitignore files exclude.
// Deliberately does not read file contents (that is the scan's job) and never throws for a bad path:
// problems come back as data.
import { lstat, readdir, readFile } from 'node:fs/promises';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { isIgnored, parseGitignore, type IgnoreRule } from './gitignore.js';

export const CANDIDATE_EXTENSIONS: readonly string[] = ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.tsx', '.jsx'];
export const SKIPPED_DIRECTORIES: readonly string[] = ['node_modules', 'dist', 'build', '.git', 'coverage'];

/** A path the run could not look at, and why. */
export interface Problem {
  path: string;
  message: string;
}

export interface DiscoveryResult {
  /** Absolute paths, sorted, without duplicates. */
  files: string[];
  /** Paths that do not exist, unreadable directories, ... (each makes the run end with exit code 3). */
  problems: Problem[];
  /** Things worth a line that do not fail the run (a symbolic link given on the command line). */
  warnings: string[];
}

export function isCandidatePath(path: string): boolean {
  return CANDIDATE_EXTENSIONS.includes(extname(path).toLowerCase());
}

/** Finds candidate source files under `paths` (files or directories, resolved against `cwd`). */
export async function discoverFiles(paths: readonly string[], cwd: string): Promise<DiscoveryResult> {
  const found = new Set<string>();
  const problems: Problem[] = [];
  const warnings: string[] = [];
  for (const given of paths) {
    const target = resolve(cwd, given);
    let stats;
    try {
      stats = await lstat(target);
    } catch (err) {
      problems.push({ path: target, message: describeFsError(err) });
      continue;
    }
    if (stats.isSymbolicLink()) {
      warnings.push(`${given}: is a symbolic link; not followed`);
    } else if (stats.isDirectory()) {
      const gitRoot = await resolveGitRoot(target);
      const base = gitRoot ?? target;
      const rules = await loadAncestorRules(base, target);
      if (isIgnoredByAncestors(rules, base, target)) {
        warnings.push(`${given}: is ignored by .gitignore; scanned anyway because it was named`);
      }
      await walk(target, base, rules, found, problems);
    } else if (stats.isFile()) {
      if (isCandidatePath(target)) found.add(target);
      else problems.push({ path: target, message: `not a JavaScript or TypeScript file (expected one of ${CANDIDATE_EXTENSIONS.join(' ')})` });
    } else {
      problems.push({ path: target, message: 'not a regular file or directory' });
    }
  }
  return { files: [...found].sort(), problems, warnings };
}

async function walk(dir: string, base: string, inherited: readonly IgnoreRule[], found: Set<string>, problems: Problem[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    problems.push({ path: dir, message: `cannot read directory: ${describeFsError(err)}` });
    return;
  }
  let rules = inherited;
  if (entries.some((entry) => entry.name === '.gitignore' && entry.isFile())) {
    const own = await readGitignore(join(dir, '.gitignore'), toPosix(relative(base, dir)));
    if (own.length > 0) rules = [...inherited, ...own];
  }
  // Sorted so the walk order (and any problem order) does not depend on the file system.
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.isSymbolicLink()) continue;
    const full = join(dir, entry.name);
    const rel = toPosix(relative(base, full));
    if (entry.isDirectory()) {
      if (SKIPPED_DIRECTORIES.includes(entry.name)) continue;
      if (isIgnored(rules, rel, true)) continue;
      await walk(full, base, rules, found, problems);
    } else if (entry.isFile()) {
      if (!isCandidatePath(entry.name)) continue;
      if (isIgnored(rules, rel, false)) continue;
      found.add(full);
    }
  }
}

async function readGitignore(path: string, base: string): Promise<IgnoreRule[]> {
  try {
    return parseGitignore(await readFile(path, 'utf8'), base === '.' ? '' : base);
  } catch {
    // An unreadable .gitignore ignores nothing; the walk itself will report unreadable directories.
    return [];
  }
}

/** The .gitignore rules of `base` and of every directory between it and `target` (exclusive). */
async function loadAncestorRules(base: string, target: string): Promise<IgnoreRule[]> {
  const chain: string[] = [];
  if (target !== base) {
    for (let dir = dirname(target); ; dir = dirname(dir)) {
      chain.unshift(dir);
      if (dir === base || dirname(dir) === dir) break;
    }
  }
  const rules: IgnoreRule[] = [];
  for (const dir of chain) {
    const rel = toPosix(relative(base, dir));
    rules.push(...(await readGitignore(join(dir, '.gitignore'), rel === '' ? '' : rel)));
  }
  return rules;
}

function isIgnoredByAncestors(rules: readonly IgnoreRule[], base: string, target: string): boolean {
  if (target === base) return false;
  const parts = toPosix(relative(base, target)).split('/');
  for (let i = 1; i <= parts.length; i++) {
    if (isIgnored(rules, parts.slice(0, i).join('/'), true)) return true;
  }
  return false;
}

/** The closest directory at or above `start` that holds a `.git` entry (a work tree root), or null. */
export async function resolveGitRoot(start: string): Promise<string | null> {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    try {
      await lstat(join(dir, '.git'));
      return dir;
    } catch {
      // not here; keep climbing
    }
    if (dirname(dir) === dir) return null;
  }
}

export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep) && resolve(parent, rel) === child);
}

export function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

export function describeFsError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTDIR':
      return 'not a directory';
    case 'EISDIR':
      return 'is a directory';
    case 'EROFS':
      return 'read-only file system';
    default:
      return e?.message ?? String(err);
  }
}
