import { TriangleAlert } from 'lucide-react';
import { useEffect, useState } from 'react';
import { useApi } from '../../app/api-context';
import { formatBytes, syncOverview, useOverview } from './store';

/** Memory and CPU of an agent's process group, small, for its sidebar line. */
export function AgentMetricsBadge({ agentId }: { agentId: string }) {
  const api = useApi();
  useEffect(() => syncOverview(api), [api]);
  const m = useOverview((s) => s.metrics[agentId]);
  if (!m) return null;
  if (m.gaveUp || m.unresponsive) {
    return (
      <span className="agent-health warn" title={m.gaveUp ?? m.unresponsive ?? ''} data-testid="agent-health-warning" aria-label="needs attention">
        <TriangleAlert size={13} />
      </span>
    );
  }
  if (m.pid === null || m.rssBytes === null) return null;
  const usage = `${m.processes} process${m.processes === 1 ? '' : 'es'} · ${formatBytes(m.rssBytes)} resident · ${m.cpuPercent ?? 0}% CPU`;
  if (m.throttled) {
    // In place of the memory figure (the sidebar is narrow): the agent's name stays readable.
    return (
      <span className="agent-throttled small" title={`Throttled: ${m.throttled}\n${usage}`} data-testid="agent-throttled-badge">
        throttled
      </span>
    );
  }
  return (
    <span className="agent-metrics muted small" title={usage} data-testid="agent-metrics">
      {formatBytes(m.rssBytes)}
      {m.cpuPercent !== null && m.cpuPercent >= 1 ? ` · ${Math.round(m.cpuPercent)}%` : ''}
    </span>
  );
}

/** What the supervisor says about an agent (restart pending, gave up, unresponsive, throttled, last exit), for its details. */
export function AgentSupervisorNote({ agentId }: { agentId: string }) {
  const m = useOverview((s) => s.metrics[agentId]);
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
