// How the pipeline reads the other modules of a server (the files a candidate imports): synchronously,
// text only, and never a file too large to be a hand-written module (the same limit as discovery's).
import { readFileSync, statSync } from 'node:fs';
import { MAX_SOURCE_BYTES } from './discover.js';

export function readModuleSync(path: string): string | null {
  try {
    // (most paths asked do not exist: the spellings an import may name, the configs of each directory up
    // to the package's; a missing one is answered without building an exception)
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile() || stat.size > MAX_SOURCE_BYTES) return null;
    const bytes = readFileSync(path);
    if (bytes.includes(0)) return null;
    return bytes.toString('utf8');
  } catch {
    return null;
  }
}
