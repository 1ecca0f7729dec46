// The writer is declared at the bottom and called at start-up, before its line: it is hoisted,
// so the envelope must be ready before any code runs, not just after the writer's line.
const readline = require('readline');
// mcp-migrate: envelope (COMPUTED_DISPATCH) -- handlers are looked up by a name computed from the method; map each MCP method to its handler explicitly (switch, if-chain or object literal keyed by the method) to get the SDK rewrite
const { createEnvelope } = require('./mcp-envelope.js');

const envelope = createEnvelope(send);

const handlers = { initialize: () => ({ protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'last', version: '1.0.0' } }) };

envelope.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'starting' } });

readline.createInterface({ input: process.stdin }).on('line', envelope.bind((line) => {
  let msg;
  try {
    msg = envelope.parse(line);
  } catch {
    return;
  }
  const fn = handlers[String(msg.method).split('/').pop()];
  envelope.send(fn ? { jsonrpc: '2.0', id: msg.id, result: fn() } : { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
}));

function send(msg) {
  process.stdout.write(JSON.stringify(msg) + '\n');
}
