// V8's optimizing compiler (TurboFan) during a scan on worker threads: off while the analysis is short, on
// once it has run long enough to pay for it.
//
// TurboFan compiles hot functions on background threads and pays back over a long run. A scan of a tree
// analyses a few dozen candidates in well under a second while the main thread reads the tree on the other
// core: the compiles compete with both threads and are done as the run ends. On two cores (alternating
// runs) a scan without it took 0.90 s instead of 1.12 s on the bench's real-code tree and 1.79 s instead of
// 1.98 s on its synthetic one; but 150 servers took 5.67 s instead of 5.05 s, and a 1 MB server 5.2 s
// instead of 3.8 s. So it goes off once a pool's first worker has loaded, and on again once the workers
// have analysed for JIT_AFTER_MS in all, a file of JIT_FILE_CHARS characters or more is handed out, or
// JIT_QUEUED files wait at once, and when the pool closes. As switched: the real-code tree 0.99 -> 0.86 s,
// the synthetic one 1.63 -> 1.51 s; 150 servers, one server and a 100 KB server as before.
// Not before the worker has loaded: a change of V8's flags changes their hash, and Node.js's own modules,
// which it loads from a code cache made under the default flags, are compiled again from their sources
// (a worker started after the change took its first file ~40 ms later).
// V8's flags belong to the process (all its threads): `v8.setFlagsFromString` switches it for the workers
// and the main thread at once, and Node.js keeps the flags writable for that call. A process started with
// a flag of its own about V8's compilers is left as it was.
import { setFlagsFromString } from 'node:v8';

/** Analysis time (summed over the workers) after which TurboFan is on again. */
export const JIT_AFTER_MS = 500;
/** A file this long (UTF-16 units: about its bytes) takes long enough on its own for TurboFan to pay (a 100 KB server still ran faster without it). */
export const JIT_FILE_CHARS = 256 * 1024;
/** Files waiting for a worker at once that tell a long run ahead (a tree of many servers, read in a moment). */
export const JIT_QUEUED = 32;

/** The V8 flags that choose the compilers: a process started with one keeps its choice. */
const COMPILER_FLAG = /^--(?:no-)?(?:turbofan|opt|jitless|maglev|sparkplug|always-opt|always-sparkplug|always-turbofan)(?:$|=)/;

/** One pool's view of the switch. */
export interface JitHold {
  /** A worker of the pool has loaded its code: TurboFan goes off, unless the pool has run long enough already. */
  loaded(): void;
  /** A file handed to a worker (its text's length). */
  noteFile(length: number): void;
  /** A worker's time on one file. */
  noteWork(ms: number): void;
  /** How many files wait for a worker now. */
  noteQueue(length: number): void;
  /** The pool closes: TurboFan is on again once no pool holds it. */
  release(): void;
}

/** What the switch needs of the process: exported for tests. */
export interface JitControl {
  setFlags(flags: string): void;
  /** The process's own command-line flags (process.execArgv) and NODE_OPTIONS. */
  startFlags: readonly string[];
}

const processControl: JitControl = {
  setFlags: setFlagsFromString,
  get startFlags() {
    return [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/)];
  },
};

/** TurboFan's state in this process: off only while a pool holds the switch and has not run long enough. */
export class JitSwitch {
  private holds = 0;
  private off = false;

  constructor(private readonly control: JitControl = processControl) {}

  /** A pool starts its first worker. */
  hold(): JitHold {
    this.holds++;
    let long = false;
    let work = 0;
    let released = false;
    const ranLong = (): void => {
      long = true;
      this.resume();
    };
    return {
      loaded: () => {
        if (!long && !released) this.pause();
      },
      noteFile: (length) => {
        if (length >= JIT_FILE_CHARS) ranLong();
      },
      noteWork: (ms) => {
        work += ms;
        if (work >= JIT_AFTER_MS) ranLong();
      },
      noteQueue: (length) => {
        if (length >= JIT_QUEUED) ranLong();
      },
      release: () => {
        if (released) return;
        released = true;
        this.holds--;
        if (this.holds === 0) this.resume();
      },
    };
  }

  /** Whether this switch has TurboFan off now. */
  get paused(): boolean {
    return this.off;
  }

  private pause(): void {
    if (this.off || this.control.startFlags.some((flag) => COMPILER_FLAG.test(flag))) return;
    this.control.setFlags('--no-turbofan');
    this.off = true;
  }

  private resume(): void {
    if (!this.off) return;
    this.control.setFlags('--turbofan');
    this.off = false;
  }
}

/** The process's switch (V8's flags are the process's). */
export const jit = new JitSwitch();
