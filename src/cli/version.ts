// mcp-migrate's own version, read once from its package.json above this module (from src/ or dist/).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | null = null;

export function getToolVersion(): string {
  if (cached !== null) return cached;
  cached = '0.0.0';
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (json.name === 'mcp-migrate' && typeof json.version === 'string') {
        cached = json.version;
        break;
      }
    } catch {
      // no package.json here: keep climbing
    }
    if (dirname(dir) === dir) break;
  }
  return cached;
}
