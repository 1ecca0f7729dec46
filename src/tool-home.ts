// Where mcp-migrate itself is installed: the folder of its own package.json, found above this module
// (from src/ in a checkout, dist/src/ once built, or a bundle in dist/). Read once.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: { root: string; version: string } | null | undefined;

/** The tool's folder and version, or null when no package.json above this module names mcp-migrate. */
export function getToolHome(): { root: string; version: string } | null {
  if (cached !== undefined) return cached;
  cached = null;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (json.name === 'mcp-migrate' && typeof json.version === 'string') {
        cached = { root: dir, version: json.version };
        break;
      }
    } catch {
      // no package.json here: keep climbing
    }
    if (dirname(dir) === dir) break;
  }
  return cached;
}
