// A pool of worker threads running the pipeline, one file per task. Deliberately simple: a FIFO queue,
// each worker holding the file it runs and the next one (IN_FLIGHT_PER_WORKER), workers started as files
// wait (the first with the first file, more up to the pool's size, one core left free, while many wait:
// QUEUED_PER_NEW_WORKER), and a crashed worker is replaced (its running task fails, the file it held next
// goes back to the queue, the others go on). Files are read on the main thread; workers only parse and
// transform.
//
// One file never ends the run: a worker that throws, runs out of its own heap (a worker's out-of-memory
// ends the worker, not the process) or takes longer than TASK_TIMEOUT_MS on one file fails that file only,
// and is replaced. Workers get a WORKER_STACK_MB stack so that deeply nested code is analysed, not overflowed.
// V8's optimizing compiler is held off from when the first worker has loaded until the pool's analysis has
// run long enough to pay for it (jit.ts).
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FileResult, PipelineOptions } from '../model/types.js';
import { jit as processJit, type JitHold, type JitSwitch } from './jit.js';

export interface PoolTask {
  id: number;
  path: string;
  source: string;
  options: PipelineOptions;
}

/** `ms`: the worker's time on the file (the JIT switch counts it: jit.ts). */
export type PoolReply = ({ id: number; result: FileResult } | { id: number; error: string }) & { ms: number };
/** What a worker posts: a reply, or, once, that it has loaded its code. */
export type WorkerMessage = PoolReply | { loaded: true };

/** Stack of each worker (the default is 4 MB): deep nesting costs stack in every recursive phase. */
export const WORKER_STACK_MB = 32;
/** One file longer than this on a worker is given up on (the largest hand-written servers take a few seconds). */
export const TASK_TIMEOUT_MS = 120_000;

/**
 * Another worker starts only when this many files wait for each worker running. A worker pays ~0.25 s to
 * load the parser and its first files run several times slower than warm ones (the JIT has not compiled
 * the analysis yet): for a few dozen candidates one warm worker beats two cold ones (`npm run bench`,
 * the real-code tree: 21 candidates, 0.6 s more with two workers).
 */
export const QUEUED_PER_NEW_WORKER = 32;

/**
 * Files a worker holds at once: the one it runs and the next. The main thread hands out a file when it
 * gets to a worker's reply, and while it reads the tree it gets to replies between slices of reading
 * (scan.ts's YIELD_EVERY_MS): a worker holding one file waited up to that long after each.
 */
export const IN_FLIGHT_PER_WORKER = 2;

export interface PoolOptions {
  /** Default TASK_TIMEOUT_MS. */
  taskTimeoutMs?: number;
  /** The machine's cores (default: availableParallelism()); see getWorkerCap. */
  cores?: number;
  /** TurboFan's switch (default: the process's; jit.ts): held from the first worker's start; off once a worker has loaded, until the pool has run long enough or closes. */
  jit?: Pick<JitSwitch, 'hold'>;
}

/**
 * How many workers may run at once: one core is left to the main thread (it reads the tree) and to the
 * garbage collectors' helper threads, which a single worker keeps busy. On two cores a second worker
 * made every run slower (the bench's real-code and synthetic trees, and 289 servers at once: 5.9 s with
 * two workers, 5.3-5.6 s with one); `size` caps it further.
 */
function getWorkerCap(size: number, cores: number): number {
  return Math.max(1, Math.min(size, cores - 1));
}

export interface WorkerPool {
  run(path: string, source: string, options: PipelineOptions): Promise<FileResult>;
  /** Starts the first worker now (it loads the pipeline), before any file is queued. */
  start(): void;
  /** How many workers have been started so far (replacements of crashed ones included). */
  readonly started: number;
  /** Stops the workers (queued and running files fail); every call resolves once they are gone. */
  close(): Promise<void>;
}

/** The compiled worker next to this module, or null when running from sources (tests): then process inline. */
export function getWorkerUrl(): URL | null {
  const file = pickWorkerFile(fileURLToPath(new URL('.', import.meta.url)));
  return file === null ? null : pathToFileURL(file);
}

/**
 * The words that name a worker bundle, before its id: the bundle's first line and the compiled
 * worker.js's last line (scripts/build/bundle-worker.mjs writes both).
 */
export const BUNDLE_MARK = '// mcp-migrate worker bundle';

/**
 * The worker in `dir`: its one-file bundle (worker.cjs, written by `npm run build` after tsc:
 * scripts/build/bundle-worker.mjs) while the compiled worker.js names it; else worker.js (a tsc run alone
 * rewrites worker.js without the name: the bundle would run the modules as they were); null when there
 * is no compiled worker (running from sources).
 */
export function pickWorkerFile(dir: string): string | null {
  const modules = join(dir, 'worker.js');
  const compiled = readTextSync(modules);
  if (compiled === undefined) return null;
  const named = compiled.split('\n').find((line) => line.startsWith(`${BUNDLE_MARK} `));
  if (named === undefined) return modules;
  const bundle = join(dir, 'worker.cjs');
  // (the line ends the id with a colon: `// mcp-migrate worker bundle 0123abcd: worker.cjs holds ...`)
  const firstLine = `${named.split(':')[0]}\n`;
  return readTextSync(bundle, Buffer.byteLength(firstLine)) === firstLine ? bundle : modules;
}

