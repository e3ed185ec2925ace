import type { Statement } from 'better-sqlite3';
import { storedText } from '../store/compression';
import { packed } from './store-packer';
import type { Db } from '../store/database';
import { expandRows, iterateMessages, MESSAGE_COLUMNS, type MessageRow, type PersistedMessage } from '../store/message-log';
import { currentDetail } from './legacy-detail';
import { draftText, facetsOf, indexedColumns, INDEX_CAPS, newSessionState, type Caps, type Draft, type SessionState, type StoredKind } from './entry-drafts';
import { SessionFold, type LoggedMessage } from './session-fold';
import { KnownRefs } from './known-refs';
import { HistoryRows, newDraft, type HistoryBackend, type NewDraft } from './thread-rows';

/** Entry texts longer than this are stored plain when written and compressed by the store packer later. */
const PACK_NOW_MAX_CHARS = 64 * 1024;

interface EntryRow {
  id: number;
  session_id: string;
  seq: number;
  last_seq: number;
  ts: number;
  turn: number;
  kind: StoredKind;
  failed: number;
  ref: string | null;
  /** TEXT, or compressed (store/compression.ts) once the session was packed. */
  text: string | Uint8Array | null;
  detail: string | Uint8Array | null;
}

interface StateRow {
  session_id: string;
  custom_title: string | null;
  info_title: string | null;
  prompt_title: string | null;
  first_ts: number | null;
  last_ts: number | null;
  message_count: number;
  entry_count: number;
  turn_count: number;
  tool_call_count: number;
  failed_tool_calls: number;
  files_touched: number;
  files_edited: number;
  failed_turns: number;
  last_stop_reason: string | null;
  turn: number;
  turn_start_seq: number;
  open_entry_id: number | null;
  open_kind: string | null;
  open_message_id: string | null;
  replay: number;
}

const stateFromRow = (r: StateRow): SessionState => ({
  sessionId: r.session_id,
  customTitle: r.custom_title,
  infoTitle: r.info_title,
  promptTitle: r.prompt_title,
  firstTs: r.first_ts,
  lastTs: r.last_ts,
  messageCount: r.message_count,
  entryCount: r.entry_count,
  turnCount: r.turn_count,
  toolCallCount: r.tool_call_count,
  failedToolCalls: r.failed_tool_calls,
  filesTouched: r.files_touched,
  filesEdited: r.files_edited,
  failedTurns: r.failed_turns,
  lastStopReason: r.last_stop_reason,
  turn: r.turn,
  turnStartSeq: r.turn_start_seq,
  openEntryId: r.open_entry_id,
  openKind: r.open_kind,
  openMessageId: r.open_message_id,
  replay: r.replay === 1 ? 1 : r.replay === 2 ? 2 : 0,
});

export type { EntryRow };

export const draftFromRow = (r: EntryRow): Draft => {
  const text = storedText(r.text, `history entry ${r.id}`) ?? '';
  const detail = storedText(r.detail, `history entry ${r.id}`);
  return {
    id: r.id,
    sessionId: r.session_id,
    seq: r.seq,
    lastSeq: r.last_seq,
    ts: r.ts,
    turn: r.turn,
    kind: r.kind,
    failed: r.failed === 1,
    ref: r.ref,
    parts: [text],
    textLength: text.length,
    detail: detail === null ? null : currentDetail(JSON.parse(detail) as unknown, r.ref),
  };
};

type Columns = { body: string; paths: string; facets: string };

/**
 * The FTS index being filled again from the stored entries (migration 0013 recreated it): entries with ids in
 * (through, end] have no row yet. Writers leave those to the rebuild, which goes in id order.
 */
interface FtsRebuild {
  through: number;
  end: number;
}

interface Tracked {
  draft: Draft;
  isNew: boolean;
  /**
   * What the FTS row was built from: the columns, or for a plain-text entry (message chunks, whose columns
   * follow from its text and failed flag) just its length and flag, so loading a 16 KB open message
   * to append a chunk does not tokenize it. Null for new drafts.
   */
  stored: Columns | string | null;
  dirty: boolean;
}

/**
 * An open message entry whose FTS row lags its text: message chunks arrive hundreds of times a second, and
 * re-indexing a growing entry on every batch costs a full tokenization each time (O(size) per chunk). Its
 * row is refreshed at most every LAG_MS while it grows, as soon as it closes or its turn ends, before every
 * search, and at start-up after a crash (history_fts_lag persists the list in the same transactions).
 */
