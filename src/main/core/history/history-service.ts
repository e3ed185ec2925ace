import { importSourceIdSchema } from '../../../shared/contract/history-import';
import type { TurnCheckpoint } from '../../../shared/contract/checkpoints';
import type { HistoryEntry, HistorySession } from '../../../shared/contract/history';
import { IpcFailure, type ParsedParamsOf } from '../../../shared/contract';
import { agentLabel, agentTitle, givenTitle, promptSummary, sessionTitle } from '../../../shared/session-title';
import { Emitter } from '../base/emitter';
import type { EventBus } from '../base/event-bus';
import { toDisposable, type Disposable } from '../base/lifecycle';
import type { Router } from '../base/router';
import { StoreDataError, storedText } from '../store/compression';
import type { Db } from '../store/database';
import { iterateMessages, type MessageLog } from '../store/message-log';
import type { StoreService } from '../store/store-service';
import { CHANGES_REF, draftFromRow, HistoryIndex } from './history-index';
import { NOT_IN_TRANSCRIPT, type Detail } from './entry-drafts';
import { searchHistory } from './search';
import { CatchUpPace } from './catch-up-pace';
import { removeReplayDuplicates } from './replay-cleanup';
import { StorePacker } from './store-packer';
import { subagentTrees } from './subagent-tree';
import { subagentWrites } from './subagent-writes';
import type { ChildWrites } from '../../../shared/child-changes';
import { buildTranscript, exportFileName, renderMarkdown, toHistoryEntry, type Transcript } from './transcript';

const DAY = 86_400_000;

export interface HistoryOptions {
  /** Soft-deleted sessions are purged for good after this long. */
  retentionMs?: number;
  now?: () => number;
  /** A session's log and entries are packed once it has had no new message for this long. */
  packAfterMs?: number;
}

interface SessionRow {
  id: string;
  agent_id: string;
  cwd: string;
  title: string | null;
  status: string;
  pinned: number;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
  archived_at: number | null;
  custom_title: string | null;
  info_title: string | null;
  prompt_title: string | null;
  last_ts: number | null;
  message_count: number | null;
  turn_count: number | null;
  tool_call_count: number | null;
  failed_tool_calls: number | null;
  files_touched: number | null;
  files_edited: number | null;
  failed_turns: number | null;
  last_stop_reason: string | null;
  parent_id: string | null;
  parent_title: string | null;
  forks_json: string;
  imported_from: string | null;
  host_id: string;
}

/** The title toSession shows, in SQL, for session `s` and its history row `h`. */
const titleOf = (s: string, h: string) =>
  `coalesce(nullif(${h}.custom_title, ''), nullif(${s}.title, ''), nullif(${h}.info_title, ''), nullif(${h}.prompt_title, ''), '')`;

const SESSION_COLUMNS = `s.id, s.agent_id, s.cwd, s.title, s.status, s.pinned, s.created_at, s.updated_at, s.deleted_at, s.archived_at,
  h.custom_title, h.info_title, h.prompt_title, h.last_ts, h.message_count, h.turn_count, h.tool_call_count,
  h.failed_tool_calls, h.files_touched, h.files_edited, h.failed_turns, h.last_stop_reason,
  s.forked_from AS parent_id, s.imported_from, s.host_id,
  (SELECT ${titleOf('p', 'ph')} FROM sessions p LEFT JOIN history_sessions ph ON ph.session_id = p.id WHERE p.id = s.forked_from) AS parent_title,
  (SELECT json_group_array(json_object('id', c.id, 'title', ${titleOf('c', 'ch')})) FROM
    (SELECT * FROM sessions WHERE forked_from = s.id AND deleted_at IS NULL ORDER BY created_at, id) c
    LEFT JOIN history_sessions ch ON ch.session_id = c.id) AS forks_json`;
const ACTIVITY = 'coalesce(h.last_ts, s.updated_at)';

