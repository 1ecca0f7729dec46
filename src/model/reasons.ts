// Reason codes: every decision that is not a plain SDK rewrite carries one, with a one-line hint.
// One table. `envelope` reasons say why the SDK rewrite was not done (the server gets the envelope
// instead); `leave` reasons say why a file is left alone; `style` reasons say why `--style mcp-server`
// was not applied (the SDK rewrite is written in the server style). The diff header, the reports and the marker
// comment all show the same code. Hints are one line and never contain " -- " (the marker comment
// uses it as a separator).

export const REASONS = {
  // ---- the SDK rewrite could not keep behaviour: the envelope instead
  CONTENT_LENGTH_FRAMING: {
    kind: 'envelope',
    hint: 'the SDK stdio transport reads one JSON message per line; frame messages as newline-delimited JSON (server and clients) to get the SDK rewrite',
  },
  COMPUTED_DISPATCH: {
    kind: 'envelope',
    hint: 'handlers are looked up by a name computed from the method; map each MCP method to its handler explicitly (switch, if-chain or object literal keyed by the method) to get the SDK rewrite',
  },
  NO_DISPATCH: {
    kind: 'envelope',
    hint: 'no dispatch on the incoming message method was found; route requests by `method` in one function to get the SDK rewrite',
  },
  SEVERAL_DISPATCHERS: {
    kind: 'envelope',
    hint: 'requests reach their replies through different dispatch functions; route every request through one function to get the SDK rewrite',
  },
  UNKNOWN_REPLY_SHAPE: {
    kind: 'envelope',
    hint: 'a reply is not built as a `{ id, result }` or `{ id, error }` object the tool can follow; build replies as object literals to get the SDK rewrite',
  },
  REPLY_NOT_STATEMENT: {
    kind: 'envelope',
    hint: 'a reply is written inside an expression; write each reply as its own statement to get the SDK rewrite',
  },
  REPLY_IN_CALLBACK: {
    kind: 'envelope',
    hint: 'a reply is written from a callback (a timer, a .then, an event listener run by emit()); make the handler async, call it directly and await it to get the SDK rewrite',
  },
  EFFECTS_AFTER_REPLY: {
    kind: 'envelope',
    hint: 'code with side effects runs after a reply is written; move it before the reply to get the SDK rewrite',
  },
  CAUGHT_ERROR_REPLY: {
    kind: 'envelope',
    hint: "an error reply sits inside a try whose catch answers differently; answer the error outside that try to get the SDK rewrite",
  },
  MULTIPLE_WRITES_PER_REQUEST: {
    kind: 'envelope',
    hint: 'one request is answered by more than one write; answer each request exactly once (send progress as notifications) to get the SDK rewrite',
  },
  UNRENDERABLE_REPLY: {
    kind: 'envelope',
    hint: 'a reply uses values that only exist inside the writer helper; pass them to the helper as arguments to get the SDK rewrite',
  },
  UNRESOLVED_WRITER: {
    kind: 'envelope',
    hint: 'JSON is written to stdout outside the replies the tool can follow (a notification, a write outside the dispatcher); send replies through one plain helper to get the SDK rewrite',
  },
  SDK_OWNED_SIDE_EFFECTS: {
    kind: 'envelope',
    hint: 'the code for initialize, ping or notifications/initialized changes server state or calls something for its effect; the SDK answers those itself and never runs that code, so move it elsewhere (server start, the first tool call) to get the SDK rewrite',
  },
  NO_SERVER_INFO: {
    kind: 'envelope',
    hint: 'no initialize reply with serverInfo the tool can read; answer initialize with a literal serverInfo to get the SDK rewrite',
  },
  SERVER_SENDS_REQUESTS: {
    kind: 'envelope',
    hint: 'the server writes its own notifications or requests to stdout; the tool cannot move them to the SDK yet',
  },
  ANALYSIS_INCOMPLETE: {
    kind: 'envelope',
    hint: 'the message handling has too many paths to follow; split large handlers into functions to get the SDK rewrite',
  },
  SEVERAL_INPUT_LOOPS: {
    kind: 'envelope',
    hint: 'stdin is read in more than one place; read it once to get the SDK rewrite',
  },
  CODE_AT_INPUT_END: {
    kind: 'envelope',
    hint: "code runs when the `for await` loop over stdin ends (a statement after it, a finally, a .then on the function's promise); the SDK transport returns at once, so it would run at start-up: run it from process.stdin.on('end') to get the SDK rewrite",
  },
  UNSUPPORTED_INPUT_LOOP: {
    kind: 'envelope',
    hint: 'the stdin loop is not one the rewrite can replace (its anchor or the dispatcher is out of reach); read stdin with one readline or data handler to get the SDK rewrite',
  },
  OUTPUT_CHECK_FAILED: {
    kind: 'envelope',
    hint: 'the SDK rewrite of this server did not pass its own re-check (it would not parse, or lost a binding); the envelope keeps the server working',
  },
  SDK_ANSWERS_DIFFERENTLY: {
    kind: 'envelope',
    hint: 'run side by side with the original, the SDK rewrite answered a request worse than the original did; the envelope keeps the server\'s own answers (the differences are in this file\'s diagnostics)',
  },
  SDK_VERSION_UNSUPPORTED: {
    kind: 'envelope',
    hint: 'the requested SDK target or style cannot express this server',
  },
  ENTRIES_DIFFER: {
    kind: 'envelope',
    hint: 'entry files that start this server from one shared module need different SDK rewrites of that module; start the server the same way from every entry to get the SDK rewrite',
  },
  // ---- `--style mcp-server` not applied: the SDK rewrite is written in the server style instead
  MCP_SERVER_NO_TOOL_SPLIT: {
    kind: 'style',
    hint: 'give each tool its own branch of a switch or if-chain on params.name in tools/call, ending in its own return or throw and reading nothing of the request but the tool\'s arguments, to get the McpServer form',
  },
  MCP_SERVER_TOOL_TABLE: {
    kind: 'style',
    hint: 'return one literal tool table (name, title, description, inputSchema, annotations) from tools/list to get the McpServer form',
  },
  MCP_SERVER_SCHEMA_LOSSY: {
    kind: 'style',
    hint: 'SDK v1 registers tools with zod shapes and this inputSchema has no lossless zod form; --sdk v2 publishes it as written (fromJsonSchema)',
  },
  MCP_SERVER_ANSWERS_DIFFERENTLY: {
    kind: 'style',
    hint: 'run side by side with the original, the McpServer form answered differently beyond the wire changes it lists; the server style keeps every answer',
  },
  MCP_SERVER_SHAPE: {
    kind: 'style',
    hint: 'the McpServer form is built from one dispatcher function of the entry file; this server\'s SDK rewrite has another shape (a class method, several modules)',
  },
  // ---- left alone
  ALREADY_ON_SDK: { kind: 'leave', hint: 'The file already uses the official SDK; nothing to migrate.' },
  IGNORED: { kind: 'leave', hint: 'A `// mcp-migrate-ignore` comment asks the tool to leave this server alone.' },
  UNSUPPORTED_RUNTIME: { kind: 'leave', hint: 'The server runs on Deno or Bun APIs the tool does not rewrite; move it by hand.' },
  UNFOLLOWED_INPUT: {
    kind: 'leave',
    hint: 'The program reads stdin, parses JSON, writes to stdout and names MCP methods, but the tool did not follow a message from its input to a reply (how it reads, dispatches or reaches the stream is beyond the analysis); migrate it by hand, or read stdin with readline, a data handler or for await in plain code to get a rewrite.',
  },
  NOT_STARTED: {
    kind: 'leave',
    hint: 'The file reads stdin only inside a function or class method that no scanned module calls (code elsewhere starts it), and it answers no request itself (messages go to a callback that code sets): a transport or library, not a server. Scan the package that starts it to migrate that server.',
  },
  COMPILED_OUTPUT: {
    kind: 'leave',
    hint: 'The file is build output whose TypeScript source is in the tree (named in this file\'s diagnostics): the source is what gets migrated, as any other file of the run; rebuild to update this file.',
  },
  ENVELOPE_UNPROVEN: {
    kind: 'leave',
    hint: 'Neither rewrite could be proven to keep this server working; its compliance findings are listed so they can be fixed by hand.',
  },
  SHARED_MODULE_CONFLICT: {
    kind: 'leave',
    hint: 'Entry files that start the same server module need different rewrites of it, and no one rewrite fits them all; nothing was changed: start the server the same way from every entry (or from one), then run again.',
  },
  VERIFY_DIFFERENT: {
    kind: 'leave',
    hint: 'Run side by side with the original, every rewrite the tool could make answered a request worse than the original did (the differences are in this file\'s diagnostics); nothing was written, and the findings are listed so they can be fixed by hand.',
  },
  NOT_VERIFIED: {
    kind: 'leave',
    hint: 'The rewrite could not be run next to the original (the reason is in this file\'s diagnostics), so it is not written under --yes; pass --allow-unverified to write it anyway, review it interactively, or make the server runnable here.',
  },
} as const satisfies Record<string, { kind: 'envelope' | 'leave' | 'style'; hint: string }>;

