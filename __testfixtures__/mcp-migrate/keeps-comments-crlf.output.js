// echo-mcp: answers with what it is given. Windows line endings on purpose.
const { Server } = require("@modelcontextprotocol/sdk/server/index.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const {
  CallToolRequestSchema,
  ListToolsRequestSchema
} = require("@modelcontextprotocol/sdk/types.js");

/* A tool table, kept as the author wrote it. */
const TOOLS = [
  { name: "echo", description: "Echo the text back", inputSchema: { type: "object", properties: { text: { type: "string" } } } }, // the only tool
];

const server = new Server({ name: "echo", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => {
  // The table is constant.
  return { tools: TOOLS };
});

server.setRequestHandler(CallToolRequestSchema, async (msg) => {
  const text = msg.params.arguments.text; // may be empty
  return { content: [{ type: "text", text: `echo:
${text}` }] };
});

async function main() {
  const transport = new StdioServerTransport();
  // The SDK transport drops lines that are not JSON; JSON-RPC 2.0 answers them with -32700 and id null.
  transport.onerror = (error) => {
    if (error instanceof SyntaxError) {
      void transport.send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    }
  };
  await server.connect(transport);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
