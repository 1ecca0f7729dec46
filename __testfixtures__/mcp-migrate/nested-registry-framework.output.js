// mcp-lite: just enough MCP to expose a few tools over stdio.
// createServer() -> { registerTool(name, description, inputSchema, fn), start() }
// A tool function receives the call arguments and returns a string or any JSON value.

const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { CallToolRequestSchema, ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

// mcp-migrate: stdout carries the MCP protocol; console.log/info/debug (a dependency's logger too) go to stderr
console.log = console.info = console.debug = console.error;

function createServer(info) {
  const registry = new Map();

  function registerTool(name, description, inputSchema, fn) {
    if (registry.has(name)) throw new Error(`tool ${name} registered twice`);
    registry.set(name, { description, inputSchema, fn });
  }

  async function onMessage(msg) {
    if (msg.method === 'tools/list') {
      const tools = [];
      for (const [name, t] of registry) {
        tools.push({ name, description: t.description, inputSchema: t.inputSchema });
      }
      return { tools };
    }
    if (msg.method === 'tools/call') {
      const { name, arguments: args } = msg.params || {};
      const tool = registry.get(name);
      if (!tool) throw Object.assign(new Error(`Tool not found: ${name}`), { code: -32601 });
      try {
        const value = await tool.fn(args || {});
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        return { content: [{ type: 'text', text }] };
      } catch (e) {
        throw Object.assign(new Error(e.message), { code: -32603 });
      }
    }
    throw Object.assign(new Error(`Method not found: ${msg.method}`), { code: -32601 });
  }

  function start() {
    const server = new Server(info, { capabilities: { tools: { listChanged: false } } });
    server.setRequestHandler(ListToolsRequestSchema, onMessage);
    server.setRequestHandler(CallToolRequestSchema, onMessage);
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
  }

  return { registerTool, start };
}

module.exports = { createServer };
