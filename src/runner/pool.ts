// A fixed pool of worker threads running the pipeline, one file per task. Deliberately simple: a
// FIFO queue, one task per worker at a time, and a crashed worker is replaced (its task fails, the
// others go on). Files are read on the main thread; workers only parse and transform.
import { existsSync } from 'node:fs';
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

export interface WorkerPool {
  run(path: string, source: string, options: PipelineOptions): Promise<FileResult>;
  close(): Promise<void>;
}

/** The compiled worker next to this module, or null when running from sources (tests): then process inline. */
export function getWorkerUrl(): URL | null {
  const url = new URL('./worker.js', import.meta.url);
  return existsSync(fileURLToPath(url)) ? url : null;
}

interface Slot {
  worker: Worker;
  busy: { task: PoolTask; resolve: (result: FileResult) => void; reject: (err: Error) => void } | null;
}

export function createWorkerPool(size: number, workerUrl: URL): WorkerPool {
  const queue: { task: PoolTask; resolve: (result: FileResult) => void; reject: (err: Error) => void }[] = [];
  const slots: Slot[] = [];
  let nextId = 0;
  let closed = false;

  const spawn = (): Slot => {
    const slot: Slot = { worker: new Worker(workerUrl), busy: null };
    slot.worker.on('message', (reply: PoolReply) => {
      const job = slot.busy;
      slot.busy = null;
      if (job !== null) {
        if ('result' in reply) job.resolve(reply.result);
        else job.reject(new Error(reply.error));
      }
      pump();
    });
    const fail = (err: Error): void => {
      const job = slot.busy;
      slot.busy = null;
      const index = slots.indexOf(slot);
      if (index !== -1) slots.splice(index, 1);
      job?.reject(err);
      if (!closed) {
        slots.push(spawn());
        pump();
      }
    };
    slot.worker.on('error', fail);
    slot.worker.on('exit', (code) => {
      if (!closed && slots.includes(slot)) fail(new Error(`worker exited with code ${code}`));
    });
    return slot;
  };

  const pump = (): void => {
    for (const slot of slots) {
      if (slot.busy !== null) continue;
      const job = queue.shift();
      if (job === undefined) return;
      slot.busy = job;
      slot.worker.postMessage(job.task);
    }
  };

  for (let i = 0; i < Math.max(1, size); i++) slots.push(spawn());

  return {
    run(path, source, options) {
      if (closed) return Promise.reject(new Error('the worker pool is closed'));
      return new Promise<FileResult>((resolve, reject) => {
        queue.push({ task: { id: nextId++, path, source, options }, resolve, reject });
        pump();
      });
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new Error('the worker pool is closed'));
      await Promise.all(slots.splice(0).map((slot) => slot.worker.terminate()));
    },
  };
}
