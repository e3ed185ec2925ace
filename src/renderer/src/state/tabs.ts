import { create } from 'zustand';

export type TabStatus = 'idle' | 'working' | 'attention' | 'done' | 'failed';

export interface Tab {
  id: string;
  /** Which view renders it; features register their views in app/tab-views.tsx. */
  kind: string;
  title: string;
  status?: TabStatus;
  /** Kind-specific data (a shell's pty id, a session id…). */
  props: Record<string, unknown>;
}

export interface Pane {
  id: string;
  tabIds: string[];
  activeTabId: string | null;
}

interface TabsState {
  tabs: Record<string, Tab>;
  panes: Pane[];
  focusedPaneId: string;
  open(tab: Omit<Tab, 'id'> & { id?: string }, paneId?: string): string;
  close(tabId: string): void;
  activate(tabId: string): void;
  cycle(delta: 1 | -1): void;
  update(tabId: string, patch: Partial<Omit<Tab, 'id'>>): void;
}

let counter = 0;
const newId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

const paneOf = (panes: Pane[], tabId: string) => panes.find((p) => p.tabIds.includes(tabId));

export const useTabs = create<TabsState>((set, get) => ({
  tabs: {},
  panes: [{ id: 'pane-1', tabIds: [], activeTabId: null }],
  focusedPaneId: 'pane-1',

  open(input, paneId) {
    const id = input.id ?? newId('tab');
    const { tabs, panes, focusedPaneId } = get();
    if (tabs[id]) {
      get().activate(id);
      return id;
    }
    const target = paneId ?? focusedPaneId;
    set({
      tabs: { ...tabs, [id]: { ...input, id } },
      panes: panes.map((p) => (p.id === target ? { ...p, tabIds: [...p.tabIds, id], activeTabId: id } : p)),
      focusedPaneId: target,
    });
    return id;
  },

  close(tabId) {
    const { tabs, panes } = get();
    if (!tabs[tabId]) return;
    const { [tabId]: _closed, ...rest } = tabs;
    set({
      tabs: rest,
      panes: panes.map((p) => {
        if (!p.tabIds.includes(tabId)) return p;
        const idx = p.tabIds.indexOf(tabId);
        const tabIds = p.tabIds.filter((t) => t !== tabId);
        const activeTabId = p.activeTabId === tabId ? (tabIds[Math.min(idx, tabIds.length - 1)] ?? null) : p.activeTabId;
        return { ...p, tabIds, activeTabId };
      }),
    });
  },

  activate(tabId) {
    const pane = paneOf(get().panes, tabId);
    if (!pane) return;
    set({
      panes: get().panes.map((p) => (p.id === pane.id ? { ...p, activeTabId: tabId } : p)),
      focusedPaneId: pane.id,
    });
  },

  cycle(delta) {
    const pane = get().panes.find((p) => p.id === get().focusedPaneId);
    if (!pane || pane.tabIds.length === 0) return;
    const idx = pane.activeTabId ? pane.tabIds.indexOf(pane.activeTabId) : -1;
    const next = pane.tabIds[(idx + delta + pane.tabIds.length) % pane.tabIds.length]!;
    get().activate(next);
  },

  update(tabId, patch) {
    const tab = get().tabs[tabId];
    if (!tab) return;
    set({ tabs: { ...get().tabs, [tabId]: { ...tab, ...patch } } });
  },
}));

export const activeTab = (s: TabsState): Tab | null => {
  const pane = s.panes.find((p) => p.id === s.focusedPaneId);
  return pane?.activeTabId ? (s.tabs[pane.activeTabId] ?? null) : null;
};
