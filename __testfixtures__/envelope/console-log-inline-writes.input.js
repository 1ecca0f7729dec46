// progress-mcp: replies go out through console.log, like many quick prototypes.
var readline = require("readline");

console.log("progress-mcp starting");

function runCount(args) {
  var total = 0;
  for (var i = 1; i <= args.to; i++) total += i;
  return total;
}

readline.createInterface({ input: process.stdin }).on("line", function (line) {
  var msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    console.log("bad input: " + line);
    return;
  }
  console.log("<- " + msg.method);
  if (msg.method === "initialize") {
    console.log(JSON.stringify({ jsonrpc: "2.0", id: msg.id || null, result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "progress", version: "0.1.0" } } }));
  } else if (msg.method === "tools/list") {
    console.log(JSON.stringify({ jsonrpc: "2.0", id: msg.id || null, result: { tools: [{ name: "count", description: "Sum 1..to", inputSchema: { type: "object", properties: { to: { type: "integer" } }, required: ["to"] } }] } }));
  } else if (msg.method === "tools/call") {
    if (msg.params.name !== "count") {
      console.log(JSON.stringify({ jsonrpc: "2.0", id: msg.id || null, error: "Unknown tool" }));
      return;
    }
    console.log(JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: msg.id, progress: 0 } }));
    console.log(JSON.stringify({ jsonrpc: "2.0", id: msg.id || null, result: { content: [{ type: "text", text: String(runCount(msg.params.arguments)) }] } }));
  } else {
    console.log(JSON.stringify({ jsonrpc: "2.0", id: msg.id || null, error: { code: -32601, message: "Method not found" } }));
  }
});
