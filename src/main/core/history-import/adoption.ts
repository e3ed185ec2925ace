import { prepared, type Db } from '../store/database';
import type { FileRow } from './imported-files';

/**
 * Whether what an imported file (or an OpenCode session) holds is Switchboard's own record now, and must not be
 * imported again: linked (Switchboard ran that session itself), or adopted (an imported session continued here,
 * whose imported_from session-rows.ts cleared: from then on Switchboard logs it live, and the agent's store
 * holds the same turns). Every store, whatever its format, asks this before reading.
 */
export function isOwnSession(db: Db, row: Pick<FileRow, 'session_id' | 'linked'> | undefined): boolean {
  if (!row) return false;
  if (row.linked) return true;
  if (!row.session_id) return false;
  const session = prepared(db, 'SELECT imported_from FROM sessions WHERE id = ?').get(row.session_id) as { imported_from: string | null } | undefined;
  return session !== undefined && session.imported_from === null;
}

/** The session Switchboard ran itself with this agent session id, if any (its store's copy is linked, not imported). */
export function ownSessionOf(db: Db, agentSessionId: string): string | null {
  return (prepared(db, 'SELECT id FROM sessions WHERE acp_session_id = ? AND imported_from IS NULL').get(agentSessionId) as { id: string } | undefined)?.id ?? null;
}
