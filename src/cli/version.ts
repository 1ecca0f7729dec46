// mcp-migrate's own version, from its package.json.
import { getToolHome } from '../tool-home.js';

export function getToolVersion(): string {
  return getToolHome()?.version ?? '0.0.0';
}
