import { create } from 'zustand';
import type { Api } from '../../ipc/client';
import { syncAgentMetrics } from '../agents';

interface OverviewState {
  /** Per live session: when its current turn began (null: no turn running), and its context usage. */
  turns: Record<string, { startedAt: number | null; used: number | null; size: number | null }>;
}

export const useOverview = create<OverviewState>(() => ({ turns: {} }));

const patchTurn = (sessionId: string, patch: Partial<OverviewState['turns'][string]>) => {
  const turns = useOverview.getState().turns;
  const prev = turns[sessionId] ?? { startedAt: null, used: null, size: null };
  useOverview.setState({ turns: { ...turns, [sessionId]: { ...prev, ...patch } } });
};

const synced = new WeakSet<Api>();

/** Keeps the agents' metrics, turn times and usage in step with the core (once per connection). */
export function syncOverview(api: Api): void {
  if (synced.has(api)) return;
  synced.add(api);
  syncAgentMetrics(api);
  api.on('session.update', ({ sessionId, events }) => {
    for (const { event } of events) {
      if (event.type === 'prompt') patchTurn(sessionId, { startedAt: Date.now() });
      else if (event.type === 'turn_end') patchTurn(sessionId, { startedAt: null });
      else if (event.type === 'update' && event.update.sessionUpdate === 'usage_update') {
        patchTurn(sessionId, { used: event.update.used, size: event.update.size });
      }
    }
  });
  api.on('session.state', (s) => {
    if (s.status !== 'closed') return;
    const turns = { ...useOverview.getState().turns };
    delete turns[s.id];
    useOverview.setState({ turns });
  });
  // Sessions already live: their usage, and a turn under way (from when its state last changed).
  void api.call('sessions.live', {}).then(async (r) => {
    if (!r.ok) return;
    for (const s of r.value.sessions) {
      const snap = await api.call('sessions.state', { sessionId: s.id, tail: 0 });
      if (!snap.ok || useOverview.getState().turns[s.id]) continue;
      const usage = snap.value.thread.usage;
      patchTurn(s.id, { startedAt: snap.value.thread.turn.running ? s.updatedAt : null, used: usage?.used ?? null, size: usage?.size ?? null });
    }
  });
}

export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}
