// Where each SDK generation keeps what the rewrite imports. One table; the rewriter reads it.
/** The SDK generation a rewrite targets: v1 (`@modelcontextprotocol/sdk`) or v2 (`@modelcontextprotocol/server`). */
export type SdkTarget = 'v1' | 'v2';

export interface SdkTargetEntry {
  /** The dependency the package gains. */
  dependencies: Record<string, string>;
  serverModule: string;
  /** Where McpServer lives (`--style mcp-server`). */
  mcpServerModule: string;
  stdioModule: string;
  /** Module with the request schemas (v1); v2 registers handlers by method name. */
  typesModule: string | null;
}

export const SDK_TARGETS = {
  v1: {
    dependencies: { '@modelcontextprotocol/sdk': '^1.32.2', zod: '^4.1.0' },
    serverModule: '@modelcontextprotocol/sdk/server/index.js',
    mcpServerModule: '@modelcontextprotocol/sdk/server/mcp.js',
    stdioModule: '@modelcontextprotocol/sdk/server/stdio.js',
    typesModule: '@modelcontextprotocol/sdk/types.js',
  },
  v2: {
    // the server's schemas need zod 4.2 or later
    dependencies: { '@modelcontextprotocol/server': '^2.4.0', zod: '^4.2.0' },
    serverModule: '@modelcontextprotocol/server',
    mcpServerModule: '@modelcontextprotocol/server',
    stdioModule: '@modelcontextprotocol/server/stdio',
    typesModule: null,
  },
} as const satisfies Record<SdkTarget, SdkTargetEntry>;
