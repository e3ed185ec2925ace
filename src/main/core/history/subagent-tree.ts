import type { HistorySubagent } from '../../../shared/contract/history';
import { givenTitle } from '../../../shared/session-title';
import type { Db } from '../store/database';

/** Levels of children read under a listed session (ACP subagents nest at most 3 deep). */
const MAX_DEPTH = 4;
/** Children listed under one session, all levels together. */
export const MAX_LISTED_SUBAGENTS = 128;
/** Sessions asked about in one query (SQLite's bound parameters are limited). */
const CHUNK = 400;

interface ChildRow {
  id: string;
  parent_id: string;
  agent_id: string;
  title: string;
  status: string;
  created_at: number;
  last_at: number;
  ended_why: string | null;
  delegated: number;
}

/**
 * The child sessions (ACP subagents, delegated sessions) under each of `rootIds` (children, then their children…), oldest first per level,
 * deleted ones left out: the tree history shows under a session, read from `sessions.subagent_of`.
 */
export function subagentTrees(db: Db, rootIds: readonly string[]): Map<string, HistorySubagent[]> {
  const trees = new Map<string, HistorySubagent[]>(rootIds.map((id) => [id, []]));
  const rootOf = new Map<string, string>(rootIds.map((id) => [id, id]));
  let level = [...rootIds];
  for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (let i = 0; i < level.length; i += CHUNK) {
      const ids = level.slice(i, i + CHUNK);
      const rows = db
        .prepare(
          `SELECT s.id, s.subagent_of AS parent_id, s.agent_id, s.status, s.created_at, s.ended_why,
             EXISTS (SELECT 1 FROM delegations d WHERE d.session_id = s.id) AS delegated,
             coalesce(nullif(h.custom_title, ''), nullif(s.title, ''), nullif(h.info_title, ''), nullif(h.prompt_title, ''), '') AS title,
             coalesce(h.last_ts, s.updated_at) AS last_at
           FROM sessions s LEFT JOIN history_sessions h ON h.session_id = s.id
           WHERE s.subagent_of IN (${ids.map(() => '?').join(', ')}) AND s.deleted_at IS NULL
           ORDER BY s.created_at, s.id`,
        )
        .all(...ids) as ChildRow[];
      for (const r of rows) {
        const root = rootOf.get(r.parent_id);
        const tree = root === undefined ? undefined : trees.get(root);
        // A session is its own child only in a damaged store: never walked twice.
        if (!tree || rootOf.has(r.id) || tree.length >= MAX_LISTED_SUBAGENTS) continue;
        rootOf.set(r.id, root!);
        tree.push({
          id: r.id,
          parentId: r.parent_id,
          agentId: r.agent_id,
          title: givenTitle(r.title) ?? '',
          status: r.status,
          createdAt: r.created_at,
          lastActivityAt: Math.max(r.last_at, r.created_at),
          endedWhy: r.ended_why,
          delegated: r.delegated === 1,
        });
        next.push(r.id);
      }
    }
    level = next;
  }
  return trees;
}
