import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useApi } from '../../app/api-context';
import { useTabs } from '../../state/tabs';
import { syncHosts, useHosts } from '../hosts';
import { openShellTab } from './open';
import { VisibleText } from '../../ui/VisibleText';

/** The launcher's "New shell on <host>": one for each SSH host connected now. */
export function HostShellsPanel() {
  const api = useApi();
  useEffect(() => syncHosts(api), [api]);
  // A new array at every call: compared item by item, or the launcher would render for ever.
  const hosts = useHosts(useShallow((s) => s.hosts.filter((h) => h.kind !== 'local' && h.state === 'connected')));
  if (hosts.length === 0) return null;
  const open = (hostId: string, label: string) => {
    const s = useTabs.getState();
    const pane = s.panes.find((p) => p.id === s.focusedPaneId);
    const current = pane?.activeTabId ? s.tabs[pane.activeTabId] : undefined;
    const tabId = openShellTab(undefined, hostId, label);
    if (current?.kind === 'launcher') useTabs.getState().close(current.id);
    useTabs.getState().activate(tabId);
  };
  return (
    <div className="launcher-actions" data-testid="launcher-host-shells">
      {hosts.map((h) => (
        <button key={h.id} className="launcher-action" onClick={() => open(h.id, h.label)} data-testid={`launch-shell-on-${h.id}`}>
          <strong>New shell on <VisibleText text={h.label} /></strong>
          <span>The login shell of your user on <VisibleText text={h.label} />, in a terminal tab</span>
        </button>
      ))}
    </div>
  );
}
