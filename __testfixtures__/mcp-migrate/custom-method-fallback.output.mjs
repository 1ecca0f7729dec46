#!/usr/bin/env node
// shopdb-mcp -- MCP tools over a fixture database.
// Besides the MCP methods it answers `db/stats`, which the ops dashboard polls over the same pipe.
import { datasets } from '../data/datasets.mjs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

// mcp-migrate: stdout carries the MCP protocol; console.log/info/debug (a dependency's logger too) go to stderr
console.log = console.info = console.debug = console.error;

const datasetName = process.env.SHOPDB_DATASET || 'demo';
const db = datasets[datasetName];
if (!db) {
  console.error(`shopdb-mcp: unknown dataset "${datasetName}"`);
  process.exit(1);
}

const tableArg = { type: 'string', description: 'Table name, see list_tables' };

const TOOLS = [
  { name: 'list_tables', description: 'List the tables of the database', inputSchema: { type: 'object', properties: {} } },
  {
    name: 'count_rows',
    description: 'Number of rows in a table',
    inputSchema: { type: 'object', properties: { table: tableArg }, required: ['table'] },
  },
  {
    name: 'get_row',
    description: 'Fetch one row by primary key',
    inputSchema: {
      type: 'object',
      properties: { table: tableArg, id: { type: 'integer' } },
      required: ['table', 'id'],
    },
  },
];

const textResult = (text, isError = false) => (isError ? { content: [{ type: 'text', text }], isError } : { content: [{ type: 'text', text }] });

function runTool(name, args) {
  if (name === 'list_tables') return textResult(Object.keys(db).join(', '));
  if (name !== 'count_rows' && name !== 'get_row') return null;
  const rows = db[args.table];
  if (!Array.isArray(rows)) return textResult(`No such table: ${args.table}`, true);
  if (name === 'count_rows') return textResult(String(rows.length));
  const row = rows.find((r) => r.id === args.id); // get_row
  return row ? textResult(JSON.stringify(row)) : textResult(`No row with id ${args.id} in ${args.table}`, true);
}

function stats(params) {
  if (params.table !== undefined) {
    const rows = db[params.table];
    if (!Array.isArray(rows)) return null;
    return { table: params.table, rows: rows.length, columns: Object.keys(rows[0] ?? {}) };
  }
  const perTable = Object.fromEntries(Object.entries(db).map(([t, rows]) => [t, rows.length]));
  const total = Object.values(perTable).reduce((a, b) => a + b, 0);
  return { dataset: datasetName, tables: Object.keys(db).length, rows: total, perTable };
}

function onRequest(msg) {
  const params = msg.params || {};

  if (msg.method === 'tools/list') return { tools: TOOLS };
  if (msg.method === 'tools/call') {
    const result = runTool(params.name, params.arguments || {});
    if (!result) throw Object.assign(new Error(`Unknown tool: ${params.name}`), { code: -32602 });
    return result;
  }
  if (msg.method === 'db/stats') {
    const result = stats(params);
    if (!result) throw Object.assign(new Error(`Unknown table: ${params.table}`), { code: -32602 });
    return result;
  }
  throw Object.assign(new Error(`Method not found: ${msg.method}`), { code: -32601 });
}

const server = new Server({ name: 'shopdb', version: '1.0.3' }, {
  capabilities: { tools: {} },
  instructions: 'Read-only. Use list_tables first.',
});
server.setRequestHandler(ListToolsRequestSchema, onRequest);
server.setRequestHandler(CallToolRequestSchema, onRequest);
server.fallbackRequestHandler = async (request, extra) => {
  // the server's own methods; any other method is answered -32601, as JSON-RPC requires
  if (!['db/stats'].includes(request.method)) throw Object.assign(new Error('Method not found'), { code: -32601 });
  return onRequest(request, extra);
};
const transport = new StdioServerTransport();
// The SDK transport drops lines that are not JSON; JSON-RPC 2.0 answers them with -32700 and id null.
transport.onerror = (error) => {
  if (error instanceof SyntaxError) {
    void transport.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  }
};
await server.connect(transport);
