import { create } from 'zustand';
import type { AgentMetrics } from '@shared/contract/supervisor';
import type { Api } from '../../ipc/client';

/** The supervisor's latest sample per agent process (metricsKey: the agent, and the folder it serves). */
export const useMetrics = create<{ metrics: Record<string, AgentMetrics> }>(() => ({ metrics: {} }));

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

/**
 * The resident memory of the process tree serving a session (one process per agent and folder by default, else the
 * agent's own): null when it is not running. Sessions served by one process share its figure.
 */
export function sessionMemory(all: Record<string, AgentMetrics>, s: { agentId: string; cwd: string }): number | null {
  const m = all[`${s.agentId}\0${s.cwd}`] ?? all[s.agentId];
  return m && m.pid !== null ? m.rssBytes : null;
}

const synced = new WeakSet<Api>();

/** Keeps the supervisor's samples in step with the core (once per connection). */
export function syncAgentMetrics(api: Api): void {
  if (synced.has(api)) return;
  synced.add(api);
  api.on('agent.metrics', ({ agents }) => {
    const metrics = { ...useMetrics.getState().metrics };
    for (const m of agents) metrics[metricsKey(m)] = m;
    useMetrics.setState({ metrics });
  });
  void api.call('agents.metrics', {}).then((r) => {
    if (!r.ok) return;
    const metrics = { ...useMetrics.getState().metrics };
    for (const m of r.value.agents) metrics[metricsKey(m)] ??= m;
    useMetrics.setState({ metrics });
  });
}

