// JSON as configuration files write it: with comments and trailing commas (tsconfig, editors' MCP
// settings). Text in, a value out.

/** JSON, or JSON with comments and trailing commas (tsconfig's dialect); null when it is neither. */
export function parseJsonLoosely(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // strip comments outside strings, then trailing commas
    let out = '';
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (c === '"') {
        const end = findStringEnd(text, i);
        out += text.slice(i, end);
        i = end - 1;
      } else if (c === '/' && text[i + 1] === '/') {
        while (i < text.length && text[i] !== '\n') i++;
        out += '\n';
      } else if (c === '/' && text[i + 1] === '*') {
        const end = text.indexOf('*/', i + 2);
        i = end === -1 ? text.length : end + 1;
      } else out += c;
    }
    try {
      return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'));
    } catch {
      return null;
    }
  }
}

/** The index just past the quote that closes the string opening at `start` (the text's end when none does). */
export function findStringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  return text.length;
}
