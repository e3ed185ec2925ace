import { settingNow } from '../../app/settings';

export type NotifyKind = 'turnEnd' | 'permission';

/** Whether a desktop notification of this kind is wanted (settings notifications.*; default on). */
export function notifyWanted(kind: NotifyKind): boolean {
  return settingNow(kind === 'turnEnd' ? 'notifications.turnEnd' : 'notifications.permission');
}
