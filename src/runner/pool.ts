// A pool of worker threads running the pipeline, one file per task. Deliberately simple: a FIFO queue,
// one task per worker at a time, workers started as files wait (the first with the first file, more up to
// the pool's size, one core left free, while many wait: QUEUED_PER_NEW_WORKER), and a crashed worker is replaced (its task
// fails, the others go on). Files are read on the main thread; workers only parse and transform.
//
// One file never ends the run: a worker that throws, runs out of its own heap (a worker's out-of-memory
// ends the worker, not the process) or takes longer than TASK_TIMEOUT_MS fails that file only, and is
// replaced. Workers get a WORKER_STACK_MB stack so that deeply nested code is analysed, not overflowed.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FileResult, PipelineOptions } from '../model/types.js';

export interface PoolTask {
  id: number;
  path: string;
  source: string;
  options: PipelineOptions;
}

export type PoolReply = { id: number; result: FileResult } | { id: number; error: string };

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

export interface PoolOptions {
  /** Default TASK_TIMEOUT_MS. */
  taskTimeoutMs?: number;
  /** The machine's cores (default: availableParallelism()); see getWorkerCap. */
  cores?: number;
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
  const url = new URL('./worker.js', import.meta.url);
  return existsSync(fileURLToPath(url)) ? url : null;
}

interface Job {
  task: PoolTask;
  resolve: (result: FileResult) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  busy: Job | null;
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

  const take = (slot: Slot): Job | null => {
    const job = slot.busy;
    slot.busy = null;
    if (slot.timer !== null) clearTimeout(slot.timer);
    slot.timer = null;
    return job;
  };

  const spawn = (): Slot => {
    started++;
    const slot: Slot = { worker: new Worker(workerUrl, { resourceLimits: { stackSizeMb: WORKER_STACK_MB } }), busy: null, timer: null };
    slot.worker.on('message', (reply: PoolReply) => {
      const job = take(slot);
      if (job !== null) {
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

  /** A worker that crashed or hung: its task fails with `err`, and a fresh worker takes its place. */
  const retire = (slot: Slot, err: Error): void => {
    const job = take(slot);
    const index = slots.indexOf(slot);
    if (index !== -1) slots.splice(index, 1);
    job?.reject(err);
    // the queued files go on, on a fresh worker
    if (closing === null) pump();
  };

  /** Hands queued files to idle workers; starts the first worker with the first file, another (up to `size`) when enough files wait. */
  const pump = (): void => {
    while (queue.length > 0) {
      let slot = slots.find((s) => s.busy === null);
      if (slot === undefined) {
        if (slots.length >= cap || (slots.length > 0 && queue.length < QUEUED_PER_NEW_WORKER * slots.length)) return;
        slot = spawn();
        slots.push(slot);
      }
      const job = queue.shift()!;
      const busy = slot;
      busy.busy = job;
      busy.timer = setTimeout(() => {
        retire(busy, new Error(`gave up on this file after ${Math.round(taskTimeoutMs / 1000)} s`));
        void busy.worker.terminate();
      }, taskTimeoutMs);
      busy.worker.postMessage(job.task);
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
      });
    },
    close() {
      if (closing === null) {
        for (const job of queue.splice(0)) job.reject(new Error('the worker pool is closed'));
        closing = Promise.all(
          slots.splice(0).map((slot) => {
            take(slot)?.reject(new Error('the worker pool is closed'));
            return slot.worker.terminate();
          }),
        ).then(() => undefined);
      }
      return closing;
    },
  };
}
