import { sessionTitle } from '@shared/session-title';
import { KeyRound } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';
import type { AgentSummary } from '@shared/contract/agents';
import type { SessionInfo } from '@shared/contract/sessions';
import { useApi } from '../../app/api-context';
import { useTabs } from '../../state/tabs';
import { AgentMetricsBadge, AgentSupervisorNote } from './AgentHealth';
import { NewSessionForm } from './NewSession';
import { basename } from '../../ui/format';
import { AgentForm } from './AgentForm';
import { AuthPanel } from './AuthPanel';
import { AuthAccounts, AuthBadge } from './AuthBadge';
import { openAgentLog } from './log';
import { PermissionRules } from './PermissionRules';
import { ProvidersPanel } from './ProvidersPanel';
import { Modal } from '../../ui/Modal';
import { displayStatus, dropAgent, syncAgents, useAgents } from './state';
import { useConnection } from '../../ipc/connection';
import { ErrorAlert } from '../../ui/Alert';
import { VisibleText } from '../../ui/VisibleText';
import { LiveSessionTree, rootSessionCount } from './LiveSessionTree';

/** An agent's state as shown: 'disconnected' while the page does not reach the core. */
type ShownState = AgentSummary['status']['state'] | 'disconnected';

const STATE_TEXT: Record<ShownState, string> = {
  disconnected: 'disconnected',
  stopped: 'not running',
  starting: 'starting…',
  running: 'running',
  exited: 'exited',
  failed: 'failed',
};

export function openSessionTab(s: SessionInfo, name: string): void {
  const existing = Object.values(useTabs.getState().tabs).find((t) => t.kind === 'session' && t.props.sessionId === s.id);
  if (existing) useTabs.getState().activate(existing.id);
  else useTabs.getState().open({ kind: 'session', title: sessionTitle(s.title, name, s.forkedFrom?.title), props: { sessionId: s.id } });
}

/** Whether the agent ever had a session (any run): null while asking. */
function useEverHadSession(agentId: string): boolean | null {
  const api = useApi();
  const [had, setHad] = useState<boolean | null>(null);
  useEffect(() => {
    let stale = false;
    void api.call('history.list', { agentIds: [agentId], limit: 1 }).then((r) => {
      if (!stale) setHad(r.ok ? r.value.sessions.length > 0 : true);
    });
    return () => {
      stale = true;
    };
  }, [api, agentId]);
  return had;
}

/**
 * Sign-in shows in full when the agent asks for it (a session waits for sign-in) or before its first
 * session; an agent that works keeps it behind a small "Accounts" toggle.
 */
function AgentAccounts({ agent, sessions }: { agent: AgentSummary; sessions: SessionInfo[] }) {
  const everHad = useEverHadSession(agent.id);
  const asked = sessions.some((x) => x.agentId === agent.id && x.status === 'auth_required');
  const [open, setOpen] = useState(false);
  if (everHad === null && !asked) return null;
  if (asked || everHad === false) return <AuthPanel agent={agent} />;
  return (
    <div className="agent-accounts">
      <button className="link-button small" onClick={() => setOpen(!open)} aria-expanded={open} data-testid="agent-accounts">
        {open ? '▾' : '▸'} Accounts
      </button>
      {open && <AuthPanel agent={agent} />}
    </div>
  );
}

type Dialog = { kind: 'add' } | { kind: 'edit'; agent: AgentSummary } | { kind: 'session'; agentId?: string };

