const readline = require('readline');

// A tiny framework: the writer lives inside the factory, so the envelope does too.
function createServer(handlers) {
  const started = Date.now();

  function write(message) {
    process.stdout.write(JSON.stringify(message) + '\n');
  }

  return {
    start() {
      readline.createInterface({ input: process.stdin }).on('line', (line) => {
        let msg;
        try {
          msg = JSON.parse(line);
        } catch {
          return;
        }
        const handler = handlers['on_' + msg.method.replace(/\W/g, '_')];
        if (handler) write({ jsonrpc: '2.0', id: msg.id, result: handler(msg.params, started) });
        else write({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
      });
    },
  };
}

module.exports = { createServer };
