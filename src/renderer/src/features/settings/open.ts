import type { SettingSection } from '@shared/contract/settings';
import { useTabs } from '../../state/tabs';
import { usePermissionFocus } from './state';

export const SETTINGS_TAB_ID = 'settings';
let opened = 0;

/** Opens (or focuses) the Settings tab, at a section when given. */
export function openSettings(section?: SettingSection): string {
  const props = section ? { section, nonce: ++opened } : {};
  if (useTabs.getState().tabs[SETTINGS_TAB_ID]) {
    if (section) useTabs.getState().update(SETTINGS_TAB_ID, { props });
    useTabs.getState().activate(SETTINGS_TAB_ID);
    return SETTINGS_TAB_ID;
  }
  return useTabs.getState().open({ id: SETTINGS_TAB_ID, kind: 'settings', title: 'Settings', props });
}

/** Opens Settings at the permissions page with this rule shown and highlighted. */
export function openPermissionRule(ruleId: number): void {
  usePermissionFocus.setState((s) => ({ ruleId, nonce: s.nonce + 1 }));
  openSettings('permissions');
}
