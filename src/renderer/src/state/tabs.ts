import { create } from 'zustand';
import { MAX_SAVED_PANES } from '@shared/contract/settings';

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

/** How panes are arranged: side by side, stacked, or a 2×2 grid (with 3–4 panes). */
export type SplitDirection = 'row' | 'column' | 'grid';
export const MAX_PANES = MAX_SAVED_PANES;

interface TabsState {
  tabs: Record<string, Tab>;
  panes: Pane[];
  focusedPaneId: string;
  direction: SplitDirection;
  /** Splits the focused pane: a new empty pane next to it (at most MAX_PANES). Returns its id or null. */
  split(direction: SplitDirection): string | null;
  /** Removes a pane; its tabs move to a neighbour. */
  closePane(paneId: string): void;
  focusPane(paneId: string): void;
  /** Moves a tab into another pane (or another place of the same pane). */
  moveTab(tabId: string, toPaneId: string, index?: number): void;
  /** Replaces everything (layout restore). */
  restore(state: Pick<TabsState, 'tabs' | 'panes' | 'focusedPaneId' | 'direction'>): void;
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
  direction: 'row',

  split(direction) {
    const { panes, focusedPaneId } = get();
    if (panes.length >= MAX_PANES) return null;
    const id = newId('pane');
    const at = panes.findIndex((p) => p.id === focusedPaneId) + 1;
    const next = [...panes.slice(0, at), { id, tabIds: [], activeTabId: null }, ...panes.slice(at)];
    set({ panes: next, focusedPaneId: id, direction: next.length >= 3 && direction !== get().direction ? 'grid' : direction });
    return id;
  },

  closePane(paneId) {
    const { panes } = get();
    if (panes.length <= 1) return;
    const idx = panes.findIndex((p) => p.id === paneId);
    if (idx < 0) return;
    const closing = panes[idx]!;
    const rest = panes.filter((p) => p.id !== paneId);
    const heir = rest[Math.max(0, idx - 1)]!;
    const merged = { ...heir, tabIds: [...heir.tabIds, ...closing.tabIds], activeTabId: heir.activeTabId ?? closing.activeTabId };
    set({
      panes: rest.map((p) => (p.id === heir.id ? merged : p)),
      focusedPaneId: heir.id,
      direction: rest.length < 3 && get().direction === 'grid' ? 'row' : get().direction,
    });
  },

  focusPane(paneId) {
    if (get().panes.some((p) => p.id === paneId)) set({ focusedPaneId: paneId });
  },

  moveTab(tabId, toPaneId, index) {
    const { panes } = get();
    const from = paneOf(panes, tabId);
    const to = panes.find((p) => p.id === toPaneId);
    if (!from || !to) return;
    const without = panes.map((p) => {
      if (p.id !== from.id) return p;
      const tabIds = p.tabIds.filter((t) => t !== tabId);
      const i = p.tabIds.indexOf(tabId);
      return { ...p, tabIds, activeTabId: p.activeTabId === tabId ? (tabIds[Math.min(i, tabIds.length - 1)] ?? null) : p.activeTabId };
    });
    set({
      panes: without.map((p) => {
        if (p.id !== toPaneId) return p;
        const tabIds = [...p.tabIds];
        tabIds.splice(index === undefined ? tabIds.length : Math.max(0, Math.min(index, tabIds.length)), 0, tabId);
        return { ...p, tabIds, activeTabId: tabId };
      }),
      focusedPaneId: toPaneId,
    });
  },

  restore(state) {
    set(state);
  },

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
    const tab = get().tabs[tabId]!;
    set({
      panes: get().panes.map((p) => (p.id === pane.id ? { ...p, activeTabId: tabId } : p)),
      focusedPaneId: pane.id,
      // A finished turn has been seen once its tab is shown.
      ...(tab.status === 'done' ? { tabs: { ...get().tabs, [tabId]: { ...tab, status: 'idle' as const } } } : {}),
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
