import type { AgentSummary } from '../../../shared/contract/agents';
import type { ImportSourceId } from '../../../shared/contract/history-import';

/** The ACP Registry's ids, and words of a custom agent's command, for each tool's ACP agent. */
const MATCH: Record<ImportSourceId, { registry: string[]; command: RegExp }> = {
  'claude-code': { registry: ['claude-code-acp', 'claude-acp', 'claude-agent-acp'], command: /claude-(code|agent)-acp/ },
  codex: { registry: ['codex-acp', 'codex'], command: /codex-acp|\bcodex\b/ },
  'gemini-cli': { registry: ['gemini', 'gemini-cli'], command: /gemini/ },
  'qwen-code': { registry: ['qwen-code'], command: /qwen/ },
  opencode: { registry: ['opencode'], command: /opencode/ },
};

/**
 * The configured agent that can continue a session a tool stored itself (through session/load or
 * session/resume with the tool's own session id): the registry's agent for that tool, else a custom agent
 * whose command names it. Null: none is configured (History says so, and offers a new session instead).
 */
export function agentForImport(source: ImportSourceId, agents: ReadonlyArray<Pick<AgentSummary, 'id' | 'registryId' | 'command' | 'args'>>): string | null {
  const m = MATCH[source];
  const byRegistry = agents.find((a) => a.registryId !== null && m.registry.includes(a.registryId));
  if (byRegistry) return byRegistry.id;
  return agents.find((a) => m.command.test([a.command, ...a.args].join(' ')))?.id ?? null;
}
