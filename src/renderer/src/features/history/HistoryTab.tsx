import { Search } from 'lucide-react';
import { useMemo, useState } from 'react';
import type { ParamsOf } from '@shared/contract';
import type { HistorySession } from '@shared/contract/history';
import { useApi } from '../../app/api-context';
import type { TabViewProps } from '../../app/contributions';
import { undoDelete } from './actions';
import { AgentSessions } from './AgentSessions';
import { ImportPanel } from './ImportPanel';
import { plural, relativeTime, shortPath } from './format';
import { useAgentNames, useHeldAtAgents, useHistoryList, useLiveSessions } from './hooks';
import { modKey } from './keys';
import { displayTitle, SessionRow } from './SessionRow';
import { openSearch, setImportOpen, useHistory } from './state';
import { AgentSelect } from '../../ui/Select';
import { VisibleText, visibleText } from '../../ui/VisibleText';

const PAGE = 200;

interface Group {
  cwd: string;
  agents: Array<{ agentId: string; sessions: HistorySession[] }>;
}

/** Sessions grouped by project, then agent, in the list's order (pinned first, then most recent). */
export function groupSessions(sessions: readonly HistorySession[]): Group[] {
  const byCwd = new Map<string, Map<string, HistorySession[]>>();
  for (const s of sessions) {
    let agents = byCwd.get(s.cwd);
    if (!agents) byCwd.set(s.cwd, (agents = new Map()));
    let list = agents.get(s.agentId);
    if (!list) agents.set(s.agentId, (list = []));
    list.push(s);
  }
  return [...byCwd].map(([cwd, agents]) => ({ cwd, agents: [...agents].map(([agentId, list]) => ({ agentId, sessions: list })) }));
}

