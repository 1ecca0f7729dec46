// Why a hand-rolled server gets the envelope fallback instead of the SDK rewrite.
// One table: the reason code is what the decision, the report and the marker comment carry; the hint
// says what a human would change in the server so that the next run can do the SDK rewrite.
// Hints are one line and never contain " -- " (the marker comment uses it as a separator).

export const ENVELOPE_REASONS = {
  CONTENT_LENGTH_FRAMING: {
    hint: 'the SDK stdio transport reads one JSON message per line; frame messages as newline-delimited JSON (server and clients) to get the SDK rewrite',
  },
  COMPUTED_DISPATCH: {
    hint: 'handlers are looked up by a name computed from the method; map each MCP method to its handler explicitly (switch, if-chain or object literal keyed by the method) to get the SDK rewrite',
  },
  UNFOLLOWABLE_TOOL_LIST: {
    hint: 'the tool list is assembled at run time from module exports; declare the tools in one array or object literal to get the SDK rewrite',
  },
  MULTIPLE_WRITES_PER_REQUEST: {
    hint: 'one request is answered by more than one write; answer each request exactly once (send progress as notifications) to get the SDK rewrite',
  },
} as const;

export type EnvelopeReason = keyof typeof ENVELOPE_REASONS;

export function isEnvelopeReason(value: string): value is EnvelopeReason {
  return Object.prototype.hasOwnProperty.call(ENVELOPE_REASONS, value);
}

/** The greppable marker comment: `// mcp-migrate: envelope (CODE) -- hint`. */
export function getEnvelopeMarker(reason: EnvelopeReason): string {
  return `// mcp-migrate: envelope (${reason}) -- ${ENVELOPE_REASONS[reason].hint}`;
}
