import { SquareTerminal } from 'lucide-react';
import { registerLauncherAction, registerLauncherPanel, registerTabKind } from '../../app/contributions';
import { HostShellsPanel } from './HostShellsPanel';
import { openShellTab } from './open';
import { ShellTab } from './ShellTab';

export { openShellTab };

registerTabKind('shell', {
  view: ShellTab,
  icon: SquareTerminal,
  // A restored shell tab starts a fresh shell in the same folder, on the same host.
  persist: (tab) => ({
    ...(typeof tab.props.cwd === 'string' ? { cwd: tab.props.cwd } : {}),
    ...(typeof tab.props.hostId === 'string' ? { hostId: tab.props.hostId } : {}),
    ...(typeof tab.props.hostLabel === 'string' ? { hostLabel: tab.props.hostLabel } : {}),
  }),
  onClose: async (tab, api) => {
    if (typeof tab.props.ptyId === 'string') await api.call('pty.kill', { id: tab.props.ptyId });
  },
});

registerLauncherAction({
  id: 'shell',
  label: 'New shell',
  description: 'Your login shell in a terminal tab',
  order: 100,
  run: () => void openShellTab(),
});

registerLauncherPanel({ id: 'host-shells', order: 90, view: HostShellsPanel });
