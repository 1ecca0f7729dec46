#!/usr/bin/env node
'use strict';
// dice-mcp: rolls dice and flips coins.
const { McpServer, fromJsonSchema } = require('@modelcontextprotocol/server');
const { serveStdio } = require('@modelcontextprotocol/server/stdio');

// mcp-migrate: stdout carries the MCP protocol; console.log/info/debug (a dependency's logger too) go to stderr
console.log = console.info = console.debug = console.error;

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

serveStdio(() => {
  const server = new McpServer({ name: 'dice', version: '0.2.0' }, { capabilities: { tools: {} } });
  server.registerTool('roll', {
    description: 'Roll dice',
    inputSchema: fromJsonSchema(SCHEMAS.roll),
  }, async (args) => {
    const count = args.count ?? 1;
    const rolls = [];
    for (let i = 0; i < count; i++) rolls.push(1 + Math.floor(Math.random() * args.sides));
    return { content: [{ type: 'text', text: rolls.join(', ') }] };
  });
  server.registerTool('flip', {
    title: 'Coin flip',
    description: 'Flip a coin',
    inputSchema: fromJsonSchema({ type: 'object', properties: {} }),
  }, async () => {
    return { content: [{ type: 'text', text: Math.random() < 0.5 ? 'heads' : 'tails' }] };
  });
  return server;
});
