// Warehouse inventory MCP server.
// Usage: node server.js   (the assistant spawns it and talks JSON-RPC on stdin/stdout)

var catalog = require("./catalog.json");
const { Server } = require("@modelcontextprotocol/sdk/server/index.js");
const { StdioServerTransport } = require("@modelcontextprotocol/sdk/server/stdio.js");
const { CallToolRequestSchema, ListToolsRequestSchema } = require("@modelcontextprotocol/sdk/types.js");

// mcp-migrate: stdout carries the MCP protocol; console.log/info/debug (a dependency's logger too) go to stderr
console.log = console.info = console.debug = console.error;

console.error("inventory-mcp starting, " + catalog.length + " SKUs loaded");

var tools = [
  {
    name: "get_item",
    description: "Look up one item by SKU",
    inputSchema: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] }
  },
  {
    name: "search_items",
    description: "Find items whose name contains the query (case-insensitive)",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string" },
        inStockOnly: { type: "boolean", description: "Skip items with qty 0" }
      },
      required: ["query"]
    }
  },
  {
    name: "stock_value",
    description: "Total value of the stock, optionally for one category",
    inputSchema: { type: "object", properties: { category: { type: "string" } } }
  }
];

function describe(item) {
  return item.sku + " | " + item.name + " | qty " + item.qty + " | " + item.unitPrice.toFixed(2) + " EUR";
}

function runTool(name, args) {
  if (name === "get_item") {
    var item = catalog.find(function (i) { return i.sku === args.sku; });
    if (!item) {
      return { content: [{ type: "text", text: "No item with SKU " + args.sku }], isError: true };
    }
    return { content: [{ type: "text", text: describe(item) }] };
  }
  if (name === "search_items") {
    var q = String(args.query).toLowerCase();
    var hits = catalog.filter(function (i) {
      return i.name.toLowerCase().indexOf(q) !== -1 && (!args.inStockOnly || i.qty > 0);
    });
    return { content: [{ type: "text", text: hits.length ? hits.map(describe).join("\n") : "No matches" }] };
  }
  if (name === "stock_value") {
    var total = 0;
    catalog.forEach(function (i) {
      if (!args.category || i.category === args.category) total += i.qty * i.unitPrice;
    });
    return { content: [{ type: "text", text: total.toFixed(2) + " EUR" }] };
  }
  return null;
}

const handleMessage = async (msg) => {
  console.error("<- " + msg.method);

  if (msg.method === "tools/list") {
    return { tools: tools };
  } else if (msg.method === "tools/call") {
    var result = runTool(msg.params.name, msg.params.arguments || {});
    if (result === null) {
      console.error("unknown tool requested: " + msg.params.name);
      throw Object.assign(new Error("Unknown tool"), { code: -32602 });
    }
    return result;
  } else {
    throw Object.assign(new Error("Method not found: " + msg.method), { code: -32601 });
  }
};
const server = new Server({ name: "warehouse-inventory", version: "0.1.0" }, { capabilities: { tools: {} } });
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
