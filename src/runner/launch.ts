// How the proof starts a server when the entry file alone does not start it: as the package's own
// documentation tells MCP clients to (`"command": "npx", "args": ["-y", "gtwmcp", "serve"]` in its
// README, a `.mcp.json`), when that command runs a file of the package that reaches the rewritten entry
// through its imports (a CLI whose `serve` subcommand loads the server, a server that wants `--stdio`).
// Read-only: files in, a command out; nothing here runs anything.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, normalize, relative, sep } from 'node:path';
import { findStringEnd, parseJsonLoosely } from '../analysis/jsonc.js';
import { Program } from '../analysis/program.js';
import { parseSource } from '../parse.js';
import { isInside } from './discover.js';
import { readModuleSync } from './read-module.js';

/** A documented way to start the server: a file of the package and the arguments it is given. */
export interface Launch {
  file: string;
  args: string[];
  /** Where it is documented, relative to the package (`README.md`). */
  source: string;
}

/** The client configurations a repository documents: its README's JSON, an `.mcp.json`. */
const DOC_NAMES = /^(?:readme(?:\.(?:md|markdown|txt))?|\.?mcp\.json)$/i;
/** A document larger than this is not read for a launch command. */
const MAX_DOC_BYTES = 512 * 1024;
/** Runners that take a package name first (`npx -y pkg args`, `pnpm dlx pkg args`). */
const PACKAGE_RUNNERS = new Set(['npx', 'bunx', 'pnpx']);
const DLX_RUNNERS = new Set(['pnpm', 'yarn', 'npm']);

/**
 * The documented launch that starts `entry` with arguments, looked for in `packageDir` and the
 * directories above it up to `stopDir`; null when none is documented (the proof runs the entry alone).
 */
export function findDocumentedLaunch(packageDir: string, entry: string, stopDir: string): Launch | null {
  const manifest = readManifest(packageDir);
  for (const dir of getDocDirs(packageDir, stopDir)) {
    for (const doc of listDocs(dir)) {
      for (const spec of readClientConfigs(doc)) {
        const launch = resolveLaunch(spec, packageDir, manifest);
        if (launch === null || launch.args.length === 0) continue;
        if (reaches(launch.file, entry)) return { ...launch, source: relative(packageDir, doc).split(sep).join('/') };
      }
    }
  }
  return null;
}

interface ClientConfig {
  command: string;
  args: string[];
}

interface PackageManifest {
  name: string | null;
  bin: Record<string, string>;
}

function getDocDirs(packageDir: string, stopDir: string): string[] {
  const dirs = [packageDir];
  if (!isInside(stopDir, packageDir)) return dirs;
  for (let dir = dirname(packageDir); isInside(stopDir, dir) && dirs.length < 8; dir = dirname(dir)) {
    dirs.push(dir);
    if (dir === stopDir || dirname(dir) === dir) break;
  }
  return dirs;
}

function listDocs(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => DOC_NAMES.test(name))
      .sort()
      .map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/** The `{ "command": ..., "args": [...] }` objects a document holds (JSON in a README's code blocks, a config file). */
