import { methods as unstableMethods } from '@agentclientprotocol/sdk/unstable';
import type { AgentCapabilities } from '@agentclientprotocol/sdk';
import type { AgentRuntime } from '../runtimes/agent-runtime';

/** The agent advertises session/status (unstable: `sessionCapabilities.status`). */
export function offersStatus(caps: AgentCapabilities | null | undefined): boolean {
  const status = (caps?.sessionCapabilities as { status?: unknown } | undefined)?.status;
  return status !== undefined && status !== null;
}

/** What the agent says it holds: open (in memory), saved, or gone (it does not know the session: -32002). */
export type AgentHeld = 'open' | 'saved' | 'gone';

const RESOURCE_NOT_FOUND = -32002;

/**
 * session/status of one session, when the running agent offers it; null when it does not, or did not answer.
 * Values the client does not recognise are `saved` (the schema says so). The answer is a snapshot.
 */
export async function askSessionStatus(rt: Pick<AgentRuntime, 'connected' | 'capabilities' | 'request'>, acpSessionId: string): Promise<AgentHeld | null> {
  if (!rt.connected || !offersStatus(rt.capabilities)) return null;
  try {
    const r = await rt.request<{ status?: unknown }>(unstableMethods.agent.session.status, { sessionId: acpSessionId });
    return r?.status === 'open' ? 'open' : 'saved';
  } catch (e) {
    return (e as { code?: unknown })?.code === RESOURCE_NOT_FOUND ? 'gone' : null;
  }
}

/**
 * How a stored session comes back. An agent that still holds it open (session/status) is asked to resume it
 * without replay (session/resume) even when it advertises only load: `fallback` is then the load to try if the
 * resume is refused. Otherwise the mode the capabilities give, as before.
 */
export async function reopenModeByStatus(
  rt: Pick<AgentRuntime, 'connected' | 'capabilities' | 'request'>,
  acpSessionId: string,
  mode: 'resume' | 'load',
  storeHasConversation: boolean,
): Promise<{ mode: 'resume' | 'load'; fallback: 'load' | null }> {
  // Resume shows the stored thread: without a stored conversation only a load's replay shows it.
  if (mode !== 'load' || !storeHasConversation) return { mode, fallback: null };
  return (await askSessionStatus(rt, acpSessionId)) === 'open' ? { mode: 'resume', fallback: 'load' } : { mode, fallback: null };
}

/**
 * For History: what each session's running agent says it holds (session/status), asked only of agents that run
 * and offer it (none is started for this); sessions it was not asked about are left out.
 */
export async function heldAtAgents(
  rows: ReadonlyArray<{ id: string; agent_id: string; acp_session_id: string | null; cwd: string; host_id: string }>,
  runningRuntime: (agentId: string, cwd: string, hostId: string) => Pick<AgentRuntime, 'connected' | 'capabilities' | 'request'> | null,
): Promise<Record<string, AgentHeld>> {
  const out: Record<string, AgentHeld> = {};
  await Promise.all(
    rows.map(async (r) => {
      if (r.acp_session_id === null) return;
      const rt = runningRuntime(r.agent_id, r.cwd, r.host_id);
      const held = rt ? await askSessionStatus(rt, r.acp_session_id) : null;
      if (held) out[r.id] = held;
    }),
  );
  return out;
}
