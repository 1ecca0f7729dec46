#!/usr/bin/env node
/**
 * textkit MCP server
 *
 * Speaks newline-delimited JSON-RPC 2.0 on stdin/stdout.
 * Tools: word_count, slugify, truncate
 */

import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

// mcp-migrate: stdout carries the MCP protocol; console.log/info/debug (a dependency's logger too) go to stderr
console.log = console.info = console.debug = console.error

const SERVER_INFO = { name: 'textkit', version: '1.4.0' }

const TOOLS = [
  {
    name: 'word_count',
    description: 'Count the words, lines and characters of a text',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', description: 'The text to analyse' } },
      required: ['text']
    }
  },
  {
    name: 'slugify',
    description: 'Turn a title into a lowercase URL slug',
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string' },
        separator: { type: 'string', description: 'Defaults to "-"' }
      },
      required: ['text']
    }
  },
  {
    name: 'truncate',
    description: 'Shorten a text to at most `max` characters, ending with an ellipsis',
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string' },
        max: { type: 'integer', description: 'Maximum length including the ellipsis' }
      },
      required: ['text', 'max']
    }
  }
]

const text = (t) => ({ content: [{ type: 'text', text: t }] })

function handleRequest (request) {
  switch (request.method) {
    case 'tools/list':
      return { tools: TOOLS }

    case 'tools/call': {
      const { name, arguments: args = {} } = request.params || {}
      let result
      switch (name) {
        case 'word_count': {
          const words = args.text.split(/\s+/).filter(Boolean).length
          const lines = args.text === '' ? 0 : args.text.split('\n').length
          result = text(`${words} words, ${lines} lines, ${args.text.length} characters`)
          break
        }
        case 'slugify': {
          const sep = args.separator ?? '-'
          const slug = args.text
            .toLowerCase()
            .normalize('NFKD')
            .replace(/[\u0300-\u036f]/g, '')
            .replace(/[^a-z0-9]+/g, sep)
            .split(sep)
            .filter(Boolean)
            .join(sep)
          result = slug
            ? text(slug)
            : { content: [{ type: 'text', text: 'Nothing left to slugify' }], isError: true }
          break
        }
        case 'truncate':
          if (args.max < 2) {
            result = { content: [{ type: 'text', text: 'max must be at least 2' }], isError: true }
          } else if (args.text.length <= args.max) {
            result = text(args.text)
          } else {
            result = text(args.text.slice(0, args.max - 1).trimEnd() + '…')
          }
          break
        default:
          throw Object.assign(new Error(`Unknown tool: ${name}`), { code: -32602 })
      }
      return result
    }

    default:
      throw Object.assign(new Error(`Method not found: ${request.method}`), { code: -32601 })
  }
}

const server = new Server(SERVER_INFO, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, handleRequest)
server.setRequestHandler(CallToolRequestSchema, handleRequest)
const transport = new StdioServerTransport()
// The SDK transport drops lines that are not JSON; JSON-RPC 2.0 answers them with -32700 and id null.
transport.onerror = (error) => {
  if (error instanceof SyntaxError) {
    void transport.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })
  }
}
await server.connect(transport)
