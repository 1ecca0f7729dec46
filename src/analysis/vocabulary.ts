// MCP's vocabulary in a program's text: what says a JSON-RPC program over stdio speaks MCP where its
// dispatch does not name the methods itself. Read by detection (a server, an input loop worth naming)
// and by the facts (a program without it and without an input loop is not explored).
import { MCP_METHOD_NAMESPACES, MCP_PROTOCOL_VERSIONS, MCP_SERVER_CAPABILITIES } from '../model/mcp-methods.js';
import { usesSdkStdio } from '../prefilter.js';
import type { ModuleUnit } from './program.js';

const QUOTED_MCP_NAME = new RegExp(
  [
    `['"\`](?:${MCP_METHOD_NAMESPACES.map((ns) => ns.replace('/', '\\/')).join('|')})[\\w/]+['"\`]`,
    `['"\`]notifications\\/initialized['"\`]`,
    `['"\`](?:${MCP_PROTOCOL_VERSIONS.join('|')})['"\`]`,
    `\\bcapabilities\\s*:\\s*\\{\\s*['"]?(?:${MCP_SERVER_CAPABILITIES.join('|')})\\b`,
  ].join('|'),
);

/** MCP's vocabulary in a module's text: a quoted MCP method or protocol version, a literal MCP capability. */
export function namesMcpVocabulary(source: string): boolean {
  return QUOTED_MCP_NAME.test(source);
}

/** A module's text names the SDK or MCP's vocabulary (even in a comment): a program with one is explored. */
export function speaksMcp(text: string): boolean {
  return text.includes('@modelcontextprotocol/') || usesSdkStdio(text) || namesMcpVocabulary(text);
}

/** A module's text with its comments blanked (same length: offsets stay valid). */
export function withoutComments(mod: ModuleUnit): string {
  const comments = mod.ast.comments ?? [];
  if (comments.length === 0) return mod.source;
  let out = '';
  let at = 0;
  for (const comment of comments) {
    out += mod.source.slice(at, comment.start!) + mod.source.slice(comment.start!, comment.end!).replace(/[^\n]/g, ' ');
    at = comment.end!;
  }
  return out + mod.source.slice(at);
}
