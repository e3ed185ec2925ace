import type { AgentCapabilities, McpServer } from '@agentclientprotocol/sdk';
import { mcpServerSettingSchema, type McpServerSetting } from '../../../../shared/contract/settings';

/**
 * MCP servers from the `mcp.servers` setting, as ACP wants them for session/new: stdio always, http and
 * sse only when the agent advertised them (mcpCapabilities). Invalid entries are skipped.
 */
export function mcpServersFor(setting: unknown, capabilities: AgentCapabilities | null): { servers: McpServer[]; skipped: string[] } {
  const servers: McpServer[] = [];
  const skipped: string[] = [];
  if (!Array.isArray(setting)) return { servers, skipped };
  for (const raw of setting) {
    const parsed = mcpServerSettingSchema.safeParse(raw);
    if (!parsed.success) {
      skipped.push(`invalid MCP server entry: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      continue;
    }
    const s: McpServerSetting = parsed.data;
    if (!s.enabled) continue;
    if (s.type === 'stdio') {
      servers.push({
        name: s.name,
        command: s.command,
        args: s.args,
        env: Object.entries(s.env).map(([name, value]) => ({ name, value })),
      });
      continue;
    }
    if (!capabilities?.mcpCapabilities?.[s.type]) {
      skipped.push(`${s.name}: the agent does not support MCP over ${s.type}`);
      continue;
    }
    servers.push({ type: s.type, name: s.name, url: s.url, headers: Object.entries(s.headers).map(([name, value]) => ({ name, value })) });
  }
  return { servers, skipped };
}
