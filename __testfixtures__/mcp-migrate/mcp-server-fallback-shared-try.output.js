// hash-mcp: every tool runs inside one try, so the tools share their error handling.
const crypto = require('crypto');
const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { CallToolRequestSchema, ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

// mcp-migrate: stdout carries the MCP protocol; console.log/info/debug (a dependency's logger too) go to stderr
console.log = console.info = console.debug = console.error;

function handle(msg) {
  if (msg.method === 'tools/list') {
    return {
      tools: [
        { name: 'sha256', description: 'SHA-256 of a text', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
        { name: 'md5', description: 'MD5 of a text', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
      ],
    };
  }
  if (msg.method === 'tools/call') {
    const { name, arguments: args } = msg.params;
    try {
      if (name === 'sha256') {
        return { content: [{ type: 'text', text: crypto.createHash('sha256').update(args.text).digest('hex') }] };
      }
      if (name === 'md5') {
        return { content: [{ type: 'text', text: crypto.createHash('md5').update(args.text).digest('hex') }] };
      }
    } catch (err) {
      throw Object.assign(new Error(err.message), { code: -32603 });
    }
    throw Object.assign(new Error(`Unknown tool: ${name}`), { code: -32602 });
  }
  if (msg.id !== undefined) throw Object.assign(new Error('Method not found'), { code: -32601 });
}

const server = new Server({ name: 'hash', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, (request, extra) => handle({ ...request, id: extra.requestId }));
server.setRequestHandler(CallToolRequestSchema, (request, extra) => handle({ ...request, id: extra.requestId }));
const transport = new StdioServerTransport();
// The SDK transport drops lines that are not JSON; JSON-RPC 2.0 answers them with -32700 and id null.
transport.onerror = (error) => {
  if (error instanceof SyntaxError) {
    void transport.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  }
};
server.connect(transport).catch((error) => {
  console.error(error);
  process.exit(1);
});
