import { createInterface } from 'node:readline';

// mcp-migrate-ignore: we know the dispatch is computed; keep the envelope quiet
const api = {
  initialize: () => ({ protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'quiet', version: '1.0.0' } }),
};

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  const fn = api[`${msg.method}`.trim()];
  send(fn ? { jsonrpc: '2.0', id: msg.id, result: fn(msg.params) } : { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
});
