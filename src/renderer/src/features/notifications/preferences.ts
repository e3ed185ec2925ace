import { create } from 'zustand';
import type { Api } from '../../ipc/client';

/** Settings keys of desktop notifications (booleans, default on). */
export const NOTIFY_TURN_END = 'notifications.turnEnd';
export const NOTIFY_PERMISSION = 'notifications.permission';

export type NotifyKind = 'turnEnd' | 'permission';

export const useNotifyPrefs = create<Record<NotifyKind, boolean>>(() => ({ turnEnd: true, permission: true }));

const loaded = new WeakSet<Api>();

/** Reads the notification settings (once per connection). */
export function loadNotifyPrefs(api: Api): void {
  if (loaded.has(api)) return;
  loaded.add(api);
  void Promise.all([api.call('settings.get', { key: NOTIFY_TURN_END }), api.call('settings.get', { key: NOTIFY_PERMISSION })]).then(([turnEnd, permission]) =>
    useNotifyPrefs.setState({
      turnEnd: !(turnEnd.ok && turnEnd.value.value === false),
      permission: !(permission.ok && permission.value.value === false),
    }),
  );
}

export async function setNotify(api: Api, which: NotifyKind, on: boolean): Promise<void> {
  useNotifyPrefs.setState({ [which]: on });
  await api.call('settings.set', { key: which === 'turnEnd' ? NOTIFY_TURN_END : NOTIFY_PERMISSION, value: on });
}

/** Whether a desktop notification of this kind is wanted (settings; default on). */
export function notifyWanted(kind: NotifyKind): boolean {
  return useNotifyPrefs.getState()[kind];
}
