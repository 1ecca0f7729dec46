// package.json handling: which manifest a file belongs to, which SDK it already uses, and the text
// edit that adds the SDK dependency. The edit is textual — new entries are spliced into the existing
// `dependencies` object — so indentation, key order, EOL, trailing newline and every other byte stay
// as they were. Deliberately does not write anything (commit.ts does) and never runs a package manager.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Agent } from 'package-manager-detector';
import { resolveCommand } from 'package-manager-detector/commands';
import { LOCKS } from 'package-manager-detector/constants';
import { detect } from 'package-manager-detector/detect';
import { SDK_TARGETS } from '../model/sdk-targets.js';
import type { SdkTarget } from '../model/types.js';
import { hasEntry, isInside } from './discover.js';
import { readRegularFileSync } from './safe-read.js';

/** What each SDK target needs in `dependencies` (from the one table of SDK targets). */
export const SDK_DEPENDENCIES: Record<SdkTarget, Readonly<Record<string, string>>> = {
  v1: SDK_TARGETS.v1.dependencies,
  v2: SDK_TARGETS.v2.dependencies,
};

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;

export interface Manifest {
  path: string;
  dir: string;
  text: string;
  /** The parsed object, or null when the file is not valid JSON (see `parseError`). */
  json: Record<string, unknown> | null;
  parseError?: string;
  /** Set when the file was not read at all (a FIFO, a device, over MAX_MANIFEST_BYTES): why. `text` is then empty. */
  unreadable?: string;
}

/**
 * A package.json larger than this is not read (the largest on npm are a few hundred kB; a 179 MB one
 * took a minute and 3.7 GB to parse).
 */
export const MAX_MANIFEST_BYTES = 4_000_000;

/**
 * Reads package.json files once and answers "which package.json is nearest to this directory". The
 * search never climbs past a repository root (a directory holding `.git`), nor, outside any repository,
 * past `stop` (the scanned root): a package.json in the user's home is not the package of a folder in it.
 */
export class ManifestCache {
  private readonly byDir = new Map<string, Promise<Manifest | null>>();

  constructor(private readonly stop: string | null = null) {}

  /** The package.json in `dir` or its closest ancestor up to the ceiling, or null when there is none. */
  getNearest(dir: string): Promise<Manifest | null> {
    let pending = this.byDir.get(dir);
    if (pending === undefined) {
      pending = this.lookUp(dir);
      this.byDir.set(dir, pending);
    }
    return pending;
  }

  private async lookUp(dir: string): Promise<Manifest | null> {
    const own = await readManifest(join(dir, 'package.json'));
    if (own !== null) return own;
    const parent = dirname(dir);
    // (synchronous, like the read above: a candidate's lookup then reaches its worker without a thread-pool round trip)
    if (parent === dir || dir === this.stop || hasEntry(join(dir, '.git'))) return null;
    return this.getNearest(parent);
  }
}

/** Reads one package.json; null when it does not exist (or is not a readable file). */
export async function readManifest(path: string): Promise<Manifest | null> {
  // (synchronous: a few system calls, where the promise-based read makes five thread-pool round trips)
  const read = readRegularFileSync(path, MAX_MANIFEST_BYTES);
  if (read.kind === 'missing') return null;
  if (read.kind === 'refused') return { path, dir: dirname(path), text: '', json: null, parseError: read.reason, unreadable: read.reason };
  const text = read.bytes.toString('utf8');
  const manifest: Manifest = { path, dir: dirname(path), text, json: null };
  try {
    const value: unknown = JSON.parse(stripBom(text));
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      manifest.parseError = 'the top level is not an object';
    } else {
      manifest.json = value as Record<string, unknown>;
    }
  } catch (err) {
    manifest.parseError = (err as Error).message;
  }
  return manifest;
}

/**
 * `--sdk auto`: the current generation (v2: `serveStdio` serves 2025-era and 2026-07-28 clients) for a
 * package with no SDK yet or on v2 already; v1 for a package that depends on `@modelcontextprotocol/sdk`
 * and not on v2 (its other code uses v1: one SDK per package).
 */
export function resolveSdkTarget(manifest: Manifest | null): SdkTarget {
  return manifest?.json ? resolveSdkTargetOf(manifest.json) : 'v2';
}

