// --changed-since: the set of files a run is limited to. Every target given on the command line asks the
// git work tree holding it for the files changed since the ref (committed and uncommitted changes, and
// untracked files that are not ignored); the union is intersected with what discovery finds (scan.ts,
// `only`). Package manifests are not filtered: a changed server still gets its package.json change.
// Deliberately does not fetch: a ref the clone does not have is an error that names it.
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { assertNever } from '../model/assert-never.js';
import type { GitClient } from './git.js';

export type ChangedScope =
  | { kind: 'ok'; files: ReadonlySet<string> }
  /** `path` (absolute) is not inside a git work tree. */
  | { kind: 'not-a-repo'; path: string }
  /** `ref` does not name a commit in the work tree holding `path`. */
  | { kind: 'unknown-ref'; ref: string; path: string };

/**
 * The files changed since `ref` in the work trees of `paths` (resolved against `cwd`), as absolute paths.
 * Targets that do not exist are skipped here; discovery reports them.
 */
export async function resolveChangedScope(git: GitClient, paths: readonly string[], cwd: string, ref: string): Promise<ChangedScope> {
  const files = new Set<string>();
  const asked = new Set<string>();
  for (const path of paths.length === 0 ? ['.'] : paths) {
    const target = resolve(cwd, path);
    const stats = await stat(target).catch(() => null);
    if (stats === null) continue;
    const dir = stats.isDirectory() ? target : dirname(target);
    if (asked.has(dir)) continue;
    asked.add(dir);
    const changed = await git.changedFiles(dir, ref);
    switch (changed.kind) {
      case 'not-a-repo':
        return { kind: 'not-a-repo', path: target };
      case 'unknown-ref':
        return { kind: 'unknown-ref', ref, path: target };
      case 'ok':
        for (const file of changed.files) files.add(file);
        break;
      default:
        return assertNever(changed);
    }
  }
  return { kind: 'ok', files };
}
