// The `diff` package, loaded on first use (with `require`: its CommonJS build, one link instead of the
// ES build's 19 modules). Most runs print no diff (`--check`, a tree with nothing to migrate): its load
// was ~18 ms of every start, before the worker was even asked for.
import type * as Diff from 'diff';
import { createRequire } from 'node:module';

let loaded: typeof Diff | null = null;

export function loadDiff(): typeof Diff {
  return (loaded ??= createRequire(import.meta.url)('diff') as typeof Diff);
}
