import './mcp.css';

// The section lives in the Settings tab (Settings → MCP servers), where the settings feature shows it.
export { McpServersSection } from './McpServersSection';
