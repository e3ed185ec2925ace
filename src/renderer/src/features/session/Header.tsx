import type { SessionConfigOption, SessionConfigSelectGroup, SessionConfigSelectOption } from '@agentclientprotocol/sdk';
import { memo, useEffect, useState } from 'react';
import { SlidersHorizontal, SquareTerminal } from 'lucide-react';
import type { ThreadState } from '@shared/acp-thread';
import type { SessionInfo } from '@shared/contract/sessions';
import { useApi } from '../../app/api-context';
import { sessionActions } from '../../app/contributions';
import { useNotices } from '../../app/notices';
import { formatCost, formatTokens, STATUS_TEXT } from '../../ui/format';
import { useConnection } from '../../ipc/connection';
import { EffectiveConfigPanel } from './EffectiveConfig';
import { hostName, STATE_TEXT as HOST_STATE_TEXT, syncHosts, useHosts } from '../hosts';
import { openShellTab } from '../shell';
import { VisibleText } from '../../ui/VisibleText';
import { FenceBadge } from './FenceBadge';

const PROMINENT = new Set(['model', 'mode', 'thought_level']);

function isGrouped(options: SessionConfigSelectOption[] | SessionConfigSelectGroup[]): options is SessionConfigSelectGroup[] {
  return options.length > 0 && 'group' in options[0]!;
}

function ConfigSelect({ sessionId, option, disabled }: { sessionId: string; option: SessionConfigOption; disabled: boolean }) {
  const api = useApi();
  // The choice shows at once; the agent's answer (the complete options) replaces it.
  const [pending, setPending] = useState<string | boolean | null>(null);
  const [busy, setBusy] = useState(false);
  // The thread catches up with the agent's answer a frame later: until then the answer is shown.
  useEffect(() => setPending(null), [option.currentValue]);
  const set = async (value: string | boolean) => {
    setPending(value);
    setBusy(true);
    const r = await api.call('sessions.setConfigOption', { sessionId, configId: option.id, value });
    setBusy(false);
    if (!r.ok) {
      setPending(null);
      useNotices.getState().push('error', `Could not change ${option.name}: ${r.error.message}`);
      return;
    }
    const answered = r.value.configOptions.find((o) => o.id === option.id)?.currentValue;
    setPending(answered === undefined || answered === option.currentValue ? null : answered);
  };
  const prominent = option.category ? PROMINENT.has(option.category) : false;
  const label = (
    <span className="config-label" title={option.description ?? undefined}>
      {option.name}
    </span>
  );
  if (option.type === 'boolean') {
    return (
      <label className={`config-option boolean${prominent ? ' prominent' : ''}`} data-testid="config-option" data-config-id={option.id}>
        <input type="checkbox" checked={typeof pending === 'boolean' ? pending : option.currentValue} disabled={disabled || busy} onChange={(e) => void set(e.target.checked)} />
        {label}
      </label>
    );
  }
  if (option.type !== 'select') return null;
  const opts = option.options;
  return (
    <label className={`config-option${prominent ? ' prominent' : ''}`} data-testid="config-option" data-config-id={option.id} data-category={option.category ?? undefined}>
      {label}
      <select value={typeof pending === 'string' ? pending : option.currentValue} disabled={disabled || busy} onChange={(e) => void set(e.target.value)} aria-label={option.name}>
        {isGrouped(opts)
          ? opts.map((g) => (
              <optgroup key={g.group} label={g.name}>
                {g.options.map((o) => (
                  <option key={o.value} value={o.value} title={o.description ?? undefined}>
                    {o.name}
                  </option>
                ))}
              </optgroup>
            ))
          : (opts as SessionConfigSelectOption[]).map((o) => (
              <option key={o.value} value={o.value} title={o.description ?? undefined}>
                {o.name}
              </option>
            ))}
      </select>
    </label>
  );
}

function ModePicker({ sessionId, modes, disabled }: { sessionId: string; modes: ThreadState['modes']; disabled: boolean }) {
  const api = useApi();
  const [pending, setPending] = useState<string | null>(null);
  const busy = pending !== null;
  if (!modes || modes.availableModes.length === 0) return null;
  const set = async (modeId: string) => {
    setPending(modeId);
    const r = await api.call('sessions.setMode', { sessionId, modeId });
    setPending(null);
    if (!r.ok) useNotices.getState().push('error', `Could not change the mode: ${r.error.message}`);
  };
  const current = modes.availableModes.find((m) => m.id === modes.currentModeId);
  return (
    <label className="config-option prominent" data-testid="mode-picker">
      <span className="config-label" title={current?.description ?? undefined}>
        Mode
      </span>
      <select value={pending ?? modes.currentModeId} disabled={disabled || busy} onChange={(e) => void set(e.target.value)} aria-label="Mode">
        {!current && <option value={modes.currentModeId}>{modes.currentModeId}</option>}
        {modes.availableModes.map((m) => (
          <option key={m.id} value={m.id} title={m.description ?? undefined}>
            {m.name}
          </option>
        ))}
      </select>
    </label>
  );
}

function Usage({ usage: u }: { usage: ThreadState['usage'] }) {
  if (!u) return null;
  const pct = u.size > 0 ? Math.min(100, Math.round((u.used / u.size) * 100)) : 0;
  return (
    <span className="usage" data-testid="usage" title={`${u.used.toLocaleString()} of ${u.size.toLocaleString()} tokens of context used`}>
      <span className="usage-bar" aria-hidden>
        <span style={{ width: `${pct}%` }} className={pct > 85 ? 'high' : ''} />
      </span>
      {formatTokens(u.used)} / {formatTokens(u.size)}
      {u.cost && <span className="usage-cost"> · {formatCost(u.cost.amount, u.cost.currency)}</span>}
    </span>
  );
}

