import type { ChangeSet, RestoreReport, Restore } from '../../../shared/contract/checkpoints';
import type { Db } from '../store/database';
import type { LargeFile } from './shadow-store';

export interface CheckpointRow {
  id: string;
  folderId: string;
  tree: string;
  large: LargeFile[];
  kind: string;
  createdAt: number;
}

export interface TurnRow {
  id: string;
  session_id: string;
  prompt_id: string;
  folder_id: string;
  /** The folder's host ('local': this machine). */
  host_id: string;
  path: string;
  before_id: string | null;
  after_id: string | null;
  before_late: number;
  started_at: number;
  ended_at: number | null;
  error: string | null;
  changes_json: string | null;
}

interface RawCheckpoint {
  id: string;
  folder_id: string;
  tree: string;
  large_json: string;
  kind: string;
  created_at: number;
}

const toCheckpoint = (r: RawCheckpoint): CheckpointRow => ({
  id: r.id,
  folderId: r.folder_id,
  tree: r.tree,
  large: JSON.parse(r.large_json) as LargeFile[],
  kind: r.kind,
  createdAt: r.created_at,
});

/** A folder's path as stored: plain on this machine, '<host id>:<path>' on another host (see migration 0020). */
const storedPath = (hostId: string, path: string): string => (hostId === 'local' ? path : `${hostId}:${path}`);
const FOLDER_PATH = "CASE WHEN f.host_id = 'local' THEN f.path ELSE substr(f.path, length(f.host_id) + 2) END";

/** A folder with checkpoints: its id, its host and its path there. */
export interface FolderRow {
  id: string;
  host_id: string;
  path: string;
}

const TURN_COLUMNS = `t.id, t.session_id, t.prompt_id, t.folder_id, f.host_id, ${FOLDER_PATH} AS path, t.before_id, t.after_id, t.before_late, t.started_at, t.ended_at, t.error, t.changes_json`;

export interface PendingRestoreRow {
  id: string;
  folder_id: string;
  kind: Restore['kind'];
  label: string;
  turn_id: string | null;
  pre_id: string;
  plan_json: string;
  started_at: number;
}

/** The checkpoint tables (see migration 0007). */
export class CheckpointRows {
  constructor(private readonly db: Db) {}

  ensureFolder(id: string, path: string, hostId = 'local'): void {
    this.db.prepare('INSERT OR IGNORE INTO checkpoint_folders (id, path, host_id, created_at) VALUES (?, ?, ?, ?)').run(id, storedPath(hostId, path), hostId, Date.now());
  }

  folders(): Array<FolderRow & { checkpoints: number; oldest: number | null; newest: number | null }> {
    return this.db
      .prepare(
        `SELECT f.id, f.host_id, ${FOLDER_PATH} AS path, COUNT(c.id) AS checkpoints, MIN(c.created_at) AS oldest, MAX(c.created_at) AS newest
         FROM checkpoint_folders f LEFT JOIN checkpoints c ON c.folder_id = f.id GROUP BY f.id ORDER BY f.path`,
      )
      .all() as Array<FolderRow & { checkpoints: number; oldest: number | null; newest: number | null }>;
  }

  folder(id: string): FolderRow | undefined {
    return this.db.prepare(`SELECT f.id, f.host_id, ${FOLDER_PATH} AS path FROM checkpoint_folders f WHERE f.id = ?`).get(id) as FolderRow | undefined;
  }

  folderByPath(path: string, hostId = 'local'): FolderRow | undefined {
    return this.db.prepare(`SELECT f.id, f.host_id, ${FOLDER_PATH} AS path FROM checkpoint_folders f WHERE f.path = ?`).get(storedPath(hostId, path)) as FolderRow | undefined;
  }

  deleteFolder(id: string): void {
    this.db.prepare('DELETE FROM checkpoint_turns WHERE folder_id = ?').run(id);
    this.db.prepare('DELETE FROM checkpoint_restores WHERE folder_id = ?').run(id);
    this.db.prepare('DELETE FROM checkpoints WHERE folder_id = ?').run(id);
    this.db.prepare('DELETE FROM checkpoint_folders WHERE id = ?').run(id);
  }

