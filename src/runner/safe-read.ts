// Reading a file the repository chose, without letting it choose what the read does. A `package.json`,
// `pnpm-workspace.yaml` or `.gitignore` may be a FIFO (an open that blocks until a writer comes, i.e.
// forever), a committed symbolic link to `/dev/stdin` or `/dev/zero` (a read that never ends), or a
// regular file of hundreds of megabytes. Every such read here opens without blocking, looks at what it
// opened (fstat: the thing actually opened, not a name that may have changed since), and reads only a
// regular file no larger than the cap.
import { constants, fstatSync, openSync, closeSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';

/** Why a file was not read: it does not exist (or cannot be opened), is not a regular file, or is too large. */
export type SafeReadResult = { kind: 'ok'; bytes: Buffer } | { kind: 'missing'; code: string } | { kind: 'refused'; reason: string };

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

function describeSize(bytes: number): string {
  return bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(bytes >= 10_000_000 ? 0 : 1)} MB` : `${bytes.toLocaleString('en-US')} bytes`;
}

/** What the open file's stat says: null to read it, else why not (the same in both readers below). */
function refuseByStat(stats: { isFile(): boolean; size: number }, maxBytes: number): SafeReadResult | null {
  if (!stats.isFile()) return { kind: 'refused', reason: 'is not a regular file (a FIFO, device or socket); not read' };
  if (stats.size > maxBytes) return { kind: 'refused', reason: `is ${describeSize(stats.size)}, over the ${describeSize(maxBytes)} limit; not read` };
  return null;
}

/** Room for at most maxBytes + 1 whatever the size said: a file growing meanwhile is caught too. */
function allocateBounded(size: number, maxBytes: number): Buffer {
  return Buffer.alloc(Math.min(size, maxBytes) + 1);
}

/** What `length` bytes read into that buffer give. */
function boundedResult(buffer: Buffer, length: number, maxBytes: number): SafeReadResult {
  return length > maxBytes ? { kind: 'refused', reason: `is over the ${describeSize(maxBytes)} limit; not read` } : { kind: 'ok', bytes: buffer.subarray(0, length) };
}

/** Reads `path` when it is a regular file of at most `maxBytes` (symbolic links followed, FIFOs and devices never read). */
export async function readRegularFile(path: string, maxBytes: number): Promise<SafeReadResult> {
  let handle;
  try {
    handle = await open(path, OPEN_FLAGS);
  } catch (err) {
    return { kind: 'missing', code: (err as NodeJS.ErrnoException).code ?? 'EIO' };
  }
  try {
    const stats = await handle.stat();
    const refused = refuseByStat(stats, maxBytes);
    if (refused) return refused;
    const buffer = allocateBounded(stats.size, maxBytes);
    let length = 0;
    for (let read = -1; read !== 0 && length < buffer.length; length += read) {
      read = (await handle.read(buffer, length, buffer.length - length, length)).bytesRead;
    }
    return boundedResult(buffer, length, maxBytes);
  } catch (err) {
    return { kind: 'missing', code: (err as NodeJS.ErrnoException).code ?? 'EIO' };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** readRegularFile, synchronously (the scan's per-file reads are synchronous on purpose). */
export function readRegularFileSync(path: string, maxBytes: number): SafeReadResult {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (err) {
    return { kind: 'missing', code: (err as NodeJS.ErrnoException).code ?? 'EIO' };
  }
  try {
    const stats = fstatSync(fd);
    const refused = refuseByStat(stats, maxBytes);
    if (refused) return refused;
    const buffer = allocateBounded(stats.size, maxBytes);
    let length = 0;
    for (let read = -1; read !== 0 && length < buffer.length; length += read) {
      read = readSync(fd, buffer, length, buffer.length - length, length);
    }
    return boundedResult(buffer, length, maxBytes);
  } catch (err) {
    return { kind: 'missing', code: (err as NodeJS.ErrnoException).code ?? 'EIO' };
  } finally {
    closeSync(fd);
  }
}
