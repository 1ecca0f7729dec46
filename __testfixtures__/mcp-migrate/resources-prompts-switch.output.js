#!/usr/bin/env node
// styleguide-mcp: the team style guide as MCP resources + prompts, and one checker tool.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';

// mcp-migrate: stdout carries the MCP protocol; console.log/info/debug (a dependency's logger too) go to stderr
console.log = console.info = console.debug = console.error;

const GUIDE = {
  'styleguide://naming': {
    name: 'Naming',
    description: 'How we name variables, files and branches',
    text: '# Naming\n\n- camelCase for variables and functions\n- PascalCase for classes and types\n- kebab-case for file names\n- branches: <type>/<ticket>-<short-title>\n',
  },
  'styleguide://commits': {
    name: 'Commit messages',
    description: 'Conventional commit rules',
    text: '# Commit messages\n\n- `<type>(<scope>): <summary>`\n- types: feat, fix, docs, refactor, test, chore\n- summary in the imperative, no trailing period, at most 72 characters\n',
  },
};

const PROMPTS = [
  {
    name: 'review_commit',
    description: 'Ask the model to review a commit message against the guide',
    arguments: [{ name: 'message', description: 'The commit message to review', required: true }],
  },
  {
    name: 'name_things',
    description: 'Suggest names that follow the naming guide',
    arguments: [
      { name: 'kind', description: 'What needs a name (variable, class, file, branch)', required: true },
      { name: 'language', description: 'Programming language', required: false },
    ],
  },
];

const COMMIT_RE = /^(feat|fix|docs|refactor|test|chore)(\([a-z0-9-]+\))?: (.+)$/;

function checkCommit(message) {
  const first = message.split('\n')[0];
  const problems = [];
  const m = COMMIT_RE.exec(first);
  if (!m) problems.push('first line must look like "<type>(<scope>): <summary>"');
  if (first.length > 72) problems.push(`first line is ${first.length} characters (max 72)`);
  if (first.endsWith('.')) problems.push('summary must not end with a period');
  return problems;
}

function handle(msg) {
  const { id, method, params = {} } = msg;

  switch (method) {
    case 'resources/list':
      return {
        resources: Object.entries(GUIDE).map(([uri, r]) => ({
          uri, name: r.name, description: r.description, mimeType: 'text/markdown',
        })),
      };

    case 'resources/read': {
      const doc = GUIDE[params.uri];
      if (!doc) throw Object.assign(new Error(`Resource not found: ${params.uri}`), { code: -32002 });
      return { contents: [{ mimeType: 'text/markdown', text: doc.text }] };
    }

    case 'prompts/list':
      return { prompts: PROMPTS };

    case 'prompts/get': {
      const args = params.arguments || {};
      if (params.name === 'review_commit') {
        if (!args.message) throw Object.assign(new Error('Missing required argument: message'), { code: -32602 });
        return {
          description: 'Commit message review',
          messages: [{
            role: 'user',
            content: { type: 'text', text: `Review this commit message against styleguide://commits:\n\n${args.message}` },
          }],
        };
      }
      if (params.name === 'name_things') {
        if (!args.kind) throw Object.assign(new Error('Missing required argument: kind'), { code: -32602 });
        const lang = args.language ? ` in ${args.language}` : '';
        return {
          messages: [{
            role: 'user',
            content: { type: 'text', text: `Suggest three names for a ${args.kind}${lang} following styleguide://naming.` },
          }],
        };
      }
      throw Object.assign(new Error(`Unknown prompt: ${params.name}`), { code: -32602 });
    }

    case 'tools/list':
      return {
        tools: [{
          name: 'check_commit_message',
          description: 'Check a commit message against the commit guide; lists the problems found',
          inputSchema: {
            type: 'object',
            properties: { message: { type: 'string', description: 'Full commit message' } },
            required: ['message'],
          },
        }],
      };

    case 'tools/call': {
      if (params.name !== 'check_commit_message') throw Object.assign(new Error(`Unknown tool: ${params.name}`), { code: -32602 });
      const message = (params.arguments || {}).message || '';
      if (!message.trim()) {
        return { content: [{ type: 'text', text: 'Commit message is empty' }], isError: true };
      }
      const problems = checkCommit(message);
      const text = problems.length ? problems.map((p) => `- ${p}`).join('\n') : 'Looks good';
      return { content: [{ type: 'text', text }] };
    }

    default:
      throw Object.assign(new Error(`Method not found: ${method}`), { code: -32601 });
  }
}

const server = new Server({ name: 'styleguide', version: '0.5.2' }, { capabilities: { tools: {}, resources: {} } });
server.registerCapabilities({ prompts: {} });
server.setRequestHandler(ListResourcesRequestSchema, handle);
server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
  const result = await handle(request, extra);
  // each content names the resource it belongs to (MCP requires it; the original left it out)
  return { ...result, contents: result.contents.map((content) => ({ uri: request.params.uri, ...content })) };
});
server.setRequestHandler(ListPromptsRequestSchema, handle);
server.setRequestHandler(GetPromptRequestSchema, handle);
server.setRequestHandler(ListToolsRequestSchema, handle);
server.setRequestHandler(CallToolRequestSchema, handle);
const transport = new StdioServerTransport();
// The SDK transport drops lines that are not JSON; JSON-RPC 2.0 answers them with -32700 and id null.
transport.onerror = (error) => {
  if (error instanceof SyntaxError) {
    void transport.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
  }
};
await server.connect(transport);
