import { FileDiff } from 'lucide-react';
import { registerTabKind } from '../../app/contributions';
import { ReviewTab, reviewProps } from './ReviewTab';
import './checkpoints.css';

registerTabKind('changes', {
  view: ReviewTab,
  icon: FileDiff,
  persist: (tab) => reviewProps(tab.props),
});

export { openReview } from './open';
export { ChangesView } from './ChangesView';
export { SessionChangesPanel, useSessionChanges } from './SessionChangesPanel';
export { TurnChanges } from './TurnChanges';
export { byPrompt, useTurnCheckpoints } from './state';
