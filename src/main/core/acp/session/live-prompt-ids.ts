import type { Db } from '../../store/database';

/**
 * The live prompt id of each stored session/prompt, in order, for a thread rebuilt from the stored messages
 * (a reopened session): checkpoints know a turn by the id the live client gave its prompt, which the wire
 * does not carry. A turn's row is written just before its prompt is sent, so each prompt gets the latest
 * turn that started at or before it; a turn whose prompt never went out (cancelled while its "before"
 * snapshot was taken) is skipped. A prompt with no such turn (no checkpoints then) gets undefined.
 */
export function livePromptIds(db: Db, sessionId: string, stored: ReadonlyArray<{ direction: string; method: string | null; ts: number }>): Array<string | undefined> {
  let turns: Array<{ prompt_id: string; started_at: number }>;
  try {
    turns = db
      .prepare('SELECT prompt_id, MIN(started_at) AS started_at FROM checkpoint_turns WHERE session_id = ? GROUP BY prompt_id ORDER BY started_at')
      .all(sessionId) as Array<{ prompt_id: string; started_at: number }>;
  } catch {
    return [];
  }
  const out: Array<string | undefined> = [];
  let next = 0;
  for (const m of stored) {
    if (m.direction !== 'c2a' || m.method !== 'session/prompt') continue;
    while (next + 1 < turns.length && turns[next + 1]!.started_at <= m.ts) next++;
    const turn = turns[next];
    if (turn && turn.started_at <= m.ts) {
      out.push(turn.prompt_id);
      next++;
    } else out.push(undefined);
  }
  return out;
}
