import { sessionTitle } from '@shared/session-title';
import { useEffect, useState } from 'react';
import { useNow } from '../../ui/Elapsed';
import type { SessionInfo } from '@shared/contract/sessions';
import { useApi } from '../../app/api-context';
import type { TabViewProps } from '../../app/contributions';
import { agentMetrics, agentName, openSessionTab, syncAgents, useAgents, useMetrics } from '../agents';
import { basename } from '../../ui/format';
import { VisibleText } from '../../ui/VisibleText';
import { formatElapsed, syncOverview, turnTime, useOverview } from './state';
import { openSettings } from '../settings';
import { hostName, syncHosts, useHosts } from '../hosts';
import { buildTree, childLabel, childState, ChildrenToggle, ChildTime, flatten, orderChildren, parentSessionOf, type TreeNode } from '../../ui/session-tree';
import type { AgentSummary } from '@shared/contract/agents';

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
  const now = useNow(active);

  const list = Object.values(sessions)
    .filter((s) => s.status !== 'closed')
    .sort((a, b) => STATE[a.status].order - STATE[b.status].order || b.updatedAt - a.updatedAt);
  // Child sessions (subagents, delegated sessions) under the session that started them, oldest first; the sessions by state.
  const tree = buildTree(list, (s) => s.id, parentSessionOf);
  orderChildren(tree, (s) => s.createdAt);
  const [folded, setFolded] = useState<Record<string, boolean>>({});
  const roots = tree.length;

  return (
    <div className="overview" data-testid="overview">
      <header className="overview-head">
        <h2>Live sessions</h2>
        <span className="muted small">{list.length === 0 ? 'none' : `${roots}`}</span>
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
            {tree.map((root) => {
              const s = root.item;
              const turn = turns[s.id];
              const name = agentName(agents, s.agentId);
              const m = agentMetrics(metrics, s.agentId);
              const running = s.status === 'working' || s.status === 'awaiting_permission';
              const elapsed = running && turn?.startedAt ? formatElapsed(turnTime(turn, now)) : '';
              const usage = turn?.used != null && turn.size ? `${Math.round((turn.used / turn.size) * 100)}%` : '';
              // A failed session says why; a throttled agent's sessions say so briefly, the reason on hover.
              const [note, why] =
                s.status === 'failed' ? [m?.gaveUp ?? s.error, m?.gaveUp ?? s.error] : m?.throttled ? ['throttled: it floods its output', m.throttled] : [null, null];
              return [
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
                    {root.children.length > 0 && (
                      <ChildrenToggle
                        open={!folded[s.id]}
                        count={flatten(root.children).length}
                        testId="overview-children-toggle"
                        onToggle={() => setFolded({ ...folded, [s.id]: !folded[s.id] })}
                      />
                    )}
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
                </tr>,
                ...(folded[s.id] ? [] : childRows(root, name, s, agents)),
              ];
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}

/**
 * The child sessions under a live session: indented under it, their state and time; a click opens the parent
 * (a subagent lives in its thread), or the delegated session itself (a session of its own).
 */
function childRows(root: TreeNode<SessionInfo>, name: string, parent: SessionInfo, agents: readonly AgentSummary[]) {
  return flatten(root.children).map(({ node, depth }) => {
    const c = node.item;
    const { text, working } = childState(c.status, true);
    const childName = agentName(agents, c.agentId);
    const open = () => (c.delegatedBy ? openSessionTab(c, childName) : openSessionTab(parent, name));
    return (
      <tr
        key={c.id}
        className="overview-row overview-child"
        data-testid="overview-child"
        data-session-id={c.id}
        data-parent-id={parentSessionOf(c)}
        data-state={working ? 'working' : 'ended'}
        tabIndex={0}
        onClick={open}
        onKeyDown={(e) => {
          if (e.key === 'Enter') open();
        }}
      >
        <td className="muted">{childName}</td>
        <td />
        <td className="overview-title" style={{ paddingLeft: `${1 + depth}em` }}>
          ↳ <VisibleText text={childLabel(c, childName)} />
        </td>
        <td data-testid="overview-child-state">
          <span className={`overview-dot ${working ? 'working' : 'idle'}`} /> {text}
        </td>
        <td data-testid="overview-child-time">
          <ChildTime createdAt={c.createdAt} lastAt={c.updatedAt} working={working} />
        </td>
        <td />
      </tr>
    );
  });
}
