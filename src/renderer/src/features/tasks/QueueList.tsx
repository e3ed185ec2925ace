import { useShallow } from 'zustand/react/shallow';
import type { TaskRun } from '@shared/contract/tasks';
import { useApi } from '../../app/api-context';
import { VisibleText } from '../../ui/VisibleText';
import { agentName, useAgents } from '../agents';
import { act, queueRuns, useTasks } from './state';
import { runCost, runTime, STATE_TEXT } from './format';
import { PauseCard } from './PauseCard';

/** The queue: what runs and what waits, in order; reorder, cancel, and hold or release the whole queue. */
export function QueueList({ now }: { now: number }) {
  const api = useApi();
  const runs = useTasks(useShallow((s) => queueRuns(s.runs)));
  const paused = useTasks((s) => s.queuePaused);
  const agents = useAgents((s) => s.agents);
  const waiting = runs.filter((r) => r.state === 'queued' || r.state === 'held');
  const move = (run: TaskRun, by: -1 | 1) => {
    const i = waiting.findIndex((r) => r.id === run.id);
    const before = by === -1 ? waiting[i - 1]?.id : (waiting[i + 2]?.id ?? null);
    if (before === undefined) return;
    void act('Could not move the run', api.call('tasks.queue.move', { runId: run.id, before }));
  };
  return (
    <section className="tasks-section" data-testid="task-queue" data-paused={paused}>
      <header className="tasks-section-head">
        <h3>Queue</h3>
        <span className="muted small">{runs.length === 0 ? 'empty' : `${runs.filter((r) => r.state === 'running').length} running, ${waiting.length} waiting`}</span>
        <span className="spacer" />
        <button onClick={() => void act('Could not change the queue', api.call('tasks.queue.pause', { paused: !paused }))} aria-pressed={paused} data-testid="task-queue-pause">
          {paused ? 'Resume the queue' : 'Pause the queue'}
        </button>
      </header>
      {paused && <p className="warning small">The queue is paused: running runs go on, no new one starts.</p>}
      <ol className="task-queue-list">
        {runs.map((r) => {
          const i = waiting.indexOf(r);
          return (
            <li key={r.id} className={`task-queue-row state-${r.state}`} data-testid="task-queue-row" data-run-id={r.id} data-state={r.state}>
              <div className="task-queue-line">
                <strong>
                  <VisibleText text={r.name} />
                </strong>
                <span className={`task-state ${r.state}`}>{STATE_TEXT[r.state]}</span>
                <span className="muted small">
                  <VisibleText text={agentName(agents, r.agentId)} />
                  {r.state !== 'queued' && r.state !== 'held' && ` · ${runCost(r)} · ${runTime(r, now)}`}
                </span>
                <span className="spacer" />
                {i >= 0 && (
                  <>
                    <button className="icon" disabled={i === 0} onClick={() => move(r, -1)} aria-label="Earlier" data-testid="task-queue-up">
                      ↑
                    </button>
                    <button className="icon" disabled={i === waiting.length - 1} onClick={() => move(r, 1)} aria-label="Later" data-testid="task-queue-down">
                      ↓
                    </button>
                  </>
                )}
                <button onClick={() => void act('Could not cancel the run', api.call('tasks.cancel', { runId: r.id }))} data-testid="task-queue-cancel">
                  Cancel
                </button>
              </div>
              {r.holdReason && <div className="muted small">Waits: {r.holdReason}</div>}
              {r.state === 'paused' && r.pause && <PauseCard run={r} />}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
