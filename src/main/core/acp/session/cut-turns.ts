import { hostFacts } from '../../../../shared/contract/hosts';
import type { Db } from '../../store/database';
import type { LogEntry, MessageLog } from '../../store/message-log';

/** What a turn Switchboard's stop cut short says, in the stored thread and in the reopened one. */
export const CUT_SHORT = 'Cut short: Switchboard stopped during this turn (it was closed or killed), so the rest of the reply was not received';
/**
 * The same on an SSH host, where the agent may have gone on: its helper keeps what the agent wrote, and the reopened
 * session shows it after this mark (a reply cut here can go on below it).
 */
export const CUT_SHORT_ON_HOST =
  'Cut short: Switchboard stopped during this turn (it was closed or killed). The agent may have gone on on its host: what the host kept of the rest of the reply follows, once the session is reopened';
/** The JSON-RPC error code of that mark (in the range the spec leaves to implementations). */
export const CUT_SHORT_CODE = -32099;

/** Most rows looked at after a session's last prompt for its answer. */
const LOOK_AHEAD = 5000;

/**
 * At start, before any session runs: a session whose last prompt has no answer in its log was cut when the last
 * Switchboard stopped (killed, or an agent that did not answer the stop's cancel). Its turn gets an answer written
 * by Switchboard, an error that says so (marked in `_meta`), so the stored thread, history, exports and a reopened
 * session all show the turn ended there, cut short, instead of a turn that never ends. Returns how many were marked.
 */
export function markCutTurns(db: Db, log: MessageLog, now = Date.now()): number {
  const sessions = db.prepare(`SELECT id, host_id FROM sessions WHERE imported_from IS NULL`).all() as Array<{ id: string; host_id: string }>;
  const lastPrompt = db.prepare(`SELECT seq, body FROM acp_messages WHERE session_id = ? AND direction = 'c2a' AND method = 'session/prompt' ORDER BY seq DESC LIMIT 1`);
  const after = db.prepare(`SELECT body FROM acp_messages WHERE session_id = ? AND seq > ? AND direction = 'a2c' AND method IS NULL ORDER BY seq LIMIT ${LOOK_AHEAD}`);
  const marks: LogEntry[] = [];
  for (const { id: sessionId, host_id: hostId } of sessions) {
    const prompt = lastPrompt.get(sessionId) as { seq: number; body: unknown } | undefined;
    if (!prompt || typeof prompt.body !== 'string') continue;
    const rpcId = idOf(prompt.body);
    if (rpcId === undefined) continue;
    const answers = after.all(sessionId, prompt.seq) as Array<{ body: unknown }>;
    // A compressed block cannot be read here: the turn is left as it is.
    if (answers.some((a) => typeof a.body !== 'string' || idOf(a.body) === rpcId)) continue;
    const body = JSON.stringify({ jsonrpc: '2.0', id: rpcId, error: { code: CUT_SHORT_CODE, message: hostFacts(hostId).agentsOutliveSwitchboard ? CUT_SHORT_ON_HOST : CUT_SHORT, data: { _meta: { 'switchboard/cutShort': true } } } });
    marks.push({ sessionId, direction: 'a2c', method: null, body, ts: now });
  }
  if (marks.length > 0) log.appendMany(marks);
  return marks.length;
}

function idOf(body: string): string | number | undefined {
  try {
    const id = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}
