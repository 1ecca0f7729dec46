// An editor plugin host speaking its own JSON-RPC dialect over stdio. The host says `initialize`
// (with an integer protocol version and plugin capabilities), then `render/markdown` and `shutdown`.
import { createInterface } from 'node:readline';

const plugin = { id: 'md-preview', version: '3.1.0' };
const capabilities = { render: ['markdown'], streaming: false };

const handlers = {
  initialize(params) {
    if (params.protocolVersion !== 2) throw { code: -32000, message: `host protocol ${params.protocolVersion} not supported` };
    return { protocolVersion: 2, capabilities, plugin };
  },
  'render/markdown'(params) {
    const html = String(params.text)
      .split('\n')
      .map((row) => (row.startsWith('# ') ? `<h1>${row.slice(2)}</h1>` : `<p>${row}</p>`))
      .join('');
    return { html };
  },
  shutdown() {
    setImmediate(() => process.exit(0));
    return null;
  },
};

const send = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);

for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue;
  let req;
  try {
    req = JSON.parse(line);
  } catch {
    send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    continue;
  }
  const handler = handlers[req.method];
  if (req.id === undefined) continue;
  if (!handler) {
    send({ jsonrpc: '2.0', id: req.id, error: { code: -32601, message: `no handler for ${req.method}` } });
    continue;
  }
  try {
    send({ jsonrpc: '2.0', id: req.id, result: await handler(req.params ?? {}) });
  } catch (err) {
    send({ jsonrpc: '2.0', id: req.id, error: { code: err.code ?? -32603, message: err.message ?? String(err) } });
  }
}
