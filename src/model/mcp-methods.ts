// Which MCP request maps to which SDK schema, capability and registration.
// One table, read by the planner (capabilities) and the rewriter (imports, handler registration).

export type Capability = 'tools' | 'resources' | 'prompts' | 'completions' | 'logging';

export interface McpMethodEntry {
  /** Schema exported by `@modelcontextprotocol/sdk/types.js` (v1). */
  schema: string;
  capability: Capability;
}

/** Requests the server implements itself; one `setRequestHandler` each. */
export const MCP_REQUESTS = {
  'tools/list': { schema: 'ListToolsRequestSchema', capability: 'tools' },
  'tools/call': { schema: 'CallToolRequestSchema', capability: 'tools' },
  'resources/list': { schema: 'ListResourcesRequestSchema', capability: 'resources' },
  'resources/read': { schema: 'ReadResourceRequestSchema', capability: 'resources' },
  'resources/templates/list': { schema: 'ListResourceTemplatesRequestSchema', capability: 'resources' },
  'prompts/list': { schema: 'ListPromptsRequestSchema', capability: 'prompts' },
  'prompts/get': { schema: 'GetPromptRequestSchema', capability: 'prompts' },
  'completion/complete': { schema: 'CompleteRequestSchema', capability: 'completions' },
  'logging/setLevel': { schema: 'SetLevelRequestSchema', capability: 'logging' },
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

export function isMcpRequestMethod(method: string): method is McpRequestMethod {
  return Object.prototype.hasOwnProperty.call(MCP_REQUESTS, method);
}

/**
 * An error message that says the method is unknown (`Method not found: x`, `Unknown method`): an error
 * without a standard code that says so is answered -32601, by the SDK rewrite and by the envelope helper.
 */
export const UNKNOWN_METHOD_MESSAGE = /\b(method not found|(unknown|unsupported|no such) method)\b|\bmethod\s+['"\u0060]?[\w/.$-]+['"\u0060]?\s+(is\s+)?(not found|not supported|unknown|not implemented)\b/i;

/** JSON-RPC 2.0 standard error codes. */
export const RPC_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;
