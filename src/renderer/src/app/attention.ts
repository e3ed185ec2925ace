import { useEffect } from 'react';
import { create } from 'zustand';
import type { SessionInfo } from '@shared/contract/sessions';
import type { Api } from '../ipc/client';
import { useTabs, type Tab } from '../state/tabs';
import { visibleText } from '../ui/VisibleText';

/** A session status that waits for the user: a permission, a question (elicitation) or a sign-in. */
export const waitsForUser = (status: SessionInfo['status'] | undefined): boolean => status === 'awaiting_permission' || status === 'auth_required';

/** Something that needs the user: a tab (waiting, or its turn finished unseen), or a live session no tab shows. */
export interface NeedsYou {
  /** The tab that shows it (`session-<id>` is opened for a session without one). */
  tabId: string;
  sessionId: string | null;
  /** Waits for an answer (else: a turn finished while not looked at). */
  waiting: boolean;
  title: string;
  /** Shows it, for what no tab holds yet (a run in the Inbox). */
  open?(): void;
}

/** What features add to "needs you" besides sessions (the Inbox's runs), by source. */
export const useOtherNeeds = create<{ bySource: Record<string, NeedsYou[]> }>(() => ({ bySource: {} }));
export function setOtherNeeds(source: string, items: NeedsYou[]): void {
  useOtherNeeds.setState((s) => ({ bySource: { ...s.bySource, [source]: items } }));
}
const otherNeeds = (bySource: Record<string, NeedsYou[]>): NeedsYou[] => Object.values(bySource).flat();

const sessionOf = (t: Tab): string | null => (typeof t.props.sessionId === 'string' ? t.props.sessionId : null);

/**
 * Everything that needs the user: tabs that say so, and every live session waiting for the user whether or
 * not a tab shows it (a compare run, a session of a closed pane…). Waits come first.
 */
export function needsYou(tabs: Record<string, Tab>, sessions: Record<string, SessionInfo>, folderName: (cwd: string) => string): NeedsYou[] {
  const out: NeedsYou[] = [];
  const shown = new Set<string>();
  for (const t of Object.values(tabs)) {
    const sessionId = sessionOf(t);
    if (sessionId) shown.add(sessionId);
    const waiting = t.status === 'attention' || (sessionId !== null && waitsForUser(sessions[sessionId]?.status));
    if (waiting || t.status === 'done') out.push({ tabId: t.id, sessionId, waiting, title: t.title });
  }
  for (const s of Object.values(sessions)) {
    if (shown.has(s.id) || !waitsForUser(s.status)) continue;
    out.push({ tabId: `session-${s.id}`, sessionId: s.id, waiting: true, title: s.title ?? folderName(s.cwd) });
  }
  return out.sort((a, b) => Number(b.waiting) - Number(a.waiting));
}

/** This run's live sessions, kept by the shell so that a wait counts wherever its session is shown, or not. */
const useLiveSessions = create<{ sessions: Record<string, SessionInfo> }>(() => ({ sessions: {} }));

const synced = new WeakSet<Api>();
/** Keeps the live sessions' states in step with the core (once per connection). */
export function syncLiveSessions(api: Api): void {
  if (synced.has(api)) return;
  synced.add(api);
  api.on('session.state', (s) => {
    const { [s.id]: _gone, ...rest } = useLiveSessions.getState().sessions;
    useLiveSessions.setState({ sessions: s.status === 'closed' ? rest : { ...rest, [s.id]: s } });
  });
  void api.call('sessions.live', {}).then((r) => {
    if (!r.ok) return;
    const sessions = { ...useLiveSessions.getState().sessions };
    for (const s of r.value.sessions) sessions[s.id] ??= s;
    useLiveSessions.setState({ sessions });
  });
}

const folderName = (path: string): string => path.split(/[\\/]/).filter(Boolean).pop() ?? path;
const current = (): NeedsYou[] =>
  [...needsYou(useTabs.getState().tabs, useLiveSessions.getState().sessions, folderName), ...otherNeeds(useOtherNeeds.getState().bySource)].sort(
    (a, b) => Number(b.waiting) - Number(a.waiting),
  );

export function useNeedsYouCount(): number {
  const tabs = useTabs((s) => s.tabs);
  const sessions = useLiveSessions((s) => s.sessions);
  const other = useOtherNeeds((s) => s.bySource);
  return needsYou(tabs, sessions, folderName).length + otherNeeds(other).length;
}

/** The window title: how many tabs need the user, the focused pane's active tab, the app's name. */
export const windowTitle = (count: number, activeTab: string | null): string =>
  `${count > 0 ? `(${count}) ` : ''}${activeTab ? `${visibleText(activeTab)} — ` : ''}Switchboard`;

/** Sets the window title (the title bar in Electron, which follows the page's, and the browser tab in browser mode). */
export function useTitleCount(): void {
  const count = useNeedsYouCount();
  const activeTab = useTabs((s) => {
    const pane = s.panes.find((p) => p.id === s.focusedPaneId);
    return (pane?.activeTabId && s.tabs[pane.activeTabId]?.title) || null;
  });
  useEffect(() => {
    document.title = windowTitle(count, activeTab);
  }, [count, activeTab]);
}

/**
 * A request to put the keyboard on what a tab waits for (its permission card or question); the tab's view
 * takes it when it is shown. `n` makes a repeated request for the same tab a new one.
 */
export const useFocusRequest = create<{ tabId: string | null; n: number }>(() => ({ tabId: null, n: 0 }));

/** Shows the tab and puts the keyboard on what it waits for. */
export function focusWaitingTab(tabId: string): void {
  useTabs.getState().activate(tabId);
  useFocusRequest.setState((s) => ({ tabId, n: s.n + 1 }));
}

/** Shows a session where the user answers it: its tab (opened if it has none), with the keyboard on its request. */
export function showWaitingSession(sessionId: string, title: string): void {
  const tabs = useTabs.getState().tabs;
  const shown = Object.values(tabs).find((t) => t.kind === 'session' && sessionOf(t) === sessionId);
  const tabId = shown?.id ?? `session-${sessionId}`;
  if (!shown) useTabs.getState().open({ id: tabId, kind: 'session', title, props: { sessionId } });
  focusWaitingTab(tabId);
}

let cursor = -1;
/**
 * Shows the next thing that needs the user, cycling; waits come before finished turns. A waiting session
 * that no tab shows gets its tab. The keyboard goes to the request, so that a digit then answers it.
 */
export function focusNextNeedingYou(): boolean {
  const list = current();
  if (list.length === 0) return false;
  cursor = (cursor + 1) % list.length;
  const next = list[cursor]!;
  if (next.open) next.open();
  else if (!useTabs.getState().tabs[next.tabId] && next.sessionId) showWaitingSession(next.sessionId, next.title);
  else focusWaitingTab(next.tabId);
  return true;
}
