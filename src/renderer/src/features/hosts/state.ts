import { create } from 'zustand';
import type { ConnectFailure, ConnectStep, HostInfo, HostState } from '@shared/contract/hosts';
import { parseHostId } from '@shared/contract/hosts';
import type { Api } from '../../ipc/client';

/** The hosts (hosts.list, kept live by hosts.state), shared by the sidebar, Settings → Hosts, the new-session form and session headers. */
interface HostsState {
  hosts: HostInfo[];
  loaded: boolean;
  error: string | null;
  /** The step a connect in progress is at, by host id. */
  steps: Record<string, ConnectStep>;
}

export const useHosts = create<HostsState>(() => ({ hosts: [], loaded: false, error: null, steps: {} }));

export async function refreshHosts(api: Api): Promise<void> {
  const r = await api.call('hosts.list', {});
  if (r.ok) useHosts.setState({ hosts: r.value.hosts, loaded: true, error: null });
  else useHosts.setState({ loaded: true, error: r.error.message });
}

function applyState(hostId: string, state: HostState, error: string | null): void {
  const { hosts, steps } = useHosts.getState();
  const rest = { ...steps };
  if (state !== 'connecting') delete rest[hostId];
  useHosts.setState({ hosts: hosts.map((h) => (h.id === hostId ? { ...h, state, error } : h)), steps: rest });
}

const synced = new WeakSet<Api>();

/** Starts keeping the hosts in step with the core (once per connection). */
export function syncHosts(api: Api): void {
  if (synced.has(api)) return;
  synced.add(api);
  api.on('hosts.state', (s) => applyState(s.hostId, s.state, s.error));
  api.on('hosts.progress', (p) => useHosts.setState({ steps: { ...useHosts.getState().steps, [p.hostId]: p.step } }));
  void refreshHosts(api);
}

export const STEP_TEXT: Record<ConnectStep, string> = {
  resolving: 'Resolving the host…',
  authenticating: 'Authenticating…',
  preparing: 'Preparing the host…',
};

export const STATE_TEXT: Record<HostState, string> = {
  connected: 'Connected',
  connecting: 'Connecting…',
  reconnecting: 'Connection lost, reconnecting…',
  disconnected: 'Not connected',
};

/** What went wrong, in a heading the user reads first (the failure's message follows it). */
export const FAILURE_TITLE: Record<ConnectFailure['kind'], string> = {
  unreachable: 'The host cannot be reached',
  'auth-refused': 'Authentication refused',
  'host-key-unknown': 'Unknown host key',
  'host-key-changed': 'The host key has changed',
  'node-missing': 'Node.js is missing on the host',
  'git-missing': 'git is missing on the host',
  failed: 'Could not connect',
};

/** The label the user knows a host by. */
export function hostName(hosts: readonly HostInfo[], hostId: string): string {
  const known = hosts.find((h) => h.id === hostId)?.label;
  if (known) return known;
  const a = parseHostId(hostId);
  if (a?.kind === 'container') return `A container on ${a.on === 'local' ? 'this machine' : hostName(hosts, a.on)}`;
  return hostId === 'local' ? 'This machine' : hostId.replace(/^ssh:/, '');
}
