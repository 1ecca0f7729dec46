'use strict';
const readline = require('readline');
// mcp-migrate: envelope (COMPUTED_DISPATCH) -- handlers are looked up by a name computed from the method; map each MCP method to its handler explicitly (switch, if-chain or object literal keyed by the method) to get the SDK rewrite
const { createEnvelope } = require('./mcp-envelope.js');

const envelope = createEnvelope(out);

const handlers = {
  async initialize() {
    return { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'slow', version: '1.0.0' } };
  },
  async 'tools/list'() {
    return { tools: [] };
  },
};

function out(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

async function handle(msg) {
  const key = String(msg.method).toLowerCase();
  if (!Object.prototype.hasOwnProperty.call(handlers, key)) return { id: msg.id, error: { code: -32601, message: 'Method not found' } };
  return { id: msg.id, result: await handlers[key](msg.params) };
}

async function main() {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) {
    let msg;
    try {
      msg = envelope.parse(line);
    } catch {
      envelope.send({ id: null, error: { code: -32700, message: 'Parse error' } });
      continue;
    }
    await envelope.handle(msg, async () => envelope.send(await handle(msg)));
  }
}

main();
