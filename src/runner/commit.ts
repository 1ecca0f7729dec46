// The write half of a run. Each write is atomic (a temp file in the same directory, then rename, with
// the original file mode), happens one file at a time, and only after checking that the file on disk
// still holds the text the change was computed from. Nothing is written outside what the scan planned:
// the migrated files, their package.json and the companion files the pipeline asked for (and the
// report, when --output names a file: writeReportFile).
//
// Around the writes (the CLI's job to call, in this order):
//   1. acquireWriteLock: one run writes in a tree at a time, so no two runs can both pass the
//      "unchanged on disk" check of the same file before either renames (servers and their package.json
//      would end on different SDK versions);
//   2. findStaleTempFiles + removeStaleTempFiles: temp files a killed run (kill -9, power loss) left
//      beside the files it was writing are removed, and the run says so;
//   3. ChangeApplier.apply, file by file; 4. WriteLock.release.
import { createHash, randomBytes } from 'node:crypto';
import { access, chmod, constants, lstat, mkdir, open, readdir, realpath, rename, stat, unlink } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import type { FileResult } from '../model/types.js';
import { describeFsError, isInside, resolveGitRoot } from './discover.js';
import { getWriteRefusal, resolveReal, type Bound } from './confine.js';
import { readRegularFile } from './safe-read.js';
import { runGit } from './git.js';
import type { PlannedCompanion, PlannedManifest, ScanResult } from './scan.js';

/** A write the run refused or could not do; `message` is one line without the path. */
export class CommitError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Whether the run may not write `path` (a file, or a directory to create or rename in), as the system
 * decides for the user running it: a file without write bits that root may write is replaced like any
 * other (its mode is kept), as `sed -i`, an editor's forced save or a formatter would.
 */
async function isReadOnly(path: string): Promise<boolean> {
  try {
    await access(path, constants.W_OK);
    return false;
  } catch {
    return true;
  }
}

/**
 * Checks that `path` can be replaced: it still holds `expected` (or, with `expected === null`, does not
 * exist yet), it is a regular file that is not read-only, and its directory is writable.
 * Throws CommitError with the reason.
 */
export async function checkReplaceable(path: string, expected: string | null): Promise<void> {
  const dir = dirname(path);
  if (expected === null) {
    if (await lstat(path).then(() => true, () => false)) throw new CommitError(path, 'already exists; not overwritten');
    const existingDir = await getExistingAncestor(dir);
    if (await isReadOnly(existingDir)) throw new CommitError(path, 'cannot create it: its directory is read-only');
    return;
  }
  let stats;
  try {
    // A symbolic link (a package.json shared between packages) is checked, and written, at its target.
    stats = await stat(await resolveWriteTarget(path));
  } catch (err) {
    throw new CommitError(path, `cannot write: ${describeFsError(err)}`);
  }
  if (!stats.isFile()) throw new CommitError(path, 'is no longer a regular file; not overwritten');
  const read = await readRegularFile(path, MAX_REPLACED_BYTES);
  if (read.kind === 'missing') throw new CommitError(path, `cannot read it back: ${describeFsError({ code: read.code })}`);
  if (read.kind === 'refused') throw new CommitError(path, `${read.reason}; not overwritten`);
  const current = read.bytes;
  // Bytes, not decoded text: two different invalid UTF-8 sequences decode to the same U+FFFD.
  if (!current.equals(Buffer.from(expected, 'utf8'))) throw new CommitError(path, 'changed on disk since it was read (or is not valid UTF-8 text); not overwritten');
  if (await isReadOnly(path)) throw new CommitError(path, 'is read-only; not changed');
  if (await isReadOnly(dir)) throw new CommitError(path, 'cannot replace it: its directory is read-only');
}

/**
 * Where a write to `path` lands: `path` itself, or for a symbolic link the file it points to, so that
 * the link stays a link and the file it shares gets the change (a rename over the link would replace it
 * with a copy).
 */
async function resolveWriteTarget(path: string): Promise<string> {
  const stats = await lstat(path);
  return stats.isSymbolicLink() ? realpath(path) : path;
}

async function getExistingAncestor(dir: string): Promise<string> {
  for (let current = dir; ; current = dirname(current)) {
    if (await stat(current).then((s) => s.isDirectory(), () => false)) return current;
    if (dirname(current) === current) return current;
  }
}

