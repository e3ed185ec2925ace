import type { Db } from './database';
import { repairInBatches } from './batched-repair';
import { decodeBlock, encodeBlock, MESSAGE_COLUMNS, type PersistedMessage } from './message-log';

/** history_meta's key while blocks are left to repair (its value: the last row id done). See migrations/0021. */
const KEY = 'integer_times_repair';

export interface TimeRepair {
  /** Block rows read, and those rewritten with whole-ms times. */
  blocks: number;
  rewritten: number;
  /** Blocks that cannot be read (real damage): left as they are, for the reader to report. */
  unreadable: number;
}

/**
 * The start-up repair of stores written before every stored time was whole ms (issue 36): each message log block
 * that holds a time with a fraction (in its row or its headers) is written again with the same messages at the
 * same times, rounded. Fractions came only from imported sessions (the session files' times) or show in the row,
 * so only those blocks are read.
 */
export function repairStoreTimes(db: Db): TimeRepair {
  const out: TimeRepair = { blocks: 0, rewritten: 0, unreadable: 0 };
  const update = db.prepare('UPDATE acp_messages SET ts = ?, body = ? WHERE id = ?');
  const select = `SELECT ${MESSAGE_COLUMNS} FROM acp_messages WHERE id > ? AND typeof(body) = 'blob'
       AND (typeof(ts) = 'real' OR session_id IN (SELECT id FROM sessions WHERE imported_from IS NOT NULL))`;
  repairInBatches(db, KEY, select, (r) => {
    out.blocks++;
    const messages: PersistedMessage[] = [];
    let exact: boolean;
    try {
      exact = decodeBlock(r, messages);
    } catch {
      out.unreadable++;
      return;
    }
    if (exact) return;
    const ts = Math.round(r.ts);
    // The same format as before (its first byte: 2 is the fast one).
    update.run(ts, encodeBlock(messages, ts, (r.body as Uint8Array)[0] === 2 ? 'fast' : 6), r.id);
    out.rewritten++;
  });
  return out;
}
