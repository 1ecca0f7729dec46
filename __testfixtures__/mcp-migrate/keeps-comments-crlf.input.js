// echo-mcp: answers with what it is given. Windows line endings on purpose.
const readline = require("readline");

/* A tool table, kept as the author wrote it. */
const TOOLS = [
  { name: "echo", description: "Echo the text back", inputSchema: { type: "object", properties: { text: { type: "string" } } } }, // the only tool
];

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    return;
  }
  switch (msg.method) {
    case "initialize":
      send({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: "2024-11-05", capabilities: { tools: {} }, serverInfo: { name: "echo", version: "1.0.0" } } });
      break;
    case "tools/list":
      // The table is constant.
      send({ jsonrpc: "2.0", id: msg.id, result: { tools: TOOLS } });
      break;
    case "tools/call": {
      const text = msg.params.arguments.text; // may be empty
      send({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: `echo:
${text}` }] } });
      break;
    }
  }
});
