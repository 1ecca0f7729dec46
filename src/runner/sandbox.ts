// The trial of the proof: where the original and the migrated server run side by side, and what they may
// touch. By construction, not by checks after the fact:
//   - writes: Node's permission model (`--permission`, `--experimental-permission` on Node 20) lets the
//     servers write only inside the trial folder; the flags go in NODE_OPTIONS, so every Node process the
//     server starts (tsx's own child included) is confined the same way. Native addons do not load under
//     it (a server that needs one is not proven, and says why); a program the server starts that is not
//     Node is not confined by it (said in the README).
//   - network: Node's permission model does not cover it; a module required first in every Node process
//     of the trial (NODE_OPTIONS) fails each outgoing connection but to a local socket path (tsx's own
//     IPC), as a refused connection does: what a tool body called by the probes tries, fails there.
//   - environment: HOME, USERPROFILE, XDG_*, TMPDIR/TMP/TEMP and PWD point into the trial.
//   - the copy: symbolic links are copied as they are (relative stays relative); one that leads out of
//     the package is replaced by a copy of what it points to, or left out when that is too large, since
//     Node's permission model follows links. `node_modules` is a folder of links to the installed
//     packages, without their caches (`.cache`, `.vite`, ...): a cache a server writes lands in the trial.
//     The copy lies where the package lies below the repository (or the scanned folder), among links to
//     what surrounds it there (placeInSurroundings): what the package reads beside it is read in place.
//   - leftovers: each trial folder says which run owns it, and every server of it carries the folder in
//     its environment; a run removes the trials (and kills the servers) of runs that no longer exist.
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { findByMarker, signalProcesses } from '../verify/process-tree.js';
import { isInside } from './discover.js';

/** The prefix of every trial folder in the temp folder. */
export const TRIAL_PREFIX = 'mcp-migrate-verify-';
/** In every server's environment: the trial folder it belongs to. */
const TRIAL_MARKER = 'MCP_MIGRATE_TRIAL';
const OWNER_FILE = '.mcp-migrate-owner.json';
/** The most a link out of the package may bring into the trial as a copy. */
const MAX_LINK_COPY_BYTES = 10 * 1024 * 1024;
const MAX_LINK_COPY_FILES = 1_000;

export interface Trial {
  root: string;
  home: string;
  tmp: string;
  /** The module every Node process of the trial requires first: no outgoing connection. */
  guard: string;
}

const NET_GUARD_FILE = '.mcp-migrate-no-network.cjs';
/** (a CommonJS module written into each trial: required with --require before the server's code) */
const NET_GUARD = `'use strict';
// mcp-migrate's proof runs this server in a trial copy: it may not reach the network. Every outgoing
// connection but one to a local socket path fails as a refused connection would (asynchronously).
const net = require('node:net');
const connect = net.Socket.prototype.connect;
function isLocalPath(args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (typeof first === 'string') return !/^[0-9]+$/.test(first);
  return first !== null && typeof first === 'object' && typeof first.path === 'string';
}
net.Socket.prototype.connect = function (...args) {
  if (isLocalPath(args)) return connect.apply(this, args);
  const error = Object.assign(new Error('connect ECONNREFUSED: mcp-migrate\\'s proof allows no network access'), { code: 'ECONNREFUSED', syscall: 'connect' });
  process.nextTick(() => this.destroy(error));
  return this;
};
if (typeof globalThis.fetch === 'function') {
  globalThis.fetch = async () => {
    throw Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error("mcp-migrate's proof allows no network access"), { code: 'ECONNREFUSED' }) });
  };
}
`;

/** A new trial folder in the temp folder, marked as this run's. */
export async function createTrial(): Promise<Trial> {
  // (its real path: the permission model's allow-list is compared with resolved paths, and the temp
  // folder is a link on some systems, /var -> /private/var on macOS)
  const root = realpathSync(await mkdtemp(join(tmpdir(), TRIAL_PREFIX)));
  await writeFile(join(root, OWNER_FILE), JSON.stringify({ pid: process.pid, host: hostname(), started: Date.now() }) + '\n');
  const trial = { root, home: join(root, 'home'), tmp: join(root, 'tmp'), guard: join(root, NET_GUARD_FILE) };
  await Promise.all([mkdir(trial.home), mkdir(trial.tmp), writeFile(trial.guard, NET_GUARD)]);
  return trial;
}

/** The Node flags that confine writes to `writable`, or null when this Node has no permission model. */
export function getConfinementFlags(writable: string): string[] | null {
  const known = process.allowedNodeEnvironmentFlags;
  const permission = known.has('--permission') ? '--permission' : known.has('--experimental-permission') ? '--experimental-permission' : null;
  if (permission === null) return null;
  const flags = [permission, '--allow-fs-read=*', `--allow-fs-write=${quote(writable)}`, '--allow-child-process', '--allow-worker'];
  if (known.has('--disable-warning')) flags.push('--disable-warning=ExperimentalWarning', '--disable-warning=SecurityWarning');
  return flags;
}

