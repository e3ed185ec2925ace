import { History, MessagesSquare } from 'lucide-react';
import { registerLauncherAction, registerSidebarSection, registerTabKind, registerTranscriptOpener } from '../../app/contributions';
import { registerShortcut } from '../../app/shortcuts';
import { openHistoryImport, openHistoryTab, openTranscript } from './actions';
import { HistorySection } from './HistorySection';
import { HistoryTab } from './HistoryTab';
import { openSearch } from './state';
import { TranscriptTab, transcriptProps } from './TranscriptTab';
import './history.css';

registerTranscriptOpener((session) => openTranscript(session));
registerSidebarSection({ id: 'history', title: 'History', order: 20, view: HistorySection });

registerTabKind('history', { view: HistoryTab, icon: History, persist: () => ({}) });
registerTabKind('transcript', {
  view: TranscriptTab,
  icon: MessagesSquare,
  // Reopens the same session (at its end: a search hit's position is not kept).
  persist: (tab) => {
    const p = transcriptProps(tab.props);
    return p ? { sessionId: p.sessionId, ...(p.agentId ? { agentId: p.agentId } : {}), ...(p.cwd ? { cwd: p.cwd } : {}) } : null;
  },
});

registerLauncherAction({
  id: 'history',
  label: 'History',
  description: 'Past sessions by project and agent; search all of them',
  order: 200,
  run: () => void openHistoryTab(),
});

registerLauncherAction({
  id: 'history.import',
  label: 'Import past sessions',
  description: 'Sessions Claude Code, Codex, Gemini CLI, Qwen Code and OpenCode stored themselves, into History',
  order: 210,
  run: () => void openHistoryImport(),
});

registerShortcut({
  id: 'history.search',
  description: 'Search history',
  keys: [
    { keys: 'Mod+Shift+F', inTerminal: true },
    { keys: 'Mod+K', inTerminal: true },
  ],
  run: () => openSearch(),
});

export { openHistoryTab, openTranscript } from './actions';
