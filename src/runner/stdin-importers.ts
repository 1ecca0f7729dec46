// The files the scan reads as candidates (./scan.ts): a module that reads stdin, and the entries that
// import it (through barrels, a few levels up), found from the text before anything is parsed.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { mayContainServer, READS_STDIN, SERVES_SDK_STDIO, USES_SDK_STDIO } from '../prefilter.js';
import { describeFsError, getSizeSkipReason, MAX_SOURCE_BYTES } from './discover.js';

export type ReadOutcome =
  /** `readsStdin`: a module an entry's server may use for its loop (`listen(cb)` over readline). */
  | { kind: 'skip'; readsStdin?: boolean }
  | { kind: 'problem'; message: string }
  /** Over MAX_SOURCE_BYTES: not looked at (a warning says why). */
  | { kind: 'too-large'; reason: string }
  | { kind: 'candidate'; source: string; error?: string; readsStdin: boolean }
  /** Not a candidate, but it imports relative modules: one of them may be a server's stdin loop (only its relative specifiers are kept). */
  | { kind: 'importer'; specifiers: string[]; barrel: boolean; readsStdin: boolean };


/** An importer's relative specifiers, and whether it only re-exports them (a barrel: never an entry). */
export interface Importer {
  specifiers: string[];
  barrel: boolean;
}

const SPECIFIER_OPENERS = ['require(', 'from', 'import(', 'import'].map((opener) => Buffer.from(opener));
const QUOTE_DOT = ["'.", '".'].map((needle) => Buffer.from(needle));
const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * The relative specifiers of `require('./x')`, `from './x'`, `import('./x')` and `import './x'` (an entry
 * that only loads its server), found on the bytes (the whole tree's importers are read: no decoding, no
 * regular expression over every file).
 */
function getRelativeSpecifiers(bytes: Buffer): string[] {
  const out: string[] = [];
  // from each quote that opens a relative path back to what precedes it: far fewer hits than the openers
  for (const needle of QUOTE_DOT) {
    for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + 1)) {
      const quote = bytes[at]!;
      const end = bytes.indexOf(quote, at + 1);
      if (end === -1 || end - at > 512) continue;
      let before = at;
      while (before > 0 && SPACE.has(bytes[before - 1]!)) before--;
      if (!SPECIFIER_OPENERS.some((opener) => before >= opener.length && bytes.subarray(before - opener.length, before).equals(opener))) continue;
      const specifier = bytes.toString('utf8', at + 1, end);
      if (/^\.\.?\//.test(specifier) && !specifier.includes('\n')) out.push(specifier);
    }
  }
  return out;
}
const MODULE_EXTENSION = /\.[cm]?[jt]sx?$/;

/** A relative specifier's last name without its extension (`./lib/wire.js` -> `wire`, `../` -> `..`): its basename, `/`-separated. */
function getSpecifierName(specifier: string): string {
  const trimmed = specifier.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1).replace(MODULE_EXTENSION, '');
}
/** As deep as the pipeline looks for stdin through imports. */
const IMPORT_DEPTH = 3;

/**
 * A module that only re-exports (`export * from './server.js'`, `export { a } from './b.js'`), comments
 * aside: told on its bytes (a barrel is small). It runs no code of its own, so it is never an entry: the
 * import graph goes through it without counting a level (the entry that imports the server's class
 * through it is as near the stdin loop as the barrel), and it is not a candidate itself (taken for the
 * entry, it got the stdout guard and its side-by-side proof found no server to run).
 */
