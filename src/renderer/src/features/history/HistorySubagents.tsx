import { useEffect, useState } from 'react';
import type { HistorySession } from '@shared/contract/history';
import { agentName, useAgents } from '../agents';
import { buildTree, childState, ChildrenToggle, ChildTime, flatten } from '../../ui/session-tree';
import { VisibleText } from '../../ui/VisibleText';
import { openTranscript } from './actions';

/**
 * A past (or live) session's child sessions (subagents, delegated sessions) under its row, as they were: what
 * the agent called each, its state (running only while a live child works; ended otherwise), time and the
 * sentence it was closed with; a click opens its transcript.
 */
export function HistorySubagents({ session: s }: { session: HistorySession }) {
  const live = useAgents((st) => st.sessions);
  const agents = useAgents((st) => st.agents);
  const rows = flatten(buildTree(s.subagents, (c) => c.id, (c) => c.parentId));
  const states = rows.map(({ node }) => {
    const info = live[node.item.id];
    return childState(info ? info.status : node.item.status, info !== undefined && info.status !== 'closed');
  });
  const [open, setOpen] = useState<boolean | null>(null);
  const working = states.some((x) => x.working);
  // Opened when one of them works (and left open when it ends), until the user says otherwise.
  useEffect(() => {
    if (working && open === null) setOpen(true);
  }, [working, open]);
  if (rows.length === 0) return null;
  const shown = open ?? working;
  return (
    <div className="history-subagents" data-testid="history-subagents">
      <ChildrenToggle open={shown} count={rows.length} onToggle={() => setOpen(!shown)} testId="history-subagents-toggle" />
      {shown && (
        <ul className="session-children" aria-label="Subagents">
          {rows.map(({ node, depth }, i) => {
            const c = node.item;
            const { text, working } = states[i]!;
            const title = c.title || (c.delegated ? `${agentName(agents, c.agentId)} (delegated)` : 'Subagent');
            const info = live[c.id];
            return (
              <li key={c.id} className="session-child small" style={{ paddingLeft: `${depth}em` }} data-testid="history-subagent" data-session-id={c.id} data-state={working ? 'working' : 'ended'}>
                <button className="link-button" title="Open its transcript" onClick={() => openTranscript({ id: c.id, title, agentId: c.agentId, cwd: s.cwd })}>
                  ↳ <VisibleText text={title} />
                </button>{' '}
                <span className="muted" data-testid="history-subagent-state">
                  {text} · <ChildTime createdAt={c.createdAt} lastAt={info ? Math.max(info.updatedAt, c.lastActivityAt) : c.lastActivityAt} working={working} />
                </span>
                {!working && (info?.error ?? c.endedWhy) && (
                  <span className="muted" data-testid="history-subagent-why">
                    {' '}
                    — <VisibleText text={(info?.error ?? c.endedWhy)!} />
                  </span>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
