import { compress } from '../store/compression';
import { prepared, type Db } from '../store/database';
import { packSessionLog } from '../store/log-packing';

/** Entry texts shorter than this stay plain (compressing them saves little and costs a read). */
const MIN_ENTRY_CHARS = 200;
/** Pages handed back to the file system per step (a step must stay short: it runs between requests). */
const VACUUM_PAGES = 4096;

export interface PackingStep {
  sessions: number;
  messages: number;
  /** Sessions still queued (quiet or not). */
  remaining: number;
}

/** An entry's text or detail as stored: compressed when long enough for that to pay. */
export function packed<T extends string | Uint8Array | null>(v: T, level = 6): T | Buffer {
  if (typeof v !== 'string' || v.length < MIN_ENTRY_CHARS) return v;
  const z = compress(v, level);
  return z.length < Buffer.byteLength(v) ? z : v;
}

/** Compresses the long text and detail of a session's history entries (draftFromRow reads them back). */
export function packEntries(db: Db, sessionId: string, level = 6): number {
  const rows = prepared(
    db,
    `SELECT id, text, detail FROM history_entries WHERE session_id = ?
         AND ((typeof(text) = 'text' AND length(text) >= ${MIN_ENTRY_CHARS}) OR (typeof(detail) = 'text' AND length(detail) >= ${MIN_ENTRY_CHARS}))`,
  ).all(sessionId) as Array<{ id: number; text: string | Uint8Array | null; detail: string | Uint8Array | null }>;
  const update = prepared(db, 'UPDATE history_entries SET text = ?, detail = ? WHERE id = ?');
  let n = 0;
  for (const r of rows) {
    const text = packed(r.text, level);
    const detail = packed(r.detail, level);
    if (text === r.text && detail === r.detail) continue;
    update.run(text, detail, r.id);
    n++;
  }
  return n;
}

/**
 * Drains store_compaction (migrations/0013): each session quiet for `quietMs` has its indexed log rows
 * turned into compressed blocks and its entries' long texts compressed, in one transaction that also takes it
 * off the queue (unless it was written meanwhile), so stopping at any point loses nothing.
 */
export class StorePacker {
  private readonly next;
  private readonly done;
  private readonly count;

  constructor(
    readonly db: Db,
    private readonly quietMs = 30_000,
  ) {
    this.next = prepared(db, 'SELECT session_id AS sessionId, touched_at AS touchedAt FROM store_compaction WHERE touched_at <= ? ORDER BY touched_at LIMIT 16');
    this.done = prepared(db, 'DELETE FROM store_compaction WHERE session_id = ? AND touched_at = ?');
    this.count = prepared(db, 'SELECT count(*) AS n FROM store_compaction');
  }

  get remaining(): number {
    return (this.count.get() as { n: number }).n;
  }

  /** Packs quiet sessions for about `budgetMs`; `indexedThrough`: the last log row the history index has seen. */
  step(indexedThrough: number, budgetMs = 20, now = Date.now()): PackingStep {
    const started = performance.now();
    const out: PackingStep = { sessions: 0, messages: 0, remaining: 0 };
    while (performance.now() - started < budgetMs) {
      const queued = this.next.all(now - this.quietMs) as Array<{ sessionId: string; touchedAt: number }>;
      if (queued.length === 0) break;
      for (const q of queued) {
        this.db.transaction(() => {
          out.messages += packSessionLog(this.db, q.sessionId, indexedThrough).messages;
          packEntries(this.db, q.sessionId);
          this.done.run(q.sessionId, q.touchedAt);
        })();
        out.sessions++;
        if (performance.now() - started >= budgetMs) break;
      }
    }
    if (out.sessions > 0) this.vacuum();
    out.remaining = this.remaining;
    return out;
  }

  /** Hands freed pages back to the file system (stores created with auto_vacuum = INCREMENTAL). */
  vacuum(pages = VACUUM_PAGES): void {
    if (this.db.pragma('auto_vacuum', { simple: true }) === 2) this.db.pragma(`incremental_vacuum(${pages})`);
  }
}
