#!/usr/bin/env node
'use strict';
// dice-mcp: rolls dice and flips coins.
const readline = require('readline');

const SCHEMAS = {
  roll: {
    type: 'object',
    properties: {
      sides: { type: 'integer', minimum: 2, maximum: 100, description: 'Faces on the die' },
      count: { type: 'integer', minimum: 1, default: 1 },
    },
    required: ['sides'],
  },
};

function reply(id, result) {
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\n');
}

function replyError(id, code, message) {
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }) + '\n');
}

async function onMessage(msg) {
  if (msg.method === 'initialize') {
    reply(msg.id, { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'dice', version: '0.2.0' } });
  } else if (msg.method === 'tools/list') {
    reply(msg.id, {
      tools: [
        { name: 'roll', description: 'Roll dice', inputSchema: SCHEMAS.roll },
        { name: 'flip', title: 'Coin flip', description: 'Flip a coin', inputSchema: { type: 'object', properties: {} } },
      ],
    });
  } else if (msg.method === 'tools/call') {
    if (msg.params.name === 'roll') {
      const count = msg.params.arguments.count ?? 1;
      const rolls = [];
      for (let i = 0; i < count; i++) rolls.push(1 + Math.floor(Math.random() * msg.params.arguments.sides));
      reply(msg.id, { content: [{ type: 'text', text: rolls.join(', ') }] });
      return;
    }
    if (msg.params.name === 'flip') {
      reply(msg.id, { content: [{ type: 'text', text: Math.random() < 0.5 ? 'heads' : 'tails' }] });
      return;
    }
    replyError(msg.id, -32602, 'Unknown tool: ' + msg.params.name);
  } else if (msg.id !== undefined) {
    replyError(msg.id, -32601, 'Method not found');
  }
}

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', async (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    replyError(null, -32700, 'Parse error');
    return;
  }
  await onMessage(msg);
});
