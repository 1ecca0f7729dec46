'use strict';
/**
 * palette-mcp -- colour helpers for MCP clients.
 * Reads one JSON request per line from stdin, answers on stdout.
 */
const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { CallToolRequestSchema, ListToolsRequestSchema } = require('@modelcontextprotocol/sdk/types.js');

// mcp-migrate: stdout carries the MCP protocol; console.log/info/debug (a dependency's logger too) go to stderr
console.log = console.info = console.debug = console.error;

const tools = [
  {
    name: 'hex_to_rgb',
    description: 'Convert #rrggbb (or #rgb) to rgb(r, g, b)',
    inputSchema: { type: 'object', properties: { hex: { type: 'string' } }, required: ['hex'] },
  },
  {
    name: 'rgb_to_hex',
    description: 'Convert red/green/blue components (0-255) to #rrggbb',
    inputSchema: {
      type: 'object',
      properties: {
        r: { type: 'integer', minimum: 0, maximum: 255 },
        g: { type: 'integer', minimum: 0, maximum: 255 },
        b: { type: 'integer', minimum: 0, maximum: 255 },
      },
      required: ['r', 'g', 'b'],
    },
  },
  {
    name: 'mix',
    description: 'Mix two hex colours; weight is the share of the second colour (0..1, default 0.5)',
    inputSchema: {
      type: 'object',
      properties: {
        a: { type: 'string' },
        b: { type: 'string' },
        weight: { type: 'number', minimum: 0, maximum: 1 },
      },
      required: ['a', 'b'],
    },
  },
];

const parseHex = (hex) => {
  let h = String(hex).trim().replace(/^#/, '');
  if (/^[0-9a-f]{3}$/i.test(h)) h = h.split('').map((c) => c + c).join('');
  if (!/^[0-9a-f]{6}$/i.test(h)) throw new Error(`Invalid hex colour: ${hex}`);
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16));
};

const toHex = (rgb) => '#' + rgb.map((v) => v.toString(16).padStart(2, '0')).join('');

const callTool = (name, args) => {
  switch (name) {
    case 'hex_to_rgb': {
      const [r, g, b] = parseHex(args.hex);
      return `rgb(${r}, ${g}, ${b})`;
    }
    case 'rgb_to_hex':
      return toHex([args.r, args.g, args.b]);
    case 'mix': {
      const w = args.weight === undefined ? 0.5 : args.weight;
      const a = parseHex(args.a);
      const b = parseHex(args.b);
      return toHex(a.map((v, i) => Math.round(v * (1 - w) + b[i] * w)));
    }
    default:
      throw new Error(`Unknown tool: ${name}`);
  }
};

const handle = async ({ id, method, params }) => {
  switch (method) {
    case 'tools/list':
      return { tools };
    case 'tools/call':
      try {
        const text = callTool(params.name, params.arguments || {});
        return { content: [{ type: 'text', text }] };
      } catch (err) {
        throw Object.assign(new Error(err.message), { code: -32602 });
      }
    default:
      throw Object.assign(new Error(`Method not found: ${method}`), { code: -32601 });
  }
};

async function main() {
  const server = new Server({ name: 'palette', version: '0.2.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, (request) => handle(request));
  server.setRequestHandler(CallToolRequestSchema, (request) => handle(request));
  const transport = new StdioServerTransport();
  // The SDK transport drops lines that are not JSON; JSON-RPC 2.0 answers them with -32700 and id null.
  transport.onerror = (error) => {
    if (error instanceof SyntaxError) {
      void transport.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
  };
  await server.connect(transport);
}

main();
