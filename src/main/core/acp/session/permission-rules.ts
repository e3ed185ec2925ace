import type { PermissionOption } from '@agentclientprotocol/sdk';
import type { PermissionRule } from '../../../../shared/contract/permissions';
import { scopeAnswers, scopeProblem, type RequestSubject, type RuleScope } from '../../../../shared/permission-scope';
import { IpcFailure } from '../../../../shared/contract';
import type { Db } from '../../store/database';

interface Row {
  id: number;
  agent_id: string;
  tool_kind: string;
  subject: RuleScope['subject'] | null;
  match: RuleScope['match'] | null;
  pattern: string | null;
  folder: string | null;
  session_id: string | null;
  decision: 'allow' | 'reject';
  label: string | null;
  created_at: number;
}

const fromRow = (r: Row): PermissionRule => ({
  id: r.id,
  agentId: r.agent_id,
  toolKind: r.tool_kind,
  scope:
    r.subject && r.match && r.pattern !== null && r.folder !== null
      ? { subject: r.subject, match: r.match, pattern: r.pattern, folder: r.folder, sessionId: r.session_id }
      : null,
  decision: r.decision,
  label: r.label,
  createdAt: r.created_at,
});

export interface NewRule {
  agentId: string;
  toolKind: string;
  scope: RuleScope;
  decision: 'allow' | 'reject';
  label: string | null;
}

/** What a later request is, for `PermissionRules.find`. */
export interface RuleQuery {
  agentId: string;
  toolKind: string;
  sessionId: string;
  folder: string;
  subject: RequestSubject;
}

/** "Always" answers (table permission_rules), each with its scope (see shared/permission-scope.ts). */
export class PermissionRules {
  constructor(private readonly db: Db) {}

  /** The rule that answers this request: a matching "reject" rule wins over an "allow" one. Unscoped rules answer nothing. */
  find(q: RuleQuery): PermissionRule | undefined {
    const rows = this.db
      .prepare('SELECT * FROM permission_rules WHERE agent_id = ? AND tool_kind = ? AND pattern IS NOT NULL ORDER BY created_at')
      .all(q.agentId, q.toolKind) as Row[];
    const matching = rows.map(fromRow).filter((r) => r.scope && scopeAnswers(r.scope, q));
    return matching.find((r) => r.decision === 'reject') ?? matching[0];
  }

  get(id: number): PermissionRule | undefined {
    const row = this.db.prepare('SELECT * FROM permission_rules WHERE id = ?').get(id) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  /** Adds a rule (or changes the decision of the same scope's rule); with `id`, changes that rule. A scope too wide is refused. */
  set(rule: NewRule, id?: number): PermissionRule {
    const problem = scopeProblem(rule.scope);
    if (problem) throw new IpcFailure('invalid_params', `This rule was not stored: ${problem}.`);
    const { subject, match, pattern, folder, sessionId } = rule.scope;
    const now = Date.now();
    return this.db.transaction(() => {
      if (id !== undefined) {
        if (!this.get(id)) throw new IpcFailure('not_found', `no permission rule ${id}`);
        // The changed rule takes the place of another one of the same scope.
        this.db
          .prepare(
            `DELETE FROM permission_rules WHERE id != ? AND agent_id = ? AND tool_kind = ? AND subject = ? AND match = ? AND pattern = ? AND folder = ? AND ifnull(session_id, '') = ?`,
          )
          .run(id, rule.agentId, rule.toolKind, subject, match, pattern, folder, sessionId ?? '');
        this.db
          .prepare(
            `UPDATE permission_rules SET agent_id = ?, tool_kind = ?, subject = ?, match = ?, pattern = ?, folder = ?, session_id = ?, decision = ?, created_at = ? WHERE id = ?`,
          )
          .run(rule.agentId, rule.toolKind, subject, match, pattern, folder, sessionId, rule.decision, now, id);
        return this.get(id)!;
      }
      const row = this.db
        .prepare(
          `INSERT INTO permission_rules (agent_id, tool_kind, subject, match, pattern, folder, session_id, decision, label, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (agent_id, tool_kind, subject, match, pattern, folder, ifnull(session_id, ''))
           DO UPDATE SET decision = excluded.decision, label = excluded.label, created_at = excluded.created_at
           RETURNING id`,
        )
        .get(rule.agentId, rule.toolKind, subject, match, pattern, folder, sessionId, rule.decision, rule.label, now) as { id: number };
      return this.get(row.id)!;
    })();
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
 * The option that carries out a stored decision: the "once" kind, so that the agent stores nothing the user
 * did not choose (option ids differ per agent, trap 5: chosen by kind). None when the agent offers only
 * "always" for that decision: then the user is asked.
 */
export function optionForDecision(options: readonly PermissionOption[], decision: 'allow' | 'reject'): PermissionOption | undefined {
  return options.find((o) => o.kind === (decision === 'allow' ? 'allow_once' : 'reject_once'));
}

/** The rule an answer creates: only "always" kinds make one. */
export function ruleForOption(option: PermissionOption): 'allow' | 'reject' | null {
  if (option.kind === 'allow_always') return 'allow';
  if (option.kind === 'reject_always') return 'reject';
  return null;
}
