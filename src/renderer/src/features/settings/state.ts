import { create } from 'zustand';

/** The permission rule to show on the permissions page (a link from the thread), with a nonce per request. */
export const usePermissionFocus = create<{ ruleId: number | null; nonce: number }>(() => ({ ruleId: null, nonce: 0 }));
