import { agentUrlHost } from '@shared/agent-url';
import { sessionTitle } from '@shared/session-title';
import type { ContainerChoice } from '@shared/contract/containers';
import { TriangleAlert } from 'lucide-react';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { threadLength, toolCallIndex } from '@shared/acp-thread';
import { useApi } from '../../app/api-context';
import { closeTab } from '../../app/PaneView';
import { useNotices } from '../../app/notices';
import type { TabViewProps } from '../../app/contributions';
import { useTabs, type TabStatus } from '../../state/tabs';
import { agentName as nameOf, AuthPanel, openAgentLog, rememberFolder, useAgents } from '../agents';
import { Composer, type ComposerHandle } from './Composer';
import { useElicitationFocus } from './elicitation-focus';
import { useController, useSessionView, type SessionController, type SessionView } from './controller';
import { byPrompt, SessionChangesPanel, useSessionChanges, useTurnCheckpoints } from '../checkpoints';
import { SessionHeader } from './Header';
import { desktopNotify, notifyWanted } from '../notifications';
import { chooseOption } from './PermissionCard';
import { QueuePanel } from './QueuePanel';
import { Thread, type ThreadHandle } from './Thread';
import { isEditable, quickOption } from '../../ui/format';
import { Elapsed } from '../../ui/Elapsed';
import { syncSnapshotting } from './snapshotting';
import { SnapshotBanner } from './entries';
import { ForkLinks } from './ForkLinks';
import { useFocusRequest } from '../../app/attention';
import { FormActions } from '../../ui/FormActions';
import { WorktreeBar } from './WorktreeBar';
import { VisibleText } from '../../ui/VisibleText';
import { readableToolTitle } from '@shared/mcp-tool-name';
import { ContainerProgress } from './ContainerProgress';

interface CreateRequest {
  agentId: string;
  /** The host the session runs on (absent: this machine). */
  hostId?: string;
  cwd: string;
  /** Sent as the session's first prompt once it is created (a past session continued with its summary). */
  prompt?: string;
  /** Run it in a container on its host. */
  container?: ContainerChoice;
  /** The session's own delegation switch (absent: its agent's setting). */
  delegation?: boolean;
}

const creating = new Map<string, Promise<void>>();

/** A session tab: created from the new-session form (props.create) or attached to a live session (props.sessionId). */
export function SessionTab({ tab, active }: TabViewProps) {
  const api = useApi();
  // Listening from the moment the tab exists: a folder's first snapshot starts as the session opens, and says
  // so at once (a listener added once the session is live could miss it, then a turn's progress replaces it).
  useEffect(() => syncSnapshotting(api), [api]);
  const sessionId = typeof tab.props.sessionId === 'string' ? tab.props.sessionId : null;
  const create = (tab.props.create ?? null) as CreateRequest | null;
  const [error, setError] = useState<string | null>(null);
  const agents = useAgents((s) => s.agents);

  const start = useCallback(() => {
    if (!create || creating.has(tab.id)) return;
    setError(null);
    // Chosen here so that closing the tab (or Cancel) can withdraw the session before the agent answers.
    const pendingSessionId = crypto.randomUUID();
    const props = useTabs.getState().tabs[tab.id]?.props ?? tab.props;
    useTabs.getState().update(tab.id, { status: 'working', props: { ...props, pendingSessionId } });
    const p = (async () => {
      const r = await api.call('sessions.create', { agentId: create.agentId, ...(create.hostId ? { hostId: create.hostId } : {}), cwd: create.cwd, sessionId: pendingSessionId, ...(create.container ? { container: create.container } : {}), ...(create.delegation !== undefined ? { delegation: create.delegation } : {}) });
      if (!r.ok) {
        const current = useTabs.getState().tabs[tab.id];
        // Withdrawn: the tab is gone.
        if (!current) return;
        setError(r.error.message);
        useTabs.getState().update(tab.id, { status: 'failed', props: { ...current.props, pendingSessionId: undefined } });
        return;
      }
      // Recent folders are this machine's.
      if (!create.hostId || create.hostId === 'local') void rememberFolder(api, create.cwd);
      const current = useTabs.getState().tabs[tab.id];
      if (!current) {
        // The tab was closed while the agent started.
        void api.call('sessions.close', { sessionId: r.value.id });
        return;
      }
      useTabs.getState().update(tab.id, { props: { ...current.props, sessionId: r.value.id, create: undefined, pendingSessionId: undefined }, status: 'idle' });
      if (create.prompt?.trim()) {
        const sent = await api.call('sessions.prompt', { sessionId: r.value.id, prompt: [{ type: 'text', text: create.prompt }] });
        if (!sent.ok) useNotices.getState().push('error', `The first message was not sent: ${sent.error.message}`);
      }
    })().finally(() => creating.delete(tab.id));
    creating.set(tab.id, p);
  }, [api, create, tab.id]);

  useEffect(() => {
    if (!sessionId && create) start();
    // Creation starts once per tab; Retry calls start again.
  }, []);
  const [startedAt] = useState(() => Date.now());

  if (sessionId) return <LiveSession key={sessionId} tabId={tab.id} sessionId={sessionId} active={active} />;
  const name = create ? nameOf(agents, create.agentId) : 'agent';
  return (
    <div className="session-tab session-starting" data-testid="session-starting">
      {error ? (
        <div className="start-error" role="alert">
          <h2>Could not start a session with {name}</h2>
          <p className="error">{error}</p>
          <FormActions>
            <button className="primary" onClick={start}>
              Retry
            </button>
            {create && <button onClick={() => openAgentLog(create.agentId, name)}>Open the agent’s log</button>}
          </FormActions>
          {create && agents.find((a) => a.id === create.agentId) && <AuthPanel agent={agents.find((a) => a.id === create.agentId)!} />}
        </div>
      ) : (
        <>
          <StartingPanel name={name} cwd={create?.cwd ?? null} since={startedAt} onCancel={() => closeTab(tab.id, api)} />
          {create?.container && typeof tab.props.pendingSessionId === 'string' && <ContainerProgress sessionId={tab.props.pendingSessionId} />}
        </>
      )}
    </div>
  );
}

