import type { SessionStatus } from '../../../../shared/contract/sessions';
import type { Db } from '../../store/database';

/** Longest closing sentence kept (an agent's error can be long). */
const MAX_ENDED_WHY = 2000;

/** The ACP client's writes to the `sessions` table (one row per Switchboard session). */
export class SessionRows {
  constructor(private readonly db: Db) {}

  /** `forkedFrom`: the session this one was forked from (session/fork). */
  /** `container`: what the session's container is made from and its fence (JSON), when it runs in one. */
  insert(row: { id: string; agentId: string; hostId: string; cwd: string; status: SessionStatus; now: number; forkedFrom?: string; container?: string }): void {
    this.db
      .prepare(
        'INSERT INTO sessions (id, agent_id, acp_session_id, host_id, cwd, title, status, created_at, updated_at, forked_from, container) VALUES (?, ?, NULL, ?, ?, NULL, ?, ?, ?, ?, ?)',
      )
      .run(row.id, row.agentId, row.hostId, row.cwd, row.status, row.now, row.now, row.forkedFrom ?? null, row.container ?? null);
  }

  /** The stored container of the session that made it (by the key of a `container:` host id), or null. */
  container(id: string): string | null {
    const row = this.db.prepare('SELECT container FROM sessions WHERE id = ?').get(id) as { container: string | null } | undefined;
    return row?.container ?? null;
  }

  /** A subagent session the agent announced under `parentId` (its ACP id known from the start). */
  insertSubagent(row: { id: string; parentId: string; acpSessionId: string; agentId: string; hostId: string; cwd: string; now: number }): void {
    this.db
      .prepare(
        "INSERT INTO sessions (id, agent_id, acp_session_id, host_id, cwd, title, status, created_at, updated_at, subagent_of) VALUES (?, ?, ?, ?, ?, NULL, 'working', ?, ?, ?)",
      )
      .run(row.id, row.agentId, row.acpSessionId, row.hostId, row.cwd, row.now, row.now, row.parentId);
  }

  /** The host a stored session ran on ('local' for every session before hosts; undefined: no such session). */
  hostOf(id: string): string | undefined {
    const row = this.db.prepare('SELECT host_id FROM sessions WHERE id = ?').get(id) as { host_id: string } | undefined;
    return row?.host_id;
  }

  /** The session a session was forked from, with the title history shows for it; null when it was not forked. */
  forkedFrom(id: string): { id: string; title: string } | null {
    const row = this.db
      .prepare(
        `SELECT p.id, coalesce(nullif(h.custom_title, ''), nullif(p.title, ''), nullif(h.info_title, ''), nullif(h.prompt_title, ''), '') AS title
         FROM sessions s JOIN sessions p ON p.id = s.forked_from LEFT JOIN history_sessions h ON h.session_id = p.id WHERE s.id = ?`,
      )
      .get(id) as { id: string; title: string } | undefined;
    return row ?? null;
  }

  /** The session's own delegation switch (null: its agent's setting). */
  setDelegation(id: string, on: boolean | null): void {
    this.db.prepare('UPDATE sessions SET delegation = ? WHERE id = ?').run(on === null ? null : on ? 1 : 0, id);
  }

  /** The session that started this one through its delegation tools, or null (a reopened child knows it again). */
  delegatedBy(id: string): string | null {
    const row = this.db.prepare('SELECT parent_id FROM delegations WHERE session_id = ?').get(id) as { parent_id: string } | undefined;
    return row?.parent_id ?? null;
  }

  /** A delegated session's parent link (shown as ACP subagents are). */
  linkParent(id: string, parentId: string): void {
    this.db.prepare('UPDATE sessions SET subagent_of = ? WHERE id = ?').run(parentId, id);
  }

  setAcpSessionId(id: string, acpSessionId: string): void {
    this.db.prepare('UPDATE sessions SET acp_session_id = ?, updated_at = ? WHERE id = ?').run(acpSessionId, Date.now(), id);
  }

  /** `why`: the sentence it closed with, kept with it (any other status forgets it). */
  setStatus(id: string, status: SessionStatus, why: string | null = null): void {
    this.db.prepare('UPDATE sessions SET status = ?, ended_why = ?, updated_at = ? WHERE id = ?').run(status, status === 'closed' && why ? why.slice(0, MAX_ENDED_WHY) : null, Date.now(), id);
  }

  /** The titles history keeps for the session: the user's name for it, and its first prompt's. */
  titles(id: string): { custom: string | null; prompt: string | null } {
    const row = this.db.prepare('SELECT custom_title AS custom, prompt_title AS prompt FROM history_sessions WHERE session_id = ?').get(id) as
      | { custom: string | null; prompt: string | null }
      | undefined;
    return row ?? { custom: null, prompt: null };
  }

  setTitle(id: string, title: string | null): void {
    this.db.prepare('UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?').run(title, Date.now(), id);
  }

  /**
   * A session imported from an agent's own store (History → Import), continued here: from now on Switchboard
   * logs it live, and the import no longer reads the agent's file for it (it would hold the same turns).
   */
  adopt(id: string): void {
    this.db.prepare('UPDATE sessions SET imported_from = NULL WHERE id = ? AND imported_from IS NOT NULL').run(id);
  }

  touch(id: string): void {
    this.db.prepare('UPDATE sessions SET updated_at = ? WHERE id = ?').run(Date.now(), id);
  }

  /** What the agent was given at setup (JSON of the contract's EffectiveConfig). */
  setEffectiveConfig(id: string, json: string): void {
    this.db.prepare('UPDATE sessions SET effective_config = ? WHERE id = ?').run(json, id);
  }

  /** undefined: no such session; null: nothing recorded. */
  effectiveConfig(id: string): string | null | undefined {
    const row = this.db.prepare('SELECT effective_config FROM sessions WHERE id = ?').get(id) as { effective_config: string | null } | undefined;
    return row ? row.effective_config : undefined;
  }

  /** Deletes a session the agent never created (with what was logged of its session/new). */
  deleteUncreated(id: string): void {
    this.db.prepare('DELETE FROM sessions WHERE id = ? AND acp_session_id IS NULL').run(id);
  }

  /** Takes a session out of the archive (its time of archiving forgotten); false when it was not archived. */
  unarchive(id: string): boolean {
    return this.db.prepare('UPDATE sessions SET archived_at = NULL WHERE id = ? AND archived_at IS NOT NULL').run(id).changes > 0;
  }
  exists(id: string): boolean {
    return this.db.prepare('SELECT 1 FROM sessions WHERE id = ?').get(id) !== undefined;
  }
}
