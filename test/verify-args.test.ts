// `mcp-migrate verify` flag parsing (pure) and its framing decoder (pure bytes).
import { describe, it, expect } from 'vitest';
import { parseCliArgs, splitCommandLine } from '../src/cli/args.js';
import { DEFAULT_VERIFY_TIMEOUT_MS } from '../src/verify/timeouts.js';
import { createDecoder, frameBody, type Decoded, type Framing } from '../src/verify/framing.js';
import { VERIFY_RULE_IDS, VERIFY_RULES } from '../src/verify/rules.js';
import { RULES } from '../src/model/audit-rules.js';

describe('parseCliArgs: verify', () => {
  const defaults = { framing: 'ndjson', timeoutMs: DEFAULT_VERIFY_TIMEOUT_MS, report: null, compare: null, methods: [], baseline: null };

  it('takes the command after --, or from the first word that is not a flag', () => {
    expect(parseCliArgs(['verify', '--', 'node', 'server.js'])).toEqual({ kind: 'verify', options: { ...defaults, command: ['node', 'server.js'] } });
    expect(parseCliArgs(['verify', 'node', 'server.js'])).toEqual({ kind: 'verify', options: { ...defaults, command: ['node', 'server.js'] } });
    // The server's own flags are the server's, wherever they are.
    expect(parseCliArgs(['verify', 'node', 'server.js', '--port', '3', '--framing', 'x'])).toMatchObject({
      kind: 'verify',
      options: { framing: 'ndjson', command: ['node', 'server.js', '--port', '3', '--framing', 'x'] },
    });
    expect(parseCliArgs(['verify', '--', '--weird-binary'])).toMatchObject({ options: { command: ['--weird-binary'] } });
  });

  it('reads --framing, --timeout and --report, with a space or =', () => {
    expect(parseCliArgs(['verify', '--framing', 'content-length', '--timeout=500', '--report', 'json', '--', 'node', 's.js'])).toEqual({
      kind: 'verify',
      options: { ...defaults, command: ['node', 's.js'], framing: 'content-length', timeoutMs: 500, report: 'json' },
    });
  });

  it('reads --compare as a command line, --method repeatable, --baseline', () => {
    expect(parseCliArgs(['verify', '--compare', 'node "old server.js" --port 3', '--method', 'db/stats', '--method=db/stats', '--method', 'x/y', '--', 'node', 'new.js'])).toEqual({
      kind: 'verify',
      options: { ...defaults, command: ['node', 'new.js'], compare: ['node', 'old server.js', '--port', '3'], methods: ['db/stats', 'x/y'] },
    });
    expect(parseCliArgs(['verify', '--baseline', 'expected.yml', 'node', 's.js'])).toMatchObject({ options: { baseline: 'expected.yml' } });
    for (const argv of [
      ['verify', '--compare', '', 'node', 's.js'],
      ['verify', '--compare', 'node "open', 'node', 's.js'],
      ['verify', '--compare'],
      ['verify', '--method', '', 'node', 's.js'],
      ['verify', '--baseline', 'b.yml', '--compare', 'node a.js', 'node', 's.js'],
    ]) {
      expect(parseCliArgs(argv), argv.join(' ')).toMatchObject({ kind: 'usage-error', topic: 'verify' });
    }
  });

  it('splits a command line as a shell would, without expansions', () => {
    expect(splitCommandLine(`node "my server.js" --x 'a b' c\\ d $HOME`)).toEqual(['node', 'my server.js', '--x', 'a b', 'c d', '$HOME']);
    expect(splitCommandLine('npx tsx "src/a\\"b.ts"')).toEqual(['npx', 'tsx', 'src/a"b.ts']);
    expect(splitCommandLine('a""b')).toEqual(['ab']);
    expect(splitCommandLine("node 'open")).toBeNull();
    expect(splitCommandLine('   ')).toEqual([]);
  });

  it('takes --verify in a migration run', () => {
    expect(parseCliArgs(['--check', '--verify', 'src'])).toMatchObject({ kind: 'run', options: { mode: 'check', verify: 'safe', paths: ['src'] } });
  });

  it('is a usage error without a command, with a bad flag or a bad value', () => {
    for (const argv of [
      ['verify'],
      ['verify', '--'],
      ['verify', '--timeout', '100'],
      ['verify', '--yes', 'node', 's.js'],
      ['verify', '--framing', 'xml', 'node', 's.js'],
      ['verify', '--timeout', '0', 'node', 's.js'],
      ['verify', '--timeout', '1.5', 'node', 's.js'],
      ['verify', '--report', 'sarif', 'node', 's.js'],
      ['verify', '--framing'],
      ['verify', '--timeout', '--', 'node'],
    ]) {
      expect(parseCliArgs(argv), argv.join(' ')).toMatchObject({ kind: 'usage-error', topic: 'verify' });
    }
    expect(parseCliArgs(['verify', '--framing', 'xml', 'x'])).toMatchObject({ message: 'invalid value for --framing: "xml" (expected ndjson, content-length)' });
    expect(parseCliArgs(['verify'])).toMatchObject({ message: expect.stringContaining('mcp-migrate verify -- node server.js') });
  });

  it('has its own help, and is a subcommand only in first position', () => {
    expect(parseCliArgs(['verify', '--help'])).toEqual({ kind: 'help', topic: 'verify' });
    expect(parseCliArgs(['verify', '-h', 'node'])).toEqual({ kind: 'help', topic: 'verify' });
    expect(parseCliArgs(['--dry-run', 'verify'])).toMatchObject({ kind: 'run', options: { paths: ['verify'] } });
    expect(parseCliArgs(['./verify'])).toMatchObject({ kind: 'run', options: { paths: ['./verify'] } });
  });
});

