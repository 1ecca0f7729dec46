// The common subset of .gitignore syntax, so discovery skips what git would not track.
// Supported: blank lines and `#` comments, `\#` / `\!` escapes, trailing-space trimming, `!` negation,
// trailing `/` (directories only), a `/` at the start or in the middle (anchored to the .gitignore's
// directory), `*`, `?`, `[...]`, and `**` as a leading `**/`, a trailing `/**` or a middle `/**/`.
// Deliberately not supported: core.excludesFile, .git/info/exclude, and re-including a path below an
// excluded directory (git does not allow that either: discovery never descends into ignored directories).

export interface IgnoreRule {
  /** Directory of the .gitignore the rule comes from, `/`-separated and relative to the walk's base ('' = base). */
  base: string;
  negate: boolean;
  directoryOnly: boolean;
  regex: RegExp;
}

/** Parses the text of one .gitignore found in `base` (a `/`-separated directory relative to the walk's base). */
export function parseGitignore(text: string, base: string): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    const rule = parseGitignoreLine(rawLine, base);
    if (rule !== null) rules.push(rule);
  }
  return rules;
}

function parseGitignoreLine(rawLine: string, base: string): IgnoreRule | null {
  let line = rawLine.replace(/^\uFEFF/, '');
  if (line === '' || line.startsWith('#')) return null;
  // Trailing spaces are ignored unless escaped with a backslash.
  line = line.replace(/(?<!\\)\s+$/, '');
  if (line === '') return null;
  let negate = false;
  if (line.startsWith('!')) {
    negate = true;
    line = line.slice(1);
  } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
    line = line.slice(1);
  }
  let directoryOnly = false;
  if (line.endsWith('/') && !line.endsWith('\\/')) {
    directoryOnly = true;
    line = line.replace(/\/+$/, '');
  }
  if (line === '') return null;
  // A slash at the start or in the middle anchors the pattern to the .gitignore's directory;
  // otherwise it matches a name at any depth below it.
  const anchored = line.includes('/');
  if (line.startsWith('/')) line = line.slice(1);
  const body = globToRegexSource(line);
  const source = anchored ? `^${body}$` : `^(?:.*/)?${body}$`;
  return { base, negate, directoryOnly, regex: new RegExp(source) };
}

function globToRegexSource(glob: string): string {
  let out = '';
  let i = 0;
  while (i < glob.length) {
    const ch = glob[i];
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0;
        const afterSlash = i > 0 && glob[i - 1] === '/';
        const beforeSlash = glob[i + 2] === '/';
        const atEnd = i + 2 === glob.length;
        if (atStart && beforeSlash) {
          // `**/x`: x in any directory
          out += '(?:.*/)?';
          i += 3;
          continue;
        }
        if (afterSlash && atEnd) {
          // `x/**`: everything inside x
          out += '.*';
          i += 2;
          continue;
        }
        if (afterSlash && beforeSlash) {
          // `a/**/b`: zero or more directories between a and b
          out += '(?:.*/)?';
          i += 3;
          continue;
        }
        if (atStart && atEnd) {
          out += '.*';
          i += 2;
          continue;
        }
        // Any other run of asterisks is an ordinary `*`.
        while (glob[i] === '*') i++;
        out += '[^/]*';
        continue;
      }
      out += '[^/]*';
      i++;
      continue;
    }
    if (ch === '?') {
      out += '[^/]';
      i++;
      continue;
    }
    if (ch === '[') {
      const close = getClassEnd(glob, i);
      if (close === -1) {
        out += '\\[';
        i++;
        continue;
      }
      let inner = glob.slice(i + 1, close);
      let negated = false;
      if (inner.startsWith('!') || inner.startsWith('^')) {
        negated = true;
        inner = inner.slice(1);
      }
      inner = inner.replace(/\\/g, '\\\\').replace(/]/g, '\\]');
      out += `[${negated ? '^' : ''}${inner}]`;
      i = close + 1;
      continue;
    }
    if (ch === '\\' && i + 1 < glob.length) {
      out += escapeRegex(glob[i + 1]);
      i += 2;
      continue;
    }
    out += escapeRegex(ch);
    i++;
  }
  return out;
}

function getClassEnd(glob: string, open: number): number {
  let j = open + 1;
  if (glob[j] === '!' || glob[j] === '^') j++;
  if (glob[j] === ']') j++;
  while (j < glob.length && glob[j] !== ']') j++;
  return j < glob.length ? j : -1;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * Whether `path` (`/`-separated, relative to the walk's base) is ignored by `rules`, which must be in
 * precedence order: shallower .gitignore files first, each file's rules in order. The last match wins.
 */
export function isIgnored(rules: readonly IgnoreRule[], path: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const rule of rules) {
    if (rule.directoryOnly && !isDirectory) continue;
    let relative: string;
    if (rule.base === '') relative = path;
    else if (path.startsWith(`${rule.base}/`)) relative = path.slice(rule.base.length + 1);
    else continue;
    if (rule.regex.test(relative)) ignored = !rule.negate;
  }
  return ignored;
}
