// The probe engine of `mcp-migrate verify`: starts a server command, speaks raw JSON-RPC to it over
// stdin/stdout (NDJSON or Content-Length), explores its contract (every listing, every tool called
// with arguments made up from its schema, every resource read, every prompt got, the custom methods
// asked for) and measures the rules of ./rules.ts on everything it sent and saw. Returns a plain
// result, the contract included (./compare.ts diffs two of them); it prints nothing and never exits
// (src/cli/verify.ts does that). The server is stopped before this returns, whatever happened.
//
// A raw client, not the SDK `Client`: the SDK client refuses to talk to exactly the servers worth
// verifying (no `jsonrpc`, id 0 unanswered or answered with null), and it hides what was on the wire.
import { ServerConnection, isJsonObject, type ExitInfo, type JsonObject } from './connection.js';
import type { Framing } from './framing.js';
import { ERROR_ID_OPTIONAL_FROM, UNBOUND_NAME_MESSAGE, UNBOUND_NAME_TEXT, VERIFY_RULE_IDS, type VerifyRuleId } from './rules.js';
import { buildInvalidArguments, buildValidArguments } from './schema-args.js';
import { clampReplyTimeout, MAX_VERIFY_TOTAL_MS } from './timeouts.js';

export const PROTOCOL_VERSION = '2025-06-18';

export interface VerifyOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  framing: Framing;
  /** How long to wait for each reply. `initialize` gets three times as long (start-up included). */
  timeoutMs: number;
  /** How long to wait for the reply to `initialize`, start-up included (default three times timeoutMs). */
  startTimeoutMs?: number;
  /** Client name/version sent in `initialize`. */
  clientInfo: { name: string; version: string };
  /** Custom (non-MCP) methods to call, each with `params: {}` (only with `calls: 'calls'`). */
  methods?: readonly string[];
  /**
   * `calls` (default, `verify`): every tool with valid arguments, then invalid ones, and the custom
   * methods. `safe` (a migration run's proof): no tool body should run: a tool is called only without
   * its required arguments, prompts are got without arguments, no custom method is asked.
   */
  calls?: 'safe' | 'calls';
  /** Stops the probes early (Ctrl-C); the server is stopped all the same. */
  signal?: AbortSignal;
  /** The most the whole exploration may take (default MAX_VERIFY_TOTAL_MS). */
  totalMs?: number;
  /**
   * Whether a request still unanswered after a moment is followed by a listing the server answered
   * before, so that a server that answers the later request first is taken not to answer this one (the
   * proof, whose differences resting on a missing reply are measured again without it); default false:
   * every reply is awaited for the whole timeout (`verify`, `verify --compare`).
   */
  syncUnanswered?: boolean;
}

export interface RuleResult {
  rule: VerifyRuleId;
  ok: boolean;
  detail: string;
  /** The rule could not be measured (initialize got no reply); `ok` is then false. */
  skipped?: true;
}

/** How a request was answered, as far as the contract goes (the envelope — id, `jsonrpc` — is the rules'). */
export type Outcome =
  | { kind: 'result'; value: unknown }
  | { kind: 'error'; error: unknown }
  | { kind: 'no-reply'; detail: string };

/** One request of the contract exploration and its answer. */
export interface Exchange {
  /** What was asked, unique within a contract: `tools/list`, `tools/call convert`, `tools/call convert (invalid: without required value)`. */
  key: string;
  method: string;
  params?: JsonObject;
  outcome: Outcome;
  /** A listing of a capability the server does not declare: asked with a short wait, and no rule counts its silence. */
  undeclared?: true;
}

/** What a server answered to the exploration, in the order it was asked. */
export interface Contract {
  /** The initialize result, when it was an object. */
  initialize: JsonObject | null;
  exchanges: Exchange[];
  /** Requests not made, each with why (a tool whose schema mcp-migrate cannot satisfy). */
  notSent: string[];
  /** Each time the server exited mid-way and was started again. */
  restarts: string[];
  /** Set when the exploration hit its overall time limit: what was not asked is missing (why, one line). */
  cutShort?: string;
  /**
   * Set when the server first stopped answering while it ran (requests in a row unanswered, and then one
   * it had answered before): it was started again for the steps after that (`restarts`; why, one line).
   */
  stalled?: string;
}

export type VerifyResult =
  | {
      kind: 'checked';
      /** One per rule, in VERIFY_RULE_IDS order. */
      results: RuleResult[];
      /** `serverInfo` from the initialize result, when there was one. */
      serverInfo: { name: string; version: string } | null;
      /** The protocol version the server answered initialize with (null: none). */
      protocolVersion: string | null;
      contract: Contract;
      /** Set when the server exited by itself during the probes (a crash on bad JSON, say). */
      exitedEarly: ExitInfo | null;
      stderrTail: string;
      pid: number | undefined;
    }
  | { kind: 'not-started'; reason: string; stderrTail: string; pid: number | undefined }
  | { kind: 'aborted'; pid: number | undefined };

