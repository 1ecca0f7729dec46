import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type ServerResult } from '@modelcontextprotocol/sdk/types.js';

// mcp-migrate: stdout carries the MCP protocol; console.log/info/debug (a dependency's logger too) go to stderr
console.log = console.info = console.debug = console.error;

// ---- JSON-RPC shapes -------------------------------------------------------

type RequestId = string | number;

interface JsonRpcRequest {
  jsonrpc: '2.0';
  id?: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

// ---- tools -----------------------------------------------------------------

interface Tool {
  name: string;
  description: string;
  inputSchema: {
    type: 'object';
    properties: Record<string, { type: string; description?: string; enum?: string[] }>;
    required?: string[];
  };
}

interface ToolResult {
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
}

const TOOLS: Tool[] = [
  {
    name: 'semver_compare',
    description: 'Compare two semantic versions; answers -1, 0 or 1',
    inputSchema: {
      type: 'object',
      properties: {
        a: { type: 'string', description: 'First version, e.g. 1.2.3' },
        b: { type: 'string', description: 'Second version' },
      },
      required: ['a', 'b'],
    },
  },
  {
    name: 'semver_bump',
    description: 'Bump a semantic version',
    inputSchema: {
      type: 'object',
      properties: {
        version: { type: 'string' },
        part: { type: 'string', enum: ['major', 'minor', 'patch'] },
      },
      required: ['version', 'part'],
    },
  },
];

type Triple = [number, number, number];

class RpcError extends Error {
  constructor(public readonly code: number, message: string) {
    super(message);
  }
}

function parseVersion(input: string): Triple | null {
  const m = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(input.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

const ok = (text: string): ToolResult => ({ content: [{ type: 'text', text }] });
const fail = (text: string): ToolResult => ({ content: [{ type: 'text', text }], isError: true });

// ---- server ----------------------------------------------------------------

class SemverServer {
  private readonly info = { name: 'semver-tools', version: '2.0.1' };

  listen(): void {
    const handleMessage = async (request: JsonRpcRequest) => {
      return this.dispatch(request).catch(
        (err: unknown) => {
          const code = err instanceof RpcError ? err.code : -32603;
          const message = err instanceof Error ? err.message : String(err);
          throw Object.assign(new Error(message), { code });
        },
      );
    };
    const server = new Server(this.info, { capabilities: { tools: { listChanged: false } } });
    server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => (await handleMessage({ ...request, jsonrpc: '2.0', id: extra.requestId })) as ServerResult);
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => (await handleMessage({ ...request, jsonrpc: '2.0', id: extra.requestId })) as ServerResult);
    const transport = new StdioServerTransport();
    // The SDK transport drops lines that are not JSON; JSON-RPC 2.0 answers them with -32700 and id null.
    transport.onerror = (error) => {
      if (error instanceof SyntaxError) {
        // @ts-expect-error -- the SDK message type has no null id, which JSON-RPC 2.0 requires here
        void transport.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      }
    };
    server.connect(transport).catch((error) => {
      console.error(error);
      process.exit(1);
    });
  }

  private async dispatch(request: JsonRpcRequest): Promise<unknown> {
    switch (request.method) {
      case 'tools/list':
        return { tools: TOOLS };
      case 'tools/call': {
        const params = request.params ?? {};
        return this.callTool(String(params.name), (params.arguments ?? {}) as Record<string, string>);
      }
      default:
        throw new RpcError(-32601, `Method not found: ${request.method}`);
    }
  }

  private async callTool(name: string, args: Record<string, string>): Promise<ToolResult> {
    switch (name) {
      case 'semver_compare': {
        const a = parseVersion(args.a);
        const b = parseVersion(args.b);
        if (!a || !b) return fail(`Not a semantic version: ${!a ? args.a : args.b}`);
        for (let i = 0; i < 3; i++) {
          if (a[i] !== b[i]) return ok(a[i] < b[i] ? '-1' : '1');
        }
        return ok('0');
      }
      case 'semver_bump': {
        const v = parseVersion(args.version);
        if (!v) return fail(`Not a semantic version: ${args.version}`);
        const [major, minor, patch] = v;
        if (args.part === 'major') return ok(`${major + 1}.0.0`);
        if (args.part === 'minor') return ok(`${major}.${minor + 1}.0`);
        return ok(`${major}.${minor}.${patch + 1}`);
      }
      default:
        throw new RpcError(-32601, `Unknown tool: ${name}`);
    }
  }
}

new SemverServer().listen();
