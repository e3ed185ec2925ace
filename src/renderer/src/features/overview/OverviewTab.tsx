import { sessionTitle } from '@shared/session-title';
import { useEffect, useState } from 'react';
import type { SessionInfo } from '@shared/contract/sessions';
import { useApi } from '../../app/api-context';
import type { TabViewProps } from '../../app/contributions';
import { agentMetrics, agentName, openSessionTab, syncAgents, useAgents, useMetrics } from '../agents';
import { basename } from '../../ui/format';
import { VisibleText } from '../../ui/VisibleText';
import { formatElapsed, syncOverview, turnTime, useOverview } from './state';
import { openSettings } from '../settings';
import { hostName, syncHosts, useHosts } from '../hosts';

export const OVERVIEW_TAB_ID = 'overview';

const STATE: Record<SessionInfo['status'], { label: string; order: number }> = {
  awaiting_permission: { label: 'waiting for permission', order: 0 },
  failed: { label: 'failed', order: 1 },
  auth_required: { label: 'needs sign-in', order: 2 },
  working: { label: 'working', order: 3 },
  starting: { label: 'starting', order: 4 },
  idle: { label: 'idle', order: 5 },
  closed: { label: 'closed', order: 6 },
};

/** Every live session at a glance: agent, project, state, how long the turn runs, context used. */
export function OverviewTab({ active }: TabViewProps) {
  const api = useApi();
  useEffect(() => {
    syncAgents(api);
    syncOverview(api);
    syncHosts(api);
  }, [api]);
  const hosts = useHosts((s) => s.hosts);
  const sessions = useAgents((s) => s.sessions);
  const agents = useAgents((s) => s.agents);
  const turns = useOverview((s) => s.turns);
  const metrics = useMetrics((s) => s.metrics);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);

  const list = Object.values(sessions)
    .filter((s) => s.status !== 'closed')
    .sort((a, b) => STATE[a.status].order - STATE[b.status].order || b.updatedAt - a.updatedAt);

  return (
    <div className="overview" data-testid="overview">
      <header className="overview-head">
        <h2>Live sessions</h2>
        <span className="muted small">{list.length === 0 ? 'none' : `${list.length}`}</span>
        <span className="overview-spacer" />
        <button className="link-button small" onClick={() => void openSettings('notifications')} data-testid="overview-notification-settings">
          Notifications…
        </button>
        <button className="link-button small" onClick={() => void openSettings('supervision')} data-testid="overview-supervision-settings">
          Agent supervision…
        </button>
      </header>
      {list.length === 0 ? (
        <p className="muted overview-empty" data-testid="overview-empty">
          No live sessions. Start one from the Agents sidebar or a new tab.
        </p>
      ) : (
        <table className="overview-table">
          <thead>
            <tr>
              <th>Agent</th>
              <th>Project</th>
              <th>Session</th>
              <th>State</th>
              <th>Turn</th>
              <th>Context</th>
            </tr>
          </thead>
          <tbody>
            {list.map((s) => {
              const turn = turns[s.id];
              const name = agentName(agents, s.agentId);
              const m = agentMetrics(metrics, s.agentId);
              const running = s.status === 'working' || s.status === 'awaiting_permission';
              const elapsed = running && turn?.startedAt ? formatElapsed(turnTime(turn, now)) : '';
              const usage = turn?.used != null && turn.size ? `${Math.round((turn.used / turn.size) * 100)}%` : '';
              // A failed session says why; a throttled agent's sessions say so briefly, the reason on hover.
              const [note, why] =
                s.status === 'failed' ? [m?.gaveUp ?? s.error, m?.gaveUp ?? s.error] : m?.throttled ? ['throttled: it floods its output', m.throttled] : [null, null];
              return (
                <tr
                  key={s.id}
                  className={`overview-row state-${s.status}`}
                  data-testid="overview-row"
                  data-session-id={s.id}
                  data-state={s.status}
                  tabIndex={0}
                  onClick={() => openSessionTab(s, name)}
                  onKeyDown={(e) => {
                    if (e.key === 'Enter') openSessionTab(s, name);
                  }}
                >
                  <td>{name}</td>
                  <td title={s.hostId && s.hostId !== 'local' ? `${s.cwd} on ${hostName(hosts, s.hostId)}` : s.cwd}>
                    <VisibleText text={basename(s.cwd)} />
                    {s.hostId && s.hostId !== 'local' && (
                      <span className="muted small overview-host" data-testid="overview-host">
                        {' '}
                        on <VisibleText text={hostName(hosts, s.hostId)} />
                      </span>
                    )}
                  </td>
                  <td className="overview-title">
                    <VisibleText text={sessionTitle(s.title, name, s.forkedFrom?.title)} />
                  </td>
                  <td data-testid="overview-state" title={why ?? undefined}>
                    <span className={`overview-dot ${s.status}`} /> {STATE[s.status].label}
                    {note && (
                      <div className={`${s.status === 'failed' ? 'error' : 'warning'} small overview-note`} data-testid="overview-note">
                        {note}
                      </div>
                    )}
                  </td>
                  <td data-testid="overview-elapsed">{elapsed}</td>
                  <td title={turn?.used != null && turn.size ? `${turn.used.toLocaleString()} of ${turn.size.toLocaleString()} tokens` : undefined} data-testid="overview-context">
                    {usage}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
