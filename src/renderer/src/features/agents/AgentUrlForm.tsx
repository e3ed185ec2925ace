import { useState } from 'react';
import type { AgentSummary } from '@shared/contract/agents';
import { checkAgentUrl } from '@shared/agent-url';
import { useApi } from '../../app/api-context';
import { upsertAgent } from './state';
import { ErrorAlert } from '../../ui/Alert';
import { FormActions } from '../../ui/FormActions';

/**
 * An agent reached over the network (ACP's draft WebSocket or Streamable HTTP transport): its name, URL and
 * bearer token. The token is stored encrypted and never shown again: editing leaves it as it is unless a new
 * one is typed or "forget" is ticked.
 */
export function AgentUrlForm({ agent, onDone }: { agent: AgentSummary | null; onDone(agent: AgentSummary | null): void }) {
  const api = useApi();
  const [name, setName] = useState(agent?.name ?? '');
  const [url, setUrl] = useState(agent?.url ?? '');
  const [token, setToken] = useState('');
  const [forget, setForget] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const typed = url.trim();
  const newToken = token.trim();
  const check = typed ? checkAgentUrl(typed) : null;

  const submit = async () => {
    if (!name.trim() || !typed) return setError('A name and a URL are needed.');
    if (check && !check.ok) return setError(`This URL is refused: ${check.error}`);
    setBusy(true);
    setError(null);
    const r = agent
      ? await api.call('agents.update', { agentId: agent.id, name: name.trim(), url: typed, ...(newToken ? { token: newToken } : forget ? { token: null } : {}) })
      : await api.call('agents.addByUrl', { name: name.trim(), url: typed, token: newToken || null });
    setBusy(false);
    if (!r.ok) return setError(r.error.message);
    upsertAgent(r.value);
    onDone(r.value);
  };

  return (
    <form
      className="agent-form"
      data-testid="agent-url-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      {agent && <h2>{`Edit ${agent.name}`}</h2>}
      <p className="muted small">An agent served over the network (WebSocket or Streamable HTTP). Switchboard connects to it; it runs where the URL points.</p>
      <label className="field">
        <span>Name</span>
        <input value={name} onChange={(e) => setName(e.target.value)} autoFocus data-testid="agent-name" />
      </label>
      <label className="field">
        <span>URL</span>
        <input value={url} onChange={(e) => setUrl(e.target.value)} spellCheck={false} placeholder="wss://agent.example.com/acp" data-testid="agent-url" />
      </label>
      {check && !check.ok && (
        <div className="command-split small error" data-testid="agent-url-problem" aria-live="polite">
          {check.error}
        </div>
      )}
      <label className="field">
        <span>Token (sent as Authorization: Bearer; stored encrypted)</span>
        <input
          type="password"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          autoComplete="off"
          spellCheck={false}
          placeholder={agent?.tokenStored ? 'stored: type a new one to replace it' : 'none'}
          data-testid="agent-token"
        />
      </label>
      {agent?.tokenStored && (
        <label className="checkbox">
          <input type="checkbox" checked={forget} onChange={(e) => setForget(e.target.checked)} disabled={token !== ''} data-testid="agent-token-forget" /> Forget the stored token
        </label>
      )}
      {agent && <p className="muted small">Changes apply the next time Switchboard connects.</p>}
      {error && <ErrorAlert>{error}</ErrorAlert>}
      <FormActions>
        <button className="primary" type="submit" disabled={busy} data-testid="agent-save">
          {agent ? 'Save' : 'Add agent'}
        </button>
        <button type="button" onClick={() => onDone(null)}>
          Cancel
        </button>
      </FormActions>
    </form>
  );
}
