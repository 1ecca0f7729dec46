import { createInterface } from 'node:readline';
// mcp-migrate: envelope (COMPUTED_DISPATCH) -- handlers are looked up by a name computed from the method; map each MCP method to its handler explicitly (switch, if-chain or object literal keyed by the method) to get the SDK rewrite
import { createEnvelope } from './mcp-envelope.js';

interface JsonRpcRequest {
  jsonrpc: '2.0';
  id?: string | number;
  method: string;
  params?: Record<string, unknown>;
}

interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: unknown;
  error?: { code: number; message: string };
}

type Handler = (params: Record<string, unknown>) => Promise<unknown>;

class ClockServer {
  private readonly envelope = createEnvelope((message: JsonRpcResponse) => this.send(message));

  private readonly zone = 'UTC';

  listen(): void {
    createInterface({ input: process.stdin }).on('line', (line) => this.envelope.scope(() => this.onLine(line)));
  }

  private onLine(line: string): void {
    let request: JsonRpcRequest;
    try {
      request = this.envelope.parse(line) as JsonRpcRequest;
    } catch {
      return; // ignore garbage
    }
    // "tools/list" -> handleToolsList
    const name = `handle${request.method.split('/').map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('')}`;
    const handler = (this as unknown as Record<string, Handler | undefined>)[name];
    if (!handler) {
      this.envelope.send({ jsonrpc: '2.0', id: request.id ?? null, error: { code: -32601, message: 'Method not found' } });
      return;
    }
    handler.call(this, request.params ?? {}).then(
      (result) => this.envelope.send({ jsonrpc: '2.0', id: request.id ?? null, result }),
      (err: Error) => this.envelope.send({ jsonrpc: '2.0', id: request.id ?? null, error: { code: -32603, message: err.message } }),
    );
  }

  async handleInitialize(): Promise<unknown> {
    return { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'clock', version: '1.0.0' } };
  }

  async handleToolsList(): Promise<unknown> {
    return { tools: [{ name: 'zone', description: 'The time zone of the server', inputSchema: { type: 'object', properties: {} } }] };
  }

  async handleToolsCall(params: Record<string, unknown>): Promise<unknown> {
    if (params['name'] !== 'zone') throw new Error(`Unknown tool: ${String(params['name'])}`);
    return { content: [{ type: 'text', text: this.zone }] };
  }

  private send(message: JsonRpcResponse): void {
    process.stdout.write(JSON.stringify(message) + '\n');
  }
}

new ClockServer().listen();
