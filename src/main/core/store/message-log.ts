import type { Clock, TimerHandle } from '../base/clock';
import type { Disposable } from '../base/lifecycle';
import { toDisposable } from '../base/lifecycle';
import { compress, decompress, StoreDataError, type Compression } from './compression';
import type { Db } from './database';

export type Direction = 'c2a' | 'a2c';

const ROWS_PER_INSERT = 64;
/** Most messages one row holds (see `n` in migrations/0006), packed or compressed. */
export const MAX_PACKED = 512;
/** A block holds a run of a session's messages up to this many characters (or MAX_PACKED messages). */
export const BLOCK_CHARS = 64 * 1024;
/** Packed rows start at most this many sequence numbers before a message they hold. */
const PACK_SPAN = MAX_PACKED - 1;

/**
 * A row of acp_messages as selected by readers (`n` messages; see expandRows): plain TEXT (one message, or a
 * packed run of session/update lines), or a compressed block (BLOB) of any messages (see encodeBlock).
 */
export interface MessageRow {
  id: number;
  sessionId: string;
  seq: number;
  n: number;
  ts: number;
  direction: Direction;
  method: string | null;
  body: string | Uint8Array;
}

/** The columns readers select, in MessageRow's names. */
export const MESSAGE_COLUMNS = 'id, session_id AS sessionId, seq, n, ts, direction, method, body';

/**
 * A time as the log stores it: whole ms since the epoch (a fraction, which some stores' file times have, is rounded;
 * a time that is not a number is `fallback`'s).
 */
export function storedTime(ts: number | undefined, fallback: () => number = Date.now): number {
  return ts !== undefined && Number.isFinite(ts) ? Math.round(ts) : fallback();
}

/** Rows → the messages they hold, in order (a packed row's lines share its id and ts). */
export function expandRows(rows: readonly MessageRow[]): PersistedMessage[] {
  const out: PersistedMessage[] = [];
  for (const r of rows) {
    if (typeof r.body !== 'string') {
      decodeBlock(r, out);
      continue;
    }
    // (Rows written before times were whole ms may hold a fraction.)
    const ts = Math.round(r.ts);
    if (r.n === 1) {
      out.push({ id: r.id, sessionId: r.sessionId, seq: r.seq, ts, direction: r.direction, method: r.method, body: r.body });
      continue;
    }
    const lines = r.body.split('\n');
    for (let i = 0; i < lines.length; i++) out.push({ id: r.id, sessionId: r.sessionId, seq: r.seq + i, ts, direction: r.direction, method: r.method, body: lines[i]! });
  }
  return out;
}

/** A message of a block: `ts` relative to the block row's. */
export interface BlockMessage {
  ts: number;
  direction: Direction;
  method: string | null;
  body: string;
}

/** Bytes a block is written into before it is compressed (grown for a larger block; a block holds up to BLOCK_CHARS, or one longer message). */
let scratch = Buffer.allocUnsafe(256 * 1024);

/**
 * A block's messages as one compressed value: per message a header line `<ts - ts0> <0|1 direction>
 * <method length, -1 for none> <body length>` then the method and the body, lengths in UTF-16 units (any
 * text is safe: nothing is escaped or split on). Times are whole ms (storedTime): the block's row holds `ts0` so.
 */
export function encodeBlock(messages: readonly BlockMessage[], ts0: number, level?: Compression): Buffer {
  const base = storedTime(ts0, () => 0);
  // At most 3 bytes of UTF-8 per UTF-16 unit, and a header of a few dozen.
  let most = 0;
  for (const m of messages) most += 64 + 3 * (m.body.length + (m.method?.length ?? 0));
  if (most > scratch.length) scratch = Buffer.allocUnsafe(Math.max(most, scratch.length * 2));
  let at = 0;
  for (const m of messages) {
    at += scratch.write(`${storedTime(m.ts, () => base) - base} ${m.direction === 'a2c' ? 1 : 0} ${m.method === null ? -1 : m.method.length} ${m.body.length}\n`, at, 'latin1');
    if (m.method !== null) at += scratch.write(m.method, at);
    at += scratch.write(m.body, at);
  }
  return compress(scratch.subarray(0, at), level);
}

