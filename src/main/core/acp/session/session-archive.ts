import { methods as unstableMethods } from '@agentclientprotocol/sdk/unstable';
import type { AgentCapabilities } from '@agentclientprotocol/sdk';
import { IpcFailure } from '../../../../shared/contract';
import type { RestorePort } from './session-restore';

/** The agent advertises session/archive and session/unarchive (unstable: `sessionCapabilities.archive`). */
export function canArchive(caps: AgentCapabilities | null | undefined): boolean {
  const archive = (caps?.sessionCapabilities as { archive?: unknown } | undefined)?.archive;
  return archive !== undefined && archive !== null;
}

interface Row {
  agent_id: string;
  acp_session_id: string | null;
  cwd: string;
  host_id: string;
}

/**
 * A session archived (or unarchived) in History is archived at its agent too, when the agent offers it: the agent
 * hides it from its own list (and frees it, as session/close would). Switchboard's archive stands whatever the
 * agent answers; a refusal is said in a sentence (the agent's words, bounded), never swallowed.
 */
export async function archiveOnAgent(port: RestorePort, sessionId: string, archived: boolean): Promise<{ done: boolean; reason: string }> {
  const row = port.db().prepare('SELECT agent_id, acp_session_id, cwd, host_id FROM sessions WHERE id = ?').get(sessionId) as Row | undefined;
  if (!row) throw new IpcFailure('not_found', `no session ${sessionId}`);
  const name = port.agents().get(row.agent_id)?.name ?? row.agent_id;
  const verb = archived ? 'archive' : 'unarchive';
  if (!port.agents().get(row.agent_id)) return { done: false, reason: `${name} was removed: only Switchboard's History changed.` };
  if (!row.acp_session_id) return { done: false, reason: `${name} never created this session.` };
  const known = port.knownCapabilities(row.agent_id);
  if (known && !canArchive(known)) return { done: false, reason: `${name} has no archive (no session/${verb}): only Switchboard's History changed.` };
  const rt = port.runtimeFor(row.agent_id, row.cwd, row.host_id);
  try {
    await rt.ensureStarted();
  } catch (e) {
    throw new IpcFailure('agent_error', `${name} could not be started to ${verb} the session: ${String((e as Error).message).slice(0, 300)}`);
  }
  if (!canArchive(rt.capabilities)) return { done: false, reason: `${name} has no archive (no session/${verb}): only Switchboard's History changed.` };
  // Archiving frees the session at the agent: Switchboard closes its live copy first.
  const live = port.session(sessionId);
  if (archived && live && live.status !== 'closed') await live.close();
  const method = archived ? unstableMethods.agent.session.archive : unstableMethods.agent.session.unarchive;
  await rt.request(method, { sessionId: row.acp_session_id }).catch((e: Error) => {
    throw new IpcFailure('agent_error', `${name} could not ${verb} the session: ${String(e?.message ?? e).slice(0, 300)}`);
  });
  return { done: true, reason: `${name} ${archived ? 'archived' : 'unarchived'} its own copy too (session/${verb}).` };
}

/**
 * A session archived in History is being reopened: it is taken out of the archive at its agent first (when the
 * agent offers it), so that the agent loads or resumes it as any other. A refusal is not fatal (the load says
 * for itself whether the agent still has it); it is said as a warning.
 */
export async function unarchiveToReopen(rt: { capabilities: AgentCapabilities | null; request(method: string, params: unknown): Promise<unknown> }, acpSessionId: string): Promise<string | null> {
  if (!canArchive(rt.capabilities)) return null;
  try {
    await rt.request(unstableMethods.agent.session.unarchive, { sessionId: acpSessionId });
    return null;
  } catch (e) {
    return `the agent could not unarchive the session before reopening it: ${String((e as Error)?.message ?? e).slice(0, 300)}`;
  }
}