function toSession(r: SessionRow): HistorySession {
  // The one title rule (shared/session-title); an empty title is shown as "<Agent> session".
  const sources = [
    [givenTitle(r.custom_title), 'custom'],
    [agentTitle(r.title), 'client'],
    [agentTitle(r.info_title), 'agent'],
    [promptSummary(r.prompt_title), 'prompt'],
  ] as const;
  const [title, titleSource] = sources.find(([t]) => t !== null) ?? ['', 'none' as const];
  return {
    id: r.id,
    agentId: r.agent_id,
    cwd: r.cwd,
    title: title ?? '',
    titleSource,
    status: r.status,
    pinned: r.pinned === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    lastActivityAt: r.last_ts ?? r.updated_at,
    deletedAt: r.deleted_at,
    archivedAt: r.archived_at ?? null,
    messageCount: r.message_count ?? 0,
    turnCount: r.turn_count ?? 0,
    toolCallCount: r.tool_call_count ?? 0,
    failedToolCalls: r.failed_tool_calls ?? 0,
    filesTouched: r.files_touched ?? 0,
    filesEdited: r.files_edited ?? 0,
    failedTurns: r.failed_turns ?? 0,
    lastStopReason: r.last_stop_reason,
    forkedFrom: r.parent_id !== null ? { id: r.parent_id, title: givenTitle(r.parent_title) ?? '' } : null,
    forks: (JSON.parse(r.forks_json) as Array<{ id: string; title: string }>).map((f) => ({ id: f.id, title: givenTitle(f.title) ?? '' })),
    importedFrom: importSourceIdSchema.safeParse(r.imported_from).data ?? null,
    hostId: r.host_id,
    subagents: [],
  };
}

/** SQLite errors that mean "someone else has the file": say so instead of showing an empty history. */
function translate(e: unknown, path: string): unknown {
  if (e instanceof IpcFailure) return e;
  if (e instanceof StoreDataError) return new IpcFailure('unavailable', `the history store ${path} is damaged: ${e.message}; restore a backup`);
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
      return new IpcFailure(
        'unavailable',
        `the history store ${path} is locked by another process (another Switchboard or a database tool); close it and try again`,
      );
    }
    if (code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB')) {
      return new IpcFailure('unavailable', `the history store ${path} is damaged (${(e as Error).message}); restore a backup`);
    }
  }
  return e;
}

/**
 * Session history over the message log: the index (kept in the log's write transactions), the history
 * list, search, per-session operations and exports. Messages logged before the index existed are indexed
 * in the background at start-up (`indexing` in list/search results says how far it is).
 */
export class HistoryService implements Disposable {
  private current: HistoryIndex | null = null;
  private readonly logs = new Set<MessageLog>();
  private catchUpTimer: NodeJS.Immediate | null = null;
  /** Bulk writes under way (see bulkWrite): the index catches up once the last one ends. */
  private bulkWriters = 0;
  /** How many messages each catch-up transaction indexes. */
  private readonly pace = new CatchUpPace();
  private packTimer: { kind: 'immediate'; handle: NodeJS.Immediate } | { kind: 'timeout'; handle: NodeJS.Timeout } | null = null;
  private packer: StorePacker | null = null;
  /** Migration 0013 under way: what it started from, for its progress events. */
  private migration: { startedAt: number; sessions: number; messages: number; pendingAtStart: number; lastEmit: number; lastPhase: string | null } | null = null;
  private readonly quietMs: number;
  private disposed = false;
  private readonly waiters: Array<() => void> = [];
  private readonly migrationWaiters: Array<() => void> = [];
  private readonly retentionMs: number;
  private readonly now: () => number;
  private readonly renames = new Emitter<string>();
  /** The user renamed a session (a live session's tab takes the name at once). */
  readonly onRenamed = this.renames.event;

  constructor(
    private readonly store: StoreService,
    private readonly bus: EventBus | null = null,
    options: HistoryOptions = {},
  ) {
    this.retentionMs = options.retentionMs ?? 30 * DAY;
    this.now = options.now ?? Date.now;
    this.quietMs = options.packAfterMs ?? 30_000;
  }

  private get db(): Db {
    const status = this.store.status;
    if (!status.ok) {
      const why =
        status.kind === 'locked'
          ? 'is locked by another process (another Switchboard or a database tool); close it and restart'
          : status.kind === 'corrupt'
            ? 'is damaged; restore a backup'
            : status.kind === 'newer_schema'
              ? 'was written by a newer Switchboard'
              : 'cannot be read';
      throw new IpcFailure('unavailable', `history is unavailable: the store ${status.path} ${why} (${status.message})`);
    }
    return this.store.db;
  }

