// How long verification waits for each reply, by default. A light module: the argument parser reads it
// without loading the verifier.

/** `mcp-migrate verify --timeout`: per reply (initialize gets three times as long, start-up included). */
export const DEFAULT_VERIFY_TIMEOUT_MS = 3_000;

/**
 * `--verify` in the migration flow (`--verify-timeout`): shorter than `verify`'s, because an original
 * that never answers ping costs one wait per unanswered request, and every rewrite runs two servers.
 */
export const VERIFY_RUN_TIMEOUT_MS = 2_000;

/**
 * The most one exploration of one server may take, start-up included: past it no request is sent any
 * more (the exploration says it was cut short, and a migration's proof is then NOT_VERIFIED). A server
 * that answers is explored in a second or two; this bounds one that answers nothing (100 tools that
 * never reply cost 100 waits), so `verify` ends within about this long plus the few seconds it takes to
 * stop the server, and `verify --compare` and a proof within twice that.
 */
export const MAX_VERIFY_TOTAL_MS = 60_000;

/** The longest wait for one reply a flag can ask for (larger values are clamped to it; Node's timers overflow past 2^31 - 1 ms). */
export const MAX_REPLY_TIMEOUT_MS = 600_000;

/** A per-reply timeout as given (`--timeout`, `--verify-timeout`), made a sane number of milliseconds. */
export function clampReplyTimeout(ms: number): number {
  if (!Number.isFinite(ms) || ms < 1) return 1;
  return Math.min(Math.floor(ms), MAX_REPLY_TIMEOUT_MS);
}
