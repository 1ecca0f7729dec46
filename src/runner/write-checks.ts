// What the plans after the analysis look up on disk about each changed file, started as each result
// comes back from the workers and read once every result is in. The main thread has read the tree by
// then and only waits for the workers: the lookups (real paths, repositories, lockfiles, a re-read of
// each changed file) used to start only after the last result, one after another, on the run's path
// to its end. Each is asked once per scan, and the plans decide with the answers they would have looked
// up themselves: what changes is when, not what.
import type { FileResult } from '../model/types.js';
import { getWriteRefusal, resolveWriteBounds, type WriteBounds } from './confine.js';
import { isInside, MAX_SOURCE_BYTES, resolveGitRoot } from './discover.js';
import { InstallProbes, resolveInstallPlan, type InstallPlan, type Manifest } from './manifest.js';
import { readRegularFileSync } from './safe-read.js';
import { resolveWorkspaceRoot } from './workspaces.js';

/** The refusal of a file whose bytes on disk are not the text its rewrite was computed from. */
const NOT_THE_TEXT_READ = 'is not valid UTF-8 text (or changed while it was read); left untouched';

export class WriteChecks {
  /** Where the run may write (confine.ts). */
  readonly bounds: Promise<WriteBounds>;
  private readonly files = new Map<string, { before: string; why: Promise<string | null> }>();
  private readonly manifests = new Map<string, Promise<string | null>>();
  private readonly installs = new Map<string, Promise<InstallPlan>>();
  private readonly probes = new InstallProbes();

  /** `root`: the scanned root (the bounds' and the workspace search's). */
  constructor(private readonly root: string) {
    this.bounds = resolveWriteBounds(root);
    // (awaited only once a result changes a file: a failure before then is met there)
    settle(this.bounds);
  }

  /** Starts what the plans will ask about a result that changes files: its files' refusals, and its package's. */
  prepare(result: FileResult, manifest: Manifest | null): void {
    if (result.after === undefined) return;
    settle(this.getFileRefusal(result.path, result.before));
    for (const related of result.related ?? []) settle(this.getFileRefusal(related.path, related.before));
    if ((result.decision.kind === 'sdk' || result.decision.kind === 'boundary') && manifest !== null && manifest.json !== null) {
      settle(this.getManifestRefusal(manifest.path));
      settle(this.getInstallPlan(manifest.dir));
    }
  }

  /** Why `path` may not be written with a rewrite of `before`: outside its bounds, or not those bytes on disk (null: it may). */
  getFileRefusal(path: string, before: string): Promise<string | null> {
    const known = this.files.get(path);
    if (known !== undefined && known.before === before) return known.why;
    const why = (async () => (await getWriteRefusal(path, (await this.bounds).sources)) ?? (isSameBytes(path, before) ? null : NOT_THE_TEXT_READ))();
    this.files.set(path, { before, why });
    return why;
  }

  /** Why a package.json may not be written (outside the repository), or null. */
  getManifestRefusal(path: string): Promise<string | null> {
    let why = this.manifests.get(path);
    if (why === undefined) this.manifests.set(path, (why = (async () => getWriteRefusal(path, (await this.bounds).manifests))()));
    return why;
  }

  /** Where and with what the package in `dir` installs its new dependency (its workspace root's lockfile, say). */
  getInstallPlan(dir: string): Promise<InstallPlan> {
    let plan = this.installs.get(dir);
    if (plan === undefined) {
      plan = (async () => {
        const gitRoot = await resolveGitRoot(dir);
        const workspace = await resolveWorkspaceRoot(dir, gitRoot ?? (isInside(this.root, dir) ? this.root : dir));
        // A lockfile above the package only manages it when that directory is its workspace root; an
        // unrelated ancestor project (a server kept in a subfolder of another repo) does not install for it.
        const stop = workspace?.root ?? dir;
        return resolveInstallPlan(dir, stop, stop, this.probes);
      })();
      this.installs.set(dir, plan);
    }
    return plan;
  }
}

/** A lookup started ahead: its failure is met by whoever awaits it, not reported as unhandled. */
function settle(pending: Promise<unknown>): void {
  pending.catch(() => undefined);
}

function isSameBytes(path: string, text: string): boolean {
  const read = readRegularFileSync(path, MAX_SOURCE_BYTES * 4);
  return read.kind === 'ok' && read.bytes.equals(Buffer.from(text, 'utf8'));
}
