import { sessionTitle } from '@shared/session-title';
import { useState } from 'react';
import type { SessionInfo } from '@shared/contract/sessions';
import { buildTree, childLabel, childState, ChildrenToggle, ChildTime, flatten, orderChildren, parentSessionOf, type TreeNode } from '../../ui/session-tree';
import { VisibleText } from '../../ui/VisibleText';
import { formatBytes } from '@shared/format-bytes';
import { sessionMemory, useMetrics } from './metrics';
import { agentName as nameOf, useAgents } from './state';

/**
 * An agent's live sessions in the sidebar, each with its children under it (collapsible): its ACP subagent
 * sessions and the sessions it delegated to, whatever their agent. `sessions`: every live session; a child
 * whose parent is live is shown under it, not in its own agent's list.
 */
export function LiveSessionTree({ sessions, agentId, agentName, onOpen }: { sessions: SessionInfo[]; agentId: string; agentName: string; onOpen(s: SessionInfo, agentName: string): void }) {
  const tree = buildTree(sessions, (s) => s.id, parentSessionOf).filter((root) => root.item.agentId === agentId);
  orderChildren(tree, (s) => s.createdAt);
  if (tree.length === 0) return null;
  return (
    <ul className="agent-sessions">
      {tree.map((root) => (
        <LiveSessionNode key={root.item.id} root={root} agentName={agentName} onOpen={onOpen} />
      ))}
    </ul>
  );
}

/** What the session's agent process tree takes (shared with the other sessions it serves); nothing while asleep. */
function SessionMemory({ session }: { session: SessionInfo }) {
  const bytes = useMetrics((m) => (session.asleep ? null : sessionMemory(m.metrics, session)));
  if (bytes === null) return null;
  const mb = formatBytes(bytes);
  return (
    <span className="muted small session-memory" data-testid="session-memory" title={`Its agent's processes: ${mb} resident (shared by the sessions that agent process serves)`}>
      {' '}
      {mb}
    </span>
  );
}

/** The sessions an agent's row lists at its top level (those not shown under a live parent). */
export function rootSessionCount(sessions: SessionInfo[], agentId: string): number {
  return buildTree(sessions, (s) => s.id, parentSessionOf).filter((root) => root.item.agentId === agentId).length;
}

function LiveSessionNode({ root, agentName, onOpen }: { root: TreeNode<SessionInfo>; agentName: string; onOpen(s: SessionInfo, agentName: string): void }) {
  const [open, setOpen] = useState(true);
  const agents = useAgents((st) => st.agents);
  const s = root.item;
  const children = flatten(root.children);
  return (
    <li data-testid="agent-session" data-session-id={s.id}>
      <button className="link-button" onClick={() => onOpen(s, agentName)} title={s.cwd}>
        <VisibleText text={sessionTitle(s.title, agentName, s.forkedFrom?.title)} /> <span className="muted small">{s.asleep ?? s.status}</span>
      </button>
      <SessionMemory session={s} />
      {children.length > 0 && <ChildrenToggle open={open} count={children.length} onToggle={() => setOpen(!open)} testId="agent-session-children-toggle" />}
      {open && children.length > 0 && (
        <ul className="session-children" aria-label="Subagents">
          {children.map(({ node, depth }) => {
            const c = node.item;
            const { text, working } = childState(c.status, true);
            const name = nameOf(agents, c.agentId);
            // A delegated session is a session of its own (its tab answers its requests); a subagent lives in its parent's thread.
            const opens = c.delegatedBy ? c : s;
            return (
              <li key={c.id} className="session-child small" style={{ paddingLeft: `${depth}em` }} data-testid="agent-session-child" data-session-id={c.id} data-state={working ? 'working' : 'ended'}>
                <button className="link-button" onClick={() => onOpen(opens, c.delegatedBy ? name : agentName)} title={c.delegatedBy ? 'Open it' : 'Open the session that started it'}>
                  ↳ <VisibleText text={childLabel(c, name)} />
                </button>{' '}
                <span className="muted" data-testid="session-child-state">
                  {text} · <ChildTime createdAt={c.createdAt} lastAt={c.updatedAt} working={working} />
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </li>
  );
}
