// How long verification waits for each reply, by default. A light module: the argument parser reads it
// without loading the verifier.

/** `mcp-migrate verify --timeout`: per reply (initialize gets three times as long, start-up included). */
export const DEFAULT_VERIFY_TIMEOUT_MS = 3_000;

/**
 * `--verify` in the migration flow (`--verify-timeout`): shorter than `verify`'s, because an original
 * that never answers ping costs one wait per unanswered request, and every rewrite runs two servers.
 */
export const VERIFY_RUN_TIMEOUT_MS = 2_000;