interface Lag {
  sessionId: string;
  /** When the FTS row was last written (or the entry created). */
  since: number;
  /** Whether the entry has an FTS row at all. */
  indexed: boolean;
}

export const FTS_LAG_MS = 1000;
/** Sessions whose fold stays in memory between batches. */
const MAX_FOLDS = 64;

/** Refs of 'changes' entries start with this (a range of the history_entries_by_ref index). */
export const CHANGES_REF = 'changes:';

const signature = (d: Draft): string => `${d.textLength}:${d.failed ? 1 : 0}`;

/** One transaction's worth of rows and session summaries over the SQLite tables; written back by flush(). */
class DbBatch implements HistoryBackend {
  readonly caps: Caps;
  private readonly states = new Map<string, SessionState>();
  private readonly sessions = new Map<string, { agentId: string; cwd: string }>();
  private readonly drafts = new Map<number, Tracked>();
  private readonly byRef = new Map<string, number>();
  private readonly files = new Map<string, boolean>();
  /** Sessions whose turn ended in this batch: their lagging entries are indexed now. */
  private readonly ended = new Set<string>();
  private nextId: number;

  constructor(
    private readonly s: Statements,
    caps: Caps,
    private readonly lag: Map<number, Lag>,
    private readonly ftsRebuild: FtsRebuild | null = null,
    private readonly plainEntries = false,
    /** A bulk write (an import): its sessions are queued for the store packer, which packs their log rows. */
    private readonly packLater = false,
    private readonly known: KnownRefs | null = null,
  ) {
    this.caps = caps;
    this.nextId = (s.maxEntryId.get() as { id: number }).id + 1;
  }

  turnEnded(sessionId: string): void {
    this.ended.add(sessionId);
  }

  state(sessionId: string): SessionState {
    let st = this.states.get(sessionId);
    if (!st) {
      const row = this.s.selState.get(sessionId) as StateRow | undefined;
      st = row ? stateFromRow(row) : newSessionState(sessionId);
      if (!row && this.known && !this.s.lastEntry.get(sessionId)) this.known.start(sessionId);
      this.states.set(sessionId, st);
    }
    return st;
  }

  private track(row: EntryRow): Tracked {
    const existing = this.drafts.get(row.id);
    if (existing) return existing;
    const draft = draftFromRow(row);
    const t: Tracked = { draft, isNew: false, stored: draft.detail === null ? signature(draft) : this.columns(draft), dirty: false };
    this.drafts.set(row.id, t);
    return t;
  }

  private load(id: number): Tracked | undefined {
    const row = this.s.selEntry.get(id) as EntryRow | undefined;
    return row ? this.track(row) : undefined;
  }

  entry(id: number): Draft | undefined {
    return (this.drafts.get(id) ?? this.load(id))?.draft;
  }

  find(sessionId: string, kind: StoredKind, ref: string): Draft | undefined {
    const key = `${sessionId}\0${kind}\0${ref}`;
    const id = this.byRef.get(key);
    if (id !== undefined) return this.drafts.get(id)?.draft;
    const known = this.known?.find(sessionId, kind, ref);
    if (known !== undefined) return known === null ? undefined : this.entry(known);
    const row = this.s.findEntry.get(sessionId, ref, kind) as EntryRow | undefined;
    if (!row) return undefined;
    this.byRef.set(key, row.id);
    return this.track(row).draft;
  }

  create(init: NewDraft): Draft {
    const draft = newDraft(init, this.nextId++);
    this.drafts.set(draft.id, { draft, isNew: true, stored: null, dirty: true });
    if (init.ref !== null) this.byRef.set(`${init.sessionId}\0${init.kind}\0${init.ref}`, draft.id);
    if (init.ref !== null) this.known?.add(init.sessionId, init.kind, init.ref, draft.id);
    return draft;
  }

  changed(d: Draft): void {
    const t = this.drafts.get(d.id);
    if (t) t.dirty = true;
  }

  private session(sessionId: string): { agentId: string; cwd: string } {
    let info = this.sessions.get(sessionId);
    if (!info) {
      info = (this.s.selSession.get(sessionId) as { agentId: string; cwd: string } | undefined) ?? { agentId: '', cwd: '' };
      this.sessions.set(sessionId, info);
    }
    return info;
  }

