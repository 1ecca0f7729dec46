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
  /**
   * NDJSON: the text of the line begun and not yet ended, when it is at most `maxBytes` long ('' for
   * frames, and for a longer line: only its length is known without joining it).
   */
  pending(maxBytes: number): string;
  /** NDJSON: the first character of the line begun that is not a space ('' when there is none). */
  pendingStart(): string;
  /** NDJSON: forgets the line begun (its text was read through `pending`). */
  dropPending(): void;
}

/** A body (or NDJSON line) larger than this is not kept: it is skipped and reported as stray text. */
export const MAX_BODY_BYTES = 128 * 1024 * 1024;
/**
 * Content-Length framing: text outside any frame (a log flood) is passed on as stray text once this much
 * has piled up without a header, so that it never grows without bound.
 */
const MAX_HEADER_BYTES = 64 * 1024;
/** What is kept of text outside frames when it is passed on: room for a header block that has only begun. */
const HEADER_TAIL = 1024;

export interface DecoderOptions {
  /** Default MAX_BODY_BYTES. */
  maxBodyBytes?: number;
}

/**
 * Splits stdout into bodies. Works on bytes, so a UTF-8 character split across chunks is decoded
 * whole and Content-Length counts bytes, as the framing says.
 * - ndjson: every non-blank line is a body (a trailing `\r` is dropped);
 * - content-length: a header block without a Content-Length (e.g. a log line that happens to
 *   end in a blank line) is stray text, and so is anything before a `Content-Length:` header.
 *
 * Linear in the bytes it is fed: each chunk is searched once, and a body is joined from its chunks
 * once, when it is complete (a 50 MB reply arrives in ~800 chunks; joining and searching everything
 * pending on every chunk made that quadratic). Memory is bounded by the largest body kept
 * (`maxBodyBytes`); a longer one is skipped as it streams past and reported as stray text.
 */
export function createDecoder(framing: Framing, emit: (decoded: Decoded) => void, options: DecoderOptions = {}): Decoder {
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  return framing === 'ndjson' ? createLineDecoder(emit, maxBodyBytes) : createFrameDecoder(emit, maxBodyBytes);
}

/** What is said in place of a body too large to keep. */
function describeSkipped(what: string, bytes: number, maxBodyBytes: number): string {
  return `[${what} of ${bytes} bytes, over the ${maxBodyBytes}-byte limit; not read]`;
}

/** The parts of one body, joined once at the end; past `max` bytes only counted. */
class Parts {
  private parts: Buffer[] = [];
  length = 0;
  overflow = false;

  constructor(private readonly max: number) {}

  add(part: Buffer): void {
    this.length += part.length;
    if (this.overflow) return;
    if (this.length > this.max) {
      this.overflow = true;
      this.parts = [];
      return;
    }
    if (part.length > 0) this.parts.push(part);
  }

  /** The first byte that is not a space, as a character (no join of the parts). */
  firstNonSpace(): string {
    for (const part of this.parts) {
      for (const byte of part) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return String.fromCharCode(byte);
    }
    return '';
  }

  take(): Buffer {
    const joined = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [];
    this.length = 0;
    this.overflow = false;
    return joined;
  }
}

function createLineDecoder(emit: (decoded: Decoded) => void, maxBodyBytes: number): Decoder {
  const line = new Parts(maxBodyBytes);
  const finish = (atEnd: boolean): void => {
    if (line.overflow) {
      const bytes = line.length;
      line.take();
      emit({ kind: 'stray', text: describeSkipped('a line', bytes, maxBodyBytes) });
      return;
    }
    const text = line.take().toString('utf8');
    // An NDJSON line without its newline (end of stream) is still a line.
    const body = atEnd ? text.replace(/\r?\n?$/, '') : text.replace(/\r$/, '');
    if (body.trim() !== '') emit({ kind: 'body', text: body });
  };
  return {
    push(chunk) {
      let start = 0;
      for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
        line.add(chunk.subarray(start, nl));
        finish(false);
        start = nl + 1;
      }
      if (start < chunk.length) line.add(chunk.subarray(start));
    },
    end() {
      if (line.length > 0) finish(true);
    },
    pending(maxBytes) {
      if (line.overflow || line.length === 0 || line.length > maxBytes) return '';
      const text = line.take();
      line.add(text);
      return text.toString('utf8');
    },
    pendingStart: () => line.firstNonSpace(),
    dropPending() {
      line.take();
    },
  };
}

