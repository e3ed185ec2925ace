import { LayoutDashboard } from 'lucide-react';
import { registerLauncherAction, registerTabKind } from '../../app/contributions';
import { registerShortcut } from '../../app/shortcuts';
import { useTabs } from '../../state/tabs';
import { OVERVIEW_TAB_ID, OverviewTab } from './OverviewTab';
import './overview.css';

/** Opens (or focuses) the overview of live sessions. */
export function openOverview(): string {
  return useTabs.getState().open({ id: OVERVIEW_TAB_ID, kind: 'overview', title: 'Overview', props: {} });
}

registerTabKind('overview', { view: OverviewTab, icon: LayoutDashboard, persist: () => ({}) });

registerLauncherAction({
  id: 'overview',
  label: 'Overview',
  description: 'All live sessions: state, turn time, context used',
  order: 150,
  run: () => void openOverview(),
});

registerShortcut({ id: 'overview.open', description: 'Overview of live sessions', keys: [{ keys: 'Mod+Shift+O', inTerminal: true }], run: () => void openOverview() });