/** resolveSdkTarget from a package.json's parsed object. */
export function resolveSdkTargetOf(json: Record<string, unknown>): SdkTarget {
  if (hasDependency(json, '@modelcontextprotocol/server')) return 'v2';
  return hasDependency(json, '@modelcontextprotocol/sdk') ? 'v1' : 'v2';
}

/** Installed dependencies: what a lockfile lists (a peer dependency is the consumer's to install). */
export const INSTALLED_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const;

/** Whether `json` declares `name` in one of `fields` (default: every dependency field, peers included). */
export function hasDependency(json: Record<string, unknown>, name: string, fields: readonly string[] = DEPENDENCY_FIELDS): boolean {
  return fields.some((field) => {
    const deps = json[field];
    return deps !== null && typeof deps === 'object' && Object.prototype.hasOwnProperty.call(deps, name);
  });
}

/** The entries of `wanted` the manifest does not have yet (in any dependency field). */
export function getMissingDependencies(json: Record<string, unknown>, wanted: Record<string, string>): Record<string, string> {
  const missing: Record<string, string> = {};
  for (const [name, range] of Object.entries(wanted)) {
    if (!hasDependency(json, name)) missing[name] = range;
  }
  return missing;
}

/**
 * The manifest text with `add` spliced into `dependencies` (created when absent). Existing entries are
 * never touched; new ones go in alphabetical place when the object is already sorted, else at its end.
 * Throws when the text is not a JSON object or `dependencies` is not an object.
 */
export function addDependencies(text: string, add: Record<string, string>): string {
  const names = Object.keys(add).sort(compareNames);
  if (names.length === 0) return text;
  const json: unknown = JSON.parse(stripBom(text));
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new Error('the top level is not an object');
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const unit = detectIndent(text);
  const root = scanObject(text, skipSpace(text, text.charCodeAt(0) === 0xfeff ? 1 : 0));
  // With a key written twice, JSON.parse (and npm) keep the last one: that is the object to add to.
  const deps = root.members.findLast((m) => m.key === 'dependencies');
  let result: string;
  if (deps === undefined) {
    result = insertDependenciesMember(text, root, names, add, unit, eol);
  } else {
    if (text[deps.valueStart] !== '{') throw new Error('"dependencies" is not an object');
    const object = scanObject(text, deps.valueStart);
    result = insertEntries(text, object, lineIndentAt(text, deps.keyStart), names, add, unit, eol, separatorOf(text, deps));
  }
  // The splice must give exactly the old object plus the new entries; anything else is a bug here.
  const check = JSON.parse(stripBom(result)) as { dependencies?: Record<string, string> };
  for (const name of names) {
    if (check.dependencies?.[name] !== add[name]) throw new Error(`internal error: could not add ${name} to dependencies`);
  }
  return result;
}

