import { useCallback, useEffect, useState } from 'react';
import type { AgentSummary } from '@shared/contract/agents';
import { SETTINGS } from '@shared/contract/settings';
import { useApi } from '../../../app/api-context';
import { saveSetting, useSetting } from '../../../app/settings';
import { AgentForm, syncAgents, useAgents } from '../../agents';
import { Modal } from '../../../ui/Modal';
import { SettingField } from '../SettingField';
import { AgentSelect } from '../../../ui/Select';

const defaultAgentDef = SETTINGS['agents.defaultAgent'];

/** Defaults for new sessions, the working-folder policy, and each agent's command, arguments and environment. */
export function AgentsSettingsSection() {
  const api = useApi();
  const agents = useAgents((s) => s.agents);
  const defaultAgent = useSetting('agents.defaultAgent');
  const [editing, setEditing] = useState<AgentSummary | null>(null);
  const close = useCallback(() => setEditing(null), []);
  useEffect(() => syncAgents(api), [api]);

  return (
    <>
      <div className="setting-field" data-key="agents.defaultAgent">
        <label htmlFor="setting-agents.defaultAgent" className="setting-label">
          {defaultAgentDef.label}
        </label>
        <div className="setting-control">
          <AgentSelect
            id="setting-agents.defaultAgent"
            agents={agents}
            empty="The first in the list"
            value={defaultAgent}
            onChange={(id) => void saveSetting(api, 'agents.defaultAgent', id)}
            data-testid="setting-agents.defaultAgent"
          />
        </div>
        <div className="setting-description muted small">{defaultAgentDef.description}</div>
      </div>
      <SettingField k="agents.processPerFolder" />
      <h4 className="settings-sub">Each agent</h4>
      <p className="muted small">Arguments and environment apply at the agent’s next start.</p>
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
