import { closeSync, readSync, type Stats } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { FileRefusal, openRegularFileSync } from '../platform/regular-file';

/**
 * Reads what a session file gained since the last import: complete lines only (a line the agent is still
 * writing is left for next time), from `offset` on. Opened without following a link and without blocking (a
 * FIFO or device is refused by its type, never waited on); nothing is written, moved or locked.
 */

/** Longest line read; a longer one is skipped with its reason (the rest of the file is still read). */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;
const CHUNK = 4 * 1024 * 1024;

/** The read buffer, shared by reads (a read is synchronous; one made while another runs gets its own). */
let spare: Buffer | null = null;
const takeChunkBuffer = (): Buffer => {
  const b = spare ?? Buffer.allocUnsafe(CHUNK);
  spare = null;
  return b;
};
const releaseChunkBuffer = (b: Buffer): void => {
  spare = b;
};

export class SkipFile extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

export interface LineSink {
  /** A complete line (newline removed) and its 1-based number in the file's new part; `invalidUtf8` when replaced. */
  line(text: string, lineNo: number, invalidUtf8: boolean): void;
  skip(reason: string): void;
}

/** Opens `path` for reading: a regular file, not a link, never blocking (FIFOs and devices are refused by type). */
function openSessionFile(path: string): { fd: number; st: Stats } {
  try {
    const { fd, info } = openRegularFileSync(path, { noFollow: true });
    return { fd, st: info };
  } catch (e) {
    if (e instanceof FileRefusal) throw new SkipFile(`not a session file: it ${e.message.slice(path.length + 1)}`);
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new SkipFile('a symbolic link (links in an agent store are not followed)');
    if (code === 'ENOENT') throw new SkipFile('gone before it could be read');
    if (code === 'EACCES' || code === 'EPERM') throw new SkipFile('not readable (permission denied)');
    throw new SkipFile(`could not be opened (${code ?? String(e)})`);
  }
}

/**
 * Reads the complete lines of `path` after `offset` (up to the size the file has when opened) into `sink`.
 * Returns the offset after the last complete line, and the file's identity. Throws SkipFile when the file
 * cannot be read as a session file.
 */
export function readNewLines(path: string, offset: number, sink: LineSink, shouldStop: () => boolean = () => false): FileIdentity & { offset: number } {
  const { fd, st } = openSessionFile(path);
  const buf = takeChunkBuffer();
  try {
    const size = st.size;
    let pos = offset;
    let consumed = offset;
    let carry: Buffer | null = null;
    let skipping = false;
    let lineNo = 0;
    /** A line read byte by byte (one that spans chunks, or one of a run that is not valid UTF-8). */
    const one = (bytes: Buffer, lineStart: number): void => {
      if (bytes.length > MAX_LINE_BYTES) sink.skip(`line ${lineNo} (at byte ${lineStart}) is ${(bytes.length / 1048576).toFixed(0)} MB, over the ${MAX_LINE_BYTES / 1048576} MB a line may have: skipped`);
      else if (bytes.length) sink.line(bytes.toString('utf8'), lineNo, !isUtf8(bytes));
    };
    /** Keeps what follows a chunk's last newline for the next chunk (or starts skipping a line over the limit). */
    const keepRest = (rest: Buffer): Buffer | null => {
      if (skipping) {
        consumed += rest.length;
        return null;
      }
      if (!rest.length) return carry;
      const total = (carry?.length ?? 0) + rest.length;
      if (total > MAX_LINE_BYTES) {
        sink.skip(`line ${lineNo + 1} (at byte ${consumed}) is over the ${MAX_LINE_BYTES / 1048576} MB a line may have: skipped`);
        consumed += total;
        skipping = true;
        return null;
      }
      return carry ? Buffer.concat([carry, rest]) : Buffer.from(rest);
    };
    // A line being skipped is passed to its end before stopping (the next read starts at a line's start).
    while (pos < size && (skipping || !shouldStop())) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
      if (n <= 0) break;
      pos += n;
      const chunk = buf.subarray(0, n);
      const firstNl = chunk.indexOf(10);
      if (firstNl < 0) {
        carry = keepRest(chunk);
        continue;
      }
      // The line the last chunk left unfinished ends here.
      const piece = chunk.subarray(0, firstNl);
      const lineStart = consumed;
      consumed += piece.length + 1 + (carry?.length ?? 0);
      lineNo++;
      if (skipping) skipping = false;
      else one(carry ? Buffer.concat([carry, piece]) : piece, lineStart);
      carry = null;
      // The chunk's other complete lines, decoded at once when they are valid UTF-8 (none can be too long: a chunk is shorter).
      const lastNl = chunk.lastIndexOf(10);
      if (lastNl > firstNl) {
        const run = chunk.subarray(firstNl + 1, lastNl);
        if (isUtf8(run)) {
          const lines = run.toString('utf8').split('\n');
          for (const text of lines) {
            lineNo++;
            if (text.length) sink.line(text, lineNo, false);
          }
        } else {
          let start = 0;
          for (;;) {
            const nl = run.indexOf(10, start);
            const end = nl < 0 ? run.length : nl;
            lineNo++;
            one(run.subarray(start, end), consumed + start);
            if (nl < 0) break;
            start = nl + 1;
          }
        }
        consumed += run.length + 1;
      }
      carry = keepRest(chunk.subarray(lastNl + 1));
    }
    // An unfinished last line stays unread (its writer is still at it); a skipped long line is passed.
    return { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, offset: skipping ? pos : consumed };
  } finally {
    closeSync(fd);
    releaseChunkBuffer(buf);
  }
}
