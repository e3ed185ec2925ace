/**
 * PLACEHOLDER — the MCP servers section (add, edit, remove, enable, import, check) is being built by
 * another engineer, who replaces this file. The servers live in the `mcp.servers` setting
 * (SETTINGS in src/shared/contract/settings.ts).
 */
export function McpSection() {
  return (
    <p className="muted small" data-testid="mcp-placeholder">
      MCP servers are offered to every new session (stdio always; http and sse only to agents that support them). Managing them here is coming.
    </p>
  );
}
