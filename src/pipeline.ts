// One file through the phases: parse once -> detect -> plan -> rewrite -> print once.
// Pure: no I/O, no printing. The runner feeds it text and gets a FileResult back.
import type { FileResult, PipelineOptions } from './model/types.js';
import { parseSource, SourceParseError } from './parse.js';

/**
 * Cheap text test run before parsing: a hand-rolled server (or an SDK server that writes to stdout)
 * must mention stdin or stdout and a JSON-RPC shape. False negatives are bugs; false positives only cost time.
 */
export function mayContainServer(source: string): boolean {
  return /process\.std(in|out)|writeSync\(\s*1\b|StdioServerTransport/.test(source) && /jsonrpc|method|Content-Length/i.test(source);
}

export function processSource(path: string, source: string, options: PipelineOptions): FileResult {
  const result: FileResult = { path, before: source, decision: { kind: 'none' }, fixes: [], findings: [], diagnostics: [] };
  if (!mayContainServer(source)) return result;
  try {
    parseSource(path, source);
  } catch (err) {
    if (err instanceof SourceParseError) {
      return { ...result, error: `${err.message}${err.line ? ` (${err.line}:${err.column})` : ''}` };
    }
    throw err;
  }
  void options;
  return result;
}
