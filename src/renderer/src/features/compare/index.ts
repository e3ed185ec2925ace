import { Columns2 } from 'lucide-react';
import { registerLauncherAction, registerTabKind } from '../../app/contributions';
import { useTabs } from '../../state/tabs';
import { CompareTab } from './CompareTab';

registerTabKind('compare', {
  view: CompareTab,
  icon: Columns2,
  persist: (tab) => (typeof tab.props.compareId === 'string' ? { compareId: tab.props.compareId } : null),
});

registerLauncherAction({
  id: 'compare',
  label: 'Compare agents',
  description: 'One prompt to several agents, each in its own git worktree',
  order: 50,
  run: () => void useTabs.getState().open({ kind: 'compare', title: 'Compare', props: {} }),
});
