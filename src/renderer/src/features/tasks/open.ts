import { useTabs } from '../../state/tabs';
import { TASKS_TAB_ID } from './TasksTab';

export const openTasks = (): string => useTabs.getState().open({ id: TASKS_TAB_ID, kind: 'tasks', title: 'Tasks', props: {} });
