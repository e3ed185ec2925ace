import { useTabs } from '../../state/tabs';

/** Shows the live session's tab, opening one when none shows it. */
export function openLiveSessionTab(sessionId: string, title: string): string {
  const tabs = useTabs.getState();
  const existing = Object.values(tabs.tabs).find((t) => t.kind === 'session' && t.props.sessionId === sessionId);
  if (existing) {
    tabs.activate(existing.id);
    return existing.id;
  }
  return tabs.open({ kind: 'session', title, props: { sessionId } });
}