/** The probe methods and names, chosen so that no real server has them. */
const UNKNOWN_METHOD = 'mcp-migrate/no-such-method';
const UNKNOWN_TOOL = 'mcp_migrate_no_such_tool';
const UNKNOWN_RESOURCE = 'mcp-migrate://no-such-resource';
const UNKNOWN_PROMPT = 'mcp_migrate_no_such_prompt';
const STRING_ID = 'mcp-migrate-verify-7';
const TOOL_STRING_ID = 'mcp-migrate-verify-tool';
const DISCOVER_ID = 'mcp-migrate-discover';
/** The largest integer a JavaScript number holds exactly: a server that rounds or stringifies ids changes it. */
const LARGE_ID = Number.MAX_SAFE_INTEGER;
/** What a 2026-07-28 client may send before `initialize`. */
const DISCOVER_METHOD = 'server/discover';
const BAD_JSON = '{"jsonrpc": "2.0", "id": 99, "method": "tools/list", ';
/** How long to keep watching for a reply to a notification after the request sent behind it was answered. */
const SETTLE_MS = 200;
/** At most this many tools, resources and prompts are each exercised (a generated list can be huge). */
const MAX_ITEMS = 100;
/** How many times a server that exits mid-way is started again. */
const MAX_RESTARTS = 5;
/** How long a reply may take before a listing is sent behind its request to tell "slow" from "never" (syncUnanswered). */
const SYNC_AFTER_MS = 150;
/** After this many requests in a row left unanswered by a running server, it is asked again what it answered before. */
const STALL_AFTER = 2;
/** The longest wait for the listings a server does not declare (answered at once, or never). */
const UNDECLARED_WAIT_MS = 1_000;
/** Capability -> its listing, in the order they are asked. */
const LISTINGS = [
  ['tools', 'tools/list'],
  ['resources', 'resources/list'],
  ['prompts', 'prompts/list'],
] as const;

/** A request the probes may send again (a listing or ping the server answered): what it was. */
interface AskedAgain {
  method: string;
  params: JsonObject | undefined;
}

/** A request that has no effect, so it may be sent again: a listing or ping, never a tool call. */
function isHarmless(method: string): boolean {
  return method === 'ping' || LISTINGS.some(([, listing]) => listing === method);
}

/** Runs every probe against a fresh server process and stops it. */
export async function verifyServer(options: VerifyOptions): Promise<VerifyResult> {
  // One limit for both sessions (the second, without the pre-initialize request, is not a fresh start).
  const totalMs = Math.min(options.totalMs ?? MAX_VERIFY_TOTAL_MS, MAX_VERIFY_TOTAL_MS * 10);
  const deadline = Date.now() + totalMs;
  const first = await runSession(options, true, deadline, totalMs);
  if (first.kind !== 'retry') return first;
  // initialize went unanswered after a request sent before it: try again without that request, so that
  // the rest can still be measured (the pre-initialize rule fails with what happened).
  const second = await runSession(options, false, deadline, totalMs);
  if (second.kind === 'checked') {
    const at = second.results.findIndex((r) => r.rule === 'pre-initialize-unanswered');
    second.results[at] = { rule: 'pre-initialize-unanswered', ok: false, detail: first.detail };
  }
  return second.kind === 'retry' ? { kind: 'not-started', reason: second.detail, stderrTail: '', pid: undefined } : second;
}

type SessionResult = VerifyResult | { kind: 'retry'; detail: string };

async function runSession(options: VerifyOptions, discover: boolean, deadline: number, totalMs: number): Promise<SessionResult> {
  const servers = new ServerProcesses(options);
  try {
    return await runProbes(servers, options, discover, deadline, totalMs);
  } finally {
    await servers.closeAll();
  }
}

/**
 * The server process the probes talk to, and the ones before it: a server that exits mid-way (a tool
 * that crashes it) is started again, so that one crash does not leave every later request unanswered.
 */
class ServerProcesses {
  readonly all: ServerConnection[] = [];

  constructor(private readonly options: VerifyOptions) {
    this.start();
  }

  get current(): ServerConnection {
    return this.all[this.all.length - 1]!;
  }

  get first(): ServerConnection {
    return this.all[0]!;
  }

  start(): ServerConnection {
    const { command, args, cwd, env, framing } = this.options;
    const connection = new ServerConnection({ command, args, cwd, env, framing });
    this.all.push(connection);
    return connection;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.all.map((connection) => connection.close()));
  }
}

export type RuleOutcome = { ok: boolean; detail: string };

/** The outcomes of each rule's probes; a rule holds when all of its outcomes do. */
class Findings {
  private readonly outcomes = new Map<VerifyRuleId, RuleOutcome[]>();
  private readonly skipped = new Map<VerifyRuleId, string>();

  add(rule: VerifyRuleId, ok: boolean, detail: string): void {
    const list = this.outcomes.get(rule) ?? [];
    list.push({ ok, detail });
    this.outcomes.set(rule, list);
  }

  skip(rule: VerifyRuleId, detail: string): void {
    if (!this.outcomes.has(rule)) this.skipped.set(rule, detail);
  }

  /** One result per rule: the failures' details when it fails, else the passes'. */
  build(): RuleResult[] {
    return VERIFY_RULE_IDS.map((rule): RuleResult => {
      const list = this.outcomes.get(rule) ?? [];
      if (list.length === 0) {
        const why = this.skipped.get(rule);
        return why === undefined ? { rule, ok: true, detail: 'nothing to check' } : { rule, ok: false, detail: why, skipped: true };
      }
      const failed = list.filter((outcome) => !outcome.ok);
      const shown = failed.length > 0 ? failed : list;
      return { rule, ok: failed.length === 0, detail: shown.map((outcome) => outcome.detail).join('; ') };
    });
  }
}

/** The ids sent, and how many requests carried each (a Set for every other question). */
class SentIds extends Set<unknown> {
  private readonly counts = new Map<unknown, number>();

  override add(id: unknown): this {
    this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
    return super.add(id);
  }

  countOf(id: unknown): number {
    return this.counts.get(id) ?? 0;
  }
}

