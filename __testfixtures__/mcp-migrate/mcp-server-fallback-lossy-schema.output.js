// mailer-mcp: one tool whose schema has a keyword zod would print differently.
const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { CallToolRequestSchema, ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

// mcp-migrate: stdout carries the MCP protocol; console.log/info/debug (a dependency's logger too) go to stderr
console.log = console.info = console.debug = console.error;

function dispatch(req) {
  switch (req.method) {
    case 'tools/list':
      return {
        tools: [{
          name: 'send_mail',
          description: 'Queue a mail',
          inputSchema: { type: 'object', properties: { to: { type: 'string', format: 'email' } }, required: ['to'] },
        }],
      };
    case 'tools/call':
      if (req.params.name === 'send_mail') return { content: [{ type: 'text', text: `queued for ${req.params.arguments.to}` }] };
      throw Object.assign(new Error('Unknown tool'), { code: -32602 });
    default:
      if (req.id !== undefined) throw Object.assign(new Error('Method not found'), { code: -32601 });
  }
}

const server = new Server({ name: 'mailer', version: '3.1.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, (request, extra) => dispatch({ ...request, id: extra.requestId }));
server.setRequestHandler(CallToolRequestSchema, (request, extra) => dispatch({ ...request, id: extra.requestId }));
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
