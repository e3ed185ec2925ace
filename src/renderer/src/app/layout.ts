import { savedLayoutSchema, type SavedLayout } from '@shared/contract/settings';
import type { Api } from '../ipc/client';
import { fetchSetting, saveSetting } from './settings';
import { tabKinds } from './contributions';
import { useTabs, type Pane, type Tab } from '../state/tabs';

export const LAYOUT_SETTING = 'workspace.layout';


/** The layout as saved: panes with the tabs their kinds agree to reopen. */
export function snapshotLayout(): SavedLayout {
  const { panes, tabs, direction, focusedPaneId } = useTabs.getState();
  return {
    direction,
    focusedPane: Math.max(0, panes.findIndex((p) => p.id === focusedPaneId)),
    panes: panes.map((p) => {
      const kept: SavedLayout['panes'][number]['tabs'] = [];
      let active: number | null = null;
      for (const id of p.tabIds) {
        const tab = tabs[id];
        const props = tab && tabKinds.get(tab.kind)?.persist?.(tab);
        if (!tab || !props) continue;
        if (id === p.activeTabId) active = kept.length;
        // Props are plain data (JSON), as the setting's schema wants.
        kept.push({ kind: tab.kind, title: tab.title, props: JSON.parse(JSON.stringify(props)) as SavedLayout['panes'][number]['tabs'][number]['props'] });
      }
      return { active, tabs: kept };
    }),
  };
}

export function applyLayout(saved: SavedLayout): void {
  const tabs: Record<string, Tab> = {};
  let n = 0;
  const panes: Pane[] = saved.panes.map((p, i) => {
    const ids: string[] = [];
    for (const t of p.tabs) {
      if (!tabKinds.has(t.kind)) continue;
      const id = `tab-restored-${n++}`;
      tabs[id] = { id, kind: t.kind, title: t.title, props: t.props };
      ids.push(id);
    }
    const active = p.active !== null && p.active < ids.length ? ids[p.active]! : (ids[0] ?? null);
    return { id: `pane-${i + 1}`, tabIds: ids, activeTabId: active };
  });
  useTabs.getState().restore({
    tabs,
    panes,
    direction: panes.length >= 3 || saved.direction !== 'grid' ? saved.direction : 'row',
    focusedPaneId: panes[Math.min(saved.focusedPane, panes.length - 1)]!.id,
  });
}

/** Restores the saved layout, then saves it again whenever it changes (debounced). */
export async function restoreAndTrackLayout(api: Api): Promise<() => void> {
  const saved = await fetchSetting(api, LAYOUT_SETTING);
  if (saved) {
    const parsed = savedLayoutSchema.safeParse(saved);
    if (parsed.success) applyLayout(parsed.data);
  }
  let timer: ReturnType<typeof setTimeout> | null = null;
  let last = JSON.stringify(snapshotLayout());
  const unsubscribe = useTabs.subscribe(() => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      const now = JSON.stringify(snapshotLayout());
      if (now === last) return;
      last = now;
      void saveSetting(api, LAYOUT_SETTING, JSON.parse(now) as SavedLayout);
    }, 300);
  });
  return () => {
    if (timer) clearTimeout(timer);
    unsubscribe();
  };
}
