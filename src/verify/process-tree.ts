// The processes a server under `verify` brought into the world, so that stopping it stops them all.
// Killing the server's process group is not enough: a grandchild started with `setsid` (or `detached`)
// has a group of its own, and one that keeps the server's stdout open keeps the pipe from ever ending.
// On Linux, /proc tells both: the descendants (by parent pid, collected while the server runs, since an
// orphan is re-parented to init the moment its parent dies) and every process that still holds one of
// the server's stdio channels (whoever its parent now is). Elsewhere both lists are empty and the process
// group is all there is.
//
// A process is named with its start time as well as its pid, so that a pid the system has reused for an
// unrelated process by the time it is signalled is left alone.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ProcessRef {
  pid: number;
  /** Field 22 of /proc/<pid>/stat: start time in clock ticks since boot. */
  start: string;
}

const HAS_PROC = process.platform === 'linux';

interface ProcStat {
  ppid: number;
  /** Field 6: the session id (the server is spawned detached: a session of its own, its pid). */
  session: number;
  start: string;
}

/** Fields of /proc/<pid>/stat after the command name (which may itself hold spaces and parentheses). */
function readStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): ppid is field 4, starttime field 22.
  if (fields[0] === 'Z' || fields[0] === 'X') return null;
  return { ppid: Number(fields[1]), session: Number(fields[3]), start: fields[19] ?? '' };
}

function listPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

/** The living descendants of `root` (children, their children, ...), not `root` itself. */
export function findDescendants(root: number): ProcessRef[] {
  if (!HAS_PROC) return [];
  const children = new Map<number, ProcessRef[]>();
  for (const pid of listPids()) {
    const stat = readStat(pid);
    if (stat === null) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push({ pid, start: stat.start });
    children.set(stat.ppid, list);
  }
  const found: ProcessRef[] = [];
  const queue = [root];
  const seen = new Set<number>([root]);
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/**
 * `socket:[<inode>]` (what Node.js gives a child for a 'pipe' stdio on Linux: a socket pair) or
 * `pipe:[<inode>]` for each of fds 0-2 of `pid`, read right after spawn, while they are still ours.
 */
export function getStdioPipes(pid: number): string[] {
  if (!HAS_PROC) return [];
  const pipes: string[] = [];
  for (const fd of [0, 1, 2]) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target.startsWith('pipe:') || target.startsWith('socket:')) pipes.push(target);
    } catch {
      // gone already, or not ours to look at
    }
  }
  return pipes;
}

/** Every living process but this one that has one of `pipes` open (processes of other users cannot be read and are not ours anyway). */
export function findPipeHolders(pipes: readonly string[]): ProcessRef[] {
  if (!HAS_PROC || pipes.length === 0) return [];
  const wanted = new Set(pipes);
  const found: ProcessRef[] = [];
  for (const pid of listPids()) {
    if (pid === process.pid) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    const holds = fds.some((fd) => {
      try {
        return wanted.has(readlinkSync(`/proc/${pid}/fd/${fd}`));
      } catch {
        return false;
      }
    });
    if (!holds) continue;
    const stat = readStat(pid);
    if (stat !== null) found.push({ pid, start: stat.start });
  }
  return found;
}

/** Whether `ref` still names the same living process. */
export function isAlive(ref: ProcessRef): boolean {
  if (!HAS_PROC) return false;
  const stat = readStat(ref.pid);
  return stat !== null && stat.start === ref.start;
}

/** Sends `signal` to each process of `refs` that is still the one recorded. */
export function signalProcesses(refs: Iterable<ProcessRef>, signal: NodeJS.Signals): void {
  for (const ref of refs) {
    if (!isAlive(ref)) continue;
    try {
      process.kill(ref.pid, signal);
    } catch {
      // gone in between, or not ours
    }
  }
}

/**
 * Every living process but this one in session `session`, or whose environment holds `marker`
 * (`NAME=value`, set in the server's environment at spawn and inherited by everything it starts). A
 * daemon that double-forks and calls setsid leaves the session and the process tree, and closes the
 * stdio pipes; it keeps the environment it was started with. Only this user's processes can be read.
 */
export function findByMarker(session: number | undefined, marker: string): ProcessRef[] {
  if (!HAS_PROC) return [];
  const wanted = Buffer.from(`${marker}\0`);
  const found: ProcessRef[] = [];
  for (const pid of listPids()) {
    if (pid === process.pid) continue;
    const stat = readStat(pid);
    if (stat === null) continue;
    let holds = session !== undefined && stat.session === session;
    if (!holds) {
      try {
        const environ = readFileSync(`/proc/${pid}/environ`);
        holds = environ.indexOf(wanted) !== -1 || (environ.length >= wanted.length - 1 && environ.subarray(environ.length - wanted.length + 1).equals(wanted.subarray(0, -1)));
      } catch {
        continue;
      }
    }
    if (holds) found.push({ pid, start: stat.start });
  }
  return found;
}