/** Decodes a block row's messages into `out`; false if a time in it had to be rounded (see time-repair.ts). */
export function decodeBlock(r: MessageRow, out: PersistedMessage[]): boolean {
  let exact = Number.isInteger(r.ts);
  const what = `message log block ${r.id} (session ${r.sessionId}, messages ${r.seq}–${r.seq + r.n - 1})`;
  const s = decompress(r.body as Uint8Array, what);
  let at = 0;
  for (let i = 0; i < r.n; i++) {
    const nl = s.indexOf('\n', at);
    const h = nl < 0 ? [] : s.slice(at, nl).split(' ').map(Number);
    const [dts, dir, methodLen, bodyLen] = h;
    // A time with a fraction (blocks written before times were whole ms) is read, rounded.
    if (h.length !== 4 || !Number.isFinite(dts) || !h.slice(1).every(Number.isInteger) || methodLen! < -1 || bodyLen! < 0 || nl + 1 + Math.max(0, methodLen!) + bodyLen! > s.length) {
      throw new StoreDataError(`${what} is damaged (message ${i + 1} of ${r.n} cannot be read)`);
    }
    if (!Number.isInteger(dts)) exact = false;
    at = nl + 1;
    const method = methodLen === -1 ? null : s.slice(at, (at += methodLen!));
    const body = s.slice(at, (at += bodyLen!));
    out.push({ id: r.id, sessionId: r.sessionId, seq: r.seq + i, ts: Math.round(r.ts + dts!), direction: dir === 1 ? 'a2c' : 'c2a', method, body });
  }
  if (at !== s.length) throw new StoreDataError(`${what} is damaged (it holds more than its ${r.n} messages)`);
  return exact;
}

/** Every message of a session after `afterSeq`, in order. */
export function readMessages(db: Db, sessionId: string, afterSeq = 0): PersistedMessage[] {
  const rows = db.prepare(`SELECT ${MESSAGE_COLUMNS} FROM acp_messages WHERE session_id = ? AND seq > ? ORDER BY seq`).all(sessionId, afterSeq - PACK_SPAN) as MessageRow[];
  return expandRows(rows).filter((m) => m.seq > afterSeq);
}

/** The same, streamed (a long session's messages are not all held at once). */
export function* iterateMessages(db: Db, sessionId: string): Generator<PersistedMessage> {
  const rows = db.prepare(`SELECT ${MESSAGE_COLUMNS} FROM acp_messages WHERE session_id = ? ORDER BY seq`).iterate(sessionId) as IterableIterator<MessageRow>;
  for (const r of rows) yield* expandRows([r]);
}

const packable = (e: LogEntry): boolean => e.direction === 'a2c' && e.method === 'session/update' && !e.body.includes('\n');

export interface LogEntry {
  sessionId: string;
  direction: Direction;
  /** JSON-RPC method for requests and notifications; null for responses. */
  method: string | null;
  /** The message as it went over the wire (one JSON line, no newline). */
  body: string;
  ts?: number;
  /** `body` already parsed, when the writer has it (read-only: indexers use it instead of parsing again). */
  parsed?: unknown;
}

export interface PersistedMessage extends Required<Omit<LogEntry, 'parsed'>> {
  parsed?: unknown;
  id: number;
  seq: number;
}

/**
 * Runs inside the write transaction of each batch, so derived tables (search index…) never lag the log.
 * `messages` gives the batch's messages (a batch of compressed blocks is decoded only if they are asked for).
 */
export type BatchIndexer = (db: Db, messages: () => readonly PersistedMessage[]) => void;

/** A run of one session's messages already encoded as one block (encodeBlock), written as one row. */
export interface EncodedBlock {
  /** Messages in it (at most MAX_PACKED). */
  n: number;
  /** The first message's time (the block's times are relative to it), direction and method. */
  ts: number;
  direction: Direction;
  method: string | null;
  body: Uint8Array;
}

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
  /** The group window's time and timer (default: monotonic time, so a change of the wall clock cannot hold writes back). */
  clock?: Pick<Clock, 'now' | 'setTimeout'>;
  /** Most messages one row may hold (default MAX_PACKED; 1 stores a row per message). */
  maxPacked?: number;
}

