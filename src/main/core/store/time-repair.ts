import type { Db } from './database';
import { decodeBlock, encodeBlock, MESSAGE_COLUMNS, type MessageRow, type PersistedMessage } from './message-log';

/** history_meta's key while blocks are left to repair (its value: the last row id done). See migrations/0021. */
const KEY = 'integer_times_repair';
const BATCH = 256;

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
 * so only those blocks are read. In batches, each in its transaction with its progress: a stop loses nothing and
 * the next start goes on.
 */
export function repairStoreTimes(db: Db): TimeRepair {
  const out: TimeRepair = { blocks: 0, rewritten: 0, unreadable: 0 };
  const progress = db.prepare('SELECT value FROM history_meta WHERE key = ?');
  if (progress.get(KEY) === undefined) return out;
  const next = db.prepare(
    `SELECT ${MESSAGE_COLUMNS} FROM acp_messages WHERE id > ? AND typeof(body) = 'blob'
       AND (typeof(ts) = 'real' OR session_id IN (SELECT id FROM sessions WHERE imported_from IS NOT NULL)) ORDER BY id LIMIT ${BATCH}`,
  );
  const update = db.prepare('UPDATE acp_messages SET ts = ?, body = ? WHERE id = ?');
  const setProgress = db.prepare('UPDATE history_meta SET value = ? WHERE key = ?');
  let after = (progress.get(KEY) as { value: number }).value;
  for (;;) {
    const rows = next.all(after) as MessageRow[];
    if (rows.length === 0) break;
    db.transaction(() => {
      for (const r of rows) {
        out.blocks++;
        const messages: PersistedMessage[] = [];
        let exact: boolean;
        try {
          exact = decodeBlock(r, messages);
        } catch {
          out.unreadable++;
          continue;
        }
        if (exact) continue;
        const ts = Math.round(r.ts);
        // The same format as before (its first byte: 2 is the fast one).
        const body = encodeBlock(messages, ts, (r.body as Uint8Array)[0] === 2 ? 'fast' : 6);
        update.run(ts, body, r.id);
        out.rewritten++;
      }
      after = rows.at(-1)!.id;
      setProgress.run(after, KEY);
    })();
  }
  db.prepare('DELETE FROM history_meta WHERE key = ?').run(KEY);
  return out;
}
