import type { EffectiveConfig } from '../../../../shared/contract/session-config';
import type { McpSelection } from '../../mcp/mcp-servers';
import type { SessionHost } from './session-host';

/** What a session was opened with (session/new, fork, resume or load), as History → Setup shows it. */
export function openConfig(
  host: Pick<SessionHost, 'agentEnvKeys'>,
  agentId: string,
  cwd: string,
  mode: 'new' | 'fork' | 'resume' | 'load',
  requestedDirectories: readonly string[],
  dirs: string[],
  mcp: McpSelection,
): EffectiveConfig {
  const leftOutDirs = requestedDirectories
    .filter((d) => !dirs.includes(d))
    .map((d) => ({ kind: 'directory' as const, name: d, reason: 'the agent does not support additional folders' }));
  return {
    recordedAt: Date.now(),
    method: `session/${mode}`,
    cwd,
    additionalDirectories: dirs,
    mcpServers: mcp.given.map((g) =>
      g.type === 'stdio'
        ? { name: g.name, type: g.type, target: [g.command, ...g.args].join(' '), keys: Object.keys(g.env) }
        : { name: g.name, type: g.type, target: g.url, keys: Object.keys(g.headers) },
    ),
    agentEnvKeys: host.agentEnvKeys(agentId),
    leftOut: [...mcp.leftOut.map((l) => ({ kind: 'mcpServer' as const, name: l.name, reason: l.reason })), ...leftOutDirs],
  };
}
