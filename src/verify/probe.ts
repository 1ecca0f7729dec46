// The probe engine of `mcp-migrate verify`: starts a server command, speaks raw JSON-RPC to it over
// stdin/stdout (NDJSON or Content-Length) and measures the rules of ./rules.ts. Returns a plain
// result; it prints nothing and never exits (src/cli/verify.ts does that). The server is stopped
// before this returns, whatever happened.
//
// A raw client, not the SDK `Client`: the SDK client refuses to talk to exactly the servers worth
// verifying (no `jsonrpc`, id 0 unanswered or answered with null), and it hides what was on the wire.
import { ServerConnection, isJsonObject, type ExitInfo, type JsonObject } from './connection.js';
import type { Framing } from './framing.js';
import { VERIFY_RULE_IDS, type VerifyRuleId } from './rules.js';

export const PROTOCOL_VERSION = '2025-06-18';

export interface VerifyOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  framing: Framing;
  /** How long to wait for each reply. `initialize` gets three times as long (start-up included). */
  timeoutMs: number;
  /** Client name/version sent in `initialize`. */
  clientInfo: { name: string; version: string };
  /** Stops the probes early (Ctrl-C); the server is stopped all the same. */
  signal?: AbortSignal;
}

export interface RuleResult {
  rule: VerifyRuleId;
  ok: boolean;
  detail: string;
  /** The rule could not be measured (initialize got no reply); `ok` is then false. */
  skipped?: true;
}