export function readClientConfigs(path: string): ClientConfig[] {
  let text: string;
  try {
    const stat = statSync(path);
    if (!stat.isFile() || stat.size > MAX_DOC_BYTES) return [];
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return findClientConfigs(text);
}

/** Each object around a `"command"` key that parses as JSON (comments and trailing commas allowed) with a string command and string args. */
export function findClientConfigs(text: string): ClientConfig[] {
  const out: ClientConfig[] = [];
  const seen = new Set<number>();
  for (let at = text.indexOf('"command"'); at !== -1; at = text.indexOf('"command"', at + 1)) {
    const open = findOpeningBrace(text, at);
    if (open === -1 || seen.has(open)) continue;
    seen.add(open);
    const close = findClosingBrace(text, open);
    if (close === -1) continue;
    const value = parseJsonLoosely(text.slice(open, close + 1));
    if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
    const { command, args } = value as Record<string, unknown>;
    if (typeof command !== 'string' || command.trim() === '') continue;
    if (args !== undefined && !(Array.isArray(args) && args.every((a) => typeof a === 'string'))) continue;
    out.push({ command: command.trim(), args: (args as string[] | undefined) ?? [] });
  }
  return out;
}

/** The `{` that opens the object holding `at` (outside strings is good enough for the JSON a README shows). */
function findOpeningBrace(text: string, at: number): number {
  let depth = 0;
  for (let i = at - 1; i >= 0 && at - i < 4096; i--) {
    const c = text[i];
    if (c === '}') depth++;
    else if (c === '{') {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

function findClosingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length && i - open < 8192; i++) {
    const c = text[i];
    if (c === '"') i = findStringEnd(text, i) - 1;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

function readManifest(packageDir: string): PackageManifest {
  try {
    const json = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { name?: unknown; bin?: unknown };
    const name = typeof json.name === 'string' ? json.name : null;
    const bin: Record<string, string> = {};
    if (typeof json.bin === 'string' && name !== null) bin[name.replace(/^@[^/]+\//, '')] = json.bin;
    else if (json.bin !== null && typeof json.bin === 'object') {
      for (const [key, value] of Object.entries(json.bin)) if (typeof value === 'string') bin[key] = value;
    }
    return { name, bin };
  } catch {
    return { name: null, bin: {} };
  }
}

/** The package file a documented command runs, and the arguments after it; null when it runs no file of this package. */
function resolveLaunch(config: ClientConfig, packageDir: string, manifest: PackageManifest): Omit<Launch, 'source'> | null {
  const command = basename(config.command);
  const args = config.args;
  if (PACKAGE_RUNNERS.has(command) || (DLX_RUNNERS.has(command) && (args[0] === 'dlx' || args[0] === 'exec'))) {
    const rest = DLX_RUNNERS.has(command) ? args.slice(1) : args;
    const at = rest.findIndex((a) => !a.startsWith('-'));
    if (at === -1 || manifest.name === null || getPackageName(rest[at]!) !== manifest.name) return null;
    const bins = Object.values(manifest.bin);
    const file = manifest.bin[manifest.name.replace(/^@[^/]+\//, '')] ?? (bins.length === 1 ? bins[0]! : null);
    return file === null ? null : inPackage(packageDir, file, rest.slice(at + 1));
  }
  if (command === 'node' || command === 'tsx' || command === 'bun') {
    const at = args.findIndex((a) => !a.startsWith('-'));
    if (at === -1) return null;
    const file = findPackageFile(packageDir, args[at]!);
    return file === null ? null : { file, args: args.slice(at + 1) };
  }
  const bin = manifest.bin[config.command];
  return bin === undefined ? null : inPackage(packageDir, bin, args);
}

function inPackage(packageDir: string, file: string, args: string[]): Omit<Launch, 'source'> | null {
  const path = join(packageDir, file);
  return isInside(packageDir, path) && existsSync(path) ? { file: path, args } : null;
}

/** `@scope/name@1.2.3` -> `@scope/name`; `name@latest` -> `name`. */
function getPackageName(spec: string): string {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  return at === -1 ? spec : spec.slice(0, at);
}

/**
 * The package file a documented path names: relative to the package, or an absolute path written for
 * the reader's machine (`/path/to/repo/build/index.js`) whose tail is a file of the package.
 */
function findPackageFile(packageDir: string, written: string): string | null {
  const parts = normalize(written).split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
  for (let start = 0; start < parts.length; start++) {
    if (parts[start] === '..') continue;
    const candidate = join(packageDir, ...parts.slice(start));
    if (isInside(packageDir, candidate) && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    if (!isAbsolute(written)) break;
  }
  return null;
}

/** Whether running `file` loads `entry`: the same file, or one its imports reach (literal dynamic imports included). */
function reaches(file: string, entry: string): boolean {
  if (file === entry) return true;
  const source = readModuleSync(file);
  if (source === null) return false;
  try {
    const program = new Program(file, source, parseSource(file, source), readModuleSync);
    return program.loadReachable().some((unit) => unit.path === entry);
  } catch {
    return false;
  }
}
