const readline = require('readline');
// mcp-migrate: envelope (COMPUTED_DISPATCH) -- handlers are looked up by a name computed from the method; map each MCP method to its handler explicitly (switch, if-chain or object literal keyed by the method) to get the SDK rewrite
const { createEnvelope } = require('./mcp-envelope.js');

// A tiny framework: the writer lives inside the factory, so the envelope does too.
function createServer(handlers) {
  const envelope = createEnvelope(write);
  const started = Date.now();

  function write(message) {
    process.stdout.write(JSON.stringify(message) + '\n');
  }

  return {
    start() {
      readline.createInterface({ input: process.stdin }).on('line', envelope.bind((line) => {
        let msg;
        try {
          msg = envelope.parse(line);
        } catch {
          return;
        }
        const handler = handlers['on_' + msg.method.replace(/\W/g, '_')];
        if (handler) envelope.send({ jsonrpc: '2.0', id: msg.id, result: handler(msg.params, started) });
        else envelope.send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
      }));
    },
  };
}

module.exports = { createServer };
