import type { PermissionOption, PermissionOptionKind } from '@agentclientprotocol/sdk';
import type { PermissionRule } from '../../../../shared/contract/permissions';
import type { Db } from '../../store/database';

interface Row {
  id: number;
  agent_id: string;
  tool_kind: string;
  decision: 'allow' | 'reject';
  created_at: number;
}

const fromRow = (r: Row): PermissionRule => ({ id: r.id, agentId: r.agent_id, toolKind: r.tool_kind, decision: r.decision, createdAt: r.created_at });

/** "Always" answers (table permission_rules), per agent and tool kind. */
export class PermissionRules {
  constructor(private readonly db: Db) {}

  find(agentId: string, toolKind: string): PermissionRule | undefined {
    const row = this.db.prepare('SELECT * FROM permission_rules WHERE agent_id = ? AND tool_kind = ?').get(agentId, toolKind) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  set(agentId: string, toolKind: string, decision: 'allow' | 'reject'): void {
    this.db
      .prepare(
        `INSERT INTO permission_rules (agent_id, tool_kind, decision, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (agent_id, tool_kind) DO UPDATE SET decision = excluded.decision, created_at = excluded.created_at`,
      )
      .run(agentId, toolKind, decision, Date.now());
  }

  list(agentId?: string): PermissionRule[] {
    const rows = (
      agentId
        ? this.db.prepare('SELECT * FROM permission_rules WHERE agent_id = ? ORDER BY created_at').all(agentId)
        : this.db.prepare('SELECT * FROM permission_rules ORDER BY agent_id, created_at').all()
    ) as Row[];
    return rows.map(fromRow);
  }

  remove(id: number): boolean {
    return this.db.prepare('DELETE FROM permission_rules WHERE id = ?').run(id).changes > 0;
  }

  removeAgent(agentId: string): void {
    this.db.prepare('DELETE FROM permission_rules WHERE agent_id = ?').run(agentId);
  }
}

/**
 * The option that carries out a stored decision, chosen by kind (option ids differ per agent, trap 5):
 * the "always" variant when offered, else the "once" one.
 */
export function optionForDecision(options: readonly PermissionOption[], decision: 'allow' | 'reject'): PermissionOption | undefined {
  const order: PermissionOptionKind[] = decision === 'allow' ? ['allow_always', 'allow_once'] : ['reject_always', 'reject_once'];
  for (const kind of order) {
    const option = options.find((o) => o.kind === kind);
    if (option) return option;
  }
  return undefined;
}

/** The rule an answer creates: only "always" kinds make one. */
export function ruleForOption(option: PermissionOption): 'allow' | 'reject' | null {
  if (option.kind === 'allow_always') return 'allow';
  if (option.kind === 'reject_always') return 'reject';
  return null;
}
