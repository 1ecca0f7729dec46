// The worker pool runs the compiled pipeline, so these tests use dist/ (tests run after `npm run build`).
import { afterAll, describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FileResult, PipelineOptions } from '../src/model/types.js';
import { scanFiles } from '../src/runner/scan.js';
import { makeTree, removeTrees, SERVER_HINT } from './fixtures/cli/harness.js';
import type { JitHold } from '../src/runner/jit.js';

afterAll(removeTrees);

const dist = (path: string): string => pathToFileURL(join(__dirname, '..', 'dist', path)).href;

interface PoolModule {
  getWorkerUrl(): URL | null;
  pickWorkerFile(dir: string): string | null;
  createWorkerPool(size: number, url: URL, options?: { cores?: number; jit?: { hold(): JitHold } }): { run(path: string, source: string, options: PipelineOptions): Promise<FileResult>; start(): void; close(): Promise<void>; readonly started: number };
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

  it("tells the JIT switch when a worker has loaded, of each file it hands out, each worker's time on it and the queue, holding it once from the first worker to its close", async () => {
    const pool = (await import(dist('src/runner/pool.js'))) as PoolModule;
    const seen = { holds: 0, loaded: 0, files: [] as number[], work: [] as number[], queue: [] as number[], releases: 0 };
    const hold = (): JitHold => {
      seen.holds++;
      return {
        loaded: () => seen.loaded++,
        noteFile: (length) => seen.files.push(length),
        noteWork: (ms) => seen.work.push(ms),
        noteQueue: (length) => seen.queue.push(length),
        release: () => seen.releases++,
      };
    };
    const count = pool.QUEUED_PER_NEW_WORKER + 2;
    const workers = pool.createWorkerPool(4, pool.getWorkerUrl() as URL, { cores: 4, jit: { hold } });
    expect(seen.holds).toBe(0);
    const sources = Array.from({ length: count }, (_, i) => `const x${i} = ${'1'.repeat(i)};\n`);
    try {
      await Promise.all(sources.map((s, i) => workers.run(`/virtual/jit${i}.js`, s, { sdk: 'v1', style: 'server' })));
      // two workers ran (see above), one hold
      expect(workers.started).toBe(2);
      expect(seen.holds).toBe(1);
      // the first worker had loaded before its first reply (the second may still be loading)
      expect(seen.loaded).toBeGreaterThanOrEqual(1);
      expect(seen.files.sort((a, b) => a - b)).toEqual(sources.map((s) => s.length));
      expect(seen.work).toHaveLength(count);
      expect(seen.work.every((ms) => ms > 0)).toBe(true);
      // the queue as each file joined it: the last ones found the first worker busy
      expect(seen.queue).toHaveLength(count);
      expect(Math.max(...seen.queue)).toBeGreaterThan(1);
      expect(seen.releases).toBe(0);
    } finally {
      await workers.close();
    }
    expect(seen.releases).toBe(1);
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

  it('runs the one-file bundle of the worker that the build writes, while the compiled worker.js names it', async () => {
    const pool = (await import(dist('src/runner/pool.js'))) as PoolModule;
    // (npm test builds first: tsc, then the bundle)
    expect(pool.getWorkerUrl()?.href).toBe(dist('src/runner/worker.cjs'));
    const mark = '// mcp-migrate worker bundle';
    const root = await makeTree({
      'named/worker.js': `port.on();\n${mark} 0123abcd: worker.cjs holds this module\n`,
      'named/worker.cjs': `${mark} 0123abcd\n'use strict';\n`,
      // tsc alone rewrote worker.js: no name, whatever bundle is there
      'recompiled/worker.js': 'port.on();\n',
      'recompiled/worker.cjs': `${mark} 0123abcd\n'use strict';\n`,
      // a bundle of another build
      'other/worker.js': `port.on();\n${mark} 0123abcd: worker.cjs holds this module\n`,
      'other/worker.cjs': `${mark} 0123abce\n'use strict';\n`,
      'missing/worker.js': `port.on();\n${mark} 0123abcd: worker.cjs holds this module\n`,
      'sources/worker.cjs': `${mark} 0123abcd\n`,
    });
    expect(pool.pickWorkerFile(join(root, 'named'))).toBe(join(root, 'named', 'worker.cjs'));
    expect(pool.pickWorkerFile(join(root, 'recompiled'))).toBe(join(root, 'recompiled', 'worker.js'));
    expect(pool.pickWorkerFile(join(root, 'other'))).toBe(join(root, 'other', 'worker.js'));
    expect(pool.pickWorkerFile(join(root, 'missing'))).toBe(join(root, 'missing', 'worker.js'));
    // no compiled worker: running from sources
    expect(pool.pickWorkerFile(join(root, 'sources'))).toBeNull();
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
