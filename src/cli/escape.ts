// How names from the scanned tree reach a terminal, a CI log or a suggested command. A file name is
// data of the repository's choosing: a newline in it would start a line of its own (a forged
// `::error::` workflow command under GitHub Actions), an ESC would drive the terminal, `$(...)` or a
// leading `-` would run or read as a flag in a command the user pastes. Every printed name goes through
// escapeText; every path placed in a suggested command through quoteShellPath.

/**
 * `text` with every control character (C0, DEL, C1), and the Unicode line and paragraph separators,
 * written as a visible escape (`\n`, `\t`, `\x1b`, `\u2028`): one printed line stays one line, and
 * nothing in it reaches the terminal as a command. A backslash is left as it is (readable Windows-style
 * names); text with no such character comes back unchanged.
 */
/** What a server said (its stderr, `serverInfo`, a tool name, an error message): escaped, and cut at `max` characters. */
export function escapeServerText(text: string, max = 400): string {
  return escapeText(text.length > max ? `${text.slice(0, max)}…` : text);
}

export function escapeText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (ch) => {
    switch (ch) {
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      default: {
        const code = ch.charCodeAt(0);
        return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
      }
    }
  });
}

/**
 * A line of the scanned code as shown in a diff or a header: like escapeText, but a tab stays a tab
 * (indentation). An ESC, a bell or a carriage return inside a line of the repository's file would
 * otherwise reach the terminal that shows the review.
 */
export function escapeCodeLine(line: string): string {
  return line.includes('\t') ? line.split('\t').map(escapeText).join('\t') : escapeText(line);
}

/**
 * `path` as one POSIX shell word: as it is when it holds only characters no shell treats specially,
 * else in single quotes (a quote inside as `'\''`); a name with control characters in ANSI-C quotes
 * (`$'a\nb'`: bash, zsh and ksh read it back as the same bytes, on one line). A path starting with `-`
 * gets `./` in front, so that no command reads it as a flag.
 */
export function quoteShellPath(path: string): string {
  const safe = path.startsWith('-') ? `./${path}` : path;
  if (safe !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(safe)) return safe;
  if (escapeText(safe) !== safe) return `$'${escapeText(safe.replace(/\\/g, '\\\\').replace(/'/g, "\\'"))}'`;
  return `'${safe.replace(/'/g, `'\\''`)}'`;
}