/** Every past session, grouped by project and agent, with filters; and the recently deleted ones. */
export function HistoryTab(_props: TabViewProps) {
  const names = useAgentNames();
  const live = useLiveSessions();
  const [agentId, setAgentId] = useState('');
  const [project, setProject] = useState('');
  const [pinnedOnly, setPinnedOnly] = useState(false);
  const [failedOnly, setFailedOnly] = useState(false);
  const [archivedOnly, setArchivedOnly] = useState(false);
  const [trash, setTrash] = useState(false);
  const [agentView, setAgentView] = useState(false);
  const importing = useHistory((s) => s.importOpen);
  const [limit, setLimit] = useState(PAGE);

  const params: ParamsOf<'history.list'> = {
    limit,
    ...(agentId ? { agentIds: [agentId] } : {}),
    ...(project ? { projects: [project] } : {}),
    ...(pinnedOnly ? { pinnedOnly } : {}),
    ...(failedOnly ? { failedOnly } : {}),
    ...(trash ? { deleted: true } : {}),
    ...(archivedOnly && !trash ? { archived: 'only' as const } : {}),
  };
  const { data, error } = useHistoryList(params);
  const all = useHistoryList({ limit: 1, archived: 'include' }).data;
  const groups = useMemo(() => groupSessions(data?.sessions ?? []), [data]);
  const sessionIds = useMemo(() => (data?.sessions ?? []).map((x) => x.id), [data]);
  const held = useHeldAtAgents(trash ? [] : sessionIds);
  const agents = useMemo(() => [...new Set((all?.groups ?? []).map((g) => g.agentId))].sort((a, b) => names(a).localeCompare(names(b))), [all, names]);
  const projects = useMemo(() => [...new Set((all?.groups ?? []).map((g) => g.cwd))].sort(), [all]);
  const filtered = Boolean(agentId || project || pinnedOnly || failedOnly || archivedOnly);

  return (
    <div className="history-tab" data-testid="history-tab">
      <header className="history-tab-head">
        <h1>{agentView ? "Agent's sessions" : trash ? 'Recently deleted' : 'History'}</h1>
        <button className="history-search-button wide" onClick={openSearch} title={`${modKey}+Shift+F or ${modKey}+K`} data-testid="history-tab-search">
          <Search size={13} /> Search everything… <kbd>{modKey}+K</kbd>
        </button>
        <div className="history-filters">
          <AgentSelect agents={agents.map((id) => ({ id, name: names(id) }))} empty="All agents" value={agentId} onChange={setAgentId} aria-label="Agent" data-testid="history-tab-agent" />
          <select value={project} onChange={(e) => setProject(e.target.value)} aria-label="Project" data-testid="history-tab-project">
            <option value="">All projects</option>
            {projects.map((p) => (
              <option key={p} value={p}>
                {visibleText(shortPath(p))}
              </option>
            ))}
          </select>
          <label className="history-check">
            <input type="checkbox" checked={pinnedOnly} onChange={(e) => setPinnedOnly(e.target.checked)} /> Pinned
          </label>
          <label className="history-check">
            <input type="checkbox" checked={failedOnly} onChange={(e) => setFailedOnly(e.target.checked)} /> With failed turns
          </label>
          <label className="history-check" title="Archived sessions are hidden from the list (search still finds them)">
            <input type="checkbox" checked={archivedOnly} onChange={(e) => setArchivedOnly(e.target.checked)} data-testid="history-archived-filter" /> Archived
          </label>
          <button className="link-button" onClick={() => setImportOpen(!importing)} aria-pressed={importing} data-testid="history-import-toggle">
            Import…
          </button>
          <button className="link-button" onClick={() => setTrash(!trash)} data-testid="history-trash-toggle">
            {trash ? '← All sessions' : 'Recently deleted'}
          </button>
          <button className="link-button" onClick={() => setAgentView(!agentView)} aria-pressed={agentView} data-testid="history-agent-sessions-toggle">
            {agentView ? '← Switchboard sessions' : "Agent's sessions"}
          </button>
        </div>
        {data && (
          <div className="muted small" data-testid="history-count">
            {plural(data.total, 'session')}
            {!data.indexing.done && ` · indexing older sessions (${data.indexing.pendingMessages.toLocaleString()} messages to go)`}
          </div>
        )}
      </header>
      <div className="history-tab-body">
        {importing && <ImportPanel onClose={() => setImportOpen(false)} />}
        {agentView && <AgentSessions />}
        {!agentView && error && <div className="banner error">History is not available: {error}</div>}
        {!agentView && data && data.total === 0 && (
          <div className="empty-state" data-testid="history-tab-empty">
            {trash ? (
              <p>Nothing was deleted recently. Deleted sessions stay here for a while, so you can restore them.</p>
            ) : archivedOnly && !agentId && !project && !pinnedOnly && !failedOnly ? (
              <p>No archived sessions. Archive one from its row: it leaves this list and stays searchable.</p>
            ) : filtered ? (
              <p>No session matches these filters.</p>
            ) : (
              <>
                <h1>No sessions yet</h1>
                <p>
                  Start an agent session from a new tab (<kbd>{modKey}</kbd>+<kbd>T</kbd>). Every conversation is kept here, grouped by project and agent, and
                  you can search all of it with <kbd>{modKey}</kbd>+<kbd>Shift</kbd>+<kbd>F</kbd>.
                </p>
              </>
            )}
          </div>
        )}
        {agentView ? null : trash ? (
          <TrashList sessions={data?.sessions ?? []} names={names} />
        ) : (
          groups.map((g) => (
            <section key={g.cwd} className="history-project" data-testid="history-project" data-cwd={g.cwd}>
              <h2 title={g.cwd}>
                <span className="history-project-name"><VisibleText text={shortPath(g.cwd)} /></span>
              </h2>
              {g.agents.map((a) => (
                <div key={a.agentId} className="history-agent-group" data-testid="history-agent-group" data-agent-id={a.agentId}>
                  <h3>
                    {names(a.agentId)} <span className="muted">· {plural(a.sessions.length, 'session')}</span>
                  </h3>
                  <ul className="history-list">
                    {a.sessions.map((s) => (
                      <SessionRow key={s.id} session={s} agentName={names(s.agentId)} live={s.id in live} held={held[s.id] ?? null} />
                    ))}
                  </ul>
                </div>
              ))}
            </section>
          ))
        )}
        {!agentView && data && data.sessions.length < data.total && (
          <button className="history-more" onClick={() => setLimit(Math.min(1000, limit + PAGE))} disabled={limit >= 1000}>
            {limit >= 1000 ? 'Use the filters or search to find older sessions' : `Show more (${(data.total - data.sessions.length).toLocaleString()} older)`}
          </button>
        )}
      </div>
    </div>
  );
}

function TrashList({ sessions, names }: { sessions: HistorySession[]; names: (id: string) => string }) {
  const api = useApi();
  if (sessions.length === 0) return null;
  return (
    <ul className="history-list">
      {sessions.map((s) => (
        <li key={s.id} className="history-row" data-testid="history-deleted-row" data-session-id={s.id}>
          <div className="history-row-main">
            <span className="history-title static"><VisibleText text={displayTitle(s, names(s.agentId))} /></span>
            <span className="history-time">deleted {s.deletedAt ? relativeTime(s.deletedAt) : ''}</span>
          </div>
          <div className="history-row-meta">
            <span>{names(s.agentId)}</span>
            <span><VisibleText text={shortPath(s.cwd)} /></span>
            <span>{plural(s.messageCount, 'message')}</span>
            <span className="history-actions visible">
              <button onClick={() => void undoDelete(api, [s.id])} data-testid="history-restore">
                Restore
              </button>
            </span>
          </div>
        </li>
      ))}
    </ul>
  );
}
