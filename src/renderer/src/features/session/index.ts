import { registerLauncherPanel, registerTabKind } from '../../app/registry';
import { FileViewTab } from './FileViewTab';
import { NewSessionPanel } from './NewSession';
import { SessionTab } from './SessionTab';
import './session.css';

registerTabKind('session', {
  view: SessionTab,
  icon: '◆',
  // Closing the tab ends the session (the conversation stays in History).
  onClose: async (tab, api) => {
    if (typeof tab.props.sessionId === 'string') await api.call('sessions.close', { sessionId: tab.props.sessionId });
  },
});
registerTabKind('session-file', { view: FileViewTab, icon: '📄' });
registerLauncherPanel({ id: 'new-session', order: 10, view: NewSessionPanel });

export { openNewSessionTab } from './NewSession';
