// Discovery: which files a run looks at. Inside a git work tree, git says: `git ls-files` lists the
// tracked files plus the untracked ones git does not ignore (exactly what git ignores is left out, and a
// committed `build/server.js` is found); only `node_modules` is skipped by rule there. Outside one, a walk
// of the given directories skips dependency/build/VCS directories by name and whatever .gitignore files
// exclude. Either way symbolic links are never followed, and what cannot be a hand-written server is
// left out: declaration files (`.d.ts`) and files larger than MAX_SOURCE_BYTES (minified bundles,
// generated code; the walk leaves the size to the scan's read, which sees it without a stat of its own).
// Directories skipped by rule come back as data (the summary names them).
// Deliberately does not read file contents (that is the scan's job) and never throws for a bad path:
// problems come back as data.
import { lstatSync, readdirSync, type Dirent } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, resolve, sep } from 'node:path';
import { runGitBytes } from './git.js';
import { isIgnored, parseGitignore, type IgnoreRule } from './gitignore.js';
import { readRegularFileSync } from './safe-read.js';

export const CANDIDATE_EXTENSIONS: readonly string[] = ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.tsx', '.jsx'];
export const SKIPPED_DIRECTORIES: readonly string[] = ['node_modules', 'dist', 'build', '.git', 'coverage'];
/** Skipped by name inside a git work tree too (git decides the rest): dependencies are not the project's code. */
export const SKIPPED_IN_GIT: readonly string[] = ['node_modules'];

/** A directory not looked into because of its name (SKIPPED_DIRECTORIES / SKIPPED_IN_GIT), for the summary. */
export interface ExcludedDirectory {
  path: string;
  /** The directory name that matched the rule: `node_modules`, `dist`, `build`, `coverage`. */
  rule: string;
}

/**
 * Files larger than this are not looked at. Hand-written stdio servers are a few kB to a few hundred kB;
 * beyond a megabyte a file is a bundle or generated code, and the pipeline needs several hundred times a
 * file's size in memory (a 10 MB file took 4 GB and minutes, 20 MB ran out of heap).
 */
export const MAX_SOURCE_BYTES = 1_000_000;

/** `x.d.ts`, `x.d.mts`, `x.d.cts`, and `x.d.css.ts` (declarations for arbitrary extensions): types only, never a server. */
const DECLARATION_FILE = /\.d(\.[^./\\]+)?\.[cm]?ts$/i;

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
  /** Things worth a line that do not fail the run (a symbolic link given on the command line, a file too large to be a server). */
  warnings: string[];
  /** Candidate files left out on purpose, each with the reason (also in `warnings`). */
  skipped: Problem[];
  /** Directories not entered because of their name, sorted by path. */
  excluded: ExcludedDirectory[];
  /** Python sources met on the way (not candidates: the scan says which look like MCP servers), sorted. */
  python: string[];
  /**
   * Every directory the walk read (absolute), with whether it holds a `.git` and a `package.json` entry:
   * scope.ts asks this instead of looking again. Directories whose files git listed are not in it.
   */
  walked: ReadonlyMap<string, DirectoryMarks>;
}

/** The entries of a directory that open a project of their own (scope.ts). */
export interface DirectoryMarks {
  git: boolean;
  packageJson: boolean;
}

/** A JavaScript or TypeScript source file (declaration files are not: they hold types only). */
export function isCandidatePath(path: string): boolean {
  return CANDIDATE_EXTENSIONS.includes(extname(path).toLowerCase()) && !isDeclarationFile(path);
}

/** A Python source: never migrated, but one that looks like an MCP server is named (scan.ts). */
export function isPythonPath(path: string): boolean {
  return extname(path).toLowerCase() === '.py';
}

export function isDeclarationFile(path: string): boolean {
  return DECLARATION_FILE.test(basename(path));
}