export type ReasonCode = keyof typeof REASONS;

export type EnvelopeReason = { [K in ReasonCode]: (typeof REASONS)[K]['kind'] extends 'envelope' ? K : never }[ReasonCode];
export type LeaveReason = { [K in ReasonCode]: (typeof REASONS)[K]['kind'] extends 'leave' ? K : never }[ReasonCode];
/** Why `--style mcp-server` was not applied (the file gets the server style, said in the diff header). */
export type StyleReason = { [K in ReasonCode]: (typeof REASONS)[K]['kind'] extends 'style' ? K : never }[ReasonCode];

export function isReasonCode(value: string): value is ReasonCode {
  return Object.prototype.hasOwnProperty.call(REASONS, value);
}

export function isEnvelopeReason(value: string): value is EnvelopeReason {
  return isReasonCode(value) && REASONS[value].kind === 'envelope';
}

export function getHint(reason: string): string {
  return isReasonCode(reason) ? REASONS[reason].hint : reason;
}

/** The greppable marker comment: `// mcp-migrate: envelope (CODE) -- hint`. */
export function getEnvelopeMarker(reason: EnvelopeReason): string {
  return `// mcp-migrate: envelope (${reason}) -- ${REASONS[reason].hint}`;
}

/** A reason with the place and the detail that produced it. */
export interface Blocker {
  code: EnvelopeReason;
  line: number;
  detail: string;
}
