// What reaches stdout besides protocol messages.
//   console.log('server started')                    -> stdout-pollution (hand-rolled server)
//   console.log(JSON.stringify(reply, null, 2))      -> stdout-pollution (one message over many lines)
//   console.log('ready') next to StdioServerTransport -> sdk-transport-bypassed
import type * as t from '@babel/types';
import { code, getEnclosingFunction, getSnippet, getStaticKey } from '../../analysis/ast.js';
import type { FileFacts } from '../facts.js';
import type { StdoutWrite } from '../sinks.js';
import type { Check, RawFinding } from './check.js';

const PROTOCOL_KEYS = ['jsonrpc', 'id', 'result', 'error', 'method'];
const OTHER_TRANSPORTS = new Set(['StreamableHTTPServerTransport', 'SSEServerTransport', 'WebStandardStreamableHTTPServerTransport']);

/**
 * Writes that only happen when a person runs the program (`--help`, usage on a terminal), never when a
 * client spawns it: under `if (process.stdin.isTTY)` or a test on `process.argv`.
 */
function isInteractiveOnly(facts: FileFacts, node: t.Node): boolean {
  const { index } = facts;
  let current = node;
  for (let parent = index.parent.get(current); parent; current = parent, parent = index.parent.get(current)) {
    let test: t.Node | null = null;
    if ((parent.type === 'IfStatement' || parent.type === 'ConditionalExpression') && parent.consequent === current) test = parent.test;
    if (parent.type === 'LogicalExpression' && parent.operator === '&&' && parent.right === current) test = parent.left;
    // `if (!process.stdin.isTTY)` is the opposite: exactly when a client spawned the server.
    const negated = test?.type === 'UnaryExpression' && test.operator === '!';
    if (test && !negated && test.start != null && test.end != null && /\bisTTY\b|\bargv\b/.test(index.source.slice(test.start, test.end))) return true;
  }
  return false;
}

export const checkStdoutPollution: Check = (facts) => {
  if (!facts.isHandRolledServer) return [];
  const framedByLength = /content-length/i.test(facts.index.source);
  const out: RawFinding[] = [];
  for (const write of facts.writes) {
    if (isInteractiveOnly(facts, write.call)) continue;
    const shown = code(getSnippet(facts.index, write.call, 50));
    const payload = write.payload;
    if (payload.kind === 'text') {
      out.push({ rule: 'stdout-pollution', node: write.call, message: `${shown} writes a line that is not a JSON-RPC message to stdout` });
    } else if ((payload.kind === 'message' || payload.kind === 'forward') && payload.pretty && !framedByLength) {
      // A helper that indents is reported once, at its own write, not at each call.
      out.push({ rule: 'stdout-pollution', node: write.call, message: `${shown} writes indented JSON: one message over several lines, which line-based clients cannot read` });
    } else if (payload.kind === 'message' && isNonProtocolObject(facts, payload.message)) {
      out.push({ rule: 'stdout-pollution', node: write.call, message: `${shown} writes JSON that is not a JSON-RPC message to stdout` });
    }
  }
  return out;
};

/** An object literal with none of the JSON-RPC members, written as is. */
function isNonProtocolObject(facts: FileFacts, node: t.Node): boolean {
  const values = facts.flow.getValues(node, new Map(), { split: true, followCalls: false, expandCallers: false });
  if (values.length === 0) return false;
  return values.every((v) => v.node.type === 'ObjectExpression' && v.node.properties.every((p) => {
    if (p.type === 'SpreadElement') return false;
    const key = getStaticKey(p);
    return key !== null && !PROTOCOL_KEYS.includes(key);
  }) && v.node.properties.length > 0);
}

export const checkSdkTransportBypassed: Check = (facts) => {
  if (facts.sdkTransport !== 'stdio') return [];
  const { index } = facts;
  // A server that can also run over HTTP logs freely in that mode: there, only writes next to the
  // stdio transport's construction count, and top-level ones (they run in every mode).
  const otherTransport = index.identifiers.some((id) => OTHER_TRANSPORTS.has(id.name));
  const stdioScopes = new Set<t.Node | null>([null]);
  for (const node of index.news) {
    if (/StdioServerTransport$/.test(getSnippet(index, node.callee, 200))) stdioScopes.add(getEnclosingFunction(index, node));
  }
  return facts.writes
    .filter((write: StdoutWrite) => write.payload.kind !== 'forward' && !isInteractiveOnly(facts, write.call))
    .filter((write) => !otherTransport || stdioScopes.has(getEnclosingFunction(index, write.call)))
    .map((write) => ({
      rule: 'sdk-transport-bypassed' as const,
      node: write.call,
      message: `${code(getSnippet(facts.index, write.call, 50))} writes to stdout, which belongs to StdioServerTransport: clients read it as a broken message`,
    }));
};