/** The indentation unit of a JSON text: a tab, or the width of the first indented line; 2 spaces by default. */
export function detectIndent(text: string): string {
  const match = /^([ \t]+)["}\]]/m.exec(text);
  if (match === null) return '  ';
  return match[1].startsWith('\t') ? '\t' : match[1];
}

export interface InstallPlan {
  command: string;
  /** Where to run it: the directory of the lockfile found, else the package (or workspace root). */
  dir: string;
  /** When a lockfile was found: the command that brings it up to date with the package.json without installing (run in `dir`). */
  lockfile?: string[];
}

/**
 * Which install command the package needs, as package-manager-detector reads it (npm, pnpm, yarn classic
 * and berry, bun, deno, rush, ...): from the first lockfile (or pnpm-workspace.yaml) found in `packageDir`
 * or its ancestors up to `stopDir` (inclusive), run where it was found; else from the `packageManager` or
 * `devEngines.packageManager` field of the package.json there; else `npm install` in `fallbackDir`.
 */
export async function resolveInstallPlan(packageDir: string, stopDir: string, fallbackDir: string = packageDir, probes: InstallProbes = new InstallProbes()): Promise<InstallPlan> {
  // The detector reads package.json itself: a directory whose package.json is not a regular file (a
  // FIFO would block the read forever) is not asked.
  if (!(await probes.isReadableManifestDir(fallbackDir))) fallbackDir = packageDir;
  const dirs = [packageDir];
  if (isInside(stopDir, packageDir)) {
    for (let dir = packageDir; dir !== stopDir && dirname(dir) !== dir; ) {
      dir = dirname(dir);
      if (!(await probes.isReadableManifestDir(dir))) break;
      dirs.push(dir);
    }
  }
  // One directory at a time (stopDir: the same directory), so the plan knows where the lockfile is.
  for (const dir of dirs) {
    const found = await probes.detect(dir, 'lockfile');
    if (found !== null) {
      // (a pnpm-workspace.yaml alone says pnpm, but there is no lockfile to update yet)
      const lockfile = LOCKFILE_NAMES.some((name) => existsSync(join(dir, name))) ? getLockfileUpdate(found.agent) : null;
      return { command: getInstallCommand(found.agent), dir, ...(lockfile === null ? {} : { lockfile }) };
    }
  }
  for (const dir of [fallbackDir, ...dirs]) {
    const found = await probes.detect(dir, 'fields');
    if (found !== null) return { command: getInstallCommand(found.agent), dir };
  }
  return { command: 'npm install', dir: fallbackDir };
}

/** The names the detector's lockfile strategy looks for in a directory (rush.json: a Rush monorepo, pnpm). */
const DETECTOR_LOCK_NAMES = ['rush.json', ...Object.keys(LOCKS)];

/**
 * What one run has learned of its directories' package managers. The packages of a monorepo share their
 * ancestors, and each ancestor costs a few dozen probes (lockfile names, package.json fields): asked once
 * per directory, not once per package under it.
 */
export class InstallProbes {
  private readonly found = new Map<string, ReturnType<typeof detect>>();
  private readonly readable = new Map<string, Promise<boolean>>();

  private readonly names = new Map<string, ReadonlySet<string> | null>();

  /** The package manager `dir` itself declares: by its lockfile, or by package.json's packageManager / devEngines. */
  detect(dir: string, by: 'lockfile' | 'fields'): ReturnType<typeof detect> {
    const key = `${by}\0${dir}`;
    let found = this.found.get(key);
    if (found === undefined) {
      // the detector stats each name it knows, one thread-pool round trip each: a directory that holds
      // none of them is told by one listing (one that cannot be listed is asked all the same)
      const names = this.list(dir);
      const worthAsking = names === null || (by === 'lockfile' ? DETECTOR_LOCK_NAMES.some((name) => names.has(name)) : names.has('package.json'));
      found = worthAsking ? detect({ cwd: dir, stopDir: dir, strategies: by === 'lockfile' ? ['lockfile'] : ['packageManager-field', 'devEngines-field'] }) : Promise.resolve(null);
      this.found.set(key, found);
    }
    return found;
  }

  private list(dir: string): ReadonlySet<string> | null {
    let names = this.names.get(dir);
    if (names === undefined) {
      try {
        names = new Set(readdirSync(dir));
      } catch {
        names = null;
      }
      this.names.set(dir, names);
    }
    return names;
  }

  isReadableManifestDir(dir: string): Promise<boolean> {
    let readable = this.readable.get(dir);
    if (readable === undefined) {
      readable = isReadableManifestDir(dir);
      this.readable.set(dir, readable);
    }
    return readable;
  }
}

/** Whether `dir` has no package.json, or one that is a regular file of a sane size (safe for the detector to read). */
async function isReadableManifestDir(dir: string): Promise<boolean> {
  const read = readRegularFileSync(join(dir, 'package.json'), MAX_MANIFEST_BYTES);
  return read.kind !== 'refused';
}

/** `npm install`, `pnpm install`, `yarn install`, ... (the detector's `i` spelled out, as docs and people write it). */
/**
 * The package manager's own way to update its lockfile from package.json without installing anything
 * (no scripts run): npm, pnpm and yarn berry have one; yarn classic, bun and the others do not (null).
 */
/** The lockfiles the package managers keep, in the order they look for them (the install plan and the stale-lockfile check read them). */
export const LOCKFILE_NAMES = ['package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock'];

export function getLockfileUpdate(agent: Agent): string[] | null {
  switch (agent) {
    case 'npm':
      return ['npm', 'install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'];
    case 'pnpm':
    case 'pnpm@6':
      return ['pnpm', 'install', '--lockfile-only', '--ignore-scripts'];
    case 'yarn@berry':
      return ['yarn', 'install', '--mode=update-lockfile'];
    default:
      return null;
  }
}

export function getInstallCommand(agent: Agent): string {
  const resolved = resolveCommand(agent, 'install', []);
  if (resolved === null) return 'npm install';
  return [resolved.command, ...resolved.args.map((arg) => (arg === 'i' ? 'install' : arg))].join(' ');
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function compareNames(a: string, b: string): number {
  return a.localeCompare(b, 'en');
}

// --- a minimal JSON scanner: positions of an object's members, for splicing -------------------------

interface JsonMember {
  key: string;
  keyStart: number;
  keyEnd: number;
  valueStart: number;
  valueEnd: number;
}

interface JsonObjectSpan {
  open: number;
  close: number;
  members: JsonMember[];
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  return i;
}

function skipString(text: string, i: number): number {
  // text[i] is the opening quote
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return j + 1;
  }
  throw new Error('unterminated string');
}

/**
 * The end of the value starting at `i`. Objects and arrays are skipped with a counter, not by recursion:
 * a package.json nested 200,000 levels deep must not overflow the stack.
 */
function skipValue(text: string, i: number): number {
  const ch = text[i];
  if (ch === '"') return skipString(text, i);
  if (ch === '{' || ch === '[') {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const c = text[j];
      if (c === '"') j = skipString(text, j) - 1;
      else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    throw new Error(ch === '{' ? 'malformed object' : 'malformed array');
  }
  let j = i;
  while (j < text.length && !/[\s,}\]]/.test(text[j])) j++;
  if (j === i) throw new Error('malformed value');
  return j;
}

