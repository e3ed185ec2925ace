import { useEffect } from 'react';
import { useNow } from '../../ui/Elapsed';
import { useApi } from '../../app/api-context';
import type { TabViewProps } from '../../app/contributions';
import { syncAgents } from '../agents';
import { RunCard } from './RunCard';
import { handledRuns, inboxRuns, syncTasks, useTasks } from './state';
import { useShallow } from 'zustand/react/shallow';

export const INBOX_TAB_ID = 'inbox';

/** Every unattended run that ended (or waits), newest first: review it, then merge, revert, continue, re-run or dismiss. */
export function InboxTab({ active }: TabViewProps) {
  const api = useApi();
  useEffect(() => {
    syncTasks(api);
    syncAgents(api);
  }, [api]);
  const runs = useTasks(useShallow((s) => inboxRuns(s.runs)));
  const handled = useTasks(useShallow((s) => handledRuns(s.runs)));
  const loaded = useTasks((s) => s.loaded);
  const now = useNow(active);
  const waiting = runs.filter((r) => r.state === 'paused');
  return (
    <div className="tasks-view" data-testid="inbox-tab">
      <header className="tasks-head">
        <h2>Inbox</h2>
        <span className="muted small" data-testid="inbox-count">
          {runs.length === 0 ? 'empty' : `${runs.length} run${runs.length === 1 ? '' : 's'}${waiting.length ? `, ${waiting.length} paused` : ''}`}
        </span>
      </header>
      {loaded && runs.length === 0 && (
        <p className="muted" data-testid="inbox-empty">
          Nothing to review. Runs of tasks end here: what they did, what they cost, and their changes.
        </p>
      )}
      {runs.map((r) => (
        <RunCard key={r.id} run={r} now={now} />
      ))}
      {handled.length > 0 && (
        <details className="tasks-section" open data-testid="inbox-handled">
          <summary>Handled lately ({handled.length})</summary>
          {handled.map((r) => (
            <RunCard key={r.id} run={r} now={now} handled />
          ))}
        </details>
      )}
    </div>
  );
}
