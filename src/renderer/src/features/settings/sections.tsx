import type { ComponentType } from 'react';
import { settingDef, type SettingSection } from '@shared/contract/settings';
import { shortcuts } from '../../app/shortcuts';
import { AgentsSettingsSection } from './sections/AgentsSection';
import { CheckpointsSettingsSection } from './sections/CheckpointsSettingsSection';
import { ContainersSettingsSection } from './sections/ContainersSettingsSection';
import { keysOf, SectionFields } from './sections/GenericSection';
import { HistorySettingsSection } from './sections/HistorySettingsSection';
import { KeyboardSection } from './sections/KeyboardSection';
import { HostsSection } from '../hosts';
import { settingsViews } from '../../app/contributions';
import { McpSection } from './sections/McpSection';
import { PermissionsSection } from './sections/PermissionsSection';
import { RegistrySettingsSection } from './sections/RegistrySettingsSection';
import { WorktreesSettingsSection } from './sections/WorktreesSettingsSection';

export interface SectionDef {
  id: SettingSection;
  title: string;
  /** Words the search finds this section by, besides its title and its settings' labels and descriptions. */
  keywords: string;
  view: ComponentType;
}

const fields = (section: SettingSection) => () => <SectionFields section={section} />;

/** Settings → Usage: the concurrency, and what the tasks feature shows there (its spending, limits and prices). */
function UsageSettingsSection() {
  const UsageView = settingsViews.get('usage');
  return (
    <>
      <SectionFields section="usage" />
      {UsageView && <UsageView />}
    </>
  );
}

export const SECTIONS: SectionDef[] = [
  { id: 'general', title: 'General', keywords: 'appearance theme dark light system font size text zoom', view: fields('general') },
  { id: 'agents', title: 'Agents', keywords: 'default agent arguments args environment env variables command working folder process', view: AgentsSettingsSection },
  { id: 'hosts', title: 'Hosts', keywords: 'ssh remote host server machine connect known_hosts fingerprint proxyjump', view: HostsSection },
  { id: 'permissions', title: 'Permissions', keywords: 'rules always allow reject tool kind ask', view: PermissionsSection },
  { id: 'mcp', title: 'MCP servers', keywords: 'mcp model context protocol servers tools stdio http sse', view: McpSection },
  { id: 'notifications', title: 'Notifications', keywords: 'desktop notify alert turn permission', view: fields('notifications') },
  { id: 'supervision', title: 'Supervision', keywords: 'restart crash idle stop timeout flood throttle hang', view: fields('supervision') },
  { id: 'history', title: 'History', keywords: 'backups backup retention keep store database', view: HistorySettingsSection },
  { id: 'checkpoints', title: 'Checkpoints', keywords: 'checkpoints snapshots undo rewind revert retention disk exclude gitignore git', view: CheckpointsSettingsSection },
  { id: 'worktrees', title: 'Worktrees', keywords: 'worktree branch git setup command timeout repository repositories merge pull request', view: WorktreesSettingsSection },
  { id: 'containers', title: 'Containers', keywords: 'container docker podman devcontainer image fence network memory cpu sandbox isolation idle stop remove', view: ContainersSettingsSection },
  { id: 'usage', title: 'Usage', keywords: 'tasks spend spending limit guard cost money tokens price prices model chart queue concurrency budget', view: UsageSettingsSection },
  { id: 'registry', title: 'Registry', keywords: 'acp registry source url cdn install', view: RegistrySettingsSection },
  { id: 'keyboard', title: 'Keyboard', keywords: 'shortcuts keys keybindings hotkeys', view: KeyboardSection },
];

/** Everything the search looks at for a section. */
export function searchTextOf(s: SectionDef): string {
  const keys = keysOf(s.id).map((k) => `${k} ${settingDef(k).label} ${settingDef(k).description}`);
  const extra = s.id === 'keyboard' ? shortcuts.map((x) => x.description) : [];
  return [s.title, s.keywords, ...keys, ...extra].join(' ').toLowerCase();
}

/** Sections matching every word of the query (all of them when it is empty). */
export function matchSections(query: string): SectionDef[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return SECTIONS;
  return SECTIONS.filter((s) => {
    const text = searchTextOf(s);
    return words.every((w) => text.includes(w));
  });
}