function scanObject(text: string, open: number): JsonObjectSpan {
  if (text[open] !== '{') throw new Error('expected an object');
  const members: JsonMember[] = [];
  let i = skipSpace(text, open + 1);
  if (text[i] === '}') return { open, close: i, members };
  for (;;) {
    if (text[i] !== '"') throw new Error('malformed object');
    const keyStart = i;
    const keyEnd = skipString(text, i);
    const key = JSON.parse(text.slice(keyStart, keyEnd)) as string;
    i = skipSpace(text, keyEnd);
    if (text[i] !== ':') throw new Error('malformed object');
    const valueStart = skipSpace(text, i + 1);
    const valueEnd = skipValue(text, valueStart);
    members.push({ key, keyStart, keyEnd, valueStart, valueEnd });
    i = skipSpace(text, valueEnd);
    if (text[i] === '}') return { open, close: i, members };
    if (text[i] !== ',') throw new Error('malformed object');
    i = skipSpace(text, i + 1);
  }
}

/** The whitespace that starts the line holding `offset`. */
function lineIndentAt(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart, offset))?.[0] ?? '';
}

function isOnOwnLine(text: string, offset: number): boolean {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*$/.test(text.slice(lineStart, offset));
}

/** What sits between a key and its value (`": "` style), so new entries match. */
function separatorOf(text: string, member: JsonMember): string {
  return text.slice(member.keyEnd, member.valueStart);
}

function renderEntry(name: string, range: string, separator: string): string {
  return `${JSON.stringify(name)}${separator}${JSON.stringify(range)}`;
}

/** Splices entries into an existing object whose key line is indented by `outerIndent`. */
function insertEntries(
  text: string,
  object: JsonObjectSpan,
  outerIndent: string,
  names: string[],
  add: Record<string, string>,
  unit: string,
  eol: string,
  fallbackSeparator: string,
): string {
  const { members } = object;
  if (members.length === 0 && !text.trimEnd().includes('\n')) {
    // `"dependencies": {}` inside a one-line file stays on its line
    const style = getInlineStyle(text, object, fallbackSeparator);
    const body = names.map((name) => renderEntry(name, add[name], style.sep)).join(style.between);
    return text.slice(0, object.open + 1) + style.pad + body + style.pad + text.slice(object.close);
  }
  if (members.length === 0) {
    const inner = outerIndent + unit;
    const sep = fallbackSeparator.includes(' ') ? ': ' : ':';
    const body = names.map((name) => inner + renderEntry(name, add[name], sep)).join(`,${eol}`);
    return text.slice(0, object.open + 1) + eol + body + eol + outerIndent + text.slice(object.close);
  }
  const multiline = isOnOwnLine(text, members[0].keyStart);
  const entryIndent = multiline ? lineIndentAt(text, members[0].keyStart) : '';
  // on one line, entries are joined the way the object joins its own (`,` or `, `)
  const between = multiline ? `,${eol}${entryIndent}` : getInlineStyle(text, object, separatorOf(text, members[0])).between;
  const sep = separatorOf(text, members[0]);
  const sorted = members.every((m, i) => i === 0 || compareNames(members[i - 1].key, m.key) <= 0);
  // slot i < members.length: before members[i]; slot members.length: after the last member.
  const slots = new Map<number, string[]>();
  for (const name of names) {
    const slot = sorted ? indexOrEnd(members.findIndex((m) => compareNames(name, m.key) < 0), members.length) : members.length;
    slots.set(slot, [...(slots.get(slot) ?? []), renderEntry(name, add[name], sep)]);
  }
  const edits: { at: number; insert: string }[] = [];
  for (const [slot, entries] of slots) {
    if (slot < members.length) edits.push({ at: members[slot].keyStart, insert: entries.map((e) => e + between).join('') });
    else edits.push({ at: members[members.length - 1].valueEnd, insert: entries.map((e) => between + e).join('') });
  }
  return applyEdits(text, edits);
}