function isResponse(message: JsonObject): boolean {
  return 'result' in message || 'error' in message;
}

function getErrorCode(message: JsonObject | null): unknown {
  return message !== null && isJsonObject(message.error) ? message.error.code : undefined;
}

function clip(text: string, max = 100): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A reply in a few words: `result {}`, `error -32601 "Method not found"`, `{"foo":1}`. */
function describeReply(reply: JsonObject): string {
  if ('error' in reply) return describeError(reply.error);
  if ('result' in reply) return clip(`result ${JSON.stringify(reply.result)}`);
  return clip(JSON.stringify(reply));
}

function describeError(error: unknown): string {
  if (isJsonObject(error) && 'code' in error) return clip(`error ${JSON.stringify(error.code)} ${JSON.stringify(error.message)}`);
  return clip(`error ${JSON.stringify(error)}`);
}

/** Text as it is, but with control characters (a stray `\r`, escape codes) made visible. */
function escapeControl(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) => JSON.stringify(c).slice(1, -1));
}

function describeId(id: unknown): string {
  return id === undefined ? 'no id' : `id ${JSON.stringify(id)}`;
}

function isEmptyResult(result: unknown): boolean {
  return isJsonObject(result) && Object.keys(result).every((key) => key === '_meta');
}

function getServerInfo(result: unknown): { name: string; version: string } | null {
  const info = isJsonObject(result) ? result.serverInfo : undefined;
  if (!isJsonObject(info)) return null;
  return { name: String(info.name), version: String(info.version) };
}

/** What an initialize result lacks of what every client reads. */
function getMissingInitializeFields(result: JsonObject): string[] {
  const missing: string[] = [];
  if (typeof result.protocolVersion !== 'string') missing.push('protocolVersion');
  if (!isJsonObject(result.capabilities)) missing.push('capabilities');
  const info = result.serverInfo;
  if (!isJsonObject(info)) missing.push('serverInfo');
  else {
    if (typeof info.name !== 'string') missing.push('serverInfo.name');
    if (typeof info.version !== 'string') missing.push('serverInfo.version');
  }
  return missing;
}