  private columns(d: Draft): Columns {
    return { ...indexedColumns(d, this.caps), facets: facetsOf(d, this.session(d.sessionId)) };
  }

  /** Indexes lagging entries this batch closed, whose turn ended, or whose row is FTS_LAG_MS old at `now`. */
  flushLag(now: number): void {
    for (const [id, lag] of this.lag) {
      const st = this.states.get(lag.sessionId);
      const closed = st !== undefined && st.openEntryId !== id;
      if (!closed && !this.ended.has(lag.sessionId) && now - lag.since < FTS_LAG_MS) continue;
      const t = this.drafts.get(id) ?? this.load(id);
      if (t) this.reindex(t, lag);
      else {
        this.lag.delete(id);
        this.s.lagDel.run(id);
      }
    }
  }

  private isOpen(d: Draft): boolean {
    return this.states.get(d.sessionId)?.openEntryId === d.id;
  }

  /** Writes a lagging entry's FTS row from its current text. */
  private reindex(t: Tracked, lag: Lag): void {
    const d = t.draft;
    const cols = this.columns(d);
    if (lag.indexed) this.s.ftsDel.run(d.id);
    this.s.ftsIns.run(d.id, cols.body, cols.paths, cols.facets);
    t.stored = d.detail === null ? signature(d) : cols;
    this.lag.delete(d.id);
    this.s.lagDel.run(d.id);
  }

  /** Writes the FTS row of a stored entry (after the FTS index was emptied). */
  indexAgain(row: EntryRow): void {
    const t = this.track(row);
    const cols = this.columns(t.draft);
    this.s.ftsIns.run(row.id, cols.body, cols.paths, cols.facets);
  }

  markFailed(sessionId: string, fromSeq: number): void {
    // Re-indexed with the failed facet at flush.
    for (const { id } of this.s.turnEntries.all(sessionId, fromSeq) as { id: number }[]) this.entry(id);
    for (const t of this.drafts.values()) {
      if (t.draft.sessionId === sessionId && t.draft.seq >= fromSeq && !t.draft.failed && t.draft.kind !== 'title' && t.draft.kind !== 'changes') {
        t.draft.failed = true;
        t.dirty = true;
      }
    }
  }

  addFile(sessionId: string, path: string, edited: boolean, seq: number): { added: boolean; nowEdited: boolean } {
    const key = `${sessionId}\0${path}`;
    const known = this.files.get(key);
    if (known === true || (known === false && !edited)) return { added: false, nowEdited: false };
    const added = this.s.fileIns.run(sessionId, path, edited ? 1 : 0, seq).changes > 0;
    let nowEdited = added && edited;
    if (!added && edited) nowEdited = this.s.fileEdit.run(sessionId, path).changes > 0;
    this.files.set(key, edited);
    return { added, nowEdited };
  }

