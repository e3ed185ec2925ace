import { KeyRound, ScrollText } from 'lucide-react';
import { registerSidebarSection, registerTabKind } from '../../app/contributions';
import { AgentsSection } from './AgentsSection';
import { AuthTerminalTab } from './AuthTerminalTab';
import { AgentLogTab } from './log';
import './agents.css';

registerSidebarSection({ id: 'agents', title: 'Agents', order: 10, view: AgentsSection });
registerTabKind('agent-log', { view: AgentLogTab, icon: ScrollText, persist: (tab) => ({ agentId: tab.props.agentId }) });
registerTabKind('agent-auth', {
  view: AuthTerminalTab,
  icon: KeyRound,
  onClose: async (tab, api) => {
    if (typeof tab.props.terminalId === 'string') await api.call('agentTerminal.kill', { terminalId: tab.props.terminalId });
  },
});
