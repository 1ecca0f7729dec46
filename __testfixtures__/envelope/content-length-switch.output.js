#!/usr/bin/env node
/*
 * Calculator MCP server.
 *
 * Framing: like the Language Server Protocol, every message is preceded by
 *   Content-Length: <n>\r\n
 *   \r\n
 * and followed by <n> bytes of JSON. (We share the framing code with our LSP tooling.)
 */

'use strict';

// mcp-migrate: envelope (CONTENT_LENGTH_FRAMING) -- the SDK stdio transport reads one JSON message per line; frame messages as newline-delimited JSON (server and clients) to get the SDK rewrite
const { createEnvelope } = require('./mcp-envelope.js');

const envelope = createEnvelope(writeMessage);

const SERVER_INFO = { name: 'lsp-style-calculator', version: '0.4.0' };

const TOOLS = [
  {
    name: 'sum',
    description: 'Add up a list of numbers',
    inputSchema: {
      type: 'object',
      properties: { numbers: { type: 'array', items: { type: 'number' } } },
      required: ['numbers'],
    },
  },
  {
    name: 'divide',
    description: 'Divide a by b',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
  },
  {
    name: 'sqrt',
    description: 'Square root of a non-negative number',
    inputSchema: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
  },
];

// ---------------------------------------------------------------- framing

function writeMessage(message) {
  const body = JSON.stringify(message);
  process.stdout.write(`Content-Length: ${Buffer.byteLength(body, 'utf8')}\r\n\r\n${body}`);
}

let pending = Buffer.alloc(0);

process.stdin.on('data', (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  for (;;) {
    const headerEnd = pending.indexOf('\r\n\r\n');
    if (headerEnd < 0) return;
    const match = /Content-Length:\s*(\d+)/i.exec(pending.toString('utf8', 0, headerEnd));
    if (!match) {
      pending = pending.slice(headerEnd + 4); // garbage header block, skip it
      continue;
    }
    const start = headerEnd + 4;
    const length = parseInt(match[1], 10);
    if (pending.length < start + length) return; // wait for the rest of the body
    const body = pending.toString('utf8', start, start + length);
    pending = pending.slice(start + length);
    envelope.scope(() => onMessage(body));
  }
});

// ---------------------------------------------------------------- protocol

function onMessage(body) {
  let msg;
  try {
    msg = envelope.parse(body);
  } catch (e) {
    return; // nothing sensible to answer
  }
  const id = msg.id;
  const params = msg.params || {};

  switch (msg.method) {
    case 'initialize':
      envelope.send({
        jsonrpc: '2.0',
        id,
        result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: SERVER_INFO },
      });
      break;
    case 'tools/list':
      envelope.send({ jsonrpc: '2.0', id, result: { tools: TOOLS } });
      break;
    case 'tools/call':
      try {
        const value = calculate(params.name, params.arguments || {});
        envelope.send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: String(value) }] } });
      } catch (err) {
        envelope.send({ jsonrpc: '2.0', id, error: { code: err.code || -32000, message: err.message } });
      }
      break;
    default:
      envelope.send({ jsonrpc: '2.0', id: id === undefined ? null : id, error: { code: -32601, message: 'Method not found' } });
  }
}

function calculate(name, args) {
  switch (name) {
    case 'sum':
      return args.numbers.reduce((total, n) => total + n, 0);
    case 'divide':
      if (args.b === 0) throw new Error('Division by zero');
      return args.a / args.b;
    case 'sqrt':
      if (args.x < 0) throw new Error('Cannot take the square root of a negative number');
      return Math.sqrt(args.x);
    default:
      throw Object.assign(new Error(`Unknown tool: ${name}`), { code: -32602 });
  }
}