/** Adds a `"dependencies": { ... }` member to the top-level object, before devDependencies when present. */
function insertDependenciesMember(text: string, root: JsonObjectSpan, names: string[], add: Record<string, string>, unit: string, eol: string): string {
  const { members } = root;
  const sep = members.length > 0 ? separatorOf(text, members[0]) : ': ';
  if (members.length > 0 && !text.slice(root.open, root.close).includes('\n')) {
    // a one-line package.json stays one line: `{ "name": "x", "dependencies": { "a": "^1" } }`
    const style = getInlineStyle(text, root, sep);
    const entries = names.map((name) => renderEntry(name, add[name], style.sep)).join(style.between);
    const member = `"dependencies"${style.sep}{${style.pad}${entries}${style.pad}}`;
    const devIndex = members.findIndex((m) => m.key === 'devDependencies');
    if (devIndex !== -1) return applyEdits(text, [{ at: members[devIndex].keyStart, insert: `${member}${style.between}` }]);
    return applyEdits(text, [{ at: members[members.length - 1].valueEnd, insert: `${style.between}${member}` }]);
  }
  const memberIndent = members.length > 0 && isOnOwnLine(text, members[0].keyStart) ? lineIndentAt(text, members[0].keyStart) : unit;
  const entries = names.map((name) => memberIndent + unit + renderEntry(name, add[name], sep)).join(`,${eol}`);
  const member = `"dependencies"${sep}{${eol}${entries}${eol}${memberIndent}}`;
  if (members.length === 0) {
    return text.slice(0, root.open + 1) + eol + memberIndent + member + eol + text.slice(root.close);
  }
  const devIndex = members.findIndex((m) => m.key === 'devDependencies');
  if (devIndex !== -1) return applyEdits(text, [{ at: members[devIndex].keyStart, insert: `${member},${eol}${memberIndent}` }]);
  return applyEdits(text, [{ at: members[members.length - 1].valueEnd, insert: `,${eol}${memberIndent}${member}` }]);
}

/**
 * How a one-line object is written: what joins two members (`,` or `, `, from its own first two members,
 * else from whether `key: value` has a space), what sits between a key and its value, and the padding
 * inside its braces (`{ "a": 1 }` or `{"a":1}`).
 */
function getInlineStyle(text: string, object: JsonObjectSpan, fallbackSeparator: string): { between: string; sep: string; pad: string } {
  const { members } = object;
  const sep = members.length > 0 ? separatorOf(text, members[0]) : fallbackSeparator.replace(/\s+$/, ' ').replace(/^\s+/, '');
  const spaced = sep.includes(' ');
  const joint = members.length >= 2 ? text.slice(members[0].valueEnd, members[1].keyStart) : null;
  const between = joint !== null && /^\s*,[ \t]*$/.test(joint) ? joint.trimStart() : spaced ? ', ' : ',';
  const pad = members.length > 0 ? (text[object.open + 1] === ' ' ? ' ' : '') : spaced ? ' ' : '';
  return { between, sep, pad };
}

function indexOrEnd(index: number, end: number): number {
  return index === -1 ? end : index;
}

function applyEdits(text: string, edits: { at: number; insert: string }[]): string {
  let out = text;
  for (const edit of [...edits].sort((a, b) => b.at - a.at)) out = out.slice(0, edit.at) + edit.insert + out.slice(edit.at);
  return out;
}