/** Where a write may land (confine.ts); none: anywhere. */
export interface WriteOptions {
  bounds?: readonly Bound[];
}

/** Throws CommitError when `path`, every symbolic link resolved, lies outside `bounds`. */
async function checkBounds(path: string, bounds: readonly Bound[] | undefined): Promise<void> {
  if (bounds === undefined) return;
  const why = await getWriteRefusal(path, bounds);
  if (why !== null) throw new CommitError(path, why);
}

/**
 * Replaces (or, with `expected === null`, creates) `path` with `content` atomically: the text is written
 * to a temp file beside it, flushed, given the original mode, owner and group, and renamed over the target.
 */
export async function writeFileAtomic(path: string, expected: string | null, content: string, options: WriteOptions = {}): Promise<void> {
  const temp = await prepareWrite(path, expected, content, options);
  await commitWrite(path, expected, temp);
}

/** A temp file holding the new text, ready to be renamed over its target (prepareWrite). */
export interface PreparedWrite {
  temp: string;
  target: string;
}

/**
 * The first half of writeFileAtomic: checks `path` (bounds, unchanged, writable), and writes the temp file
 * beside its target with the target's mode, owner and group. Throws CommitError (no temp file left).
 */
export async function prepareWrite(path: string, expected: string | null, content: string, options: WriteOptions = {}): Promise<PreparedWrite> {
  await checkBounds(path, options.bounds);
  await checkReplaceable(path, expected);
  const target = expected === null ? path : await resolveWriteTarget(path);
  const dir = dirname(target);
  let mode = 0o666 & ~process.umask();
  let owner: { uid: number; gid: number } | null = null;
  if (expected !== null) {
    const stats = await stat(target);
    mode = stats.mode & 0o7777;
    owner = { uid: stats.uid, gid: stats.gid };
  } else await mkdir(dir, { recursive: true });
  const temp = join(dir, getTempFileName(target));
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
      // A rename replaces the file by one the run owns: give it the owner and group the old one had (a
      // root run must not leave a user's 0640 file unreadable to them). Not possible: not replaced.
      const made = await handle.stat();
      if (owner !== null && (made.uid !== owner.uid || made.gid !== owner.gid)) {
        try {
          await handle.chown(owner.uid, owner.gid);
        } catch {
          throw new CommitError(path, `cannot keep its owner and group (${owner.uid}:${owner.gid}) on the replacement; not changed`);
        }
      }
    } finally {
      await handle.close();
    }
    await chmod(temp, mode);
    return { temp, target };
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    if (err instanceof CommitError) throw err;
    throw new CommitError(path, `cannot write: ${describeFsError(err)}`);
  }
}

/** The second half of writeFileAtomic: a last look at `path`, then the rename. Removes the temp file on failure. */
export async function commitWrite(path: string, expected: string | null, prepared: PreparedWrite): Promise<void> {
  const { temp, target } = prepared;
  try {
    // Last look right before the rename narrows the window in which an editor's save could be lost.
    await checkReplaceable(path, expected);
    await rename(temp, target);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    if (err instanceof CommitError) throw err;
    throw new CommitError(path, `cannot write: ${describeFsError(err)}`);
  }
}

/**
 * Writes a report file (--output) atomically: the old report, if any, is replaced whole or not at all.
 * Unlike source files it may be overwritten whatever it holds; the CLI makes sure it is not a file the
 * run scans or writes. Throws CommitError.
 */
export async function writeReportFile(path: string, content: string): Promise<void> {
  let target = path;
  let mode = 0o666 & ~process.umask();
  const existing = await lstat(path).catch(() => null);
  if (existing !== null) {
    target = await resolveWriteTarget(path).catch(() => path);
    const stats = await stat(target).catch(() => null);
    if (stats !== null && !stats.isFile()) throw new CommitError(path, stats.isDirectory() ? 'is a directory' : 'is not a regular file');
    if (stats !== null) mode = stats.mode & 0o7777;
  }
  const temp = join(dirname(target), getTempFileName(target));
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw new CommitError(path, describeFsError(err));
  }
}

// --- temp files ------------------------------------------------------------------------------------

/**
 * Temp files are named `.<file>.mcp-migrate-<pid>-<8 hex>.tmp` beside the file they replace: hidden,
 * greppable, and carrying the pid of the run that wrote them, so that a later run can tell a leftover of
 * a killed run from a write in progress.
 */