  /** Writes new and changed entries (in id order, so rowid order stays chronological) and session states. */
  flush(now = Date.now()): void {
    const s = this.s;
    const list = [...this.drafts.values()].filter((t) => t.dirty).sort((a, b) => a.draft.id - b.draft.id);
    for (const t of list) {
      const d = t.draft;
      // Stored compressed from the start (a row that shrinks in place leaves its page half empty), except the
      // text of a message still being streamed, which grows with every chunk, and a very long text, whose
      // compression would hold up the events of this batch (both packed once their session is quiet).
      const pack = (v: string) => (this.plainEntries || v.length > PACK_NOW_MAX_CHARS ? v : packed(v));
      const text = d.detail === null ? (this.isOpen(d) ? draftText(d) : pack(draftText(d))) : null;
      const detail = d.detail === null ? null : pack(JSON.stringify(d.detail));
      if (t.isNew) s.insEntry.run(d.id, d.sessionId, d.seq, d.lastSeq, d.ts, d.turn, d.kind, d.failed ? 1 : 0, d.ref, text, detail);
      else s.updEntry.run(d.lastSeq, d.failed ? 1 : 0, text, detail, d.id);
      const wasNew = t.isNew;
      t.isNew = false;
      t.dirty = false;
      // Its FTS row is written when the rebuild gets to it.
      if (this.ftsRebuild && d.id > this.ftsRebuild.through && d.id <= this.ftsRebuild.end) continue;
      const lag = this.lag.get(d.id);
      if (d.detail === null && this.isOpen(d) && !this.ended.has(d.sessionId)) {
        if (!lag) {
          this.lag.set(d.id, { sessionId: d.sessionId, since: now, indexed: !wasNew });
          s.lagIns.run(d.id);
          continue;
        }
        if (now - lag.since < FTS_LAG_MS) continue;
      }
      if (lag) {
        this.reindex(t, lag);
        continue;
      }
      const cols = this.columns(d);
      if (wasNew) s.ftsIns.run(d.id, cols.body, cols.paths, cols.facets);
      else if (typeof t.stored === 'string' ? t.stored !== signature(d) : t.stored?.body !== cols.body || t.stored.paths !== cols.paths || t.stored.facets !== cols.facets) {
        s.ftsDel.run(d.id);
        s.ftsIns.run(d.id, cols.body, cols.paths, cols.facets);
      }
      t.stored = d.detail === null ? signature(d) : cols;
    }
    this.flushLag(now);
    if (this.packLater) for (const sessionId of new Set(list.map((t) => t.draft.sessionId))) s.queuePacking.run(sessionId, now);
    for (const st of this.states.values()) {
      s.putState.run({
        session_id: st.sessionId,
        custom_title: st.customTitle,
        info_title: st.infoTitle,
        prompt_title: st.promptTitle,
        first_ts: st.firstTs,
        last_ts: st.lastTs,
        message_count: st.messageCount,
        entry_count: st.entryCount,
        turn_count: st.turnCount,
        tool_call_count: st.toolCallCount,
        failed_tool_calls: st.failedToolCalls,
        files_touched: st.filesTouched,
        files_edited: st.filesEdited,
        failed_turns: st.failedTurns,
        last_stop_reason: st.lastStopReason,
        turn: st.turn,
        turn_start_seq: st.turnStartSeq,
        open_entry_id: st.openEntryId,
        open_kind: st.openKind,
        open_message_id: st.openMessageId,
        replay: st.replay,
      });
    }
  }
}

type Statements = ReturnType<typeof prepare>;

/**
 * The entries whose index rows lag, read at start. CROSS JOIN: the lag (a few rows, usually none) is the outer loop;
 * without statistics SQLite would rather scan every entry and look each one up in it (0.3 s at start over ten
 * million events).
 */
export const LAG_ALL_SQL = 'SELECT l.entry_id AS id, e.session_id AS sessionId FROM history_fts_lag l CROSS JOIN history_entries e ON e.id = l.entry_id';

