import { registerLauncherAction } from '../../app/contributions';
import { openSettings } from '../settings/open';
import './mcp.css';

export { McpServersSection } from './McpServersSection';

// The section lives in the Settings tab (Settings → MCP servers); the launcher goes straight there.
registerLauncherAction({
  id: 'mcp',
  label: 'MCP servers',
  description: 'Add, check and import MCP servers; choose which agents get them',
  order: 160,
  run: () => void openSettings('mcp'),
});