describe('verify rules table', () => {
  it('reuses the static audit ids where they mean the same, with the same hint', () => {
    for (const id of VERIFY_RULE_IDS) {
      const entry = VERIFY_RULES[id];
      if (entry.audit === null) continue;
      expect(entry.audit).toBe(id);
      expect(entry.hint).toBe(RULES[entry.audit].hint);
    }
    expect(VERIFY_RULE_IDS.filter((id) => VERIFY_RULES[id].audit === null)).toEqual([
      'initialize-failed',
      'pre-initialize-unanswered',
      'ping-unanswered',
      'duplicate-reply',
      'no-reply',
      'tool-call-crashed',
      // same id as the static rule, but a dropped line passes at run time (the SDK transports drop it)
      'parse-error-unanswered',
    ]);
  });

  it('links every rule to the specification it enforces', () => {
    for (const id of VERIFY_RULE_IDS) expect(VERIFY_RULES[id].spec, id).toMatch(/^https:\/\/(modelcontextprotocol\.io\/specification\/|www\.jsonrpc\.org\/specification#)/);
  });

  it('has a one-line hint for every rule', () => {
    for (const id of VERIFY_RULE_IDS) expect(VERIFY_RULES[id].hint).toMatch(/^[^\n]+$/);
  });
});

function decodeAll(framing: Framing, chunks: Buffer[]): Decoded[] {
  const out: Decoded[] = [];
  const decoder = createDecoder(framing, (d) => out.push(d));
  for (const chunk of chunks) decoder.push(chunk);
  decoder.end();
  return out;
}

/** Splits a buffer into one-byte chunks: the worst case for a decoder. */
function bytewise(text: string): Buffer[] {
  return [...Buffer.from(text, 'utf8')].map((byte) => Buffer.from([byte]));
}

describe('verify framing', () => {
  it('ndjson: one body per non-blank line, UTF-8 split across chunks kept whole, \\r dropped', () => {
    expect(decodeAll('ndjson', bytewise('{"a":"Wörld"}\r\n\nhello\n{"b":1}'))).toEqual([
      { kind: 'body', text: '{"a":"Wörld"}' },
      { kind: 'body', text: 'hello' },
      { kind: 'body', text: '{"b":1}' },
    ]);
  });

  it('content-length: counts bytes, and reports text outside frames as stray', () => {
    const body = '{"text":"Größe"}';
    const stream = `banner line\n${frameBody('content-length', body)}${frameBody('content-length', '{}')}log\r\n\r\n`;
    expect(frameBody('content-length', body)).toBe(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    expect(decodeAll('content-length', bytewise(stream))).toEqual([
      { kind: 'stray', text: 'banner line' },
      { kind: 'body', text: body },
      { kind: 'body', text: '{}' },
      { kind: 'stray', text: 'log' },
    ]);
  });

  it('content-length: an NDJSON reply never forms a frame and is stray at the end', () => {
    expect(decodeAll('content-length', [Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}\n')])).toEqual([
      { kind: 'stray', text: '{"jsonrpc":"2.0","id":1,"result":{}}' },
    ]);
  });
});