/** The reason a file of `size` bytes is not looked at, or null when it is small enough. */
export function getSizeSkipReason(size: number): string | null {
  if (size <= MAX_SOURCE_BYTES) return null;
  return `${size.toLocaleString('en-US')} bytes, over the ${MAX_SOURCE_BYTES / 1_000_000} MB limit for a hand-written server (bundles and generated code are not migrated); skipped`;
}

/** What the walk collects. */
interface Found {
  /** Absolute path -> how warnings show it (relative to the cwd). */
  shown: (path: string) => string;
  files: Set<string>;
  problems: Problem[];
  warnings: string[];
  skipped: Problem[];
  excluded: ExcludedDirectory[];
  python: Set<string>;
  walked: Map<string, DirectoryMarks>;
  /** Files added since the last `flush`, in the order they are to be read (getReadOrder). */
  fresh: string[];
  /** Hands `fresh` to the caller's `onFiles` (and waits for it). */
  flush: () => Promise<void>;
}

/**
 * Called with the files found since the last call (new to the run, shallow first), while discovery
 * goes on: once per directory the walk reads (its files; `walked` holds it and every directory above),
 * once per git listing, once per file named. Discovery waits for what it returns.
 */
export type OnFiles = (files: readonly string[], walked: ReadonlyMap<string, DirectoryMarks>) => void | Promise<void>;

/**
 * Finds candidate source files under `paths` (files or directories, resolved against `cwd`). `onFiles`
 * gets them as they are found (the scan reads them while the walk goes on); the result lists them all.
 */
export async function discoverFiles(paths: readonly string[], cwd: string, onFiles?: OnFiles): Promise<DiscoveryResult> {
  const found: Found = {
    shown: (path) => toPosix(relative(cwd, path)) || '.',
    files: new Set<string>(),
    problems: [],
    warnings: [],
    skipped: [],
    excluded: [],
    python: new Set<string>(),
    walked: new Map(),
    fresh: [],
    flush: async () => {
      if (found.fresh.length === 0) return;
      const files = found.fresh.splice(0);
      await onFiles?.(files, found.walked);
    },
  };
  const { problems, warnings } = found;
  for (const given of paths) {
    const target = resolve(cwd, given);
    let stats;
    try {
      stats = await lstat(target);
    } catch (err) {
      // Node.js turns bytes of an argument that are not UTF-8 into U+FFFD: the name cannot be passed on.
      const why = given.includes('\uFFFD') && (err as NodeJS.ErrnoException).code === 'ENOENT' ? ' (its name is not valid UTF-8, which Node.js cannot pass on; name the directory holding it instead)' : '';
      problems.push({ path: target, message: `${describeFsError(err)}${why}` });
      continue;
    }
    if (stats.isSymbolicLink()) {
      warnings.push(`${given}: is a symbolic link; not followed`);
    } else if (stats.isDirectory()) {
      const gitRoot = await resolveGitRoot(target);
      const base = gitRoot ?? target;
      const rules = loadAncestorRules(base, target);
      if (isIgnoredByAncestors(rules, base, target)) {
        // git lists nothing untracked in an ignored directory: the walk looks at it, as it was named
        warnings.push(`${given}: is ignored by .gitignore; scanned anyway because it was named`);
        await walk(target, base, rules, found);
      } else if (gitRoot === null || !(await addGitFiles(target, found))) {
        await walk(target, base, rules, found);
      }
    } else if (stats.isFile()) {
      if (isDeclarationFile(target)) warnings.push(`${given}: is a TypeScript declaration file (types only); skipped`);
      else if (!isCandidatePath(target)) problems.push({ path: target, message: `not a JavaScript or TypeScript file (expected one of ${CANDIDATE_EXTENSIONS.join(' ')})` });
      else addFile(target, given, stats.size, found);
      await found.flush();
    } else {
      problems.push({ path: target, message: 'not a regular file or directory' });
    }
  }
  const excluded = [...new Map(found.excluded.map((e) => [e.path, e])).values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files: [...found.files].sort(), problems, warnings, skipped: found.skipped, excluded, python: [...found.python].sort(), walked: found.walked };
}

