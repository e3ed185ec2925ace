import { create } from 'zustand';
import type { AgentMetrics } from '@shared/contract/supervisor';
import type { Api } from '../../ipc/client';

interface OverviewState {
  /** The supervisor's latest sample per agent process (metricsKey: the agent, and the folder it serves). */
  metrics: Record<string, AgentMetrics>;
  /**
   * Per live session: when its current turn began (null: no turn running), how long the turn waited for the
   * user (finished waits, and the one going on since `waitingSince`), and its context usage.
   */
  turns: Record<string, { startedAt: number | null; waitedMs: number; waitingSince: number | null; used: number | null; size: number | null }>;
}

export const useOverview = create<OverviewState>(() => ({ metrics: {}, turns: {} }));

const metricsKey = (m: AgentMetrics): string => (m.folder ? `${m.agentId}\0${m.folder}` : m.agentId);

/**
 * One agent's figures over all its processes (one per project folder by default): memory, CPU and processes
 * summed; the supervisor's warnings of any of them. null when it has none.
 */
export function agentMetrics(all: Record<string, AgentMetrics>, agentId: string): AgentMetrics | null {
  const mine = Object.values(all).filter((m) => m.agentId === agentId);
  if (mine.length <= 1) return mine[0] ?? null;
  const running = mine.filter((m) => m.pid !== null);
  const sum = (f: (m: AgentMetrics) => number | null) => (running.some((m) => f(m) !== null) ? running.reduce((n, m) => n + (f(m) ?? 0), 0) : null);
  const first = <K extends keyof AgentMetrics>(k: K) => mine.find((m) => m[k] !== null)?.[k] ?? null;
  return {
    ...mine[0]!,
    folder: null,
    pid: running[0]?.pid ?? null,
    processes: running.reduce((n, m) => n + m.processes, 0),
    rssBytes: sum((m) => m.rssBytes),
    cpuPercent: sum((m) => m.cpuPercent),
    restarts: Math.max(...mine.map((m) => m.restarts)),
    nextRestartAt: first('nextRestartAt') as number | null,
    gaveUp: first('gaveUp') as string | null,
    unresponsive: first('unresponsive') as string | null,
    throttled: first('throttled') as string | null,
    lastExit: mine.map((m) => m.lastExit).filter((x) => x !== null).sort((a, b) => b.at - a.at)[0] ?? null,
  };
}

const patchTurn = (sessionId: string, patch: Partial<OverviewState['turns'][string]>) => {
  const turns = useOverview.getState().turns;
  const prev = turns[sessionId] ?? { startedAt: null, waitedMs: 0, waitingSince: null, used: null, size: null };
  useOverview.setState({ turns: { ...turns, [sessionId]: { ...prev, ...patch } } });
};

const synced = new WeakSet<Api>();

/** Keeps metrics, turn times and usage in step with the core (once per connection). */
export function syncOverview(api: Api): void {
  if (synced.has(api)) return;
  synced.add(api);
  api.on('agent.metrics', ({ agents }) => {
    const metrics = { ...useOverview.getState().metrics };
    for (const m of agents) metrics[metricsKey(m)] = m;
    useOverview.setState({ metrics });
  });
  void api.call('agents.metrics', {}).then((r) => {
    if (!r.ok) return;
    const metrics = { ...useOverview.getState().metrics };
    for (const m of r.value.agents) metrics[metricsKey(m)] ??= m;
    useOverview.setState({ metrics });
  });
  api.on('session.update', ({ sessionId, events }) => {
    for (const { event } of events) {
      if (event.type === 'prompt') patchTurn(sessionId, { startedAt: Date.now(), waitedMs: 0, waitingSince: null });
      else if (event.type === 'turn_end') patchTurn(sessionId, { startedAt: null, waitingSince: null });
      else if (event.type === 'update' && event.update.sessionUpdate === 'usage_update') {
        patchTurn(sessionId, { used: event.update.used, size: event.update.size });
      }
    }
  });
  api.on('session.state', (s) => {
    const turn = useOverview.getState().turns[s.id];
    const waiting = s.status === 'awaiting_permission' || s.status === 'auth_required';
    if (turn && waiting && turn.waitingSince === null) patchTurn(s.id, { waitingSince: Date.now() });
    else if (turn && !waiting && turn.waitingSince !== null) patchTurn(s.id, { waitedMs: turn.waitedMs + Date.now() - turn.waitingSince, waitingSince: null });
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
      const waiting = s.status === 'awaiting_permission' || s.status === 'auth_required';
      patchTurn(s.id, {
        startedAt: snap.value.thread.turn.running ? s.updatedAt : null,
        waitingSince: waiting ? s.updatedAt : null,
        used: usage?.used ?? null,
        size: usage?.size ?? null,
      });
    }
  });
}

/** A turn's own time so far: its waits for the user are not counted. */
export const turnTime = (turn: OverviewState['turns'][string], now: number): number =>
  turn.startedAt === null ? 0 : now - turn.startedAt - turn.waitedMs - (turn.waitingSince !== null ? now - turn.waitingSince : 0);

export function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(1)} GB`;
  if (n >= 1024 ** 2) return `${Math.round(n / 1024 ** 2)} MB`;
  return `${Math.round(n / 1024)} KB`;
}

export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}
