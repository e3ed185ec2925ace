import { useShallow } from 'zustand/react/shallow';
import { useApi } from '../../app/api-context';
import { useEffect } from 'react';
import { openInbox, runWaits } from './attention';
import { inboxRuns, queueRuns, syncTasks, useTasks } from './state';
import { openTasks } from './open';

/** The sidebar's tasks: the Inbox (how many runs wait there) and the queue at a glance. */
export function TasksSidebar() {
  const api = useApi();
  useEffect(() => syncTasks(api), [api]);
  const inbox = useTasks(useShallow((s) => inboxRuns(s.runs)));
  const queue = useTasks(useShallow((s) => queueRuns(s.runs)));
  const waiting = inbox.filter(runWaits).length;
  return (
    <div className="tasks-sidebar" data-testid="tasks-sidebar">
      <button className="link-button" onClick={() => void openInbox()} data-testid="sidebar-open-inbox" data-count={inbox.length}>
        Inbox{inbox.length > 0 ? ` (${inbox.length})` : ''}
        {waiting > 0 && <span className="warning small"> · {waiting} waiting for you</span>}
      </button>
      <button className="link-button" onClick={() => void openTasks()} data-testid="sidebar-open-tasks">
        Tasks{queue.length > 0 ? ` · ${queue.filter((r) => r.state === 'running').length} running, ${queue.filter((r) => r.state === 'queued' || r.state === 'held').length} queued` : ''}
      </button>
    </div>
  );
}
