// TurboFan held off while a pool's analysis is short (src/runner/jit.ts): the switch's rules on a recorded
// control, and, in a process of its own, that the flags it sets do what it says on this Node.js.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { JIT_AFTER_MS, JIT_FILE_CHARS, JIT_QUEUED, JitSwitch } from '../src/runner/jit.js';

function recorded(startFlags: string[] = []): { calls: string[]; jit: JitSwitch } {
  const calls: string[] = [];
  return { calls, jit: new JitSwitch({ setFlags: (flags) => calls.push(flags), startFlags }) };
}

describe('the JIT switch', () => {
  it('turns TurboFan off once a worker has loaded, and on again once the pool has analysed for JIT_AFTER_MS', () => {
    const { calls, jit } = recorded();
    const hold = jit.hold();
    // (a change of the flags before a worker loads would cost it Node.js's code cache)
    expect(calls).toEqual([]);
    hold.loaded();
    expect(calls).toEqual(['--no-turbofan']);
    hold.noteWork(JIT_AFTER_MS / 2);
    hold.noteWork(JIT_AFTER_MS / 2 - 1);
    hold.noteQueue(JIT_QUEUED - 1);
    hold.noteFile(JIT_FILE_CHARS - 1);
    expect(jit.paused).toBe(true);
    hold.noteWork(1);
    expect(calls).toEqual(['--no-turbofan', '--turbofan']);
    // on for good: another worker loading, more work and the release change nothing
    hold.loaded();
    hold.noteWork(JIT_AFTER_MS);
    hold.release();
    expect(calls).toEqual(['--no-turbofan', '--turbofan']);
  });

  it('turns it on for a file long enough on its own and for a queue that tells a long run ahead, and leaves it on when that came before the worker loaded', () => {
    const file = recorded();
    const fileHold = file.jit.hold();
    fileHold.loaded();
    fileHold.noteFile(JIT_FILE_CHARS);
    expect(file.calls).toEqual(['--no-turbofan', '--turbofan']);
    const queue = recorded();
    const queueHold = queue.jit.hold();
    queueHold.loaded();
    queueHold.noteQueue(JIT_QUEUED);
    expect(queue.calls).toEqual(['--no-turbofan', '--turbofan']);
    const early = recorded();
    const earlyHold = early.jit.hold();
    earlyHold.noteFile(JIT_FILE_CHARS);
    earlyHold.loaded();
    expect(early.calls).toEqual([]);
  });

  it('turns it on when the last pool holding it closes, once per hold, and off again for the next pool', () => {
    const { calls, jit } = recorded();
    const first = jit.hold();
    const second = jit.hold();
    first.loaded();
    second.loaded();
    expect(calls).toEqual(['--no-turbofan']);
    first.release();
    first.release();
    expect(jit.paused).toBe(true);
    second.release();
    expect(calls).toEqual(['--no-turbofan', '--turbofan']);
    // a worker that loads after its pool closed does not turn it off
    second.loaded();
    const next = jit.hold();
    next.loaded();
    next.release();
    expect(calls).toEqual(['--no-turbofan', '--turbofan', '--no-turbofan', '--turbofan']);
  });

  it("leaves a process that chose V8's compilers itself as it was", () => {
    for (const flag of ['--no-opt', '--jitless', '--turbofan', '--no-turbofan', '--maglev', '--always-sparkplug']) {
      const { calls, jit } = recorded(['--enable-source-maps', flag]);
      const hold = jit.hold();
      hold.loaded();
      hold.noteWork(JIT_AFTER_MS);
      hold.release();
      expect(calls, flag).toEqual([]);
    }
    // flags about other things do not count
    const { calls, jit } = recorded(['--enable-source-maps', '--max-old-space-size=4096', '--optimize-for-size-not-a-flag']);
    const hold = jit.hold();
    hold.loaded();
    hold.release();
    expect(calls).toEqual(['--no-turbofan', '--turbofan']);
  });

  it('keeps hot code off TurboFan while held and lets it on after, in a process of its own (the flags exist on this Node.js)', () => {
    // (the compiled module: tests run after `npm run build`)
    const jitModule = pathToFileURL(join(__dirname, '..', 'dist', 'src', 'runner', 'jit.js')).href;
    // %GetOptimizationStatus: bit 6 is "optimized by TurboFan"
    const script = `
      const { jit } = await import(${JSON.stringify(jitModule)});
      const hot = () => { const f = new Function('x', 'let s = 0; for (let i = 0; i < 1000; i++) s += i * x; return s;'); for (let i = 0; i < 30000; i++) f(i); return f; };
      const turbofanned = (f) => (eval('%GetOptimizationStatus(f)') & 64) !== 0;
      const hold = jit.hold();
      hold.loaded();
      const held = turbofanned(hot());
      hold.release();
      console.log(JSON.stringify({ held, released: turbofanned(hot()) }));
    `;
    const run = spawnSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ held: false, released: true });
  });
});
