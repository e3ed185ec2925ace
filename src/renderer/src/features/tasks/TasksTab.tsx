import { useEffect } from 'react';
import { useNow } from '../../ui/Elapsed';
import { create } from 'zustand';
import type { Task, TaskInput } from '@shared/contract/tasks';
import { useApi } from '../../app/api-context';
import type { TabViewProps } from '../../app/contributions';
import { confirmDialog } from '../../ui/confirm';
import { VisibleText } from '../../ui/VisibleText';
import { agentName, syncAgents, useAgents } from '../agents';
import { act, queueRuns, syncTasks, useTasks } from './state';
import { when } from './format';
import { QueueList } from './QueueList';
import { TaskForm } from './TaskForm';

export const TASKS_TAB_ID = 'tasks';

/** The form shown in the Tasks tab: a new task (a draft, e.g. made from a session), or one being edited. */
export const useTaskDraft = create<{ editing: { id?: string; initial: Partial<TaskInput>; n: number } | null }>(() => ({ editing: null }));
let drafts = 0;
export const editTask = (initial: Partial<TaskInput>, id?: string): void => useTaskDraft.setState({ editing: { ...(id ? { id } : {}), initial, n: ++drafts } });

function MissedRuns() {
  const api = useApi();
  const missed = useTasks((s) => s.missed);
  if (missed.length === 0) return null;
  return (
    <section className="tasks-section task-missed" data-testid="task-missed" role="alert">
      <h3>Missed while Switchboard was closed</h3>
      <p className="muted small">These runs did not happen. Run each now, or skip it: nothing runs by itself in a burst.</p>
      <ul>
        {missed.map((m) => (
          <li key={`${m.taskId}:${m.dueAt}`} data-testid="task-missed-row">
            <VisibleText text={m.name} /> <span className="muted small">was due {when(m.dueAt)}</span>{' '}
            <button onClick={() => void act('Could not run it', api.call('tasks.resolveMissed', { taskId: m.taskId, dueAt: m.dueAt, action: 'run' }))} data-testid="task-missed-run">
              Run now
            </button>
            <button onClick={() => void act('Could not skip it', api.call('tasks.resolveMissed', { taskId: m.taskId, dueAt: m.dueAt, action: 'skip' }))} data-testid="task-missed-skip">
              Skip
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

function TaskRow({ task }: { task: Task }) {
  const api = useApi();
  const agents = useAgents((s) => s.agents);
  const queue = async (now: boolean) => {
    const run = await act('Could not queue the task', api.call('tasks.enqueue', { taskId: task.id }));
    if (!run || !now) return;
    // Run now: it goes to the head of the queue (it starts at once when a slot is free).
    const first = queueRuns(useTasks.getState().runs).find((r) => (r.state === 'queued' || r.state === 'held') && r.id !== run.id);
    if (first && first.position < run.position) await act('Could not move the run first', api.call('tasks.queue.move', { runId: run.id, before: first.id }));
  };
  const remove = async () => {
    if (await confirmDialog({ title: `Delete the task “${task.name}”?`, message: 'Its runs stay in the Inbox and in History.', confirm: 'Delete', danger: true })) {
      await act('Could not delete the task', api.call('tasks.delete', { id: task.id }));
    }
  };
  return (
    <li className="task-row" data-testid="task-row" data-task-id={task.id}>
      <div className="task-row-line">
        <strong data-testid="task-row-name">
          <VisibleText text={task.name} />
        </strong>
        <span className="muted small">
          <VisibleText text={agentName(agents, task.agentId)} /> · <VisibleText text={task.folder} />
          {task.place === 'worktree' ? ' · new worktree' : task.place === 'ssh' ? ' · on an SSH host' : ''}
        </span>
        <span className="spacer" />
        <button className="primary" onClick={() => void queue(true)} data-testid="task-run-now">
          Run now
        </button>
        <button onClick={() => void queue(false)} data-testid="task-queue">
          Queue
        </button>
        <button onClick={() => editTask(task, task.id)} data-testid="task-edit">
          Edit
        </button>
        <button onClick={() => void remove()} data-testid="task-delete">
          Delete
        </button>
      </div>
      <div className="muted small">
        <VisibleText text={task.prompts[0]!.split('\n')[0]!.slice(0, 200)} />
        {task.prompts.length > 1 ? ` (+${task.prompts.length - 1} more)` : ''}
      </div>
      {task.scheduleText && (
        <div className="small" data-testid="task-row-schedule">
          {task.scheduleText}. Next: {task.nextRuns.map(when).join(', ')}
        </div>
      )}
      {task.onCommit && (
        <div className="small" data-testid="task-row-on-commit">
          On each new commit to <VisibleText text={task.onCommit.branch} />
        </div>
      )}
    </li>
  );
}

/** Tasks: the saved tasks, the queue, missed runs, and the form to make or edit one. */
export function TasksTab({ active }: TabViewProps) {
  const api = useApi();
  useEffect(() => {
    syncTasks(api);
    syncAgents(api);
  }, [api]);
  const tasks = useTasks((s) => s.tasks);
  const editing = useTaskDraft((s) => s.editing);
  const now = useNow(active);
  return (
    <div className="tasks-view" data-testid="tasks-tab">
      <header className="tasks-head">
        <h2>Tasks</h2>
        <span className="spacer" />
        <button className="primary" onClick={() => editTask({})} data-testid="task-new">
          New task
        </button>
      </header>
      <MissedRuns />
      {editing && <TaskForm key={editing.n} {...(editing.id ? { id: editing.id } : {})} initial={editing.initial} onDone={() => useTaskDraft.setState({ editing: null })} />}
      <QueueList now={now} />
      <section className="tasks-section">
        <h3>Saved tasks</h3>
        {tasks.length === 0 && <p className="muted small">No task yet. Make one here, or from a session with “Run this again”.</p>}
        <ul className="task-list">
          {tasks.map((t) => (
            <TaskRow key={t.id} task={t} />
          ))}
        </ul>
      </section>
    </div>
  );
}
