import type { AgentCapabilities } from '@agentclientprotocol/sdk';
import { randomUUID } from 'node:crypto';
import { CONVERSATION_UPDATE_KINDS } from '../../../../shared/acp-thread';
import { IpcFailure } from '../../../../shared/contract';
import { importSourceNames, unboundSource } from '../../../../shared/contract/history-import';
import type { ReopenPlan, SessionInfo } from '../../../../shared/contract/sessions';
import { reopenModeOf, type ReopenMode } from '../../agents/agent-capabilities';
import type { AgentRepository } from '../../agents/agent-repository';
import type { Db } from '../../store/database';
import type { PersistedMessage } from '../../store/message-log';
import type { AgentRuntime } from '../runtimes/agent-runtime';
import type { SessionStatus } from '../../../../shared/contract/sessions';
import { filesHostId, hostLabel, LOCAL_HOST_ID, sharesThisMachine } from '../../../../shared/contract/hosts';

/** What restoring needs from the sessions service. */
export interface RestorePort {
  db(): Db;
  agents(): Pick<AgentRepository, 'get'>;
  /** The agent's process serving sessions in `cwd` on that host. */
  runtimeFor(agentId: string, cwd: string | null, hostId?: string): Pick<AgentRuntime, 'ensureStarted' | 'capabilities' | 'request'>;
  /** Null when `path` is a folder on the host (connected first if need be), else why not, as a sentence. */
  folderProblem(hostId: string, path: string): Promise<string | null>;
  /** The running agent's capabilities, else those of its last start (null: never started). */
  knownCapabilities(agentId: string): AgentCapabilities | null;
  session(id: string): { readonly status: SessionStatus; close(): Promise<void> } | undefined;
  reopenSession(sessionId: string): Promise<SessionInfo>;
}

/**
 * Restoring past sessions (issue 4): how a stored session comes back live on its agent, importing the
 * agent's own sessions (session/list) as Switchboard sessions, and deleting the agent's copy (session/delete).
 *
 * A stored session comes back with session/resume when the agent advertises `sessionCapabilities.resume`
 * (the agent does not replay: the thread starts from the stored messages), else with session/load when it
 * advertises `loadSession` (the agent replays the conversation; when the store already has it, the replay is
 * dropped, so the thread, the transcript and the search index hold each message once), else not at all
 * (the stored transcript stays read-only and the user can continue in a new session).
 */

// A regex over the stored line: parsing every stored update of a long session would cost more.
const CONVERSATION_UPDATE = new RegExp(`"sessionUpdate"\\s*:\\s*"(?:${[...CONVERSATION_UPDATE_KINDS].join('|')})"`);

/** The store holds the session's conversation (a prompt, or messages and tool calls from the agent). */
export function hasStoredConversation(messages: readonly Pick<PersistedMessage, 'direction' | 'method' | 'body'>[]): boolean {
  return messages.some(
    (m) => (m.direction === 'c2a' && m.method === 'session/prompt') || (m.direction === 'a2c' && m.method === 'session/update' && CONVERSATION_UPDATE.test(m.body)),
  );
}

function describe(mode: ReopenMode | null, agentName: string): string {
  switch (mode) {
    case 'resume':
      return `${agentName} resumes the session (session/resume); the conversation shown is the stored one.`;
    case 'load':
      return `${agentName} loads the session (session/load) and replays it; the stored conversation is kept, the replay is not shown twice.`;
    default:
      return `${agentName} can neither resume nor load sessions: the transcript is read-only; continue it in a new session.`;
  }
}

interface SessionRow {
  agent_id: string;
  acp_session_id: string | null;
  cwd: string;
  host_id: string;
  deleted_at: number | null;
}

export class RestoreService {
  constructor(private readonly acp: RestorePort) {}

  private row(sessionId: string): SessionRow {
    const row = this.acp.db().prepare('SELECT agent_id, acp_session_id, cwd, host_id, deleted_at FROM sessions WHERE id = ?').get(sessionId) as SessionRow | undefined;
    if (!row) throw new IpcFailure('not_found', `no session ${sessionId}`);
    return row;
  }

  private agentName(agentId: string): string {
    return this.acp.agents().get(agentId)?.name ?? agentId;
  }

  /**
   * The agent's capabilities (they say how a session can come back). `known`: those of the running agent or
   * of its last start will do, so that telling how a session would come back starts no process; the agent is
   * started only when it never was.
   */
  private async capabilities(agentId: string, cwd: string, known = false, hostId = LOCAL_HOST_ID): Promise<AgentCapabilities | null> {
    if (!this.acp.agents().get(agentId)) throw new IpcFailure('not_found', `the session's agent ${agentId} was removed`);
    if (known) {
      const caps = this.acp.knownCapabilities(agentId);
      if (caps) return caps;
    }
    const rt = this.acp.runtimeFor(agentId, cwd, hostId);
    await rt.ensureStarted();
    return rt.capabilities ?? null;
  }