/** `sessions`: the agent's live sessions; `all`: every live session (its sessions' children may be other agents'). */
function AgentRow({ agent, sessions, all, onDialog }: { agent: AgentSummary; sessions: SessionInfo[]; all: SessionInfo[]; onDialog(d: Dialog): void }) {
  const api = useApi();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const connected = useConnection((c) => c.connected);
  const shown = displayStatus(agent);
  // Without the core nothing is known to run: the last state it sent is not shown as live.
  const s: Omit<typeof shown, 'state'> & { state: ShownState } = connected ? shown : { ...shown, state: 'disconnected' };
  const folderProcesses = (agent.folderProcesses ?? []).filter((p) => p.state !== 'stopped');
  const title = agent.name;
  const roots = rootSessionCount(all, agent.id);
  const openSessions = sessions.filter((x) => !x.subagent && x.status !== 'closed');
  // Every session of it asleep: its processes were stopped while idle, to give their memory back.
  const asleep = openSessions.length > 0 && openSessions.every((x) => x.asleep === 'asleep');
  const needsAuth = s.authMethods.length > 0 && s.state === 'running';

  const run = async (what: string, fn: () => Promise<{ ok: boolean; error?: { message: string } }>) => {
    setBusy(what);
    setError(null);
    const r = await fn();
    setBusy(null);
    if (!r.ok) setError(r.error?.message ?? 'failed');
  };

  return (
    <li className={`agent-row${open ? ' open' : ''}`} data-testid="agent-row" data-agent-id={agent.id} data-state={s.state}>
      <div className="agent-line">
        <button className="agent-name" onClick={() => setOpen(!open)} aria-expanded={open} title={s.error ?? `${title}: ${STATE_TEXT[s.state]}`}>
          <span className={`agent-dot ${s.state}`} aria-label={STATE_TEXT[s.state]} />
          <span className="agent-title"><VisibleText text={title} /></span>
          {s.authMethods.length > 0 && (
            <span className="agent-auth-hint" title="This agent offers sign-in methods (open for details)" aria-label="sign-in available">
              <KeyRound size={12} />
            </span>
          )}
          {s.state === 'running' && <AuthBadge auth={s.auth} />}
          {roots > 0 && <span className="agent-count">{roots}</span>}
          <AgentMetricsBadge agentId={agent.id} />
          {asleep && (
            <span className="agent-asleep muted small" data-testid="agent-asleep" title="Stopped while its sessions were idle, to give its memory back: they come back (resumed) when you use them">
              asleep
            </span>
          )}
        </button>
        <button className="icon" title={`New session with ${title}`} aria-label={`New session with ${title}`} onClick={() => onDialog({ kind: 'session', agentId: agent.id })} data-testid="agent-new-session">
          +
        </button>
      </div>
      {open && (
        <div className="agent-details" data-testid="agent-details">
          <div className="muted small agent-state" data-testid="agent-state">
            {STATE_TEXT[s.state]}
            {s.pid ? ` · pid ${s.pid}` : ''}
            {s.agentInfo ? ` · ${s.agentInfo.title ?? s.agentInfo.name} ${s.agentInfo.version}` : agent.version ? ` · ${agent.version}` : ''}
            {agent.source !== 'custom' ? ` · ${agent.source}` : ''}
          </div>
          {s.error && <div className="error small">{s.error}</div>}
          {s.state === 'running' && <AuthAccounts auth={s.auth} />}
          {folderProcesses.length > 0 && (
            <ul className="agent-processes small" data-testid="agent-processes" aria-label="Processes by project folder">
              {folderProcesses.map((p) => (
                <li key={p.folder} data-testid="agent-process" data-folder={p.folder} data-state={p.state} title={p.error ?? undefined}>
                  <span className={`agent-dot ${p.state}`} aria-hidden /> {STATE_TEXT[p.state]} in <code><VisibleText text={basename(p.folder ?? '')} /></code>
                  {p.pid ? ` · pid ${p.pid}` : ''}
                </li>
              ))}
            </ul>
          )}
          <AgentSupervisorNote agentId={agent.id} />
          <code className="agent-command small" title="Command">
            {[agent.command, ...(agent.overrides.args ?? agent.args)].join(' ')}
          </code>
          <div className="agent-actions">
            {s.state === 'running' || s.state === 'starting' ? (
              <button disabled={busy !== null} onClick={() => void run('stop', () => api.call('agents.stop', { agentId: agent.id }))}>
                Stop
              </button>
            ) : (
              <button disabled={busy !== null} onClick={() => void run('start', () => api.call('agents.start', { agentId: agent.id }))}>
                {busy === 'start' ? 'Starting…' : 'Start'}
              </button>
            )}
            <button disabled={busy !== null} onClick={() => void run('restart', () => api.call('agents.restart', { agentId: agent.id }))} data-testid="agent-restart">
              {busy === 'restart' ? 'Restarting…' : 'Restart'}
            </button>
            <button onClick={() => openAgentLog(agent.id, title)} data-testid="agent-log-button">
              Log
            </button>
            <button onClick={() => onDialog({ kind: 'edit', agent })} data-testid="agent-edit">
              Edit
            </button>
            {agent.source === 'custom' &&
              (confirmRemove ? (
                <span className="confirm">
                  Remove?{' '}
                  <button
                    className="danger"
                    onClick={() =>
                      void run('remove', async () => {
                        const r = await api.call('agents.remove', { agentId: agent.id });
                        if (r.ok) dropAgent(agent.id);
                        return r;
                      })
                    }
                  >
                    Yes
                  </button>{' '}
                  <button onClick={() => setConfirmRemove(false)}>No</button>
                </span>
              ) : (
                <button onClick={() => setConfirmRemove(true)} data-testid="agent-remove">
                  Remove
                </button>
              ))}
          </div>
          {error && (
            <ErrorAlert>{error}</ErrorAlert>
          )}
          {(needsAuth || s.canLogout || agent.storedSecrets.length > 0 || s.authMethods.length > 0) && <AgentAccounts agent={agent} sessions={sessions} />}
          {s.state === 'running' && (s.capabilities as { providers?: unknown } | null)?.providers != null && <ProvidersPanel agent={agent} />}
          <PermissionRules agentId={agent.id} />
          {sessions.length > 0 && <LiveSessionTree sessions={all} agentId={agent.id} agentName={title} onOpen={(x, name) => openSessionTab(x, name)} />}
        </div>
      )}
    </li>
  );
}

