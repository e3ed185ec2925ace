import { IpcFailure } from '../../../shared/contract';
import type { AgentSummary } from '../../../shared/contract/agents';
import { importSourceIdSchema, type ImportSourceId } from '../../../shared/contract/history-import';
import type { EventBus } from '../base/event-bus';
import type { Router } from '../base/router';
import type { Db } from '../store/database';
import { agentForImport } from './agent-match';

type Agent = Pick<AgentSummary, 'id' | 'name' | 'registryId' | 'command' | 'args'>;

export interface AgentChoiceDeps {
  db(): Db;
  /** The set-up agents. */
  agents(): readonly Agent[];
  /** The agent chosen for each tool (setting history.importAgents), and remembering a choice. */
  chosen(): Partial<Record<ImportSourceId, string>>;
  remember(source: ImportSourceId, agentId: string): void;
  /** Whether the session is live now (its agent cannot change under it). */
  isLive(sessionId: string): boolean;
  bus?: EventBus;
}

/**
 * Which set-up agent continues the sessions imported from a tool: the one the user chose for that tool (in
 * a transcript: Continue with…), else the one whose registry entry or command names the tool. A wrapper
 * script the user added under a name of their own names no tool: only a choice binds it.
 */
export class ImportAgentChoice {
  constructor(private readonly deps: AgentChoiceDeps) {}

  agentFor(source: ImportSourceId): string | null {
    const agents = this.deps.agents();
    const chosen = this.deps.chosen()[source];
    if (chosen && agents.some((a) => a.id === chosen)) return chosen;
    return agentForImport(source, agents);
  }

  /** Binds an imported session to `agentId`, and remembers the choice for its tool. */
  choose(sessionId: string, agentId: string): { agentId: string } {
    const row = this.deps.db().prepare('SELECT imported_from AS source FROM sessions WHERE id = ? AND deleted_at IS NULL').get(sessionId) as { source: string | null } | undefined;
    if (!row) throw new IpcFailure('not_found', `no session ${sessionId}`);
    const source = importSourceIdSchema.safeParse(row.source);
    if (!source.success) throw new IpcFailure('invalid_params', 'only a session imported from an agent’s own store can be given another agent');
    if (!this.deps.agents().some((a) => a.id === agentId)) throw new IpcFailure('not_found', `no agent ${agentId}`);
    if (this.deps.isLive(sessionId)) throw new IpcFailure('conflict', 'the session is live: its agent cannot change now');
    this.deps.db().prepare('UPDATE sessions SET agent_id = ? WHERE id = ?').run(agentId, sessionId);
    this.deps.remember(source.data, agentId);
    this.deps.bus?.emit('history.changed', { sessionIds: [sessionId], reason: 'import' });
    return { agentId };
  }

  register(router: Router): void {
    router.handle('historyImport.chooseAgent', ({ sessionId, agentId }) => this.choose(sessionId, agentId));
  }
}
