import type { Api } from '../ipc/client';
import { useTabs } from '../state/tabs';
import { tabKinds } from './contributions';

export function closeTab(tabId: string, api: Api): void {
  const tab = useTabs.getState().tabs[tabId];
  if (!tab) return;
  void tabKinds.get(tab.kind)?.onClose?.(tab, api);
  useTabs.getState().close(tabId);
}

export function openLauncher(): void {
  useTabs.getState().open({ kind: 'launcher', title: 'New tab', props: {} });
}

