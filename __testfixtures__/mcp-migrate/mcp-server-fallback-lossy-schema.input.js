// mailer-mcp: one tool whose schema has a keyword zod would print differently.
const readline = require('readline');

function respond(id, payload) {
  console.log(JSON.stringify({ jsonrpc: '2.0', id, ...payload }));
}

function dispatch(req) {
  switch (req.method) {
    case 'initialize':
      return respond(req.id, { result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'mailer', version: '3.1.0' } } });
    case 'tools/list':
      return respond(req.id, {
        result: {
          tools: [{
            name: 'send_mail',
            description: 'Queue a mail',
            inputSchema: { type: 'object', properties: { to: { type: 'string', format: 'email' } }, required: ['to'] },
          }],
        },
      });
    case 'tools/call':
      if (req.params.name === 'send_mail') return respond(req.id, { result: { content: [{ type: 'text', text: `queued for ${req.params.arguments.to}` }] } });
      return respond(req.id, { error: { code: -32602, message: 'Unknown tool' } });
    default:
      if (req.id !== undefined) respond(req.id, { error: { code: -32601, message: 'Method not found' } });
  }
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  try {
    dispatch(JSON.parse(line));
  } catch {
    respond(null, { error: { code: -32700, message: 'Parse error' } });
  }
});
