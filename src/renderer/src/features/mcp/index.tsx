import { Plug } from 'lucide-react';
import { registerLauncherAction, registerTabKind } from '../../app/contributions';
import { useTabs } from '../../state/tabs';
import { McpServersSection } from './McpServersSection';
import './mcp.css';

export { McpServersSection } from './McpServersSection';

const MCP_TAB_ID = 'mcp-servers';

/** Opens (or shows) the MCP servers tab. The Settings tab hosts the same section. */
export function openMcpTab(): string {
  return useTabs.getState().open({ id: MCP_TAB_ID, kind: 'mcp', title: 'MCP servers', props: {} });
}

function McpTab() {
  return (
    <div className="mcp-tab" data-testid="mcp-tab">
      <h2>MCP servers</h2>
      <McpServersSection />
    </div>
  );
}

registerTabKind('mcp', { view: McpTab, icon: Plug, persist: () => ({}) });
registerLauncherAction({
  id: 'mcp',
  label: 'MCP servers',
  description: 'Add, check and import MCP servers; choose which agents get them',
  order: 160,
  run: () => void openMcpTab(),
});
