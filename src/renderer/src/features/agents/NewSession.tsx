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
import { LOCAL_HOST_ID } from '@shared/contract/hosts';
import { folderProblemOnHost, HostPicker, hostName, useFolderCompletions, useHosts } from '../hosts';
import { preparePlace, useRepo, WhereField, type Where } from './where';
import { VisibleText } from '../../ui/VisibleText';
import type { ContainerChoice } from '@shared/contract/containers';
import { containerChoice, ContainerFields, useContainerDraft, useContainerFacts } from './ContainerFields';

export function openNewSessionTab(agentId: string, agentName: string, cwd: string, opts: { prompt?: string; hostId?: string; container?: ContainerChoice; delegation?: boolean } = {}): string {
  const hostId = opts.hostId ?? LOCAL_HOST_ID;
  const on = hostId === LOCAL_HOST_ID ? '' : ` @ ${hostName(useHosts.getState().hosts, hostId)}`;
  const where = opts.container ? ` · container${on}` : on;
  return useTabs.getState().open({
    kind: 'session',
    title: `${agentName} · ${basename(cwd)}${where}`,
    props: {
      create: { agentId, cwd, hostId, ...(opts.prompt ? { prompt: opts.prompt } : {}), ...(opts.container ? { container: opts.container } : {}), ...(opts.delegation !== undefined ? { delegation: opts.delegation } : {}) },
    },
  });
}

function validateFolder(folder: string, remote: boolean): string | null {
  const f = folder.trim();
  if (!f) return 'Choose the folder the agent works in.';
  if (remote && !f.startsWith('/')) return 'Use a full path on the host, starting with /.';
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
  const [hostId, setHostId] = useState<string>(LOCAL_HOST_ID);
  const remote = hostId !== LOCAL_HOST_ID;
  const [folder, setFolder] = useState('');
  const [checking, setChecking] = useState(false);
  const [missing, setMissing] = useState<string | null>(null);
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
  const delegating = useSetting('delegation.agents');
  // The session's own delegation switch: its agent's setting until the user changes it here.
  const [delegation, setDelegation] = useState<boolean | null>(null);
  useEffect(() => {
    if (!agentId && agents.length > 0) setAgentId(agents.some((a) => a.id === defaultAgent) ? defaultAgent : agents[0]!.id);
  }, [agents, agentId, defaultAgent]);

  const expanded = remote ? folder.trim().replace(/(.)\/+$/, '$1') : expandHome(folder, home);
  const problem = validateFolder(expanded, remote);
  const agent = useMemo(() => agents.find((a) => a.id === agentId), [agents, agentId]);
  // A worktree session's worktree is made on the machine the session runs on (an SSH host's through its helper).
  const repo = useRepo(api, problem ? '' : expanded, remote ? hostId : undefined);
  const [where, setWhere] = useState<Where>({ kind: 'here' });
  const [placing, setPlacing] = useState(false);
  const [placeError, setPlaceError] = useState<string | null>(null);
  const completions = useFolderCompletions(hostId, folder);
  const [inContainer, setInContainer] = useState(false);
  const facts = useContainerFacts(api, inContainer, hostId, problem ? '' : expanded, agentId);
  const [containerDraft, setContainerDraft] = useContainerDraft(expanded);
  const [containerError, setContainerError] = useState<string | null>(null);

  const chooseHost = (id: string) => {
    setHostId(id);
    setMissing(null);
    // Recent folders and the home folder are this machine's.
    setFolder(id === LOCAL_HOST_ID ? recent[0] || home || '' : '');
    setTouched(false);
  };

  const submit = async () => {
    setTouched(true);
    if (problem || !agent || checking || placing) return;
    // The folder is checked on its host (an SSH host is connected for it).
    setChecking(true);
    const missingNow = await folderProblemOnHost(api, hostId, expanded);
    setChecking(false);
    setMissing(missingNow);
    if (missingNow) return;
    setPlaceError(null);
    let container: ContainerChoice | undefined;
    if (inContainer) {
      const choice = containerChoice(containerDraft, facts.config, facts.apiHosts);
      if ('error' in choice) return setContainerError(choice.error);
      setContainerError(null);
      container = choice;
    }
    setPlacing(true);
    const place = await preparePlace(api, expanded, repo ? where : { kind: 'here' }, remote ? hostId : undefined).finally(() => setPlacing(false));
    if ('error' in place) return setPlaceError(place.error);
    const before = onBeforeStart?.();
    const tabId = openNewSessionTab(agent.id, agent.name, place.cwd, {
      ...(place.prompt ? { prompt: place.prompt } : {}),
      hostId,
      ...(container ? { container } : {}),
      ...(delegation !== null ? { delegation } : {}),
    });
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
      <div className="where-row">
        <label className="field">
          <span>Where the session runs</span>
          <HostPicker value={hostId} onChange={chooseHost} />
        </label>
        <label className="field">
          <span>How</span>
          <select value={inContainer ? 'container' : 'direct'} onChange={(e) => setInContainer(e.target.value === 'container')} data-testid="new-session-runs-in" aria-label="How the session runs">
            <option value="direct">Directly on it</option>
            <option value="container">In a container on it</option>
          </select>
        </label>
      </div>
      <label className="field">
        <span>Folder</span>
        <input
          value={folder}
          readOnly={!ready}
          list="new-session-folder-completions"
          onChange={(e) => {
            setFolder(e.target.value);
            setMissing(null);
          }}
          onBlur={() => setTouched(true)}
          spellCheck={false}
          autoFocus={autoFocus}
          placeholder={remote ? '/home/you/project (on the host)' : (home ?? '/path/to/project')}
          aria-invalid={touched && problem !== null}
          data-testid="new-session-folder"
          aria-label="Folder"
        />
      </label>
      <datalist id="new-session-folder-completions" data-testid="new-session-folder-completions">
        {completions.map((f) => (
          <option key={f} value={f} />
        ))}
      </datalist>
      {touched && problem && (
        <ErrorAlert>{problem}</ErrorAlert>
      )}
      {!problem && missing && <ErrorAlert testId="new-session-folder-missing">{missing}</ErrorAlert>}
      {!remote && recent.length > 0 && (
        <div className="recent-folders">
          <span className="muted small">Recent:</span>
          {recent.map((f) => (
            <span key={f} className="recent-folder">
              <button type="button" className={`chip${f === expanded ? ' on' : ''}`} onClick={() => setFolder(f)} title={f}>
                <VisibleText text={basename(f)} />
              </button>
              <button type="button" className="icon small" aria-label={`Forget ${f}`} title="Forget" onClick={() => void forgetFolder(api, f).then(setRecent)}>
                <X size={12} />
              </button>
            </span>
          ))}
        </div>
      )}
      <WhereField repo={repo} where={where} onChange={setWhere} remote={remote} />
      {inContainer && <ContainerFields draft={containerDraft} onChange={setContainerDraft} {...facts} onSsh={remote} />}
      {containerError && <ErrorAlert testId="container-error">{containerError}</ErrorAlert>}
      {placeError && <ErrorAlert>{placeError}</ErrorAlert>}
      <label className="checkbox" title="Gives the agent Switchboard's delegation tools: it can start sessions with other agents (and spend), read what they did, steer and cancel them">
        <input
          type="checkbox"
          checked={delegation ?? (agent ? delegating.includes(agent.id) : false)}
          onChange={(e) => setDelegation(e.target.checked)}
          data-testid="new-session-delegation"
        />{' '}
        Let the agent delegate to other agents
      </label>
      <FormActions>
        <button className="primary" type="submit" disabled={!agent || checking || placing} data-testid="new-session-start">
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
