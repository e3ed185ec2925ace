import { create } from 'zustand';
import { MAX_SAVED_PANES } from '@shared/contract/settings';
import { leaf, paneIdsOf, removePane, resizeSplit, splitPane, type LayoutNode, type SplitAxis } from './pane-tree';

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

export type { LayoutNode, SplitAxis };
export const MAX_PANES = MAX_SAVED_PANES;

interface TabsState {
  tabs: Record<string, Tab>;
  /** The panes, in the layout's reading order. */
  panes: Pane[];
  /** How the panes are arranged (state/pane-tree). */
  layout: LayoutNode;
  focusedPaneId: string;
  /** Splits the focused pane: a new empty pane to its right ('row') or below it ('column'), at most MAX_PANES. Returns its id or null. */
  split(axis: SplitAxis): string | null;
  /** Removes a pane; its tabs move to a neighbour. */
  closePane(paneId: string): void;
  /** Sets the shares of one split's children. */
  resize(splitId: string, sizes: number[]): void;
  focusPane(paneId: string): void;
  /** Moves a tab into another pane (or another place of the same pane). */
  moveTab(tabId: string, toPaneId: string, index?: number): void;
  /** Replaces everything (layout restore). */
  restore(state: Pick<TabsState, 'tabs' | 'panes' | 'focusedPaneId' | 'layout'>): void;
  open(tab: Omit<Tab, 'id'> & { id?: string }, paneId?: string): string;
  close(tabId: string): void;
  activate(tabId: string): void;
  cycle(delta: 1 | -1): void;
  update(tabId: string, patch: Partial<Omit<Tab, 'id'>>): void;
}

let counter = 0;
const newId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

const paneOf = (panes: Pane[], tabId: string) => panes.find((p) => p.tabIds.includes(tabId));

/** The panes reordered as the layout reads. */
const ordered = (panes: Pane[], layout: LayoutNode): Pane[] => {
  const byId = new Map(panes.map((p) => [p.id, p]));
  return paneIdsOf(layout).flatMap((id) => byId.get(id) ?? []);
};

/** The pane that takes over from a pane going away: the one before it in reading order, else the one after. */
const heirOf = (panes: Pane[], paneId: string): Pane | undefined => {
  const idx = panes.findIndex((p) => p.id === paneId);
  return panes[idx - 1] ?? panes[idx + 1];
};

export const useTabs = create<TabsState>((set, get) => ({
  tabs: {},
  panes: [{ id: 'pane-1', tabIds: [], activeTabId: null }],
  layout: leaf('pane-1'),
  focusedPaneId: 'pane-1',

  split(axis) {
    const { panes, focusedPaneId, layout } = get();
    if (panes.length >= MAX_PANES || !panes.some((p) => p.id === focusedPaneId)) return null;
    const id = newId('pane');
    const next = splitPane(layout, focusedPaneId, axis, id, newId('split'));
    set({ layout: next, panes: ordered([...panes, { id, tabIds: [], activeTabId: null }], next), focusedPaneId: id });
    return id;
  },

  closePane(paneId) {
    const { panes, layout } = get();
    const closing = panes.find((p) => p.id === paneId);
    const heir = heirOf(panes, paneId);
    if (!closing || !heir) return;
    const merged = { ...heir, tabIds: [...heir.tabIds, ...closing.tabIds], activeTabId: heir.activeTabId ?? closing.activeTabId };
    const next = removePane(layout, paneId) ?? leaf(heir.id);
    set({
      layout: next,
      panes: panes.filter((p) => p.id !== paneId).map((p) => (p.id === heir.id ? merged : p)),
      focusedPaneId: heir.id,
    });
  },

  resize(splitId, sizes) {
    set({ layout: resizeSplit(get().layout, splitId, sizes) });
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
      ...collapseEmptied(
        without.map((p) => {
          if (p.id !== toPaneId) return p;
          const tabIds = [...p.tabIds];
          tabIds.splice(index === undefined ? tabIds.length : Math.max(0, Math.min(index, tabIds.length)), 0, tabId);
          return { ...p, tabIds, activeTabId: tabId };
        }),
        get().layout,
        from.id !== toPaneId ? from.id : null,
      ),
      focusedPaneId: toPaneId,
    });
  },

  restore(state) {
    set({ ...state, panes: ordered(state.panes, state.layout) });
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
    const { tabs, panes, layout, focusedPaneId } = get();
    if (!tabs[tabId]) return;
    const { [tabId]: _closed, ...rest } = tabs;
    const from = paneOf(panes, tabId);
    const after = collapseEmptied(
      panes.map((p) => {
        if (p.id !== from?.id) return p;
        const idx = p.tabIds.indexOf(tabId);
        const tabIds = p.tabIds.filter((t) => t !== tabId);
        const activeTabId = p.activeTabId === tabId ? (tabIds[Math.min(idx, tabIds.length - 1)] ?? null) : p.activeTabId;
        return { ...p, tabIds, activeTabId };
      }),
      layout,
      from?.id ?? null,
    );
    const focusGone = !after.panes.some((p) => p.id === focusedPaneId);
    set({ tabs: rest, ...after, ...(focusGone ? { focusedPaneId: heirOf(panes, focusedPaneId)?.id ?? after.panes[0]!.id } : {}) });
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

/** A pane left without tabs goes away (its share to its neighbours), unless it is the last one. */
function collapseEmptied(panes: Pane[], layout: LayoutNode, paneId: string | null): { panes: Pane[]; layout: LayoutNode } {
  const pane = paneId ? panes.find((p) => p.id === paneId) : undefined;
  if (!pane || pane.tabIds.length > 0 || panes.length <= 1) return { panes, layout };
  const next = removePane(layout, pane.id);
  return next ? { panes: panes.filter((p) => p.id !== pane.id), layout: next } : { panes, layout };
}

export const activeTab = (s: TabsState): Tab | null => {
  const pane = s.panes.find((p) => p.id === s.focusedPaneId);
  return pane?.activeTabId ? (s.tabs[pane.activeTabId] ?? null) : null;
};
