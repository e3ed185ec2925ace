import { useCallback, useEffect, useState } from 'react';
import { TOOL_KINDS, type PermissionRule } from '@shared/contract/permissions';
import { useApi, useEvent } from '../../../app/api-context';
import { syncAgents, useAgents } from '../../agents';
import { ErrorAlert } from '../../../ui/Alert';
import { AgentSelect } from '../../../ui/Select';

type Decision = PermissionRule['decision'];

/** The "always" answers of every agent, per tool kind: change a decision, forget a rule, or add one. */
export function PermissionsSection() {
  const api = useApi();
  const agents = useAgents((s) => s.agents);
  const [rules, setRules] = useState<PermissionRule[]>([]);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    void api.call('permissionRules.list', {}).then((r) => r.ok && setRules(r.value.rules));
  }, [api]);
  useEffect(() => syncAgents(api), [api]);
  useEffect(load, [load]);
  useEvent('session.permissionResolved', load, [load]);

  const run = async (p: Promise<{ ok: boolean; error?: { message: string } }>) => {
    const r = await p;
    setError(r.ok ? null : (r.error?.message ?? 'failed'));
    load();
  };
  const setRule = (agentId: string, toolKind: string, decision: Decision) => run(api.call('permissionRules.set', { agentId, toolKind, decision }));
  const nameOf = (agentId: string) => agents.find((a) => a.id === agentId)?.name ?? agentId;

  return (
    <div className="settings-permissions">
      <p className="muted small">An agent asks before it runs a tool, unless a rule answers for it. Rules are made by “always” answers, or here.</p>
      {rules.length === 0 ? (
        <p className="muted small" data-testid="permission-rules-empty">
          No rules: every agent asks.
        </p>
      ) : (
        <table className="settings-table" data-testid="settings-permission-rules">
          <thead>
            <tr>
              <th>Agent</th>
              <th>Tool kind</th>
              <th>Answer</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rules.map((r) => (
              <tr key={r.id} data-testid="settings-permission-rule" data-agent-id={r.agentId} data-tool-kind={r.toolKind}>
                <td>{nameOf(r.agentId)}</td>
                <td>
                  <code>{r.toolKind}</code>
                </td>
                <td>
                  <select aria-label={`Answer for ${r.toolKind}`} value={r.decision} onChange={(e) => void setRule(r.agentId, r.toolKind, e.target.value as Decision)} data-testid="rule-decision">
                    <option value="allow">always allow</option>
                    <option value="reject">always reject</option>
                  </select>
                </td>
                <td>
                  <button className="small" onClick={() => void run(api.call('permissionRules.remove', { id: r.id }))} data-testid="rule-remove">
                    Forget
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {agents.length > 0 && <AddRule agents={agents.map((a) => ({ id: a.id, name: a.name }))} onAdd={setRule} />}
      {error && (
        <ErrorAlert>{error}</ErrorAlert>
      )}
    </div>
  );
}

function AddRule({ agents, onAdd }: { agents: Array<{ id: string; name: string }>; onAdd(agentId: string, toolKind: string, decision: Decision): Promise<void> }) {
  const [agentId, setAgentId] = useState(agents[0]!.id);
  const [toolKind, setToolKind] = useState<string>('read');
  const [decision, setDecision] = useState<Decision>('allow');
  return (
    <form
      className="settings-inline-form"
      data-testid="add-permission-rule"
      onSubmit={(e) => {
        e.preventDefault();
        void onAdd(agents.some((a) => a.id === agentId) ? agentId : agents[0]!.id, toolKind, decision);
      }}
    >
      <span className="small">Add a rule:</span>
      <AgentSelect agents={agents} aria-label="Agent" value={agentId} onChange={setAgentId} data-testid="rule-agent" />
      <select aria-label="Tool kind" value={toolKind} onChange={(e) => setToolKind(e.target.value)} data-testid="rule-tool-kind">
        {TOOL_KINDS.map((k) => (
          <option key={k} value={k}>
            {k}
          </option>
        ))}
      </select>
      <select aria-label="Answer" value={decision} onChange={(e) => setDecision(e.target.value as Decision)} data-testid="rule-new-decision">
        <option value="allow">always allow</option>
        <option value="reject">always reject</option>
      </select>
      <button type="submit" data-testid="rule-add">
        Add
      </button>
    </form>
  );
}
