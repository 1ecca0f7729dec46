// Runs one command and measures its wall time and the peak resident memory of its whole process tree.
//
// Memory comes from two sources, and the larger is reported:
//  - polling /proc: every `pollMs` the RSS of every descendant process is summed (worker threads share
//    their process's RSS, child processes such as jscodeshift's workers or a grep pipeline are added);
//  - `/usr/bin/time -f %M` (when installed): the peak RSS of the largest single process, which catches
//    a spike shorter than the polling interval.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TIME_BIN = '/usr/bin/time';
const HAS_TIME = existsSync(TIME_BIN);
const PAGE_SIZE = (() => {
  try {
    return Number(execFileSync('getconf', ['PAGESIZE'], { encoding: 'utf8' }).trim()) || 4096;
  } catch {
    return 4096;
  }
})();

/** pid -> { ppid, rssBytes } for every process visible in /proc. */
function readProcessTable() {
  const table = new Map();
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return table;
  }
  for (const name of entries) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): ppid is field 4, rss (pages) is field 24.
    table.set(Number(name), { ppid: Number(fields[1]), rssBytes: Number(fields[21]) * PAGE_SIZE });
  }
  return table;
}

/** Summed RSS of the descendants of `rootPid` (not counting rootPid itself when `excludeRoot`). */
function treeRss(rootPid, excludeRoot) {
  const table = readProcessTable();
  const children = new Map();
  for (const [pid, { ppid }] of table) {
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(pid);
  }
  let total = 0;
  let count = 0;
  const stack = [rootPid];
  while (stack.length > 0) {
    const pid = stack.pop();
    const info = table.get(pid);
    if (info && !(excludeRoot && pid === rootPid)) {
      total += info.rssBytes;
      count++;
    }
    for (const child of children.get(pid) ?? []) stack.push(child);
  }
  return { total, count };
}

/**
 * Runs `command args` and resolves with
 * { exitCode, signal, wallSeconds, cpuSeconds (null without /usr/bin/time), peakMB, polledPeakMB, maxProcessMB, maxProcesses, stdout, stderr }.
 */
export function runMeasured(command, args, { cwd, env, pollMs = 50, captureStdout = true } = {}) {
  const scratch = HAS_TIME ? mkdtempSync(join(tmpdir(), 'mcp-bench-time-')) : null;
  const timeOut = scratch ? join(scratch, 'time.txt') : null;
  const [bin, argv] = HAS_TIME ? [TIME_BIN, ['-f', '%e %M %U %S', '-o', timeOut, command, ...args]] : [command, args];
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(bin, argv, { cwd, env: env ?? process.env, stdio: ['ignore', captureStdout ? 'pipe' : 'ignore', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout?.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    let polledPeak = 0;
    let maxProcesses = 0;
    const poll = () => {
      const { total, count } = treeRss(child.pid, HAS_TIME);
      if (total > polledPeak) polledPeak = total;
      if (count > maxProcesses) maxProcesses = count;
    };
    const timer = setInterval(poll, pollMs);
    child.on('error', (e) => {
      clearInterval(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearInterval(timer);
      const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      let maxProcessKB = 0;
      let cpuSeconds = null;
      let exitCode = code;
      if (timeOut) {
        try {
          const text = readFileSync(timeOut, 'utf8').trim().split('\n');
          // GNU time prefixes "Command exited with non-zero status N" on its own line.
          const last = text[text.length - 1].split(' ');
          maxProcessKB = Number(last[1]) || 0;
          // user + system time of the command and every descendant it waited for (all threads included).
          if (last.length >= 4) cpuSeconds = Number(last[2]) + Number(last[3]);
        } catch {
          // time could not write its report (killed): leave 0
        }
        rmSync(scratch, { recursive: true, force: true });
      }
      const polledPeakMB = polledPeak / 1048576;
      const maxProcessMB = maxProcessKB / 1024;
      resolve({
        exitCode,
        signal,
        wallSeconds,
        cpuSeconds,
        peakMB: Math.max(polledPeakMB, maxProcessMB),
        polledPeakMB,
        maxProcessMB,
        maxProcesses,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
}

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
