#!/usr/bin/env node
// unit-converter-mcp: a minimal MCP server (JSON-RPC over stdio, one message per line).
// No dependencies on purpose -- just node.

const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { CallToolRequestSchema, ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

// mcp-migrate: stdout carries the MCP protocol; console.log/info/debug (a dependency's logger too) go to stderr
console.log = console.info = console.debug = console.error;

// factors to the base unit (metre / kilogram)
const LENGTH = { mm: 0.001, cm: 0.01, m: 1, km: 1000, in: 0.0254, ft: 0.3048, yd: 0.9144, mi: 1609.344 };
const MASS = { g: 0.001, kg: 1, t: 1000, oz: 0.028349523125, lb: 0.45359237 };

function round(n) {
  return Math.round(n * 1e4) / 1e4;
}

function toKelvin(value, unit) {
  if (unit === 'C') return value + 273.15;
  if (unit === 'F') return (value - 32) * 5 / 9 + 273.15;
  return value;
}

function fromKelvin(k, unit) {
  if (unit === 'C') return k - 273.15;
  if (unit === 'F') return (k - 273.15) * 9 / 5 + 32;
  return k;
}

function convertWithTable(table, kind, value, from, to) {
  if (!(from in table)) throw new Error('Unknown ' + kind + ' unit: ' + from);
  if (!(to in table)) throw new Error('Unknown ' + kind + ' unit: ' + to);
  return round(value * table[from] / table[to]);
}

const handleMessage = async (msg) => {
  if (msg.method === 'tools/list') {
    return {
      tools: [
        {
          name: 'convert_temperature',
          description: 'Convert a temperature between Celsius (C), Fahrenheit (F) and Kelvin (K)',
          inputSchema: {
            type: 'object',
            properties: {
              value: { type: 'number', description: 'Temperature to convert' },
              from: { type: 'string', enum: ['C', 'F', 'K'] },
              to: { type: 'string', enum: ['C', 'F', 'K'] }
            },
            required: ['value', 'from', 'to']
          }
        },
        {
          name: 'convert_length',
          description: 'Convert a length, e.g. km to mi. Units: mm, cm, m, km, in, ft, yd, mi',
          inputSchema: {
            type: 'object',
            properties: {
              value: { type: 'number' },
              from: { type: 'string' },
              to: { type: 'string' }
            },
            required: ['value', 'from', 'to']
          }
        },
        {
          name: 'convert_mass',
          description: 'Convert a mass. Units: g, kg, t, oz, lb',
          inputSchema: {
            type: 'object',
            properties: {
              value: { type: 'number' },
              from: { type: 'string' },
              to: { type: 'string' }
            },
            required: ['value', 'from', 'to']
          }
        }
      ]
    };
  }

  if (msg.method === 'tools/call') {
    const name = msg.params.name;
    const args = msg.params.arguments || {};
    let text;
    try {
      if (name === 'convert_temperature') {
        text = round(fromKelvin(toKelvin(args.value, args.from), args.to)) + ' ' + args.to;
      }
      if (name === 'convert_length') {
        text = convertWithTable(LENGTH, 'length', args.value, args.from, args.to) + ' ' + args.to;
      }
      if (name === 'convert_mass') {
        text = convertWithTable(MASS, 'mass', args.value, args.from, args.to) + ' ' + args.to;
      }
    } catch (err) {
      throw Object.assign(new Error(err.message), { code: -32602 });
    }
    if (text !== undefined) {
      return { content: [{ type: 'text', text: text }] };
    }
  }
  throw Object.assign(new Error('Unknown tool'), { code: -32602 });
};
const server = new Server({ name: 'unit-converter', version: '0.3.1' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, handleMessage);
server.setRequestHandler(CallToolRequestSchema, handleMessage);
const transport = new StdioServerTransport();
// The SDK transport drops lines that are not JSON; JSON-RPC 2.0 answers them with -32700 and id null.
transport.onerror = (error) => {
  if (error instanceof SyntaxError) {
    void transport.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  }
};
server.connect(transport).catch((error) => {
  console.error(error);
  process.exit(1);
});
