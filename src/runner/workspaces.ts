// Monorepo awareness: find the workspace root above a scan target and the packages it declares
// (npm/yarn/bun `workspaces`, either an array or `{ packages: [] }`, and pnpm-workspace.yaml
// `packages:`, read with a real YAML parser: flow and block lists, anchors, quoting styles, comments).
// Used to group results per package and to run one install at the root.
import { realpathSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { createRequire } from 'node:module';
import { isInside, SKIPPED_DIRECTORIES, toPosix } from './discover.js';
import { compileGlob, matchGlob } from './gitignore.js';
import { MAX_MANIFEST_BYTES, readManifest } from './manifest.js';
import { readRegularFileSync } from './safe-read.js';

export interface WorkspacePackage {
  /** `name` from its package.json, or null when it has none. */
  name: string | null;
  dir: string;
}

export interface Workspace {
  root: string;
  manager: 'npm' | 'pnpm';
  patterns: string[];
  packages: WorkspacePackage[];
  /** "workspace pattern "libs/*" matches no package", "pnpm-workspace.yaml is not valid YAML" lines; the run goes on. */
  warnings: string[];
}

/**
 * The closest workspace root at or above `start` (not climbing past `stop`, the git root, when given),
 * with its packages; null when `start` is not inside a workspace.
 */
export async function resolveWorkspace(start: string, stop: string | null): Promise<Workspace | null> {
  return new WorkspaceCache().resolve(start, stop);
}

/**
 * One run's workspaces: the scope (which packages are members) and the summary (each result's package)
 * ask about the same root, and an expansion reads every member's package.json; it is done once per root
 * and patterns.
 */
export class WorkspaceCache {
  private readonly expansions = new Map<string, Promise<{ packages: WorkspacePackage[]; warnings: string[] }>>();

  async resolve(start: string, stop: string | null): Promise<Workspace | null> {
    const found = await resolveWorkspaceRoot(start, stop);
    if (found === null) return null;
    const key = JSON.stringify([found.root, found.patterns]);
    let expansion = this.expansions.get(key);
    if (expansion === undefined) {
      expansion = expandWorkspacePatterns(found.root, found.patterns);
      this.expansions.set(key, expansion);
    }
    const { packages, warnings } = await expansion;
    return { root: found.root, manager: found.manager, patterns: found.patterns, packages: [...packages], warnings: [...found.warnings, ...warnings] };
  }
}

/** Like resolveWorkspace, without listing the packages (cheap: reads one or two files per directory). */
export async function resolveWorkspaceRoot(start: string, stop: string | null): Promise<{ root: string; manager: 'npm' | 'pnpm'; patterns: string[]; warnings: string[] } | null> {
  for (let dir = start; ; dir = dirname(dir)) {
    const patterns = await readWorkspacePatterns(dir);
    if (patterns !== null) return { root: dir, ...patterns };
    if (dir === stop || dirname(dir) === dir || (stop !== null && !isInside(stop, dir))) return null;
  }
}

async function readWorkspacePatterns(dir: string): Promise<{ manager: 'npm' | 'pnpm'; patterns: string[]; warnings: string[] } | null> {
  let text: string | null = null;
  const read = readRegularFileSync(join(dir, 'pnpm-workspace.yaml'), MAX_MANIFEST_BYTES);
  if (read.kind === 'ok') text = read.bytes.toString('utf8');
  else if (read.kind === 'refused') return { manager: 'pnpm', patterns: [], warnings: [`${join(dir, 'pnpm-workspace.yaml')}: ${read.reason}; its workspace packages are not known`] };
  if (text !== null) {
    const read = readPnpmWorkspace(text);
    return { manager: 'pnpm', patterns: read.patterns, warnings: read.problem === null ? [] : [`${join(dir, 'pnpm-workspace.yaml')}: ${read.problem}`] };
  }
  const manifest = await readManifest(join(dir, 'package.json'));
  const field = manifest?.json?.workspaces;
  if (Array.isArray(field)) return { manager: 'npm', patterns: field.filter((p): p is string => typeof p === 'string'), warnings: [] };
  if (field !== null && typeof field === 'object') {
    const packages = (field as { packages?: unknown }).packages;
    if (Array.isArray(packages)) return { manager: 'npm', patterns: packages.filter((p): p is string => typeof p === 'string'), warnings: [] };
  }
  return null;
}

/** The YAML parser, loaded with the first pnpm-workspace.yaml read (~40 ms of every run's start otherwise). */
function loadYaml(): typeof import('yaml') {
  return createRequire(import.meta.url)('yaml') as typeof import('yaml');
}

/** The `packages:` list of a pnpm-workspace.yaml (any YAML form); empty when it has none or is not valid YAML. */
export function parsePnpmWorkspacePackages(text: string): string[] {
  return readPnpmWorkspace(text).patterns;
}

/**
 * The `packages:` patterns of a pnpm-workspace.yaml, and what is wrong with the file when it cannot be read
 * as one (not valid YAML, `packages` not a list, entries that are not strings): said, not read as empty.
 * A file without `packages` is valid (pnpm 9+: a workspace of the root package alone, settings only).
 */
export function readPnpmWorkspace(text: string): { patterns: string[]; problem: string | null } {
  const doc = loadYaml().parseDocument(text, { uniqueKeys: false });
  const error = doc.errors[0];
  if (error !== undefined) {
    const line = error.linePos?.[0].line;
    const message = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    return { patterns: [], problem: `not valid YAML${line === undefined ? '' : ` (line ${line})`}: ${message}; its workspace packages are not known` };
  }
  const root: unknown = doc.toJS({ maxAliasCount: 100 });
  if (root === null || root === undefined) return { patterns: [], problem: null };
  if (typeof root !== 'object' || Array.isArray(root)) return { patterns: [], problem: 'the top level is not a mapping; its workspace packages are not known' };
  const packages: unknown = (root as Record<string, unknown>)['packages'];
  if (packages === undefined || packages === null) return { patterns: [], problem: null };
  if (!Array.isArray(packages)) return { patterns: [], problem: '`packages` is not a list; its workspace packages are not known' };
  const patterns = packages.filter((p): p is string => typeof p === 'string');
  const others = packages.length - patterns.length;
  return { patterns, problem: others === 0 ? null : `${others} \`packages\` ${others === 1 ? 'entry is' : 'entries are'} not a string; ignored` };
}

/** Directories a workspace pattern's `**` may look into, all patterns together: beyond this the walk stops (and says so). */
export const MAX_WORKSPACE_DIRECTORIES = 20_000;

/**
 * Directories (holding a package.json) matched by workspace patterns; `!pattern` excludes. Confined to
 * `root`: a pattern that is absolute or climbs out (`../../**`) is ignored with a warning, symbolic links
 * are never entered, and a match whose real path lies outside the real root is dropped.
 */
export async function expandWorkspacePatterns(root: string, patterns: readonly string[]): Promise<{ packages: WorkspacePackage[]; warnings: string[] }> {
  const warnings: string[] = [];
  // member directory -> its package.json's name (each read once)
  const included = new Map<string, string | null>();
  const exclusions = patterns.filter((p) => p.startsWith('!')).map((p) => compileGlob(normalizePattern(p.slice(1))));
  const realRoot = realPath(root);
  const budget = { left: MAX_WORKSPACE_DIRECTORIES };
  for (const raw of patterns) {
    if (raw.startsWith('!')) continue;
    const pattern = normalizePattern(raw);
    const segments = pattern.split('/').filter((s) => s !== '' && s !== '.');
    if (isAbsolute(pattern) || /^[A-Za-z]:/.test(pattern) || segments.includes('..')) {
      warnings.push(`workspace pattern "${raw}" in ${root} leaves the workspace root; ignored`);
      continue;
    }
    const dirs = await matchDirectories(root, segments, budget);
    let matched = 0;
    for (const dir of dirs) {
      if (!isInside(realRoot, realPath(dir))) continue;
      const manifest = await readManifest(join(dir, 'package.json'));
      if (manifest === null) continue;
      matched++;
      const name = manifest.json?.name;
      included.set(dir, typeof name === 'string' ? name : null);
    }
    if (matched === 0) warnings.push(`workspace pattern "${raw}" in ${root} matches no package`);
  }
  if (budget.left <= 0) warnings.push(`workspace patterns in ${root} reach more than ${MAX_WORKSPACE_DIRECTORIES.toLocaleString('en-US')} directories; the rest were not looked at`);
  const packages: WorkspacePackage[] = [];
  for (const [dir, name] of [...included].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const rel = toPosix(relative(root, dir));
    if (exclusions.some((glob) => matchGlob(glob, rel))) continue;
    packages.push({ name, dir });
  }
  return { packages, warnings };
}

/** The path with its links resolved (the native call, synchronous: one per member, not a thread-pool round trip), or itself. */
function realPath(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

function normalizePattern(pattern: string): string {
  return pattern.replace(/^\.\//, '').replace(/\/+$/, '');
}

// Globs are matched by the .gitignore matcher's simulation (./gitignore.ts): time linear in the name and
// the pattern, whatever the stars (`packages/*a*a*a*a*a*b` backtracks a regular expression for minutes).
async function listDirectories(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries
      .filter((e) => e.isDirectory() && !e.isSymbolicLink() && !SKIPPED_DIRECTORIES.includes(e.name))
      .map((e) => join(dir, e.name))
      .sort();
  } catch {
    return [];
  }
}

async function matchDirectories(dir: string, segments: string[], budget: { left: number }): Promise<string[]> {
  if (segments.length === 0) return [dir];
  if (--budget.left < 0) return [];
  const [head, ...rest] = segments;
  if (head === '**') {
    // `**` matches this directory and any directory below it.
    const out = await matchDirectories(dir, rest, budget);
    for (const child of await listDirectories(dir)) out.push(...(await matchDirectories(child, segments, budget)));
    return out;
  }
  if (!/[*?]/.test(head)) return matchDirectories(join(dir, head), rest, budget);
  const glob = compileGlob(head);
  const out: string[] = [];
  for (const child of await listDirectories(dir)) {
    if (matchGlob(glob, child.slice(dir.length + 1))) out.push(...(await matchDirectories(child, rest, budget)));
  }
  return out;
}
