// wordtools: every export of ./tools.mjs that has a run() function is a tool
import * as toolModule from './tools.mjs'
// mcp-migrate: envelope (UNFOLLOWABLE_TOOL_LIST) -- the tool list is assembled at run time from module exports; declare the tools in one array or object literal to get the SDK rewrite
import { createEnvelope } from './mcp-envelope.mjs'

const envelope = createEnvelope(write)

const TOOLS = Object.entries(toolModule)
  .filter(([, t]) => typeof t.run === 'function')
  .map(([name, t]) => ({ name, description: t.description, inputSchema: t.inputSchema }))

function write (message) {
  process.stdout.write(JSON.stringify(message) + '\n')
}

function handle (request) {
  switch (request.method) {
    case 'initialize':
      return envelope.send({ jsonrpc: '2.0', id: request.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'wordtools', version: '1.0.0' } } })
    case 'tools/list':
      return envelope.send({ jsonrpc: '2.0', id: request.id, result: { tools: TOOLS } })
    case 'tools/call': {
      const tool = toolModule[request.params.name]
      if (!tool) return envelope.send({ jsonrpc: '2.0', id: request.id, error: { code: -32602, message: `Unknown tool: ${request.params.name}` } })
      return envelope.send({ jsonrpc: '2.0', id: request.id, result: { content: [{ type: 'text', text: tool.run(request.params.arguments) }] } })
    }
    default:
      envelope.send({ jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' } })
  }
}

let buffer = ''
process.stdin.on('data', (chunk) => {
  buffer += chunk
  const lines = buffer.split('\n')
  buffer = lines.pop()
  for (const line of lines) {
    if (!line.trim()) continue
    let request
    try {
      request = envelope.parse(line)
    } catch {
      continue
    }
    envelope.handle(request, () => handle(request))
  }
})
