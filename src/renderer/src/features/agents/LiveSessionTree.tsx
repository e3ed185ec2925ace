import { sessionTitle } from '@shared/session-title';
import { useState } from 'react';
import type { SessionInfo } from '@shared/contract/sessions';
import { buildTree, childState, ChildrenToggle, ChildTime, flatten, orderChildren, type TreeNode } from '../../ui/session-tree';
import { VisibleText } from '../../ui/VisibleText';
import { formatBytes } from '@shared/format-bytes';
import { sessionMemory, useMetrics } from './metrics';

/** An agent's live sessions in the sidebar, each with its subagent sessions under it (collapsible). */
export function LiveSessionTree({ sessions, agentName, onOpen }: { sessions: SessionInfo[]; agentName: string; onOpen(s: SessionInfo): void }) {
  const tree = buildTree(sessions, (s) => s.id, (s) => s.subagent?.parentId);
  orderChildren(tree, (s) => s.createdAt);
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

function LiveSessionNode({ root, agentName, onOpen }: { root: TreeNode<SessionInfo>; agentName: string; onOpen(s: SessionInfo): void }) {
  const [open, setOpen] = useState(true);
  const s = root.item;
  const children = flatten(root.children);
  return (
    <li data-testid="agent-session" data-session-id={s.id}>
      <button className="link-button" onClick={() => onOpen(s)} title={s.cwd}>
        <VisibleText text={sessionTitle(s.title, agentName, s.forkedFrom?.title)} /> <span className="muted small">{s.asleep ?? s.status}</span>
      </button>
      <SessionMemory session={s} />
      {children.length > 0 && <ChildrenToggle open={open} count={children.length} onToggle={() => setOpen(!open)} testId="agent-session-children-toggle" />}
      {open && children.length > 0 && (
        <ul className="session-children" aria-label="Subagents">
          {children.map(({ node, depth }) => {
            const c = node.item;
            const { text, working } = childState(c.status, true);
            return (
              <li key={c.id} className="session-child small" style={{ paddingLeft: `${depth}em` }} data-testid="agent-session-child" data-session-id={c.id} data-state={working ? 'working' : 'ended'}>
                <button className="link-button" onClick={() => onOpen(s)} title="Open the session that started it">
                  ↳ <VisibleText text={c.title ?? 'Subagent'} />
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
