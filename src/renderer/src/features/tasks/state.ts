import { create } from 'zustand';
import type { MissedRun, Task, TaskRun } from '@shared/contract/tasks';
import type { Api } from '../../ipc/client';
import { useNotices } from '../../app/notices';

/** The tasks, their runs (queue and Inbox), the missed runs and whether the queue is held, as the core says. */
export interface TasksState {
  tasks: Task[];
  runs: Record<string, TaskRun>;
  missed: MissedRun[];
  queuePaused: boolean;
  loaded: boolean;
}

export const useTasks = create<TasksState>(() => ({ tasks: [], runs: {}, missed: [], queuePaused: false, loaded: false }));

/** Listeners told of every run that changed (the notifications and "needs you" follow them). */
type RunListener = (run: TaskRun, before: TaskRun | undefined) => void;
const runListeners = new Set<RunListener>();
export function onRunChanged(listener: RunListener): () => void {
  runListeners.add(listener);
  return () => runListeners.delete(listener);
}

async function reload(api: Api): Promise<void> {
  const [tasks, runs, missed] = await Promise.all([api.call('tasks.list', {}), api.call('tasks.runs', { inbox: false }), api.call('tasks.missed', {})]);
  useTasks.setState((s) => ({
    tasks: tasks.ok ? tasks.value.tasks : s.tasks,
    runs: runs.ok ? Object.fromEntries(runs.value.runs.map((r) => [r.id, r])) : s.runs,
    queuePaused: runs.ok ? runs.value.paused : s.queuePaused,
    missed: missed.ok ? missed.value.missed : s.missed,
    loaded: true,
  }));
}

const synced = new WeakSet<Api>();
/** Keeps the tasks and runs in step with the core (once per connection). */
export function syncTasks(api: Api): void {
  if (synced.has(api)) return;
  synced.add(api);
  api.on('tasks.run', (run) => {
    const before = useTasks.getState().runs[run.id];
    useTasks.setState((s) => ({ runs: { ...s.runs, [run.id]: run } }));
    for (const l of runListeners) l(run, before);
  });
  api.on('tasks.changed', () => void reload(api));
  void reload(api);
}

/** Calls the core; a refusal is said in a notice. Resolves to the value, or null. */
export async function act<T>(what: string, p: Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>): Promise<T | null> {
  const r = await p;
  if (r.ok) return r.value;
  useNotices.getState().push('error', `${what}: ${r.error.message}`);
  return null;
}

/** Runs in the Inbox, newest first. */
export const inboxRuns = (runs: Record<string, TaskRun>): TaskRun[] =>
  Object.values(runs)
    .filter((r) => r.inbox === 'open')
    .sort((a, b) => (b.endedAt ?? b.startedAt ?? b.queuedAt) - (a.endedAt ?? a.startedAt ?? a.queuedAt));

/** Runs taken out of the Inbox (merged, reverted, continued, dismissed), newest first: they can still be re-run. */
export const handledRuns = (runs: Record<string, TaskRun>, max = 10): TaskRun[] =>
  Object.values(runs)
    .filter((r) => r.inbox !== 'open' && r.inbox !== 'none')
    .sort((a, b) => (b.endedAt ?? b.queuedAt) - (a.endedAt ?? a.queuedAt))
    .slice(0, max);

/** Runs waiting or running, in queue order. */
export const queueRuns = (runs: Record<string, TaskRun>): TaskRun[] =>
  Object.values(runs)
    .filter((r) => r.trigger !== 'session' && (r.state === 'queued' || r.state === 'held' || r.state === 'running' || r.state === 'paused'))
    .sort((a, b) => a.position - b.position);