const TEMP_FILE = /^\.(.+)\.mcp-migrate-(\d+)-[0-9a-f]{8}\.tmp$/s;

/** A temp file older than this is stale whoever wrote it (one write takes milliseconds). */
export const STALE_TEMP_AGE_MS = 10 * 60_000;

export function getTempFileName(target: string): string {
  return `.${basename(target)}.mcp-migrate-${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
}

export function isTempFileName(name: string): boolean {
  return TEMP_FILE.test(name);
}

/** Whether the process `pid` runs on this machine (EPERM: it does, as another user). */
function isProcessAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Temp files in `dirs` left by runs that no longer exist (their pid is gone) or that are older than
 * STALE_TEMP_AGE_MS. Absolute paths, sorted. Unreadable directories are skipped.
 */
export async function findStaleTempFiles(dirs: Iterable<string>, now: number = Date.now()): Promise<string[]> {
  const stale: string[] = [];
  for (const dir of new Set(dirs)) {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const match = TEMP_FILE.exec(name);
      if (match === null) continue;
      const path = join(dir, name);
      const stats = await lstat(path).catch(() => null);
      if (stats === null || !stats.isFile()) continue;
      if (!isProcessAlive(Number(match[2])) || now - stats.mtimeMs > STALE_TEMP_AGE_MS) stale.push(path);
    }
  }
  return stale.sort();
}

/** Removes the given stale temp files; returns the ones removed and the ones that could not be. */
export async function removeStaleTempFiles(paths: readonly string[]): Promise<{ removed: string[]; failed: { path: string; message: string }[] }> {
  const removed: string[] = [];
  const failed: { path: string; message: string }[] = [];
  for (const path of paths) {
    try {
      await unlink(path);
      removed.push(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      failed.push({ path, message: `cannot remove: ${describeFsError(err)}` });
    }
  }
  return { removed, failed };
}

/**
 * Every path the run may write and every directory a temp file of it (or of an earlier, killed run on
 * the same tree) can be in: the files' own directories, their package.json's, the companions'.
 */
export function getWriteScope(scan: Pick<ScanResult, 'results' | 'manifests' | 'companions' | 'packages'>): { paths: string[]; dirs: string[] } {
  const paths = new Set<string>();
  const dirs = new Set<string>();
  for (const result of scan.results) {
    dirs.add(dirname(result.path));
    if (result.after !== undefined) paths.add(result.path);
  }
  for (const manifest of scan.manifests) {
    paths.add(manifest.change.path);
    dirs.add(dirname(manifest.change.path));
  }
  for (const companion of scan.companions) {
    paths.add(companion.path);
    dirs.add(dirname(companion.path));
  }
  for (const group of scan.packages) if (group.dir !== null) dirs.add(group.dir);
  return { paths: [...paths].sort(), dirs: [...dirs].sort() };
}

// --- the write lock ----------------------------------------------------------------------------------

/** What a lock file holds (JSON). */
export interface LockOwner {
  tool: 'mcp-migrate';
  pid: number;
  host: string;
  /** ISO time the lock was taken. */
  since: string;
  /** Tells this lock from an earlier one of the same pid. */
  nonce: string;
}

/** The write phase of another run holds the lock. */
export class LockBusyError extends Error {
  constructor(
    readonly lockPath: string,
    readonly owner: LockOwner | null,
  ) {
    const who = owner === null ? 'another run' : `mcp-migrate (pid ${owner.pid} on ${owner.host}, since ${owner.since})`;
    super(`${lockPath} is held by ${who}`);
  }
}

export interface WriteLock {
  path: string;
  /** The owner of the lock that was taken over, when it was left by a killed run. */
  tookOverFrom: LockOwner | null;
  release(): Promise<void>;
}

export interface LockOptions {
  /** How long to wait for a busy lock before giving up (default LOCK_WAIT_MS). */
  waitMs?: number;
  /** Between two tries (default 100 ms). */
  pollMs?: number;
  /** The directories the run writes in: another run's live lock in any of them or above them also makes the lock busy. */
  scope?: readonly string[];
}

/** How long a run waits for another run's write phase before it refuses. */
export const LOCK_WAIT_MS = 3_000;
export const LOCK_FILE_NAME = 'mcp-migrate.lock';

/**
 * Where the lock for writing in `dirs` (getWriteScope's `dirs`: every directory the run looks at or may
 * write in, whether or not it has anything to write) lives: inside the git directory of the work tree
 * that holds them (never committed, never in `git status`), else in the deepest directory holding them
 * all (`.mcp-migrate.lock`), symbolic links resolved. Two runs on the same work tree, whatever paths they
 * were given, take the same lock; outside git, a run on a tree and a run on a folder inside it take
 * different locks, and acquireWriteLock's `scope` makes each see the other's.
 * A `.git` file (a linked work tree, a submodule) is followed only as git itself resolves it: a `.git`
 * file naming a directory git refuses does not put the lock there.
 */
export async function resolveLockPath(dirs: readonly string[]): Promise<string> {
  const common = await resolveReal(getCommonDirectory(dirs));
  const gitRoot = await resolveGitRoot(common);
  if (gitRoot !== null) {
    const gitDir = await resolveGitDir(gitRoot);
    if (gitDir !== null) return join(gitDir, LOCK_FILE_NAME);
  }
  return join(gitRoot ?? common, `.${LOCK_FILE_NAME}`);
}

/** `<root>/.git` when it is a directory; for a `.git` file, the git directory git itself resolves (null when git refuses it). */
async function resolveGitDir(root: string): Promise<string | null> {
  const dotGit = join(root, '.git');
  const stats = await lstat(dotGit).catch(() => null);
  if (stats === null) return null;
  if (stats.isDirectory()) return dotGit;
  if (!stats.isFile()) return null;
  const resolved = await runGit(root, ['rev-parse', '--absolute-git-dir']).catch(() => null);
  const dir = resolved?.replace(/\r?\n$/, '') ?? '';
  return dir !== '' && isAbsolute(dir) && (await stat(dir).then((s) => s.isDirectory(), () => false)) ? dir : null;
}

function getCommonDirectory(dirs: readonly string[]): string {
  if (dirs.length === 0) return process.cwd();
  let common = dirs[0]!;
  for (const dir of dirs) while (!isInside(common, dir)) common = dirname(common);
  return common;
}

/**
 * Takes the write lock at `lockPath` (created with O_EXCL, holding a LockOwner). A lock whose owner is
 * gone (same host, pid no longer running: a killed run) is taken over. A live one is waited for up to
 * `waitMs`, then LockBusyError. A lock that cannot be created where it belongs (a read-only directory
 * above the files) is taken in the temp directory instead, under a name derived from the path.
 */
export async function acquireWriteLock(lockPath: string, options: LockOptions = {}): Promise<WriteLock> {
  try {
    return await acquireAt(lockPath, options);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') throw err;
    const fallback = join(tmpdir(), `mcp-migrate-${createHash('sha256').update(lockPath).digest('hex').slice(0, 16)}.lock`);
    return acquireAt(fallback, options);
  }
}

/** A lock file's text; null when there is none. Never blocks: a FIFO or device planted under the lock's name reads as empty. */
async function readLockText(path: string): Promise<string | null> {
  const read = await readRegularFile(path, 64 * 1024);
  if (read.kind === 'missing') return read.code === 'ENOENT' || read.code === 'ENOTDIR' ? null : '';
  return read.kind === 'ok' ? read.bytes.toString('utf8') : '';
}

/** The largest file a write replaces (read back before the rename): far above any source file a scan takes. */
const MAX_REPLACED_BYTES = 64 * 1024 * 1024;

/**
 * Another run's live lock that covers part of `scope`: a `.mcp-migrate.lock` or `.git/mcp-migrate.lock`
 * in any directory of `scope` or above it. Outside git a run on a tree and a run on a folder inside it
 * take locks in different directories; each finds the other's here (each looks after taking its own, so
 * two runs starting together cannot both miss each other).
 */
async function findOtherLiveLock(scope: readonly string[], own: string, host: string): Promise<{ path: string; owner: LockOwner | null } | null> {
  const seen = new Set<string>();
  for (const start of scope) {
    for (let dir = await resolveReal(start); !seen.has(dir); dir = dirname(dir)) {
      seen.add(dir);
      for (const candidate of [join(dir, `.${LOCK_FILE_NAME}`), join(dir, '.git', LOCK_FILE_NAME)]) {
        if (candidate === own) continue;
        const held = await readLockText(candidate);
        if (held === null) continue;
        const owner = parseLockOwner(held);
        if (!(await isStaleLock(candidate, owner, host))) return { path: candidate, owner };
      }
      if (dirname(dir) === dir) break;
    }
  }
  return null;
}

async function acquireAt(lockPath: string, options: LockOptions): Promise<WriteLock> {
  const deadline = Date.now() + (options.waitMs ?? LOCK_WAIT_MS);
  const owner: LockOwner = { tool: 'mcp-migrate', pid: process.pid, host: hostname(), since: new Date().toISOString(), nonce: randomBytes(8).toString('hex') };
  const text = `${JSON.stringify(owner)}\n`;
  let tookOverFrom: LockOwner | null = null;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx', 0o644);
      try {
        await handle.writeFile(text, 'utf8');
      } finally {
        await handle.close();
      }
      const other = options.scope === undefined ? null : await findOtherLiveLock(options.scope, lockPath, owner.host);
      if (other === null) return { path: lockPath, tookOverFrom, release: () => releaseLock(lockPath, text) };
      // Another run writes in part of this tree: give way, and try again until the deadline.
      await releaseLock(lockPath, text);
      if (Date.now() >= deadline) throw new LockBusyError(other.path, other.owner);
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min((options.pollMs ?? 100) + Math.floor(Math.random() * 50), deadline - Date.now()))));
      continue;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const held = await readLockText(lockPath);
    if (held === null) continue; // released in between: try again at once
    const current = parseLockOwner(held);
    if (await isStaleLock(lockPath, current, owner.host)) {
      // The owner was killed. Re-read right before removing, so that a lock another run has just
      // taken over in between is not the one removed.
      if ((await readLockText(lockPath)) === held) await unlink(lockPath).catch(() => undefined);
      tookOverFrom = current;
      continue;
    }
    if (Date.now() >= deadline) throw new LockBusyError(lockPath, current);
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(options.pollMs ?? 100, deadline - Date.now()))));
  }
}

/**
 * Removes the lock at `lockPath` when a killed run left it (for a run that writes nothing, and so takes
 * no lock, but should not leave a dead run's lock behind). Returns its owner when it was removed.
 */
export async function removeStaleLock(lockPath: string): Promise<LockOwner | null | undefined> {
  const held = await readLockText(lockPath);
  if (held === null) return undefined;
  const owner = parseLockOwner(held);
  if (!(await isStaleLock(lockPath, owner, hostname()))) return undefined;
  if ((await readLockText(lockPath)) !== held) return undefined;
  await unlink(lockPath).catch(() => undefined);
  return owner;
}

/**
 * A lock no live run holds: a killed owner on this host; an owner on another host (a shared folder) whose
 * lock is older than any run takes (OTHER_HOST_LOCK_AGE_MS); a lock file git tracks (committed by mistake:
 * a run never commits its lock); a lock with no readable owner older than a write could take to fill it in.
 */
async function isStaleLock(lockPath: string, current: LockOwner | null, host: string): Promise<boolean> {
  if (current !== null && current.host === host) return !isProcessAlive(current.pid);
  if (await isTrackedByGit(lockPath)) return true;
  if (current !== null) return Date.now() - Date.parse(current.since) > OTHER_HOST_LOCK_AGE_MS;
  const stats = await stat(lockPath).catch(() => null);
  return stats !== null && Date.now() - stats.mtimeMs > UNREADABLE_LOCK_AGE_MS;
}

/** A lock held from another host this long is left over: no run writes for six hours. */
export const OTHER_HOST_LOCK_AGE_MS = 6 * 60 * 60 * 1000;

async function isTrackedByGit(path: string): Promise<boolean> {
  const root = await resolveGitRoot(dirname(path));
  if (root === null) return false;
  try {
    return (await runGit(root, ['ls-files', '--error-unmatch', '--', path])).trim() !== '';
  } catch {
    return false;
  }
}

/** An unreadable lock file this old is left over (a run killed between creating it and writing its owner). */
const UNREADABLE_LOCK_AGE_MS = 10_000;

export function parseLockOwner(text: string): LockOwner | null {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (value.tool !== 'mcp-migrate' || typeof value.pid !== 'number' || typeof value.host !== 'string') return null;
    return { tool: 'mcp-migrate', pid: value.pid, host: value.host, since: String(value.since ?? ''), nonce: String(value.nonce ?? '') };
  } catch {
    return null;
  }
}

/** Removes the lock if it is still ours. */
async function releaseLock(lockPath: string, text: string): Promise<void> {
  const held = await readLockText(lockPath);
  if (held === text) await unlink(lockPath).catch(() => undefined);
}

/** What applying one file did: the paths written (package.json, companions, the file) and the error, if any. */
export interface ApplyOutcome {
  written: string[];
  error?: string;
}

/**
 * Applies reviewed files one at a time. A file's package.json change and companion files are written
 * with the first applied file that needs them (before it, so the file never refers to a missing helper
 * or dependency), and only once.
 */
export class ChangeApplier {
  private readonly manifestState = new Map<string, 'written' | { error: string }>();
  private readonly companionState = new Map<string, 'written' | { error: string }>();

  /**
   * `display` turns an absolute path into the form error messages show (root-relative). `journalDir`:
   * where a unit of several files records its writes (see applyUnit); without it a unit is still
   * written all or nothing, but a kill between its renames is not finished by the next run.
   */
  constructor(
    private readonly scan: Pick<ScanResult, 'manifests' | 'companions'> & Partial<Pick<ScanResult, 'bounds'>>,
    private readonly display: (path: string) => string = (path) => path,
    private readonly options: { journalDir?: string } = {},
  ) {}

  /**
   * Writes the files of one rewrite that changes several (an entry and the modules it changes, with
   * their package.json and helper module) as a unit: every file is checked, every temp file written and
   * flushed, then a journal naming them all is written (the commit point), then each temp file is
   * renamed over its target. A rename that fails puts back the files already renamed (their old text is
   * known). A run killed after the journal was written is finished by the next run (recoverJournals)
   * before it looks at the tree; one killed before leaves only temp files, removed as stale.
   */
  async applyUnit(results: readonly FileResult[]): Promise<ApplyOutcome> {
    if (results.length === 1) return this.apply(results[0]!);
    const written: string[] = [];
    const files = results.filter((r) => r.after !== undefined);
    const paths = new Set(files.map((r) => r.path));
    const manifests = this.scan.manifests.filter((m) => m.files.some((f) => paths.has(f)));
    const companions = this.scan.companions.filter((c) => c.files.some((f) => paths.has(f)));
    for (const manifest of manifests) {
      const state = this.manifestState.get(manifest.change.path);
      if (typeof state === 'object') return { written, error: state.error };
    }
    for (const companion of companions) {
      const state = this.companionState.get(companion.path);
      if (typeof state === 'object') return { written, error: state.error };
    }
    const writes: UnitWrite[] = [
      ...manifests.filter((m) => !this.manifestState.has(m.change.path)).map((m) => ({ path: m.change.path, expected: m.change.before, content: m.change.after, bounds: this.scan.bounds?.manifests, kind: 'manifest' as const })),
      ...companions.filter((c) => !this.companionState.has(c.path)).map((c) => ({ path: c.path, expected: null, content: c.content, bounds: this.scan.bounds?.sources, kind: 'companion' as const })),
      ...files.map((r) => ({ path: r.path, expected: r.before, content: r.after as string, bounds: this.scan.bounds?.sources, kind: 'file' as const })),
    ];
    // The files of a unit are written together: the error names the one that stopped them all.
    const failed = (write: UnitWrite, err: unknown): ApplyOutcome => ({ written, error: `${this.display(write.path)}: ${messageOf(err)}; none of its files was written` });
    // 1. Every file checked before anything is written.
    for (const write of writes) {
      try {
        await checkBounds(write.path, write.bounds);
        await checkReplaceable(write.path, write.expected);
      } catch (err) {
        return failed(write, err);
      }
    }
    // 2. Every temp file written and flushed.
    const prepared: { write: UnitWrite; temp: PreparedWrite }[] = [];
    for (const write of writes) {
      try {
        prepared.push({ write, temp: await prepareWrite(write.path, write.expected, write.content, { bounds: write.bounds }) });
      } catch (err) {
        await Promise.all(prepared.map((p) => unlink(p.temp.temp).catch(() => undefined)));
        return failed(write, err);
      }
    }
    // 3. The commit point: from here a killed run is finished by the next one.
    const journal = this.options.journalDir === undefined ? null : await writeJournal(this.options.journalDir, prepared.map(({ write, temp }) => ({ target: temp.target, temp: temp.temp, before: write.expected === null ? null : hashText(write.expected), after: hashText(write.content) })));
    // 4. The renames; a failure puts back what was already renamed.
    const renamed: UnitWrite[] = [];
    for (const { write, temp } of prepared) {
      try {
        await commitWrite(write.path, write.expected, temp);
        renamed.push(write);
      } catch (err) {
        for (const rest of prepared.slice(renamed.length + 1)) await unlink(rest.temp.temp).catch(() => undefined);
        for (const done of renamed.reverse()) {
          if (done.expected === null) await unlink(done.path).catch(() => undefined);
          else await writeFileAtomic(done.path, done.content, done.expected).catch(() => undefined);
        }
        if (journal !== null) await unlink(journal).catch(() => undefined);
        return failed(write, err);
      }
    }
    if (journal !== null) await unlink(journal).catch(() => undefined);
    for (const write of writes) {
      if (write.kind === 'manifest') this.manifestState.set(write.path, 'written');
      if (write.kind === 'companion') this.companionState.set(write.path, 'written');
      written.push(write.path);
    }
    return { written };
  }

  /** The package.json change `file` needs that is not written yet (for showing it in the review). */
  pendingManifestFor(file: string): PlannedManifest | null {
    const planned = this.scan.manifests.find((m) => m.files.includes(file));
    return planned !== undefined && !this.manifestState.has(planned.change.path) ? planned : null;
  }

  /** The companion files `file` needs that are not written yet. */
  pendingCompanionsFor(file: string): PlannedCompanion[] {
    return this.scan.companions.filter((c) => c.files.includes(file) && !this.companionState.has(c.path));
  }

  /**
   * Writes `result.after` with what it needs. `dependencies: false` writes the file alone: a partly applied
   * file that is still the original server needs neither the SDK dependency nor the companion files.
   */
  async apply(result: FileResult, { dependencies = true }: { dependencies?: boolean } = {}): Promise<ApplyOutcome> {
    const written: string[] = [];
    if (result.after === undefined) return { written };
    const manifest = dependencies ? this.scan.manifests.find((m) => m.files.includes(result.path)) : undefined;
    const companions = dependencies ? this.pendingCompanionsFor(result.path) : [];
    const manifestState = manifest === undefined ? undefined : this.manifestState.get(manifest.change.path);
    if (typeof manifestState === 'object') return { written, error: manifestState.error };
    for (const companion of dependencies ? this.scan.companions.filter((c) => c.files.includes(result.path)) : []) {
      const state = this.companionState.get(companion.path);
      if (typeof state === 'object') return { written, error: state.error };
    }
    // 1. Check the file itself before writing anything it needs.
    try {
      await checkBounds(result.path, this.scan.bounds?.sources);
      await checkReplaceable(result.path, result.before);
    } catch (err) {
      return { written, error: messageOf(err) };
    }
    // 2. The package.json first, so the import the file gains resolves after an install.
    if (manifest !== undefined && manifestState === undefined) {
      try {
        await writeFileAtomic(manifest.change.path, manifest.change.before, manifest.change.after, { bounds: this.scan.bounds?.manifests });
        this.manifestState.set(manifest.change.path, 'written');
        written.push(manifest.change.path);
      } catch (err) {
        const error = `cannot add the SDK dependency: ${this.display(manifest.change.path)} ${messageOf(err)}`;
        this.manifestState.set(manifest.change.path, { error });
        return { written, error };
      }
    }
    // 3. Companion files (the envelope helper), once each.
    for (const companion of companions) {
      try {
        await writeFileAtomic(companion.path, null, companion.content, { bounds: this.scan.bounds?.sources });
        this.companionState.set(companion.path, 'written');
        written.push(companion.path);
      } catch (err) {
        const error = `needs ${this.display(companion.path)}, which could not be written: ${messageOf(err)}`;
        this.companionState.set(companion.path, { error });
        return { written, error };
      }
    }
    // 4. The file itself.
    try {
      await writeFileAtomic(result.path, result.before, result.after, { bounds: this.scan.bounds?.sources });
      written.push(result.path);
    } catch (err) {
      return { written, error: messageOf(err) };
    }
    return { written };
  }
}

/** One file of a unit (ChangeApplier.applyUnit). */
interface UnitWrite {
  path: string;
  expected: string | null;
  content: string;
  bounds: readonly Bound[] | undefined;
  kind: 'manifest' | 'companion' | 'file';
}

// --- the journal of a unit's renames ---------------------------------------------------------------

/** `.mcp-migrate-journal-<pid>-<8 hex>.json`, in the directory of the write lock (the git directory, else the tree's root). */
const JOURNAL_FILE = /^\.?mcp-migrate-journal-(\d+)-[0-9a-f]{8}\.json$/;

const JOURNAL_TEMP_FILE = /^\.mcp-migrate-journal-(\d+)-[0-9a-f]{8}\.json\.tmp$/;

/** One rename of a unit: the temp file, its target, and the sha256 of the target's text before and after (null: a new file). */
interface JournalEntry {
  target: string;
  temp: string;
  before: string | null;
  after: string;
}

function hashText(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Writes the journal atomically (temp + fsync + rename) and returns its path. */
async function writeJournal(dir: string, entries: JournalEntry[]): Promise<string> {
  const path = join(dir, `.mcp-migrate-journal-${process.pid}-${randomBytes(4).toString('hex')}.json`);
  const temp = `${path}.tmp`;
  const handle = await open(temp, 'wx', 0o644);
  try {
    await handle.writeFile(`${JSON.stringify({ tool: 'mcp-migrate', entries })}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  return path;
}