export type VerifyResult =
  | {
      kind: 'checked';
      /** One per rule, in VERIFY_RULE_IDS order. */
      results: RuleResult[];
      /** `serverInfo` from the initialize result, when there was one. */
      serverInfo: { name: string; version: string } | null;
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
const STRING_ID = 'mcp-migrate-verify-7';
const BAD_JSON = '{"jsonrpc": "2.0", "id": 99, "method": "tools/list", ';
/** How long to keep watching for a reply to a notification after the request sent behind it was answered. */
const SETTLE_MS = 200;

/** Runs every probe against a fresh server process and stops it. */
export async function verifyServer(options: VerifyOptions): Promise<VerifyResult> {
  const connection = new ServerConnection({
    command: options.command,
    args: options.args,
    cwd: options.cwd,
    env: options.env,
    framing: options.framing,
  });
  try {
    return await runProbes(connection, options);
  } finally {
    await connection.close();
  }
}

type Outcome = { ok: boolean; detail: string };

/** The outcomes of each rule's probes; a rule holds when all of its outcomes do. */
class Findings {
  private readonly outcomes = new Map<VerifyRuleId, Outcome[]>();
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
  if ('error' in reply) {
    const error = reply.error;
    if (isJsonObject(error) && 'code' in error) return clip(`error ${JSON.stringify(error.code)} ${JSON.stringify(error.message)}`);
    return clip(`error ${JSON.stringify(error)}`);
  }
  if ('result' in reply) return clip(`result ${JSON.stringify(reply.result)}`);
  return clip(JSON.stringify(reply));
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

function describeExit(exit: ExitInfo): string {
  return exit.signal !== null ? `killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

/** A message that is part of JSON-RPC (a request, notification or response) — anything else on stdout is noise. */
function isJsonRpcShaped(message: JsonObject): boolean {
  return 'jsonrpc' in message || 'method' in message || 'result' in message || 'error' in message;
}

async function runProbes(connection: ServerConnection, options: VerifyOptions): Promise<VerifyResult> {
  const { timeoutMs, signal } = options;
  const findings = new Findings();
  const sentIds = new Set<unknown>();
  let nextId = 1;

  const noReply = (label: string): string =>
    connection.exited !== null ? `${label}: no reply (the server ${describeExit(connection.exited)})` : `${label}: no reply within ${timeoutMs} ms`;

  /**
   * Sends a request and returns the first reply to it: one with its id, or with an id no earlier
   * request had (a wrong id such as null), so that a late answer to an earlier probe is not taken.
   * A reply with another id is a `wrong-id` finding.
   */
  const request = async (label: string, method: string, params: JsonObject | undefined, id: number | string = nextId++, wait = timeoutMs): Promise<JsonObject | null> => {
    const earlier = new Set(sentIds);
    sentIds.add(id);
    const from = connection.messages.length;
    connection.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    const reply = await connection.waitFor(from, (m) => isResponse(m) && (m.id === id || !earlier.has(m.id)), wait, signal);
    if (reply !== null && reply.id !== id) findings.add('wrong-id', false, `${label} (id ${JSON.stringify(id)}) answered with ${describeId(reply.id)}`);
    return reply;
  };

  /**
   * Sends a notification and, behind it, a request to sync on; any response other than the one to
   * that request (matched strictly by id) is a reply to the notification. Returns the sync reply.
   */
  const notify = async (method: string, params: JsonObject, syncMethod: string): Promise<JsonObject | null> => {
    const syncId = nextId++;
    sentIds.add(syncId);
    const from = connection.messages.length;
    connection.send({ jsonrpc: '2.0', method, params });
    connection.send({ jsonrpc: '2.0', id: syncId, method: syncMethod });
    const sync = await connection.waitFor(from, (m) => isResponse(m) && m.id === syncId, timeoutMs, signal);
    await connection.settle(Math.min(SETTLE_MS, timeoutMs), signal);
    const replies = connection.messages.slice(from).filter((m) => m !== sync && isResponse(m));
    findings.add(
      'reply-to-notification',
      replies.length === 0,
      replies.length === 0 ? `${method}: no reply` : `${method} answered: ${replies.map(describeReply).join(', ')}`,
    );
    return sync;
  };

  // 1. initialize. No reply from a live server: nothing else can be measured. No reply because the
  //    server is gone (or never started): not a verdict on the server but on the command.
  const init = await request(
    'initialize',
    'initialize',
    { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: options.clientInfo },
    nextId++,
    3 * timeoutMs,
  );
  if (isAborted(signal)) return { kind: 'aborted', pid: connection.pid };
  if (init === null) {
    if (connection.startError !== null) {
      return { kind: 'not-started', reason: describeStartError(options, connection.startError), stderrTail: connection.getStderrTail(), pid: connection.pid };
    }
    if (connection.exited !== null) {
      return { kind: 'not-started', reason: `the server ${describeExit(connection.exited)} before answering initialize`, stderrTail: connection.getStderrTail(), pid: connection.pid };
    }
    findings.add('initialize-failed', false, `initialize: no reply within ${3 * timeoutMs} ms (wrong --framing?)`);
    for (const rule of VERIFY_RULE_IDS) findings.skip(rule, 'not checked: initialize got no reply');
    return finish(connection, findings, null);
  }
  const serverInfo = getServerInfo(init.result);
  const initOk = isJsonObject(init.result);
  findings.add(
    'initialize-failed',
    initOk,
    initOk
      ? `initialize answered${serverInfo === null ? '' : ` by ${serverInfo.name} ${serverInfo.version}`} (protocol ${JSON.stringify(isJsonObject(init.result) ? init.result.protocolVersion : undefined)})`
      : `initialize answered ${describeReply(init)}`,
  );
  const capabilities = isJsonObject(init.result) ? init.result.capabilities : undefined;
  const hasTools = isJsonObject(capabilities) && isJsonObject(capabilities.tools);

  // 2. notifications/initialized, synced on tools/list when the server has tools (which also checks
  //    that tools/list is answered), else on ping.
  const firstSync = hasTools ? 'tools/list' : 'ping';
  const listed = await notify('notifications/initialized', {}, firstSync);
  if (hasTools) findings.add('no-reply', listed !== null, listed === null ? noReply('tools/list') : 'tools/list answered');

  // 3. ping.
  const ping = await request('ping', 'ping', undefined);
  const pingOk = ping !== null && 'result' in ping && isEmptyResult(ping.result);
  findings.add('ping-unanswered', pingOk, ping === null ? noReply('ping') : pingOk ? 'ping answered {}' : `ping answered ${describeReply(ping)}`);

  // 4. An unknown method.
  const unknown = await request(UNKNOWN_METHOD, UNKNOWN_METHOD, {});
  const unknownOk = getErrorCode(unknown) === -32601;
  findings.add(
    'unknown-method-unanswered',
    unknownOk,
    unknown === null ? noReply(`unknown method ${UNKNOWN_METHOD}`) : `unknown method answered ${describeReply(unknown)}`,
  );

  // 5. Ids 0 and a string, on a method the server is known to answer (the id is what is measured).
  const echo = hasTools && listed !== null ? 'tools/list' : ping !== null ? 'ping' : unknown !== null ? UNKNOWN_METHOD : null;
  if (echo === null) {
    findings.skip('wrong-id', 'not checked: no request besides initialize was answered');
  } else {
    for (const id of [0, STRING_ID]) {
      const reply = await request(echo, echo, undefined, id);
      if (reply === null) findings.add('wrong-id', false, noReply(`${echo} with id ${JSON.stringify(id)}`));
      else if (reply.id === id) findings.add('wrong-id', true, `id ${JSON.stringify(id)} echoed`);
    }
  }

  // 6. An unknown tool: an error or an isError result, not silence.
  if (hasTools) {
    const tool = await request('tools/call', 'tools/call', { name: UNKNOWN_TOOL, arguments: {} });
    const toolOk = tool !== null && ('error' in tool || (isJsonObject(tool.result) && tool.result.isError === true));
    findings.add(
      'no-reply',
      toolOk,
      tool === null ? noReply(`tools/call ${UNKNOWN_TOOL}`) : toolOk ? `unknown tool answered ${describeReply(tool)}` : `unknown tool answered with a success: ${describeReply(tool)}`,
    );
  }

  // 7. notifications/cancelled (for a request that does not exist: still no reply).
  await notify('notifications/cancelled', { requestId: 999, reason: 'mcp-migrate verify probe' }, echo ?? firstSync);

  // 8. A line of bad JSON: -32700 with id null. Any -32700 is taken as the answer (its id is then
  //    judged), else any response that is not a late answer to an earlier request.
  const parseFrom = connection.messages.length;
  connection.sendBody(BAD_JSON);
  const parse = await connection.waitFor(parseFrom, (m) => isResponse(m) && (getErrorCode(m) === -32700 || !sentIds.has(m.id)), timeoutMs, signal);
  const parseOk = parse !== null && 'id' in parse && parse.id === null && getErrorCode(parse) === -32700;
  findings.add(
    'parse-error-unanswered',
    parseOk,
    parse === null ? noReply('bad JSON line') : parseOk ? 'bad JSON answered -32700 with id null' : `bad JSON answered ${describeReply(parse)} with ${describeId(parse.id)}`,
  );

  // 9. The server keeps serving after the bad line.
  if (echo !== null) {
    const after = await request(`${echo} after bad JSON`, echo, undefined);
    findings.add('no-reply', after !== null, after === null ? noReply(`${echo} after the bad JSON line`) : 'still serving after bad JSON');
  }

  if (isAborted(signal)) return { kind: 'aborted', pid: connection.pid };
  return finish(connection, findings, serverInfo);
}

function describeStartError(options: VerifyOptions, error: NodeJS.ErrnoException): string {
  const why = error.code === 'ENOENT' ? 'no such command (or no such directory)' : error.code === 'EACCES' ? 'permission denied' : error.message;
  return `could not start ${options.command}: ${why} (${error.message})`;
}

/** A function, not `signal?.aborted` inline: TypeScript would keep the first check's narrowing. */
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** The rules measured on everything the server wrote, then the result. */
function finish(connection: ServerConnection, findings: Findings, serverInfo: { name: string; version: string } | null): VerifyResult {
  const rpc = connection.messages.filter(isJsonRpcShaped);
  const nonRpc = connection.messages.filter((m) => !isJsonRpcShaped(m));
  const noise = [...connection.strayOutput, ...nonRpc.slice(0, 1).map((m) => JSON.stringify(m))];
  // Stray text is kept only in part (a flood is counted, not stored): the count is the real one.
  const noiseCount = connection.strayCount + nonRpc.length;

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
    exitedEarly: connection.exited,
    stderrTail: connection.getStderrTail(),
    pid: connection.pid,
  };
}
