import { create } from 'zustand';
import type { ConnectFailure, ConnectStep, HostInfo, HostState } from '@shared/contract/hosts';
import { parseHostId } from '@shared/contract/hosts';
import type { Api } from '../../ipc/client';
import { useConnection } from '../../ipc/connection';

/** The hosts (hosts.list, kept live by hosts.state), shared by the sidebar, Settings → Hosts, the new-session form and session headers. */
interface HostsState {
  hosts: HostInfo[];
  loaded: boolean;
  error: string | null;
  /** The step a connect in progress is at, by host id. */
  steps: Record<string, ConnectStep>;
  /** When each step of a host's last connect began, and when that connect ended (null: under way). */
  timings: Record<string, StepTimes>;
}

export interface StepTimes {
  began: Partial<Record<ConnectStep, number>>;
  endedAt: number | null;
}

export const useHosts = create<HostsState>(() => ({ hosts: [], loaded: false, error: null, steps: {}, timings: {} }));

/** How long a step of a connect took (or has taken so far), in words: "0.4 s", "12 s". */
export function stepDuration(times: StepTimes | undefined, step: ConnectStep, order: readonly ConnectStep[], now: number): string | null {
  const began = times?.began[step];
  if (began === undefined) return null;
  const next = order.slice(order.indexOf(step) + 1).map((s) => times!.began[s]).find((t) => t !== undefined);
  const ms = Math.max(0, (next ?? times!.endedAt ?? now) - began);
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/**
 * States the core announced while a list read was under way (by host id): the list was read before (or while)
 * they happened, so each wins over the list's for its host. Null: no read under way.
 */
let heardDuringRead: Map<string, { state: HostState; error: string | null }> | null = null;

export async function refreshHosts(api: Api): Promise<void> {
  const heard = new Map<string, { state: HostState; error: string | null }>();
  heardDuringRead = heard;
  const r = await api.call('hosts.list', {});
  if (heardDuringRead === heard) heardDuringRead = null;
  if (r.ok) useHosts.setState({ hosts: r.value.hosts.map((h) => ({ ...h, ...heard.get(h.id) })), loaded: true, error: null });
  else useHosts.setState({ loaded: true, error: r.error.message });
}

function applyState(api: Api, hostId: string, state: HostState, error: string | null): void {
  heardDuringRead?.set(hostId, { state, error });
  const { hosts, steps, loaded } = useHosts.getState();
  // A host the list does not hold yet (added since it was read): the list is read again, as it is now.
  if (loaded && !heardDuringRead && !hosts.some((h) => h.id === hostId)) void refreshHosts(api);
  const rest = { ...steps };
  if (state !== 'connecting') delete rest[hostId];
  const timings = useHosts.getState().timings;
  const t = timings[hostId];
  const ended = state !== 'connecting' && t && t.endedAt === null ? { ...timings, [hostId]: { ...t, endedAt: Date.now() } } : timings;
  useHosts.setState({ hosts: hosts.map((h) => (h.id === hostId ? { ...h, state, error } : h)), steps: rest, timings: ended });
}

const synced = new WeakSet<Api>();

/** Starts keeping the hosts in step with the core (once per connection). */
export function syncHosts(api: Api): void {
  if (synced.has(api)) return;
  synced.add(api);
  api.on('hosts.state', (s) => applyState(api, s.hostId, s.state, s.error));
  api.on('hosts.progress', (p) => {
    const { steps, timings } = useHosts.getState();
    // The first step starts a new connect's timings.
    const prev = p.step === 'resolving' ? undefined : timings[p.hostId];
    const times: StepTimes = { began: { ...(prev?.began ?? {}), [p.step]: Date.now() }, endedAt: null };
    useHosts.setState({ steps: { ...steps, [p.hostId]: p.step }, timings: { ...timings, [p.hostId]: times } });
  });
  // The page's own connection to the core came back: what the core announced meanwhile was missed.
  useConnection.subscribe((now, before) => {
    if (now.connected && !before.connected) void refreshHosts(api);
  });
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
