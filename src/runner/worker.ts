// Worker thread entry: runs the pipeline on files the pool hands it and posts the results back.
// Runs from dist/ (the pool only starts it when this compiled file exists). Reads only the modules a candidate imports.
import { parentPort } from 'node:worker_threads';
import { processSource } from '../pipeline.js';
import { readModuleSync } from './read-module.js';
import type { FileResult } from '../model/types.js';
import type { PoolReply, PoolTask, WorkerMessage } from './pool.js';

const port = parentPort;
if (port === null) throw new Error('worker.js must run in a worker thread');

port.on('message', async (task: PoolTask) => {
  const start = performance.now();
  let outcome: { result: FileResult } | { error: string };
  try {
    outcome = { result: await processSource(task.path, task.source, task.options, readModuleSync) };
  } catch (err) {
    outcome = { error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  port.postMessage({ id: task.id, ...outcome, ms: performance.now() - start } satisfies PoolReply);
});
// (the pipeline and Babel are loaded: the pool's JIT switch waits for this, jit.ts)
port.postMessage({ loaded: true } satisfies WorkerMessage);
