import { create } from 'zustand';
import type { AgentStatus, AgentSummary } from '@shared/contract/agents';
import type { SessionInfo } from '@shared/contract/sessions';
import { agentLabel } from '@shared/session-title';
import type { Api } from '../../ipc/client';

/** Agents (from agents.list, kept live by agent.status) and this run's live sessions, shared by the sidebar and session tabs. */
interface AgentsState {
  agents: AgentSummary[];
  loaded: boolean;
  error: string | null;
  /** Live sessions by id (sessions.live, then session.state events). */
  sessions: Record<string, SessionInfo>;
  /** Why sessions of this run stopped being live, when an error ended them (a reopen the agent refused). */
  endedErrors: Record<string, string>;
}

export const useAgents = create<AgentsState>(() => ({ agents: [], loaded: false, error: null, sessions: {}, endedErrors: {} }));

/** The name the user knows the agent by (the one it was added or installed under). */
export const agentName = (agents: readonly AgentSummary[], agentId: string): string => agentLabel(agentId, agents.find((a) => a.id === agentId)?.name);

/** An agent not (or no longer) in the list: a custom agent's generated id (custom-3b111e2e-…) is not shown. */
export const readableAgentId = (agentId: string): string => agentLabel(agentId, null);

export async function refreshAgents(api: Api): Promise<void> {
  const r = await api.call('agents.list', {});
  if (r.ok) useAgents.setState({ agents: r.value.agents, loaded: true, error: null });
  else useAgents.setState({ loaded: true, error: r.error.message });
}

function applyStatus(status: AgentStatus, api: Api): void {
  const { agents } = useAgents.getState();
  const i = agents.findIndex((a) => a.id === status.agentId);
  if (i < 0) {
    void refreshAgents(api);
    return;
  }
  const next = agents.slice();
  const agent = agents[i]!;
  if (status.folder) {
    // One of its processes started in a session's folder (one per folder): kept beside its own.
    const others = (agent.folderProcesses ?? []).filter((p) => p.folder !== status.folder);
    next[i] = { ...agent, folderProcesses: [...others, status].sort((a, b) => (a.folder ?? '').localeCompare(b.folder ?? '')) };
  } else next[i] = { ...agent, status };
  useAgents.setState({ agents: next });
}

/** What the sidebar shows of an agent: its own process, else the busiest of its per-folder processes. */
export function displayStatus(agent: AgentSummary): AgentStatus {
  if (agent.status.state === 'running' || agent.status.state === 'starting') return agent.status;
  const order: AgentStatus['state'][] = ['running', 'starting', 'failed', 'exited'];
  for (const state of order) {
    const p = (agent.folderProcesses ?? []).find((x) => x.state === state);
    if (p) return p;
  }
  return agent.status;
}

const synced = new WeakSet<Api>();

/** Starts keeping the agents and sessions in step with the core (once per connection). */
export function syncAgents(api: Api): void {
  if (synced.has(api)) return;
  synced.add(api);
  api.on('agent.status', (s) => applyStatus(s, api));
  api.on('registry.changed', (c) => {
    if (c.registryId !== null) void refreshAgents(api);
  });
  api.on('session.state', (s) => {
    const sessions = { ...useAgents.getState().sessions };
    const endedErrors = { ...useAgents.getState().endedErrors };
    if (s.status === 'closed') {
      delete sessions[s.id];
      if (s.error) endedErrors[s.id] = s.error;
    } else {
      sessions[s.id] = s;
      delete endedErrors[s.id];
    }
    useAgents.setState({ sessions, endedErrors });
  });
  void refreshAgents(api);
  void api.call('sessions.live', {}).then((r) => {
    if (!r.ok) return;
    const sessions = { ...useAgents.getState().sessions };
    for (const s of r.value.sessions) sessions[s.id] ??= s;
    useAgents.setState({ sessions });
  });
}

export function upsertAgent(agent: AgentSummary): void {
  const { agents } = useAgents.getState();
  const i = agents.findIndex((a) => a.id === agent.id);
  useAgents.setState({ agents: i < 0 ? [...agents, agent] : agents.map((a, j) => (j === i ? agent : a)) });
}

export function dropAgent(agentId: string): void {
  useAgents.setState({ agents: useAgents.getState().agents.filter((a) => a.id !== agentId) });
}
