import { Download } from 'lucide-react';
import { registerLauncherAction, registerSidebarSection, registerTabKind } from '../../app/contributions';
import { useTabs } from '../../state/tabs';
import { RegistryTab } from './RegistryTab';
import { useRegistry } from './state';

import './registry.css';

/** Opens the Registry tab (or shows it when it is already open). */
export function openRegistryTab(): string {
  const { tabs, activate, open } = useTabs.getState();
  const existing = Object.values(tabs).find((t) => t.kind === 'registry');
  if (existing) {
    activate(existing.id);
    return existing.id;
  }
  return open({ kind: 'registry', title: 'Registry', props: {} });
}

/** Sidebar: the way into the registry, with the number of updates once the registry has been loaded. */
function RegistrySidebar() {
  const updates = useRegistry((s) => s.list?.installed.filter((i) => i.updateAvailable).length ?? 0);
  return (
    <div className="reg-sidebar">
      <button className="link-button" onClick={() => openRegistryTab()} data-testid="registry-open">
        Browse and install agents…
      </button>
      {updates > 0 && (
        <button className="reg-updates-pill" onClick={() => openRegistryTab()} data-testid="registry-updates">
          {updates} update{updates === 1 ? '' : 's'} available
        </button>
      )}
    </div>
  );
}

registerTabKind('registry', { view: RegistryTab, icon: Download, persist: () => ({}) });
registerSidebarSection({ id: 'registry', title: 'Registry', order: 15, view: RegistrySidebar });
registerLauncherAction({
  id: 'registry',
  label: 'Install agents',
  description: 'Browse the ACP Registry and install agents',
  order: 80,
  run: () => void openRegistryTab(),
});