  /** How `sessions.reopen` would bring this session back, and why. */
  async plan(sessionId: string): Promise<ReopenPlan> {
    const row = this.row(sessionId);
    const live = this.acp.session(sessionId);
    const name = this.agentName(row.agent_id);
    if (live && live.status !== 'failed') return { mode: 'live', reason: 'The session is live.', agentName: name };
    if (!row.acp_session_id) return { mode: null, reason: `${name} never created this session: it cannot be reopened.`, agentName: name };
    const tool = unboundSource(row.agent_id);
    if (tool) {
      const toolName = importSourceNames[tool];
      return {
        mode: null,
        reason: `No agent set up here is known to be ${toolName}'s: choose the one that continues this session (Continue with), or add ${toolName} from the ACP Registry.`,
        agentName: toolName,
      };
    }
    if (!sharesThisMachine(row.host_id)) {
      // A remote session comes back on its host: reconnected now, or read-only with the reason. A container
      // session's folder is asked of the host below it: telling how it would come back starts no container.
      const problem = await this.acp.folderProblem(filesHostId(row.host_id), row.cwd).catch((e: Error) => `it cannot be reached: ${e.message}`);
      if (problem) return { mode: null, reason: `The session ran on ${hostLabel(row.host_id)}, and ${problem}. The transcript is read-only.`, agentName: name };
    }
    let mode: ReopenMode | null;
    try {
      mode = reopenModeOf(await this.capabilities(row.agent_id, row.cwd, true, row.host_id));
    } catch (e) {
      return { mode: null, reason: `${name} could not be started: ${(e as Error).message}`, agentName: name };
    }
    if (mode && sharesThisMachine(row.host_id) && (await this.acp.folderProblem(row.host_id, row.cwd))) {
      return { mode: null, reason: `The session's folder is gone: ${row.cwd}`, agentName: name };
    }
    return { mode, reason: describe(mode, name), agentName: name };
  }

  /** One of the agent's own sessions (session/list) as a Switchboard session, opened live (load/resume). */
  async import(p: { agentId: string; acpSessionId: string; cwd: string; title?: string | null }): Promise<{ session: SessionInfo; mode: ReopenMode; imported: boolean }> {
    const problem = await this.acp.folderProblem(LOCAL_HOST_ID, p.cwd);
    if (problem) throw new IpcFailure('not_found', problem);
    const mode = reopenModeOf(await this.capabilities(p.agentId, p.cwd));
    if (!mode) throw new IpcFailure('unavailable', `${this.agentName(p.agentId)} can neither resume nor load sessions`);
    const db = this.acp.db();
    const existing = db
      .prepare('SELECT id FROM sessions WHERE agent_id = ? AND acp_session_id = ? AND deleted_at IS NULL ORDER BY created_at LIMIT 1')
      .get(p.agentId, p.acpSessionId) as { id: string } | undefined;
    let id = existing?.id;
    if (!id) {
      id = randomUUID();
      const now = Date.now();
      db.prepare("INSERT INTO sessions (id, agent_id, acp_session_id, cwd, title, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'closed', ?, ?)").run(
        id,
        p.agentId,
        p.acpSessionId,
        p.cwd,
        p.title ?? null,
        now,
        now,
      );
    }
    try {
      const session = await this.acp.reopenSession(id);
      return { session, mode, imported: !existing };
    } catch (e) {
      // A fresh import the agent refused leaves nothing behind.
      if (!existing) db.prepare('DELETE FROM sessions WHERE id = ? AND NOT EXISTS (SELECT 1 FROM acp_messages WHERE session_id = ?)').run(id, id);
      throw e;
    }
  }

  /** session/delete of the agent's copy, when the agent advertises it (the stored transcript stays). */
  async deleteOnAgent(sessionId: string): Promise<{ deleted: boolean; reason: string }> {
    const row = this.row(sessionId);
    const name = this.agentName(row.agent_id);
    if (!row.acp_session_id) return { deleted: false, reason: `${name} never created this session.` };
    const caps = await this.capabilities(row.agent_id, row.cwd, false, row.host_id).catch(() => null);
    if (!caps?.sessionCapabilities?.delete) return { deleted: false, reason: `${name} does not delete sessions (no session/delete): its own copy stays.` };
    const live = this.acp.session(sessionId);
    if (live && live.status !== 'closed') await live.close();
    await this.acp
      .runtimeFor(row.agent_id, row.cwd, row.host_id)
      .request('session/delete', { sessionId: row.acp_session_id })
      .catch((e: Error) => {
        throw new IpcFailure('agent_error', `${name} could not delete the session: ${e.message}`);
      });
    return { deleted: true, reason: `${name}'s own copy was deleted too (session/delete); undo brings back the stored transcript only.` };
  }

  /** Which of these ACP session ids are already Switchboard sessions (acp id → session id). */
  known(agentId: string, acpSessionIds: readonly string[]): Record<string, string> {
    const out: Record<string, string> = {};
    const stmt = this.acp.db().prepare('SELECT id FROM sessions WHERE agent_id = ? AND acp_session_id = ? AND deleted_at IS NULL ORDER BY created_at LIMIT 1');
    for (const acpId of acpSessionIds) {
      const r = stmt.get(agentId, acpId) as { id: string } | undefined;
      if (r) out[acpId] = r.id;
    }
    return out;
  }
}
