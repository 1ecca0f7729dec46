// The modules the tool itself writes next to a server (the envelope helper, the SDK boundary): whether a
// module of the program imports one already, that is, whether the tool has rewritten this server before.
// Read by detection (a server already on the envelope stays on it) and by the rewrites (idempotence).

/** What a companion file is, by its first line (each of the tool's modules says what it is there). */
export function describeCompanionRole(content: string): string {
  return content.startsWith(`// ${BOUNDARY_BASENAME}:`) ? 'the SDK boundary module' : 'the JSON-RPC envelope helper';
}

/** The companion modules' names, without extension. */
export const ENVELOPE_BASENAME = 'mcp-envelope';
export const BOUNDARY_BASENAME = 'mcp-boundary';

/** Whether the module imports the companion `base` (`./mcp-envelope.js`, `../lib/mcp-boundary.cjs`, ...). */
export function importsCompanion(mod: { source: string }, base: string): boolean {
  return new RegExp(`['"]\\.{1,2}/(?:[^'"]*/)?${base}(?:\\.[cm]?[jt]s)?['"]`).test(mod.source);
}

/** Whether the path is the companion module `base` itself (`lib/mcp-boundary.cjs`). */
export function isCompanionModule(path: string, base: string): boolean {
  return new RegExp(`(?:^|[\\\\/])${base}\\.[cm]?[jt]s$`).test(path);
}

/**
 * Whether a file is one of the tool's own companion modules, as the tool wrote it (its name and its first
 * line): the program is read without it, as without a package (it holds no code of the server's, and its
 * own use of the process's streams is no server's).
 */
export function isToolCompanion(path: string, text: string): boolean {
  for (const base of [ENVELOPE_BASENAME, BOUNDARY_BASENAME]) {
    if (isCompanionModule(path, base) && text.startsWith(`// ${base}: written by mcp-migrate`)) return true;
  }
  return false;
}