/**
 * An agent being started for this tab (its process, \`initialize\`, then the session): which agent, where, for
 * how long so far, and a way to give up. Some agents take half a minute to start.
 */
function StartingPanel({ name, cwd, since, onCancel }: { name: string; cwd: string | null; since: number; onCancel(): void }) {
  return (
    <div className="starting" data-testid="starting-panel">
      <span className="spinner" aria-hidden /> Starting {name}
      {cwd && (
        <>
          {' '}
          in <code><VisibleText text={cwd} /></code>
        </>
      )}
      … <Elapsed since={since} />
      <button onClick={onCancel} data-testid="session-starting-cancel">
        Cancel
      </button>
    </div>
  );
}

/** Turns a session tab into the transcript tab of the same session (see history/TranscriptTab). */
function endedToTranscript(tabId: string, sessionId: string): void {
  const t = useTabs.getState().tabs[tabId];
  if (!t || t.kind !== 'session') return;
  useTabs.getState().update(tabId, { kind: 'transcript', status: undefined, props: { sessionId } });
}

function tabStatusOf(view: SessionView): TabStatus {
  const status = view.session?.status;
  if (view.loadError || status === 'failed') return 'failed';
  if (view.permissions.length > 0 || status === 'awaiting_permission' || status === 'auth_required') return 'attention';
  if (status === 'working' || status === 'starting' || view.loading) return 'working';
  if (view.unseenDone) return 'done';
  return 'idle';
}

