import { ReplayMatcher, threadFromWire, type WireMessage } from '../../../shared/acp-thread';
import { updateIsValid } from '../../../shared/acp-thread/update-check';
import type { Db } from '../store/database';
import { expandRows, MESSAGE_COLUMNS, type MessageRow, type PersistedMessage } from '../store/message-log';

const parse = (body: string): Record<string, unknown> | null => {
  try {
    const v: unknown = JSON.parse(body);
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

/**
 * The sequence numbers of a session's stored replay duplicates: the updates an agent replayed after a
 * `session/load` that repeat the conversation stored before that load (recognised as live replays are, by
 * ReplayMatcher). Earlier versions stored a replay that came after the load's answer (Gemini CLI 0.61), or
 * the part of it after something the agent added (Gemini's `<session_context>` preamble).
 */
export function replayDuplicates(messages: readonly PersistedMessage[]): Set<number> {
  const removed = new Set<number>();
  const kept: WireMessage[] = [];
  let matcher: ReplayMatcher | null = null;
  for (const m of messages) {
    if (m.direction === 'c2a' && m.method === 'session/load') {
      matcher = new ReplayMatcher(threadFromWire(kept, undefined, undefined, updateIsValid));
      // Nothing stored yet: the replay is the conversation.
      if (!matcher.hasConversation) matcher = null;
    } else if (m.direction === 'c2a' && m.method === 'session/prompt') matcher?.promptSent();
    else if (matcher && m.direction === 'a2c' && m.method === 'session/update') {
      const params = parse(m.body)?.params as Record<string, unknown> | undefined;
      if (matcher.isReplay(params?.update)) {
        removed.add(m.seq);
        continue;
      }
      if (matcher.done) matcher = null;
    }
    kept.push({ direction: m.direction, body: m.body });
  }
  return removed;
}

/**
 * Removes the replay duplicates of the sessions migration 0011 listed (those that were ever loaded), then
 * forgets them. Rows holding a removed message are written again without it. Returns how many messages
 * were removed (the history index must then be rebuilt).
 */
export function removeReplayDuplicates(db: Db): number {
  const sessions = db.prepare('SELECT session_id AS id FROM replay_cleanup').all() as Array<{ id: string }>;
  if (sessions.length === 0) return 0;
  const rowsOf = db.prepare(`SELECT ${MESSAGE_COLUMNS} FROM acp_messages WHERE session_id = ? ORDER BY seq`);
  const del = db.prepare('DELETE FROM acp_messages WHERE id = ?');
  const insert = db.prepare('INSERT INTO acp_messages (session_id, seq, n, ts, direction, method, body) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const done = db.prepare('DELETE FROM replay_cleanup WHERE session_id = ?');
  let total = 0;
  for (const { id } of sessions) {
    db.transaction(() => {
      const rows = rowsOf.all(id) as MessageRow[];
      const removed = replayDuplicates(expandRows(rows));
      total += removed.size;
      if (removed.size > 0) {
        for (const row of rows) {
          const lines = expandRows([row]);
          if (!lines.some((l) => removed.has(l.seq))) continue;
          del.run(row.id);
          // What is left of the row, as rows of consecutive sequence numbers.
          let run: PersistedMessage[] = [];
          const flush = () => {
            if (run.length > 0 && typeof row.body === 'string') insert.run(id, run[0]!.seq, run.length, row.ts, row.direction, row.method, run.map((l) => l.body).join('\n'));
            // A compressed block's messages differ in direction, method and time: a row each (compacted again later).
            else for (const l of run) insert.run(id, l.seq, 1, l.ts, l.direction, l.method, l.body);
            run = [];
          };
          for (const l of lines) {
            if (removed.has(l.seq)) flush();
            else run.push(l);
          }
          flush();
        }
      }
      done.run(id);
    })();
  }
  return total;
}
