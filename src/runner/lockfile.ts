// After a run writes a package.json, the package's lockfile no longer matches it: `npm ci` (what CI and a
// pull request's checks run) refuses it. The package manager that owns the lockfile updates it from the
// package.json, without installing anything or running scripts (manifest.ts names the command), once per
// directory. Where that fails (offline, the package manager not installed), the run says which command
// to run there. Deliberately not: editing a lockfile itself (each package manager's format is its own).
import { execFile } from 'node:child_process';
import type { PlannedManifest } from './scan.js';

export type LockfileRunner = (command: readonly string[], dir: string) => Promise<{ ok: true } | { ok: false; reason: string }>;

export interface LockfileUpdate {
  dir: string;
  command: readonly string[];
  /** The package's install command, said when the update failed. */
  installCommand: string;
  outcome: { ok: true } | { ok: false; reason: string };
}

/** How long a lockfile update may take (it resolves versions from the registry). */
const LOCKFILE_TIMEOUT_MS = 300_000;

export const runLockfileCommand: LockfileRunner = (command, dir) =>
  new Promise((resolve) => {
    execFile(command[0]!, command.slice(1), { cwd: dir, timeout: LOCKFILE_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false' } }, (error, _stdout, stderr) => {
      if (error === null) return resolve({ ok: true });
      const detail = String(stderr).trim().split('\n').filter((line) => line.trim() !== '').slice(-2).join(' / ');
      resolve({ ok: false, reason: (error as NodeJS.ErrnoException).code === 'ENOENT' ? `${command[0]} is not installed` : detail || error.message.split('\n')[0]! });
    });
  });

/** Updates the lockfile of every directory whose package.json the run wrote (`written`: absolute paths). */
export async function updateLockfiles(manifests: readonly PlannedManifest[], written: ReadonlySet<string>, run: LockfileRunner): Promise<LockfileUpdate[]> {
  const byDir = new Map<string, PlannedManifest>();
  for (const manifest of manifests) {
    if (manifest.lockfile === undefined || !written.has(manifest.change.path)) continue;
    if (!byDir.has(manifest.installDir)) byDir.set(manifest.installDir, manifest);
  }
  const updates: LockfileUpdate[] = [];
  // one after another: two updates of one workspace's lockfile must not race
  for (const [dir, manifest] of byDir) {
    const command = manifest.lockfile!;
    updates.push({ dir, command, installCommand: manifest.change.installCommand, outcome: await run(command, dir) });
  }
  return updates;
}
