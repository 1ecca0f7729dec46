// echo-mcp: answers with what it is given. Windows line endings on purpose.
const { Server } = require("@modelcontextprotocol/sdk/server/index.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { CallToolRequestSchema, ListToolsRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

// mcp-migrate: stdout carries the MCP protocol; console.log/info/debug (a dependency's logger too) go to stderr
console.log = console.info = console.debug = console.error;

/* A tool table, kept as the author wrote it. */
const TOOLS = [
  { name: "echo", description: "Echo the text back", inputSchema: { type: "object", properties: { text: { type: "string" } } } }, // the only tool
];

const handleMessage = async (msg) => {
  switch (msg.method) {
    case "tools/list":
      // The table is constant.
      return { tools: TOOLS };
    case "tools/call": {
      const text = msg.params.arguments.text; // may be empty
      return { content: [{ type: "text", text: `echo:
${text}` }] };
    }
  }
};
const server = new Server({ name: "echo", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, handleMessage);
server.setRequestHandler(CallToolRequestSchema, handleMessage);
const transport = new StdioServerTransport();
// The SDK transport drops lines that are not JSON; JSON-RPC 2.0 answers them with -32700 and id null.
transport.onerror = (error) => {
  if (error instanceof SyntaxError) {
    void transport.send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
  }
};
server.connect(transport).catch((error) => {
  console.error(error);
  process.exit(1);
});
