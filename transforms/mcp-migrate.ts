// The jscodeshift transform (ESM). jscodeshift runs it through the CommonJS adapter next to it
// (`npx jscodeshift -t dist/transforms/mcp-migrate.cjs src/`, see mcp-migrate.cts); this file itself
// only loads that way with `--no-babel`. An adapter: the pipeline decides and rewrites; this returns undefined when nothing changes. jscodeshift
// writes only the file it was handed, so a rewrite that needs a new file beside it (the envelope helper
// module) or changes other files of the server is declined with `api.report` and the reason, never
// written half (the file would import a helper that does not exist).
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { FileInfo, API, Options } from 'jscodeshift';
import { describeCompanionRole } from '../src/analysis/companions.js';
import type { FileResult } from '../src/model/types.js';
import { processSource } from '../src/pipeline.js';
import type { SdkTarget } from '../src/model/types.js';
import { resolveSdkTargetOf } from '../src/runner/manifest.js';
import { readModuleSync } from '../src/runner/read-module.js';

export default function transform(file: FileInfo, api: API, options: Options): string | undefined {
  const sdk = options['sdk'] === 'v1' || options['sdk'] === 'v2' ? options['sdk'] : resolveSdkFor(file.path);
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
    return `the rewrite needs a new file next to it (${companions.map((c) => `${basename(c.path)}: ${describeCompanionRole(c.content)}`).join(', ')}), and a jscodeshift transform can only change the file it is given`;
  }
  const related = result.related ?? [];
  if (related.length > 0) {
    return `the rewrite also changes ${related.map((r) => basename(r.path)).join(', ')} (the same server), and a jscodeshift transform can only change the file it is given`;
  }
  return null;
}

/** `--sdk=auto` (the default) for one file: what the CLI picks, from the nearest package.json. */
function resolveSdkFor(path: string): SdkTarget {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    try {
      const json: unknown = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      if (json !== null && typeof json === 'object' && !Array.isArray(json)) return resolveSdkTargetOf(json as Record<string, unknown>);
    } catch {
      // none here (or not JSON): the folder above
    }
    if (dirname(dir) === dir) return 'v2';
  }
}
