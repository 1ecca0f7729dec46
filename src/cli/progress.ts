// The progress line: "scanned N files, M candidates", overwritten in place on a terminal, silent
// otherwise (logs and CI output stay clean).
import type { ScanProgress } from '../runner/scan.js';

export interface ProgressLine {
  update(progress: ScanProgress): void;
  /** Erases the line so the next output starts on a clean line. */
  clear(): void;
}

const MIN_INTERVAL_MS = 80;

export function createProgressLine(write: (text: string) => void, enabled: boolean, now: () => number = Date.now): ProgressLine {
  if (!enabled) return { update() {}, clear() {} };
  let last = -Infinity;
  let shown = false;
  return {
    update({ scanned, candidates }) {
      const t = now();
      if (t - last < MIN_INTERVAL_MS) return;
      last = t;
      shown = true;
      write(`\r\x1b[2Kscanned ${scanned} file${scanned === 1 ? '' : 's'}, ${candidates} candidate${candidates === 1 ? '' : 's'}`);
    },
    clear() {
      if (shown) write('\r\x1b[2K');
      shown = false;
    },
  };
}

/** The proof's live line: which servers are being proven, and for how long. */
export interface ProofProgress {
  start(path: string): void;
  done(path: string): void;
  /** Erases the line (before other output); the next tick draws it again while servers run. */
  clear(): void;
  /** Erases the line and stops redrawing it. */
  stop(): void;
}

const PROOF_TICK_MS = 250;

/**
 * On a terminal, a line redrawn in place: `proving server.js (3.2 s), lib/other.js (0.4 s)`; silent
 * otherwise (there each server's verdict is its own line). `display` names the paths.
 */
export function createProofProgress(write: (text: string) => void, enabled: boolean, display: (path: string) => string, now: () => number = Date.now): ProofProgress {
  if (!enabled) return { start() {}, done() {}, clear() {}, stop() {} };
  const running = new Map<string, number>();
  let shown = false;
  const draw = (): void => {
    if (running.size === 0) return;
    const t = now();
    const parts = [...running].map(([path, since]) => `${display(path)} (${((t - since) / 1000).toFixed(1)} s)`);
    write(`\r\x1b[2Kproving ${parts.join(', ')}`);
    shown = true;
  };
  const clear = (): void => {
    if (shown) write('\r\x1b[2K');
    shown = false;
  };
  let timer: NodeJS.Timeout | null = null;
  return {
    start(path) {
      running.set(path, now());
      timer ??= setInterval(draw, PROOF_TICK_MS);
      timer.unref();
      draw();
    },
    done(path) {
      running.delete(path);
    },
    clear,
    stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
      clear();
    },
  };
}
