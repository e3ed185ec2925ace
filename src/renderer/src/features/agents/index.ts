import { KeyRound, ScrollText } from 'lucide-react';
import { registerLauncherPanel, registerSidebarSection, registerTabKind } from '../../app/contributions';
import { AgentsSection } from './AgentsSection';
import { BranchesSection } from './BranchesSection';
import { AuthTerminalTab } from './AuthTerminalTab';
import { AgentLogTab } from './log';
import { NewSessionPanel } from './NewSession';
import './agents.css';
import './worktrees.css';

registerSidebarSection({ id: 'agents', title: 'Agents', order: 10, view: AgentsSection });
registerSidebarSection({ id: 'branches', title: 'Branches', order: 12, view: BranchesSection });
registerTabKind('agent-log', { view: AgentLogTab, icon: ScrollText, persist: (tab) => ({ agentId: tab.props.agentId }) });
registerTabKind('agent-auth', {
  view: AuthTerminalTab,
  icon: KeyRound,
  onClose: async (tab, api) => {
    if (typeof tab.props.terminalId === 'string') await api.call('agentTerminal.kill', { terminalId: tab.props.terminalId });
  },
});
registerLauncherPanel({ id: 'new-session', order: 10, view: NewSessionPanel });

export { AgentForm } from './AgentForm';
export { openSessionTab } from './AgentsSection';
export { AuthPanel } from './AuthPanel';
export { openAgentLog } from './log';
export { agentMetrics, syncAgentMetrics, useMetrics } from './metrics';
export { NewSessionForm, openNewSessionTab } from './NewSession';
export { loadRecentFolders, rememberFolder } from './recent';
export { agentName, readableAgentId, refreshAgents, syncAgents, useAgents } from './state';
export { describeWorktreeError, useRepo } from './where';
export { RepoWorktreeFields, saveRepoWorktreeSetting } from './RepoWorktreeFields';
