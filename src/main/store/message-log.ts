import type { Disposable } from '../core/lifecycle';
import { toDisposable } from '../core/lifecycle';
import type { Db } from './database';

export type Direction = 'c2a' | 'a2c';

const ROWS_PER_INSERT = 64;

export interface LogEntry {
  sessionId: string;
  direction: Direction;
  /** JSON-RPC method for requests and notifications; null for responses. */
  method: string | null;
  /** The message as it went over the wire (one JSON line, no newline). */
  body: string;
  ts?: number;
}

export interface PersistedMessage extends Required<LogEntry> {
  id: number;
  seq: number;
}

/** Runs inside the write transaction of each batch, so derived tables (search index…) never lag the log. */
export type BatchIndexer = (db: Db, batch: readonly PersistedMessage[]) => void;

/**
 * A producer of messages (an agent's stdout) that writes through the log's shared transaction: its
 * entries are collected when the log flushes, and it is told once they are committed (or failed).
 */
export interface LogSource {
  collect(): LogEntry[];
  /** `stored` has one row per collected entry, in order; null when the transaction failed (`error`). */
  committed(stored: PersistedMessage[] | null, error: unknown): void;
}

export interface MessageLogOptions {
  /**
   * Under load, commits are at least this far apart: every agent's messages of that window go in one
   * transaction (a commit costs the same for one message as for hundreds). The first write after a quiet
   * spell is committed on the next tick.
   */
  groupMs?: number;
}

/**
 * The ordered log of every ACP message of every session. Appends are grouped into one transaction per
 * tick (tens of thousands of messages a second), and a promise resolves only once its message is committed:
 * callers tell the renderer after that, so what the user saw is always in the store.
 */
export class MessageLog implements Disposable {
  private readonly pending: Array<{ entry: LogEntry; resolve: (m: PersistedMessage) => void; reject: (e: unknown) => void }> = [];
  private readonly sources = new Set<LogSource>();
  private readonly lastSeq = new Map<string, number>();
  private readonly indexers = new Set<BatchIndexer>();
  private scheduled: { kind: 'immediate'; handle: NodeJS.Immediate } | { kind: 'timeout'; handle: NodeJS.Timeout } | null = null;
  private lastFlush = Number.NEGATIVE_INFINITY;
  private readonly groupMs: number;
  /** Prepared multi-row INSERTs by row count: one statement call writes up to ROWS_PER_INSERT messages. */
  private readonly inserts = new Map<number, ReturnType<Db['prepare']>>();
  private readonly maxSeq;

  constructor(
    private readonly db: Db,
    options: MessageLogOptions = {},
  ) {
    this.groupMs = options.groupMs ?? 0;
    this.maxSeq = db.prepare('SELECT coalesce(max(seq), 0) AS seq FROM acp_messages WHERE session_id = ?');
  }

  addIndexer(indexer: BatchIndexer): Disposable {
    this.indexers.add(indexer);
    return toDisposable(() => void this.indexers.delete(indexer));
  }

  append(entry: LogEntry): Promise<PersistedMessage> {
    return new Promise((resolve, reject) => {
      this.pending.push({ entry, resolve, reject });
      this.schedule();
    });
  }

  /** `source` has entries to write: they go in the next transaction. */
  schedule(source?: LogSource): void {
    if (source) this.sources.add(source);
    if (this.scheduled) return;
    const wait = this.lastFlush + this.groupMs - performance.now();
    this.scheduled =
      wait <= 0 ? { kind: 'immediate', handle: setImmediate(() => this.flush()) } : { kind: 'timeout', handle: setTimeout(() => this.flush(), wait) };
  }

  /** Writes everything queued now (appends first, then every scheduled source's entries), in one transaction. */
  flush(): void {
    if (this.scheduled?.kind === 'immediate') clearImmediate(this.scheduled.handle);
    else if (this.scheduled) clearTimeout(this.scheduled.handle);
    this.scheduled = null;
    const items = this.pending.splice(0);
    const sources = [...this.sources];
    this.sources.clear();
    if (items.length === 0 && sources.length === 0) return;
    this.lastFlush = performance.now();
    const collected = sources.map((s) => s.collect());
    const entries = items.map((i) => i.entry);
    for (const c of collected) for (const e of c) entries.push(e);
    let stored: PersistedMessage[] | null = null;
    let error: unknown = null;
    try {
      stored = entries.length > 0 ? this.writeBatch(entries) : [];
    } catch (e) {
      error = e;
    }
    items.forEach((item, i) => (stored ? item.resolve(stored[i]!) : item.reject(error)));
    let at = items.length;
    sources.forEach((source, i) => {
      const n = collected[i]!.length;
      source.committed(stored ? stored.slice(at, at + n) : null, error);
      at += n;
    });
  }

  /** Synchronous append of a batch (tests, imports). */
  appendMany(entries: readonly LogEntry[]): PersistedMessage[] {
    this.flush();
    return this.writeBatch(entries);
  }

  private nextSeq(sessionId: string): number {
    let seq = this.lastSeq.get(sessionId);
    if (seq === undefined) seq = (this.maxSeq.get(sessionId) as { seq: number }).seq;
    seq += 1;
    this.lastSeq.set(sessionId, seq);
    return seq;
  }

  private insertOf(rows: number): ReturnType<Db['prepare']> {
    let stmt = this.inserts.get(rows);
    if (!stmt) {
      const values = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?)').join(', ');
      stmt = this.db.prepare(`INSERT INTO acp_messages (session_id, seq, ts, direction, method, body) VALUES ${values}`);
      this.inserts.set(rows, stmt);
    }
    return stmt;
  }

  private writeBatch(entries: readonly LogEntry[]): PersistedMessage[] {
    const seqBefore = new Map(this.lastSeq);
    try {
      return this.db.transaction(() => {
        const out: PersistedMessage[] = [];
        for (let start = 0; start < entries.length; start += ROWS_PER_INSERT) {
          const slice = entries.slice(start, start + ROWS_PER_INSERT);
          const params: unknown[] = [];
          const rows: Array<Omit<PersistedMessage, 'id'>> = [];
          for (const e of slice) {
            const row = { ...e, ts: e.ts ?? Date.now(), seq: this.nextSeq(e.sessionId) };
            rows.push(row);
            params.push(row.sessionId, row.seq, row.ts, row.direction, row.method, row.body);
          }
          // Rows inserted by one statement get consecutive rowids (max(rowid) + 1 onwards) ending at lastInsertRowid.
          const last = Number(this.insertOf(slice.length).run(params).lastInsertRowid);
          rows.forEach((row, i) => out.push({ ...row, id: last - rows.length + 1 + i }));
        }
        for (const indexer of this.indexers) indexer(this.db, out);
        return out;
      })();
    } catch (e) {
      // The transaction rolled back: so must our sequence counters.
      this.lastSeq.clear();
      for (const [k, v] of seqBefore) this.lastSeq.set(k, v);
      throw e;
    }
  }

  read(sessionId: string, options: { afterSeq?: number; limit?: number } = {}): PersistedMessage[] {
    const rows = this.db
      .prepare(
        'SELECT id, session_id AS sessionId, seq, ts, direction, method, body FROM acp_messages WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?',
      )
      .all(sessionId, options.afterSeq ?? 0, options.limit ?? -1) as PersistedMessage[];
    return rows;
  }

  /** Forget cached sequence numbers of a session (after it was deleted). */
  forget(sessionId: string): void {
    this.lastSeq.delete(sessionId);
  }

  dispose(): void {
    this.flush();
  }
}
