import { TriangleAlert } from 'lucide-react';
import { useEffect, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useApi } from '../../app/api-context';
import type { AgentMetrics } from '@shared/contract/supervisor';
import { formatBytes } from '@shared/format-bytes';
import { agentMetrics, syncAgentMetrics, useMetrics } from './metrics';

/** The supervisor's figures of an agent, over all its processes. */
function useAgentMetrics(agentId: string) {
  const all = useMetrics((s) => s.metrics);
  return useMemo(() => agentMetrics(all, agentId), [all, agentId]);
}

/** What the sidebar line shows of a sample (compared field by field: a new sample that shows the same re-renders nothing). */
function badgeOf(m: AgentMetrics | undefined) {
  return {
    warning: m ? (m.gaveUp ?? m.unresponsive) : null,
    running: !!m && m.pid !== null && m.rssBytes !== null,
    processes: m?.processes ?? 0,
    memory: m?.rssBytes != null ? formatBytes(m.rssBytes) : '',
    cpu: Math.round(m?.cpuPercent ?? 0),
    throttled: m?.throttled ?? null,
  };
}

/** Memory and CPU of an agent's process group, small, for its sidebar line. */
export function AgentMetricsBadge({ agentId }: { agentId: string }) {
  const api = useApi();
  useEffect(() => syncAgentMetrics(api), [api]);
  const b = useMetrics(useShallow((s) => badgeOf(agentMetrics(s.metrics, agentId) ?? undefined)));
  if (b.warning) {
    return (
      <span className="agent-health warn" title={b.warning} data-testid="agent-health-warning" aria-label="needs attention">
        <TriangleAlert size={13} />
      </span>
    );
  }
  if (!b.running) return null;
  const usage = `${b.processes} process${b.processes === 1 ? '' : 'es'} · ${b.memory} resident · ${b.cpu}% CPU`;
  if (b.throttled) {
    // In place of the memory figure (the sidebar is narrow): the agent's name stays readable.
    return (
      <span className="agent-throttled small" title={`Throttled: ${b.throttled}\n${usage}`} data-testid="agent-throttled-badge">
        throttled
      </span>
    );
  }
  return (
    <span className="agent-metrics muted small" title={usage} data-testid="agent-metrics">
      {b.memory}
      {b.cpu >= 1 ? ` · ${b.cpu}%` : ''}
    </span>
  );
}

/** What the supervisor says about an agent (restart pending, gave up, unresponsive, throttled, last exit), for its details. */
export function AgentSupervisorNote({ agentId }: { agentId: string }) {
  const m = useAgentMetrics(agentId);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!m?.nextRestartAt) return;
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, [m?.nextRestartAt]);
  if (!m) return null;
  return (
    <div className="agent-supervisor small" data-testid="agent-supervisor">
      {m.nextRestartAt !== null && (
        <div data-testid="agent-restart-pending">Restarting in {Math.max(0, Math.ceil((m.nextRestartAt - now) / 1000))} s (restart {m.restarts})</div>
      )}
      {m.gaveUp && (
        <div className="error" data-testid="agent-gave-up">
          {m.gaveUp}
        </div>
      )}
      {m.unresponsive && (
        <div className="error" data-testid="agent-unresponsive">
          {m.unresponsive}
        </div>
      )}
      {m.throttled && (
        <div className="warning" data-testid="agent-throttled">
          Throttled: {m.throttled}
        </div>
      )}
      {m.lastExit && (
        <details data-testid="agent-last-exit">
          <summary className="muted">
            Last exit: {m.lastExit.signal ? `signal ${m.lastExit.signal}` : `code ${m.lastExit.code}`} at {new Date(m.lastExit.at).toLocaleTimeString()}
          </summary>
          {m.lastExit.stderrTail ? <pre className="agent-stderr">{m.lastExit.stderrTail}</pre> : <div className="muted">(nothing on stderr)</div>}
        </details>
      )}
    </div>
  );
}
