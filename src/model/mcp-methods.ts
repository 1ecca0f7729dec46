// Which MCP request maps to which SDK schema, capability and registration.
// One table, read by the planner (capabilities) and the rewriter (imports, handler registration).

export type Capability = 'tools' | 'resources' | 'prompts' | 'completions' | 'logging';

export interface McpMethodEntry {
  /** Schema exported by `@modelcontextprotocol/sdk/types.js` (v1). */
  schema: string;
  /** The result type `@modelcontextprotocol/server` exports for it (v2 types each handler's result). */
  result: string;
  capability: Capability;
}

/** Requests the server implements itself; one `setRequestHandler` each. */
export const MCP_REQUESTS = {
  'tools/list': { schema: 'ListToolsRequestSchema', result: 'ListToolsResult', capability: 'tools' },
  'tools/call': { schema: 'CallToolRequestSchema', result: 'CallToolResult', capability: 'tools' },
  'resources/list': { schema: 'ListResourcesRequestSchema', result: 'ListResourcesResult', capability: 'resources' },
  'resources/read': { schema: 'ReadResourceRequestSchema', result: 'ReadResourceResult', capability: 'resources' },
  'resources/templates/list': { schema: 'ListResourceTemplatesRequestSchema', result: 'ListResourceTemplatesResult', capability: 'resources' },
  'prompts/list': { schema: 'ListPromptsRequestSchema', result: 'ListPromptsResult', capability: 'prompts' },
  'prompts/get': { schema: 'GetPromptRequestSchema', result: 'GetPromptResult', capability: 'prompts' },
  'completion/complete': { schema: 'CompleteRequestSchema', result: 'CompleteResult', capability: 'completions' },
  'logging/setLevel': { schema: 'SetLevelRequestSchema', result: 'EmptyResult', capability: 'logging' },
} as const satisfies Record<string, McpMethodEntry>;

export type McpRequestMethod = keyof typeof MCP_REQUESTS;

/** Client notifications a server may handle itself; one `setNotificationHandler` each. */
export const MCP_NOTIFICATIONS = {
  'notifications/cancelled': { schema: 'CancelledNotificationSchema' },
  'notifications/progress': { schema: 'ProgressNotificationSchema' },
  'notifications/roots/list_changed': { schema: 'RootsListChangedNotificationSchema' },
} as const satisfies Record<string, { schema: string }>;

export function isMcpNotification(method: string): method is keyof typeof MCP_NOTIFICATIONS {
  return Object.prototype.hasOwnProperty.call(MCP_NOTIFICATIONS, method);
}

/** Methods the SDK answers by itself: their branches are removed by the rewrite. */
export const SDK_OWNED_METHODS = ['initialize', 'ping', 'notifications/initialized'] as const;

/** Every method name the MCP specification defines (client -> server), for telling MCP from other JSON-RPC. */
export const MCP_METHOD_NAMES: readonly string[] = [
  ...SDK_OWNED_METHODS,
  ...Object.keys(MCP_REQUESTS),
  'resources/subscribe',
  'resources/unsubscribe',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
];

/**
 * MCP's own vocabulary, which tells an MCP server from any other JSON-RPC program over stdio (an Agent
 * Client Protocol agent, an editor plugin, LSP, DAP all answer `initialize` too):
 * method names under MCP's namespaces, `notifications/initialized` and MCP's other notifications, the
 * protocol versions MCP has published, and the capabilities only an MCP server declares.
 */
export const MCP_METHOD_NAMESPACES = ['tools/', 'resources/', 'prompts/', 'completion/', 'logging/'] as const;
export const MCP_PROTOCOL_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;
export const MCP_SERVER_CAPABILITIES = ['tools', 'resources', 'prompts'] as const;

/** A method name only MCP uses (not `initialize` or `ping`, which other JSON-RPC protocols have too). */
export function isMcpVocabularyMethod(method: string): boolean {
  if (MCP_METHOD_NAMESPACES.some((ns) => method.startsWith(ns))) return true;
  return method.startsWith('notifications/') && MCP_METHOD_NAMES.includes(method);
}

export function isMcpRequestMethod(method: string): method is McpRequestMethod {
  return Object.prototype.hasOwnProperty.call(MCP_REQUESTS, method);
}

/**
 * An error message that says the method is unknown (`Method not found: x`, `Unknown method`): an error
 * without a standard code that says so is answered -32601, by the SDK rewrite and by the envelope helper.
 */
export const UNKNOWN_METHOD_MESSAGE = /\b(method not found|(unknown|unsupported|no such) method)\b|\bmethod\s+['"\u0060]?[\w/.$-]+['"\u0060]?\s+(is\s+)?(not found|not supported|unknown|not implemented)\b/i;

