import { Bot, FileText } from 'lucide-react';
import { registerTabKind } from '../../app/contributions';
import { FileViewTab } from './FileViewTab';
import { SessionTab } from './SessionTab';
import './session.css';

registerTabKind('session', {
  view: SessionTab,
  icon: Bot,
  // Closing the tab ends the session (the conversation stays in History), or withdraws the one being created.
  onClose: async (tab, api) => {
    const sessionId = tab.props.sessionId ?? tab.props.pendingSessionId;
    if (typeof sessionId === 'string') await api.call('sessions.close', { sessionId });
  },
  // A reloaded page re-attaches to the live session; after a restart the tab says the session ended.
  persist: (tab) => (typeof tab.props.sessionId === 'string' ? { sessionId: tab.props.sessionId } : null),
});
registerTabKind('session-file', { view: FileViewTab, icon: FileText });

export { peekController } from './controller';
export { StopMark, ThreadEntryView } from './entries';
export { ForkLinks } from './ForkLinks';
export { entryEstimate } from './Thread';
export { openLiveSessionTab } from './open';
export { WorktreeBar } from './WorktreeBar';
export { confirmWorktreeDiscard, STRATEGIES } from './worktree-actions';
