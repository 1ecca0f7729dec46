// Where the official @modelcontextprotocol/codemod is installed (an optional peer): the runner looks once
// per package and hands the path to the pipeline, which runs it in memory (src/rewrite/codemod.ts).
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * Where the codemod is installed for a package in `dir`: the project's own first (its node_modules, up
 * the tree), then the one installed with mcp-migrate; null when neither has it.
 */
export function findCodemod(dir: string): string | null {
  for (const from of [join(dir, 'package.json'), import.meta.url]) {
    try {
      return createRequire(from).resolve('@modelcontextprotocol/codemod');
    } catch {
      // not installed there
    }
  }
  return null;
}
