import { McpServersSection } from '../../mcp';

/** Settings → MCP servers: the MCP feature's own section (features/mcp). */
export function McpSection() {
  return <McpServersSection />;
}
