// notes-mcp: a tiny notes server. Windows line endings, tabs and double quotes on purpose.
"use strict";

const readline = require("readline"); // stdin, one JSON message per line
// mcp-migrate: envelope (COMPUTED_DISPATCH) -- handlers are looked up by a name computed from the method; map each MCP method to its handler explicitly (switch, if-chain or object literal keyed by the method) to get the SDK rewrite
const { createEnvelope } = require("./mcp-envelope.js");

const envelope = createEnvelope(reply);

const notes = new Map(); // title -> text

/**
 * Writes one message. Keep this the only stdout writer.
 */
function reply(message) {
	process.stdout.write(JSON.stringify(message) + "\n");
}

const handlers = {
	initialize() {
		return { protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "notes", version: "0.0.1" } };
	},
	tools_list() {
		return {
			tools: [
				{
					name: "add_note",
					description: "Remember a note",
					inputSchema: { type: "object", properties: { title: { type: "string" }, text: { type: "string" } }, required: ["title", "text"] },
				},
			],
		};
	},
	tools_call(params) {
		if (params.name !== "add_note") throw new Error("Unknown tool: " + params.name);
		notes.set(params.arguments.title, params.arguments.text); // overwrite on purpose
		return { content: [{ type: "text", text: "Saved " + params.arguments.title }] };
	},
};

function onLine(line) {
	let msg;
	try {
		msg = envelope.parse(line);
	} catch (err) {
		console.error("bad line: " + err.message); // diagnostics
		return;
	}
	// "tools/list" -> tools_list
	const handler = handlers[msg.method.replace("/", "_")];
	if (!handler) {
		envelope.send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } });
		return;
	}
	try {
		envelope.send({ jsonrpc: "2.0", id: msg.id, result: handler(msg.params || {}) });
	} catch (err) {
		envelope.send({ jsonrpc: "2.0", id: msg.id, error: err.message }); /* a bare string */
	}
}

readline.createInterface({ input: process.stdin }).on("line", envelope.bind(onLine));
