// Whether a package's lockfile has the SDK packages its package.json declares: a package.json the run (or
// an earlier run whose lockfile update could not run) gave the SDK, with a lockfile that does not list it,
// fails `npm ci` and every pull request's checks. Read-only: the lockfile is read, never edited (each
// package manager writes its own; lockfile.ts runs it).
import { readFile } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { hasDependency } from './manifest.js';

/** A lockfile that lacks packages its package.json declares. */
export interface StaleLockfile {
  /** The lockfile (absolute). */
  path: string;
  /** The package.json whose dependencies it lacks (absolute). */
  manifest: string;
  missing: string[];
  /** The command that updates it, and where to run it. */
  command: readonly string[];
  dir: string;
}

/**
 * Which of `names` the lockfile at `lockPath` does not list for the package in `packageDir` (one of the
 * lockfile's workspace members, or its root); null when the lockfile cannot be read or parsed (nothing is
 * said of a lockfile the tool cannot read).
 */
export async function findMissingInLockfile(lockPath: string, packageDir: string, names: readonly string[]): Promise<string[] | null> {
  let text: string;
  try {
    text = await readFile(lockPath, 'utf8');
  } catch {
    return null;
  }
  const member = relative(join(lockPath, '..'), packageDir).split(sep).join('/');
  try {
    switch (basename(lockPath)) {
      case 'package-lock.json':
      case 'npm-shrinkwrap.json':
        return missingInNpmLock(JSON.parse(text) as Record<string, unknown>, member, names);
      case 'pnpm-lock.yaml':
        return missingInPnpmLock(parseYaml(text) as Record<string, unknown>, member, names);
      case 'yarn.lock':
        // every entry starts a line with its specifiers: `"@scope/name@^1.0.0", name@npm:...:`
        return names.filter((name) => !new RegExp(`(?:^|[\\s",])${escapeRegExp(name)}@`, 'm').test(text));
      default:
        return null;
    }
  } catch {
    return null;
  }
}

function missingInNpmLock(lock: Record<string, unknown>, member: string, names: readonly string[]): string[] | null {
  const packages = asRecord(lock['packages']);
  if (packages !== null) {
    // lockfileVersion 2 and 3: the root is "", a workspace member its folder
    const entry = asRecord(packages[member]);
    if (entry === null) return names.slice();
    return names.filter((name) => !hasDependency(entry, name));
  }
  // lockfileVersion 1: one tree for the root package
  if (member !== '') return null;
  const dependencies = asRecord(lock['dependencies']) ?? {};
  return names.filter((name) => dependencies[name] === undefined);
}

function missingInPnpmLock(lock: Record<string, unknown>, member: string, names: readonly string[]): string[] | null {
  const importers = asRecord(lock['importers']);
  const entry = importers !== null ? asRecord(importers[member === '' ? '.' : member]) : member === '' ? lock : null;
  if (entry === null) return importers !== null ? names.slice() : null;
  return names.filter((name) => !hasDependency(entry, name));
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
