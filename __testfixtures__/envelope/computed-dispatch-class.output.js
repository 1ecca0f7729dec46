#!/usr/bin/env node
// numerals-mcp: JSON-RPC methods are routed to on<PascalCaseMethod>() by name,
// e.g. "tools/list" -> onToolsList, "ping" -> onPing. Add a method, get an endpoint.
const readline = require('readline');
const toolModule = require('./lib/tools');
// mcp-migrate: envelope (COMPUTED_DISPATCH) -- handlers are looked up by a name computed from the method; map each MCP method to its handler explicitly (switch, if-chain or object literal keyed by the method) to get the SDK rewrite
const { createEnvelope } = require('./mcp-envelope.js');

const camel = (method) =>
  method
    .split(/[/_-]/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');

class NumeralsServer {
  envelope = createEnvelope((message) => this.write(message));

  constructor() {
    this.tools = Object.fromEntries(
      Object.entries(toolModule).filter(([, def]) => def && typeof def.run === 'function')
    );
  }

  listen() {
    const rl = readline.createInterface({ input: process.stdin });
    rl.on('line', (line) => this.envelope.scope(() => this.receive(line)));
  }

  receive(line) {
    if (!line.trim()) return;
    let msg;
    try {
      msg = this.envelope.parse(line);
    } catch {
      return this.envelope.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
    const handler = this['on' + camel(String(msg.method))];
    if (typeof handler !== 'function') {
      return this.envelope.send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `Unsupported method ${msg.method}` } });
    }
    try {
      const result = handler.call(this, msg.params || {});
      if (result !== undefined) this.envelope.send({ jsonrpc: '2.0', id: msg.id, result });
    } catch (e) {
      this.envelope.send({ jsonrpc: '2.0', id: msg.id, error: { code: -32603, message: e.message } });
    }
  }

  write(message) {
    process.stdout.write(JSON.stringify(message) + '\n');
  }

  // ---- methods -----------------------------------------------------------

  onInitialize(params) {
    return {
      protocolVersion: params.protocolVersion || '2025-03-26',
      capabilities: { tools: {} },
      serverInfo: { name: 'numerals', version: '1.1.0' },
    };
  }

  onPing() {
    return {};
  }

  onToolsList() {
    return {
      tools: Object.entries(this.tools).map(([name, t]) => ({ name, description: t.description, inputSchema: t.inputSchema })),
    };
  }

  onToolsCall({ name, arguments: args = {} }) {
    const tool = this.tools[name];
    if (!tool) throw new Error(`Unknown tool: ${name}`);
    try {
      return { content: [{ type: 'text', text: tool.run(args) }] };
    } catch (e) {
      return { content: [{ type: 'text', text: e.message }], isError: true };
    }
  }
}

new NumeralsServer().listen();
