import { closeSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { openRegularFileSync } from '../platform/regular-file';

/** Most bytes read of a file to tell whether it holds a conversation (a file longer than that is taken to). */
const MAX_READ = 8 * 1024 * 1024;
const CHUNK = 64 * 1024;

/**
 * Whether a JSON Lines session file holds a conversation: `isMessage` accepts one of its records. Read from the
 * start, a chunk at a time, until a record says so (a conversation's first message comes early; a file without
 * one is small). A file that cannot be read counts (its import then says why).
 */
export function jsonlHasConversation(path: string, isMessage: (record: unknown) => boolean): boolean {
  let fd: number;
  try {
    // Not blocking on a FIFO, not following a link put there since the listing.
    fd = openRegularFileSync(path, { noFollow: true }).fd;
  } catch {
    return true;
  }
  try {
    const buf = Buffer.alloc(CHUNK);
    const decoder = new StringDecoder('utf8');
    let pending = '';
    let read = 0;
    for (;;) {
      if (read >= MAX_READ) return true;
      const n = readSync(fd, buf, 0, CHUNK, read);
      read += n;
      const lines = (pending + (n === 0 ? decoder.end() : decoder.write(buf.subarray(0, n)))).split('\n');
      // At the end of the file its last line is whole; else it continues in the next chunk.
      pending = n === 0 ? '' : lines.pop()!;
      for (const line of lines) {
        if (!line.trim()) continue;
        let record: unknown;
        try {
          record = JSON.parse(line);
        } catch {
          continue;
        }
        if (isMessage(record)) return true;
      }
      if (n === 0) return false;
    }
  } catch {
    return true;
  } finally {
    closeSync(fd);
  }
}
