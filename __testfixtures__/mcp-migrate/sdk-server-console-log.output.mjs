// Already on the SDK, but logs to stdout: those lines corrupt the transport.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'clock', version: '1.0.0' });

server.registerTool('now', { description: 'Current time' }, async () => {
  console.error('now called'); // debug
  return { content: [{ type: 'text', text: new Date(0).toISOString() }] };
});

console.error('clock starting');
await server.connect(new StdioServerTransport());
console.error('clock ready');