function describeExit(exit: ExitInfo): string {
  return exit.signal !== null ? `killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

/** A message that is part of JSON-RPC (a request, notification or response) — anything else on stdout is noise. */
function isJsonRpcShaped(message: JsonObject): boolean {
  return 'jsonrpc' in message || 'method' in message || 'result' in message || 'error' in message;
}

/** The items of a listing result (`tools`, `resources`, `prompts`), objects only, at most MAX_ITEMS. */
function getListed(exchange: Exchange | undefined, field: string): JsonObject[] {
  if (exchange === undefined || exchange.outcome.kind !== 'result' || !isJsonObject(exchange.outcome.value)) return [];
  const items = exchange.outcome.value[field];
  return Array.isArray(items) ? items.filter(isJsonObject).slice(0, MAX_ITEMS) : [];
}

/** Why a tool call's answer shows a handler that uses an unbound name, or null. */
function getCrash(outcome: Outcome): string | null {
  if (outcome.kind === 'error' && isJsonObject(outcome.error) && outcome.error.code === -32603) {
    const message = String(outcome.error.message);
    return UNBOUND_NAME_MESSAGE.test(message) ? `error -32603 ${JSON.stringify(message)}` : null;
  }
  if (outcome.kind === 'result' && isJsonObject(outcome.value) && outcome.value.isError === true && Array.isArray(outcome.value.content)) {
    const text = outcome.value.content.find((c) => isJsonObject(c) && c.type === 'text' && typeof c.text === 'string' && UNBOUND_NAME_TEXT.test(c.text.trim()));
    return isJsonObject(text) ? `isError result ${JSON.stringify(text.text)}` : null;
  }
  return null;
}

async function runProbes(servers: ServerProcesses, options: VerifyOptions, discover: boolean, deadline: number, totalMs: number): Promise<SessionResult> {
  const { signal } = options;
  const timeoutMs = clampReplyTimeout(options.timeoutMs);
  // the first reply includes the start-up (a TypeScript server under tsx, a loaded machine)
  const startMs = clampReplyTimeout(options.startTimeoutMs ?? 3 * timeoutMs);
  // One limit for the whole exploration: a server that answers nothing costs one wait per request.
  /** How long a wait may still last: `ms`, or what is left of the overall limit. */
  const within = (ms: number): number => Math.max(0, Math.min(ms, deadline - Date.now()));
  const findings = new Findings();
  const sentIds = new SentIds();
  /** Replies already reported as `wrong-id` (the final sweep over every reply skips them). */
  const flagged = new Set<JsonObject>();
  const contract: Contract = { initialize: null, exchanges: [], notSent: [], restarts: [] };
  let nextId = 1;
  const first = servers.first;

  const noReply = (label: string, connection = servers.current): string => {
    if (stalled?.connection === connection && stalled.at !== label) return `${label}: not asked (the server stopped answering at ${stalled.at})`;
    if (connection.exited !== null) return `${label}: no reply (the server ${describeExit(connection.exited)})`;
    return overtaken ? `${label}: no reply (a request sent after it was answered first)` : `${label}: no reply within ${timeoutMs} ms`;
  };

  // A server that stops answering (it hangs on one request) would cost one full wait per request left:
  // after STALL_AFTER requests in a row unanswered, it is asked again a listing (or ping) it answered, and
  // when that goes unanswered too, nothing more is sent to that process (each later request counts as
  // unanswered at once). Two servers stuck at the same request then answer the rest alike. (A request
  // not waited for because one sent after it was answered, syncUnanswered, shows it still answers.)
  let unansweredInRow = 0;
  let lastAnswered: AskedAgain | null = null;
  let stalled: { connection: typeof servers.current; at: string } | null = null;
  /** Sends a listing (or ping) the server answered before again, under `id`. */
  const sendAgain = (connection: typeof servers.current, asked: AskedAgain, id: number | string): void => {
    sentIds.add(id);
    connection.send({ jsonrpc: '2.0', id, method: asked.method, ...(asked.params === undefined ? {} : { params: asked.params }) });
  };
  // A request a server never answers would cost the whole wait. After SYNC_AFTER_MS without its reply,
  // a listing (or ping) the server answered before is sent behind it: when that is answered first, this
  // one gets SETTLE_MS more and is then taken as unanswered. Only while every reply so far carried its
  // request's id (else the listing's reply could not be told from this one's); a measurement taken again
  // with longer waits (verify-run.ts) waits the whole timeout instead.
  const syncUnanswered = options.syncUnanswered ?? false;
  const syncIds = new Set<unknown>();
  let idsHeld = true;
  /** The last wait that ended without a reply ended because a request sent after it was answered first. */
  let overtaken = false;
  const waitForReply = async (connection: typeof servers.current, from: number, matches: (m: JsonObject) => boolean, wait: number): Promise<JsonObject | null> => {
    const asked = lastAnswered;
    overtaken = false;
    if (!syncUnanswered || !idsHeld || asked === null || wait <= SYNC_AFTER_MS) return connection.waitFor(from, matches, wait, signal);
    const first = await connection.waitFor(from, matches, SYNC_AFTER_MS, signal);
    if (first !== null || connection.exited !== null) return first;
    const syncId = `mcp-migrate-sync-${nextId++}`;
    syncIds.add(syncId);
    sendAgain(connection, asked, syncId);
    const next = await connection.waitFor(from, (m) => matches(m) || (isResponse(m) && m.id === syncId), within(wait - SYNC_AFTER_MS), signal);
    if (next === null || next.id !== syncId) return next;
    const late = await connection.waitFor(from, matches, within(Math.min(SETTLE_MS, wait)), signal);
    overtaken = late === null;
    return late;
  };
  const isStillAnswering = async (connection: typeof servers.current, asked: AskedAgain): Promise<boolean> => {
    const id = nextId++;
    const from = connection.messages.length;
    sendAgain(connection, asked, id);
    return (await connection.waitFor(from, (m) => isResponse(m) && m.id === id, within(timeoutMs), signal)) !== null;
  };

  /**
   * Sends a request and returns the first reply to it: one with its id, or with an id no earlier
   * request had (a wrong id such as null), so that a late answer to an earlier probe is not taken.
   * A reply with another id is a `wrong-id` finding.
   */
  const request = async (
    label: string,
    method: string,
    params: JsonObject | undefined,
    id: number | string = nextId++,
    wait = timeoutMs,
    /** Whether an error with an unknown id may be this request's (not for initialize: the request sent before it may be answered that way). */
    errorsWithOtherIds = true,
  ): Promise<JsonObject | null> => {
    const connection = servers.current;
    if (Date.now() >= deadline) {
      contract.cutShort ??= `stopped after ${Math.round(totalMs / 1000)} s, the limit for one exploration: ${label} and what follows were not asked`;
      return null;
    }
    if (stalled?.connection === connection) return null;
    const earlier = new Set(sentIds);
    sentIds.add(id);
    const from = connection.messages.length;
    connection.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    // a process started again after a crash was sent notifications/initialized without a wait: a reply
    // to it must not be taken for this one, so there only the id counts
    const loose = servers.all.length === 1;
    const reply = await waitForReply(
      connection,
      from,
      (m) => isResponse(m) && (m.id === id || (loose && !earlier.has(m.id) && !syncIds.has(m.id) && (errorsWithOtherIds || !('error' in m)))),
      within(wait),
    );
    if (reply !== null && reply.id !== id) {
      idsHeld = false;
      flagged.add(reply);
      findings.add('wrong-id', false, `${label} (id ${JSON.stringify(id)}) answered with ${describeId(reply.id)}`);
    }
    if (reply !== null) {
      unansweredInRow = 0;
      if (isHarmless(method)) lastAnswered = { method, params };
    } else if (overtaken) {
      // (a request sent after it was answered: the server is still answering)
      unansweredInRow = 0;
    } else if (connection.exited === null && !isAborted(signal) && Date.now() < deadline && ++unansweredInRow >= STALL_AFTER && lastAnswered !== null) {
      if (await isStillAnswering(connection, lastAnswered)) unansweredInRow = 0;
      else if (connection.exited === null) {
        stalled = { connection, at: label };
        contract.stalled ??= `the server stopped answering at ${label} (nor did it answer ${lastAnswered.method} again): it was started again for the steps after it`;
      }
    }
    return reply;
  };

  const toOutcome = (key: string, reply: JsonObject | null): Outcome =>
    reply === null ? { kind: 'no-reply', detail: noReply(key) } : 'error' in reply ? { kind: 'error', error: reply.error } : { kind: 'result', value: reply.result };

  /**
   * Before a step: when the server has exited, or stopped answering (stuck in one request: a tool body
   * that never returns), start it again (initialize, notifications/initialized) so that the steps after
   * it are still measured, as on a server that did not get stuck. At most MAX_RESTARTS times.
   */
  const ensureRunning = async (before: string): Promise<void> => {
    const gone = servers.current;
    const stuck = stalled?.connection === gone ? stalled.at : null;
    if ((gone.exited === null && stuck === null) || contract.restarts.length >= MAX_RESTARTS || isAborted(signal) || Date.now() >= deadline) return;
    const what = gone.exited !== null ? describeExit(gone.exited) : `stopped answering at ${stuck}`;
    await gone.close();
    const next = servers.start();
    const id = nextId++;
    sentIds.add(id);
    next.send({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: options.clientInfo } });
    const reply = await next.waitFor(0, (m) => isResponse(m) && m.id === id, within(startMs), signal);
    if (reply !== null) next.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    contract.restarts.push(`the server ${what} before ${before}; ${reply === null ? 'it could not be started again' : 'started it again'}`);
  };

  /** A request of the contract exploration: asked, answered (or not), recorded under `key`. */
  const explore = async (key: string, method: string, params: JsonObject | undefined): Promise<Exchange> => {
    await ensureRunning(key);
    const reply = await request(key, method, params);
    const exchange: Exchange = { key, method, ...(params === undefined ? {} : { params }), outcome: toOutcome(key, reply) };
    contract.exchanges.push(exchange);
    return exchange;
  };

  /**
   * Sends a notification and, behind it, a request to sync on; any response other than the one to
   * that request (matched strictly by id) is a reply to the notification, except a late answer to a
   * request sent before it (its id is one of theirs): a server that runs its handlers one at a time
   * may answer the sync request (ping, which the SDK answers itself) before a queued one.
   */
  const notify = async (method: string, params: JsonObject, syncMethod: string): Promise<JsonObject | null> => {
    const connection = servers.current;
    if (stalled?.connection === connection) return null;
    const earlier = new Set(sentIds);
    const syncId = nextId++;
    sentIds.add(syncId);
    const from = connection.messages.length;
    connection.send({ jsonrpc: '2.0', method, params });
    connection.send({ jsonrpc: '2.0', id: syncId, method: syncMethod });
    const sync = await connection.waitFor(from, (m) => isResponse(m) && m.id === syncId, within(timeoutMs), signal);
    if (sync !== null && 'result' in sync && isHarmless(syncMethod)) lastAnswered = { method: syncMethod, params: undefined };
    await connection.settle(within(Math.min(SETTLE_MS, timeoutMs)), signal);
    const replies = connection.messages.slice(from).filter((m) => m !== sync && isResponse(m) && !(m.id !== undefined && m.id !== null && earlier.has(m.id)));
    for (const reply of replies) flagged.add(reply);
    findings.add(
      'reply-to-notification',
      replies.length === 0,
      replies.length === 0 ? `${method}: no reply` : `${method} answered: ${replies.map(describeReply).join(', ')}`,
    );
    return sync;
  };

  // 1. A request before initialize (a 2026-07-28 client's server/discover), sent right ahead of
  //    initialize: its answer is looked for at the end, so a server that ignores it costs no wait.
  if (discover) {
    sentIds.add(DISCOVER_ID);
    first.send({ jsonrpc: '2.0', id: DISCOVER_ID, method: DISCOVER_METHOD, params: {} });
  }

  // 2. initialize. No reply from a live server: nothing else can be measured. No reply because the
  //    server is gone (or never started): not a verdict on the server but on the command.
  const init = await request(
    'initialize',
    'initialize',
    { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: options.clientInfo },
    nextId++,
    startMs,
    !discover,
  );
  if (isAborted(signal)) return { kind: 'aborted', pid: first.pid };
  if (init === null) {
    if (first.startError !== null) {
      return { kind: 'not-started', reason: describeStartError(options, first.startError), stderrTail: first.getStderrTail(), pid: first.pid };
    }
    // The server died, or wrote something but never answered initialize, after a request it may not
    // have expected before it: worth a second try without that request.
    const answeredSomething = first.messages.length > 0 || first.strayCount > 0;
    if (discover && (first.exited !== null || answeredSomething)) {
      const how = first.exited !== null ? `the server ${describeExit(first.exited)}` : 'initialize went unanswered';
      return { kind: 'retry', detail: `${DISCOVER_METHOD} sent before initialize: ${how} (without it, initialize is answered)` };
    }
    if (first.exited !== null) {
      return { kind: 'not-started', reason: `the server ${describeExit(first.exited)} before answering initialize`, stderrTail: first.getStderrTail(), pid: first.pid };
    }
    findings.add('initialize-failed', false, `initialize: no reply within ${startMs} ms (wrong --framing?)`);
    for (const rule of VERIFY_RULE_IDS) findings.skip(rule, 'not checked: initialize got no reply');
    return finish(servers, findings, null, null, contract, flagged, sentIds);
  }
  const serverInfo = getServerInfo(init.result);
  const initResult = isJsonObject(init.result) ? init.result : null;
  contract.initialize = initResult;
  const protocolVersion = initResult !== null && typeof initResult.protocolVersion === 'string' ? initResult.protocolVersion : null;
  const missing = initResult === null ? [] : getMissingInitializeFields(initResult);
  findings.add(
    'initialize-failed',
    initResult !== null && missing.length === 0,
    initResult === null
      ? `initialize answered ${describeReply(init)}`
      : missing.length > 0
        ? `the initialize result lacks ${missing.join(', ')}: ${clip(JSON.stringify(initResult))}`
        : `initialize answered${serverInfo === null ? '' : ` by ${serverInfo.name} ${serverInfo.version}`} (protocol ${JSON.stringify(protocolVersion)})`,
  );
  const capabilities = initResult !== null && isJsonObject(initResult.capabilities) ? initResult.capabilities : {};
  const hasTools = isJsonObject(capabilities.tools);

  // 3. notifications/initialized, synced on tools/list when the server has tools (which also checks
  //    that tools/list is answered, and gives the contract its tool list), else on ping.
  const firstSync = hasTools ? 'tools/list' : 'ping';
  const listed = await notify('notifications/initialized', {}, firstSync);
  if (hasTools) contract.exchanges.push({ key: 'tools/list', method: 'tools/list', outcome: toOutcome('tools/list', listed) });

  // 4. The listings the server declares, one after the other; the ones it does not declare asked all at
  //    once and given a shorter wait (a server may serve a listing it never declared: the comparison
  //    needs to know).
  for (const [capability, method] of LISTINGS) {
    if (capability !== 'tools' && isJsonObject(capabilities[capability])) await explore(method, method, {});
  }
  await ensureRunning('the undeclared listings');
  const undeclared = LISTINGS.filter(([capability]) => !isJsonObject(capabilities[capability])).map(([, method]) => {
    const id = nextId++;
    sentIds.add(id);
    servers.current.send({ jsonrpc: '2.0', id, method, params: {} });
    return { method, id };
  });
  const undeclaredDeadline = Date.now() + Math.min(timeoutMs, UNDECLARED_WAIT_MS);
  // (one left unanswered until a later request was answered: the others, sent with it, are not waited for)
  let undeclaredDone = false;
  for (const { method, id } of undeclared) {
    const reply = await waitForReply(servers.current, 0, (m) => isResponse(m) && m.id === id, undeclaredDone ? 0 : within(Math.max(0, undeclaredDeadline - Date.now())));
    if (reply === null) undeclaredDone = true;
    contract.exchanges.push({ key: method, method, params: {}, outcome: toOutcome(method, reply), undeclared: true });
  }
  const listing = (method: string): Exchange | undefined => contract.exchanges.find((e) => e.key === method);

  // 5. Every tool with valid arguments, every resource, every prompt, every custom method asked for;
  //    then every tool with invalid arguments (the likeliest to crash a hand-rolled server).
  const keys = new Set<string>();
  const uniqueKey = (key: string): string => {
    let unique = key;
    for (let n = 2; keys.has(unique); n++) unique = `${key} #${n}`;
    keys.add(unique);
    return unique;
  };
  const tools = getListed(listing('tools/list'), 'tools').filter((tool) => typeof tool.name === 'string');
  const safe = options.calls === 'safe';
  let toolCalls = 0;
  for (const tool of safe ? [] : tools) {
    const valid = buildValidArguments(tool.inputSchema);
    if (!valid.ok) {
      contract.notSent.push(`tools/call ${String(tool.name)}: no valid arguments could be made up (${valid.reason})`);
      continue;
    }
    const call = await explore(uniqueKey(`tools/call ${String(tool.name)}`), 'tools/call', { name: tool.name, arguments: valid.value as JsonObject });
    toolCalls++;
    const crash = getCrash(call.outcome);
    if (crash !== null) findings.add('tool-call-crashed', false, `${call.key} answered ${crash}`);
    if (isAborted(signal)) return { kind: 'aborted', pid: first.pid };
  }
  if (toolCalls > 0) findings.add('tool-call-crashed', true, `${toolCalls} tool call(s) with valid arguments, none failed on an unbound name`);
  for (const resource of getListed(listing('resources/list'), 'resources')) {
    if (typeof resource.uri === 'string') await explore(uniqueKey(`resources/read ${resource.uri}`), 'resources/read', { uri: resource.uri });
  }
  for (const prompt of getListed(listing('prompts/list'), 'prompts')) {
    if (typeof prompt.name !== 'string') continue;
    const args: Record<string, string> = {};
    for (const arg of Array.isArray(prompt.arguments) && !safe ? prompt.arguments.filter(isJsonObject) : []) {
      if (arg.required === true && typeof arg.name === 'string') args[arg.name] = 'example';
    }
    await explore(uniqueKey(`prompts/get ${prompt.name}`), 'prompts/get', { name: prompt.name, arguments: args });
  }
  for (const method of safe ? [] : (options.methods ?? [])) await explore(uniqueKey(method), method, {});
  for (const tool of tools) {
    const invalid = buildInvalidArguments(tool.inputSchema);
    if (invalid !== null && (!safe || invalid.missingRequired === true)) await explore(uniqueKey(`tools/call ${String(tool.name)} (invalid: ${invalid.what})`), 'tools/call', { name: tool.name, arguments: invalid.value });
    if (isAborted(signal)) return { kind: 'aborted', pid: first.pid };
  }
  const unanswered = contract.exchanges.filter((e) => e.outcome.kind === 'no-reply' && e.undeclared !== true);
  for (const exchange of unanswered) findings.add('no-reply', false, exchange.outcome.kind === 'no-reply' ? exchange.outcome.detail : exchange.key);
  const answered = contract.exchanges.filter((e) => e.undeclared !== true).length - unanswered.length;
  if (answered > 0 && unanswered.length === 0) findings.add('no-reply', true, `${answered} listing(s) and call(s) answered`);

  // 6. ping.
  await ensureRunning('ping');
  const ping = await request('ping', 'ping', undefined);
  const pingOk = ping !== null && 'result' in ping && isEmptyResult(ping.result);
  findings.add('ping-unanswered', pingOk, ping === null ? noReply('ping') : pingOk ? 'ping answered {}' : `ping answered ${describeReply(ping)}`);

  // 7. An unknown method, with id 0: an error reply must echo it as well (`id || null` does not).
  await ensureRunning(UNKNOWN_METHOD);
  const unknown = await request(UNKNOWN_METHOD, UNKNOWN_METHOD, {}, 0);
  const unknownOk = getErrorCode(unknown) === -32601;
  findings.add(
    'unknown-method-unanswered',
    unknownOk,
    unknown === null ? noReply(`unknown method ${UNKNOWN_METHOD}`) : `unknown method answered ${describeReply(unknown)}`,
  );
  if (unknown !== null && unknown.id === 0) findings.add('wrong-id', true, 'id 0 echoed on an error');

  // 8. Ids 0 and a string, on a method the server is known to answer (the id is what is measured).
  const echo = hasTools && listed !== null ? 'tools/list' : ping !== null ? 'ping' : unknown !== null ? UNKNOWN_METHOD : null;
  if (echo === null) {
    findings.skip('wrong-id', 'not checked: no request besides initialize was answered');
  } else {
    for (const id of [0, STRING_ID, '0', LARGE_ID]) {
      await ensureRunning(`${echo} with id ${JSON.stringify(id)}`);
      const reply = await request(echo, echo, undefined, id);
      if (reply === null) findings.add('wrong-id', false, noReply(`${echo} with id ${JSON.stringify(id)}`));
      else if (reply.id === id) findings.add('wrong-id', true, `id ${JSON.stringify(id)} echoed`);
    }
  }

  // 9. An unknown tool, with a string id: an error or an isError result, not silence.
  if (hasTools) {
    await ensureRunning(`tools/call ${UNKNOWN_TOOL}`);
    const tool = await request('tools/call', 'tools/call', { name: UNKNOWN_TOOL, arguments: {} }, TOOL_STRING_ID);
    const toolOk = tool !== null && ('error' in tool || (isJsonObject(tool.result) && tool.result.isError === true));
    findings.add(
      'no-reply',
      toolOk,
      tool === null ? noReply(`tools/call ${UNKNOWN_TOOL}`) : toolOk ? `unknown tool answered ${describeReply(tool)}` : `unknown tool answered with a success: ${describeReply(tool)}`,
    );
  }

  // 9b. A resource and a prompt that do not exist (when the server serves the listing): their error
  //     paths, which no listed item takes. Compared as contract exchanges, like every item request.
  for (const [method, params, key] of [
    ['resources/read', { uri: UNKNOWN_RESOURCE }, `resources/read ${UNKNOWN_RESOURCE}`],
    ['prompts/get', { name: UNKNOWN_PROMPT, arguments: {} }, `prompts/get ${UNKNOWN_PROMPT}`],
  ] as const) {
    const listed = listing(method === 'resources/read' ? 'resources/list' : 'prompts/list');
    if (listed === undefined || listed.outcome.kind !== 'result') continue;
    await ensureRunning(key);
    await explore(uniqueKey(key), method, params);
  }

  // 10. notifications/cancelled (for a request that does not exist: still no reply).
  await ensureRunning('notifications/cancelled');
  await notify('notifications/cancelled', { requestId: 999, reason: 'mcp-migrate verify probe' }, echo ?? firstSync);

  // 11. A line of bad JSON. Any -32700 is taken as its answer (its id is then judged), else any
  //     response that is not a late answer to an earlier request; then the server must still serve
  //     (no restart here: surviving the line is what is measured).
  await ensureRunning('the bad JSON line');
  const connection = servers.current;
  const parseFrom = connection.messages.length;
  connection.sendBody(BAD_JSON);
  const parse = await waitForReply(connection, parseFrom, (m) => isResponse(m) && (getErrorCode(m) === -32700 || !sentIds.has(m.id)), within(timeoutMs));
  if (parse !== null) flagged.add(parse);
  const after = echo === null ? null : await request(`${echo} after bad JSON`, echo, undefined);
  if (echo !== null) findings.add('no-reply', after !== null, after === null ? noReply(`${echo} after the bad JSON line`) : 'still serving after bad JSON');
  const parseVerdict = judgeParseError(parse, protocolVersion ?? PROTOCOL_VERSION, connection.exited, echo === null ? null : after !== null);
  findings.add('parse-error-unanswered', parseVerdict.ok, parseVerdict.detail);

  // 12. The request sent before initialize: answered at any time, by a result or an error.
  if (discover) {
    const answer = first.messages.find((m) => isResponse(m) && m.id === DISCOVER_ID);
    findings.add(
      'pre-initialize-unanswered',
      answer !== undefined,
      answer === undefined ? `${DISCOVER_METHOD} sent before initialize: no reply` : `${DISCOVER_METHOD} sent before initialize answered ${describeReply(answer)}`,
    );
  }

  if (isAborted(signal)) return { kind: 'aborted', pid: first.pid };
  return finish(servers, findings, serverInfo, protocolVersion, contract, flagged, sentIds);
}