const HEADER_END = Buffer.from('\r\n\r\n');

function createFrameDecoder(emit: (decoded: Decoded) => void, maxBodyBytes: number): Decoder {
  // Between frames: bytes not yet known to be a header (bounded by MAX_HEADER_BYTES).
  let header: Buffer = Buffer.alloc(0);
  // Inside a frame: the body's parts and how many bytes it still needs (null: between frames).
  const body = new Parts(maxBodyBytes);
  let needed: number | null = null;

  const stray = (text: string): void => {
    if (text.trim() !== '') emit({ kind: 'stray', text });
  };

  /** Consumes `chunk` from `start` while inside a body; returns where the rest begins. */
  const feedBody = (chunk: Buffer, start: number): number => {
    const take = Math.min(needed ?? 0, chunk.length - start);
    body.add(chunk.subarray(start, start + take));
    needed = (needed ?? 0) - take;
    if (needed === 0) {
      needed = null;
      const bytes = body.length;
      const overflow = body.overflow;
      const joined = body.take();
      if (overflow) emit({ kind: 'stray', text: describeSkipped('a frame', bytes, maxBodyBytes) });
      else emit({ kind: 'body', text: joined.toString('utf8') });
    }
    return start + take;
  };

  /** Looks for complete header blocks in `header`; enters a body when one has a Content-Length. */
  const takeHeaders = (from: number): Buffer | null => {
    for (let end = header.indexOf(HEADER_END, from); end >= 0; end = header.indexOf(HEADER_END)) {
      const text = header.subarray(0, end).toString('utf8');
      const rest = header.subarray(end + 4);
      const match = /(^|\n)Content-Length:[ \t]*(\d+)[ \t]*\r?(\n|$)/i.exec(text);
      header = Buffer.alloc(0);
      if (match === null) {
        stray(text);
        header = rest;
        from = 0;
        continue;
      }
      stray(text.slice(0, match.index).trim());
      needed = Number(match[2]);
      if (needed === 0) {
        needed = null;
        emit({ kind: 'body', text: '' });
        header = rest;
        continue;
      }
      return rest; // the bytes after the header belong to the body
    }
    // No complete header: past the bound, pass what cannot be part of one on as stray text. The last
    // HEADER_TAIL bytes stay (from a line start), so a header arriving split across chunks is not cut.
    if (header.length > MAX_HEADER_BYTES) {
      const lastNewline = header.lastIndexOf(0x0a, header.length - HEADER_TAIL);
      const cut = lastNewline > 0 ? lastNewline + 1 : header.length - HEADER_TAIL;
      stray(header.subarray(0, cut).toString('utf8').replace(/\r?\n$/, ''));
      header = header.subarray(cut);
    }
    return null;
  };

  const feed = (chunk: Buffer): void => {
    let rest: Buffer = chunk;
    while (rest.length > 0) {
      if (needed !== null) {
        rest = rest.subarray(feedBody(rest, 0));
        continue;
      }
      // Search only where a header end can newly appear: the last 3 old bytes plus the new ones.
      const from = Math.max(0, header.length - 3);
      header = header.length === 0 ? rest : Buffer.concat([header, rest]);
      // What follows a complete header is the start of its body (no copy: a view of the same bytes).
      rest = takeHeaders(from) ?? Buffer.alloc(0);
    }
  };

  return {
    push(chunk) {
      feed(chunk);
    },
    end() {
      if (needed !== null) {
        // A cut frame is not a message.
        const bytes = body.length;
        const partial = body.overflow ? describeSkipped('a cut frame', bytes, maxBodyBytes) : body.take().toString('utf8');
        body.take();
        needed = null;
        stray(partial);
      }
      const rest = header.toString('utf8');
      header = Buffer.alloc(0);
      stray(rest.replace(/\r?\n?$/, ''));
    },
    pending: () => '',
    pendingStart: () => '',
    dropPending: () => undefined,
  };
}
