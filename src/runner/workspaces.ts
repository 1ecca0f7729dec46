// Monorepo awareness: find the workspace root above a scan target and the packages it declares
// (npm/yarn/bun `workspaces`, either an array or `{ packages: [] }`, and pnpm-workspace.yaml
// `packages:`). Used to group results per package and to run one install at the root.
// Deliberately not a YAML parser: it reads the `packages:` list of pnpm-workspace.yaml line by line.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { isInside, SKIPPED_DIRECTORIES, toPosix } from './discover.js';
import { readManifest } from './manifest.js';

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
  /** "workspace pattern "libs/*" matches no package" lines; the run goes on. */
  warnings: string[];
}

/**
 * The closest workspace root at or above `start` (not climbing past `stop`, the git root, when given),
 * with its packages; null when `start` is not inside a workspace.
 */
export async function resolveWorkspace(start: string, stop: string | null): Promise<Workspace | null> {
  const found = await resolveWorkspaceRoot(start, stop);
  if (found === null) return null;
  const { packages, warnings } = await expandWorkspacePatterns(found.root, found.patterns);
  return { ...found, packages, warnings };
}

/** Like resolveWorkspace, without listing the packages (cheap: reads one or two files per directory). */
export async function resolveWorkspaceRoot(start: string, stop: string | null): Promise<{ root: string; manager: 'npm' | 'pnpm'; patterns: string[] } | null> {
  for (let dir = start; ; dir = dirname(dir)) {
    const patterns = await readWorkspacePatterns(dir);
    if (patterns !== null) return { root: dir, ...patterns };
    if (dir === stop || dirname(dir) === dir || (stop !== null && !isInside(stop, dir))) return null;
  }
}

async function readWorkspacePatterns(dir: string): Promise<{ manager: 'npm' | 'pnpm'; patterns: string[] } | null> {
  try {
    const yaml = await readFile(join(dir, 'pnpm-workspace.yaml'), 'utf8');
    return { manager: 'pnpm', patterns: parsePnpmWorkspacePackages(yaml) };
  } catch {
    // no pnpm workspace here
  }
  const manifest = await readManifest(join(dir, 'package.json'));
  const field = manifest?.json?.workspaces;
  if (Array.isArray(field)) return { manager: 'npm', patterns: field.filter((p): p is string => typeof p === 'string') };
  if (field !== null && typeof field === 'object') {
    const packages = (field as { packages?: unknown }).packages;
    if (Array.isArray(packages)) return { manager: 'npm', patterns: packages.filter((p): p is string => typeof p === 'string') };
  }
  return null;
}

/** The `packages:` list of a pnpm-workspace.yaml (block list items, or a one-line `[a, b]` flow list). */
export function parsePnpmWorkspacePackages(yaml: string): string[] {
  const patterns: string[] = [];
  let inPackages = false;
  for (const rawLine of yaml.split(/\r?\n/)) {
    const line = rawLine.replace(/\s+#.*$/, '').replace(/^#.*$/, '');
    if (line.trim() === '') continue;
    const topLevel = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (topLevel !== null) {
      inPackages = topLevel[1] === 'packages';
      const rest = topLevel[2].trim();
      if (inPackages && rest.startsWith('[')) {
        patterns.push(...rest.replace(/^\[|\]$/g, '').split(',').map(unquote).filter((p) => p !== ''));
        inPackages = false;
      }
      continue;
    }
    const item = /^\s*-\s*(.+)$/.exec(line);
    if (inPackages && item !== null) patterns.push(unquote(item[1]));
  }
  return patterns;
}

function unquote(text: string): string {
  const trimmed = text.trim();
  return /^(['"]).*\1$/.test(trimmed) ? trimmed.slice(1, -1) : trimmed;
}

/** Directories (holding a package.json) matched by workspace patterns; `!pattern` excludes. */
export async function expandWorkspacePatterns(root: string, patterns: readonly string[]): Promise<{ packages: WorkspacePackage[]; warnings: string[] }> {
  const warnings: string[] = [];
  const included = new Set<string>();
  const exclusions = patterns.filter((p) => p.startsWith('!')).map((p) => patternToRegex(normalizePattern(p.slice(1))));
  for (const raw of patterns) {
    if (raw.startsWith('!')) continue;
    const pattern = normalizePattern(raw);
    const dirs = await matchDirectories(root, pattern.split('/').filter((s) => s !== ''));
    let matched = 0;
    for (const dir of dirs) {
      if ((await readManifest(join(dir, 'package.json'))) === null) continue;
      matched++;
      included.add(dir);
    }
    if (matched === 0) warnings.push(`workspace pattern "${raw}" in ${root} matches no package`);
  }
  const packages: WorkspacePackage[] = [];
  for (const dir of [...included].sort()) {
    const rel = toPosix(relative(root, dir));
    if (exclusions.some((regex) => regex.test(rel))) continue;
    const name = (await readManifest(join(dir, 'package.json')))?.json?.name;
    packages.push({ name: typeof name === 'string' ? name : null, dir });
  }
  return { packages, warnings };
}

function normalizePattern(pattern: string): string {
  return pattern.replace(/^\.\//, '').replace(/\/+$/, '');
}

function segmentToRegex(segment: string): RegExp {
  const body = segment.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]');
  return new RegExp(`^${body}$`);
}

function patternToRegex(pattern: string): RegExp {
  const body = pattern
    .split('/')
    .map((segment) => (segment === '**' ? '.*' : segmentToRegex(segment).source.slice(1, -1)))
    .join('/');
  return new RegExp(`^${body.replace(/\.\*\//g, '(?:.*/)?')}$`);
}

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

async function matchDirectories(dir: string, segments: string[]): Promise<string[]> {
  if (segments.length === 0) return [dir];
  const [head, ...rest] = segments;
  if (head === '**') {
    // `**` matches this directory and any directory below it.
    const out = await matchDirectories(dir, rest);
    for (const child of await listDirectories(dir)) out.push(...(await matchDirectories(child, segments)));
    return out;
  }
  if (!/[*?]/.test(head)) return matchDirectories(join(dir, head), rest);
  const regex = segmentToRegex(head);
  const out: string[] = [];
  for (const child of await listDirectories(dir)) {
    if (regex.test(child.slice(dir.length + 1))) out.push(...(await matchDirectories(child, rest)));
  }
  return out;
}
