#!/usr/bin/env node
// A tiny Agent Client Protocol agent: JSON-RPC 2.0 over stdio, one message per line. It answers
// `initialize` like an MCP server would, but it is not one: the editor drives it with session/* methods.
const readline = require('readline');

const PROTOCOL_VERSION = 1;
const sessions = new Map();
let nextSession = 1;

function write(message) {
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
}

function update(sessionId, text) {
  write({ method: 'session/update', params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });
}

async function answer(msg) {
  switch (msg.method) {
    case 'initialize':
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: { loadSession: false, promptCapabilities: { image: false, audio: false } },
        authMethods: [],
      };
    case 'session/new': {
      const sessionId = `sess-${nextSession++}`;
      sessions.set(sessionId, { cwd: msg.params.cwd, turns: 0 });
      return { sessionId };
    }
    case 'session/prompt': {
      const session = sessions.get(msg.params.sessionId);
      if (!session) throw Object.assign(new Error('unknown session'), { code: -32602 });
      session.turns++;
      const words = msg.params.prompt.filter((block) => block.type === 'text').map((block) => block.text).join(' ');
      update(msg.params.sessionId, `You said: ${words}`);
      return { stopReason: 'end_turn' };
    }
    default:
      throw Object.assign(new Error(`Method not found: ${msg.method}`), { code: -32601 });
  }
}

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', async (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    write({ id: null, error: { code: -32700, message: 'Parse error' } });
    return;
  }
  if (msg.method === 'session/cancel') return; // a notification: nothing to cancel in this agent
  if (msg.id === undefined) return;
  try {
    write({ id: msg.id, result: await answer(msg) });
  } catch (err) {
    write({ id: msg.id, error: { code: err.code ?? -32603, message: err.message } });
  }
});
