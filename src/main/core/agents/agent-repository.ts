import type { Db } from '../store/database';

export type AgentSource = 'registry' | 'custom' | 'builtin';

export interface AgentRecord {
  id: string;
  name: string;
  source: AgentSource;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | null;
  version: string | null;
  registryId: string | null;
  createdAt: number;
  updatedAt: number;
}

interface Row {
  id: string;
  name: string;
  source: AgentSource;
  command: string;
  args_json: string;
  env_json: string;
  cwd: string | null;
  version: string | null;
  registry_id: string | null;
  created_at: number;
  updated_at: number;
}

const fromRow = (r: Row): AgentRecord => ({
  id: r.id,
  name: r.name,
  source: r.source,
  command: r.command,
  args: JSON.parse(r.args_json) as string[],
  env: JSON.parse(r.env_json) as Record<string, string>,
  cwd: r.cwd,
  version: r.version,
  registryId: r.registry_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The agents the user can start (rows of the `agents` table): registry installs and custom commands alike. */
export class AgentRepository {
  constructor(private readonly db: Db) {}

  list(): AgentRecord[] {
    return (this.db.prepare('SELECT * FROM agents ORDER BY name COLLATE NOCASE').all() as Row[]).map(fromRow);
  }

  get(id: string): AgentRecord | undefined {
    const row = this.db.prepare('SELECT * FROM agents WHERE id = ?').get(id) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  /** Inserts or replaces the agent with this id, keeping its creation time. */
  upsert(agent: Omit<AgentRecord, 'createdAt' | 'updatedAt'>): AgentRecord {
    const now = Date.now();
    this.db
      .prepare(
        `INSERT INTO agents (id, name, source, command, args_json, env_json, cwd, version, registry_id, created_at, updated_at)
         VALUES (@id, @name, @source, @command, @args, @env, @cwd, @version, @registryId, @now, @now)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, source = excluded.source, command = excluded.command,
           args_json = excluded.args_json, env_json = excluded.env_json, cwd = excluded.cwd, version = excluded.version,
           registry_id = excluded.registry_id, updated_at = excluded.updated_at`,
      )
      .run({ ...agent, args: JSON.stringify(agent.args), env: JSON.stringify(agent.env), now });
    return this.get(agent.id)!;
  }

  remove(id: string): boolean {
    return this.db.prepare('DELETE FROM agents WHERE id = ?').run(id).changes > 0;
  }
}
