/*
 * hashbox -- MCP stdio server.
 * Build with `tsc` (CommonJS output) or run directly with `tsx src/server.ts`.
 */
import * as crypto from 'crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type ServerResult } from '@modelcontextprotocol/sdk/types.js';

// mcp-migrate: stdout carries the MCP protocol; console.log/info/debug (a dependency's logger too) go to stderr
console.log = console.info = console.debug = console.error;

const ALGORITHMS = ['md5', 'sha1', 'sha256', 'sha512'];

const tools = [
    {
        name: 'hash_text',
        description: 'Hex digest of a UTF-8 string',
        inputSchema: {
            type: 'object',
            properties: {
                text: { type: 'string' },
                algorithm: { type: 'string', enum: ALGORITHMS, default: 'sha256' },
            },
            required: ['text'],
        },
    },
    {
        name: 'base64_encode',
        description: 'Encode a UTF-8 string as base64',
        inputSchema: {
            type: 'object',
            properties: { text: { type: 'string' } },
            required: ['text'],
        },
    },
    {
        name: 'base64_decode',
        description: 'Decode base64 back to a UTF-8 string',
        inputSchema: {
            type: 'object',
            properties: { data: { type: 'string' } },
            required: ['data'],
        },
    },
];

function callTool(name: string, args: any): string {
    if (name === 'hash_text') {
        const algorithm: string = args.algorithm || 'sha256';
        return crypto.createHash(algorithm).update(args.text, 'utf8').digest('hex');
    } else if (name === 'base64_encode') {
        return Buffer.from(args.text, 'utf8').toString('base64');
    } else if (name === 'base64_decode') {
        const data: string = args.data;
        if (data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) {
            throw new Error('Input is not valid base64');
        }
        return Buffer.from(data, 'base64').toString('utf8');
    } else {
        throw new Error(`No such tool: ${name}`);
    }
}

const handleMessage = async (msg: any) => {
    try {
        if (msg.method === 'tools/list') {
            return { tools };
        } else if (msg.method === 'tools/call') {
            const text = callTool(msg.params.name, msg.params.arguments || {});
            return { content: [{ type: 'text', text }] };
        } else {
            throw Object.assign(new Error('Method not found'), { code: -32601 });
        }
    } catch (e) {
        throw Object.assign(new Error((e as Error).message), { code: -32603 });
    }
};
const server = new Server({ name: 'hashbox', version: '0.9.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => (await handleMessage({ ...request, jsonrpc: '2.0', id: extra.requestId })) as ServerResult);
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => (await handleMessage({ ...request, jsonrpc: '2.0', id: extra.requestId })) as ServerResult);
const transport = new StdioServerTransport();
// The SDK transport drops lines that are not JSON; JSON-RPC 2.0 answers them with -32700 and id null.
transport.onerror = (error) => {
    if (error instanceof SyntaxError) {
        // @ts-expect-error -- the SDK message type has no null id, which JSON-RPC 2.0 requires here
        void transport.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
};
server.connect(transport).catch((error) => {
    console.error(error);
    process.exit(1);
});
