import type { MissedRun, TaskRun } from '@shared/contract/tasks';
import { setOtherNeeds, type NeedsYou } from '../../app/attention';
import { settingNow } from '../../app/settings';
import { useTabs } from '../../state/tabs';
import { desktopNotify } from '../notifications';
import { INBOX_TAB_ID } from './InboxTab';
import { openTasks } from './open';
import { TASKS_TAB_ID } from './TasksTab';
import { inboxRuns, onRunChanged, useTasks } from './state';
import { pauseInWords } from './format';

export const openInbox = (): string => useTabs.getState().open({ id: INBOX_TAB_ID, kind: 'inbox', title: 'Inbox', props: {} });

/** A run waits for the user (paused by its limit, or asked something its policy may not answer) rather than only to be reviewed. */
export const runWaits = (r: TaskRun): boolean => r.state === 'paused' || (r.state === 'running' && r.inbox === 'open');

/** The Inbox's runs as "needs you" (the sidebar's count and the window title). */
export function inboxNeeds(runs: Record<string, TaskRun>): NeedsYou[] {
  return inboxRuns(runs).map((r) => ({ tabId: INBOX_TAB_ID, sessionId: null, waiting: runWaits(r), title: r.name, open: () => void openInbox() }));
}

/** Runs missed while Switchboard was closed wait for "run now" or "skip" in the Tasks tab: they need the user too. */
export const missedNeeds = (missed: readonly MissedRun[]): NeedsYou[] =>
  missed.map((m) => ({ tabId: TASKS_TAB_ID, sessionId: null, waiting: true, title: `${m.name} (missed)`, open: () => void openTasks() }));

/** Desktop notifications of runs: paused by the guard, waiting for the user, finished (each switchable in Settings). */
export function notifyOfRun(run: TaskRun, before: TaskRun | undefined): void {
  if (run.trigger === 'session') return;
  if (run.state === 'paused' && before?.state !== 'paused' && run.pause) {
    if (settingNow('notifications.taskPaused')) desktopNotify(`${run.name} paused by its limit`, pauseInWords(run.pause), INBOX_TAB_ID);
  } else if (run.state === 'running' && run.inbox === 'open' && before?.inbox !== 'open') {
    if (settingNow('notifications.taskNeedsYou')) desktopNotify(`${run.name} waits for you`, 'It asked something its policy may not answer.', INBOX_TAB_ID);
  } else if ((run.state === 'done' || run.state === 'failed') && before && before.state !== run.state) {
    if (settingNow('notifications.taskFinished')) desktopNotify(`${run.name} ${run.state === 'done' ? 'finished' : 'failed'}`, run.error ?? run.lastMessage ?? 'It is in the Inbox.', INBOX_TAB_ID);
  }
}

let following = false;
/** Follows the runs for the whole window: "needs you" and notifications. */
export function followRuns(): void {
  if (following) return;
  following = true;
  useTasks.subscribe((s, prev) => {
    if (s.runs !== prev.runs || s.missed !== prev.missed) setOtherNeeds('tasks', [...inboxNeeds(s.runs), ...missedNeeds(s.missed)]);
  });
  onRunChanged(notifyOfRun);
}

