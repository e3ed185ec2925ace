/** One newline-delimited record from an agent's stdout. */
export type SplitItem =
  | { kind: 'line'; bytes: Buffer }
  /** A line longer than the limit: dropped; only its size and first bytes are kept (for the log). */
  | { kind: 'oversized'; size: number; head: Buffer };

const NEWLINE = 0x0a;
const HEAD_BYTES = 4096;

/**
 * Splits a byte stream into lines with bounded memory. A line over `maxLineBytes` is not buffered: the
 * splitter skips to the next newline and reports it as `oversized`, and the stream goes on. (The SDK's
 * own ndJsonStream errors the whole connection on an oversized message.)
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private partBytes = 0;
  /** Inside an oversized line: counting bytes until its newline. */
  private skipping: { size: number; head: Buffer } | null = null;

  constructor(readonly maxLineBytes: number) {}

  /** Bytes held for the current incomplete line (never more than maxLineBytes). */
  get bufferedBytes(): number {
    return this.partBytes;
  }

  push(chunk: Buffer, out: SplitItem[]): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (this.skipping) {
        this.skipping.size += piece.length;
      } else if (this.partBytes + piece.length > this.maxLineBytes) {
        const head = Buffer.concat([...this.parts, piece.subarray(0, HEAD_BYTES)]).subarray(0, HEAD_BYTES);
        this.skipping = { size: this.partBytes + piece.length, head: Buffer.from(head) };
        this.parts = [];
        this.partBytes = 0;
      } else if (piece.length > 0) {
        // Copy only what must outlive this chunk (an incomplete line); complete lines are views.
        if (nl === -1) this.parts.push(Buffer.from(piece));
        else this.parts.push(piece);
        this.partBytes += piece.length;
      }
      if (nl === -1) break;
      this.endLine(out);
      start = nl + 1;
    }
  }

  /** The stream ended: a last line without newline still counts. */
  end(out: SplitItem[]): void {
    if (this.skipping || this.partBytes > 0) this.endLine(out);
  }

  private endLine(out: SplitItem[]): void {
    if (this.skipping) {
      out.push({ kind: 'oversized', size: this.skipping.size, head: this.skipping.head });
      this.skipping = null;
      return;
    }
    if (this.partBytes === 0) {
      this.parts = [];
      return;
    }
    const bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.partBytes);
    this.parts = [];
    this.partBytes = 0;
    out.push({ kind: 'line', bytes });
  }
}
