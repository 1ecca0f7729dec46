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
  /** The compiled pattern: matched by matchGlob in time linear in the path (never a backtracking regex). */
  glob: GlobToken[];
  /**
   * For a pattern without a slash (a name at any depth): its own tokens, which can only match the last
   * name of a path (none matches `/` but a lone `**`'s, which matches anything): matched against that
   * name alone, the same answer as `glob` against the whole path. Null for an anchored pattern.
   */
  name: GlobToken[] | null;
}

/**
 * One step of a compiled glob. Matching runs every token position at once over the path (a Thompson
 * simulation, as RE2 and git's own wildmatch avoid backtracking), so `*a*a*a*a*a*a*a*a*b` against a
 * long name costs (name length x pattern length), not an exponential search.
 */
export type GlobToken =
  /** One character equal to `char`. */
  | { kind: 'char'; char: string }
  /** `?`: one character other than `/`. */
  | { kind: 'any' }
  /** `[...]`: one character other than `/` in (or, negated, not in) the ranges. */
  | { kind: 'class'; negated: boolean; ranges: [string, string][] }
  /** `*`: any run of characters other than `/`. */
  | { kind: 'star' }
  /** A trailing `/**` or a lone `**`: any run of characters. */
  | { kind: 'all' }
  /** `**\/` at the start, `/**\/` in the middle: nothing, or any run of characters ending with `/` (a `dirs-loop` follows it). */
  | { kind: 'dirs' }
  /** The loop of `dirs`: any character; a `/` may also end it. */
  | { kind: 'dirs-loop' };

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
  // Trailing spaces are ignored unless escaped with a backslash (a scan from the end: no regex over the line).
  let end = line.length;
  while (end > 0 && /\s/.test(line[end - 1]!) && line[end - 2] !== '\\') end--;
  line = line.slice(0, end);
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
    while (line.endsWith('/')) line = line.slice(0, -1);
  }
  if (line === '') return null;
  // A slash at the start or in the middle anchors the pattern to the .gitignore's directory;
  // otherwise it matches a name at any depth below it.
  const anchored = line.includes('/');
  if (line.startsWith('/')) line = line.slice(1);
  const body = compileGlob(line);
  const glob: GlobToken[] = anchored ? body : [{ kind: 'dirs' }, { kind: 'dirs-loop' }, ...body];
  return { base, negate, directoryOnly, glob, name: anchored ? null : body };
}

/** The tokens of one glob (without the leading `!` or trailing `/` of a .gitignore line). */
export function compileGlob(glob: string): GlobToken[] {
  const out: GlobToken[] = [];
  let i = 0;
  while (i < glob.length) {
    const ch = glob[i]!;
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0;
        const afterSlash = i > 0 && glob[i - 1] === '/';
        const beforeSlash = glob[i + 2] === '/';
        const atEnd = i + 2 === glob.length;
        if ((atStart && beforeSlash) || (afterSlash && beforeSlash)) {
          // `**/x`: x in any directory; `a/**/b`: zero or more directories between a and b
          out.push({ kind: 'dirs' }, { kind: 'dirs-loop' });
          i += 3;
          continue;
        }
        if ((afterSlash && atEnd) || (atStart && atEnd)) {
          // `x/**`: everything inside x; `**`: everything
          out.push({ kind: 'all' });
          i += 2;
          continue;
        }
        // Any other run of asterisks is an ordinary `*`.
        while (glob[i] === '*') i++;
        out.push({ kind: 'star' });
        continue;
      }
      // consecutive stars are one
      if (out[out.length - 1]?.kind !== 'star') out.push({ kind: 'star' });
      i++;
      continue;
    }
    if (ch === '?') {
      out.push({ kind: 'any' });
      i++;
      continue;
    }
    if (ch === '[') {
      const close = getClassEnd(glob, i);
      if (close === -1) {
        out.push({ kind: 'char', char: '[' });
        i++;
        continue;
      }
      let j = i + 1;
      let negated = false;
      if (glob[j] === '!' || glob[j] === '^') {
        negated = true;
        j++;
      }
      const chars = [...glob.slice(j, close)];
      const ranges: [string, string][] = [];
      for (let k = 0; k < chars.length; k++) {
        let from = chars[k]!;
        if (from === '\\' && k + 1 < chars.length) from = chars[++k]!;
        if (chars[k + 1] === '-' && k + 2 < chars.length) {
          let to = chars[k + 2]!;
          k += 2;
          if (to === '\\' && k + 1 < chars.length) to = chars[++k]!;
          ranges.push([from, to]);
        } else ranges.push([from, from]);
      }
      out.push({ kind: 'class', negated, ranges });
      i = close + 1;
      continue;
    }
    if (ch === '\\' && i + 1 < glob.length) {
      out.push({ kind: 'char', char: glob[i + 1]! });
      i += 2;
      continue;
    }
    out.push({ kind: 'char', char: ch });
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

