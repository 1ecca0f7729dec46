// The coding style of a file, so emitted code reads like the code around it.

export interface CodeStyle {
  quote: "'" | '"';
  semi: boolean;
  /** One level of indentation: '  ', '    ' or '\t'. */
  indent: string;
  eol: '\n' | '\r\n';
  /** Multi-line object and argument lists end with a comma. */
  trailingComma: boolean;
}

export function detectStyle(source: string): CodeStyle {
  const eol = source.includes('\r\n') ? '\r\n' : '\n';
  const singles = (source.match(/'(?:[^'\\\n]|\\.)*'/g) ?? []).length;
  const doubles = (source.match(/"(?:[^"\\\n]|\\.)*"/g) ?? []).length;
  const lines = source.split(/\r?\n/);
  // Statements that end a line with ';' versus lines that look like complete statements without one.
  const withSemi = lines.filter((l) => /[^;\s{(,[]\s*;\s*$/.test(l) || /\)\s*;\s*$/.test(l)).length;
  const withoutSemi = lines.filter((l) => /^\s*(const|let|var|return|import)\b.*[^;,{([\s]\s*$/.test(l) && !/=>\s*$/.test(l)).length;
  const trailing = (source.match(/,[ \t]*\r?\n[ \t]*[}\])]/g) ?? []).length;
  // A value (not a statement end or a nested block) on the last line of an object or array.
  const bare = (source.match(/[\w'"`][ \t]*\r?\n[ \t]*[}\]]/g) ?? []).length;
  return { quote: doubles > singles ? '"' : "'", semi: withSemi >= withoutSemi, indent: detectIndent(lines), eol, trailingComma: trailing > bare };
}

function detectIndent(lines: string[]): string {
  let tabs = 0;
  const widths = new Map<number, number>();
  let previous = 0;
  for (const line of lines) {
    if (!line.trim()) continue;
    const lead = /^[ \t]*/.exec(line)![0];
    if (lead.startsWith('\t')) {
      tabs++;
      continue;
    }
    const delta = lead.length - previous;
    if (delta > 0 && delta <= 8) widths.set(delta, (widths.get(delta) ?? 0) + 1);
    previous = lead.length;
  }
  let best = 2;
  let bestCount = 0;
  for (const [width, count] of widths) {
    if (count > bestCount) {
      best = width;
      bestCount = count;
    }
  }
  return tabs > bestCount ? '\t' : ' '.repeat(best);
}

export function quoted(style: CodeStyle, value: string): string {
  const q = style.quote;
  return q + value.replace(/\\/g, '\\\\').replace(new RegExp(q, 'g'), '\\' + q) + q;
}

export function semi(style: CodeStyle): string {
  return style.semi ? ';' : '';
}
