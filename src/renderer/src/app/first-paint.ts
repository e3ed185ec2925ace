import type { AnyRequest } from '../ipc/client';

/** The setting the workspace's tabs and splits are kept in. */
export const LAYOUT_SETTING = 'workspace.layout';
/** How many sessions the sidebar's History lists. */
export const SIDEBAR_HISTORY_LIMIT = 12;

/** What the first paint asks for: the app, its settings and layout, the sidebar's agents, hosts and history. */
export const FIRST_PAINT: AnyRequest[] = [
  { name: 'app.info', params: {} },
  { name: 'settings.getAll', params: {} },
  { name: 'settings.get', params: { key: LAYOUT_SETTING } },
  { name: 'sessions.live', params: {} },
  { name: 'agents.list', params: {} },
  { name: 'hosts.list', params: {} },
  { name: 'history.list', params: { limit: SIDEBAR_HISTORY_LIMIT } },
];