/** A file's text (its first `bytes` only, when given), or undefined when it cannot be read. */
function readTextSync(path: string, bytes?: number): string | undefined {
  try {
    if (bytes === undefined) return readFileSync(path, 'utf8');
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(bytes);
      return buffer.subarray(0, readSync(fd, buffer, 0, bytes, 0)).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

interface Job {
  task: PoolTask;
  resolve: (result: FileResult) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  /** The files posted to the worker, in the order it takes them: the first is the one it runs. */
  held: Job[];
  /** The running file's timeout. */
  timer: NodeJS.Timeout | null;
}

export function createWorkerPool(size: number, workerUrl: URL, options: PoolOptions = {}): WorkerPool {
  const taskTimeoutMs = options.taskTimeoutMs ?? TASK_TIMEOUT_MS;
  const cap = getWorkerCap(size, options.cores ?? availableParallelism());
  const queue: Job[] = [];
  const slots: Slot[] = [];
  let nextId = 0;
  /** The workers' termination, once close() is called (a second call waits for the same). */
  let closing: Promise<void> | null = null;
  let started = 0;
  let jit: JitHold | null = null;

  /** Times the file the worker runs now (the first it holds), from when it starts it. */
  const time = (slot: Slot): void => {
    if (slot.timer !== null) clearTimeout(slot.timer);
    slot.timer = null;
    if (slot.held.length === 0) return;
    slot.timer = setTimeout(() => {
      retire(slot, new Error(`gave up on this file after ${Math.round(taskTimeoutMs / 1000)} s`));
      void slot.worker.terminate();
    }, taskTimeoutMs);
  };

  const spawn = (): Slot => {
    started++;
    jit ??= (options.jit ?? processJit).hold();
    const slot: Slot = { worker: new Worker(workerUrl, { resourceLimits: { stackSizeMb: WORKER_STACK_MB } }), held: [], timer: null };
    slot.worker.on('message', (reply: WorkerMessage) => {
      if ('loaded' in reply) {
        jit?.loaded();
        return;
      }
      const job = slot.held.shift();
      time(slot);
      jit?.noteWork(reply.ms);
      if (job !== undefined) {
        if ('result' in reply) job.resolve(reply.result);
        else job.reject(new Error(reply.error));
      }
      pump();
    });
    slot.worker.on('error', (err) => retire(slot, err));
    slot.worker.on('exit', (code) => {
      if (closing === null && slots.includes(slot)) retire(slot, new Error(`worker exited with code ${code}`));
    });
    return slot;
  };

  /**
   * A worker that crashed or hung: the file it ran fails with `err`, the file it held next (never started)
   * goes back to the front of the queue, and a fresh worker takes its place.
   */
  const retire = (slot: Slot, err: Error): void => {
    const [running, ...next] = slot.held.splice(0);
    time(slot);
    const index = slots.indexOf(slot);
    if (index !== -1) slots.splice(index, 1);
    queue.unshift(...next);
    running?.reject(err);
    if (closing === null) pump();
  };

  const post = (slot: Slot, job: Job): void => {
    jit?.noteFile(job.task.source.length);
    slot.held.push(job);
    if (slot.held.length === 1) time(slot);
    slot.worker.postMessage(job.task);
  };

  /**
   * Hands queued files to workers: an idle worker first; else a new worker (up to `size`) when enough
   * files wait; else a worker that holds fewer than IN_FLIGHT_PER_WORKER.
   */
  const pump = (): void => {
    while (queue.length > 0) {
      let slot = slots.find((s) => s.held.length === 0);
      if (slot === undefined && slots.length < cap && (slots.length === 0 || queue.length >= QUEUED_PER_NEW_WORKER * slots.length)) {
        slot = spawn();
        slots.push(slot);
      }
      slot ??= slots.find((s) => s.held.length < IN_FLIGHT_PER_WORKER);
      if (slot === undefined) return;
      post(slot, queue.shift()!);
    }
  };

  return {
    start() {
      if (closing === null && slots.length === 0) slots.push(spawn());
    },
    get started() {
      return started;
    },
    run(path, source, options) {
      if (closing !== null) return Promise.reject(new Error('the worker pool is closed'));
      return new Promise<FileResult>((resolve, reject) => {
        queue.push({ task: { id: nextId++, path, source, options }, resolve, reject });
        pump();
        jit?.noteQueue(queue.length);
      });
    },
    close() {
      if (closing === null) {
        jit?.release();
        for (const job of queue.splice(0)) job.reject(new Error('the worker pool is closed'));
        closing = Promise.all(
          slots.splice(0).map((slot) => {
            for (const job of slot.held.splice(0)) job.reject(new Error('the worker pool is closed'));
            time(slot);
            return slot.worker.terminate();
          }),
        ).then(() => undefined);
      }
      return closing;
    },
  };
}