  /** The index of the currently open store file (a restored backup is a new connection). */
  index(db: Db = this.db): HistoryIndex {
    if (this.current?.db !== db) this.current = new HistoryIndex(db);
    return this.current;
  }

  /** Indexes every batch the log writes, inside its transaction. */
  attach(log: MessageLog): Disposable {
    this.logs.add(log);
    const reg = log.addIndexer((db, messages) => {
      const index = this.index(db);
      index.indexer(db, messages);
      if (!index.live) this.scheduleCatchUp();
    });
    return toDisposable(() => {
      reg.dispose();
      this.logs.delete(log);
    });
  }

  /**
   * A bulk write (an import of the agents' own histories) is starting: its batches are not indexed one by one
   * as they are written (a fold and full-text rows per batch) but in one pass once it ends (disposed), by
   * the same catch-up that indexes a store at start-up, whose progress list and search results report.
   */
  bulkWrite(): Disposable {
    this.bulkWriters++;
    if (this.store.available) this.index().pause();
    let ended = false;
    return toDisposable(() => {
      if (ended) return;
      ended = true;
      if (--this.bulkWriters === 0) this.scheduleCatchUp();
    });
  }

  /**
   * Removes replay duplicates earlier versions stored (migration 0011), then starts indexing what the index
   * has not seen yet (in slices, yielding to the event loop), then purges.
   */
  start(): void {
    if (this.store.available) {
      try {
        this.beginMigration();
      } catch (e) {
        console.error('history: reading the store migration state failed:', e);
      }
      try {
        if (removeReplayDuplicates(this.store.db) > 0) this.index().rebuild(false);
      } catch (e) {
        console.error('history: removing stored replay duplicates failed:', e);
      }
    }
    this.scheduleCatchUp();
  }

