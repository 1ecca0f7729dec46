// A program nothing can come of, told from text before anything is parsed: no module the program could
// load names MCP's vocabulary or the SDK, and none takes stdin in (the question facts.ts's isInert asks
// of the parsed program) or none can parse JSON (facts.ts explores no message path where no module names
// `JSON`, and detection and the audit read nothing else of a program without MCP's vocabulary). A library
// that mentions stdin and `method` (a CLI parser's `return process.stdin`, 130 kB) or a command-line tool
// that reads its input from stdin and prints JSON (`JSON.stringify` only) is then read, never parsed.
// Deliberately a superset of the program: every quoted relative path in a text is followed (the program
// follows only its imports), and a package that declares import aliases is left to the parse.
import { AliasResolver } from './aliases.js';
import { getModuleCandidates, MAX_MODULES } from './program.js';
import type { ReadModule } from './read-module.js';
import { speaksMcp } from './vocabulary.js';

/** The events stdin is taken in through (`x.on('data', ...)`; facts.ts's findConsumers reads this table). */
export const STDIN_EVENTS = ['data', 'readable', 'line'] as const;

/**
 * The text every form stdin is taken in through needs (facts.ts's findConsumers): the event of
 * `x.on('data' | 'readable' | 'line', ...)` is a string literal, and `for await (... of x)` says `for`,
 * then only blanks or comments, then `await`.
 */
const CONSUMER_FORM = new RegExp(`(['"])(?:${STDIN_EVENTS.join('|')})\\1|\\bfor(?:\\s|\\/\\*[\\s\\S]*?\\*\\/|\\/\\/[^\\n]*\\n)*await\\b`);

/** A quoted relative path (`'./x'`, `"../y.js"`, `` `./z` ``): every import the program could follow is one. */
const RELATIVE_STRING = /(['"`])(\.\.?\/[^'"`\n]*)\1/g;

/**
 * The global `JSON` named other than as `JSON.stringify`: the only way the analysis sees a parse
 * (`JSON.parse`, `const { parse } = JSON`, `JSON['parse']`, a `JSON` in a comment or string:
 * conservative). `JSON5` and `toJSON` are other names (a package's parse is not one the analysis sees).
 */
const MAY_PARSE_JSON = /\bJSON\b(?!\.stringify\b)/;

/**
 * Whether neither the file nor any module it could load speaks MCP, and none of them takes stdin in or
 * none can parse JSON (`read` null: it loads none).
 */
export function isInertText(path: string, source: string, read: ReadModule | null): boolean {
  const texts = [{ path, text: source }];
  const seen = new Set<string>([path]);
  const aliases = read === null ? null : new AliasResolver(read);
  let takesStdinIn = false;
  let parsesJson = false;
  for (let i = 0; i < texts.length; i++) {
    const { path: at, text } = texts[i]!;
    if (speaksMcp(text)) return false;
    takesStdinIn ||= CONSUMER_FORM.test(text);
    parsesJson ||= MAY_PARSE_JSON.test(text);
    if (takesStdinIn && parsesJson) return false;
    if (read === null || aliases === null) continue;
    if (aliases.declaresAliases(at)) return false;
    for (const match of text.matchAll(RELATIVE_STRING)) {
      for (const candidate of getModuleCandidates(at, match[2]!)) {
        if (seen.has(candidate)) continue;
        seen.add(candidate);
        const next = read(candidate);
        if (next === null) continue;
        // more than the program would load: the parse decides
        if (texts.length >= MAX_MODULES) return false;
        texts.push({ path: candidate, text: next });
      }
    }
  }
  return true;
}
