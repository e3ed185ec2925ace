import { useCallback, useEffect, useState } from 'react';
import type { Result } from '@shared/contract';
import type { AgentProvider, AgentSummary } from '@shared/contract/agents';
import { useApi } from '../../app/api-context';
import { FormActions } from '../../ui/FormActions';
import { VisibleText } from '../../ui/VisibleText';

/** "Name: value" lines as headers, or the line that is not one. */
function parseHeaders(text: string): { headers: Record<string, string> } | { error: string } {
  const headers: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const at = line.indexOf(':');
    if (at <= 0) return { error: `"${line.slice(0, 60)}" is not "Name: value"` };
    headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return { headers };
}

function ProviderForm({ provider, busy, onSubmit, onCancel }: { provider: AgentProvider; busy: boolean; onSubmit(v: { apiType: string; baseUrl: string; headers: Record<string, string> }): void; onCancel(): void }) {
  const [apiType, setApiType] = useState(provider.current?.apiType ?? provider.supported[0] ?? '');
  const [baseUrl, setBaseUrl] = useState(provider.current?.baseUrl ?? '');
  const [headers, setHeaders] = useState('');
  const parsed = parseHeaders(headers);
  return (
    <form
      className="provider-form"
      data-testid="provider-form"
      onSubmit={(e) => {
        e.preventDefault();
        if ('headers' in parsed) onSubmit({ apiType, baseUrl: baseUrl.trim(), headers: parsed.headers });
      }}
    >
      <label className="field">
        <span>API</span>
        {provider.supported.length > 0 ? (
          <select value={apiType} onChange={(e) => setApiType(e.target.value)} name="apiType">
            {provider.supported.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        ) : (
          <input value={apiType} onChange={(e) => setApiType(e.target.value)} name="apiType" spellCheck={false} />
        )}
      </label>
      <label className="field">
        <span>Base URL</span>
        <input value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} name="baseUrl" placeholder="https://…" spellCheck={false} autoComplete="off" />
      </label>
      <label className="field">
        <span>
          Headers <span className="muted">(one "Name: value" a line, e.g. Authorization; sent to the agent, not stored by Switchboard)</span>
        </span>
        <textarea value={headers} onChange={(e) => setHeaders(e.target.value)} name="headers" rows={2} spellCheck={false} autoComplete="off" />
      </label>
      {'error' in parsed && <div className="error small">{parsed.error}</div>}
      <FormActions>
        <button className="primary" type="submit" disabled={busy || apiType === '' || !/^https?:\/\//i.test(baseUrl.trim()) || 'error' in parsed}>
          {busy ? 'Saving…' : 'Use this provider'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </FormActions>
    </form>
  );
}

/**
 * The model providers a running agent offers (providers/list): where each routes, choosing one's API and URL
 * (providers/set) and disabling one the agent does not require (providers/disable). Every name is the agent's text.
 */
export function ProvidersPanel({ agent }: { agent: AgentSummary }) {
  const api = useApi();
  const [providers, setProviders] = useState<AgentProvider[] | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [message, setMessage] = useState<{ level: 'ok' | 'error'; text: string } | null>(null);
  const load = useCallback(() => {
    void api.call('agents.providers', { agentId: agent.id }).then((r) => {
      if (r.ok) setProviders(r.value.offered ? r.value.providers : null);
      else setMessage({ level: 'error', text: r.error.message });
    });
  }, [api, agent.id]);
  useEffect(load, [load]);

  const act = async (id: string, fn: () => Promise<Result<{ providers: AgentProvider[] }>>, done: string) => {
    setBusy(id);
    setMessage(null);
    const r = await fn();
    setBusy(null);
    if (!r.ok) return setMessage({ level: 'error', text: r.error.message });
    setProviders(r.value.providers);
    setEditing(null);
    setMessage({ level: 'ok', text: done });
  };

  if (providers === null && message === null) return null;
  return (
    <div className="providers-panel" data-testid="providers-panel">
      <div className="auth-title">Providers</div>
      <ul>
        {(providers ?? []).map((p) => (
          <li key={p.id} data-testid="provider" data-provider-id={p.id} data-enabled={p.current !== null}>
            <strong>
              <VisibleText text={p.id} />
            </strong>{' '}
            {p.current ? (
              <span className="muted small">
                <VisibleText text={p.current.apiType} /> · <code><VisibleText text={p.current.baseUrl} /></code>
              </span>
            ) : (
              <span className="tag">disabled</span>
            )}
            {p.required && <span className="tag">required</span>}{' '}
            <button className="link-button small" onClick={() => setEditing(editing === p.id ? null : p.id)} disabled={busy !== null} data-testid="provider-configure">
              {p.current ? 'Change' : 'Enable'}
            </button>
            {!p.required && p.current && (
              <button
                className="link-button small"
                disabled={busy !== null}
                data-testid="provider-disable"
                onClick={() => void act(p.id, () => api.call('agents.disableProvider', { agentId: agent.id, providerId: p.id }), 'Provider disabled.')}
              >
                {busy === p.id ? 'Disabling…' : 'Disable'}
              </button>
            )}
            {editing === p.id && (
              <ProviderForm
                provider={p}
                busy={busy === p.id}
                onCancel={() => setEditing(null)}
                onSubmit={(v) => void act(p.id, () => api.call('agents.setProvider', { agentId: agent.id, providerId: p.id, ...v }), 'Provider set.')}
              />
            )}
          </li>
        ))}
      </ul>
      {message && (
        <div className={message.level === 'error' ? 'error small' : 'ok small'} role={message.level === 'error' ? 'alert' : 'status'}>
          {message.text}
        </div>
      )}
    </div>
  );
}
