import { useEffect } from 'react';
import { useApi } from '../../app/api-context';
import { STATE_TEXT, syncHosts, useHosts } from './state';
import { VisibleText } from '../../ui/VisibleText';

/** The sidebar's hosts: each SSH host with its connection's state (Settings → Hosts manages them). */
export function HostsSidebar() {
  const api = useApi();
  const all = useHosts((s) => s.hosts);
  const hosts = all.filter((h) => h.kind === 'ssh');
  useEffect(() => syncHosts(api), [api]);
  return (
    <div className="hosts-sidebar" data-testid="hosts-sidebar">
      {hosts.length === 0 && <p className="muted small">Only this machine. Add SSH hosts in Settings → Hosts.</p>}
      <ul>
        {hosts.map((h) => (
          <li key={h.id} data-testid="sidebar-host" data-host-id={h.id} data-state={h.state} title={h.error ?? STATE_TEXT[h.state]}>
            <span className="host-name">
              <span className={`host-dot ${h.state}`} aria-hidden /> <VisibleText text={h.label} />
            </span>
            <span className="muted small">{STATE_TEXT[h.state]}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
