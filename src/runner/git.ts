// The git safety check: a run that writes must start from a clean work tree, so every change it makes
// can be reviewed and reverted with git. Also lists the files changed since a ref (--changed-since).
// Deliberately read-only: never stages, stashes, fetches or commits.
//
// The scanned repository is not trusted: its .git/config can name programs git runs on its own
// (`core.fsmonitor` on every status and diff, hooks, clean/smudge filter drivers when git re-reads a
// file, `file://` submodule transports). Every git call overrides them on its command line (which wins
// over any config file), so nothing but git itself runs.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';

/** `-c` options on every git call: no fsmonitor hook, no hooks, no local-file transport. */
export const SAFE_GIT_CONFIG: readonly string[] = ['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', '-c', 'protocol.file.allow=never'];

/** What `git diff <ref>` plus the untracked files say about one work tree (see changedFiles). */
export type ChangedFiles =
  | { kind: 'ok'; files: string[] }
  | { kind: 'not-a-repo' }
  | { kind: 'unknown-ref' };

export interface GitClient {
  /** Whether `dir` is inside a git work tree (false when git is not installed). */
  isRepo(dir: string): Promise<boolean>;
  /** Absolute paths of the work tree's changed, staged and untracked entries (`git status --porcelain`). */
  dirtyFiles(dir: string): Promise<string[]>;
  /**
   * Absolute paths of the files added, copied, modified or renamed since `ref` in the work tree holding
   * `dir` (committed and uncommitted changes alike), plus its untracked files that are not ignored.
   * Paths are resolved against `dir` (not git's real path of the top level), so they compare equal to the
   * paths discovery finds through the same, possibly symlinked, directory.
   */
  changedFiles(dir: string, ref: string): Promise<ChangedFiles>;
}

function execGit(args: readonly string[]): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile('git', [...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } }, (err, stdout) => {
      if (err) reject(err);
      else resolvePromise(stdout);
    });
  });
}

/**
 * Runs `git -C dir ...args` with SAFE_GIT_CONFIG, plus an empty command for every filter driver the
 * repository's config defines (`filter.<name>.clean=` and so on: git skips a filter whose command is
 * empty), so that `git status` re-reading a racily-clean file cannot start one.
 */
async function runGit(dir: string, args: readonly string[]): Promise<string> {
  return execGit([...SAFE_GIT_CONFIG, ...(await getFilterOverrides(dir)), '-C', dir, ...args]);
}

/**
 * `-c filter.<name>.{clean,smudge,process}= -c filter.<name>.required=false` for each driver named in
 * the config git reads in `dir`. `git config` only reads configuration; it runs no hook and no filter.
 */
export async function getFilterOverrides(dir: string): Promise<string[]> {
  let listed: string;
  try {
    listed = await execGit([...SAFE_GIT_CONFIG, '-C', dir, 'config', '--null', '--name-only', '--get-regexp', '^filter\\.']);
  } catch {
    return []; // exit 1: no filter configured (or not a repository)
  }
  const names = new Set<string>();
  for (const key of listed.split('\0')) {
    const match = /^filter\.(.+)\.[^.]+$/s.exec(key.trim());
    if (match !== null) names.add(match[1]!);
  }
  return [...names].flatMap((name) => ['clean', 'smudge', 'process'].flatMap((key) => ['-c', `filter.${name}.${key}=`]).concat(['-c', `filter.${name}.required=false`]));
}

export function createGitClient(): GitClient {
  return {
    async isRepo(dir) {
      try {
        return (await runGit(dir, ['rev-parse', '--is-inside-work-tree'])).trim() === 'true';
      } catch {
        return false;
      }
    },
    async dirtyFiles(dir) {
      const top = (await runGit(dir, ['rev-parse', '--show-toplevel'])).trim();
      const status = await runGit(top, ['status', '--porcelain=v1', '-z']);
      return parsePorcelainZ(status).map((path) => resolve(top, path));
    },
    async changedFiles(dir, ref) {
      let cdup: string;
      try {
        // "../../" from dir up to the top level, or "" at the top level.
        cdup = (await runGit(dir, ['rev-parse', '--show-cdup'])).replace(/\r?\n$/, '');
      } catch {
        return { kind: 'not-a-repo' };
      }
      const top = resolve(dir, cdup);
      let commit: string;
      try {
        // Resolved first, so that what reaches `git diff` is a commit id and never a path or an option.
        commit = (await runGit(top, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).trim();
      } catch {
        return { kind: 'unknown-ref' };
      }
      if (!/^[0-9a-f]{40,64}$/.test(commit)) return { kind: 'unknown-ref' };
      // 1. Added, copied, modified, renamed (new name): deletions have nothing left to migrate.
      const diff = await runGit(top, ['-c', 'core.quotePath=false', 'diff', '--name-only', '-z', '--diff-filter=ACMR', commit, '--']);
      // 2. New files nobody has added yet, minus what .gitignore (and the other exclude files) ignore.
      const untracked = await runGit(top, ['ls-files', '--others', '--exclude-standard', '-z']);
      const files = new Set([...splitZ(diff), ...splitZ(untracked)].map((path) => resolve(top, path)));
      return { kind: 'ok', files: [...files].sort() };
    },
  };
}

function splitZ(output: string): string[] {
  return output.split('\0').filter((path) => path !== '');
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
