// What a rewrite changes on the wire beyond the compliance fixes, one table: what `--style mcp-server`
// changes, as McpServer (SDK 1.32 `server/mcp.js`, v2 `@modelcontextprotocol/server` 2.4) answers, and
// what the v2 generation prescribes whatever the style (the current protocol revision's codes). The diff
// header lists each change a file's rewrite makes (its text); the proof (src/verify/compare.ts) takes
// exactly those, and nothing else, as expected differences of that file.
import type { SdkTarget } from './sdk-targets.js';

export const WIRE_CHANGES = {
  /** McpServer's tools/call wraps the handler in a try and answers what it throws as a tool result. */
  TOOL_ERRORS_AS_RESULTS: {
    v1: 'an error a tool throws (a JSON-RPC error reply before) comes back as an isError result whose text is the error message; its code is not sent',
    v2: 'an error a tool throws (a JSON-RPC error reply before) comes back as an isError result whose text is the error message; its code is not sent',
  },
  /** validateToolInput runs before the handler; its McpError is caught like any other. */
  ARGUMENTS_VALIDATED: {
    v1: 'arguments that do not fit a tool\'s inputSchema are refused before the tool runs, with an isError result "MCP error -32602: Input validation error: ..."',
    v2: 'arguments that do not fit a tool\'s inputSchema are refused before the tool runs, with an isError result "Input validation error: ..."',
  },
  /** The unknown-tool check: inside the try in v1 (an isError result), outside it in v2 (an error). */
  UNKNOWN_TOOL: {
    v1: 'a call of a tool that is not registered gets an isError result "MCP error -32602: Tool <name> not found" instead of the server\'s own answer',
    v2: 'a call of a tool that is not registered gets the error -32602 "Tool <name> not found" instead of the server\'s own answer',
  },
  /** zod parses the arguments: `z.object` strips what the shape does not declare and fills defaults. */
  ARGUMENTS_PARSED: {
    v1: 'a tool sees its arguments as zod parsed them: properties the inputSchema does not declare are dropped, declared defaults are filled in',
    v2: 'a tool sees its arguments as fromJsonSchema\'s validator returns them',
  },
  /** tools/list is built from the registrations. */
  SCHEMAS_REPUBLISHED: {
    v1: 'tools/list publishes each inputSchema as zod prints it (the same schema plus "$schema": draft-07) and "execution": {"taskSupport": "forbidden"} on each tool',
    v2: 'tools/list publishes each inputSchema through fromJsonSchema (the same JSON Schema) and each tool as registerTool describes it',
  },
  /** setToolRequestHandlers registers `tools: { listChanged: true }`. */
  TOOLS_LIST_CHANGED: {
    v1: 'initialize declares tools.listChanged: true (McpServer can change its tool list)',
    v2: 'initialize declares tools.listChanged: true (McpServer can change its tool list)',
  },
  /** v2's stdio transport skips a line that does not parse (ReadBuffer.readMessage), reporting nothing. */
  BAD_JSON_IGNORED: {
    v1: 'a line that is not JSON is answered with -32700',
    v2: 'a line that is not JSON gets no reply: the SDK v2 stdio transport skips it',
  },
  /** v2 encodes -32002 as -32602 in both eras (its codecs' encodeErrorCode): the 2026-07-28 revision's code. */
  RESOURCE_NOT_FOUND_CODE: {
    v1: 'a resource that does not exist is answered with the code the server throws',
    v2: 'a resource read the server answers -32002 reaches the client as -32602, the code of the 2026-07-28 revision (SDK v2 sends it so in both eras)',
  },
  /** SDK v1's McpError builds its message as `MCP error <code>: <message>`; v2's ProtocolError keeps the message as given. */
  V1_ERROR_PREFIX: {
    v1: 'an error thrown as McpError reaches the client as "MCP error <code>: <message>"',
    v2: 'an error the server throws as McpError ("MCP error <code>: <message>" in SDK v1) reaches the client as ProtocolError\'s message, without that prefix; its code is kept',
  },
  /**
   * The SDK builds the initialize answer from serverInfo, capabilities and instructions: fields of its
   * own the server put beside them are not sent. Seen by the proof, not the analysis: listed for a file
   * once its proof saw such a field go (src/runner/verify-run.ts).
   */
  INITIALIZE_OWN_FIELDS: {
    v1: 'fields of the initialize answer that MCP does not define are not sent (the SDK builds that answer; MCP clients do not read them)',
    v2: 'fields of the initialize answer that MCP does not define are not sent (the SDK builds that answer; MCP clients do not read them)',
  },
} as const satisfies Record<string, Record<SdkTarget, string>>;

export type WireChange = keyof typeof WIRE_CHANGES;

/**
 * What a client of the 2026-07-28 revision meets on a server the SDK v2 serves (serveStdio), whatever the
 * server's code: said in the header and reports of every rewrite onto v2. The proof's 2025-era run does
 * not see it; its 2026-07-28 client is answered so (src/verify/era.ts).
 */
export const NEW_ERA_NOTE =
  'era: a client pinned to 2026-07-28 reaches the server through server/discover (no initialize), with its version in each request; in that era `ping` and `logging/setLevel` are not methods, a missing resource is -32602, and list and read results carry `resultType`, `ttlMs` and `cacheScope` (the SDK\'s defaults); 2025-era clients are answered as before';

export function describeWireChange(change: WireChange, sdk: SdkTarget): string {
  return WIRE_CHANGES[change][sdk];
}
