import { prepared, type Db } from './database';
import { BLOCK_CHARS, encodeBlock, expandRows, MAX_PACKED, MESSAGE_COLUMNS, storedTime, type MessageRow } from './message-log';
/** A row alone is compressed only from this size on (below it the header costs more than it saves). */
const MIN_SINGLE = 256;

export interface PackingResult {
  /** Messages now held in blocks written by this call. */
  messages: number;
  blocks: number;
  /** Characters of the messages compressed, and the bytes of the blocks that hold them. */
  charsIn: number;
  bytesOut: number;
}

/**
 * Rewrites a session's plain rows (ids up to `throughId`: what the history index has seen) as compressed
 * blocks of consecutive rows, each block taking the place (and id) of its first row. With `tail` false a
 * run shorter than a full block is left for later (the session is still being written). Call inside a
 * transaction.
 */
export function packSessionLog(db: Db, sessionId: string, throughId: number, { tail = true, level = 6 } = {}): PackingResult {
  const result: PackingResult = { messages: 0, blocks: 0, charsIn: 0, bytesOut: 0 };
  // Blocks are not read (only where they are: they end a run).
  const rows = prepared(
    db,
    `SELECT ${MESSAGE_COLUMNS.replace('body', "CASE WHEN typeof(body) = 'text' THEN body END AS body")} FROM acp_messages WHERE session_id = ? ORDER BY seq`,
  ).all(sessionId) as Array<Omit<MessageRow, 'body'> & { body: string | null }>;
  const update = prepared(db, 'UPDATE acp_messages SET n = ?, ts = ?, body = ? WHERE id = ?');
  const remove = prepared(db, 'DELETE FROM acp_messages WHERE id = ?');
  let run: MessageRow[] = [];
  let runMessages = 0;
  let runChars = 0;
  const write = (full: boolean): void => {
    if (run.length === 0) return;
    const first = run[0]!;
    const worth = run.length > 1 || (first.body as string).length >= MIN_SINGLE;
    if ((full || tail) && worth) {
      const messages = expandRows(run);
      // (The block's row holds its time as its messages' are relative to it: whole ms.)
      const ts = storedTime(first.ts);
      const block = encodeBlock(messages, ts, level);
      for (let i = 1; i < run.length; i++) remove.run(run[i]!.id);
      update.run(messages.length, ts, block, first.id);
      result.messages += messages.length;
      result.blocks++;
      result.charsIn += runChars;
      result.bytesOut += block.length;
    }
    run = [];
    runMessages = 0;
    runChars = 0;
  };
  for (const r of rows) {
    if (r.body === null || r.id > throughId) {
      write(false);
      continue;
    }
    if (runMessages + r.n > MAX_PACKED) write(true);
    run.push(r as MessageRow);
    runMessages += r.n;
    runChars += r.body.length;
    if (runChars >= BLOCK_CHARS || runMessages === MAX_PACKED) write(true);
  }
  write(false);
  return result;
}
