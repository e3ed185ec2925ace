import type { Db } from './database';
import type { MessageRow } from './message-log';

const BATCH = 256;

/**
 * A start-up repair of message log rows, while history_meta holds `key` (a migration adds it; its value is the
 * last row id done): `select` (its `?` the id to go on after) picks the rows, `fix` rewrites one. In batches,
 * each in its transaction with its progress: a stop loses nothing and the next start goes on. False when there
 * was nothing to do (no `key`).
 */
export function repairInBatches(db: Db, key: string, select: string, fix: (row: MessageRow) => void): boolean {
  const progress = db.prepare('SELECT value FROM history_meta WHERE key = ?').get(key) as { value: number } | undefined;
  if (progress === undefined) return false;
  const next = db.prepare(`${select} ORDER BY id LIMIT ${BATCH}`);
  const setProgress = db.prepare('UPDATE history_meta SET value = ? WHERE key = ?');
  let after = progress.value;
  for (;;) {
    const rows = next.all(after) as MessageRow[];
    if (rows.length === 0) break;
    db.transaction(() => {
      for (const r of rows) fix(r);
      after = rows.at(-1)!.id;
      setProgress.run(after, key);
    })();
  }
  db.prepare('DELETE FROM history_meta WHERE key = ?').run(key);
  return true;
}