function prepare(db: Db) {
  const stateCols = [
    'session_id', 'custom_title', 'info_title', 'prompt_title', 'first_ts', 'last_ts', 'message_count', 'entry_count',
    'turn_count', 'tool_call_count', 'failed_tool_calls', 'files_touched', 'files_edited', 'failed_turns',
    'last_stop_reason', 'turn', 'turn_start_seq', 'open_entry_id', 'open_kind', 'open_message_id', 'replay',
  ];
  const st = (sql: string): Statement => db.prepare(sql);
  return {
    maxEntryId: st('SELECT coalesce(max(id), 0) AS id FROM history_entries'),
    selState: st('SELECT * FROM history_sessions WHERE session_id = ?'),
    putState: st(
      `INSERT INTO history_sessions (${stateCols.join(', ')}) VALUES (${stateCols.map((c) => `@${c}`).join(', ')})
       ON CONFLICT (session_id) DO UPDATE SET ${stateCols.slice(1).map((c) => `${c} = excluded.${c}`).join(', ')}`,
    ),
    selEntry: st('SELECT * FROM history_entries WHERE id = ?'),
    findEntry: st('SELECT * FROM history_entries WHERE session_id = ? AND ref = ? AND kind = ? ORDER BY id DESC LIMIT 1'),
    insEntry: st(
      'INSERT INTO history_entries (id, session_id, seq, last_seq, ts, turn, kind, failed, ref, text, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    updEntry: st('UPDATE history_entries SET last_seq = ?, failed = ?, text = ?, detail = ? WHERE id = ?'),
    ftsIns: st('INSERT INTO history_fts (rowid, body, paths, facets) VALUES (?, ?, ?, ?)'),
    ftsDel: st('DELETE FROM history_fts WHERE rowid = ?'),
    lagIns: st('INSERT OR IGNORE INTO history_fts_lag (entry_id) VALUES (?)'),
    lagDel: st('DELETE FROM history_fts_lag WHERE entry_id = ?'),
    queuePacking: st('INSERT INTO store_compaction (session_id, touched_at) VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET touched_at = max(touched_at, excluded.touched_at)'),
    lagAll: st(LAG_ALL_SQL),
    turnEntries: st("SELECT id FROM history_entries WHERE session_id = ? AND seq >= ? AND failed = 0 AND kind NOT IN ('title', 'changes')"),
    // From the end: the turn just recorded is the session's latest (at most one prompt falls in its window).
    promptIn: st("SELECT seq, turn FROM history_entries WHERE session_id = ? AND kind = 'prompt' AND ts >= ? AND ts < ? ORDER BY seq DESC LIMIT 1"),
    lastEntry: st('SELECT seq, turn FROM history_entries WHERE session_id = ? ORDER BY seq DESC LIMIT 1'),
    changesEntries: st("SELECT * FROM history_entries WHERE kind = 'changes'"),
    selSession: st('SELECT agent_id AS agentId, cwd FROM sessions WHERE id = ?'),
    fileIns: st('INSERT OR IGNORE INTO history_files (session_id, path, edited, seq) VALUES (?, ?, ?, ?)'),
    fileEdit: st('UPDATE history_files SET edited = 1 WHERE session_id = ? AND path = ? AND edited = 0'),
    watermark: st("SELECT value FROM history_meta WHERE key = 'indexed_through'"),
    setWatermark: st("UPDATE history_meta SET value = max(value, ?) WHERE key = 'indexed_through'"),
    resetWatermark: st("UPDATE history_meta SET value = ? WHERE key = 'indexed_through'"),
    messagesAfter: st(`SELECT ${MESSAGE_COLUMNS} FROM acp_messages WHERE id > ? ORDER BY id LIMIT ?`),
    messagesBetween: st(`SELECT ${MESSAGE_COLUMNS} FROM acp_messages WHERE id > ? AND id < ? ORDER BY id`),
    countAfter: st('SELECT coalesce(sum(n), 0) AS n FROM acp_messages WHERE id > ?'),
    metaGet: st('SELECT value FROM history_meta WHERE key = ?'),
    metaSet: st('INSERT INTO history_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    metaDel: st('DELETE FROM history_meta WHERE key = ?'),
    entriesRange: st('SELECT * FROM history_entries WHERE id > ? AND id <= ? ORDER BY id LIMIT ?'),
  };
}

type IndexedMessage = LoggedMessage & { id: number };

/**
 * The search index over the message log. `indexBatch` runs inside the log's write transaction (through
 * MessageLog.addIndexer), so entries, FTS rows and session summaries commit with the messages they come from.
 * Messages written before the index existed (or while it was off) are indexed by `catchUp`, in order, before
 * live indexing resumes; the watermark in history_meta says how far it got.
 */
export class HistoryIndex {
  private readonly s: Statements;
  private liveMode = false;
  private readonly lag = new Map<number, Lag>();
  /**
   * Each session's thread as the shared model folds it (what can still change), most recently used last;
   * a session not here is folded again from its log when its next message comes.
   */
  private readonly folds = new Map<string, SessionFold>();
  private lastFolded: string | null = null;
  private lagTimer: ReturnType<typeof setTimeout> | null = null;
  /** Whether history_fts_lag may hold rows this map does not know (start-up after a crash, a failed batch). */
  private lagUnknown = true;
  private readonly ftsRebuild: FtsRebuild | null;
  /** A bulk write is being caught up with: the sessions it indexes are queued for the store packer (DbBatch's packLater). */
  private bulk = false;
  /** Sessions whose every entry this catch-up wrote: their refs are looked up here. */
  private readonly known = new KnownRefs();

  constructor(
    readonly db: Db,
    private readonly caps: Caps = INDEX_CAPS,
    /** Store entry texts uncompressed, as before migration 0013 (benchmarks and tests of the migration). */
    private readonly plainEntries = false,
  ) {
    this.s = prepare(db);
    const through = this.s.metaGet.get('fts_rebuild_through') as { value: number } | undefined;
    const end = this.s.metaGet.get('fts_rebuild_end') as { value: number } | undefined;
    this.ftsRebuild = through && end ? { through: through.value, end: end.value } : null;
  }

  /** About how many entries the FTS rebuild has still to index (ids are dense: counting them would cost a scan). */
  get ftsPending(): number {
    const r = this.ftsRebuild;
    return r && r.through < r.end ? r.end - r.through : 0;
  }

  /** Writes the FTS rows of up to `chunk` entries awaiting the rebuild, in one transaction. True when none are left. */
  private rebuildFts(chunk: number): boolean {
    const r = this.ftsRebuild;
    if (!r) return true;
    this.db.transaction(() => {
      const rows = this.s.entriesRange.all(r.through, r.end, chunk) as EntryRow[];
      const batch = new DbBatch(this.s, this.caps, this.lag, null, this.plainEntries);
      for (const row of rows) batch.indexAgain(row);
      r.through = rows.length < chunk ? r.end : rows.at(-1)!.id;
      if (r.through >= r.end) {
        this.s.metaDel.run('fts_rebuild_through');
        this.s.metaDel.run('fts_rebuild_end');
      } else this.s.metaSet.run('fts_rebuild_through', r.through);
    })();
    return r.through >= r.end;
  }

  /** The fold of a session, up to date with its log before `seq`. */
  private readonly fold = (sessionId: string, seq: number): SessionFold => {
    let f = this.folds.get(sessionId);
    if (f && f.lastSeq === seq - 1 && sessionId === this.lastFolded) return f;
    this.lastFolded = sessionId;
    this.folds.delete(sessionId);
    if (!f || f.lastSeq !== seq - 1) {
      f = new SessionFold();
      // A session's first message has nothing before it to fold (every session of an import starts so).
      const before = seq > 1 ? iterateMessages(this.db, sessionId) : [];
      for (const m of before) {
        if (m.seq >= seq) break;
        try {
          f.apply(m, null);
        } catch {
          // A message the index skipped (it could not be indexed) is skipped here too.
          f.lastSeq = m.seq;
        }
      }
    }
    this.folds.set(sessionId, f);
    if (this.folds.size > MAX_FOLDS) this.folds.delete(this.folds.keys().next().value!);
    return f;
  };

  /**
   * Stops indexing batches as they are written (a bulk write: an import): what is written meanwhile is
   * indexed by catchUp, in order, which makes the index live again once it is done.
   */
  pause(): void {
    this.liveMode = false;
    this.bulk = true;
  }

  /** True once every message in the log is indexed and new batches are indexed as they are written. */
  get live(): boolean {
    return this.liveMode;
  }

  get watermark(): number {
    return (this.s.watermark.get() as { value: number } | undefined)?.value ?? 0;
  }

  /** pendingMessages counts the entries the FTS rebuild has still to index too. */
  status(): { done: boolean; pendingMessages: number } {
    const pending = (this.s.countAfter.get(this.watermark) as { n: number }).n + this.ftsPending;
    return { done: pending === 0, pendingMessages: pending };
  }

  /** Applies messages (in log order) to the index. Call inside a transaction. */
  private apply(messages: readonly IndexedMessage[]): void {
    if (messages.length === 0) return;
    const batch = new DbBatch(this.s, this.caps, this.lag, this.ftsRebuild, this.plainEntries, this.bulk, this.liveMode ? null : this.known);
    const rows = new HistoryRows(batch, this.fold);
    let max = 0;
    try {
      rows.applyAll(messages);
      for (const m of messages) if (m.id > max) max = m.id;
      batch.flush();
      this.s.setWatermark.run(max);
    } catch (e) {
      // The folds (and known refs) may be ahead of what commits: they are rebuilt from the log.
      this.folds.clear();
      this.known.clear();
      throw e;
    }
    if (this.lag.size > 0) this.scheduleLag();
  }

  private scheduleLag(): void {
    if (this.lagTimer) return;
    this.lagTimer = setTimeout(() => {
      this.lagTimer = null;
      // The connection was closed under us (a restored backup, shutdown): start-up indexes what is left.
      if (!this.db.open) return;
      try {
        this.indexLagging(false);
      } catch (e) {
        console.error('history index: could not index open entries:', e);
      }
      if (this.lag.size > 0) this.scheduleLag();
    }, FTS_LAG_MS);
    this.lagTimer.unref?.();
  }

  /**
   * Brings FTS rows of open entries up to date: those lagging FTS_LAG_MS or more, or all of them (`all`:
   * before a search, at shutdown, at start-up for rows a crash left in history_fts_lag).
   */
  indexLagging(all = true): void {
    if (!this.lagUnknown && this.lag.size === 0) return;
    this.db.transaction(() => {
      if (this.lagUnknown) {
        for (const r of this.s.lagAll.all() as Array<{ id: number; sessionId: string }>) {
          if (!this.lag.has(r.id)) this.lag.set(r.id, { sessionId: r.sessionId, since: 0, indexed: true });
        }
        this.lagUnknown = false;
      }
      const batch = new DbBatch(this.s, this.caps, this.lag, this.ftsRebuild, this.plainEntries);
      batch.flushLag(all ? Number.POSITIVE_INFINITY : Date.now());
    })();
  }

  dispose(): void {
    if (this.lagTimer) clearTimeout(this.lagTimer);
    this.lagTimer = null;
    try {
      this.indexLagging();
    } catch {
      /* the store is closing or broken: start-up re-indexes what history_fts_lag lists */
    }
  }

  /**
   * The MessageLog indexer. A failure here must never lose the messages: indexing runs in a savepoint, and
   * on error the index falls back to catch-up mode (retried later) while the messages still commit.
   */
  readonly indexer = (_db: Db, messages: () => readonly PersistedMessage[]): void => {
    if (!this.liveMode) return;
    const batch = messages();
    if (batch.length === 0) return;
    try {
      this.db.transaction(() => {
        const first = batch[0]!.id;
        const wm = this.watermark;
        // Rows written by another writer since the last batch come first.
        const gap = wm < first - 1 ? expandRows(this.s.messagesBetween.all(wm, first) as MessageRow[]) : [];
        this.apply(gap.length ? [...gap, ...batch] : batch);
      })();
    } catch (e) {
      this.liveMode = false;
      this.folds.clear();
      this.lag.clear();
      this.lagUnknown = true;
      console.error('history index: a batch could not be indexed; will catch up later:', e);
    }
  };

  /** The next rows the index has not seen, holding about `chunk` messages (a row holds many: a packed run, a block). */
  private rowsAfterWatermark(chunk: number): MessageRow[] {
    const rows: MessageRow[] = [];
    let messages = 0;
    for (const r of this.s.messagesAfter.iterate(this.watermark, chunk) as IterableIterator<MessageRow>) {
      rows.push(r);
      if ((messages += r.n) >= chunk) break;
    }
    return rows;
  }

  /**
   * Indexes messages the index has not seen, about `chunk` per transaction, up to `maxChunks` transactions.
   * Returns true when the index is complete (and live from then on). A message that cannot be indexed while
   * others can (a poison message) is skipped; when nothing can be indexed (a broken store), it throws and
   * the watermark stays, to be retried later.
   */
  catchUp(chunk = 2000, maxChunks = Number.POSITIVE_INFINITY): boolean {
    try {
      return this.catchUpChunks(chunk, maxChunks);
    } catch (e) {
      // (A transaction that did not commit.)
      this.known.clear();
      throw e;
    }
  }

  private catchUpChunks(chunk: number, maxChunks: number): boolean {
    if (this.lagUnknown) this.indexLagging();
    let i = 0;
    for (; i < maxChunks && this.ftsRebuild && this.ftsRebuild.through < this.ftsRebuild.end; i++) this.rebuildFts(chunk);
    for (; i < maxChunks; i++) {
      const done = this.db.transaction(() => {
        const rows = this.rowsAfterWatermark(chunk);
        if (rows.length === 0) {
          this.liveMode = true;
          this.bulk = false;
          this.known.clear();
          return true;
        }
        try {
          this.db.transaction(() => this.apply(expandRows(rows)))();
          return false;
        } catch (e) {
          this.lag.clear();
          this.lagUnknown = true;
          console.error('history index: a chunk failed; indexing it message by message:', e);
        }
        let failures = 0;
        let lastError: unknown;
        for (const row of rows) {
          try {
            this.db.transaction(() => this.apply(expandRows([row])))();
          } catch (e) {
            failures++;
            lastError = e;
            if (failures === rows.length) break;
            console.error(`history index: skipping message ${row.id}:`, e);
            this.s.setWatermark.run(row.id);
          }
        }
        if (failures === rows.length) throw lastError;
        return false;
      })();
      if (done) return true;
    }
    return false;
  }

  /**
   * Drops every derived row and indexes the whole log again (recovery; also checks the FTS index); with
   * `now` false the indexing is left to catchUp (in slices, off the start-up path).
   */
  rebuild(now = true): void {
    this.liveMode = false;
    this.folds.clear();
    this.known.clear();
    this.db.transaction(() => {
      this.db.exec('DELETE FROM history_files');
      // Changed files come from checkpoints, not from the log: kept (and indexed again below).
      this.db.exec("DELETE FROM history_entries WHERE kind <> 'changes'");
      // Keep the user's titles; recompute everything else.
      this.db.exec(
        'DELETE FROM history_sessions WHERE custom_title IS NULL; UPDATE history_sessions SET info_title = NULL, prompt_title = NULL, first_ts = NULL, last_ts = NULL, message_count = 0, entry_count = 0, turn_count = 0, tool_call_count = 0, failed_tool_calls = 0, files_touched = 0, files_edited = 0, failed_turns = 0, last_stop_reason = NULL, turn = 0, turn_start_seq = 0, open_entry_id = NULL, open_kind = NULL, open_message_id = NULL, replay = 0',
      );
      this.db.exec("INSERT INTO history_fts (history_fts) VALUES ('delete-all')");
      if (this.ftsRebuild) {
        this.ftsRebuild.through = this.ftsRebuild.end;
        this.s.metaDel.run('fts_rebuild_through');
        this.s.metaDel.run('fts_rebuild_end');
      }
      const batch = new DbBatch(this.s, this.caps, this.lag, this.ftsRebuild, this.plainEntries);
      for (const row of this.s.changesEntries.all() as EntryRow[]) batch.indexAgain(row);
      this.lag.clear();
      this.s.resetWatermark.run(0);
    })();
    if (now) this.catchUp();
  }

  /** Applies a change to a session's state (rename) through the same backend, keeping the title entry in step. */
  updateSession(sessionId: string, change: (st: SessionState, rows: HistoryRows) => void): void {
    this.known.forget(sessionId);
    this.db.transaction(() => {
      const batch = new DbBatch(this.s, this.caps, this.lag, this.ftsRebuild, this.plainEntries);
      const rows = new HistoryRows(batch, this.fold);
      change(batch.state(sessionId), rows);
      batch.flush();
    })();
  }

  /**
   * Records the files one turn changed in one folder (its checkpoints), searchable with the session and
   * placed at the turn's prompt: the prompt logged in [window.from, window.to), the time from the
   * turn's "before" checkpoint to the next turn's (a session runs one turn at a time). Recording the same
   * turn (`ref`: its checkpoint id) again replaces it.
   */
  recordChanges(c: {
    sessionId: string;
    ref: string;
    promptId: string;
    folder: string;
    paths: readonly string[];
    truncated: boolean;
    ts: number;
    window: { from: number; to: number | null };
  }): void {
    this.known.forget(c.sessionId);
    this.db.transaction(() => {
      const batch = new DbBatch(this.s, this.caps, this.lag, this.ftsRebuild, this.plainEntries);
      const detail = { kind: 'changes' as const, promptId: c.promptId, folder: c.folder, paths: [...new Set(c.paths)], truncated: c.truncated };
      const ref = `${CHANGES_REF}${c.ref}`;
      const existing = batch.find(c.sessionId, 'changes', ref);
      if (existing) {
        existing.detail = detail;
        batch.changed(existing);
      } else {
        const at = (this.s.promptIn.get(c.sessionId, c.window.from, c.window.to ?? Number.MAX_SAFE_INTEGER) ??
          this.s.lastEntry.get(c.sessionId) ?? { seq: 0, turn: 0 }) as { seq: number; turn: number };
        batch.create({ sessionId: c.sessionId, seq: at.seq, ts: c.ts, turn: at.turn, kind: 'changes', ref, detail });
      }
      batch.flush();
    })();
  }

  /** FTS5's own consistency check of the index; throws if it is damaged. */
  checkIntegrity(): void {
    this.db.exec("INSERT INTO history_fts (history_fts) VALUES ('integrity-check')");
  }
}
