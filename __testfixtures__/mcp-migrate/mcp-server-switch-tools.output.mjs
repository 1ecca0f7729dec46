// notes-mcp: a tiny notebook kept in memory, with one resource listing every note.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ListResourcesRequestSchema } from '@modelcontextprotocol/sdk/types.js';

// mcp-migrate: stdout carries the MCP protocol; console.log/info/debug (a dependency's logger too) go to stderr
console.log = console.info = console.debug = console.error;

const notes = new Map();

function handle(msg) {
  const { id, method } = msg;
  switch (method) {
    case 'resources/list':
      return { resources: [{ uri: 'notes://all', name: 'All notes' }] };
    default:
      if (id !== undefined) throw Object.assign(new Error('Method not found'), { code: -32601 });
  }
}

const server = new McpServer({ name: 'notes', version: '1.0.0' });
server.server.registerCapabilities({ tools: {}, resources: {} });
server.registerTool('add_note', {
  description: 'Store a note under a title',
  inputSchema: { title: z.string().min(1), body: z.string().describe('The text of the note') },
}, async (args) => {
  let text;
  notes.set(args.title, args.body);
  text = `Stored ${args.title}`;
  return { content: [{ type: 'text', text }] };
});
server.registerTool('read_note', {
  description: 'Read a note back',
  inputSchema: { title: z.string() },
}, async (args) => {
  if (!notes.has(args.title)) {
    throw Object.assign(new Error(`No note called ${args.title}`), { code: -32602 });
  }
  return { content: [{ type: 'text', text: notes.get(args.title) }] };
});
server.registerTool('count_notes', {
  description: 'How many notes there are',
  inputSchema: {},
}, async () => {
  let text;
  text = `${notes.size} note(s)`;
  return { content: [{ type: 'text', text }] };
});
server.server.setRequestHandler(ListResourcesRequestSchema, (request, extra) => handle({ ...request, id: extra.requestId }));
const transport = new StdioServerTransport();
// The SDK transport drops lines that are not JSON; JSON-RPC 2.0 answers them with -32700 and id null.
transport.onerror = (error) => {
  if (error instanceof SyntaxError) {
    void transport.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  }
};
await server.connect(transport);
