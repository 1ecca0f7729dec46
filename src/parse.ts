// Parsing: one place that knows which parser a file extension needs.
// Deliberately does not transform anything.
import { parse as babelParse, type ParserPlugin } from '@babel/parser';
import type { File } from '@babel/types';

const TS_EXTENSIONS = ['.ts', '.mts', '.cts'];

export function getParserPlugins(path: string): ParserPlugin[] {
  const lower = path.toLowerCase();
  if (TS_EXTENSIONS.some((ext) => lower.endsWith(ext))) return ['typescript'];
  if (lower.endsWith('.tsx')) return ['typescript', 'jsx'];
  return ['jsx'];
}

export class SourceParseError extends Error {
  constructor(
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
  }
}

/** Parses a JS/TS source file. Throws SourceParseError with the parser's message and position. */
export function parseSource(path: string, source: string): File {
  try {
    return babelParse(source, {
      sourceType: 'unambiguous',
      allowReturnOutsideFunction: true,
      allowAwaitOutsideFunction: true,
      allowHashBang: true,
      errorRecovery: false,
      plugins: getParserPlugins(path),
    } as Parameters<typeof babelParse>[1]);
  } catch (err) {
    const e = err as { message?: string; loc?: { line: number; column: number } };
    throw new SourceParseError(
      (e.message ?? String(err)).replace(/\s*\(\d+:\d+\)$/, ''),
      e.loc?.line,
      e.loc === undefined ? undefined : e.loc.column + 1,
    );
  }
}
