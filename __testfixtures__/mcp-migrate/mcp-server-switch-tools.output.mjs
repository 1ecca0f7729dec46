#!/usr/bin/env node
/**
 * textkit MCP server
 *
 * Speaks newline-delimited JSON-RPC 2.0 on stdin/stdout.
 * Tools: word_count, slugify, truncate
 */

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

const SERVER_INFO = { name: 'textkit', version: '1.4.0' }

const text = (t) => ({ content: [{ type: 'text', text: t }] })

const server = new McpServer(SERVER_INFO, { capabilities: { tools: {} } })

server.registerTool(
  'word_count',
  {
    description: 'Count the words, lines and characters of a text',
    inputSchema: { text: z.string().describe('The text to analyse') }
  },
  async (args) => {
    const words = args.text.split(/\s+/).filter(Boolean).length
    const lines = args.text === '' ? 0 : args.text.split('\n').length
    return text(`${words} words, ${lines} lines, ${args.text.length} characters`)
  }
)

server.registerTool(
  'slugify',
  {
    description: 'Turn a title into a lowercase URL slug',
    inputSchema: { text: z.string(), separator: z.string().describe('Defaults to "-"').optional() }
  },
  async (args) => {
    const sep = args.separator ?? '-'
    const slug = args.text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^a-z0-9]+/g, sep)
      .split(sep)
      .filter(Boolean)
      .join(sep)
    return slug
      ? text(slug)
      : { content: [{ type: 'text', text: 'Nothing left to slugify' }], isError: true }
  }
)

server.registerTool(
  'truncate',
  {
    description: 'Shorten a text to at most `max` characters, ending with an ellipsis',
    inputSchema: { text: z.string(), max: z.number().int().describe('Maximum length including the ellipsis') }
  },
  async (args) => {
    if (args.max < 2) {
      return { content: [{ type: 'text', text: 'max must be at least 2' }], isError: true }
    } else if (args.text.length <= args.max) {
      return text(args.text)
    } else {
      return text(args.text.slice(0, args.max - 1).trimEnd() + '…')
    }
  }
)

const transport = new StdioServerTransport()
// The SDK transport drops lines that are not JSON; JSON-RPC 2.0 answers them with -32700 and id null.
transport.onerror = (error) => {
  if (error instanceof SyntaxError) {
    void transport.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })
  }
}
await server.connect(transport)
