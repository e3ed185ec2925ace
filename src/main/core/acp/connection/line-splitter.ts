import { StringDecoder } from 'node:string_decoder';

/** One newline-delimited record from an agent's stdout. */
export type SplitItem =
  | { kind: 'line'; text: string }
  /** A line longer than the limit: dropped; only its size in bytes and its first characters are kept (for the log). */
  | { kind: 'oversized'; size: number; head: string };

const HEAD_CHARS = 4096;

/**
 * Splits a byte stream into lines with bounded memory. Each chunk is decoded once (UTF-8, a character
 * split across chunks is kept for the next one) and cut at newlines. A line over `maxLineBytes` is not
 * buffered: the splitter skips to the next newline and reports it as `oversized`, and the stream goes on.
 * (The SDK's own ndJsonStream errors the whole connection on an oversized message.)
 */
export class LineSplitter {
  // StringDecoder, not TextDecoder: the same decoding (a split character kept, bad bytes as U+FFFD), 3–4× faster.
  private readonly decoder = new StringDecoder('utf8');
  /** The current incomplete line. */
  private partial = '';
  private partialBytes = 0;
  /** Inside an oversized line: counting bytes until its newline. */
  private skipping: { size: number; head: string } | null = null;

  constructor(readonly maxLineBytes: number) {}

  /** Bytes held for the current incomplete line (never more than maxLineBytes). */
  get bufferedBytes(): number {
    return this.partialBytes;
  }

  push(chunk: Buffer, out: SplitItem[]): void {
    this.split(this.decoder.write(chunk), out);
  }

  /** The stream ended: a last line without newline still counts. */
  end(out: SplitItem[]): void {
    this.split(this.decoder.end(), out);
    if (this.skipping || this.partial.length > 0) this.endLine('', out);
  }

  private split(text: string, out: SplitItem[]): void {
    let start = 0;
    while (start < text.length) {
      const nl = text.indexOf('\n', start);
      const end = nl === -1 ? text.length : nl;
      const piece = text.slice(start, end);
      start = end + 1;
      if (this.skipping) {
        this.skipping.size += Buffer.byteLength(piece);
        if (nl !== -1) this.endLine('', out);
        continue;
      }
      // A line's bytes are at least its length and at most three times it (UTF-16 → UTF-8): count them
      // only when the limit is within reach.
      const room = this.maxLineBytes - this.partialBytes;
      const bytes = nl === -1 || piece.length * 3 > room ? Buffer.byteLength(piece) : piece.length;
      if (bytes > room) {
        this.skipping = { size: this.partialBytes + bytes, head: (this.partial + piece.slice(0, HEAD_CHARS)).slice(0, HEAD_CHARS) };
        this.partial = '';
        this.partialBytes = 0;
        if (nl !== -1) this.endLine('', out);
        continue;
      }
      if (nl === -1) {
        this.partial += piece;
        this.partialBytes += bytes;
      } else this.endLine(piece, out);
    }
  }

  private endLine(last: string, out: SplitItem[]): void {
    if (this.skipping) {
      out.push({ kind: 'oversized', size: this.skipping.size, head: this.skipping.head });
      this.skipping = null;
      return;
    }
    const text = this.partial.length > 0 ? this.partial + last : last;
    this.partial = '';
    this.partialBytes = 0;
    if (text.length > 0) out.push({ kind: 'line', text });
  }
}
