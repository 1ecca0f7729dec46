// The code style of a file, so the few lines the envelope rewrite adds look like their neighbours:
// quotes, semicolons, indentation unit, line ending and declaration keyword, each by majority.
import type { File, Node } from '@babel/types';
import { walk } from '../../detect/envelope-walk.js';

export interface CodeStyle {
  quote: "'" | '"';
  semi: boolean;
  /** One level of indentation: '\t' or some spaces. */
  indent: string;
  eol: '\n' | '\r\n';
  declaration: 'const' | 'var';
}

const SEMICOLON_STATEMENTS = new Set([
  'ExpressionStatement',
  'VariableDeclaration',
  'ReturnStatement',
  'ThrowStatement',
  'ImportDeclaration',
  'BreakStatement',
  'ContinueStatement',
]);

export function getCodeStyle(ast: File, source: string): CodeStyle {
  let single = 0;
  let double = 0;
  let withSemi = 0;
  let withoutSemi = 0;
  let constLet = 0;
  let vars = 0;
  const columns: number[] = [];
  let tabs = 0;
  walk(ast, (node, ancestors) => {
    if (node.type === 'StringLiteral' || node.type === 'DirectiveLiteral') {
      const first = source[node.start ?? 0];
      if (first === "'") single++;
      else if (first === '"') double++;
    }
    if (node.type === 'VariableDeclaration') {
      if (node.kind === 'var') vars++;
      else constLet++;
    }
    const parent = ancestors[ancestors.length - 1];
    if (SEMICOLON_STATEMENTS.has(node.type) && !isForHead(node, parent)) {
      if (source[(node.end ?? 1) - 1] === ';') withSemi++;
      else withoutSemi++;
    }
    if (isStatementLike(node, parent) && node.loc && node.loc.start.column > 0) {
      const lineStart = (node.start ?? 0) - node.loc.start.column;
      const lead = source.slice(lineStart, node.start ?? 0);
      if (/^\s+$/.test(lead)) {
        if (lead.startsWith('\t')) tabs++;
        else columns.push(lead.length);
      }
    }
  });
  const crlf = source.split('\r\n').length - 1;
  const lf = source.split('\n').length - 1 - crlf;
  return {
    quote: double > single ? '"' : "'",
    semi: withSemi >= withoutSemi,
    indent: tabs > columns.length ? '\t' : ' '.repeat(getIndentUnit(columns)),
    eol: crlf > lf ? '\r\n' : '\n',
    declaration: vars > 0 && constLet === 0 ? 'var' : 'const',
  };
}

function isForHead(node: Node, parent: Node | undefined): boolean {
  return (
    parent !== undefined &&
    ((parent.type === 'ForStatement' && parent.init === node) ||
      ((parent.type === 'ForOfStatement' || parent.type === 'ForInStatement') && parent.left === node))
  );
}

function isStatementLike(node: Node, parent: Node | undefined): boolean {
  if (parent === undefined) return false;
  return parent.type === 'BlockStatement' || parent.type === 'ClassBody' || parent.type === 'SwitchCase' || parent.type === 'ObjectExpression';
}

/** The greatest common divisor of the indentation widths (2 or 4 in practice), 2 when unknown. */
function getIndentUnit(columns: number[]): number {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const unit = columns.reduce((acc, c) => gcd(acc, c), 0);
  if (unit >= 2 && unit <= 8) return unit;
  return columns.length === 0 ? 2 : Math.max(2, Math.min(...columns));
}

/** A string literal in the file's quote style. */
export function quoteString(value: string, style: CodeStyle): string {
  const escaped = value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
  return style.quote === "'" ? `'${escaped.replace(/'/g, "\\'")}'` : `"${escaped.replace(/"/g, '\\"')}"`;
}

/** The indentation of the line a node starts on. */
export function getLineIndent(source: string, offset: number): string {
  const lineStart = source.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(source.slice(lineStart))![0];
}