  insertCheckpoint(c: CheckpointRow): void {
    this.db
      .prepare('INSERT INTO checkpoints (id, folder_id, tree, large_json, kind, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(c.id, c.folderId, c.tree, JSON.stringify(c.large), c.kind, c.createdAt);
  }

  checkpoint(id: string): CheckpointRow | undefined {
    const r = this.db.prepare('SELECT * FROM checkpoints WHERE id = ?').get(id) as RawCheckpoint | undefined;
    return r && toCheckpoint(r);
  }

  latestCheckpoint(folderId: string): CheckpointRow | undefined {
    const r = this.db.prepare('SELECT * FROM checkpoints WHERE folder_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1').get(folderId) as RawCheckpoint | undefined;
    return r && toCheckpoint(r);
  }

  /** Checkpoints of a folder, oldest first. */
  checkpointIds(folderId: string): Array<{ id: string; created_at: number }> {
    return this.db.prepare('SELECT id, created_at FROM checkpoints WHERE folder_id = ? ORDER BY created_at, rowid').all(folderId) as Array<{ id: string; created_at: number }>;
  }

  deleteCheckpoints(ids: readonly string[]): void {
    const del = this.db.prepare('DELETE FROM checkpoints WHERE id = ?');
    this.db.transaction(() => {
      for (const id of ids) del.run(id);
      // Turns with neither snapshot left have nothing to show.
      this.db.prepare('DELETE FROM checkpoint_turns WHERE before_id IS NULL AND after_id IS NULL AND ended_at IS NOT NULL').run();
    })();
  }

  /**
   * Turns a previous run of Switchboard left without an end (it was closed or killed during them): ended, with
   * why their changes were not recorded.
   */
  endInterruptedTurns(error: string): void {
    this.db.transaction(() => {
      this.db.prepare('UPDATE checkpoint_turns SET ended_at = started_at, error = COALESCE(error, ?) WHERE ended_at IS NULL').run(error);
      // Ended, but stopped before its "after" snapshot was taken ("Recording…" for good otherwise).
      this.db.prepare('UPDATE checkpoint_turns SET error = ? WHERE after_id IS NULL AND error IS NULL AND changes_json IS NULL AND before_id IS NOT NULL').run(error);
    })();
  }

  insertTurn(t: { id: string; sessionId: string; promptId: string; folderId: string; startedAt: number }): void {
    this.db
      .prepare('INSERT INTO checkpoint_turns (id, session_id, prompt_id, folder_id, started_at) VALUES (?, ?, ?, ?, ?)')
      .run(t.id, t.sessionId, t.promptId, t.folderId, t.startedAt);
  }

  setTurn(id: string, fields: { before_id?: string; before_late?: number; after_id?: string; ended_at?: number; error?: string; changes_json?: string }): void {
    const keys = Object.keys(fields) as Array<keyof typeof fields>;
    if (keys.length === 0) return;
    this.db.prepare(`UPDATE checkpoint_turns SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`).run({ ...fields, id });
  }

  turn(id: string): TurnRow | undefined {
    return this.db.prepare(`SELECT ${TURN_COLUMNS} FROM checkpoint_turns t JOIN checkpoint_folders f ON f.id = t.folder_id WHERE t.id = ?`).get(id) as TurnRow | undefined;
  }

  /** The turn whose "before" and "after" checkpoints these are, if any. */
  turnOfPair(beforeId: string, afterId: string): TurnRow | undefined {
    return this.db
      .prepare(`SELECT ${TURN_COLUMNS} FROM checkpoint_turns t JOIN checkpoint_folders f ON f.id = t.folder_id WHERE t.before_id = ? AND t.after_id = ? LIMIT 1`)
      .get(beforeId, afterId) as TurnRow | undefined;
  }

  turnsOfSession(sessionId: string): TurnRow[] {
    return this.db
      .prepare(`SELECT ${TURN_COLUMNS} FROM checkpoint_turns t JOIN checkpoint_folders f ON f.id = t.folder_id WHERE t.session_id = ? ORDER BY t.started_at, t.rowid`)
      .all(sessionId) as TurnRow[];
  }

  /** A folder's turns (any session) with both checkpoints, as pairs of checkpoint ids, oldest first. */
  recordedTurns(folderId: string): Array<{ before_id: string; after_id: string }> {
    return this.db
      .prepare('SELECT before_id, after_id FROM checkpoint_turns WHERE folder_id = ? AND before_id IS NOT NULL AND after_id IS NOT NULL ORDER BY started_at, rowid')
      .all(folderId) as Array<{ before_id: string; after_id: string }>;
  }

  /** When the session's first turn after this one started (any folder), or null. */
  nextTurnStart(sessionId: string, startedAt: number, turnId: string): number | null {
    const r = this.db
      .prepare(
        `SELECT min(started_at) AS at FROM checkpoint_turns
         WHERE session_id = ? AND prompt_id <> (SELECT prompt_id FROM checkpoint_turns WHERE id = ?) AND started_at >= ?`,
      )
      .get(sessionId, turnId, startedAt) as { at: number | null };
    return r.at;
  }

  /**
   * Other sessions' turns in the same folder whose time overlapped [from, to], leaving out those recorded as
   * having changed nothing (their window changed nothing they could be blamed for).
   */
  overlapping(folderId: string, sessionId: string, from: number, to: number): Array<{ sessionId: string; label: string }> {
    const rows = this.db
      .prepare(
        `SELECT DISTINCT t.session_id AS sessionId, s.title AS title, a.name AS agent
         FROM checkpoint_turns t LEFT JOIN sessions s ON s.id = t.session_id LEFT JOIN agents a ON a.id = s.agent_id
         WHERE t.folder_id = ? AND t.session_id <> ? AND t.started_at <= ? AND COALESCE(t.ended_at, ?) >= ?
           AND (t.changes_json IS NULL OR json_array_length(t.changes_json, '$.files') > 0)`,
      )
      .all(folderId, sessionId, to, Date.now(), from) as Array<{ sessionId: string; title: string | null; agent: string | null }>;
    return rows.map((r) => ({ sessionId: r.sessionId, label: [r.agent, r.title].filter(Boolean).join(' · ') || r.sessionId }));
  }

  cachedChanges(t: TurnRow): ChangeSet | null {
    return t.changes_json ? (JSON.parse(t.changes_json) as ChangeSet) : null;
  }

  insertRestore(r: { id: string; folderId: string; kind: Restore['kind']; label: string; preId: string; postId: string; report: RestoreReport; turnId?: string | null; notice?: string | null }): void {
    this.db
      .prepare('INSERT INTO checkpoint_restores (id, folder_id, kind, label, pre_id, post_id, created_at, report_json, turn_id, notice) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(r.id, r.folderId, r.kind, r.label, r.preId, r.postId, Date.now(), JSON.stringify(r.report), r.turnId ?? null, r.notice ?? null);
  }

  /** A restore about to touch the folder (see migration 0015). */
  insertPending(p: { id: string; folderId: string; kind: Restore['kind']; label: string; turnId: string | null; preId: string; plan: unknown }): void {
    this.db
      .prepare('INSERT INTO checkpoint_pending_restores (id, folder_id, kind, label, turn_id, pre_id, plan_json, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(p.id, p.folderId, p.kind, p.label, p.turnId, p.preId, JSON.stringify(p.plan), Date.now());
  }

  deletePending(id: string): void {
    this.db.prepare('DELETE FROM checkpoint_pending_restores WHERE id = ?').run(id);
  }

  pending(): PendingRestoreRow[] {
    return this.db.prepare('SELECT * FROM checkpoint_pending_restores ORDER BY started_at').all() as PendingRestoreRow[];
  }

  /** The newest notice of a restore about this turn (one finished after an interruption), or null. */
  turnNotice(turnId: string): string | null {
    const r = this.db.prepare('SELECT notice FROM checkpoint_restores WHERE turn_id = ? AND notice IS NOT NULL ORDER BY created_at DESC LIMIT 1').get(turnId) as { notice: string } | undefined;
    return r?.notice ?? null;
  }

  restore(id: string): { id: string; folder_id: string; pre_id: string; post_id: string; undone_by: string | null } | undefined {
    return this.db.prepare('SELECT id, folder_id, pre_id, post_id, undone_by FROM checkpoint_restores WHERE id = ?').get(id) as
      | { id: string; folder_id: string; pre_id: string; post_id: string; undone_by: string | null }
      | undefined;
  }

  markUndone(id: string, by: string): void {
    this.db.prepare('UPDATE checkpoint_restores SET undone_by = ? WHERE id = ?').run(by, id);
  }

  restores(folderId: string): Restore[] {
    const rows = this.db
      .prepare('SELECT id, folder_id, kind, label, created_at, undone_by, report_json, notice FROM checkpoint_restores WHERE folder_id = ? ORDER BY created_at')
      .all(folderId) as Array<{ id: string; folder_id: string; kind: Restore['kind']; label: string; created_at: number; undone_by: string | null; report_json: string; notice: string | null }>;
    return rows.map((r) => ({
      id: r.id,
      folderId: r.folder_id,
      kind: r.kind,
      label: r.label,
      createdAt: r.created_at,
      undoneBy: r.undone_by,
      report: JSON.parse(r.report_json) as RestoreReport,
      notice: r.notice,
    }));
  }
}
