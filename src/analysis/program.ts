// The program a candidate file belongs to: the file itself plus the modules it reaches through
// relative imports (`import ... from './x.js'`, `require('./x')`) or the package's own import aliases
// (./aliases.ts), each parsed once and indexed once.
// Reading other files is the caller's job (`ReadModule`); this module only resolves names to paths,
// so the pipeline stays free of I/O. A dynamic `import()` of one literal specifier is an import too (a CLI
// that loads its `serve` command on demand). Deliberately not: other packages' imports (only Node's
// built-in modules are known, by name, to the interpreter) and `import()` of a computed specifier.
import { builtinModules } from 'node:module';
import { dirname, extname, join } from 'node:path';
import type * as t from '@babel/types';
import { parseSource } from '../parse.js';
import { AliasResolver } from './aliases.js';
import type { ReadModule } from './read-module.js';
import { isToolCompanion } from './companions.js';
import { type AstIndex, buildIndex, getStringValue, unwrapExpression } from './ast.js';

export type ModuleSyntax = 'esm' | 'cjs' | 'none';

export interface ModuleUnit {
  path: string;
  source: string;
  ast: t.File;
  index: AstIndex;
  syntax: ModuleSyntax;
}

/** How many modules one program may pull in: a server is a handful of files, never a whole tree. */
export const MAX_MODULES = 40;
const MAX_MODULE_BYTES = 1_000_000;

const SOURCE_EXTENSIONS = ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.tsx', '.jsx'];

export class Program {
  readonly entry: ModuleUnit;
  private readonly byPath = new Map<string, ModuleUnit | null>();
  private aliases: AliasResolver | undefined;

  constructor(
    path: string,
    source: string,
    ast: t.File,
    private readonly read: ReadModule | null = null,
  ) {
    this.entry = createUnit(path, source, ast);
    this.byPath.set(path, this.entry);
  }

  /** Every module loaded so far, the entry first. */
  get modules(): ModuleUnit[] {
    return [...this.byPath.values()].filter((m): m is ModuleUnit => m !== null);
  }

  /**
   * The module a relative specifier names from `from`, or an alias of the package's own files (`#lib/x`,
   * a tsconfig `paths` pattern), loaded and indexed on first use; null for packages and built-ins.
   */
  resolveImport(from: ModuleUnit, specifier: string): ModuleUnit | null {
    if (this.read === null) return null;
    const relative = isRelativeSpecifier(specifier);
    if (!relative && (specifier.startsWith('node:') || BUILTINS.has(specifier))) return null;
    const candidates = relative ? getModuleCandidates(from.path, specifier) : (this.aliases ??= new AliasResolver(this.read)).resolve(from.path, specifier).flatMap(getCandidatePaths);
    for (const candidate of candidates) {
      const known = this.byPath.get(candidate);
      if (known !== undefined) {
        if (known !== null) return known;
        continue;
      }
      if (this.byPath.size >= MAX_MODULES) return null;
      const text = this.read(candidate);
      if (text === null || text.length > MAX_MODULE_BYTES || isToolCompanion(candidate, text)) {
        this.byPath.set(candidate, null);
        continue;
      }
      try {
        const unit = createUnit(candidate, text, parseSource(candidate, text));
        this.byPath.set(candidate, unit);
        return unit;
      } catch {
        this.byPath.set(candidate, null);
      }
    }
    return null;
  }

  /**
   * Loads every module the entry reaches through static relative (or aliased) imports and requires, and
   * literal `import()` calls unless `onDemand` is false (then: the modules every run of the entry loads).
   */
  loadReachable(options: { onDemand?: boolean } = {}): ModuleUnit[] {
    const queue = [this.entry];
    const seen = new Set<ModuleUnit>();
    while (queue.length > 0) {
      const unit = queue.shift()!;
      if (seen.has(unit)) continue;
      seen.add(unit);
      for (const specifier of getStaticSpecifiers(unit, options.onDemand ?? true)) {
        const next = this.resolveImport(unit, specifier);
        if (next && !seen.has(next)) queue.push(next);
      }
    }
    return [...seen];
  }
}

function createUnit(path: string, source: string, ast: t.File): ModuleUnit {
  const index = buildIndex(ast, source);
  return { path, source, ast, index, syntax: getModuleSyntax(ast, index, path) };
}

/** The files a relative specifier may name, from the importing file's path, most likely first. */
export function getModuleCandidates(fromPath: string, specifier: string): string[] {
  return getCandidatePaths(join(dirname(fromPath), specifier));
}

/** `./x.js` may be `./x.ts` on disk (TypeScript's NodeNext spelling), `./x` any extension or an index file. */
function getCandidatePaths(base: string): string[] {
  const out = [base];
  const ext = extname(base);
  const swap: Record<string, string[]> = { '.js': ['.ts', '.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'], '.jsx': ['.tsx'] };
  for (const alt of swap[ext] ?? []) out.push(base.slice(0, -ext.length) + alt);
  if (!SOURCE_EXTENSIONS.includes(ext)) {
    for (const e of SOURCE_EXTENSIONS) out.push(base + e);
    for (const e of SOURCE_EXTENSIONS) out.push(join(base, `index${e}`));
  }
  return out;
}

/**
 * Specifiers of static imports, re-exports and `require('x')` calls, and of literal `import('x')` calls
 * unless `onDemand` is false (resolveImport tells the package's own files from the rest).
 */
export function getStaticSpecifiers(unit: ModuleUnit, onDemand = true): string[] {
  const out = new Set<string>();
  for (const statement of unit.ast.program.body) {
    if ((statement.type === 'ImportDeclaration' || statement.type === 'ExportAllDeclaration' || statement.type === 'ExportNamedDeclaration') && statement.source) {
      out.add(statement.source.value);
    }
  }
  for (const call of unit.index.calls) {
    const required = getRequiredSpecifier(call) ?? (onDemand ? getImportedSpecifier(call) : null);
    if (required !== null) out.add(required);
  }
  return [...out];
}

/** `import('./x.js')` -> './x.js' (a dynamic import of one static string). */
export function getImportedSpecifier(call: t.CallExpression | t.OptionalCallExpression): string | null {
  return call.callee.type === 'Import' && call.arguments.length >= 1 ? getStringValue(call.arguments[0]!) : null;
}

function isRelativeSpecifier(specifier: string): boolean {
  return specifier.startsWith('./') || specifier.startsWith('../');
}

const BUILTINS: ReadonlySet<string> = new Set(builtinModules);

/** `require('x')` -> 'x' (a call of the global require with one static string). */
export function getRequiredSpecifier(call: t.CallExpression): string | null {
  const callee = unwrapExpression(call.callee);
  if (callee.type !== 'Identifier' || callee.name !== 'require' || call.arguments.length !== 1) return null;
  return getStringValue(call.arguments[0]!);
}

function getModuleSyntax(ast: t.File, index: AstIndex, path: string): ModuleSyntax {
  const ext = extname(path).toLowerCase();
  if (ext === '.mjs' || ext === '.mts') return 'esm';
  if (ext === '.cjs' || ext === '.cts') return 'cjs';
  const body = ast.program.body;
  if (body.some((s) => s.type === 'ImportDeclaration' || s.type.startsWith('Export'))) return 'esm';
  if (index.calls.some((c) => getRequiredSpecifier(c) !== null)) return 'cjs';
  if (index.members.some((m) => m.object.type === 'Identifier' && m.object.name === 'module' && m.property.type === 'Identifier' && m.property.name === 'exports')) return 'cjs';
  return 'none';
}