/** Whether the whole of `text` matches `glob`: every token position advanced together, one character at a time. */
export function matchGlob(glob: readonly GlobToken[], text: string): boolean {
  // most patterns are a name or `*` and a suffix (`node_modules`, `*.log`): told without the simulation
  const literal = getLiteralShape(glob);
  if (literal !== null) return literal.star ? text.endsWith(literal.text) && !text.slice(0, text.length - literal.text.length).includes('/') : text === literal.text;
  const n = glob.length;
  let current = new Uint8Array(n + 1);
  let next = new Uint8Array(n + 1);
  // Adds state `start` and every state reachable from it without reading a character.
  const stack: number[] = [];
  const add = (set: Uint8Array, start: number): void => {
    stack.push(start);
    while (stack.length > 0) {
      const i = stack.pop()!;
      if (i > n || set[i] === 1) continue;
      set[i] = 1;
      const token = glob[i];
      if (token === undefined) continue;
      if (token.kind === 'star' || token.kind === 'all') stack.push(i + 1);
      else if (token.kind === 'dirs') stack.push(i + 1, i + 2);
    }
  };
  add(current, 0);
  for (const c of text) {
    next.fill(0);
    for (let i = 0; i < n; i++) {
      if (current[i] === 0) continue;
      const token = glob[i]!;
      switch (token.kind) {
        case 'char':
          if (c === token.char) add(next, i + 1);
          break;
        case 'any':
          if (c !== '/') add(next, i + 1);
          break;
        case 'class': {
          if (c === '/') break;
          const inside = token.ranges.some(([from, to]) => c >= from && c <= to);
          if (inside !== token.negated) add(next, i + 1);
          break;
        }
        case 'star':
          if (c !== '/') add(next, i);
          break;
        case 'all':
          add(next, i);
          break;
        case 'dirs':
          // reads nothing itself: its loop state (added with it) does
          break;
        case 'dirs-loop':
          add(next, i);
          if (c === '/') add(next, i + 1);
          break;
      }
    }
    if (!next.includes(1)) return false;
    [current, next] = [next, current];
  }
  return current[n] === 1;
}

/** `name` or `*name` as plain text (`star`: any run of characters other than `/` before it), or null for any other glob. */
function getLiteralShape(glob: readonly GlobToken[]): { star: boolean; text: string } | null {
  let shape = literalShapes.get(glob);
  if (shape === undefined) {
    const star = glob[0]?.kind === 'star';
    const rest = star ? glob.slice(1) : glob;
    shape = rest.every((token) => token.kind === 'char') ? { star, text: rest.map((token) => (token as { char: string }).char).join('') } : null;
    literalShapes.set(glob, shape);
  }
  return shape;
}
const literalShapes = new WeakMap<readonly GlobToken[], { star: boolean; text: string } | null>();

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
    const matched = rule.name === null ? matchGlob(rule.glob, relative) : matchGlob(rule.name, relative.slice(relative.lastIndexOf('/') + 1));
    if (matched) ignored = !rule.negate;
  }
  return ignored;
}
