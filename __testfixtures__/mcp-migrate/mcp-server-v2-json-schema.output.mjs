#!/usr/bin/env node
/**
 * textkit MCP server
 *
 * Speaks newline-delimited JSON-RPC 2.0 on stdin/stdout.
 * Tools: word_count, slugify, truncate
 */

import { McpServer, fromJsonSchema } from '@modelcontextprotocol/server'
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio'

const SERVER_INFO = { name: 'textkit', version: '1.4.0' }

const text = (t) => ({ content: [{ type: 'text', text: t }] })

const server = new McpServer(SERVER_INFO, { capabilities: { tools: {} } })

server.registerTool(
  'word_count',
  {
    description: 'Count the words, lines and characters of a text',
    inputSchema: fromJsonSchema({
      type: 'object',
      properties: { text: { type: 'string', description: 'The text to analyse' } },
      required: ['text']
    })
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
    inputSchema: fromJsonSchema({
      type: 'object',
      properties: {
        text: { type: 'string' },
        separator: { type: 'string', description: 'Defaults to "-"' }
      },
      required: ['text']
    })
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
    inputSchema: fromJsonSchema({
      type: 'object',
      properties: {
        text: { type: 'string' },
        max: { type: 'integer', description: 'Maximum length including the ellipsis' }
      },
      required: ['text', 'max']
    })
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
await server.connect(transport)
