// The git safety check: a run that writes must start from a clean work tree, so every change it makes
// can be reviewed and reverted with git. Deliberately read-only: never stages, stashes or commits.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

export interface GitClient {
  /** Whether `dir` is inside a git work tree (false when git is not installed). */
  isRepo(dir: string): Promise<boolean>;
  /** Absolute paths of the work tree's changed, staged and untracked entries (`git status --porcelain`). */
  dirtyFiles(dir: string): Promise<string[]>;
}

function runGit(args: string[]): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile('git', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } }, (err, stdout) => {
      if (err) reject(err);
      else resolvePromise(stdout);
    });
  });
}

export function createGitClient(): GitClient {
  return {
    async isRepo(dir) {
      try {
        return (await runGit(['-C', dir, 'rev-parse', '--is-inside-work-tree'])).trim() === 'true';
      } catch {
        return false;
      }
    },
    async dirtyFiles(dir) {
      const top = (await runGit(['-C', dir, 'rev-parse', '--show-toplevel'])).trim();
      const status = await runGit(['-C', top, 'status', '--porcelain=v1', '-z']);
      return parsePorcelainZ(status).map((path) => resolve(top, path));
    },
  };
}

/** Paths from `git status --porcelain=v1 -z` output (for renames and copies, the new path). */
export function parsePorcelainZ(output: string): string[] {
  const fields = output.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i];
    if (entry.length < 4) continue;
    paths.push(entry.slice(3));
    // "R  new\0old\0": the old path follows as its own field.
    if (entry[0] === 'R' || entry[0] === 'C') i++;
  }
  return paths;
}

/**
 * The dirty entries of every git work tree the targets live in, deduplicated and sorted. Targets outside
 * any work tree are skipped (there is nothing to protect with git there).
 */
export async function getDirtyFiles(git: GitClient, dirs: readonly string[]): Promise<string[]> {
  const dirty = new Set<string>();
  for (const dir of dirs) {
    if (!(await git.isRepo(dir))) continue;
    for (const path of await git.dirtyFiles(dir)) dirty.add(path);
  }
  return [...dirty].sort();
}
