// The jscodeshift transform (ESM). jscodeshift runs it through the CommonJS adapter next to it
// (`npx jscodeshift -t dist/transforms/mcp-migrate.cjs src/`, see mcp-migrate.cts); this file itself
// only loads that way with `--no-babel`. An adapter: the pipeline decides and rewrites; this returns undefined when nothing changes. jscodeshift
// writes only the file it was handed, so a rewrite that needs a new file beside it (the envelope helper
// module) or changes other files of the server is declined with `api.report` and the reason, never
// written half (the file would import a helper that does not exist).
import { basename } from 'node:path';
import type { FileInfo, API, Options } from 'jscodeshift';
import type { FileResult } from '../src/model/types.js';
import { processSource } from '../src/pipeline.js';
import { readModuleSync } from '../src/runner/read-module.js';

export default function transform(file: FileInfo, api: API, options: Options): string | undefined {
  const sdk = options['sdk'] === 'v2' ? 'v2' : 'v1';
  const style = options['style'] === 'mcp-server' ? 'mcp-server' : 'server';
  const result = processSource(file.path, file.source, { sdk, style }, readModuleSync);
  const declined = getDeclineReason(result);
  if (declined !== null) {
    api.report(`mcp-migrate declined: ${declined}; run \`mcp-migrate ${file.path}\` to migrate it with everything it needs`);
    return undefined;
  }
  if (result.error !== undefined) api.report(`mcp-migrate: ${result.error}`);
  for (const dropped of result.dropped ?? []) api.report(`mcp-migrate dropped: ${dropped}`);
  return result.after;
}

/** Why the file cannot be migrated by a transform that writes one file, or null when it can. */
export function getDeclineReason(result: FileResult): string | null {
  if (result.after === undefined) return null;
  const companions = result.companions ?? [];
  if (companions.length > 0) {
    return `the rewrite needs a new file next to it (${companions.map((c) => basename(c.path)).join(', ')}: the JSON-RPC envelope helper), and a jscodeshift transform can only change the file it is given`;
  }
  const related = result.related ?? [];
  if (related.length > 0) {
    return `the rewrite also changes ${related.map((r) => basename(r.path)).join(', ')} (the same server), and a jscodeshift transform can only change the file it is given`;
  }
  return null;
}
