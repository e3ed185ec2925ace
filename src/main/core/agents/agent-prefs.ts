import type { AgentCompat } from '../../../shared/contract/agents';
import type { Db } from '../store/database';

export interface AgentPrefs {
  /** Replace the agent's args; null: keep them. */
  args: string[] | null;
  /** Merged over the agent's env. */
  env: Record<string, string>;
  compat: AgentCompat;
}

export const DEFAULT_COMPAT: AgentCompat = { missingFileAsEmpty: false };

interface Row {
  args_json: string | null;
  env_json: string;
  compat_json: string;
}

/** Per-agent user choices (table agent_prefs): launch overrides and compatibility flags. */
export class AgentPrefsRepo {
  constructor(private readonly db: Db) {}

  get(agentId: string): AgentPrefs {
    const row = this.db.prepare('SELECT args_json, env_json, compat_json FROM agent_prefs WHERE agent_id = ?').get(agentId) as Row | undefined;
    if (!row) return { args: null, env: {}, compat: { ...DEFAULT_COMPAT } };
    return {
      args: row.args_json === null ? null : (JSON.parse(row.args_json) as string[]),
      env: JSON.parse(row.env_json) as Record<string, string>,
      compat: { ...DEFAULT_COMPAT, ...(JSON.parse(row.compat_json) as Partial<AgentCompat>) },
    };
  }

  set(agentId: string, prefs: AgentPrefs): void {
    this.db
      .prepare(
        `INSERT INTO agent_prefs (agent_id, args_json, env_json, compat_json, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (agent_id) DO UPDATE SET args_json = excluded.args_json, env_json = excluded.env_json,
           compat_json = excluded.compat_json, updated_at = excluded.updated_at`,
      )
      .run(agentId, prefs.args === null ? null : JSON.stringify(prefs.args), JSON.stringify(prefs.env), JSON.stringify(prefs.compat), Date.now());
  }

  remove(agentId: string): void {
    this.db.prepare('DELETE FROM agent_prefs WHERE agent_id = ?').run(agentId);
  }
}
