import { useEffect } from 'react';
import { useTabs, type Tab } from '../state/tabs';
import { visibleText } from '../ui/VisibleText';

/** Tabs that need the user: a permission is waiting, or a turn finished while the tab was not looked at. */
export const needsYou = (tabs: Record<string, Tab>): Tab[] => Object.values(tabs).filter((t) => t.status === 'attention' || t.status === 'done');

export function useNeedsYouCount(): number {
  return useTabs((s) => needsYou(s.tabs).length);
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

let cursor = -1;
/** Activates the next tab that needs the user, cycling. Permission requests come before finished turns. */
export function focusNextNeedingYou(): boolean {
  const { tabs, activate } = useTabs.getState();
  const list = needsYou(tabs).sort((a, b) => Number(b.status === 'attention') - Number(a.status === 'attention'));
  if (list.length === 0) return false;
  cursor = (cursor + 1) % list.length;
  activate(list[cursor]!.id);
  return true;
}
