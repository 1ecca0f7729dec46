// The worker pool runs the compiled pipeline, so these tests use dist/ (tests run after `npm run build`).
import { afterAll, describe, it, expect } from 'vitest';
import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FileResult, PipelineOptions } from '../src/model/types.js';
import { scanFiles } from '../src/runner/scan.js';
import { makeTree, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';

afterAll(removeTrees);

const dist = (path: string): string => pathToFileURL(join(__dirname, '..', 'dist', path)).href;

interface PoolModule {
  getWorkerUrl(): URL | null;
  pickWorkerFile(dir: string): string | null;
  createWorkerPool(size: number, url: URL, options?: { cores?: number }): { run(path: string, source: string, options: PipelineOptions): Promise<FileResult>; start(): void; close(): Promise<void>; readonly started: number };
  QUEUED_PER_NEW_WORKER: number;
}

describe('worker pool', () => {
  it('runs the built pipeline on worker threads and matches the inline result', async () => {
    const pool = (await import(dist('src/runner/pool.js'))) as PoolModule;
    const { processSource } = (await import(dist('src/pipeline.js'))) as { processSource: (p: string, s: string, o: PipelineOptions) => FileResult };
    const url = pool.getWorkerUrl();
    expect(url).not.toBeNull();
    const workers = pool.createWorkerPool(3, url as URL);
    try {
      const options: PipelineOptions = { sdk: 'v1', style: 'server' };
      const sources = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? `${SERVER_HINT}const x${i} = ${i};\n` : `${SERVER_HINT}if (x ( {\n`));
      const results = await Promise.all(sources.map((s, i) => workers.run(`/virtual/f${i}.js`, s, options)));
      expect(results).toEqual(sources.map((s, i) => processSource(`/virtual/f${i}.js`, s, options)));
      expect(results.filter((r) => r.error !== undefined)).toHaveLength(5);
    } finally {
      await workers.close();
    }
  });

  it('starts workers as files wait: one for a few files, another once QUEUED_PER_NEW_WORKER wait for the one running, one core left free', async () => {
    const pool = (await import(dist('src/runner/pool.js'))) as PoolModule;
    const url = pool.getWorkerUrl() as URL;
    const options: PipelineOptions = { sdk: 'v1', style: 'server' };
    const few = pool.createWorkerPool(4, url, { cores: 4 });
    const many = pool.createWorkerPool(4, url, { cores: 4 });
    // two cores: the main thread keeps one, whatever waits
    const two = pool.createWorkerPool(4, url, { cores: 2 });
    try {
      expect(few.started).toBe(0);
      few.start();
      expect(few.started).toBe(1);
      // five files at once: four wait, fewer than the threshold, so the first worker takes them all
      await Promise.all(Array.from({ length: 5 }, (_, i) => few.run(`/virtual/few${i}.js`, `const x = ${i};\n`, options)));
      expect(few.started).toBe(1);
      // enough files at once that a second worker pays off (and no more than that: the third needs twice as many)
      const count = pool.QUEUED_PER_NEW_WORKER + 2;
      await Promise.all(Array.from({ length: count }, (_, i) => many.run(`/virtual/many${i}.js`, `const x = ${i};\n`, options)));
      expect(many.started).toBe(2);
      await Promise.all(Array.from({ length: count * 2 }, (_, i) => two.run(`/virtual/two${i}.js`, `const x = ${i};\n`, options)));
      expect(two.started).toBe(1);
    } finally {
      await few.close();
      await many.close();
      await two.close();
    }
  });

  it('closes once: a second close waits for the same termination, and no file runs after it', async () => {
    const pool = (await import(dist('src/runner/pool.js'))) as PoolModule;
    const workers = pool.createWorkerPool(2, pool.getWorkerUrl() as URL);
    workers.start();
    const first = workers.close();
    expect(workers.close()).toBe(first);
    await first;
    await expect(workers.run('/virtual/late.js', 'const x = 1;\n', { sdk: 'v1', style: 'server' })).rejects.toThrow(/closed/);
  });

  it('runs the one-file bundle of the worker that the build writes, unless a later compile made it stale', async () => {
    const pool = (await import(dist('src/runner/pool.js'))) as PoolModule;
    // (npm test builds first: tsc, then the bundle)
    expect(pool.getWorkerUrl()?.href).toBe(dist('src/runner/worker.cjs'));
    const root = await makeTree({ 'only/worker.js': '', 'both/worker.js': '', 'both/worker.cjs': '', 'stale/worker.js': '', 'stale/worker.cjs': '', 'bundle-only/worker.cjs': '' });
    const at = (dir: string, file: string, seconds: number): Promise<void> => utimes(join(root, dir, file), seconds, seconds);
    await at('both', 'worker.js', 1_000);
    await at('both', 'worker.cjs', 2_000);
    await at('stale', 'worker.js', 2_000);
    await at('stale', 'worker.cjs', 1_000);
    expect(pool.pickWorkerFile(join(root, 'only'))).toBe(join(root, 'only', 'worker.js'));
    expect(pool.pickWorkerFile(join(root, 'both'))).toBe(join(root, 'both', 'worker.cjs'));
    expect(pool.pickWorkerFile(join(root, 'stale'))).toBe(join(root, 'stale', 'worker.js'));
    // no compiled modules: running from sources, whatever else is there
    expect(pool.pickWorkerFile(join(root, 'bundle-only'))).toBeNull();
  });

  it('is not used when running from sources (no compiled worker next to the module)', async () => {
    const { getWorkerUrl } = await import('../src/runner/pool.js');
    expect(getWorkerUrl()).toBeNull();
    // scanFiles still works inline with many candidates.
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`f${i}.js`] = `${SERVER_HINT}if (x ( {\n`;
    const root = await makeTree(files);
    const scan = await scanFiles({ paths: ['.'], cwd: root, sdk: 'v1', style: 'server', jobs: 4 });
    expect(scan.results.filter((r) => r.error !== undefined)).toHaveLength(12);
  });
});