/**
 * The bad-JSON verdict, by what the negotiated protocol allows: dropping the line while serving on
 * (the SDK transports), -32700 with `id: null` (JSON-RPC 2.0), or -32700 without an id (from 2025-11-25).
 * `serving`: whether a request after the line was answered (null: nothing to ask).
 */
export function judgeParseError(parse: JsonObject | null, version: string, exited: ExitInfo | null, serving: boolean | null): RuleOutcome {
  if (parse === null) {
    if (exited !== null) return { ok: false, detail: `bad JSON line: no reply, and the server ${describeExit(exited)}` };
    if (serving === false) return { ok: false, detail: 'bad JSON line: no reply, and the server stopped answering' };
    return { ok: true, detail: 'bad JSON line dropped; the server kept serving (what the SDK transports do)' };
  }
  if (getErrorCode(parse) !== -32700) return { ok: false, detail: `bad JSON answered ${describeReply(parse)} with ${describeId(parse.id)}` };
  if ('id' in parse && parse.id === null) return { ok: true, detail: 'bad JSON answered -32700 with id null' };
  if (!('id' in parse)) {
    return version >= ERROR_ID_OPTIONAL_FROM
      ? { ok: true, detail: `bad JSON answered -32700 without an id (allowed from protocol ${ERROR_ID_OPTIONAL_FROM}; ${version} negotiated)` }
      : { ok: false, detail: `bad JSON answered -32700 without an id: allowed only from protocol ${ERROR_ID_OPTIONAL_FROM}, and ${version} was negotiated (reply with id null)` };
  }
  return { ok: false, detail: `bad JSON answered -32700 with ${describeId(parse.id)} (expected id null, or no reply)` };
}

