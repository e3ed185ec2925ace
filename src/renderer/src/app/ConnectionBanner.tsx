import { useConnection } from '../ipc/connection';

/** Says, above everything, that the core is out of reach: nothing is live until it is back (the page then reloads). */
export function ConnectionBanner() {
  const connected = useConnection((c) => c.connected);
  if (connected) return null;
  return (
    <div className="connection-banner" role="alert" data-testid="disconnected">
      <span className="spinner" aria-hidden />
      <strong>Disconnected from Switchboard.</strong> Agents, sessions and terminals are out of reach, and nothing can be sent. This page reconnects
      as soon as Switchboard is running again at this address (a new start with another address: open the one it prints).
    </div>
  );
}
