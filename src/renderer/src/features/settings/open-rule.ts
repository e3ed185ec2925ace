import { create } from 'zustand';
import { openSettings } from './open';

/** The permission rule to show on the permissions page (a link from the thread), with a nonce per request. */
export const usePermissionFocus = create<{ ruleId: number | null; nonce: number }>(() => ({ ruleId: null, nonce: 0 }));

/** Opens Settings at the permissions page with this rule shown and highlighted. */
export function openPermissionRule(ruleId: number): void {
  usePermissionFocus.setState((s) => ({ ruleId, nonce: s.nonce + 1 }));
  openSettings('permissions');
}
