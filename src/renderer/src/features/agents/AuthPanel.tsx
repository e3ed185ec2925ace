import { useState } from 'react';
import type { AgentSummary, AuthMethodInfo } from '@shared/contract/agents';
import { useApi } from '../../app/api-context';
import { requestOpenLink } from '../../app/link-confirm';
import { externalHref } from '../markdown';
import { useTabs } from '../../state/tabs';
import { displayStatus } from './state';
import { FormActions } from '../../ui/FormActions';

type EnvVarMethod = Extract<AuthMethodInfo, { type: 'env_var' }>;

function EnvVarForm({ agent, method, busy, onSubmit }: { agent: AgentSummary; method: EnvVarMethod; busy: boolean; onSubmit(values: Record<string, string>): void }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const link = externalHref(method.link);
  const missing = method.vars.some((v) => !v.optional && !v.stored && !values[v.name]);
  return (
    <form
      className="auth-env-form"
      onSubmit={(e) => {
        e.preventDefault();
        const filled: Record<string, string> = {};
        for (const [k, v] of Object.entries(values)) if (v) filled[k] = v;
        onSubmit(filled);
      }}
      data-testid="auth-env-form"
    >
      {method.vars.map((v) => (
        <label key={v.name} className="field">
          <span>
            {v.label ?? v.name} {v.optional && <span className="muted">(optional)</span>}
            {v.stored && <span className="tag">stored</span>}
          </span>
          <input
            type={v.secret ? 'password' : 'text'}
            autoComplete="off"
            spellCheck={false}
            name={v.name}
            placeholder={v.stored ? 'stored — type to replace' : v.name}
            value={values[v.name] ?? ''}
            onChange={(e) => setValues({ ...values, [v.name]: e.target.value })}
          />
        </label>
      ))}
      <FormActions>
        <button className="primary" type="submit" disabled={busy || missing}>
          {busy ? 'Saving…' : 'Save and sign in'}
        </button>
        {link && (
          <button type="button" className="link-button" onClick={() => requestOpenLink(link)}>
            Where do I get this?
          </button>
        )}
      </FormActions>
      <p className="muted small">Stored encrypted on this machine; {agent.name} is restarted with them.</p>
    </form>
  );
}

export function openAuthTerminal(agentId: string, agentName: string, terminalId: string, commandLine: string): void {
  useTabs.getState().open({ id: `auth:${terminalId}`, kind: 'agent-auth', title: `Sign in: ${agentName}`, props: { agentId, terminalId, commandLine } });
}

/** How the agent lets you sign in (from its initialize answer), and signing out. */
export function AuthPanel({ agent }: { agent: AgentSummary }) {
  const api = useApi();
  const [busy, setBusy] = useState<string | null>(null);
  const [message, setMessage] = useState<{ level: 'ok' | 'error'; text: string } | null>(null);
  // Its own process, or the one started in a session's folder (that one may be the only one running).
  const status = displayStatus(agent);
  const methods = status.authMethods;
  const canLogout = status.canLogout || agent.storedSecrets.length > 0;
  if (methods.length === 0 && !canLogout) return null;

  const authenticate = async (method: AuthMethodInfo, values?: Record<string, string>) => {
    setBusy(method.id);
    setMessage(null);
    const r = await api.call('agents.authenticate', { agentId: agent.id, methodId: method.id, ...(values ? { values } : {}), cols: 100, rows: 30 });
    setBusy(null);
    if (!r.ok) {
      setMessage({ level: 'error', text: r.error.message });
      return;
    }
    if (r.value.kind === 'terminal') {
      openAuthTerminal(agent.id, agent.name, r.value.terminalId, [r.value.command, ...r.value.args].join(' '));
      setMessage({ level: 'ok', text: 'Opened in a terminal tab. When it finishes successfully, the agent restarts signed in.' });
    } else {
      setMessage({ level: 'ok', text: 'Signed in.' });
    }
  };

  const logout = async () => {
    setBusy('logout');
    const r = await api.call('agents.logout', { agentId: agent.id });
    setBusy(null);
    setMessage(r.ok ? { level: 'ok', text: 'Signed out.' } : { level: 'error', text: r.error.message });
  };

  return (
    <div className="auth-panel" data-testid="auth-panel">
      {methods.length > 0 && <div className="auth-title">Sign in</div>}
      {methods.map((m) => (
        <div key={m.id} className="auth-method" data-testid="auth-method" data-type={m.type}>
          {m.type === 'env_var' ? (
            <>
              <div className="auth-method-name">{m.name}</div>
              {m.description && <div className="muted small">{m.description}</div>}
              <EnvVarForm agent={agent} method={m} busy={busy === m.id} onSubmit={(values) => void authenticate(m, values)} />
            </>
          ) : (
            <>
              <button onClick={() => void authenticate(m)} disabled={busy !== null} title={m.description ?? undefined}>
                {busy === m.id ? 'Working…' : m.type === 'terminal' ? `${m.name} (in a terminal)` : m.name}
              </button>
              {m.description && <div className="muted small">{m.description}</div>}
            </>
          )}
        </div>
      ))}
      {canLogout && (
        <button className="link-button" onClick={() => void logout()} disabled={busy !== null}>
          Sign out{agent.storedSecrets.length > 0 ? ' and forget stored keys' : ''}
        </button>
      )}
      {message && (
        <div className={message.level === 'error' ? 'error small' : 'ok small'} role={message.level === 'error' ? 'alert' : 'status'}>
          {message.text}
        </div>
      )}
    </div>
  );
}
