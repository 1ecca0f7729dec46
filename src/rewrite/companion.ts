// A companion module the tool writes next to a server (the envelope helper, the SDK boundary) and what
// each module of the server needs to use it: the file for the server's language and module system, the
// specifier that imports it, names that are free in the module, and the import line in the module's
// own style. One place for both rewrites, so that they name, place and import their modules alike.
import { dirname, extname, join, relative } from 'node:path';
import type { ModuleUnit } from '../analysis/program.js';
import type { ModuleKind } from '../model/types.js';
import { quoted, semi, type CodeStyle } from './style.js';
import { writesImports } from './imports.js';

export type CompanionKind = 'cjs' | 'esm' | 'ts';

export interface CompanionModule {
  kind: CompanionKind;
  /** Where the module is written. */
  path: string;
  /** What a module in the same directory imports: `./mcp-envelope.js` (TS imports the emitted name). */
  specifier: string;
}

/** The companion file `base` next to a server, by extension and module syntax (`esm` when the file uses import/export). */
export function getCompanionModule(base: string, serverPath: string, syntax: 'esm' | 'cjs'): CompanionModule {
  const ext = extname(serverPath).toLowerCase();
  const at = (file: string): string => join(dirname(serverPath), file);
  switch (ext) {
    case '.ts':
    case '.tsx':
      return { kind: 'ts', path: at(`${base}.ts`), specifier: `./${base}.js` };
    case '.mts':
      return { kind: 'ts', path: at(`${base}.mts`), specifier: `./${base}.mjs` };
    case '.cts':
      return { kind: 'ts', path: at(`${base}.cts`), specifier: `./${base}.cjs` };
    case '.mjs':
      return { kind: 'esm', path: at(`${base}.mjs`), specifier: `./${base}.mjs` };
    case '.cjs':
      return { kind: 'cjs', path: at(`${base}.cjs`), specifier: `./${base}.cjs` };
    default:
      return { kind: syntax, path: at(`${base}.js`), specifier: `./${base}.js` };
  }
}

/** The module system of a module: its extension, else the package's (the runner knows it), else its syntax. */
export function getModuleSyntax(mod: ModuleUnit, moduleKind: ModuleKind | undefined): 'esm' | 'cjs' {
  if (/\.m[jt]s$/i.test(mod.path)) return 'esm';
  if (/\.c[jt]s$/i.test(mod.path)) return 'cjs';
  return moduleKind ?? (mod.syntax === 'esm' ? 'esm' : 'cjs');
}

/** `./mcp-envelope.js` from a module in the companion's directory, `../mcp-envelope.js` from a subdirectory. */
export function getSpecifier(mod: ModuleUnit, companion: CompanionModule): string {
  const target = companion.path.slice(0, -extname(companion.path).length) + extname(companion.specifier);
  let rel = relative(dirname(mod.path), target).split('\\').join('/');
  if (!rel.startsWith('.')) rel = `./${rel}`;
  return rel;
}

/** The first of `candidates` that no scope of the module declares, or null. */
export function pickFreeName(mod: ModuleUnit, candidates: readonly string[]): string | null {
  return candidates.find((name) => !isDeclaredIn(mod, name)) ?? null;
}

/** Whether some scope of the module declares `name`. */
export function isDeclaredIn(mod: ModuleUnit, name: string): boolean {
  for (const scope of mod.index.scopes.values()) if (scope.has(name)) return true;
  return false;
}

/** `import { createX } from './x.js';` or `const { createX } = require('./x.js');`, renamed to `local` when taken. */
export function buildImportLine(mod: ModuleUnit, syntax: 'esm' | 'cjs', style: CodeStyle, exported: string, local: string, specifier: string): string {
  const useImport = writesImports(syntax, mod);
  const imported = local === exported ? exported : `${exported}${useImport ? ' as ' : ': '}${local}`;
  return useImport ? `import { ${imported} } from ${quoted(style, specifier)}${semi(style)}` : `const { ${imported} } = require(${quoted(style, specifier)})${semi(style)}`;
}

/** After a statement's trailing `// comment` on the same line, so the comment stays with its statement. */
export function endOfLine(source: string, offset: number): number {
  const rest = /^[ \t]*(\/\/[^\r\n]*|\/\*[^\r\n]*?\*\/[ \t]*)?(?=\r?\n|$)/.exec(source.slice(offset));
  return rest === null ? offset : offset + rest[0].length;
}
