#!/usr/bin/env node
'use strict';

// mcp-migrate: envelope (CONTENT_LENGTH_FRAMING) -- the SDK stdio transport reads one JSON message per line; frame messages as newline-delimited JSON (server and clients) to get the SDK rewrite
const { createEnvelope } = require('./mcp-envelope.js');

const envelope = createEnvelope(frame);

let buf = '';

function frame(msg) {
  const json = JSON.stringify(msg);
  process.stdout.write('Content-Length: ' + Buffer.byteLength(json) + '\r\n\r\n' + json);
}

// substring() on decoded text: the byte fix cannot prove this reader, so it keeps counting characters
process.stdin.setEncoding('utf8');
process.stdin.on('data', (data) => {
  buf += data;
  let sep;
  while ((sep = buf.indexOf('\r\n\r\n')) !== -1) {
    const len = Number(/content-length: *(\d+)/i.exec(buf.substring(0, sep))[1]);
    if (buf.length < sep + 4 + len) break;
    const text = buf.substring(sep + 4, sep + 4 + len);
    buf = buf.substring(sep + 4 + len);
    envelope.scope(() => handle(text));
  }
});

function handle(text) {
  let req;
  try {
    req = envelope.parse(text);
  } catch (_) {
    return;
  }
  if (req.method === 'initialize') envelope.send({ jsonrpc: '2.0', id: req.id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'cl', version: '1.0.0' } } });
  else envelope.send({ jsonrpc: '2.0', id: req.id, error: { code: -32601, message: 'Method not found' } });
}
