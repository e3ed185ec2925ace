import { Inbox, ListTodo } from 'lucide-react';
import { registerConnectionHook, registerLauncherAction, registerOverlay, registerSessionAction, registerSettingsView, registerSidebarSection, registerTabKind } from '../../app/contributions';
import { followRuns, openInbox } from './attention';
import { InboxTab } from './InboxTab';
import { openTasks } from './open';
import { syncTasks } from './state';
import { editTask, TasksTab } from './TasksTab';
import { TasksSidebar } from './TasksSidebar';
import { UsageSection } from './UsageSection';
import { taskFromSession } from './TaskForm';
import { editSessionLimit, SessionLimitDialog } from './SessionLimit';
import './tasks.css';

registerTabKind('tasks', { view: TasksTab, icon: ListTodo, persist: () => ({}) });
registerTabKind('inbox', { view: InboxTab, icon: Inbox, persist: () => ({}) });
registerSidebarSection({ id: 'tasks', title: 'Tasks', order: 12, view: TasksSidebar });
registerSettingsView('usage', UsageSection);
registerConnectionHook((api) => {
  followRuns();
  syncTasks(api);
});

registerLauncherAction({ id: 'tasks', label: 'Tasks', description: 'Queued and scheduled runs while you are away, with limits', order: 60, run: () => void openTasks() });
registerLauncherAction({ id: 'inbox', label: 'Inbox', description: 'What each unattended run did and cost; merge, revert, continue', order: 61, run: () => void openInbox() });

registerSessionAction({
  id: 'run-again',
  label: 'Run this again',
  title: 'Make a task of this session: its prompts, agent and folder, to queue or schedule',
  order: 10,
  run: async (api, sessionId) => {
    const draft = await taskFromSession(api, sessionId);
    if (!draft) return;
    editTask(draft);
    openTasks();
  },
});


registerOverlay(SessionLimitDialog);
registerSessionAction({
  id: 'spend-limit',
  label: 'Spend limit',
  title: 'Limit what this session may spend (tokens, USD): at the limit it pauses and asks',
  order: 11,
  run: (_api, sessionId) => editSessionLimit(sessionId),
});