  /** Resolves once the index has caught up with the log. */
  whenIndexed(): Promise<void> {
    if (!this.store.available || this.index().live) return Promise.resolve();
    this.scheduleCatchUp();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private scheduleCatchUp(): void {
    if (this.catchUpTimer || this.disposed || this.bulkWriters > 0) return;
    this.catchUpTimer = setImmediate(() => {
      this.catchUpTimer = null;
      if (this.disposed || !this.store.available) return;
      let done = false;
      const started = performance.now();
      try {
        done = this.index().catchUp(this.pace.chunk, 1);
      } catch (e) {
        console.error('history: indexing failed:', e);
        return;
      }
      if (this.pace.took(performance.now() - started) && !done) this.store.checkpoint();
      if (!done) {
        this.scheduleCatchUp();
        return;
      }
      try {
        this.purge();
      } catch (e) {
        console.error('history: purge failed:', e);
      }
      for (const w of this.waiters.splice(0)) w();
      this.schedulePacking(0);
    });
    this.reportMigration('indexing');
  }

  /** Packing of a migrated store (migrations/0013) is reported as it goes, with the indexing before it. */
  private beginMigration(): void {
    const db = this.store.db;
    const row = db.prepare("SELECT value FROM history_meta WHERE key = 'compaction_migration'").get() as { value: number } | undefined;
    if (!row) return;
    const messages = (db.prepare('SELECT coalesce(sum(n), 0) AS n FROM acp_messages').get() as { n: number }).n;
    this.migration = { startedAt: performance.now(), sessions: row.value, messages, pendingAtStart: this.index().status().pendingMessages, lastEmit: 0, lastPhase: null };
  }

  private reportMigration(phase: 'indexing' | 'packing' | 'vacuuming' | 'done', force = false): void {
    const m = this.migration;
    if (!m || !this.store.available) return;
    const now = performance.now();
    // At most four a second, but every change of phase is told (a fast phase would otherwise not show).
    if (!force && phase === m.lastPhase && now - m.lastEmit < 250) return;
    m.lastEmit = now;
    m.lastPhase = phase;
    let done = 0;
    let total = 0;
    if (phase === 'indexing') {
      total = Math.max(m.pendingAtStart, 1);
      done = Math.max(0, total - this.index().status().pendingMessages);
    } else if (phase === 'packing') {
      total = m.sessions;
      done = Math.max(0, total - this.packing().remaining);
    } else {
      total = done = m.sessions;
    }
    const seconds = (now - m.startedAt) / 1000;
    const eventsPerSecond = phase === 'done' && seconds > 0 ? Math.round(m.messages / seconds) : null;
    this.bus?.emit('app.storeMigration', { phase, done, total, eventsPerSecond });
  }

  /** The packer of the currently open store file. */
  private packing(): StorePacker {
    const db = this.db;
    if (this.packer?.db !== db) this.packer = new StorePacker(db, this.quietMs);
    return this.packer;
  }

  /** Packs quiet sessions (store-packer.ts) in short steps while there are some, then checks again later. */
  private schedulePacking(delayMs: number): void {
    if (this.disposed) return;
    if (this.packTimer?.kind === 'immediate') return;
    if (this.packTimer) {
      if (delayMs > 0) return;
      clearTimeout(this.packTimer.handle);
    }
    const run = (): void => {
      this.packTimer = null;
      if (this.disposed || !this.store.available) return;
      const index = this.index();
      if (!index.live) return; // catch-up schedules it again when done
      let step;
      try {
        step = this.packing().step(index.watermark);
      } catch (e) {
        console.error('history: packing the store failed:', e);
        this.schedulePacking(this.quietMs);
        return;
      }
      if (step.sessions > 0) {
        this.reportMigration('packing');
        this.schedulePacking(0);
        return;
      }
      if (this.migration) this.finishMigration();
      this.schedulePacking(this.quietMs);
    };
    this.packTimer =
      delayMs <= 0 ? { kind: 'immediate', handle: setImmediate(run) } : { kind: 'timeout', handle: setTimeout(run, delayMs) };
    if (this.packTimer.kind === 'timeout') this.packTimer.handle.unref();
  }

  /** The end of migration 0013: the file is rewritten once, compact, and from now on gives freed pages back as it goes. */
  private finishMigration(): void {
    const db = this.db;
    this.reportMigration('vacuuming', true);
    try {
      // Also repacks the pages that rows shrunk in place left half empty.
      db.pragma('auto_vacuum = INCREMENTAL');
      db.exec('VACUUM');
    } catch (e) {
      // Not enough disk for the copy VACUUM makes, or a reader in the way: the store works as it is.
      console.error('history: vacuuming the store after its migration failed:', e);
    }
    db.prepare("DELETE FROM history_meta WHERE key = 'compaction_migration'").run();
    this.reportMigration('done', true);
    this.migration = null;
    for (const w of this.migrationWaiters.splice(0)) w();
  }

  /** Resolves once a store migration (if any) is done. */
  whenMigrated(): Promise<void> {
    if (!this.migration) return Promise.resolve();
    return new Promise((resolve) => this.migrationWaiters.push(resolve));
  }

  private run<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw translate(e, this.store.path);
    }
  }

  private indexing() {
    const status = this.index().status();
    if (!status.done) this.scheduleCatchUp();
    return status;
  }

  session(sessionId: string): HistorySession {
    const row = this.db
      .prepare(`SELECT ${SESSION_COLUMNS} FROM sessions s LEFT JOIN history_sessions h ON h.session_id = s.id WHERE s.id = ?`)
      .get(sessionId) as SessionRow | undefined;
    if (!row) throw new IpcFailure('not_found', `no session ${sessionId}`);
    return { ...toSession(row), subagents: subagentTrees(this.db, [sessionId]).get(sessionId) ?? [] };
  }

  /** What the subagent sessions under `parentId` wrote between `from` and `to` (their tool calls, indexed now). */
  subagentWrites(parentId: string, from: number, to: number): ChildWrites[] {
    return this.run(() => {
      this.index().indexLagging();
      return subagentWrites(this.db, parentId, from, to);
    });
  }

  list(p: ParsedParamsOf<'history.list'>) {
    return this.run(() => {
      // Subagent sessions are listed under the session that started them (subagentTrees), not on their own.
      const where: string[] = [p.deleted ? 's.deleted_at IS NOT NULL' : 's.deleted_at IS NULL', 's.subagent_of IS NULL'];
      const args: Record<string, unknown> = {};
      if (p.from !== undefined) {
        where.push(`${ACTIVITY} >= @from`);
        args.from = p.from;
      }
      if (p.to !== undefined) {
        where.push(`${ACTIVITY} < @to`);
        args.to = p.to;
      }
      if (p.failedOnly) where.push('h.failed_turns > 0');
      if (p.pinnedOnly) where.push('s.pinned = 1');
      // Archived sessions are out of the default list; the "Archived" filter shows them alone (search finds them all).
      const archived = p.archived ?? (p.deleted ? 'include' : 'exclude');
      if (archived !== 'include') where.push(archived === 'only' ? 's.archived_at IS NOT NULL' : 's.archived_at IS NULL');
      const groupWhere = [...where];
      const inList = (name: string, column: string, values: readonly string[] | undefined): void => {
        if (!values?.length) return;
        where.push(`${column} IN (${values.map((_, i) => `@${name}${i}`).join(', ')})`);
        values.forEach((v, i) => (args[`${name}${i}`] = v));
      };
      inList('agent', 's.agent_id', p.agentIds);
      inList('project', 's.cwd', p.projects);
      const from = 'FROM sessions s LEFT JOIN history_sessions h ON h.session_id = s.id';
      const rows = this.db
        .prepare(
          `SELECT ${SESSION_COLUMNS} ${from} WHERE ${where.join(' AND ')}
           ORDER BY s.pinned DESC, ${ACTIVITY} DESC, s.id LIMIT @limit OFFSET @offset`,
        )
        .all({ ...args, limit: p.limit, offset: p.offset }) as SessionRow[];
      const groupArgs = Object.fromEntries(Object.entries(args).filter(([k]) => !/^(agent|project)\d+$/.test(k)));
      const groups = this.db
        .prepare(
          `SELECT s.cwd, s.agent_id AS agentId, count(*) AS sessionCount, sum(s.pinned) AS pinnedCount, max(${ACTIVITY}) AS lastActivityAt
           ${from} WHERE ${groupWhere.join(' AND ')} GROUP BY s.cwd, s.agent_id ORDER BY lastActivityAt DESC`,
        )
        .all(groupArgs) as Array<{ cwd: string; agentId: string; sessionCount: number; pinnedCount: number; lastActivityAt: number }>;
      // The groups hold every session the other filters let through: the total is the sum of the chosen ones.
      const agents = p.agentIds?.length ? new Set(p.agentIds) : null;
      const projects = p.projects?.length ? new Set(p.projects) : null;
      const total = groups.reduce((n, g) => n + ((agents?.has(g.agentId) ?? true) && (projects?.has(g.cwd) ?? true) ? g.sessionCount : 0), 0);
      const trees = subagentTrees(this.db, rows.map((r) => r.id));
      const sessions = rows.map((r) => ({ ...toSession(r), subagents: trees.get(r.id) ?? [] }));
      return { groups, sessions, total, indexing: this.indexing() };
    });
  }

  search(p: ParsedParamsOf<'history.search'>) {
    return this.run(() => {
      // Entries still being streamed are indexed at most once a second: bring them up to date first.
      this.index().indexLagging();
      return { ...searchHistory(this.db, { ...p, now: this.now() }), indexing: this.indexing() };
    });
  }

  rename(sessionId: string, title: string | null): HistorySession {
    return this.run(() => {
      this.session(sessionId);
      const clean = title?.replace(/\s+/g, ' ').trim() || null;
      const now = this.now();
      this.index().updateSession(sessionId, (st, rows) => {
        st.customTitle = clean;
        rows.syncTitle(st, { seq: 0, ts: now });
      });
      this.bus?.emit('history.changed', { sessionIds: [sessionId], reason: 'rename' });
      this.renames.fire(sessionId);
      return this.session(sessionId);
    });
  }

  pin(sessionId: string, pinned: boolean): HistorySession {
    return this.run(() => {
      this.session(sessionId);
      this.db.prepare('UPDATE sessions SET pinned = ? WHERE id = ?').run(pinned ? 1 : 0, sessionId);
      this.bus?.emit('history.changed', { sessionIds: [sessionId], reason: 'pin' });
      return this.session(sessionId);
    });
  }

  delete(sessionIds: readonly string[]): { deleted: string[]; purgeAfter: number } {
    return this.run(() => {
      const now = this.now();
      const stmt = this.db.prepare('UPDATE sessions SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL');
      const deleted = this.db.transaction(() => sessionIds.filter((id) => stmt.run(now, id).changes > 0))();
      if (deleted.length) this.bus?.emit('history.changed', { sessionIds: deleted, reason: 'delete' });
      // Also the moment to let go of what was deleted long enough ago.
      if (this.index().live) this.purge();
      return { deleted, purgeAfter: now + this.retentionMs };
    });
  }

  /** Archives (or unarchives) sessions in the store: the ones whose state changed. */
  archive(sessionIds: readonly string[], archived: boolean): { changed: string[] } {
    return this.run(() => {
      const stmt = archived
        ? this.db.prepare('UPDATE sessions SET archived_at = ? WHERE id = ? AND archived_at IS NULL AND deleted_at IS NULL')
        : this.db.prepare('UPDATE sessions SET archived_at = NULL WHERE id = ? AND archived_at IS NOT NULL');
      const now = this.now();
      const changed = this.db.transaction(() => sessionIds.filter((id) => (archived ? stmt.run(now, id) : stmt.run(id)).changes > 0))();
      if (changed.length) this.bus?.emit('history.changed', { sessionIds: changed, reason: archived ? 'archive' : 'unarchive' });
      return { changed };
    });
  }

  undoDelete(sessionIds: readonly string[]): { restored: string[] } {
    return this.run(() => {
      const stmt = this.db.prepare('UPDATE sessions SET deleted_at = NULL WHERE id = ? AND deleted_at IS NOT NULL');
      const restored = this.db.transaction(() => sessionIds.filter((id) => stmt.run(id).changes > 0))();
      if (restored.length) this.bus?.emit('history.changed', { sessionIds: restored, reason: 'undo' });
      return { restored };
    });
  }

  /** Deletes for good the sessions soft-deleted longer ago than the retention period (messages, index and all). */
  purge(olderThan = this.now() - this.retentionMs): string[] {
    return this.run(() => {
      const ids = (this.db.prepare('SELECT id FROM sessions WHERE deleted_at IS NOT NULL AND deleted_at < ?').all(olderThan) as { id: string }[]).map(
        (r) => r.id,
      );
      if (!ids.length) return [];
      const del = this.db.prepare('DELETE FROM sessions WHERE id = ?');
      this.db.transaction(() => ids.forEach((id) => del.run(id)))();
      for (const log of this.logs) ids.forEach((id) => log.forget(id));
      this.bus?.emit('history.changed', { sessionIds: ids, reason: 'purge' });
      return ids;
    });
  }

  /** The full transcript of a session, rebuilt from its message log (exports; reopening a session). */
  transcript(sessionId: string): Transcript {
    return this.run(() => {
      return buildTranscript(sessionId, iterateMessages(this.db, sessionId));
    });
  }

  export(sessionId: string, format: 'markdown' | 'json'): { text: string; fileName: string; mimeType: string } {
    return this.run(() => {
      const session = this.session(sessionId);
      const { entries } = this.transcript(sessionId);
      const agent = this.db.prepare('SELECT name FROM agents WHERE id = ?').get(session.agentId) as { name: string } | undefined;
      // Named as everywhere else: the agent as the user knows it, the session by the one title rule.
      const agentName = agentLabel(session.agentId, agent?.name);
      const shown = { ...session, title: sessionTitle(session.title, agentName, session.forkedFrom?.title) };
      if (format === 'markdown') return { text: renderMarkdown(shown, entries, agentName), fileName: exportFileName(shown, 'md'), mimeType: 'text/markdown' };
      // Version 2: entries carry the thread model's entry (version 1 had prompt, tool and plan of their own).
      const doc = { format: 'switchboard.session', version: 2, exportedAt: new Date(this.now()).toISOString(), session: shown, agentName, entries };
      return { text: `${JSON.stringify(doc, null, 2)}\n`, fileName: exportFileName(shown, 'json'), mimeType: 'application/json' };
    });
  }

  entries(p: ParsedParamsOf<'history.entries'>): { total: number; offset: number; entries: HistoryEntry[]; targetIndex: number | null } {
    return this.run(() => {
      const db = this.db;
      this.session(p.sessionId);
      const total = (db.prepare(`SELECT count(*) AS n FROM history_entries WHERE session_id = ? AND kind NOT IN (${NOT_IN_TRANSCRIPT})`).get(p.sessionId) as { n: number }).n;
      let offset = p.offset;
      let targetIndex: number | null = null;
      if (p.aroundSeq !== undefined) {
        const target = (db
          .prepare(`SELECT seq FROM history_entries WHERE session_id = ? AND kind NOT IN (${NOT_IN_TRANSCRIPT}) AND seq <= ? ORDER BY seq DESC LIMIT 1`)
          .get(p.sessionId, p.aroundSeq) ?? { seq: 0 }) as { seq: number };
        targetIndex = (
          db.prepare(`SELECT count(*) AS n FROM history_entries WHERE session_id = ? AND kind NOT IN (${NOT_IN_TRANSCRIPT}) AND seq < ?`).get(p.sessionId, target.seq) as {
            n: number;
          }
        ).n;
        offset = Math.max(0, Math.min(targetIndex - Math.floor(p.limit / 2), total - p.limit));
      }
      const rows = db
        .prepare(`SELECT * FROM history_entries WHERE session_id = ? AND kind NOT IN (${NOT_IN_TRANSCRIPT}) ORDER BY seq LIMIT ? OFFSET ?`)
        .all(p.sessionId, p.limit, offset) as Parameters<typeof draftFromRow>[0][];
      const entries = rows.map((r) => toHistoryEntry(draftFromRow(r)));
      if (entries.length > 0) {
        // Each turn's prompt id, from its recorded changes: the transcript shows them under the turn.
        const prompts = new Map<number, string>();
        const changes = db
          .prepare(
            `SELECT turn, detail FROM history_entries
             WHERE session_id = ? AND ref >= '${CHANGES_REF}' AND ref < '${CHANGES_REF.slice(0, -1)};' AND kind = 'changes' AND turn BETWEEN ? AND ?`,
          )
          .all(p.sessionId, entries[0]!.turn, entries.at(-1)!.turn) as Array<{ turn: number; detail: string | Uint8Array }>;
        for (const c of changes) {
          const d = JSON.parse(storedText(c.detail, 'a history entry') ?? 'null') as Detail;
          if (d.kind === 'changes' && c.turn > 0) prompts.set(c.turn, d.promptId);
        }
        for (const e of entries) {
          const promptId = prompts.get(e.turn);
          if (promptId) e.promptId = promptId;
        }
      }
      return { total, offset, entries, targetIndex };
    });
  }

  /**
   * Makes the files a turn changed searchable with its session (called when a turn's checkpoint is
   * recorded). Never throws: a failure here must not affect checkpoints.
   */
  recordTurnChanges(turn: TurnCheckpoint, nextStartedAt: number | null): void {
    if (this.disposed || !this.store.available) return;
    try {
      this.index().recordChanges({
        sessionId: turn.sessionId,
        ref: turn.id,
        promptId: turn.promptId,
        folder: turn.folder,
        paths: turn.changes?.files.flatMap((f) => (f.oldPath ? [f.path, f.oldPath] : [f.path])) ?? [],
        truncated: turn.changes?.truncated ?? false,
        ts: turn.endedAt ?? this.now(),
        window: { from: turn.startedAt, to: nextStartedAt },
      });
    } catch (e) {
      console.error("history: could not record a turn's changed files:", e);
    }
  }

  register(router: Router): void {
    router.handle('history.list', (p) => this.list(p));
    router.handle('history.search', (p) => this.search(p));
    router.handle('history.rename', ({ sessionId, title }) => ({ session: this.rename(sessionId, title) }));
    router.handle('history.pin', ({ sessionId, pinned }) => ({ session: this.pin(sessionId, pinned) }));
    router.handle('history.delete', ({ sessionIds }) => this.delete(sessionIds));
    router.handle('history.archive', ({ sessionIds, archived }) => this.archive(sessionIds, archived));
    router.handle('history.undoDelete', ({ sessionIds }) => this.undoDelete(sessionIds));
    router.handle('history.export', ({ sessionId, format }) => this.export(sessionId, format));
    router.handle('history.entries', (p) => this.entries(p));
  }

  dispose(): void {
    this.renames.dispose();
    this.disposed = true;
    this.current?.dispose();
    if (this.catchUpTimer) clearImmediate(this.catchUpTimer);
    this.catchUpTimer = null;
    if (this.packTimer?.kind === 'immediate') clearImmediate(this.packTimer.handle);
    else if (this.packTimer) clearTimeout(this.packTimer.handle);
    this.packTimer = null;
    for (const w of this.waiters.splice(0)) w();
    for (const w of this.migrationWaiters.splice(0)) w();
  }
}