/**
 * Adds the files `git ls-files` lists under `dir` (tracked, plus untracked and not ignored), recursing into
 * submodules and nested repositories (each its own work tree). False when git cannot list them (git not
 * installed, `dir` not in a usable work tree): the caller walks instead.
 */
async function addGitFiles(dir: string, found: Found): Promise<boolean> {
  // `--stage` for the tracked entries: a submodule is mode 160000, a directory to list on its own.
  const tracked = await runGitListing(dir, ['ls-files', '-z', '--stage']);
  const untracked = tracked === null ? null : await runGitListing(dir, ['ls-files', '-z', '--others', '--exclude-standard']);
  if (tracked === null || untracked === null) return false;
  const nested: string[] = [];
  const entries: Buffer[] = [];
  for (const line of tracked) {
    const tab = line.indexOf(0x09);
    if (tab === -1) continue;
    const path = line.subarray(tab + 1);
    if (line.subarray(0, 6).toString('latin1') === '160000') nested.push(join(dir, decodeName(path) ?? ''));
    else entries.push(path);
  }
  for (const path of untracked) {
    // an untracked nested repository is listed as its directory, with a trailing slash
    if (path[path.length - 1] === 0x2f) nested.push(join(dir, decodeName(path.subarray(0, -1)) ?? ''));
    else entries.push(path);
  }
  for (const bytes of entries) {
    const name = decodeName(bytes);
    if (name === null) {
      if (isCandidatePath(bytes.toString('latin1'))) found.warnings.push(`${found.shown(join(dir, escapeName(bytes)))}: its name is not valid UTF-8; skipped (rename it to migrate it)`);
      continue;
    }
    if (!isCandidatePath(name)) {
      // (not the ones under node_modules: node-gyp ships Python of its own)
      if (isPythonPath(name) && !name.split('/').some((part) => SKIPPED_IN_GIT.includes(part))) found.python.add(join(dir, ...name.split('/')));
      continue;
    }
    const parts = name.split('/');
    const rule = parts.slice(0, -1).findIndex((part) => SKIPPED_IN_GIT.includes(part));
    if (rule !== -1) {
      found.excluded.push({ path: join(dir, ...parts.slice(0, rule + 1)), rule: parts[rule]! });
      continue;
    }
    const full = join(dir, ...parts);
    // Tracked but deleted in the work tree, a symbolic link, a directory: nothing to read.
    const stats = statSyncNoFollow(full);
    if (stats === null || !stats.isFile()) continue;
    addFile(full, null, stats.size, found);
  }
  found.fresh = getReadOrder(found.fresh);
  await found.flush();
  for (const dirPath of nested) {
    if (dirPath === dir || !(await lstat(dirPath).then((s) => s.isDirectory(), () => false))) continue;
    if (!(await addGitFiles(dirPath, found))) await walk(dirPath, dirPath, [], found);
  }
  return true;
}

function statSyncNoFollow(path: string): { isFile(): boolean; size: number } | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** `git -C dir ...args` through git.ts's runGitBytes (the repository's own programs overridden), its NUL-separated output as raw names; null when it fails. */
async function runGitListing(dir: string, args: readonly string[]): Promise<Buffer[] | null> {
  let stdout: Buffer;
  try {
    stdout = await runGitBytes(dir, args);
  } catch {
    return null;
  }
  const out: Buffer[] = [];
  let start = 0;
  for (let i = stdout.indexOf(0); i !== -1; i = stdout.indexOf(0, start)) {
    if (i > start) out.push(stdout.subarray(start, i));
    start = i + 1;
  }
  return out;
}

/**
 * Adds a candidate file, or skips it with the reason when it is too large to be a hand-written server.
 * `shown` is how a warning names it (null: relative to the cwd, worked out only for a warning).
 */
