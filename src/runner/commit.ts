// The write half of a run. Each write is atomic (a temp file in the same directory, then rename, with
// the original file mode), happens one file at a time, and only after checking that the file on disk
// still holds the text the change was computed from. Nothing is written outside what the scan planned:
// the migrated files, their package.json and the companion files the pipeline asked for.
import { randomBytes } from 'node:crypto';
import { access, chmod, constants, lstat, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { FileResult } from '../model/types.js';
import { describeFsError } from './discover.js';
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

/** Whether a file or directory has no write bit at all (also true for root, who could write anyway). */
async function isReadOnly(path: string): Promise<boolean> {
  const stats = await stat(path);
  if ((stats.mode & 0o222) === 0) return true;
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
    stats = await lstat(path);
  } catch (err) {
    throw new CommitError(path, `cannot write: ${describeFsError(err)}`);
  }
  if (!stats.isFile()) throw new CommitError(path, 'is no longer a regular file; not overwritten');
  let current: string;
  try {
    current = await readFile(path, 'utf8');
  } catch (err) {
    throw new CommitError(path, `cannot read it back: ${describeFsError(err)}`);
  }
  if (current !== expected) throw new CommitError(path, 'changed on disk since it was read; not overwritten');
  if (await isReadOnly(path)) throw new CommitError(path, 'is read-only; not changed');
  if (await isReadOnly(dir)) throw new CommitError(path, 'cannot replace it: its directory is read-only');
}

async function getExistingAncestor(dir: string): Promise<string> {
  for (let current = dir; ; current = dirname(current)) {
    if (await stat(current).then((s) => s.isDirectory(), () => false)) return current;
    if (dirname(current) === current) return current;
  }
}

/**
 * Replaces (or, with `expected === null`, creates) `path` with `content` atomically: the text is written
 * to a temp file beside it, flushed, given the original mode, and renamed over the target.
 */
export async function writeFileAtomic(path: string, expected: string | null, content: string): Promise<void> {
  await checkReplaceable(path, expected);
  const dir = dirname(path);
  let mode = 0o666 & ~process.umask();
  if (expected !== null) mode = (await stat(path)).mode & 0o7777;
  else await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${basename(path)}.mcp-migrate-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(temp, mode);
    // Last look right before the rename narrows the window in which an editor's save could be lost.
    await checkReplaceable(path, expected);
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    if (err instanceof CommitError) throw err;
    throw new CommitError(path, `cannot write: ${describeFsError(err)}`);
  }
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

  /** `display` turns an absolute path into the form error messages show (root-relative). */
  constructor(
    private readonly scan: Pick<ScanResult, 'manifests' | 'companions'>,
    private readonly display: (path: string) => string = (path) => path,
  ) {}

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
      await checkReplaceable(result.path, result.before);
    } catch (err) {
      return { written, error: messageOf(err) };
    }
    // 2. The package.json first, so the import the file gains resolves after an install.
    if (manifest !== undefined && manifestState === undefined) {
      try {
        await writeFileAtomic(manifest.change.path, manifest.change.before, manifest.change.after);
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
        await writeFileAtomic(companion.path, null, companion.content);
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
      await writeFileAtomic(result.path, result.before, result.after);
      written.push(result.path);
    } catch (err) {
      return { written, error: messageOf(err) };
    }
    return { written };
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
