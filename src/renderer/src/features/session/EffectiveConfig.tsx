import { useEffect, useState } from 'react';
import { X } from 'lucide-react';
import type { EffectiveConfig } from '@shared/contract/session-config';
import { useApi } from '../../app/api-context';
import { VisibleText } from '../../ui/VisibleText';

/**
 * What the agent was given when this session was set up (recorded by the main process at session/new,
 * or resume/load after a restart), and what was left out and why. Environment values are never shown.
 */
export function EffectiveConfigPanel({ sessionId, onClose }: { sessionId: string; onClose(): void }) {
  const api = useApi();
  const [state, setState] = useState<{ config: EffectiveConfig | null; error: string | null } | null>(null);
  useEffect(() => {
    let stale = false;
    void api.call('sessions.effectiveConfig', { sessionId }).then((r) => {
      if (!stale) setState(r.ok ? { config: r.value.config, error: null } : { config: null, error: r.error.message });
    });
    return () => {
      stale = true;
    };
  }, [api, sessionId]);
  const c = state?.config;
  return (
    <section className="effective-config" data-testid="effective-config" aria-label="What the agent was given">
      <div className="effective-config-head">
        <strong>What the agent was given</strong>
        {c && (
          <span className="muted small">
            at {c.method}, {new Date(c.recordedAt).toLocaleString()}
          </span>
        )}
        <span className="spacer" />
        <button className="icon" aria-label="Close" onClick={onClose}>
          <X size={14} />
        </button>
      </div>
      {!state && <p className="muted small">Loading…</p>}
      {state?.error && <p className="error small">{state.error}</p>}
      {state && !state.error && !c && <p className="muted small">Nothing was recorded for this session (it was set up before Switchboard recorded it).</p>}
      {c && (
        <dl className="effective-config-list">
          <dt>Working folder</dt>
          <dd>
            <code><VisibleText text={c.cwd} /></code>
          </dd>
          <dt>Additional folders</dt>
          <dd data-testid="effective-dirs">{c.additionalDirectories.length === 0 ? <span className="muted">none</span> : c.additionalDirectories.map((d) => <code key={d}>{d}</code>)}</dd>
          <dt>MCP servers</dt>
          <dd>
            {c.mcpServers.length === 0 ? (
              <span className="muted">none</span>
            ) : (
              <ul data-testid="effective-mcp">
                {c.mcpServers.map((s) => (
                  <li key={s.name} data-name={s.name}>
                    <strong>{s.name}</strong> <span className="tag">{s.type}</span> <code>{s.target}</code>
                    {s.keys.length > 0 && (
                      <span className="muted small">
                        {' '}
                        {s.type === 'stdio' ? 'env' : 'headers'}: {s.keys.map((k) => `${k}=…`).join(', ')}
                      </span>
                    )}
                  </li>
                ))}
              </ul>
            )}
          </dd>
          <dt>Environment set by Switchboard</dt>
          <dd data-testid="effective-env">
            {c.agentEnvKeys.length === 0 ? <span className="muted">none (the login shell's environment only)</span> : c.agentEnvKeys.map((k) => <code key={k}>{k}=…</code>)}
          </dd>
          <dt>Left out</dt>
          <dd>
            {c.leftOut.length === 0 ? (
              <span className="muted">nothing</span>
            ) : (
              <ul data-testid="effective-left-out">
                {c.leftOut.map((l) => (
                  <li key={`${l.kind}:${l.name}`} data-name={l.name}>
                    {l.kind === 'directory' ? 'Folder' : 'MCP server'} <strong>{l.name}</strong>: {l.reason}
                  </li>
                ))}
              </ul>
            )}
          </dd>
        </dl>
      )}
    </section>
  );
}