function addFile(path: string, shown: string | null, size: number, found: Found): void {
  const reason = getSizeSkipReason(size);
  if (reason === null) {
    addFound(path, found);
    return;
  }
  found.skipped.push({ path, message: reason });
  found.warnings.push(`${shown ?? found.shown(path)}: ${reason}`);
}

/** A file new to the run, for the result and the next `flush`. */
function addFound(path: string, found: Found): void {
  if (found.files.has(path)) return;
  found.files.add(path);
  found.fresh.push(path);
}

/**
 * The order a git listing's files are handed on in (the walk's come so already, a directory at a time,
 * breadth first): shallow before deep, each depth in the order given. A candidate goes to a worker as soon
 * as the scan has read it, so the run ends soonest when the likely ones come first: a server's entry sits
 * near its package's root (`server.js`, `src/index.ts`, `bin/cli.mjs`) while the bulk of a tree is deep
 * (libraries, vendored and generated code). Nothing else depends on the order: the scan sorts its
 * results, problems and warnings.
 */
export function getReadOrder(files: readonly string[]): string[] {
  const depths = files.map(countSeparators);
  return files.map((_, i) => i).sort((a, b) => depths[a]! - depths[b]! || a - b).map((i) => files[i]!);
}

function countSeparators(path: string): number {
  let count = 0;
  for (let i = 0; i < path.length; i++) {
    const code = path.charCodeAt(i);
    // '/', and '\\' (Windows' separator; in a POSIX name it only moves the file later)
    if (code === 47 || code === 92) count++;
  }
  return count;
}

/** A directory the walk is to read: its path relative to the walk's base, and the .gitignore rules above it. */
interface Pending {
  dir: string;
  relDir: string;
  rules: readonly IgnoreRule[];
}

/**
 * The walk outside a git work tree, breadth first: the files of a directory go to `onFiles` as soon as
 * it is read, shallow ones first, so the scan reads a package's entry (near its root) while the walk is
 * still in its deep trees (libraries, vendored and generated code) instead of after them. Directory reads
 * are synchronous on purpose: a tree of 10,000 files in 3,500 directories is walked in a third of the time
 * promise-based readdir takes (each call a thread-pool round trip). The relative path of each entry is
 * built from its directory's, not computed with path.relative per entry. Each depth is read in the tree's
 * order (entries sorted by their bytes), and no depth of nesting takes stack.
 */
async function walk(dir: string, base: string, inherited: readonly IgnoreRule[], found: Found): Promise<void> {
  let depth: Pending[] = [{ dir, relDir: toPosix(relative(base, dir)), rules: inherited }];
  while (depth.length > 0) {
    const deeper: Pending[] = [];
    for (const pending of depth) {
      readDirectory(pending, found, deeper);
      await found.flush();
    }
    depth = deeper;
  }
}

/** Reads one directory of the walk: its files to `found`, the directories to enter to `deeper`. */
function readDirectory({ dir, relDir, rules: inherited }: Pending, found: Found, deeper: Pending[]): void {
  let entries: Entry[];
  try {
    entries = readEntries(dir);
  } catch (err) {
    found.problems.push({ path: dir, message: `cannot read directory: ${describeFsError(err)}` });
    return;
  }
  let rules = inherited;
  found.walked.set(dir, { git: entries.some((entry) => entry.name === '.git'), packageJson: entries.some((entry) => entry.name === 'package.json') });
  if (entries.some((entry) => entry.dirent.isFile() && entry.name === '.gitignore')) {
    const own = readGitignore(join(dir, '.gitignore'), relDir);
    if (own.length > 0) rules = [...inherited, ...own];
  }
  // (dir is absolute and normalised, a name holds no separator: no path.join per entry)
  const prefix = dir.endsWith(sep) ? dir : dir + sep;
  for (const { dirent, name, bytes } of entries) {
    if (dirent.isSymbolicLink()) continue;
    const isDirectory = dirent.isDirectory();
    const isFile = !isDirectory && dirent.isFile();
    if (!isDirectory && !isFile) continue;
    if (name === null) {
      if (isDirectory || isCandidatePath(bytes!.toString('latin1'))) {
        found.warnings.push(`${found.shown(prefix + escapeName(bytes!))}: its name is not valid UTF-8; ${isDirectory ? 'directory not scanned' : 'skipped'} (rename it to migrate it)`);
      }
      continue;
    }
    const rel = relDir === '' ? name : `${relDir}/${name}`;
    if (isDirectory) {
      if (SKIPPED_DIRECTORIES.includes(name)) {
        if (name !== '.git') found.excluded.push({ path: prefix + name, rule: name });
        continue;
      }
      if (isIgnored(rules, rel, true)) continue;
      deeper.push({ dir: prefix + name, relDir: rel, rules });
    } else if (!isCandidatePath(name)) {
      if (isPythonPath(name) && !isIgnored(rules, rel, false)) found.python.add(prefix + name);
    } else if (!isIgnored(rules, rel, false)) {
      // not stat'ed: the scan's read applies the size limit (10,000 stats were a third of the walk)
      addFound(prefix + name, found);
    }
  }
}

