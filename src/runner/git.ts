// Every git call of the tool, through one function (runGit): the git safety check (a run that writes
// must start from a clean work tree, so every change it makes can be reviewed and reverted with git),
// the files changed since a ref (--changed-since) and discovery's file listing. Deliberately read-only:
// never stages, stashes, fetches or commits.
//
// The scanned repository is not trusted: its .git/config can name programs git runs on its own
// (`core.fsmonitor` on every status and diff, hooks, clean/smudge/process filter drivers when git
// re-reads a file, external diff and textconv drivers, transports). Every call overrides them through
// the environment (GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n: key and value travel
// apart, so a driver named `a=b` cannot split its own override the way `-c filter.a=b.clean=` does),
// which wins over every config file and reaches the git processes git starts itself. Filter drivers
// have names of the repository's choosing: they are read first with `git config` (which reads
// configuration and runs nothing) and each is emptied.
import { execFile } from 'node:child_process';
import { lstat, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * Config every git call overrides (key, value): no fsmonitor hook, no hooks, no transport, no external
 * diff, no pager, no credential helper or askpass, untracked files and submodules never hidden.
 */
export const SAFE_GIT_CONFIG: readonly (readonly [string, string])[] = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.askPass', ''],
  ['core.sshCommand', 'false'],
  ['core.gitProxy', ''],
  ['credential.helper', ''],
  ['diff.external', ''],
  ['gpg.program', 'false'],
  ['protocol.allow', 'never'],
  ['protocol.file.allow', 'never'],
  ['submodule.recurse', 'false'],
  ['status.showUntrackedFiles', 'all'],
  ['diff.ignoreSubmodules', 'none'],
  ['core.quotePath', 'false'],
];

/** Variables of the caller's environment that would point git at another repository or run a program. */
const DROPPED_ENV = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_COMMON_DIR', 'GIT_NAMESPACE', 'GIT_EXTERNAL_DIFF', 'GIT_PAGER', 'GIT_ASKPASS', 'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_EDITOR', 'GIT_PROXY_COMMAND'];

/** The environment for a git call: the caller's, minus DROPPED_ENV, plus `config` after any GIT_CONFIG_COUNT entries it already had. */
export function buildGitEnv(config: readonly (readonly [string, string])[], base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', GIT_ATTR_NOSYSTEM: '1' };
  for (const name of DROPPED_ENV) delete env[name];
  const count = Number.parseInt(base.GIT_CONFIG_COUNT ?? '0', 10);
  let n = Number.isSafeInteger(count) && count > 0 ? count : 0;
  for (const [key, value] of config) {
    env[`GIT_CONFIG_KEY_${n}`] = key;
    env[`GIT_CONFIG_VALUE_${n}`] = value;
    n++;
  }
  env.GIT_CONFIG_COUNT = String(n);
  return env;
}

/** A git call that failed: its exit code and the first line of what it said on stderr. */
export class GitError extends Error {
  constructor(
    message: string,
    readonly code: number | null,
  ) {
    super(message);
  }
}

function execGitRaw(args: readonly string[], env: NodeJS.ProcessEnv): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    execFile('git', ['--no-pager', ...args], { encoding: 'buffer', maxBuffer: 512 * 1024 * 1024, env }, (err, stdout, stderr) => {
      if (err) {
        const said = stderr.toString('utf8').split('\n').find((line) => line.trim() !== '') ?? err.message;
        reject(new GitError(said.trim(), typeof err.code === 'number' ? err.code : null));
      } else resolvePromise(stdout);
    });
  });
}

/**
 * THE way the tool runs git: `git -C dir ...args` with SAFE_GIT_CONFIG and every filter driver the
 * repository's config defines emptied (`filter.<name>.clean`, `.smudge`, `.process` set to nothing,
 * `.required` false: git then skips the driver), so that `git status` re-reading a racily-clean file
 * cannot start one. Output as raw bytes (names that are not UTF-8 stay themselves). Rejects with GitError.
 */
export async function runGitBytes(dir: string, args: readonly string[]): Promise<Buffer> {
  return execGitRaw(['-C', dir, ...args], await getSafeGitEnv(dir));
}

