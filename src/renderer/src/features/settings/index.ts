import { Settings } from 'lucide-react';
import { registerLauncherAction, registerTabKind } from '../../app/contributions';
import { registerShortcut } from '../../app/shortcuts';
import { openSettings } from './open';
import { SettingsTab } from './SettingsTab';
import './settings.css';

export { openSettings } from './open';
export { SettingField } from './SettingField';
export { openPermissionRule } from './open';

registerTabKind('settings', { view: SettingsTab, icon: Settings, persist: () => ({}) });

registerLauncherAction({
  id: 'settings',
  label: 'Settings',
  description: 'Theme, fonts, agents, permissions, supervision, backups, shortcuts',
  order: 900,
  run: () => void openSettings(),
});

// The MCP servers section lives in this tab; the launcher goes straight there.
registerLauncherAction({
  id: 'mcp',
  label: 'MCP servers',
  description: 'Add, check and import MCP servers; choose which agents get them',
  order: 160,
  run: () => void openSettings('mcp'),
});

registerShortcut({ id: 'settings.open', description: 'Settings', keys: [{ keys: 'Mod+,', inTerminal: true }], run: () => void openSettings() });
