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
