// Babel's packages, loaded with `require`. They are CommonJS: imported from an ES module, Node first
// scans their sources for export names (cjs-module-lexer, following @babel/types' re-exports through
// its 80-odd files), which took 90 ms of the 220 ms every worker spends loading the pipeline before it
// analyses a file. Deliberately only loads: every module that needs Babel's values takes them from here
// (`t.isIdentifier(...)`), and its types from the namespace below (`t.Node`).
import type * as BabelParser from '@babel/parser';
import type * as BabelTypes from '@babel/types';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const t = require('@babel/types') as typeof BabelTypes;
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