/**
 * The session's header. Given the thread's parts it shows, not the thread: a streamed chunk changes the thread
 * every frame, and leaves these (and so the header) as they were.
 */
export const SessionHeader = memo(function SessionHeader({
  session,
  modes,
  configOptions,
  usage,
  agentName,
  agentHost,
  title,
  filesCount,
  filesOpen,
  onToggleFiles,
}: {
  session: SessionInfo | null;
  modes: ThreadState['modes'];
  configOptions: ThreadState['configOptions'];
  usage: ThreadState['usage'];
  agentName: string;
  /** A network agent's host (its URL's): where the agent runs; null: a process on the session's host. */
  agentHost: string | null;
  title: string;
  filesCount: number;
  filesOpen: boolean;
  onToggleFiles(): void;
}) {
  const disabled = !session || session.status === 'failed' || session.status === 'closed' || session.status === 'starting';
  const hasModeOption = configOptions.some((o) => o.category === 'mode');
  const connected = useConnection((c) => c.connected);
  const status = session?.status ?? 'starting';
  const [setupOpen, setSetupOpen] = useState(false);
  const hostId = session?.hostId ?? 'local';
  const api = useApi();
  // The host's state is followed even when the sidebar's Hosts section is not shown.
  useEffect(() => {
    if (hostId !== 'local') syncHosts(api);
  }, [api, hostId]);
  const host = useHosts((s) => (hostId === 'local' ? null : (s.hosts.find((h) => h.id === hostId) ?? null)));
  const hostLabel = useHosts((s) => hostName(s.hosts, hostId));
  return (
    <header className="session-header" data-testid="session-header">
      <div className="session-title-row">
        <span className={`status-dot ${connected ? status : 'disconnected'}`} aria-hidden />
        <h1 className="session-title" data-testid="session-title" title={title}>
          <VisibleText text={title} />
        </h1>
        <span
          className="session-status"
          data-testid="session-status"
          data-status={connected ? status : 'disconnected'}
          data-asleep={session?.asleep}
          title={session?.asleep ? 'Its agent was stopped while idle, to give its memory back: the session comes back (resumed) when you use it' : undefined}
        >
          {!connected ? 'Disconnected' : session?.asleep === 'waking' ? 'Resuming…' : session?.asleep === 'asleep' ? 'Asleep' : STATUS_TEXT[status]}
        </span>
        <span className="spacer" />
        <Usage usage={usage} />
        <button className={`files-button${filesOpen ? ' on' : ''}`} onClick={onToggleFiles} aria-pressed={filesOpen} data-testid="files-button">
          Files changed{filesCount > 0 ? ` (${filesCount})` : ''}
        </button>
        {session &&
          sessionActions.map((a) => (
            <button key={a.id} className="small" onClick={() => void a.run(api, session.id)} title={a.title} data-testid={`session-action-${a.id}`}>
              {a.label}
            </button>
          ))}
        {session && (
          <button
            className="icon"
            onClick={() => openShellTab(session.cwd, hostId, hostId === 'local' ? undefined : hostLabel)}
            aria-label={hostId === 'local' ? 'New shell in the session folder' : `New shell on ${hostLabel}, in the session folder`}
            title={hostId === 'local' ? 'New shell in the session folder' : `New shell on ${hostLabel}, in the session folder`}
            data-testid="session-shell-button"
          >
            <SquareTerminal size={14} />
          </button>
        )}
        <button
          className={`icon${setupOpen ? ' on' : ''}`}
          onClick={() => setSetupOpen((o) => !o)}
          aria-pressed={setupOpen}
          aria-label="What the agent was given"
          title="What the agent was given (MCP servers, folders, environment)"
          data-testid="effective-config-button"
        >
          <SlidersHorizontal size={14} />
        </button>
      </div>
      {setupOpen && session && <EffectiveConfigPanel sessionId={session.id} onClose={() => setSetupOpen(false)} />}
      <div className="session-meta-row">
        <span className="session-agent" data-testid="session-agent">
          <VisibleText text={agentName} />
        </span>
        {session && agentHost !== null && (
          <span className="session-host" data-testid="session-host" data-agent-url-host={agentHost} title={`The agent runs at ${agentHost}, reached over the network`}>
            at <VisibleText text={agentHost} />
          </span>
        )}
        {session && agentHost === null && (
          <span className="session-host" data-testid="session-host" data-host-id={hostId}>
            {hostId === 'local' ? 'This machine' : hostLabel}
          </span>
        )}
        {session && <FenceBadge sessionId={session.id} hostId={hostId} />}
        {host && host.state !== 'connected' && (
          <span className={`session-host-state ${host.state === 'reconnecting' ? 'warn' : 'error'} small`} role="status" data-testid="session-host-state">
            {host.state === 'reconnecting' ? 'Connection lost, reconnecting…' : `${HOST_STATE_TEXT[host.state]}${host.error ? `: ${host.error}` : ''}`}
          </span>
        )}
        {session && (
          <span className="session-cwd muted" title={session.cwd}>
            <VisibleText text={session.cwd} />
          </span>
        )}
        {session && (
          <span className="config-options">
            {!hasModeOption && <ModePicker sessionId={session.id} modes={modes} disabled={disabled} />}
            {configOptions.map((o) => (
              <ConfigSelect key={o.id} sessionId={session.id} option={o} disabled={disabled} />
            ))}
          </span>
        )}
      </div>
    </header>
  );
});
