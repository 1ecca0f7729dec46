const readline = require('readline');
// mcp-migrate: envelope (COMPUTED_DISPATCH) -- handlers are looked up by a name computed from the method; map each MCP method to its handler explicitly (switch, if-chain or object literal keyed by the method) to get the SDK rewrite
const { createEnvelope } = require('./mcp-envelope.js');

const envelope = createEnvelope((message) => process.stdout.write(JSON.stringify(message) + '\n'));

const rl = readline.createInterface({ input: process.stdin });

const routes = {
  initialize: () => ({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'echo', version: '1.0.0' } }),
  tools_list: () => ({ tools: [{ name: 'echo', description: 'Echo the text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }] }),
  tools_call: (params) => ({ content: [{ type: 'text', text: String(params.arguments.text) }] }),
};

rl.on('line', envelope.bind((line) => {
  const msg = envelope.receive(line); // a bad line used to crash the server
  if (msg === undefined) return;
  const route = routes[msg.method.replace(/\//g, '_')];
  const response = route
    ? { jsonrpc: '2.0', id: msg.id, result: route(msg.params) }
    : { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } };
  envelope.send(response);
}));
