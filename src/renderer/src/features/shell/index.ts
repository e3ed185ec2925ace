import { SquareTerminal } from 'lucide-react';
import { registerLauncherAction, registerTabKind } from '../../app/contributions';
import { useTabs } from '../../state/tabs';
import { ShellTab } from './ShellTab';

export function openShellTab(cwd?: string): string {
  return useTabs.getState().open({ kind: 'shell', title: 'Shell', props: cwd ? { cwd } : {} });
}

registerTabKind('shell', {
  view: ShellTab,
  icon: SquareTerminal,
  // A restored shell tab starts a fresh shell in the same folder.
  persist: (tab) => ({ ...(typeof tab.props.cwd === 'string' ? { cwd: tab.props.cwd } : {}) }),
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