const monotonicClock: Pick<Clock, 'now' | 'setTimeout'> = {
  now: () => performance.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(t) };
  },
};

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
  private scheduled: { kind: 'immediate'; handle: NodeJS.Immediate } | { kind: 'timeout'; handle: TimerHandle } | null = null;
  private lastFlush = Number.NEGATIVE_INFINITY;
  private readonly groupMs: number;
  private readonly clock: Pick<Clock, 'now' | 'setTimeout'>;
  private readonly maxPacked: number;
  /** Prepared multi-row INSERTs by row count: one statement call writes up to ROWS_PER_INSERT messages. */
  private readonly inserts = new Map<number, ReturnType<Db['prepare']>>();
  private readonly maxSeq;
  private readonly touch;

  constructor(
    private readonly db: Db,
    options: MessageLogOptions = {},
  ) {
    this.groupMs = options.groupMs ?? 0;
    this.clock = options.clock ?? monotonicClock;
    this.maxPacked = Math.max(1, Math.min(MAX_PACKED, options.maxPacked ?? MAX_PACKED));
    this.maxSeq = db.prepare('SELECT seq + n - 1 AS seq FROM acp_messages WHERE session_id = ? ORDER BY seq DESC LIMIT 1');
    this.touch = db.prepare('INSERT INTO store_compaction (session_id, touched_at) VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET touched_at = excluded.touched_at');
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

  /**
   * `source` has entries to write: they go in the next transaction. `full`: the source holds as much as it
   * reads ahead, so the transaction is not put off to group more.
   */
  schedule(source?: LogSource, full = false): void {
    if (source) this.sources.add(source);
    if (this.scheduled?.kind === 'timeout' && full) {
      this.scheduled.handle.cancel();
      this.scheduled = null;
    }
    if (this.scheduled) return;
    const wait = full ? 0 : this.lastFlush + this.groupMs - this.clock.now();
    this.scheduled =
      wait <= 0 ? { kind: 'immediate', handle: setImmediate(() => this.flush()) } : { kind: 'timeout', handle: this.clock.setTimeout(() => this.flush(), wait) };
  }

  /** Writes everything queued now (appends first, then every scheduled source's entries), in one transaction. */
  flush(): void {
    if (this.scheduled?.kind === 'immediate') clearImmediate(this.scheduled.handle);
    else if (this.scheduled) this.scheduled.handle.cancel();
    this.scheduled = null;
    const items = this.pending.splice(0);
    const sources = [...this.sources];
    this.sources.clear();
    if (items.length === 0 && sources.length === 0) return;
    this.lastFlush = this.clock.now();
    const collected = sources.map((s) => {
      try {
        return s.collect();
      } catch (e) {
        // One producer's bug must not cost the others their messages (or their turn to be told).
        console.error('message log: a source failed to collect its messages:', e);
        return [];
      }
    });
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

  /** The first of the next `n` sequence numbers of a session, taken. */
  private nextSeq(sessionId: string, n = 1): number {
    let seq = this.lastSeq.get(sessionId);
    if (seq === undefined) seq = (this.maxSeq.get(sessionId) as { seq: number } | undefined)?.seq ?? 0;
    this.lastSeq.set(sessionId, seq + n);
    return seq + 1;
  }

  /** Inserts rows (ROWS_PER_INSERT per statement at most; `params`: 7 per row); returns the first row's id (ids are consecutive). */
  private insertRows(params: unknown[]): number {
    const rows = params.length / 7;
    // Rows inserted by one statement get consecutive rowids (max(rowid) + 1 onwards) ending at lastInsertRowid.
    return Number(this.insertOf(rows).run(params).lastInsertRowid) - rows + 1;
  }

  /**
   * Appends one session's messages already encoded as compressed blocks, a row each (a large import writes
   * what the store packer would otherwise make of its rows later), in one transaction. The indexers decode them
   * only if they look at them (a bulk import is indexed in one pass after it).
   */
  appendBlocks(sessionId: string, blocks: readonly EncodedBlock[]): void {
    this.flush();
    if (blocks.length === 0) return;
    const before = this.lastSeq.get(sessionId);
    try {
      this.db.transaction(() => {
        const rows: MessageRow[] = [];
        for (let i = 0; i < blocks.length; i += ROWS_PER_INSERT) {
          const params: unknown[] = [];
          const part = blocks.slice(i, i + ROWS_PER_INSERT).map((b): MessageRow => {
            if (b.n < 1 || b.n > MAX_PACKED) throw new Error(`a block of ${b.n} messages cannot be stored (1 to ${MAX_PACKED})`);
            // (encodeBlock wrote its times relative to the block's, rounded so.)
            const row: MessageRow = { id: 0, sessionId, seq: this.nextSeq(sessionId, b.n), n: b.n, ts: storedTime(b.ts, () => 0), direction: b.direction, method: b.method, body: b.body };
            params.push(sessionId, row.seq, row.n, row.ts, row.direction, row.method, row.body);
            return row;
          });
          const first = this.insertRows(params);
          part.forEach((r, k) => (r.id = first + k));
          rows.push(...part);
        }
        this.touch.run(sessionId, Date.now());
        let messages: PersistedMessage[] | null = null;
        const decoded = (): PersistedMessage[] => (messages ??= expandRows(rows));
        for (const indexer of this.indexers) indexer(this.db, decoded);
      })();
    } catch (e) {
      if (before === undefined) this.lastSeq.delete(sessionId);
      else this.lastSeq.set(sessionId, before);
      throw e;
    }
  }

  private insertOf(rows: number): ReturnType<Db['prepare']> {
    let stmt = this.inserts.get(rows);
    if (!stmt) {
      const values = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?)').join(', ');
      stmt = this.db.prepare(`INSERT INTO acp_messages (session_id, seq, n, ts, direction, method, body) VALUES ${values}`);
      this.inserts.set(rows, stmt);
    }
    return stmt;
  }

  /**
   * One transaction: consecutive session/update notifications of one session become one row (up to
   * MAX_PACKED), everything else a row each; then the indexers see every message.
   */
  private writeBatch(entries: readonly LogEntry[]): PersistedMessage[] {
    // The sessions written, with their counters before (only theirs: copying every session's counter made each
    // batch cost as much as the number of sessions ever written).
    const seqBefore = new Map<string, number | undefined>();
    for (const e of entries) if (!seqBefore.has(e.sessionId)) seqBefore.set(e.sessionId, this.lastSeq.get(e.sessionId));
    try {
      return this.db.transaction(() => {
        const out: PersistedMessage[] = [];
        let params: unknown[] = [];
        /** Messages of each row of the pending statement (their ids are set once the rows are in). */
        let rows: PersistedMessage[][] = [];
        const insert = () => {
          if (rows.length === 0) return;
          const first = this.insertRows(params);
          rows.forEach((msgs, i) => {
            for (const m of msgs) {
              m.id = first + i;
              out.push(m);
            }
          });
          params = [];
          rows = [];
        };
        for (let i = 0; i < entries.length; ) {
          const first = entries[i]!;
          let end = i + 1;
          if (packable(first)) {
            // (A row holds one time: messages given times of their own, an import's, are packed only with the same time.)
            while (end < entries.length && end - i < this.maxPacked && entries[end]!.sessionId === first.sessionId && entries[end]!.ts === first.ts && packable(entries[end]!)) end++;
          }
          const ts = storedTime(first.ts);
          const msgs: PersistedMessage[] = [];
          for (let k = i; k < end; k++) {
            const e = entries[k]!;
            const m: PersistedMessage = { id: 0, sessionId: e.sessionId, direction: e.direction, method: e.method, body: e.body, ts, seq: this.nextSeq(e.sessionId) };
            if (e.parsed !== undefined) m.parsed = e.parsed;
            msgs.push(m);
          }
          const body = end - i === 1 ? first.body : msgs.map((m) => m.body).join('\n');
          params.push(first.sessionId, msgs[0]!.seq, msgs.length, ts, first.direction, first.method, body);
          rows.push(msgs);
          if (rows.length === ROWS_PER_INSERT) insert();
          i = end;
        }
        insert();
        // The sessions written are packed once they are quiet (store-packer.ts).
        const now = Date.now();
        for (const sessionId of seqBefore.keys()) this.touch.run(sessionId, now);
        for (const indexer of this.indexers) indexer(this.db, () => out);
        return out;
      })();
    } catch (e) {
      // The transaction rolled back: so must our sequence counters.
      for (const [k, v] of seqBefore) {
        if (v === undefined) this.lastSeq.delete(k);
        else this.lastSeq.set(k, v);
      }
      throw e;
    }
  }

  read(sessionId: string, options: { afterSeq?: number } = {}): PersistedMessage[] {
    return readMessages(this.db, sessionId, options.afterSeq ?? 0);
  }

  /** Forget cached sequence numbers of a session (after it was deleted). */
  forget(sessionId: string): void {
    this.lastSeq.delete(sessionId);
  }

  dispose(): void {
    this.flush();
  }
}
