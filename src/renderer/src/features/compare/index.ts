import { Columns2 } from 'lucide-react';
import { lazyView, registerLauncherAction, registerTabKind } from '../../app/contributions';
import { useTabs } from '../../state/tabs';

registerTabKind('compare', {
  view: lazyView(() => import('./CompareTab').then((m) => m.CompareTab)),
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
