import { useCallback, useEffect, useRef, useState } from 'react';
import { useApi } from '../../app/api-context';
import type { TabViewProps } from '../../app/contributions';
import { useTabs } from '../../state/tabs';
import { VisibleText } from '../../ui/VisibleText';

export function openAgentLog(agentId: string, name: string): void {
  useTabs.getState().open({ id: `agent-log:${agentId}`, kind: 'agent-log', title: `Log: ${name}`, props: { agentId } });
}

/** The tail of an agent's log (stderr, sessionless messages, warnings), following it while the tab is shown. */
export function AgentLogTab({ tab, active }: TabViewProps) {
  const api = useApi();
  const agentId = String(tab.props.agentId);
  const [log, setLog] = useState<{ text: string; truncated: boolean; path: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [follow, setFollow] = useState(true);
  const pre = useRef<HTMLPreElement>(null);

  const load = useCallback(async () => {
    const r = await api.call('agents.log', { agentId, maxBytes: 512 * 1024 });
    if (r.ok) {
      setLog(r.value);
      setError(null);
    } else setError(r.error.message);
  }, [api, agentId]);

  useEffect(() => {
    if (!active) return;
    void load();
    const timer = setInterval(() => void load(), 1500);
    return () => clearInterval(timer);
  }, [active, load]);

  useEffect(() => {
    if (follow && pre.current) pre.current.scrollTop = pre.current.scrollHeight;
  }, [log, follow]);

  return (
    <div className="agent-log-tab" data-testid="agent-log">
      <div className="agent-log-bar">
        <strong><VisibleText text={tab.title} /></strong>
        {log && <code className="muted small"><VisibleText text={log.path} /></code>}
        <span className="spacer" />
        <label>
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow
        </label>
        <button onClick={() => void load()}>Refresh</button>
      </div>
      {error && <div className="banner error">{error}</div>}
      {log?.truncated && <div className="muted small agent-log-note">Showing the last 512 KB.</div>}
      <pre className="agent-log-text" ref={pre} data-testid="agent-log-text">
        {log ? log.text || '(empty)' : 'Loading…'}
      </pre>
    </div>
  );
}
