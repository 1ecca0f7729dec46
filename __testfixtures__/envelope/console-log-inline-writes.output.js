// progress-mcp: replies go out through console.log, like many quick prototypes.
var readline = require("readline");
// mcp-migrate: envelope (MULTIPLE_WRITES_PER_REQUEST) -- one request is answered by more than one write; answer each request exactly once (send progress as notifications) to get the SDK rewrite
var { createEnvelope } = require("./mcp-envelope.js");

var envelope = createEnvelope((message) => process.stdout.write(JSON.stringify(message) + "\n"));

console.error("progress-mcp starting");

function runCount(args) {
  var total = 0;
  for (var i = 1; i <= args.to; i++) total += i;
  return total;
}

readline.createInterface({ input: process.stdin }).on("line", envelope.bind(function (line) {
  var msg;
  try {
    msg = envelope.parse(line);
  } catch (e) {
    console.error("bad input: " + line);
    return;
  }
  console.error("<- " + msg.method);
  if (msg.method === "initialize") {
    envelope.send({ jsonrpc: "2.0", id: msg.id || null, result: { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "progress", version: "0.1.0" } } });
  } else if (msg.method === "tools/list") {
    envelope.send({ jsonrpc: "2.0", id: msg.id || null, result: { tools: [{ name: "count", description: "Sum 1..to", inputSchema: { type: "object", properties: { to: { type: "integer" } }, required: ["to"] } }] } });
  } else if (msg.method === "tools/call") {
    if (msg.params.name !== "count") {
      envelope.send({ jsonrpc: "2.0", id: msg.id || null, error: "Unknown tool" });
      return;
    }
    envelope.send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: msg.id, progress: 0 } });
    envelope.send({ jsonrpc: "2.0", id: msg.id || null, result: { content: [{ type: "text", text: String(runCount(msg.params.arguments)) }] } });
  } else {
    envelope.send({ jsonrpc: "2.0", id: msg.id || null, error: { code: -32601, message: "Method not found" } });
  }
}));
