import { X } from 'lucide-react';
import { useEffect, useMemo, useState } from 'react';
import { useApi } from '../../app/api-context';
import { useSetting } from '../../app/settings';
import { AppInfoContext } from '../../app/App';
import { useTabs } from '../../state/tabs';
import { syncAgents, useAgents } from './state';
import { forgetFolder, loadRecentFolders } from './recent';
import { basename, isAbsolutePath } from '../../ui/format';
import { ErrorAlert } from '../../ui/Alert';
import { FormActions } from '../../ui/FormActions';
import { AgentSelect } from '../../ui/Select';
import { preparePlace, useRepo, WhereField, type Where } from './where';

export function openNewSessionTab(agentId: string, agentName: string, cwd: string, prompt?: string): string {
  return useTabs.getState().open({ kind: 'session', title: `${agentName} · ${basename(cwd)}`, props: { create: { agentId, cwd, ...(prompt ? { prompt } : {}) } } });
}

function validateFolder(folder: string): string | null {
  const f = folder.trim();
  if (!f) return 'Choose the folder the agent works in.';
  if (!isAbsolutePath(f)) return 'Use a full path (starting with / or a drive letter), or ~ for your home folder.';
  if (f.includes('\0')) return 'That is not a valid path.';
  return null;
}

function expandHome(folder: string, home: string | null): string {
  const f = folder.trim();
  if (home && (f === '~' || f.startsWith('~/'))) return home + f.slice(1);
  return f.length > 1 ? f.replace(/[\\/]+$/, '') : f;
}

/** Pick an agent and a folder, then start a session in a new tab. */
export function NewSessionForm({
  initialAgentId,
  onBeforeStart,
  onStarted,
  autoFocus,
}: {
  initialAgentId?: string;
  onBeforeStart?(): string | null;
  onStarted?(tabId: string, before: string | null): void;
  autoFocus?: boolean;
}) {
  const api = useApi();
  const agents = useAgents((s) => s.agents);
  const loaded = useAgents((s) => s.loaded);
  const [agentId, setAgentId] = useState(initialAgentId ?? '');
  const [folder, setFolder] = useState('');
  const [touched, setTouched] = useState(false);
  const [recent, setRecent] = useState<string[]>([]);
  const [home, setHome] = useState<string | null>(AppInfoContext.current?.homeDir ?? null);
  // The folder field takes input once its default is in: a default arriving under the user's typing would mix with it.
  const [ready, setReady] = useState(false);

  useEffect(() => syncAgents(api), [api]);
  useEffect(() => {
    let stale = false;
    void (async () => {
      try {
        const [folders, info] = await Promise.all([loadRecentFolders(api), home ? null : api.call('app.info', {})]);
        if (stale) return;
        const homeDir = info && info.ok ? info.value.homeDir : home;
        if (info && info.ok) setHome(info.value.homeDir);
        setRecent(folders);
        setFolder((f) => f || folders[0] || homeDir || '');
      } finally {
        if (!stale) setReady(true);
      }
    })();
    return () => {
      stale = true;
    };
  }, [api]);

  const defaultAgent = useSetting('agents.defaultAgent');
  useEffect(() => {
    if (!agentId && agents.length > 0) setAgentId(agents.some((a) => a.id === defaultAgent) ? defaultAgent : agents[0]!.id);
  }, [agents, agentId, defaultAgent]);

  const expanded = expandHome(folder, home);
  const problem = validateFolder(expanded);
  const agent = useMemo(() => agents.find((a) => a.id === agentId), [agents, agentId]);
  const repo = useRepo(api, problem ? '' : expanded);
  const [where, setWhere] = useState<Where>({ kind: 'here' });
  const [placing, setPlacing] = useState(false);
  const [placeError, setPlaceError] = useState<string | null>(null);

  const submit = async () => {
    setTouched(true);
    if (problem || !agent || placing) return;
    setPlaceError(null);
    setPlacing(true);
    const place = await preparePlace(api, expanded, repo ? where : { kind: 'here' }).finally(() => setPlacing(false));
    if ('error' in place) return setPlaceError(place.error);
    const before = onBeforeStart?.();
    const tabId = openNewSessionTab(agent.id, agent.name, place.cwd, place.prompt);
    onStarted?.(tabId, before ?? null);
  };

  if (loaded && agents.length === 0) {
    return <p className="muted">No agents yet: add one in the sidebar (Agents → Add custom agent) or install one from the registry.</p>;
  }

  return (
    <form
      className="new-session-form"
      data-testid="new-session-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label className="field">
        <span>Agent</span>
        <AgentSelect agents={agents} value={agentId} onChange={setAgentId} data-testid="new-session-agent" aria-label="Agent" />
      </label>
      <label className="field">
        <span>Folder</span>
        <input
          value={folder}
          readOnly={!ready}
          onChange={(e) => setFolder(e.target.value)}
          onBlur={() => setTouched(true)}
          spellCheck={false}
          autoFocus={autoFocus}
          placeholder={home ?? '/path/to/project'}
          aria-invalid={touched && problem !== null}
          data-testid="new-session-folder"
          aria-label="Folder"
        />
      </label>
      {touched && problem && (
        <ErrorAlert>{problem}</ErrorAlert>
      )}
      {recent.length > 0 && (
        <div className="recent-folders">
          <span className="muted small">Recent:</span>
          {recent.map((f) => (
            <span key={f} className="recent-folder">
              <button type="button" className={`chip${f === expanded ? ' on' : ''}`} onClick={() => setFolder(f)} title={f}>
                {basename(f)}
              </button>
              <button type="button" className="icon small" aria-label={`Forget ${f}`} title="Forget" onClick={() => void forgetFolder(api, f).then(setRecent)}>
                <X size={12} />
              </button>
            </span>
          ))}
        </div>
      )}
      <WhereField api={api} repo={repo} where={where} onChange={setWhere} />
      {placeError && <ErrorAlert>{placeError}</ErrorAlert>}
      <FormActions>
        <button className="primary" type="submit" disabled={!agent || placing} data-testid="new-session-start">
          {placing ? 'Making the worktree…' : 'Start session'}
        </button>
      </FormActions>
    </form>
  );
}

/** The launcher's panel: start a session, then the launcher tab gives way to it. */
export function NewSessionPanel() {
  return (
    <section className="launcher-panel" data-testid="launcher-new-session">
      <h2>Start an agent session</h2>
      <NewSessionForm
        onBeforeStart={() => {
          const s = useTabs.getState();
          const pane = s.panes.find((p) => p.id === s.focusedPaneId);
          const current = pane?.activeTabId ? s.tabs[pane.activeTabId] : undefined;
          return current?.kind === 'launcher' ? current.id : null;
        }}
        onStarted={(tabId, launcherId) => {
          if (launcherId) useTabs.getState().close(launcherId);
          useTabs.getState().activate(tabId);
        }}
      />
    </section>
  );
}
