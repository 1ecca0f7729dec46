// hash-mcp: every tool runs inside one try, so the tools share their error handling.
const crypto = require('crypto');
const readline = require('readline');

const send = (msg) => process.stdout.write(JSON.stringify(msg) + '\n');

function handle(msg) {
  if (msg.method === 'initialize') {
    send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'hash', version: '1.0.0' } } });
    return;
  }
  if (msg.method === 'tools/list') {
    send({
      jsonrpc: '2.0',
      id: msg.id,
      result: {
        tools: [
          { name: 'sha256', description: 'SHA-256 of a text', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
          { name: 'md5', description: 'MD5 of a text', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
        ],
      },
    });
    return;
  }
  if (msg.method === 'tools/call') {
    const { name, arguments: args } = msg.params;
    try {
      if (name === 'sha256') {
        send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: crypto.createHash('sha256').update(args.text).digest('hex') }] } });
        return;
      }
      if (name === 'md5') {
        send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: crypto.createHash('md5').update(args.text).digest('hex') }] } });
        return;
      }
    } catch (err) {
      send({ jsonrpc: '2.0', id: msg.id, error: { code: -32603, message: err.message } });
      return;
    }
    send({ jsonrpc: '2.0', id: msg.id, error: { code: -32602, message: `Unknown tool: ${name}` } });
    return;
  }
  if (msg.id !== undefined) send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    return;
  }
  handle(msg);
});
