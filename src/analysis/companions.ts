// The modules the tool itself writes next to a server (the envelope helper, the SDK boundary): whether a
// module of the program imports one already, that is, whether the tool has rewritten this server before.
// Read by detection (a server already on the envelope stays on it) and by the rewrites (idempotence).

/** The companion modules' names, without extension. */
export const ENVELOPE_BASENAME = 'mcp-envelope';
export const BOUNDARY_BASENAME = 'mcp-boundary';

/** Whether the module imports the companion `base` (`./mcp-envelope.js`, `../lib/mcp-boundary.cjs`, ...). */
export function importsCompanion(mod: { source: string }, base: string): boolean {
  return new RegExp(`['"]\\.{1,2}/(?:[^'"]*/)?${base}(?:\\.[cm]?[jt]s)?['"]`).test(mod.source);
}
