// The prefilter: cheap text tests that decide, before anything is parsed, whether a file may hold a
// server. It imports nothing, so that a run over a tree whose files it rejects never loads the parser
// or the analysis (the runner loads the pipeline on the first candidate).
// Deliberately not: parsing. False negatives are bugs; false positives only cost a parse.

/**
 * Cheap text test run before parsing. A hand-rolled server reads stdin (`process.stdin`, a destructured
 * `stdin`, a stream handed in) and speaks JSON-RPC; an SDK server is only a candidate when it also writes
 * to stdout itself. False negatives are bugs; false positives only cost a parse.
 */
export function mayContainServer(source: string): boolean {
  // a server already on the SDK (whatever else it says of stdin): upgraded to serveStdio, or left alone
  // and said so; its own stdout writes moved if it has any
  if (usesSdkStdio(source)) return true;
  // an entry that hands stdin to a server class in another module speaks JSON-RPC only there
  if (source.includes(READS_STDIN)) return /jsonrpc|method|Content-Length/i.test(source) || RELATIVE_IMPORT.test(source);
  // an entry whose server (and stdin loop) live in modules it imports
  return RELATIVE_IMPORT.test(source) && ENTRY_WORDS.test(source);
}

/** What an entry whose server lives in modules it imports still says itself. */
export const ENTRY_WORDS = /jsonrpc|\bmethod\b/;

/** The words a file that may hold a server says itself: it reads stdin, or it is on the SDK's stdio transport. */
export const READS_STDIN = 'stdin';
export const USES_SDK_STDIO = 'StdioServerTransport';
/** The current generation's stdio entry (v2): a server on it that writes to stdout itself breaks its transport too. */
export const SERVES_SDK_STDIO = 'serveStdio';

/** The text names the SDK's stdio transport or serveStdio. */
export function usesSdkStdio(text: string): boolean {
  return text.includes(USES_SDK_STDIO) || text.includes(SERVES_SDK_STDIO);
}
/** A relative `require('./x')`, `from './x'` or `import('./x')` (a command that loads its server on demand). */
export const RELATIVE_IMPORT = /(?:require|import)\(\s*['"]\.\.?\/|from\s+['"]\.\.?\//;
