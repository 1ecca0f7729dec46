// Babel's packages, loaded with `require`. They are CommonJS: imported from an ES module, Node first
// scans their sources for export names (cjs-module-lexer, following @babel/types' re-exports through
// its 80-odd files), which took 90 ms of the 220 ms every worker spends loading the pipeline before it
// analyses a file. Deliberately only loads: every module that needs Babel's values takes them from here
// (`t.isIdentifier(...)`), and its types from the namespace below (`t.Node`).
//
// Of @babel/types, only the parts this code calls are loaded: its node tests and the three retrievers
// below. The whole package defines every node type and builder when it loads (~70 ms more of each
// worker's start, on the path of every run that analyses a file); the one table of those definitions the
// analysis reads, VISITOR_KEYS, is a generated copy (babel-visitor-keys.ts), checked against the package
// by a unit test. The files are named inside the package (it has no export map); its version is pinned in
// package.json, with the parser's, and the same test loads each of them.
import type * as BabelParser from '@babel/parser';
import type * as BabelTypes from '@babel/types';
import { createRequire } from 'node:module';
import { VISITOR_KEYS } from './babel-visitor-keys.js';

const require = createRequire(import.meta.url);

/** The files of @babel/types this module loads, by what they hold (exported for the test that checks them). */
export const BABEL_TYPES_FILES = {
  tests: '@babel/types/lib/validators/generated/index.js',
  isReferenced: '@babel/types/lib/validators/isReferenced.js',
  isScope: '@babel/types/lib/validators/isScope.js',
  getBindingIdentifiers: '@babel/types/lib/retrievers/getBindingIdentifiers.js',
  getAssignmentIdentifiers: '@babel/types/lib/retrievers/getAssignmentIdentifiers.js',
} as const;

/** @babel/types' own tests that are not generated node tests (not loaded; named here so that a call of one does not compile). */
type UnloadedTests = 'isBinding' | 'isBlockScoped' | 'isImmutable' | 'isLet' | 'isNode' | 'isNodesEquivalent' | 'isPlaceholderType' | 'isSpecifierDefault' | 'isType' | 'isValidES3Identifier' | 'isValidIdentifier' | 'isVar';
type NodeTests = { [K in keyof typeof BabelTypes as K extends `is${string}` ? (K extends UnloadedTests ? never : K) : never]: (typeof BabelTypes)[K] };
type LoadedTypes = NodeTests & Pick<typeof BabelTypes, 'getBindingIdentifiers' | 'getAssignmentIdentifiers'> & { VISITOR_KEYS: typeof VISITOR_KEYS };

const loadDefault = <T>(file: string): T => (require(file) as { default: T }).default;

export const t: LoadedTypes = {
  ...(require(BABEL_TYPES_FILES.tests) as NodeTests),
  isReferenced: loadDefault<typeof BabelTypes.isReferenced>(BABEL_TYPES_FILES.isReferenced),
  isScope: loadDefault<typeof BabelTypes.isScope>(BABEL_TYPES_FILES.isScope),
  getBindingIdentifiers: loadDefault<typeof BabelTypes.getBindingIdentifiers>(BABEL_TYPES_FILES.getBindingIdentifiers),
  getAssignmentIdentifiers: loadDefault<typeof BabelTypes.getAssignmentIdentifiers>(BABEL_TYPES_FILES.getAssignmentIdentifiers),
  VISITOR_KEYS,
};
export const babelParser = require('@babel/parser') as typeof BabelParser;

/** The node types this code names (`t.Node`), merged with the value `t`; add one here when a module names a new one. */
export declare namespace t {
  export type ArrowFunctionExpression = BabelTypes.ArrowFunctionExpression;
  export type AssignmentExpression = BabelTypes.AssignmentExpression;
  export type AwaitExpression = BabelTypes.AwaitExpression;
  export type BlockStatement = BabelTypes.BlockStatement;
  export type BreakStatement = BabelTypes.BreakStatement;
  export type CallExpression = BabelTypes.CallExpression;
  export type CatchClause = BabelTypes.CatchClause;
  export type ClassDeclaration = BabelTypes.ClassDeclaration;
  export type ClassExpression = BabelTypes.ClassExpression;
  export type ContinueStatement = BabelTypes.ContinueStatement;
  export type ExportDefaultDeclaration = BabelTypes.ExportDefaultDeclaration;
  export type ExportNamedDeclaration = BabelTypes.ExportNamedDeclaration;
  export type Expression = BabelTypes.Expression;
  export type ExpressionStatement = BabelTypes.ExpressionStatement;
  export type File = BabelTypes.File;
  export type ForInStatement = BabelTypes.ForInStatement;
  export type ForOfStatement = BabelTypes.ForOfStatement;
  export type FunctionDeclaration = BabelTypes.FunctionDeclaration;
  export type Identifier = BabelTypes.Identifier;
  export type IfStatement = BabelTypes.IfStatement;
  export type ImportDeclaration = BabelTypes.ImportDeclaration;
  export type ImportSpecifier = BabelTypes.ImportSpecifier;
  export type JSXIdentifier = BabelTypes.JSXIdentifier;
  export type Loop = BabelTypes.Loop;
  export type MemberExpression = BabelTypes.MemberExpression;
  export type NewExpression = BabelTypes.NewExpression;
  export type Node = BabelTypes.Node;
  export type ObjectExpression = BabelTypes.ObjectExpression;
  export type ObjectMethod = BabelTypes.ObjectMethod;
  export type ObjectPattern = BabelTypes.ObjectPattern;
  export type ObjectProperty = BabelTypes.ObjectProperty;
  export type OptionalCallExpression = BabelTypes.OptionalCallExpression;
  export type OptionalMemberExpression = BabelTypes.OptionalMemberExpression;
  export type PrivateName = BabelTypes.PrivateName;
  export type Program = BabelTypes.Program;
  export type ReturnStatement = BabelTypes.ReturnStatement;
  export type Statement = BabelTypes.Statement;
  export type SwitchCase = BabelTypes.SwitchCase;
  export type SwitchStatement = BabelTypes.SwitchStatement;
  export type TSEnumDeclaration = BabelTypes.TSEnumDeclaration;
  export type TSInterfaceDeclaration = BabelTypes.TSInterfaceDeclaration;
  export type TSType = BabelTypes.TSType;
  export type TSTypeAliasDeclaration = BabelTypes.TSTypeAliasDeclaration;
  export type TemplateLiteral = BabelTypes.TemplateLiteral;
  export type TryStatement = BabelTypes.TryStatement;
  export type VariableDeclaration = BabelTypes.VariableDeclaration;
  export type VariableDeclarator = BabelTypes.VariableDeclarator;
  export type WhileStatement = BabelTypes.WhileStatement;
}
