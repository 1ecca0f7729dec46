// Module values for the interpreter: what an import or a require of a relative module or a Node
// builtin evaluates to, and what a module exports under a name (ES exports, `module.exports`, `exports.x`).
// Deliberately not: packages (only Node's built-in modules are known, by name).
import { getMemberName, isModuleExports } from './ast.js';
import { UNKNOWN, type Val } from './values.js';
import { getBuiltinName } from './interp-helpers.js';
import type { Evaluator } from './evaluator.js';
import type { ModuleUnit } from './program.js';

export class ModuleValues {
  constructor(private readonly interp: Evaluator) {}

  importValue(source: string, imported: string, mod: ModuleUnit): Val {
    const builtin = getBuiltinName(source);
    if (builtin !== null) {
      if (imported === '*' || imported === 'default') return builtin === 'process' ? { k: 'global', name: 'process' } : { k: 'builtin', name: builtin };
      if (builtin === 'process') return this.interp.builtinMember('process', imported);
      return this.interp.builtinMember(builtin, imported);
    }
    const target = this.interp.program.resolveImport(mod, source);
    if (!target) return UNKNOWN;
    if (imported === '*') return { k: 'ns', mod: target };
    return this.exportValue(target, imported);
  }

  requireValue(spec: string, mod: ModuleUnit): Val {
    const builtin = getBuiltinName(spec);
    if (builtin !== null) return builtin === 'process' ? { k: 'global', name: 'process' } : { k: 'builtin', name: builtin };
    const target = this.interp.program.resolveImport(mod, spec);
    if (!target) return UNKNOWN;
    const whole = this.cjsExportsObject(target);
    return whole ?? { k: 'ns', mod: target };
  }

  /**
   * `import('./x.js')` with a literal specifier: the module's namespace (its `default` is a CommonJS
   * module's `module.exports`, see exportValue), once the promise it returns settles.
   */
  dynamicImportValue(spec: string, mod: ModuleUnit): Val {
    const namespace = this.importValue(spec, '*', mod);
    return namespace.k === 'unknown' ? UNKNOWN : { k: 'promise', value: namespace };
  }

  /** `module.exports = X` (a class, a function, an object): what require() returns. */
  private cjsExportsObject(mod: ModuleUnit): Val | null {
    for (const statement of mod.ast.program.body) {
      if (statement.type !== 'ExpressionStatement' || statement.expression.type !== 'AssignmentExpression') continue;
      const left = statement.expression.left;
      if (left.type === 'MemberExpression' && left.object.type === 'Identifier' && left.object.name === 'module' && getMemberName(left) === 'exports') {
        const value = this.interp.evalStatic(statement.expression.right, mod);
        if (value.k === 'obj') return { k: 'ns', mod };
        return value;
      }
    }
    return null;
  }

  /** The value a module exports under `name` (ES exports, `module.exports = {...}`, `exports.x = ...`). */
  exportValue(mod: ModuleUnit, name: string): Val {
    for (const statement of mod.ast.program.body) {
      if (statement.type === 'ExportNamedDeclaration') {
        const declaration = statement.declaration;
        if (declaration) {
          if ((declaration.type === 'FunctionDeclaration' || declaration.type === 'ClassDeclaration') && declaration.id?.name === name) {
            return declaration.type === 'FunctionDeclaration' ? { k: 'func', fn: declaration, mod } : { k: 'class', node: declaration, mod };
          }
          if (declaration.type === 'VariableDeclaration') {
            for (const d of declaration.declarations) {
              if (d.id.type === 'Identifier' && d.id.name === name) return this.interp.evalStatic(d.id, mod);
            }
          }
          if (declaration.type === 'TSEnumDeclaration' && declaration.id.name === name) return { k: 'enum', node: declaration };
        }
        for (const spec of statement.specifiers) {
          if (spec.type !== 'ExportSpecifier') continue;
          const exported = spec.exported.type === 'Identifier' ? spec.exported.name : spec.exported.value;
          if (exported !== name) continue;
          if (statement.source) {
            const target = this.interp.program.resolveImport(mod, statement.source.value);
            return target ? this.exportValue(target, spec.local.name) : UNKNOWN;
          }
          return this.interp.evalStatic(spec.local, mod);
        }
      }
      if (statement.type === 'ExportDefaultDeclaration' && name === 'default') {
        const declaration = statement.declaration;
        if (declaration.type === 'FunctionDeclaration') return { k: 'func', fn: declaration, mod };
        if (declaration.type === 'ClassDeclaration') return { k: 'class', node: declaration, mod };
        return this.interp.evalStatic(declaration, mod);
      }
      if (statement.type === 'ExportAllDeclaration') {
        const target = this.interp.program.resolveImport(mod, statement.source.value);
        if (target) {
          const value = this.exportValue(target, name);
          if (value.k !== 'unknown') return value;
        }
      }
      if (statement.type === 'ExpressionStatement' && statement.expression.type === 'AssignmentExpression') {
        const left = statement.expression.left;
        if (left.type !== 'MemberExpression') continue;
        // module.exports = { a, b }  /  module.exports.a = ...  /  exports.a = ...
        if (isModuleExports(left)) {
          const value = this.interp.evalStatic(statement.expression.right, mod);
          if (value.k === 'obj') return this.interp.member(value, name, this.interp.newState(), this.interp.topFrame(mod), null);
          if (name === 'default') return value;
        } else if ((isModuleExports(left.object) || (left.object.type === 'Identifier' && left.object.name === 'exports')) && getMemberName(left) === name) {
          return this.interp.evalStatic(statement.expression.right, mod);
        }
      }
    }
    // a CommonJS module without an ES default (no `export default`, no `exports.default`): its default is
    // `module.exports`, as Node's import of it and the compilers' interop helpers give it
    if (name === 'default' && !isEsModule(mod)) return this.cjsExportsObject(mod) ?? (/\bexports\b/.test(mod.source) ? { k: 'ns', mod } : UNKNOWN);
    return UNKNOWN;
  }
}

/** Whether a module is an ES module, or CommonJS compiled from one (it sets `__esModule`): its default is its own. */
function isEsModule(mod: ModuleUnit): boolean {
  return mod.ast.program.body.some((st) => st.type === 'ExportNamedDeclaration' || st.type === 'ExportDefaultDeclaration' || st.type === 'ExportAllDeclaration' || st.type === 'ImportDeclaration') || /\bdefineProperty\(\s*(?:module\.)?exports\s*,\s*['"]__esModule['"]|\bexports\.__esModule\s*=/.test(mod.source);
}
