// The scope of a run after discovery: `--ignore` / `--include` globs (gitignore syntax, relative to the
// scanned directory that holds the file), and the trees inside a scanned directory that are not part of
// its project: a nested git checkout (a clone of a tool, a vendored repository, a submodule) and, in a
// declared workspace, a package root that is not one of its members (a fixture package under `test/`).
// Those are skipped and come back as data, so the summary can name them. A tree named on the command
// line, or matched by an `--include`, is scanned all the same.
// Deliberately a filter over discovery's files (as it finds them): discovery decides what exists, this
// decides what the user meant. Reads only directory entries (`.git`, `package.json`) and the workspace manifest.
import { lstat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { hasEntry, isInside, toPosix, type DirectoryMarks } from './discover.js';
import { isIgnored, parseGitignore, type IgnoreRule } from './gitignore.js';
import { WorkspaceCache } from './workspaces.js';

export interface ScopeOptions {
  /** `--ignore` globs (gitignore syntax). */
  ignore?: readonly string[];
  /** `--include` globs: when any is given, only files they match are looked at. */
  include?: readonly string[];
}

/** A directory below a scanned one that was not looked into, and why. */
export interface SkippedTree {
  path: string;
  /** `git`: it holds its own `.git`; `package`: a package.json that is not a member of the scanned workspace. */
  kind: 'git' | 'package';
}

export interface ScopedFiles {
  files: string[];
  /** How many discovered files `--ignore` (or a missing `--include` match) left out. */
  ignored: number;
  skippedTrees: SkippedTree[];
}

/** The patterns as rules; one parse per run. Exported for tests. */
export function parsePatterns(patterns: readonly string[]): IgnoreRule[] {
  return parseGitignore(patterns.join('\n'), '');
}

/** Whether `rel` (`/`-separated) or one of the directories above it matches `rules` (gitignore: an ignored directory ignores all below it). */
export function matchesPath(rules: readonly IgnoreRule[], rel: string): boolean {
  return new PathMatcher(rules).matches(rel);
}

/** `matchesPath` over many paths: what a directory matches is worked out once, not once per file in it. */
class PathMatcher {
  private readonly dirs = new Map<string, boolean>();

  constructor(private readonly rules: readonly IgnoreRule[]) {}

  matches(rel: string): boolean {
    const slash = rel.lastIndexOf('/');
    return (slash !== -1 && this.matchesDirectory(rel.slice(0, slash))) || isIgnored(this.rules, rel, false);
  }

  private matchesDirectory(rel: string): boolean {
    let matched = this.dirs.get(rel);
    if (matched === undefined) {
      const slash = rel.lastIndexOf('/');
      matched = (slash !== -1 && this.matchesDirectory(rel.slice(0, slash))) || isIgnored(this.rules, rel, true);
      this.dirs.set(rel, matched);
    }
    return matched;
  }
}

/** The scope of one run: discovered files go through `filter` as discovery finds them. */
export interface Scope {
  /**
   * The files (absolute) of `files` in scope, in their order. `walked`: what discovery saw of the
   * directories it read (it has read every directory above a file it hands on; a directory not in it, as
   * under a git work tree's listing, is looked at here).
   */
  filter(files: readonly string[], walked: ReadonlyMap<string, DirectoryMarks>): Promise<string[]>;
  /** What the files filtered so far left out: how many `--ignore` (or a missing `--include` match) did, and the skipped trees. */
  result(): Omit<ScopedFiles, 'files'>;
}

/**
 * The scope of a run over `targets` (the scanned paths, absolute): a file is matched against the globs
 * relative to the deepest scanned directory holding it (else `cwd`). `workspaces`: the run's (the summary
 * asks about the same workspace).
 */
export async function createScope(targets: readonly string[], cwd: string, options: ScopeOptions, workspaces: WorkspaceCache): Promise<Scope> {
  const ignorePatterns = parsePatterns(options.ignore ?? []);
  const includePatterns = parsePatterns(options.include ?? []);
  const ignoreRules = new PathMatcher(ignorePatterns);
  const includeRules = new PathMatcher(includePatterns);
  const hasIgnore = ignorePatterns.length > 0;
  const hasInclude = includePatterns.length > 0;
  const dirTargets: string[] = [];
  for (const target of targets) if (await isDirectory(target)) dirTargets.push(target);
  // deepest first, so a file is matched relative to the closest scanned directory
  dirTargets.sort((a, b) => b.length - a.length);
  const baseOf = (file: string): string => dirTargets.find((t) => isUnder(t, file)) ?? cwd;
  // (a file discovery found under its base: the path after the base's, not path.relative's walk)
  const relativeTo = (base: string, file: string): string => (file.startsWith(asDirectory(base)) ? file.slice(asDirectory(base).length) : relative(base, file));

  const trees = new TreeIndex(dirTargets, workspaces);
  let ignored = 0;
  return {
    async filter(files, walked) {
      const out: string[] = [];
      for (const file of files) {
        const rel = hasInclude || hasIgnore ? toPosix(relativeTo(baseOf(file), file)) : '';
        const included = hasInclude && includeRules.matches(rel);
        if (hasInclude && !included) {
          ignored++;
          continue;
        }
        if (hasIgnore && ignoreRules.matches(rel)) {
          ignored++;
          continue;
        }
        // An --include names what the user wants: a nested tree it reaches is scanned.
        if (!included && (await trees.getSkippedTree(file, walked)) !== null) continue;
        out.push(file);
      }
      return out;
    },
    result: () => ({ ignored, skippedTrees: trees.skipped() }),
  };
}

/** isInside, with the common case (a path discovery built by joining onto the target) told by its prefix. */
function isUnder(parent: string, child: string): boolean {
  return child.startsWith(asDirectory(parent)) || isInside(parent, child);
}

/** `dir` with one trailing separator: what every path inside it starts with. */
function asDirectory(dir: string): string {
  return dir.endsWith(sep) ? dir : dir + sep;
}

/** Per directory, whether it opens a tree that is not the scanned project's (memoised: at most two lstats per directory, none for one discovery read). */
class TreeIndex {
  /** Directory -> the outermost skipped tree between its scanned directory (exclusive) and it (inclusive). */
  private readonly memo = new Map<string, Promise<SkippedTree | null>>();
  private readonly members: Promise<Map<string, ReadonlySet<string> | null>>;
  private readonly found = new Map<string, SkippedTree>();

  constructor(
    private readonly targets: readonly string[],
    workspaces: WorkspaceCache,
  ) {
    this.members = (async () => {
      // per scanned directory: its workspace's member directories (null: no workspace declared there)
      const map = new Map<string, ReadonlySet<string> | null>();
      for (const target of targets) {
        const workspace = await workspaces.resolve(target, null).catch(() => null);
        map.set(target, workspace === null ? null : new Set([workspace.root, ...workspace.packages.map((p) => p.dir)]));
      }
      return map;
    })();
  }

  /** The outermost skipped tree between the file's scanned directory (exclusive) and the file, or null. */
  async getSkippedTree(file: string, walked: ReadonlyMap<string, DirectoryMarks>): Promise<SkippedTree | null> {
    const target = this.targets.find((t) => isUnder(t, file));
    if (target === undefined) return null;
    const dir = dirname(file);
    if (dir === target || !isUnder(target, dir)) return null;
    const tree = await this.getOutermost(target, dir, walked);
    if (tree !== null) this.found.set(tree.path, tree);
    return tree;
  }

  skipped(): SkippedTree[] {
    return [...this.found.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** `dir` lies strictly inside `target`. */
  private getOutermost(target: string, dir: string, walked: ReadonlyMap<string, DirectoryMarks>): Promise<SkippedTree | null> {
    let pending = this.memo.get(dir);
    if (pending === undefined) {
      const parent = dirname(dir);
      pending = (async () => (parent === target ? null : await this.getOutermost(target, parent, walked)) ?? (await this.check(target, dir, walked)))();
      this.memo.set(dir, pending);
    }
    return pending;
  }

  private async check(target: string, dir: string, walked: ReadonlyMap<string, DirectoryMarks>): Promise<SkippedTree | null> {
    const marks = walked.get(dir);
    // (a directory discovery did not read, as under a git work tree's listing: looked at synchronously)
    if (marks?.git ?? hasEntry(join(dir, '.git'))) return { path: dir, kind: 'git' };
    const members = (await this.members).get(target) ?? null;
    if (members !== null && !members.has(dir) && (marks?.packageJson ?? hasEntry(join(dir, 'package.json')))) return { path: dir, kind: 'package' };
    return null;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  return lstat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}
