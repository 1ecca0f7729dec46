// Reason codes: every decision that is not a plain SDK rewrite carries one, with a one-line hint.
// One table. `boundary` reasons say why the dispatcher-level SDK rewrite was not done (the server gets
// the SDK at the boundary instead); `envelope` reasons say why the SDK cannot carry the server at all
// (it gets the envelope); `leave` reasons say why a file is left alone; `style` reasons say why
// `--style mcp-server` was not applied (the SDK rewrite is written in the server style). The diff header, the reports and the marker
// comment all show the same code. Hints are one line and never contain " -- " (the marker comment
// uses it as a separator).

export const REASONS = {
  // ---- the dispatcher-level SDK rewrite could not keep behaviour: the SDK at the boundary instead
  // (the hint says what the tool found, never what the user should change for it)
  COMPUTED_DISPATCH: {
    kind: 'boundary',
    hint: 'handlers are looked up by a name computed from the method, so the tool cannot tell which handler answers which method',
  },
  NO_DISPATCH: {
    kind: 'boundary',
    hint: 'no dispatch on the method of the incoming message was found',
  },
  SEVERAL_DISPATCHERS: {
    kind: 'boundary',
    hint: 'requests reach their replies through different dispatch functions',
  },
  UNKNOWN_REPLY_SHAPE: {
    kind: 'boundary',
    hint: 'a reply is built in a way the tool cannot follow to its result or error',
  },
  REPLY_NOT_STATEMENT: {
    kind: 'boundary',
    hint: 'a reply is written inside an expression, where it cannot become a return',
  },
  REPLY_IN_CALLBACK: {
    kind: 'boundary',
    hint: 'a reply is written from a callback (a timer, a .then, an event listener run by emit())',
  },
  EFFECTS_AFTER_REPLY: {
    kind: 'boundary',
    hint: 'code with side effects runs after a reply is written',
  },
  CAUGHT_ERROR_REPLY: {
    kind: 'boundary',
    hint: 'an error reply sits inside a try whose catch answers differently',
  },
  MULTIPLE_WRITES_PER_REQUEST: {
    kind: 'boundary',
    hint: 'one request is answered by more than one write',
  },
  UNRENDERABLE_REPLY: {
    kind: 'boundary',
    hint: 'a reply is built from values that only exist inside the writer helper',
  },
  UNRESOLVED_WRITER: {
    kind: 'boundary',
    hint: 'JSON is written to stdout outside the replies the tool can follow (a notification, a write outside the dispatcher)',
  },
  SDK_OWNED_SIDE_EFFECTS: {
    kind: 'boundary',
    hint: 'the code for initialize, ping or notifications/initialized changes server state or calls something for its effect; at the boundary it still runs (at start-up)',
  },
  NO_SERVER_INFO: {
    kind: 'boundary',
    hint: "no initialize reply with a serverInfo the tool can read; at the boundary the SDK announces the server's own answer",
  },
  SERVER_SENDS_REQUESTS: {
    kind: 'boundary',
    hint: 'the server writes notifications or requests of its own; at the boundary they reach the client as written',
  },
  ANALYSIS_INCOMPLETE: {
    kind: 'boundary',
    hint: 'the message handling has more paths than the analysis follows',
  },
  SEVERAL_INPUT_LOOPS: {
    kind: 'boundary',
    hint: 'stdin is read in more than one place',
  },
  CODE_AT_INPUT_END: {
    kind: 'boundary',
    hint: 'code runs when the loop over stdin ends; at the boundary it still runs when the client closes stdin',
  },
  UNSUPPORTED_INPUT_LOOP: {
    kind: 'boundary',
    hint: 'the stdin loop is not one the dispatcher-level rewrite can replace (its anchor or the dispatcher is out of reach)',
  },
  INPUT_NOT_FOLLOWED: {
    kind: 'boundary',
    hint: 'the analysis did not follow a message from stdin to a reply (how the server reads, dispatches or reaches the stream is beyond it)',
  },
  OUTPUT_CHECK_FAILED: {
    kind: 'boundary',
    hint: 'the dispatcher-level rewrite of this server did not pass its own re-check (it would not parse, or lost a binding)',
  },
  SDK_ANSWERS_DIFFERENTLY: {
    kind: 'boundary',
    hint: "run side by side with the original, the dispatcher-level rewrite answered a request worse than the original did (the differences are in this file's diagnostics)",
  },
  RESOURCE_MISS_CODE: {
    kind: 'boundary',
    hint: "the server answers a missing resource with -32002, which SDK v2's dispatcher sends as -32602 on every revision; behind the boundary a 2025-era client still gets the server's -32002 (--sdk v1 keeps it at the dispatcher)",
  },
  SDK_VERSION_UNSUPPORTED: {
    kind: 'boundary',
    hint: 'the requested SDK target or style cannot express the dispatch of this server',
  },
  ENTRIES_DIFFER: {
    kind: 'boundary',
    hint: 'entry files that start this server from one shared module need different dispatcher-level rewrites of it',
  },
  // ---- the SDK cannot carry the server: the envelope instead
  CONTENT_LENGTH_FRAMING: {
    kind: 'envelope',
    hint: 'messages are framed with Content-Length headers, which the SDK stdio transport does not read (it reads one JSON message per line); the envelope keeps the framing and makes every message compliant',
  },
  STDIN_ELSEWHERE: {
    kind: 'envelope',
    hint: "the server reads its messages without naming process.stdin (a file descriptor, a package's stream), so the SDK cannot be put where they come in; the envelope keeps the server's own I/O and makes it compliant",
  },
  ENVELOPE_IN_PLACE: {
    kind: 'envelope',
    hint: 'the server already writes through the envelope helper mcp-migrate vendored (a run before this one); it stays on it, so a second run changes nothing',
  },
  BOUNDARY_ANSWERS_DIFFERENTLY: {
    kind: 'envelope',
    hint: "run side by side with the original, the SDK at the boundary answered a request worse than the original did (the differences are in this file's diagnostics); the envelope keeps the server's own answers",
  },
  BOUNDARY_CHECK_FAILED: {
    kind: 'envelope',
    hint: 'the rewrite onto the SDK at the boundary did not pass its own re-check (it would not parse, or lost a binding); the envelope keeps the server working',
  },
  // ---- `--style mcp-server` not applied: the SDK rewrite is written in the server style instead
  MCP_SERVER_NO_TOOL_SPLIT: {
    kind: 'style',
    hint: "tools/call does not give each tool a branch of its own (on params.name, ending in its own return or throw and reading nothing of the request but the tool's arguments), so the tools cannot be registered one by one",
  },
  MCP_SERVER_TOOL_TABLE: {
    kind: 'style',
    hint: 'tools/list does not return one literal tool table (name, title, description, inputSchema, annotations) the tools could be registered from',
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
  SDK_V1_WIRING: {
    kind: 'leave',
    hint: 'The server is on SDK v1 (@modelcontextprotocol/sdk), which speaks only the 2025 protocol era. The official codemod moves v1 code to v2: with @modelcontextprotocol/codemod installed (in the project or next to mcp-migrate), `--sdk v2` runs it and then serves the server through serveStdio (2025-era and 2026-07-28 clients), proven like every rewrite; or run `npx @modelcontextprotocol/codemod@latest v1-to-v2 <dir>`, then mcp-migrate again. Where the codemod cannot complete the move, the reason is given. `--sdk v1` keeps it on v1 and says nothing.',
  },
  CODEMOD_MARKERS: {
    kind: 'leave',
    hint: 'The official codemod left `@mcp-codemod-error` comments where it could not rewrite v1 code: finish those by hand first; the era upgrade (serveStdio) is made only on code the codemod completed.',
  },
  TRANSPORT_CALLBACKS_SET: {
    kind: 'leave',
    hint: 'The server is on @modelcontextprotocol/server and sets `onclose`/`onerror`/`onmessage` on its StdioServerTransport; serveStdio owns those callbacks and would replace them, so the era upgrade is not made. Move that code to the server (its `onclose`/`onerror`, or serveStdio\'s `onerror` option) and run again.',
  },
  STDIO_WIRING_UNREAD: {
    kind: 'leave',
    hint: 'The server is on @modelcontextprotocol/server but the tool did not find exactly one `connect(new StdioServerTransport())` it can follow (the transport is created in one place and connected in another, or several servers are wired); to serve both protocol eras, call `serveStdio(() => server)` from @modelcontextprotocol/server/stdio instead by hand.',
  },
  IGNORED: { kind: 'leave', hint: 'A `// mcp-migrate-ignore` comment asks the tool to leave this server alone.' },
  UNSUPPORTED_RUNTIME: { kind: 'leave', hint: 'The server runs on Deno or Bun APIs the tool does not rewrite; move it by hand.' },
  UNFOLLOWED_INPUT: {
    kind: 'leave',
    hint: 'The program reads stdin, parses JSON, writes to stdout and names MCP methods, but the tool did not follow a message from its input to a reply, and no rewrite could be put at its I/O (how it reads or reaches the streams is beyond the analysis); it still breaks the protocol where its findings say, and is migrated by hand.',
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
} as const satisfies Record<string, { kind: 'boundary' | 'envelope' | 'leave' | 'style'; hint: string }>;

export type ReasonCode = keyof typeof REASONS;

export type BoundaryReason = { [K in ReasonCode]: (typeof REASONS)[K]['kind'] extends 'boundary' ? K : never }[ReasonCode];
export type EnvelopeReason = { [K in ReasonCode]: (typeof REASONS)[K]['kind'] extends 'envelope' ? K : never }[ReasonCode];
export type LeaveReason = { [K in ReasonCode]: (typeof REASONS)[K]['kind'] extends 'leave' ? K : never }[ReasonCode];
/** Why `--style mcp-server` was not applied (the file gets the server style, said in the diff header). */
export type StyleReason = { [K in ReasonCode]: (typeof REASONS)[K]['kind'] extends 'style' ? K : never }[ReasonCode];
/** Why the dispatcher-level SDK rewrite cannot take a server: a reason for the boundary, or one the SDK cannot carry at all. */
export type BlockerReason = BoundaryReason | EnvelopeReason;

export function isReasonCode(value: string): value is ReasonCode {
  return Object.prototype.hasOwnProperty.call(REASONS, value);
}

export function isBoundaryReason(value: string): value is BoundaryReason {
  return isReasonCode(value) && REASONS[value].kind === 'boundary';
}

export function getHint(reason: string): string {
  return isReasonCode(reason) ? REASONS[reason].hint : reason;
}

/** The greppable marker comment: `// mcp-migrate: envelope (CODE) -- hint`. */
export function getEnvelopeMarker(reason: EnvelopeReason): string {
  return `// mcp-migrate: envelope (${reason}) -- ${REASONS[reason].hint}`;
}

/** The greppable marker comment: `// mcp-migrate: sdk at the boundary (CODE) -- hint`. */
export function getBoundaryMarker(reason: BoundaryReason): string {
  return `// mcp-migrate: sdk at the boundary (${reason}) -- ${REASONS[reason].hint}`;
}

/** A reason with the place and the detail that produced it. */
export interface Blocker {
  code: BlockerReason;
  line: number;
  detail: string;
}