function describeStartError(options: VerifyOptions, error: NodeJS.ErrnoException): string {
  const why = error.code === 'ENOENT' ? 'no such command (or no such directory)' : error.code === 'EACCES' ? 'permission denied' : error.message;
  return `could not start ${options.command}: ${why} (${error.message})`;
}

/** A function, not `signal?.aborted` inline: TypeScript would keep the first check's narrowing. */
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/**
 * The rules measured on everything the server wrote, then the result. Replies with an id no request
 * had are looked for in the first process only (a process started again after a crash was sent a
 * notification nobody waited on).
 */
function finish(
  servers: ServerProcesses,
  findings: Findings,
  serverInfo: { name: string; version: string } | null,
  protocolVersion: string | null,
  contract: Contract,
  flagged: ReadonlySet<JsonObject>,
  sentIds: SentIds,
): VerifyResult {
  const messages = servers.all.flatMap((connection) => connection.messages);
  const rpc = messages.filter(isJsonRpcShaped);
  const nonRpc = messages.filter((m) => !isJsonRpcShaped(m));
  const noise = [...servers.all.flatMap((connection) => connection.strayOutput), ...nonRpc.slice(0, 1).map((m) => JSON.stringify(m))];
  // Stray text is kept only in part (a flood is counted, not stored): the count is the real one.
  const noiseCount = servers.all.reduce((sum, connection) => sum + connection.strayCount, 0) + nonRpc.length;

  const stray = servers.first.messages.filter((m) => isJsonRpcShaped(m) && isResponse(m) && !flagged.has(m) && !sentIds.has(m.id));
  if (stray.length > 0) findings.add('wrong-id', false, `${stray.length} repl(ies) with an id no request had, e.g. ${clip(JSON.stringify(stray[0]))}`);

  // replies per request id (ids are JSON values: 0 and "0" are two ids); the first process only, as above
  // (the probes send some ids more than once, id 0 on an error and on a result: more replies than requests)
  const replies = new Map<unknown, number>();
  for (const m of servers.first.messages) {
    if (!isJsonRpcShaped(m) || !isResponse(m) || m.id === null || m.id === undefined || !sentIds.has(m.id)) continue;
    replies.set(m.id, (replies.get(m.id) ?? 0) + 1);
  }
  const twice = [...replies].filter(([id, count]) => count > sentIds.countOf(id));
  findings.add(
    'duplicate-reply',
    twice.length === 0,
    twice.length === 0
      ? `${replies.size} request id(s), none answered more often than asked`
      : `${twice.length} request id(s) answered more often than asked, e.g. id ${JSON.stringify(twice[0]![0])}: ${sentIds.countOf(twice[0]![0])} request(s), ${twice[0]![1]} replies`,
  );

  const withoutJsonrpc = rpc.filter((m) => m.jsonrpc !== '2.0');
  findings.add(
    'missing-jsonrpc',
    withoutJsonrpc.length === 0,
    withoutJsonrpc.length === 0
      ? rpc.length === 0 ? 'no messages' : `${rpc.length} message(s), all with "jsonrpc": "2.0"`
      : `${withoutJsonrpc.length} of ${rpc.length} message(s) without "jsonrpc": "2.0", e.g. ${clip(JSON.stringify(withoutJsonrpc[0]))}`,
  );

  const errors = rpc.filter((m) => 'error' in m);
  const nonstandard = errors.filter((m) => !(isJsonObject(m.error) && Number.isInteger(m.error.code) && typeof m.error.message === 'string'));
  findings.add(
    'nonstandard-error',
    nonstandard.length === 0,
    nonstandard.length === 0
      ? errors.length === 0 ? 'no error replies' : `${errors.length} error(s), all {code, message}`
      : `${nonstandard.length} error(s) not {code: integer, message: string}, e.g. ${clip(JSON.stringify(nonstandard[0]?.error))}`,
  );

  findings.add(
    'stdout-pollution',
    noiseCount === 0,
    noiseCount === 0 ? 'only JSON-RPC on stdout' : `${noiseCount} line(s) on stdout that are not JSON-RPC, the first: ${clip(escapeControl(noise[0] ?? ''))}`,
  );

  return {
    kind: 'checked',
    results: findings.build(),
    serverInfo,
    protocolVersion,
    contract,
    exitedEarly: servers.first.exited,
    stderrTail: servers.current.getStderrTail(),
    pid: servers.first.pid,
  };
}