/** A directory entry: its name, or null with its bytes when they are not UTF-8 (the string would name another file). */
interface Entry {
  dirent: Dirent<string> | Dirent<Buffer>;
  name: string | null;
  bytes: Buffer | null;
}

/** Characters whose UTF-16 order is not their UTF-8 order (surrogates sort below U+E000-U+FFFF), U+FFFD among them. */
const NOT_BYTE_ORDERED = /[\uD800-\uFFFF]/;

/**
 * A directory's entries sorted by the bytes of their names, so the walk order (and any problem order) does
 * not depend on the file system. Names are read as strings (a Buffer per name cost a tenth of the walk);
 * a directory with a name that may not be UTF-8, or may sort otherwise as bytes, is read again as bytes.
 */
function readEntries(dir: string): Entry[] {
  const plain = readdirSync(dir, { withFileTypes: true });
  if (!plain.some((dirent) => NOT_BYTE_ORDERED.test(dirent.name))) {
    return plain.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((dirent) => ({ dirent, name: dirent.name, bytes: null }));
  }
  return readdirSync(dir, { withFileTypes: true, encoding: 'buffer' })
    .sort((a, b) => Buffer.compare(a.name, b.name))
    .map((dirent) => ({ dirent, name: decodeName(dirent.name), bytes: dirent.name }));
}

/** The name as a string, or null when its bytes are not UTF-8 (the string would name another file). */
function decodeName(bytes: Buffer): string | null {
  const name = bytes.toString('utf8');
  return name.includes('\uFFFD') && !Buffer.from(name, 'utf8').equals(bytes) ? null : name;
}

/** A name for messages: ASCII as it is, every other byte as \xNN. */
function escapeName(bytes: Buffer): string {
  return [...bytes].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`)).join('');
}

/** A .gitignore larger than this is not read (a real one is a few kB). */
const MAX_GITIGNORE_BYTES = 1_000_000;

function readGitignore(path: string, base: string): IgnoreRule[] {
  // Never blocks: a .gitignore that is a FIFO (or a link to /dev/stdin) is not opened for reading.
  const read = readRegularFileSync(path, MAX_GITIGNORE_BYTES);
  // An unreadable .gitignore ignores nothing; the walk itself will report unreadable directories.
  if (read.kind !== 'ok') return [];
  return parseGitignore(read.bytes.toString('utf8'), base === '.' ? '' : base);
}

/** The .gitignore rules of `base` and of every directory between it and `target` (exclusive). */
function loadAncestorRules(base: string, target: string): IgnoreRule[] {
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
    rules.push(...readGitignore(join(dir, '.gitignore'), rel === '' ? '' : rel));
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
  // (synchronous lstats: asked for every package a run plans, each climbing to the file system's root)
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (hasEntry(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

/** Whether anything (a broken link too) has that name; an entry that cannot be looked at counts as none. */
export function hasEntry(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
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
