import { savedLayoutSchema, type SavedLayout, type SavedLayoutNode } from '@shared/contract/settings';
import type { Api } from '../ipc/client';
import { fetchSetting, saveSetting } from './settings';
import { tabKinds } from './contributions';
import { useTabs, type LayoutNode, type Pane, type Tab } from '../state/tabs';
import { leaf, paneIdsOf, sanitizeTree, treeFromFlat } from '../state/pane-tree';
import { LAYOUT_SETTING } from './first-paint';

export { LAYOUT_SETTING };


/** The layout as saved: the split tree, and panes with the tabs their kinds agree to reopen. */
export function snapshotLayout(): SavedLayout {
  const { panes, tabs, layout, focusedPaneId } = useTabs.getState();
  const index = new Map(panes.map((p, i) => [p.id, i]));
  const save = (node: LayoutNode): SavedLayoutNode =>
    node.kind === 'pane' ? { pane: index.get(node.paneId) ?? 0 } : { axis: node.axis, sizes: node.sizes.map((s) => Math.round(s * 10_000) / 10_000), children: node.children.map(save) };
  return {
    tree: save(layout),
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

const RESTORED = 'tab-restored-';

/** A tab the saved layout brought back (not one opened in this window since). */
export const isRestoredTab = (id: string): boolean => id.startsWith(RESTORED);

export function applyLayout(saved: SavedLayout): void {
  const tabs: Record<string, Tab> = {};
  let n = 0;
  const panes: Pane[] = saved.panes.map((p, i) => {
    const ids: string[] = [];
    for (const t of p.tabs) {
      if (!tabKinds.has(t.kind)) continue;
      const id = `${RESTORED}${n++}`;
      tabs[id] = { id, kind: t.kind, title: t.title, props: t.props };
      ids.push(id);
    }
    const active = p.active !== null && p.active < ids.length ? ids[p.active]! : (ids[0] ?? null);
    return { id: `pane-${i + 1}`, tabIds: ids, activeTabId: active };
  });
  useTabs.getState().restore({
    tabs,
    panes,
    layout: restoredTree(saved, panes.map((p) => p.id)),
    focusedPaneId: panes[Math.min(saved.focusedPane, panes.length - 1)]!.id,
  });
}

/** The saved split tree, or for a layout saved before splits nested, the tree of its one direction. */
function restoredTree(saved: SavedLayout, paneIds: string[]): LayoutNode {
  let n = 0;
  const nextId = () => `split-restored-${n++}`;
  const build = (node: SavedLayoutNode): LayoutNode =>
    'pane' in node ? leaf(paneIds[node.pane] ?? '') : { kind: 'split', id: nextId(), axis: node.axis, sizes: node.sizes, children: node.children.map(build) };
  const fromSaved = saved.tree ? sanitizeTree(build(saved.tree), new Set(paneIds)) : null;
  const tree = fromSaved ?? treeFromFlat(paneIds, saved.direction ?? 'row', nextId);
  // A pane the tree lost (a damaged setting) is not dropped with its tabs: it joins at the end.
  const missing = paneIds.filter((id) => !paneIdsOf(tree).includes(id));
  if (missing.length === 0) return tree;
  const all: LayoutNode = { kind: 'split', id: nextId(), axis: 'row', children: [tree, ...missing.map(leaf)], sizes: [] };
  return sanitizeTree(all, new Set(paneIds)) ?? tree;
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
