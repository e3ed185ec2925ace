import type { AcpServices } from './core/acp/acp-services';
import type { CompareSessions } from './core/compare/compare-service';
import { taskSessions } from './tasks-wiring';

/** The sessions as compare and its judge see them: started, prompted, heard, and read (last message, tokens). */
export function compareSessions(acp: AcpServices): CompareSessions {
  const sessions = acp.sessions;
  const tasks = taskSessions(acp);
  return {
    create: (p) => sessions.create(p),
    prompt: (id, blocks) => sessions.prompt(id, blocks),
    onTurnEnded: (listener) => sessions.onTurnEnded(listener),
    onStatusChanged: (listener) => sessions.onStatusChanged(listener),
    lastMessage: (id) => tasks.lastMessage(id),
    tokens: (id) => tasks.usageOf(id)?.used ?? null,
  };
}
