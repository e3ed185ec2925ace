import { useCallback, useEffect, useState } from 'react';
import type { AgentSummary } from '@shared/contract/agents';
import { useApi } from '../../../app/api-context';
import { AgentForm, syncAgents, useAgents } from '../../agents';
import { Modal } from '../../../ui/Modal';
import { SectionFields } from './GenericSection';

/** Defaults for new sessions, the working-folder policy, and each agent's command, arguments and environment. */
export function AgentsSettingsSection() {
  const api = useApi();
  const agents = useAgents((s) => s.agents);
  const [editing, setEditing] = useState<AgentSummary | null>(null);
  const close = useCallback(() => setEditing(null), []);
  useEffect(() => syncAgents(api), [api]);

  return (
    <>
      <SectionFields section="agents" except={['agents.onHost']} choices={{ 'agents.defaultAgent': [{ value: '', label: 'The first in the list' }, ...agents.map((a) => ({ value: a.id, label: a.name }))] }} />
      <h4 className="settings-sub">Each agent</h4>
      <p className="muted small">Arguments and environment apply at the agent’s next start. How an agent starts on an SSH host, where it differs, is set in its form (On SSH hosts).</p>
      <ul className="settings-agents">
        {agents.map((a) => (
          <li key={a.id} data-testid="settings-agent" data-agent-id={a.id}>
            <div>
              <strong>{a.name}</strong> <span className="muted small">({a.source})</span>
              <div className="muted small settings-agent-command">
                <code>{[a.command, ...(a.overrides.args ?? a.args)].join(' ')}</code>
                {Object.keys({ ...a.env, ...a.overrides.env }).length > 0 && <> · environment: {Object.keys({ ...a.env, ...a.overrides.env }).join(', ')}</>}
              </div>
            </div>
            <button className="small" onClick={() => setEditing(a)} data-testid="settings-agent-edit">
              Edit
            </button>
          </li>
        ))}
      </ul>
      {editing && (
        <Modal label={`Edit ${editing.name}`} onClose={close}>
          <AgentForm mode="edit" agent={editing} onDone={close} />
        </Modal>
      )}
    </>
  );
}
