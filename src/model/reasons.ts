// Reason codes: every decision that is not a plain SDK rewrite carries one, with a one-line hint.
// The diff header, the reports and the marker comments all show the same code.

export const LEAVE_REASONS = {
  ALREADY_ON_SDK: 'The file already uses the official SDK; nothing to migrate.',
  IGNORED: 'A `// mcp-migrate-ignore` comment asks the tool to leave this server alone.',
  UNSUPPORTED_INPUT_LOOP: 'The stdin loop is not one the rewrite understands; move it to a readline `line` handler or remove it by hand.',
  LOOP_SIDE_EFFECTS: 'The stdin loop does more than parse and dispatch; move that work into the handlers first.',
  UNKNOWN_REPLY_SHAPE: 'A reply is not a literal `{ jsonrpc, id, result | error }` object; make it one so it can become a return/throw.',
  REPLY_NOT_STATEMENT: 'A reply is written inside an expression; write it as its own statement.',
  REPLY_IN_CALLBACK: 'A reply is written from a callback inside the handler; make the handler async and await instead.',
  USES_REQUEST_ID: 'A handler reads the request id for something other than its reply; use the SDK `extra.requestId` by hand.',
  SHARED_BRANCH: 'One branch serves several methods; split it per method.',
  UNSUPPORTED_CONTROL_FLOW: 'A branch leaves the dispatcher with `break`/`continue`/`return` in a way the rewrite cannot follow.',
  NO_DISPATCH: 'No dispatch on the incoming message `method` was found.',
  UNRESOLVED_WRITER: 'JSON is written to stdout outside the writer helpers the tool can follow (a reassigned or aliased helper, a write outside the dispatcher); send replies through one plain helper.',
  SDK_VERSION_UNSUPPORTED: 'The requested SDK target or style cannot express this server.',
} as const;

export type LeaveReason = keyof typeof LEAVE_REASONS;
