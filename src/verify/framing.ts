// The two stdio framings a server may speak, both directions: NDJSON (one message per line, what the
// SDK's StdioServerTransport speaks) and LSP-style Content-Length frames. Pure byte handling: no
// process, no JSON parsing (the connection decides what a body is).

export const FRAMINGS = ['ndjson', 'content-length'] as const;
export type Framing = (typeof FRAMINGS)[number];

/** One body, framed: `<body>\n`, or `Content-Length: <bytes>\r\n\r\n<body>` (no trailing newline). */
export function frameBody(framing: Framing, body: string): string {
  return framing === 'ndjson' ? `${body}\n` : `Content-Length: ${Buffer.byteLength(body, 'utf8')}\r\n\r\n${body}`;
}

/** What a decoder found on the stream: a message body, or text that is not part of any frame. */
export type Decoded = { kind: 'body'; text: string } | { kind: 'stray'; text: string };

export interface Decoder {
  /** Feeds a chunk of stdout; calls back once per complete body or stray text. */
  push(chunk: Buffer): void;
  /** End of stream: whatever is left over (an unterminated line, a cut frame) as stray text. */
  end(): void;
}

/**
 * Splits stdout into bodies. Works on bytes, so a UTF-8 character split across chunks is decoded
 * whole and Content-Length counts bytes, as the framing says.
 * - ndjson: every non-blank line is a body (a trailing `\r` is dropped);
 * - content-length: a header block without a Content-Length (e.g. a log line that happens to
 *   end in a blank line) is stray text, and so is anything before a `Content-Length:` header.
 */
export function createDecoder(framing: Framing, emit: (decoded: Decoded) => void): Decoder {
  let pending = Buffer.alloc(0);

  const takeLines = (): void => {
    for (let nl = pending.indexOf(0x0a); nl >= 0; nl = pending.indexOf(0x0a)) {
      const line = pending.subarray(0, nl).toString('utf8').replace(/\r$/, '');
      pending = pending.subarray(nl + 1);
      if (line.trim() !== '') emit({ kind: 'body', text: line });
    }
  };

  const takeFrames = (): void => {
    for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
      const header = pending.subarray(0, end).toString('utf8');
      const match = /(^|\n)Content-Length:[ \t]*(\d+)[ \t]*\r?(\n|$)/i.exec(header);
      if (match === null) {
        if (header.trim() !== '') emit({ kind: 'stray', text: header });
        pending = pending.subarray(end + 4);
        continue;
      }
      const size = Number(match[2]);
      if (pending.length < end + 4 + size) return;
      const before = header.slice(0, match.index).trim();
      if (before !== '') emit({ kind: 'stray', text: before });
      emit({ kind: 'body', text: pending.subarray(end + 4, end + 4 + size).toString('utf8') });
      pending = pending.subarray(end + 4 + size);
    }
  };

  return {
    push(chunk) {
      pending = Buffer.concat([pending, chunk]);
      if (framing === 'ndjson') takeLines();
      else takeFrames();
    },
    end() {
      const rest = pending.toString('utf8');
      pending = Buffer.alloc(0);
      if (rest.trim() === '') return;
      // An NDJSON line without its newline is still a line; a cut frame is not a message.
      emit({ kind: framing === 'ndjson' ? 'body' : 'stray', text: rest.replace(/\r?\n?$/, '') });
    },
  };
}
