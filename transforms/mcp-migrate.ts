// jscodeshift entry point: `npx jscodeshift -t dist/transforms/mcp-migrate.js src/`.
// An adapter: the pipeline decides and rewrites; this returns undefined when nothing changes.
import type { FileInfo, API, Options } from 'jscodeshift';
import { processSource } from '../src/pipeline.js';

export default function transform(file: FileInfo, _api: API, options: Options): string | undefined {
  const sdk = options['sdk'] === 'v2' ? 'v2' : 'v1';
  const style = options['style'] === 'mcp-server' ? 'mcp-server' : 'server';
  const result = processSource(file.path, file.source, { sdk, style });
  return result.after;
}