function isBarrel(bytes: Buffer): boolean {
  // (most modules are told at once: code has an `=` or a `(` somewhere; a barrel has neither, comments aside)
  if (bytes.length > 8192 || bytes.includes(0x3d) || bytes.includes(0x28)) return false;
  const statements = bytes
    .toString('latin1')
    .replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '')
    .split(/;|\n/)
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '');
  return statements.length > 0 && statements.every((statement) => REEXPORT.test(statement));
}
const REEXPORT = /^export\s*(?:\*(?:\s*as\s+[\w$]+)?|\{[^}]*\})\s*from\s*(['"])\.{1,2}\/[^'"]*\1$/;

/**
 * The importers that reach a module reading stdin through relative imports, each with how many imports
 * away: one (a two-line entry, `createServer(info).start()`) or up to three (the caller keeps those only
 * when the file speaks JSON-RPC itself: an entry that dispatches, with its loop two modules down). The import graph is read once for the whole tree,
 * each file's specifiers once; matching is by path without extension (`./wire.cjs` is `wire.cts` too,
 * `./lib` is `lib/index.js`): a slight superset, the pipeline resolves the imports for real. A barrel
 * counts no import and is not returned (isBarrel).
 */
export function findStdinImporters(importers: ReadonlyMap<string, Importer>, stdinModules: ReadonlySet<string>): { path: string; depth: number }[] {
  // (a tree where nothing says stdin: no graph to build, ~6,500 importers on the real-code tree)
  if (stdinModules.size === 0) return [];
  const keysOf = (path: string): string[] => {
    const bare = path.replace(MODULE_EXTENSION, '');
    return basename(bare) === 'index' ? [bare, dirname(bare)] : [bare];
  };
  // The graph backwards, by the last name a specifier ends in (`./lib/wire.js` -> `wire`): a module reached
  // is looked up by its own last name, so only the importers naming it are resolved (`.` and `..` name no
  // file: those importers are resolved for every module reached). Each specifier is resolved once.
  const byName = new Map<string, string[]>();
  const anyName = new Set<string>();
  for (const [path, { specifiers }] of importers) {
    for (const specifier of specifiers) {
      const name = getSpecifierName(specifier);
      if (name === '.' || name === '..') anyName.add(path);
      else {
        const named = byName.get(name);
        if (named === undefined) byName.set(name, [path]);
        else if (named.at(-1) !== path) named.push(path);
      }
    }
  }
  const targets = new Map<string, string[]>();
  const targetsOf = (path: string): string[] => {
    let out = targets.get(path);
    if (out === undefined) {
      out = importers.get(path)!.specifiers.map((specifier) => resolve(dirname(path), specifier).replace(MODULE_EXTENSION, ''));
      targets.set(path, out);
    }
    return out;
  };
  const done = new Set<string>();
  // the importers not yet out that import one of `keys` (in no particular order: the caller sorts the candidates)
  const importersOf = (keys: ReadonlySet<string>): string[] => {
    const named = new Set(anyName);
    for (const key of keys) for (const path of byName.get(basename(key)) ?? []) named.add(path);
    return [...named].filter((path) => !done.has(path) && targetsOf(path).some((target) => keys.has(target)));
  };
  const out: { path: string; depth: number }[] = [];
  // the keys reached at the previous depth: an importer of an earlier one is out already
  let fresh = new Set([...stdinModules].flatMap(keysOf));
  for (let depth = 1; depth <= IMPORT_DEPTH && fresh.size > 0; depth++) {
    const next = new Set<string>();
    let level = importersOf(fresh);
    while (level.length > 0) {
      // what imports a barrel is as many imports away from stdin as the barrel
      const barrels = new Set<string>();
      for (const path of level) {
        done.add(path);
        for (const key of keysOf(path)) {
          next.add(key);
          if (importers.get(path)!.barrel) barrels.add(key);
        }
        if (!importers.get(path)!.barrel) out.push({ path, depth });
      }
      level = barrels.size === 0 ? [] : importersOf(barrels);
    }
    fresh = next;
  }
  return out;
}

/**
 * Synchronous on purpose: one synchronous read per file is several times faster here than promise-based
 * reads (each costs a few thread-pool round trips). The bytes land in one shared buffer and are tested
 * there: only a candidate's are decoded, only an importer's relative specifiers are kept.
 * A file that neither reads stdin nor names the SDK transport is a server only through a module it
 * imports: it is an importer until the import graph of the whole tree says whether it reaches stdin.
 */
export function readCandidate(path: string): ReadOutcome {
  let read: Buffer | { tooLarge: number };
  try {
    read = readShared(path);
  } catch (err) {
    return { kind: 'problem', message: `cannot read: ${describeFsError(err)}` };
  }
  if ('tooLarge' in read) return { kind: 'too-large', reason: getSizeSkipReason(Math.max(read.tooLarge, MAX_SOURCE_BYTES + 1))! };
  const bytes = read;
  if (bytes.length === 0) return { kind: 'skip' };
  const readsStdin = bytes.includes(READS_STDIN_BYTES);
  const importer = (barrel = isBarrel(bytes)): ReadOutcome => {
    const specifiers = getRelativeSpecifiers(bytes);
    return specifiers.length > 0 ? { kind: 'importer', specifiers, barrel, readsStdin } : { kind: 'skip', readsStdin };
  };
  if (!readsStdin && !bytes.includes(USES_SDK_STDIO_BYTES) && !bytes.includes(SERVES_SDK_STDIO_BYTES)) return importer();
  // (`export * from './stdin-loop.js'` says stdin and runs nothing)
  if (isBarrel(bytes)) return importer(true);
  const source = bytes.toString('utf8');
  // Files with no sign of a server are never reported, whatever they contain.
  if (!mayContainServer(source)) return importer();
  if (bytes.includes(0)) return { kind: 'candidate', source, error: 'looks like a binary file (contains a NUL byte); left untouched', readsStdin };
  if (source.includes('\uFFFD') && !Buffer.from(source, 'utf8').equals(bytes)) {
    return { kind: 'candidate', source, error: 'is not valid UTF-8 text; left untouched', readsStdin };
  }
  return { kind: 'candidate', source, readsStdin };
}

/** The prefilter's words as bytes (a string needle is encoded again on every search). */
const READS_STDIN_BYTES = Buffer.from(READS_STDIN);
const USES_SDK_STDIO_BYTES = Buffer.from(USES_SDK_STDIO);
const SERVES_SDK_STDIO_BYTES = Buffer.from(SERVES_SDK_STDIO);

/** The buffer every read of the scan fills (grown as needed): the bytes are tested there and decoded only when kept. */
let shared = Buffer.allocUnsafe(256 * 1024);

/**
 * A file's bytes, as a view of the shared buffer (valid until the next call), or, for a file over
 * MAX_SOURCE_BYTES (discovery's walk does not stat files: the limit is applied here), its size.
 */
function readShared(path: string): Buffer | { tooLarge: number } {
  const fd = openSync(path, 'r');
  try {
    let length = 0;
    for (;;) {
      if (length > MAX_SOURCE_BYTES) return { tooLarge: fstatSync(fd).size };
      if (length === shared.length) {
        const bigger = Buffer.allocUnsafe(shared.length * 2);
        shared.copy(bigger, 0, 0, length);
        shared = bigger;
      }
      const read = readSync(fd, shared, length, shared.length - length, null);
      if (read === 0) return shared.subarray(0, length);
      length += read;
    }
  } finally {
    closeSync(fd);
  }
}