/** Sidebar: the agents you can start sessions with, live. */
export function AgentsSection() {
  const api = useApi();
  const agents = useAgents((s) => s.agents);
  const loaded = useAgents((s) => s.loaded);
  const error = useAgents((s) => s.error);
  const sessions = useAgents((s) => s.sessions);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const close = useCallback(() => setDialog(null), []);
  useEffect(() => syncAgents(api), [api]);

  return (
    <div className="agents-section">
      {error && <p className="error small">{error}</p>}
      {loaded && agents.length === 0 && (
        <p className="muted" data-testid="agents-empty">
          No agents yet. Install one from the ACP Registry, or add your own command.
        </p>
      )}
      <ul className="agent-list">
        {agents.map((a) => (
          <AgentRow key={a.id} agent={a} sessions={Object.values(sessions).filter((s) => s.agentId === a.id)} all={Object.values(sessions)} onDialog={setDialog} />
        ))}
      </ul>
      <div className="agents-actions">
        {agents.length > 0 && (
          <button className="link-button" onClick={() => setDialog({ kind: 'session' })} data-testid="sidebar-new-session">
            New session…
          </button>
        )}
        <button className="link-button" onClick={() => setDialog({ kind: 'add' })} data-testid="add-custom-agent">
          Add custom agent…
        </button>
      </div>
      {dialog?.kind === 'add' && (
        <Modal label="Add a custom agent" onClose={close}>
          <AgentForm mode="add" onDone={close} />
        </Modal>
      )}
      {dialog?.kind === 'edit' && (
        <Modal label={`Edit ${dialog.agent.name}`} onClose={close}>
          <AgentForm mode="edit" agent={dialog.agent} onDone={close} />
        </Modal>
      )}
      {dialog?.kind === 'session' && (
        <Modal label="New session" onClose={close}>
          <h2>New session</h2>
          <NewSessionForm initialAgentId={dialog.agentId} onStarted={close} autoFocus />
        </Modal>
      )}
    </div>
  );
}
