import type { AgentCapabilities } from '@agentclientprotocol/sdk';
import type { Db } from '../store/database';

/** The agentCapabilities of each agent's last successful `initialize` (table agent_capabilities). */
export class AgentCapabilitiesRepo {
  constructor(private readonly db: Db) {}

  get(agentId: string): AgentCapabilities | null {
    const row = this.db.prepare('SELECT capabilities_json FROM agent_capabilities WHERE agent_id = ?').get(agentId) as { capabilities_json: string } | undefined;
    if (!row) return null;
    try {
      const parsed = JSON.parse(row.capabilities_json) as unknown;
      return parsed && typeof parsed === 'object' ? (parsed as AgentCapabilities) : null;
    } catch {
      return null;
    }
  }

  set(agentId: string, caps: AgentCapabilities): void {
    this.db
      .prepare(
        `INSERT INTO agent_capabilities (agent_id, capabilities_json, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (agent_id) DO UPDATE SET capabilities_json = excluded.capabilities_json, updated_at = excluded.updated_at`,
      )
      .run(agentId, JSON.stringify(caps), Date.now());
  }

  remove(agentId: string): void {
    this.db.prepare('DELETE FROM agent_capabilities WHERE agent_id = ?').run(agentId);
  }
}

/** How a stored session of an agent comes back: session/resume when it offers it, else session/load, else not. */
export type ReopenMode = 'resume' | 'load';

export function reopenModeOf(caps: AgentCapabilities | null | undefined): ReopenMode | null {
  return caps?.sessionCapabilities?.resume ? 'resume' : caps?.loadSession ? 'load' : null;
}