function quote(path: string): string {
  return /[\s"\\]/.test(path) ? `"${path.replace(/(["\\])/g, '\\$1')}"` : path;
}

/** The environment of a server run in the trial, started in `cwd`. */
export function getTrialEnv(env: NodeJS.ProcessEnv, trial: Trial, cwd: string): NodeJS.ProcessEnv {
  const flags = getConfinementFlags(trial.root);
  const options = [env['NODE_OPTIONS'] ?? '', ...(flags ?? []), `--require=${quote(trial.guard)}`].filter((part) => part !== '').join(' ');
  return {
    ...env,
    HOME: trial.home,
    USERPROFILE: trial.home,
    XDG_CONFIG_HOME: join(trial.home, '.config'),
    XDG_CACHE_HOME: join(trial.home, '.cache'),
    XDG_DATA_HOME: join(trial.home, '.local', 'share'),
    XDG_STATE_HOME: join(trial.home, '.local', 'state'),
    TMPDIR: trial.tmp,
    TMP: trial.tmp,
    TEMP: trial.tmp,
    PWD: cwd,
    [TRIAL_MARKER]: trial.root,
    NODE_OPTIONS: options,
  };
}

/** Whether the servers' writes are confined to the trial on this Node. */
export function isConfined(): boolean {
  return getConfinementFlags('/') !== null;
}

/**
 * Copies the package into the trial: links as they are, except those that lead out of the package,
 * which are replaced by a copy of their target (left out when it is missing or too large).
 */
export async function copyPackage(packageDir: string, dir: string, skipped: ReadonlySet<string>): Promise<void> {
  const links: string[] = [];
  await cp(packageDir, dir, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (source) => {
      if (source !== packageDir && skipped.has(basename(source))) return false;
      if (source !== packageDir && lstatSync(source, { throwIfNoEntry: false })?.isSymbolicLink() === true) links.push(source);
      return true;
    },
  });
  for (const link of links) {
    const target = resolve(dirname(link), readlinkSync(link));
    if (isInside(packageDir, target) && !isAbsolute(readlinkSync(link))) continue;
    const copy = join(dir, relative(packageDir, link));
    await unlink(copy).catch(() => undefined);
    // inside the package but absolute: the same link, relative, so it points into the trial
    if (isInside(packageDir, target)) {
      await symlink(relative(dirname(link), target) || '.', copy).catch(() => undefined);
      continue;
    }
    if (fitsCopy(target)) await cp(target, copy, { recursive: true, dereference: true }).catch(() => undefined);
  }
}

/**
 * The folder of the package's copy below a trial side (`side`), with the package's surroundings around
 * it: from `anchor` (the repository, or the scanned folder) down to the package, each folder on the way
 * holds links to what the real one holds besides the way down (the `tsconfig.json` the package's config
 * extends, a sibling package a relative import reaches), so that the copy runs as the package does where
 * it lies. They are read where they are; Node's permission model refuses writes through them, as it does
 * anything outside the trial. `.git` and `node_modules` are not linked: a git the server starts would find
 * the real repository (and is not confined), and the installed packages reach the copy by its own
 * node_modules. A package that is the anchor, or lies outside it, is copied on its own as before.
 */
export async function placeInSurroundings(anchor: string, packageDir: string, side: string): Promise<string> {
  const [top, pkg] = [realpathSafe(anchor), realpathSafe(packageDir)];
  if (top === pkg || !isInside(top, pkg)) return join(side, basename(packageDir));
  const steps = relative(top, pkg).split(/[\\/]/);
  let real = top;
  let mirror = side;
  for (const step of steps) {
    await mkdir(mirror, { recursive: true });
    for (const name of safeReaddir(real)) {
      if (name === step || name === '.git' || name === 'node_modules') continue;
      await symlink(join(real, name), join(mirror, name)).catch(() => undefined);
    }
    real = join(real, step);
    mirror = join(mirror, step);
  }
  return mirror;
}

/** `path` with its links resolved, or as it is when it does not exist. */
export function realpathSafe(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The names in `dir`, none when it cannot be read. */
export function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** A link target small enough to copy into the trial. */
function fitsCopy(target: string): boolean {
  let files = 0;
  let bytes = 0;
  const stack = [target];
  while (stack.length > 0) {
    const path = stack.pop()!;
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat === undefined) return false;
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) stack.push(join(path, name));
      continue;
    }
    files++;
    bytes += stat.size;
    if (files > MAX_LINK_COPY_FILES || bytes > MAX_LINK_COPY_BYTES) return false;
  }
  return true;
}

/** An entry of an installed node_modules that the trial does not link: caches the servers may write. */
export function isNodeModulesCache(name: string): boolean {
  return name.startsWith('.') && name !== '.pnpm' && name !== '.bin';
}

/**
 * Removes the trials left by runs that no longer exist (killed with SIGKILL, a machine that went down)
 * and stops the servers still running in them. Returns how many were removed.
 */
export async function removeStaleTrials(): Promise<number> {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(tmpdir()).filter((name) => name.startsWith(TRIAL_PREFIX));
  } catch {
    return 0;
  }
  for (const name of names) {
    let root = join(tmpdir(), name);
    try {
      root = realpathSync(root);
    } catch {
      continue;
    }
    const owner = readOwner(root);
    if (owner === null || owner.host !== hostname() || isRunning(owner.pid)) continue;
    signalProcesses(findByMarker(undefined, `${TRIAL_MARKER}=${root}`), 'SIGKILL');
    await rm(root, { recursive: true, force: true }).catch(() => undefined);
    if (!existsSync(root)) removed++;
  }
  return removed;
}

function readOwner(root: string): { pid: number; host: string } | null {
  try {
    const owner = JSON.parse(readFileSync(join(root, OWNER_FILE), 'utf8')) as { pid?: unknown; host?: unknown };
    return typeof owner.pid === 'number' && typeof owner.host === 'string' ? { pid: owner.pid, host: owner.host } : null;
  } catch {
    return null;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
