// `verify --compare-ref REF`: the original server as committed at REF, in a temporary folder. The
// whole repository tree at REF is exported there (`git archive REF | tar -x`: no worktree metadata is
// left in the repository, even when the run is killed), so a server that imports sibling modules, reads
// its package.json or a data file finds them as they were. The installed packages are not in git: every
// `node_modules` on the way from the repository's top to the directories the command names is linked in.
// Returns data; the caller prints. Deliberately read-only on the user's repository.
import { execFile, spawn } from 'node:child_process';
import { lstat, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { isInside } from './discover.js';
import { SAFE_GIT_CONFIG } from './git.js';

export interface RefCheckout {
  /** The exported tree's top (the repository's top at REF). */
  dir: string;
  /** `cwd`'s counterpart inside it. */
  cwd: string;
  /** The command with every argument that names a path inside the repository pointed into the checkout. */
  command: string[];
  /** The commit REF named. */
  commit: string;
  remove(): Promise<void>;
}

export type RefCheckoutResult = { kind: 'ok'; checkout: RefCheckout } | { kind: 'error'; message: string };

export async function checkoutRef(cwd: string, ref: string, command: readonly string[]): Promise<RefCheckoutResult> {
  const top = await git(cwd, ['rev-parse', '--show-toplevel']).catch(() => null);
  if (top === null) return { kind: 'error', message: `--compare-ref needs a git work tree, and ${cwd} is not inside one` };
  const commit = await git(cwd, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).catch(() => null);
  if (commit === null) return { kind: 'error', message: `unknown git ref "${ref}" (no such branch, tag or commit)` };
  const dir = await mkdtemp(join(tmpdir(), 'mcp-migrate-ref-'));
  const remove = (): Promise<void> => rm(dir, { recursive: true, force: true });
  try {
    await exportTree(top, commit, dir);
  } catch (err) {
    await remove();
    return { kind: 'error', message: `could not export ${ref}: ${err instanceof Error ? err.message : String(err)}` };
  }
  const inside = (path: string): string => join(dir, relative(top, path));
  const mapped = command.map((arg, i) => (i > 0 && isAbsolute(arg) && isInside(top, arg) ? inside(arg) : arg));
  // node_modules of the top, of cwd's ancestors, and of the directories the arguments name
  const places = [cwd, ...command.slice(1).filter((arg) => !arg.startsWith('-')).map((arg) => dirname(resolve(cwd, arg)))];
  const linked = new Set<string>();
  for (const place of places) {
    if (!isInside(top, place)) continue;
    for (let at = place; ; at = dirname(at)) {
      if (!linked.has(at)) {
        linked.add(at);
        const modules = join(at, 'node_modules');
        const target = inside(modules);
        if ((await exists(modules)) && (await exists(dirname(target))) && !(await exists(target))) await symlink(modules, target, 'dir').catch(() => undefined);
      }
      if (at === top || dirname(at) === at) break;
    }
  }
  return { kind: 'ok', checkout: { dir, cwd: inside(cwd), command: mapped, commit, remove } };
}

function git(cwd: string, args: readonly string[]): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile('git', [...SAFE_GIT_CONFIG, '-C', cwd, ...args], { encoding: 'utf8' }, (err, stdout) => (err ? reject(err) : resolvePromise(stdout.trim())));
  });
}

/** `git archive <commit> | tar -x -C <dir>`. */
function exportTree(top: string, commit: string, dir: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const archive = spawn('git', [...SAFE_GIT_CONFIG, '-C', top, 'archive', '--format=tar', commit], { stdio: ['ignore', 'pipe', 'pipe'] });
    const tar = spawn('tar', ['-x', '-f', '-', '-C', dir], { stdio: ['pipe', 'ignore', 'pipe'] });
    let errors = '';
    archive.stderr.on('data', (chunk: Buffer) => void (errors += chunk.toString()));
    tar.stderr.on('data', (chunk: Buffer) => void (errors += chunk.toString()));
    archive.stdout.pipe(tar.stdin);
    let pending = 2;
    let failed = false;
    const done = (code: number | null): void => {
      if (code !== 0) failed = true;
      if (--pending === 0) (failed ? reject(new Error(errors.trim() || 'git archive or tar failed')) : resolvePromise());
    };
    archive.on('error', reject);
    tar.on('error', reject);
    archive.on('close', done);
    tar.on('close', done);
  });
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}