/**
 * The environment runGitBytes gives git in `dir` (SAFE_GIT_CONFIG and every filter driver emptied), for a
 * git process that must be spawned as a stream (`git archive | tar`): always `git --no-pager -C dir ...`.
 */
export async function getSafeGitEnv(dir: string): Promise<NodeJS.ProcessEnv> {
  const drivers = await getFilterDrivers(dir);
  return buildGitEnv([...SAFE_GIT_CONFIG, ...drivers.flatMap((name) => FILTER_KEYS.map(([key, value]) => [`filter.${name}.${key}`, value] as const))]);
}

/** runGitBytes, decoded as UTF-8. */
export async function runGit(dir: string, args: readonly string[]): Promise<string> {
  return (await runGitBytes(dir, args)).toString('utf8');
}

const FILTER_KEYS: readonly (readonly [string, string])[] = [['clean', ''], ['smudge', ''], ['process', ''], ['required', 'false']];

/**
 * The names of the filter drivers defined in the config git reads in `dir` (any name: `a=b`, with dots,
 * spaces or newlines). `git config` only reads configuration; it runs no hook and no filter.
 */
export async function getFilterDrivers(dir: string): Promise<string[]> {
  let listed: Buffer;
  try {
    listed = await execGitRaw(['-C', dir, 'config', '--null', '--name-only', '--get-regexp', '^filter\\.'], buildGitEnv(SAFE_GIT_CONFIG));
  } catch {
    return []; // exit 1: no filter configured (or not a repository)
  }
  const names = new Set<string>();
  for (const key of listed.toString('utf8').split('\0')) {
    // filter.<name>.<key>: the name is everything between the first and the last dot
    const match = /^filter\.(.+)\.[^.]+$/s.exec(key);
    if (match !== null) names.add(match[1]!);
  }
  return [...names];
}

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
  /**
   * Why git will not vouch for the work tree holding `dir` although a `.git` entry says there is one
   * (dubious ownership, a `.git` file naming a directory git refuses), or null.
   */
  getRefusal?(dir: string): Promise<string | null>;
  /** The git directory of the work tree holding `dir`, as git resolves it (never read from `.git` by hand), or null. */
  getGitDir?(dir: string): Promise<string | null>;
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
      return getDirtyEntries(dir, new Set());
    },
    async getRefusal(dir) {
      const root = await findDotGit(dir);
      if (root === null) return null;
      try {
        await runGit(dir, ['rev-parse', '--is-inside-work-tree']);
        return null;
      } catch (err) {
        const dotGit = join(root, '.git');
        const isFile = await lstat(dotGit).then((s) => s.isFile(), () => false);
        const named = isFile ? /^gitdir:\s*(.+?)\s*$/m.exec(await readFile(dotGit, 'utf8').catch(() => ''))?.[1] : undefined;
        const why = err instanceof GitError ? err.message.replace(/^fatal:\s*/, '') : String(err);
        return named === undefined ? `git refuses the repository at ${root}: ${why}` : `${dotGit} points to ${named}, which git refuses: ${why}`;
      }
    },
    async getGitDir(dir) {
      try {
        return (await runGit(dir, ['rev-parse', '--absolute-git-dir'])).replace(/\r?\n$/, '');
      } catch {
        return null;
      }
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
      // 1. Added, copied, modified, renamed (new name): deletions have nothing left to migrate. Submodules
      //    are not looked into (that would run git in them with their own config).
      const diff = await runGit(top, ['diff', '--no-ext-diff', '--no-textconv', '--ignore-submodules=all', '--name-only', '-z', '--diff-filter=ACMR', commit, '--']);
      // 2. New files nobody has added yet, minus what .gitignore (and the other exclude files) ignore.
      const untracked = await runGit(top, ['ls-files', '--others', '--exclude-standard', '-z']);
      const files = new Set([...splitZ(diff), ...splitZ(untracked)].map((path) => resolve(top, path)));
      return { kind: 'ok', files: [...files].sort() };
    },
  };
}