/** What recoverJournals did: the files it finished writing, and the ones it could not (each with why). */
export interface JournalRecovery {
  finished: string[];
  failed: { path: string; message: string }[];
}

/**
 * Finishes the units a killed run left half-renamed: every journal in `dir` whose run is gone. For each
 * of its files whose temp file is still there, the target must still hold its old text (or, for a new
 * file, not exist) and the temp file its new text: then the temp file is renamed over it. A target
 * changed since (an edit after the kill) is left alone and reported, and its temp file removed.
 */
export async function recoverJournals(dir: string): Promise<JournalRecovery> {
  const out: JournalRecovery = { finished: [], failed: [] };
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return out;
  }
  for (const name of names.sort()) {
    // a journal a run was killed while writing: nothing was renamed yet, so there is nothing to finish
    const unfinished = JOURNAL_TEMP_FILE.exec(name);
    if (unfinished !== null && !isProcessAlive(Number(unfinished[1]))) await unlink(join(dir, name)).catch(() => undefined);
    const match = JOURNAL_FILE.exec(name);
    if (match === null || isProcessAlive(Number(match[1]))) continue;
    const path = join(dir, name);
    const read = await readRegularFile(path, 16 * 1024 * 1024);
    let entries: JournalEntry[] = [];
    try {
      if (read.kind === 'ok') entries = (JSON.parse(read.bytes.toString('utf8')) as { entries?: JournalEntry[] }).entries ?? [];
    } catch {
      entries = [];
    }
    for (const entry of entries) {
      if (typeof entry?.target !== 'string' || typeof entry.temp !== 'string' || dirname(entry.temp) !== dirname(entry.target) || !isTempFileName(basename(entry.temp))) continue;
      const temp = await readRegularFile(entry.temp, MAX_REPLACED_BYTES);
      if (temp.kind !== 'ok') continue; // renamed before the kill
      const current = await readRegularFile(entry.target, MAX_REPLACED_BYTES);
      const currentHash = current.kind === 'ok' ? createHash('sha256').update(current.bytes).digest('hex') : null;
      const tempHash = createHash('sha256').update(temp.bytes).digest('hex');
      if (tempHash === entry.after && currentHash === entry.before) {
        try {
          await rename(entry.temp, entry.target);
          out.finished.push(entry.target);
          continue;
        } catch (err) {
          out.failed.push({ path: entry.target, message: `could not finish the interrupted write: ${describeFsError(err)}` });
        }
      } else if (currentHash !== entry.after) {
        out.failed.push({ path: entry.target, message: 'changed since an interrupted run began writing it; its part of that run was not finished' });
      }
      await unlink(entry.temp).catch(() => undefined);
    }
    await unlink(path).catch(() => undefined);
  }
  return out;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