function LiveSession({ tabId, sessionId, active }: { tabId: string; sessionId: string; active: boolean }) {
  const api = useApi();
  const controller = useController(api, sessionId);
  const view = useSessionView(controller);
  const agents = useAgents((s) => s.agents);
  const root = useRef<HTMLDivElement>(null);
  const composer = useRef<ComposerHandle>(null);
  const thread = useRef<ThreadHandle>(null);
  const [filesOpen, setFilesOpen] = useState(false);
  const [warningsOpen, setWarningsOpen] = useState(false);
  const [restart, setRestart] = useState<{ state: 'working' | 'not_resumed' | 'error'; message?: string } | null>(null);
  // A hidden tab reads its changes and checkpoints again when it is shown: thirty tabs on one folder read
  // them all again on every change of that folder (the page's idle time in `npm run bench -- sessions30`).
  const sessionChanges = useSessionChanges(active ? sessionId : null);
  const turnCheckpoints = useTurnCheckpoints(api, active ? sessionId : null);
  const checkpoints = useMemo(() => byPrompt(turnCheckpoints), [turnCheckpoints]);
  const session = view.session;
  const agent = session ? agents.find((a) => a.id === session.agentId) : undefined;
  const agentName = session ? nameOf(agents, session.agentId) : 'Agent';
  const running = view.thread.turn.running || session?.status === 'working' || session?.status === 'awaiting_permission';
  // The one title rule (shared/session-title), as in history and the overview.
  const title = session
    ? sessionTitle(session.title ?? view.thread.title, agentName, session.forkedFrom?.title)
    : // Not known yet: the title its opener gave the tab.
      (useTabs.getState().tabs[tabId]?.title ?? 'Session');

  // A session whose agent was stopped while idle (to give its memory back) comes back when the user turns to its tab
  // (not while the tab stays in front: it went to sleep there unused; its next prompt wakes it).
  const asleep = useRef(false);
  asleep.current = session?.asleep === 'asleep';
  const known = session !== null;
  useEffect(() => {
    if (active && asleep.current) void api.call('sessions.wake', { sessionId });
  }, [api, active, sessionId, known]);

  // A session that is not live any more (Switchboard restarted, or it was closed) becomes its stored
  // transcript in this tab: read-only, with its real title and agent, offering Reopen. Nothing is started.
  useEffect(() => {
    if (view.ended) endedToTranscript(tabId, sessionId);
  }, [view.ended, tabId, sessionId]);

  // Tab title and badge.
  useEffect(() => {
    if (view.ended) return;
    const t = useTabs.getState().tabs[tabId];
    const status = tabStatusOf(view);
    if (t && (t.title !== title || t.status !== status)) useTabs.getState().update(tabId, { title, status });
  }, [tabId, title, view]);

  const { onShown, onAsked } = useElicitationFocus({ controller, entries: view.thread.entries, active, root, thread, composer });
  /**
   * The keyboard goes to what the session waits for: its oldest permission card (1–9, Y, N then answer it),
   * else its oldest question; false when it waits for nothing.
   */
  const focusWaiting = useCallback((): boolean => {
    const request = controller.getView().permissions[0];
    if (!request) return onShown();
    const t = controller.getView().thread;
    thread.current?.scrollToEntry(toolCallIndex(t, String(request.toolCall.toolCallId)) ?? threadLength(t) - 1);
    // Its card is mounted once the thread has rendered it (a thread being loaded takes longer).
    const until = performance.now() + 3000;
    const tryFocus = () => {
      const card = root.current?.querySelector<HTMLElement>(`[data-testid=permission-card][data-request-id="${CSS.escape(request.requestId)}"]`);
      if (card) {
        if (!card.hasAttribute('tabindex')) card.tabIndex = -1;
        card.focus();
      } else if (performance.now() < until) requestAnimationFrame(tryFocus);
      else root.current?.focus();
    };
    requestAnimationFrame(tryFocus);
    return true;
  }, [controller, onShown]);
  // Before the shown tab is painted: the updates it kept while hidden are folded into that first frame.
  useLayoutEffect(() => controller.setActive(active), [controller, active]);
  useEffect(() => {
    if (!active) return;
    // A draft in the prompt keeps the keyboard (a digit typed there must not answer a request).
    const draft = composer.current !== null && !composer.current.isEmpty();
    if (draft ? !onShown() : !focusWaiting()) requestAnimationFrame(() => composer.current?.focus());
  }, [controller, active, focusWaiting, onShown]);
  // Ctrl+J, "needs you", compare's "needs you": the keyboard goes to the request even when the tab was shown already.
  const focusRequest = useFocusRequest((s) => (s.tabId === tabId ? s.n : 0));
  // Asked before the session's requests are known (its tab just opened): taken once they are.
  const wantsWaiting = useRef(false);
  useEffect(() => {
    if (focusRequest > 0 && active) wantsWaiting.current = !focusWaiting();
  }, [focusRequest, active, focusWaiting]);

  // Desktop notifications while the window is in the background.
  useEffect(() => {
    controller.onAttention = (what) => {
      if (what.kind === 'elicitation') {
        onAsked(what.requestId, what.mode);
        if (notifyWanted('permission')) desktopNotify(`${agentName} asks you something`, what.message.slice(0, 200), tabId);
        return;
      }
      const who = nameOf(useAgents.getState().agents, what.kind === 'permission' ? what.info.agentId : what.session.agentId);
      if (what.kind === 'permission') {
        if (notifyWanted('permission')) desktopNotify(`${who} asks for permission`, readableToolTitle(String(what.info.toolCall.title ?? 'A tool call')), tabId);
      } else if (what.kind === 'done') {
        if (notifyWanted('turnEnd')) desktopNotify(`${who} is done`, title, tabId);
      } else desktopNotify(`${who} stopped`, what.session.error ?? 'The session failed.', tabId);
    };
    return () => {
      controller.onAttention = null;
    };
  }, [controller, tabId, title, agentName, onAsked]);

  const cancel = useCallback(() => {
    void api.call('sessions.cancel', { sessionId }).then((r) => !r.ok && useNotices.getState().push('error', `Could not stop the turn: ${r.error.message}`));
  }, [api, sessionId]);

  // Keyboard: answer the oldest permission request with 1–9 / Y / N; Esc stops the turn.
  const pending = view.permissions[0] ?? null;
  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target as Node | null;
      const inTab = target === document.body || (root.current !== null && target !== null && root.current.contains(target));
      if (!inTab || isEditable(e.target) || (e.target instanceof Element && e.target.closest('.xterm'))) return;
      if (pending) {
        let option = null;
        if (/^[1-9]$/.test(e.key)) option = pending.options[Number(e.key) - 1] ?? null;
        else if (e.key === 'y' || e.key === 'Y') option = quickOption(pending.options, true) ?? null;
        else if (e.key === 'n' || e.key === 'N') option = quickOption(pending.options, false) ?? null;
        if (option) {
          e.preventDefault();
          void chooseOption(api, sessionId, pending.requestId, option);
          return;
        }
      }
      if (e.key === 'Escape' && running) {
        e.preventDefault();
        cancel();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [active, pending, running, api, sessionId, cancel]);

  // A permission request takes the keyboard from an empty composer; answering gives it back.
  const hadPending = useRef(false);
  useEffect(() => {
    const has = pending !== null;
    if (has && !hadPending.current && active) {
      const c = composer.current;
      const a = document.activeElement;
      const free = !a || a === document.body || a === root.current || a === root.current?.parentElement || (c?.hasFocus() && c.isEmpty());
      if (free || wantsWaiting.current) focusWaiting();
      wantsWaiting.current = false;
    } else if (!has && hadPending.current && active && (document.activeElement === root.current || document.activeElement === document.body || !document.activeElement)) {
      composer.current?.focus();
    }
    hadPending.current = has;
  }, [pending, active, focusWaiting]);

  const doRestart = useCallback(async () => {
    if (!session) return;
    setRestart({ state: 'working' });
    const r = await api.call('agents.restart', { agentId: session.agentId });
    if (!r.ok) {
      setRestart({ state: 'error', message: r.error.message });
      return;
    }
    if (r.value.resumedSessions.includes(sessionId)) {
      setRestart(null);
      void controller.load();
    } else setRestart({ state: 'not_resumed' });
  }, [api, session, sessionId, controller]);

  const restartAgent = useCallback(() => void doRestart(), [doRestart]);
  const scrollToBottom = useCallback(() => thread.current?.scrollToBottom(), []);

  const newSessionHere = async () => {
    if (!session) return;
    useTabs.getState().open({ kind: 'session', title: agentName, props: { create: { agentId: session.agentId, hostId: session.hostId, cwd: session.cwd } } });
  };

  const sessionWarnings = view.warnings;
  const status = session?.status;

  // "Fork from here": ACP forks a whole session, so it is offered on the last prompt of an idle session.
  const [forking, setForking] = useState(false);
  const forkIndex = useMemo(() => {
    const entries = view.thread.entries;
    for (let i = entries.length - 1; i >= 0; i--) if (entries[i]!.kind === 'user_message') return i;
    return -1;
  }, [view.thread.entries]);
  const runFork = useCallback(async () => {
    setForking(true);
    const r = await api.call('sessions.fork', { sessionId });
    setForking(false);
    if (!r.ok) return useNotices.getState().push('error', `Could not fork the session: ${r.error.message}`);
    useTabs.getState().open({ kind: 'session', title: `Fork of ${title}`, props: { sessionId: r.value.id } });
  }, [api, sessionId, title]);
  const canFork = session?.canFork === true && status === 'idle' && !running && forkIndex >= 0;
  const fork = useMemo(() => (canFork ? { index: forkIndex, pending: forking, run: () => void runFork() } : null), [canFork, forkIndex, forking, runFork]);
  const refreshChanges = sessionChanges.refresh;
  const toggleFiles = useCallback(() => {
    setFilesOpen((open) => !open);
    refreshChanges();
  }, [refreshChanges]);

  return (
    <div className="session-tab" ref={root} tabIndex={-1} data-testid="session-tab" data-session-id={sessionId} data-status={status ?? 'loading'}>
      <SessionHeader
        session={session}
        modes={view.thread.modes}
        configOptions={view.thread.configOptions}
        usage={view.thread.usage}
        agentName={agentName}
        agentHost={agent?.url ? agentUrlHost(agent.url) : null}
        title={title}
        filesCount={sessionChanges.folders.reduce((n, f) => n + f.changes.files.length, 0)}
        filesOpen={filesOpen}
        onToggleFiles={toggleFiles}
      />
      <WorktreeBar sessionId={sessionId} cwd={session?.cwd ?? null} idle={status === 'idle'} />
      {view.loadError && (
        <div className="banner warning" role="alert" data-testid="session-banner">
          This session is not running any more (it was closed, or Switchboard restarted); its conversation is kept in History.
          <div className="banner-actions">
            <button onClick={() => void controller.load()}>Try again</button>
            <button onClick={() => useTabs.getState().close(tabId)}>Close tab</button>
          </div>
        </div>
      )}
      {status === 'failed' && (
        <div className="banner error" role="alert" data-testid="session-failed">
          <strong>The agent stopped.</strong> {session?.error}
          <div className="banner-actions">
            <button className="primary" onClick={() => void doRestart()} disabled={restart?.state === 'working'} data-testid="restart-agent">
              {restart?.state === 'working' ? 'Restarting…' : 'Restart agent'}
            </button>
            {session && <button onClick={() => openAgentLog(session.agentId, agentName)}>Open log</button>}
            {restart?.state === 'not_resumed' && (
              <span>
                The agent restarted but cannot resume this session. <button onClick={() => void newSessionHere()}>New session in this folder</button>
              </span>
            )}
            {restart?.state === 'error' && <span className="error">Restart failed: {restart.message}</span>}
          </div>
        </div>
      )}
      {status === 'auth_required' && (
        <div className="banner warning" data-testid="session-auth">
          <strong><VisibleText text={agentName} /> needs you to sign in.</strong> {session?.error}
          {agent ? <AuthPanel agent={agent} /> : null}
        </div>
      )}
      {status === 'closed' && (
        <div className="banner" data-testid="session-closed">
          This session is closed.{session?.error ? <> <VisibleText text={session.error} /></> : null}
        </div>
      )}
      {session?.forkedFrom && (
        <div className="banner fork-banner" data-testid="fork-banner">
          <ForkLinks forkedFrom={session.forkedFrom} agentId={session.agentId} cwd={session.cwd} /> — <VisibleText text={agentName} /> goes on from that whole conversation; it is not
          repeated here.
        </div>
      )}
      {sessionWarnings.length > 0 && (
        <div className="warnings" data-testid="session-warnings">
          <button className="link-button" onClick={() => setWarningsOpen(!warningsOpen)} aria-expanded={warningsOpen}>
            <TriangleAlert size={13} /> {sessionWarnings.length} warning{sessionWarnings.length === 1 ? '' : 's'} from the agent
          </button>
          <button className="link-button" onClick={() => controller.dismissWarnings()}>
            Dismiss
          </button>
          {session && (
            <button className="link-button" onClick={() => openAgentLog(session.agentId, agentName)}>
              Log
            </button>
          )}
          {warningsOpen && (
            <ul className="warning-list">
              {sessionWarnings.map((w, i) => (
                <li key={i}>
                  <span className="tag">{w.kind.replace(/_/g, ' ')}</span> {w.message} <span className="muted small">{new Date(w.ts).toLocaleTimeString()}</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <SnapshotBanner sessionId={sessionId} />
      <div className="session-body">
        {session?.status === 'starting' ? (
          <StartingPanel name={agentName} cwd={session.cwd} since={session.updatedAt} onCancel={() => closeTab(tabId, api)} />
        ) : view.loading ? (
          <div className="thread-loading muted">
            <span className="spinner" aria-hidden /> Loading the conversation…
          </div>
        ) : (
          <Thread
            ref={thread}
            thread={view.thread}
            entryAt={controller.entryAt}
            ensure={controller.ensure}
            pages={view.pages}
            sessionId={sessionId}
            cwd={session?.cwd ?? null}
            active={active}
            onRestart={status === 'failed' ? restartAgent : null}
            checkpoints={checkpoints}
            fork={fork}
          />
        )}
        {filesOpen && <SessionChangesPanel sessionId={sessionId} folders={sessionChanges.folders} onClose={() => setFilesOpen(false)} />}
      </div>
      {pending && (
        <button className="permission-jump" onClick={() => thread.current?.scrollToEntry(toolCallIndex(view.thread, String(pending.toolCall.toolCallId)) ?? threadLength(view.thread) - 1)} data-testid="permission-pending">
          The agent is waiting for your permission — press 1–{Math.min(9, pending.options.length)}, Y or N
        </button>
      )}
      <QueuePanel sessionId={sessionId} items={view.queue} waitingFor={view.queueWaitingFor} />
      <Composer
        ref={composer}
        session={session}
        commands={view.thread.commands}
        running={running}
        onCancel={cancel}
        onSent={scrollToBottom}
      />
    </div>
  );
}

export type { SessionController };