/**
 * The dirty entries of the work tree holding `dir`, as absolute paths, in a way the repository cannot
 * blind: untracked files are listed whatever `status.showUntrackedFiles` says, submodules are looked
 * into whatever `.gitmodules` says (each by a git call of its own, with its own drivers emptied), and a
 * file marked assume-unchanged or skip-worktree (which `git status` never looks at) counts as dirty when
 * its bytes are not the ones in the index.
 */
async function getDirtyEntries(dir: string, seen: Set<string>): Promise<string[]> {
  const top = (await runGit(dir, ['rev-parse', '--show-toplevel'])).replace(/\r?\n$/, '');
  if (seen.has(top)) return [];
  seen.add(top);
  // `dirty`: a submodule's new commits show here; what changed inside it is asked of it below.
  const status = await runGit(top, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=dirty', '--no-renames']);
  const dirty = parsePorcelainZ(status).map((path) => resolve(top, path));
  const staged = await runGitBytes(top, ['ls-files', '-z', '-v', '--stage']);
  const flagged: { path: string; blob: string }[] = [];
  const submodules: string[] = [];
  for (const entry of splitZ(staged.toString('utf8'))) {
    // "<tag> <mode> <blob> <stage>\t<path>": tag H (cached), h (assume-unchanged), S (skip-worktree), ...
    const match = /^(\S) (\d+) ([0-9a-f]+) \d\t(.*)$/s.exec(entry);
    if (match === null) continue;
    const [, tag, mode, blob, path] = match;
    if (mode === '160000') submodules.push(resolve(top, path!));
    else if (tag === 'S' || (tag! >= 'a' && tag! <= 'z')) flagged.push({ path: path!, blob: blob! });
  }
  dirty.push(...(await getChangedFlagged(top, flagged)));
  for (const submodule of submodules) {
    // Not checked out (no .git in it): nothing there to lose.
    if (!(await lstat(join(submodule, '.git')).then(() => true, () => false))) continue;
    dirty.push(...(await getDirtyEntries(submodule, seen)));
  }
  return [...new Set(dirty)];
}

/** The flagged index entries whose file exists and does not hold the indexed bytes (a sparse checkout's absent files do not count). */
async function getChangedFlagged(top: string, flagged: readonly { path: string; blob: string }[]): Promise<string[]> {
  const present: { path: string; blob: string }[] = [];
  for (const entry of flagged) if (await lstat(resolve(top, entry.path)).then(() => true, () => false)) present.push(entry);
  const changed: string[] = [];
  for (let i = 0; i < present.length; i += 500) {
    const chunk = present.slice(i, i + 500);
    // --no-filters: the bytes as they are (no clean filter runs, overridden or not).
    const hashes = (await runGit(top, ['hash-object', '--no-filters', '--', ...chunk.map((e) => e.path)])).split('\n');
    chunk.forEach((entry, k) => {
      if (hashes[k]?.trim() !== entry.blob) changed.push(resolve(top, entry.path));
    });
  }
  return changed;
}

/** The closest directory at or above `start` holding a `.git` entry, or null. */
async function findDotGit(start: string): Promise<string | null> {
  for (let dir = resolve(start); ; dir = resolve(dir, '..')) {
    if (await lstat(join(dir, '.git')).then(() => true, () => false)) return dir;
    if (resolve(dir, '..') === dir) return null;
  }
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
  return (await checkCleanTree(git, dirs)).dirty;
}

/** What the clean-tree guard found: dirty entries, and work trees git refuses to look at (each one line). */
export interface CleanTreeCheck {
  dirty: string[];
  refused: string[];
}

/**
 * The clean-tree guard: the dirty entries of every git work tree the targets live in, and the targets
 * whose `.git` git refuses (those cannot be vouched for, so a run that writes needs --force).
 */
export async function checkCleanTree(git: GitClient, dirs: readonly string[]): Promise<CleanTreeCheck> {
  const dirty = new Set<string>();
  const refused = new Set<string>();
  for (const dir of dirs) {
    if (!(await git.isRepo(dir))) {
      const refusal = (await git.getRefusal?.(dir)) ?? null;
      if (refusal !== null) refused.add(refusal);
      continue;
    }
    for (const path of await git.dirtyFiles(dir)) dirty.add(path);
  }
  return { dirty: [...dirty].sort(), refused: [...refused].sort() };
}
