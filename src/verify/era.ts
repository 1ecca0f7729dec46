// The 2026-07-28 protocol era, checked on a migrated server that says it serves it (`serveStdio`): the
// official v2 Client, pinned to that revision (it opens with `server/discover` and puts the version in
// every request's `_meta`; no fallback to the 2025 handshake), connects over the server's stdio and
// asks each listing (askModernEra, run beside the 2025-era exploration); every listing that exploration
// saw answered must come back with the same names (judgeModernEra). The process
// is started and stopped by ./connection.ts like every other run of the proof (its whole tree, bounded).
// Deliberately not: the 2025-era contract (./probe.ts and ./compare.ts), which decides "answers like the original".
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { loadClient } from '../vendor.js';
import { ServerConnection, type JsonObject, type StartOptions } from './connection.js';
import type { Contract } from './probe.js';

export const MODERN_REVISION = '2026-07-28';

export type EraCheck =
  /** `asked`: the listings compared. */
  | { kind: 'served'; asked: string[] }
  /** `stage`: the client could not connect, or a listing failed or offered less (the SDK rejects what the server answers). */
  | { kind: 'refused'; stage: 'connect' | 'listing'; why: string }
  | { kind: 'aborted' };

/** The listings the era check asks again, with the key each item is named by. */
const LISTINGS = [
  { method: 'tools/list', field: 'tools', key: 'name' },
  { method: 'prompts/list', field: 'prompts', key: 'name' },
  { method: 'resources/list', field: 'resources', key: 'uri' },
  { method: 'resources/templates/list', field: 'resourceTemplates', key: 'uriTemplate' },
] as const;

/** What a client pinned to the 2026-07-28 revision was answered: each listing's names, or why it got none. */
export type EraAnswers =
  | { kind: 'answered'; listings: Map<string, { names: string[] | null } | { failed: string }> }
  | Extract<EraCheck, { kind: 'refused' | 'aborted' }>;

/**
 * Connects a client pinned to the 2026-07-28 revision and asks every listing; ./era.ts's judgeModernEra
 * compares the answers with the 2025-era contract. Apart so that it runs beside that exploration (its
 * own copy of the migrated server), not after it.
 */
export async function askModernEra(start: StartOptions, timeoutMs: number, signal?: AbortSignal): Promise<EraAnswers> {
  const { Client } = loadClient();
  const connection = new ServerConnection({ ...start, framing: 'ndjson' });
  const transport = new ConnectionTransport(connection);
  const client = new Client({ name: 'mcp-migrate-verify', version: '1' }, { capabilities: {}, versionNegotiation: { mode: { pin: MODERN_REVISION } } });
  const listings = new Map<string, { names: string[] | null } | { failed: string }>();
  try {
    try {
      await client.connect(transport, { timeout: timeoutMs * 3, signal });
    } catch (err) {
      if (signal?.aborted === true) return { kind: 'aborted' };
      return { kind: 'refused', stage: 'connect', why: `a client of the ${MODERN_REVISION} revision could not connect: ${describeError(err)}${describeStderr(connection)}` };
    }
    for (const listing of LISTINGS) {
      try {
        const answered = await client.request({ method: listing.method, params: {} }, { timeout: timeoutMs, signal });
        listings.set(listing.method, { names: getNames(answered, listing.field, listing.key) });
      } catch (err) {
        if (signal?.aborted === true) return { kind: 'aborted' };
        listings.set(listing.method, { failed: describeError(err) });
      }
    }
    return { kind: 'answered', listings };
  } finally {
    await client.close().catch(() => undefined);
    await connection.close();
  }
}

/** The 2026-07-28 answers against the 2025-era contract: every listing answered there offers the same names. */
export function judgeModernEra(answers: EraAnswers, contract: Contract): EraCheck {
  if (answers.kind !== 'answered') return answers;
  const asked: string[] = [];
  for (const listing of LISTINGS) {
    const before = contract.exchanges.find((e) => e.key === listing.method && e.outcome.kind === 'result');
    if (before === undefined || before.outcome.kind !== 'result') continue;
    const expected = getNames(before.outcome.value, listing.field, listing.key);
    if (expected === null) continue;
    const answer = answers.listings.get(listing.method);
    if (answer === undefined || 'failed' in answer) return { kind: 'refused', stage: 'listing', why: `a client of the ${MODERN_REVISION} revision asked ${listing.method} and got no answer: ${answer?.failed ?? 'not asked'}` };
    asked.push(listing.method);
    const missing = expected.filter((name) => !(answer.names ?? []).includes(name));
    if (missing.length > 0) return { kind: 'refused', stage: 'listing', why: `a client of the ${MODERN_REVISION} revision is not offered ${missing.join(', ')} in ${listing.method} (a 2025-era client is)` };
  }
  return { kind: 'served', asked };
}

/** The names (or uris) of a listing's items, or null when the answer is no listing. */
function getNames(value: unknown, field: string, key: string): string[] | null {
  const items = (value as JsonObject | null)?.[field];
  if (!Array.isArray(items)) return null;
  return items.map((item) => (item as JsonObject | null)?.[key]).filter((name): name is string => typeof name === 'string');
}

function describeError(err: unknown): string {
  const text = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

function describeStderr(connection: ServerConnection): string {
  const tail = connection.getStderrTail(3).trim();
  return tail === '' ? '' : `; its stderr ended with: ${tail.split('\n').join(' / ')}`;
}

/** The SDK Client's Transport over a ServerConnection: what the server writes is handed on in order. */
class ConnectionTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private next = 0;
  private closed = false;

  constructor(private readonly connection: ServerConnection) {}

  async start(): Promise<void> {
    if (this.connection.startError !== null) throw this.connection.startError;
    void this.pump();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.connection.send(message as JsonObject);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.connection.close();
    this.onclose?.();
  }

  private async pump(): Promise<void> {
    while (!this.closed) {
      const message = await this.connection.waitFor(this.next, () => true, 1_000);
      if (message !== null) {
        this.next++;
        this.onmessage?.(message as JSONRPCMessage);
      } else if (this.connection.isGone()) {
        if (!this.closed) {
          this.closed = true;
          this.onclose?.();
        }
        return;
      }
    }
  }
}
