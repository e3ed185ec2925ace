import type { SessionInfo as AcpSessionInfo } from '@agentclientprotocol/sdk';
import { useState } from 'react';
import { useApi } from '../../app/api-context';
import { VisibleText } from '../../ui/VisibleText';
import { useNotices } from '../../app/notices';
import { readableAgentId, useAgents } from '../agents';
import { openLiveSessionTab } from '../session';
import { reopenAsTab } from './continue';
import { relativeTime, shortPath } from './format';
import { ErrorAlert } from '../../ui/Alert';
import { AgentSelect } from '../../ui/Select';

interface Listing {
  agentId: string;
  cwd: string;
  sessions: AcpSessionInfo[];
  nextCursor: string | null;
  /** ACP session id → Switchboard session id, for those already here. */
  known: Record<string, string>;
}

/**
 * "Agent's sessions": the sessions an agent keeps itself (session/list, when it advertises it), page by page
 * and optionally for one folder. Import makes one a Switchboard session and opens it live (load/resume).
 */
export function AgentSessions() {
  const api = useApi();
  const agents = useAgents((s) => s.agents);
  const [agentId, setAgentId] = useState('');
  const [cwd, setCwd] = useState('');
  const [listing, setListing] = useState<Listing | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const chosen = agentId || agents[0]?.id || '';

  const fetchPage = async (cursor: string | null) => {
    if (!chosen) return;
    setBusy('list');
    setError(null);
    const folder = cwd.trim();
    const r = await api.call('agents.listSessions', { agentId: chosen, ...(folder ? { cwd: folder } : {}), ...(cursor ? { cursor } : {}) });
    if (!r.ok) {
      setBusy(null);
      setError(r.error.code === 'unavailable' ? `${nameOf(chosen)} does not list its sessions (no session/list).` : r.error.message);
      if (!cursor) setListing(null);
      return;
    }
    const k = await api.call('agents.knownSessions', { agentId: chosen, acpSessionIds: r.value.sessions.map((s) => s.sessionId).slice(0, 1000) });
    setBusy(null);
    const known = k.ok ? k.value.known : {};
    setListing((prev) =>
      cursor && prev
        ? { ...prev, sessions: [...prev.sessions, ...r.value.sessions], nextCursor: r.value.nextCursor, known: { ...prev.known, ...known } }
        : { agentId: chosen, cwd: folder, sessions: r.value.sessions, nextCursor: r.value.nextCursor, known },
    );
  };

  const nameOf = (id: string) => agents.find((a) => a.id === id)?.name ?? readableAgentId(id);

  const open = async (s: AcpSessionInfo) => {
    if (!listing) return;
    const title = s.title || `${nameOf(listing.agentId)} · ${shortPath(s.cwd)}`;
    const existing = listing.known[s.sessionId];
    setBusy(s.sessionId);
    try {
      if (existing) {
        await reopenAsTab(api, existing, title);
        return;
      }
      const r = await api.call('sessions.import', { agentId: listing.agentId, acpSessionId: s.sessionId, cwd: s.cwd, title: s.title ?? null });
      if (!r.ok) {
        useNotices.getState().push('error', `Could not import “${title}”: ${r.error.message}`);
        return;
      }
      setListing((prev) => (prev ? { ...prev, known: { ...prev.known, [s.sessionId]: r.value.session.id } } : prev));
      openLiveSessionTab(r.value.session.id, title);
      useNotices
        .getState()
        .push('info', `Imported “${title}”: ${nameOf(listing.agentId)} ${r.value.mode === 'resume' ? 'resumed it (session/resume)' : 'loaded it (session/load)'}.`);
    } finally {
      setBusy(null);
    }
  };

  return (
    <div className="agent-sessions" data-testid="agent-sessions">
      <p className="muted small">Sessions an agent keeps itself (also ones started elsewhere). Import one to open it here as a live session.</p>
      <div className="history-filters">
        <AgentSelect agents={agents} value={chosen} onChange={setAgentId} aria-label="Agent" data-testid="agent-sessions-agent" />
        <input value={cwd} onChange={(e) => setCwd(e.target.value)} placeholder="Only this folder (absolute path, optional)" aria-label="Folder" data-testid="agent-sessions-cwd" />
        <button onClick={() => void fetchPage(null)} disabled={!chosen || busy === 'list'} data-testid="agent-sessions-list">
          {busy === 'list' ? 'Asking…' : 'List its sessions'}
        </button>
      </div>
      {error && (
        <ErrorAlert testId="agent-sessions-error">{error}</ErrorAlert>
      )}
      {listing && listing.sessions.length === 0 && <p className="muted">No sessions{listing.cwd ? ` in ${listing.cwd}` : ''}.</p>}
      {listing && listing.sessions.length > 0 && (
        <ul className="history-list">
          {listing.sessions.map((s) => {
            const here = listing.known[s.sessionId];
            return (
              <li key={s.sessionId} className="history-row" data-testid="agent-session-row" data-acp-session-id={s.sessionId}>
                <div className="history-row-main">
                  <span className={`history-title static${s.title ? '' : ' untitled'}`}>
                    <VisibleText text={s.title || s.sessionId} />
                  </span>
                  {s.updatedAt && <span className="history-time">{relativeTime(Date.parse(s.updatedAt))}</span>}
                </div>
                <div className="history-row-meta">
                  <span title={s.cwd}><VisibleText text={shortPath(s.cwd)} /></span>
                  {here && <span className="tag">in Switchboard</span>}
                  <span className="history-actions visible">
                    <button className="primary" onClick={() => void open(s)} disabled={busy !== null} data-testid="agent-session-import">
                      {busy === s.sessionId ? 'Opening…' : here ? 'Reopen' : 'Import'}
                    </button>
                  </span>
                </div>
              </li>
            );
          })}
        </ul>
      )}
      {listing?.nextCursor && (
        <button className="history-more" onClick={() => void fetchPage(listing.nextCursor)} disabled={busy === 'list'} data-testid="agent-sessions-more">
          More
        </button>
      )}
    </div>
  );
}
