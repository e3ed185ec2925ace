import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { ListSessionsResponse } from '@agentclientprotocol/sdk';
import { createThread, threadFromWire } from '../../../../shared/acp-thread';
import { livePromptIds } from './live-prompt-ids';
import { IpcFailure } from '../../../../shared/contract';
import type { PermissionRequestInfo, PromptBlock, SessionInfo } from '../../../../shared/contract/sessions';
import { effectiveConfigSchema, type EffectiveConfig } from '../../../../shared/contract/session-config';
import type { SettingKey, SettingValue } from '../../../../shared/contract/settings';
import { Emitter } from '../../base/emitter';
import type { Disposable } from '../../base/lifecycle';
import { FsRefusal } from '../../host/files';
import type { ConfinedFiles } from '../../host/files';
import { folderProblem } from '../../host/folder-check';
import type { Host } from '../../host/host';
import type { ContainerChoice } from '../../../../shared/contract/containers';
import { hostKindOf, hostLabel, LOCAL_HOST_ID } from '../../../../shared/contract/hosts';
import type { McpSelection } from '../../mcp/mcp-servers';
import type { AcpContext } from '../acp-context';
import type { WarningKind } from '../connection/warnings';
import type { AgentRuntime } from '../runtimes/agent-runtime';
import type { RuntimePool } from '../supervisor/runtime-pool';
import type { AgentRuleFile } from '../../../../shared/contract/permissions';
import { agentRuleFiles, distinctRuleFiles } from './agent-rule-files';
import { canFork } from './fork';
import { LiveSession } from './live-session';
import { SubagentSessions } from './subagent-sessions';
import { MAX_SUBAGENTS, type SubagentEntry } from '../../../../shared/acp-thread';
import type { SessionEventItem, SessionHost } from './session-host';
import type { LiveSessions } from './live-sessions';
import { hasStoredConversation, type RestorePort } from './session-restore';
import { heldAtAgents, offersStatus, reopenModeByStatus, type AgentHeld } from './session-status';
import { unarchiveToReopen } from './session-archive';
import { updateIsValid } from '../../../../shared/acp-thread/update-check';
import { reopenModeOf } from '../../agents/agent-capabilities';
import type { SessionTurn, SessionTurnEnd } from './turns';

/** Largest file sessions.readFile returns. */
const MAX_VIEW_BYTES = 8 * 1024 * 1024;

/** A confined-file refusal as the renderer's error (other errors pass through). */
function ipcFailureOf(e: unknown): unknown {
  if (!(e instanceof FsRefusal)) return e;
  const code = e.reason === 'outside' ? 'forbidden' : e.reason === 'not_found' ? 'not_found' : e.reason === 'changed' ? 'conflict' : 'invalid_params';
  return new IpcFailure(code, e.message);
}

/** Before a turn's prompt goes to the agent (checkpoints take their "before" snapshot); the turn waits for it. */
export interface FolderHold {
  /** What the prompts wait for, in the user's words. */
  reason: string;
  done: Promise<unknown>;
}

/** Switchboard's own MCP server for a session (null: none; leftOut: on, but it cannot be given, and why). */
export type OwnMcpProvider = (
  sessionId: string,
  agentId: string,
) => Promise<{ server: McpSelection['servers'][number]; given: McpSelection['given'][number] } | { leftOut: McpSelection['leftOut'][number] } | null>;

export type TurnStartingListener = (turn: SessionTurn) => Promise<void> | void;

/**
 * The live sessions: creating, reopening and forking them on the agents' processes, what they are asked
 * (through LiveSession), and their files. Tells in-process listeners when a turn starts and ends.
 */
export class SessionsService implements SessionHost, RestorePort, Disposable {
  /** Sessions whose agent was parked (park): their next prompt opens them again. */
  private readonly parked = new Set<string>();
  private readonly turnStartingListeners = new Set<TurnStartingListener>();
  private folderHolds: ((cwd: string) => FolderHold | null) | null = null;
  private readonly turnEnds = new Emitter<SessionTurnEnd>();
  /** A turn ended (compare records its run's end; checkpoints take their "after" snapshot). */
  readonly onTurnEnded = this.turnEnds.event;
  private readonly statuses = new Emitter<SessionInfo>();
  /** A session's status changed (compare stops a run's clock while it waits for the user). */
  readonly onStatusChanged = this.statuses.event;
  private readonly updates = new Emitter<{ sessionId: string; events: readonly SessionEventItem[] }>();
  /** Updates were folded into a session's thread (the spend guard reads usage from them). */
  readonly onUpdated = this.updates.event;
  private readonly permissionsAsked = new Emitter<PermissionRequestInfo>();
  /** A session asks the user a permission (an unattended run's policy may answer it). */
  readonly onPermissionAsked = this.permissionsAsked.event;
  private disposed = false;
  private readonly subagents: SubagentSessions;
  private ownMcp: OwnMcpProvider | null = null;

  constructor(
    private readonly ctx: AcpContext,
    private readonly pool: RuntimePool,
    private readonly live: LiveSessions,
  ) {
    this.subagents = new SubagentSessions(live, this, (id, parent) => new LiveSession(id, parent.runtime, this, parent.cwd, parent.additionalDirectories));
  }

  /** The user renamed a session in History: its live tab shows the name at once. */
  renamed(sessionId: string): void {
    this.live.get(sessionId)?.refreshCustomTitle();
  }

  /** What holds back the prompts of sessions in a folder (a worktree's setup command), as `hold` says. */
  holdFolders(hold: (cwd: string) => FolderHold | null): Disposable {
    this.folderHolds = hold;
    return { dispose: () => void (this.folderHolds === hold && (this.folderHolds = null)) };
  }

  /** A turn is about to start: the prompt waits for every listener (they must not throw). */
  onTurnStarting(listener: TurnStartingListener): Disposable {
    this.turnStartingListeners.add(listener);
    return { dispose: () => void this.turnStartingListeners.delete(listener) };
  }

  // ───────────── SessionHost, RestorePort ─────────────

  get bus() {
    return this.ctx.bus;
  }
  get terminals() {
    return this.ctx.terminals;
  }
  db() {
    return this.ctx.db();
  }
  agents() {
    return this.ctx.agents();
  }
  rows() {
    return this.ctx.rows();
  }
  rules() {
    return this.ctx.rules();
  }
  prefs() {
    return this.ctx.prefs();
  }
  setting<K extends SettingKey>(key: K): SettingValue<K> {
    return this.ctx.setting(key);
  }
  async mcpFor(agentId: string, capabilities: AgentRuntime['capabilities'], sessionId?: string): Promise<McpSelection> {
    const base = this.ctx.mcpFor(agentId, capabilities);
    const own = sessionId && this.ownMcp ? await this.ownMcp(sessionId, agentId) : null;
    if (!own) return base;
    if ('leftOut' in own) return { ...base, leftOut: [...base.leftOut, own.leftOut] };
    return { servers: [...base.servers, own.server], given: [...base.given, own.given], leftOut: base.leftOut };
  }

  /** Switchboard's own MCP server for a session being opened (delegation), when it gets one. */
  provideOwnMcp(provider: OwnMcpProvider): Disposable {
    this.ownMcp = provider;
    return { dispose: () => void (this.ownMcp === provider && (this.ownMcp = null)) };
  }
  agentEnvKeys(agentId: string): string[] {
    return this.ctx.agentEnvKeys(agentId);
  }
  loginEnv(): Promise<Record<string, string>> {
    return this.ctx.loginEnv();
  }
  warn(agentId: string, sessionId: string | null, kind: WarningKind, message: string): void {
    this.ctx.warn(agentId, sessionId, kind, message);
  }
  runtimeFor(agentId: string, cwd: string | null, hostId = LOCAL_HOST_ID): AgentRuntime {
    return this.pool.runtimeFor(agentId, cwd, hostId);
  }
  /** The host, connected first when it is an SSH host not connected yet ('unavailable' with the reason). */
  async workHost(hostId: string): Promise<Host> {
    try {
      return await this.ctx.hosts.ensure(hostId);
    } catch (e) {
      throw new IpcFailure('unavailable', `${hostLabel(hostId)} cannot be reached: ${(e as Error).message}`);
    }
  }
  async folderProblem(hostId: string, path: string): Promise<string | null> {
    return folderProblem(await this.workHost(hostId), path);
  }
  knownCapabilities(agentId: string) {
    return this.pool.knownCapabilities(agentId);
  }
  recordConfig(sessionId: string, config: EffectiveConfig): void {
    this.ctx.rows().setEffectiveConfig(sessionId, JSON.stringify(config));
  }
  forgetSession(id: string): void {
    this.live.delete(id);
  }
  folderHold(cwd: string): FolderHold | null {
    try {
      return this.folderHolds?.(cwd) ?? null;
    } catch (e) {
      console.error('folder hold failed:', e);
      return null;
    }
  }
  async turnStarting(turn: SessionTurn): Promise<void> {
    await Promise.all(
      [...this.turnStartingListeners].map(async (listener) => {
        try {
          await listener(turn);
        } catch (e) {
          console.error('turn-starting listener failed:', e);
        }
      }),
    );
  }
  statusChanged(info: SessionInfo): void {
    this.statuses.fire(info);
  }
  updated(sessionId: string, events: readonly SessionEventItem[]): void {
    this.updates.fire({ sessionId, events });
  }
  permissionAsked(info: PermissionRequestInfo): void {
    this.permissionsAsked.fire(info);
  }
  turnEnded(turn: SessionTurnEnd): void {
    this.turnEnds.fire(turn);
  }
  openSubagent(parentId: string, childAcpSessionId: string): string | undefined {
    return this.disposed ? undefined : this.subagents.open(parentId, childAcpSessionId);
  }
  subagentUpdated(parentId: string, entry: SubagentEntry): void {
    this.subagents.updated(parentId, entry);
  }
  endSubagents(parentId: string, how: 'cancel' | 'close', tellAgent?: boolean): Promise<void> {
    return this.subagents.end(parentId, how, tellAgent);
  }

  // ───────────── the API ─────────────

  session(id: string): LiveSession | undefined {
    return this.live.get(id);
  }

  /** The live session, else not_found. */
  get(sessionId: string): LiveSession {
    const s = this.live.get(sessionId);
    if (!s) throw new IpcFailure('not_found', `no live session ${sessionId}`);
    return s;
  }

  /** The subagent sessions of a session, live or stored, oldest first (at most MAX_SUBAGENTS of them). */
  subagentsOf(parentId: string) {
    const rows = this.ctx
      .db()
      .prepare('SELECT id, acp_session_id, agent_id, status, created_at, updated_at FROM sessions WHERE subagent_of = ? AND acp_session_id IS NOT NULL ORDER BY created_at, id LIMIT ?')
      .all(parentId, MAX_SUBAGENTS * 4) as Array<{ id: string; acp_session_id: string; agent_id: string; status: SessionInfo['status']; created_at: number; updated_at: number }>;
    return rows.map((r) => {
      const live = this.live.get(r.id);
      return {
        id: r.id,
        acpSessionId: r.acp_session_id,
        agentId: r.agent_id,
        // Not live any more: whatever it was doing ended with the run it belonged to.
        status: live ? live.status : r.status === 'failed' ? 'failed' : 'closed',
        live: live !== undefined && live.status !== 'closed' && live.status !== 'failed',
        canCancel: Boolean(live?.subagent?.canCancel),
        createdAt: r.created_at,
        updatedAt: live ? live.updatedAt : r.updated_at,
      } as const;
    });
  }

  list(): SessionInfo[] {
    return this.live.all().map((s) => s.info());
  }

  /** Sends a prompt (queued while a turn runs). */
  /** The rule files the agents read themselves: for `folder` (every agent), else for the folders of the live sessions. */
  agentRuleFiles(folder?: string): AgentRuleFile[] {
    const pairs = folder ? this.agents().list().map((a) => ({ agentId: a.id, folder })) : this.live.all().map((s) => ({ agentId: s.agentId, folder: s.cwd }));
    const seen = new Set<string>();
    const files: AgentRuleFile[] = [];
    for (const { agentId, folder: f } of pairs) {
      const record = this.agents().get(agentId);
      if (!record || seen.has(`${agentId}\0${f}`)) continue;
      seen.add(`${agentId}\0${f}`);
      const home = this.prefs().get(agentId).env.HOME ?? record.env.HOME ?? null;
      files.push(...agentRuleFiles({ ...record, home }, f));
    }
    return distinctRuleFiles(files);
  }

  prompt(sessionId: string, prompt: PromptBlock[]) {
    return this.get(sessionId).prompt(prompt);
  }

  /** Brings back a session whose agent was stopped while idle (idle-sleep.ts); nothing for the others. */
  wake(sessionId: string): Promise<void> {
    return this.pool.supervisor.sleep.wake(sessionId);
  }

  /** The user's prompt: a session whose agent was parked (its container stopped when idle) is opened again first. */
  async promptWaking(sessionId: string, prompt: PromptBlock[]) {
    if (this.parked.delete(sessionId) && this.live.get(sessionId)?.status === 'failed') await this.reopenSession(sessionId);
    return this.prompt(sessionId, prompt);
  }

  /**
   * Stops the agents running on a host, their sessions to be opened again by their next prompt (a session
   * container stopped when idle, or by the user): none is restarted as crashed meanwhile.
   */
  async park(hostId: string): Promise<void> {
    const runtimes = this.pool.allRuntimes().filter((rt) => rt.hostId === hostId);
    for (const rt of runtimes) for (const s of this.live.of(rt)) if (s.status !== 'closed') this.parked.add(s.id);
    await Promise.all(runtimes.map((rt) => rt.stop()));
  }

  /** The configuration the session was last opened with (null: never recorded or unreadable). */
  effectiveConfig(sessionId: string): EffectiveConfig | null {
    const raw = this.ctx.rows().effectiveConfig(sessionId);
    if (raw === undefined) throw new IpcFailure('not_found', `no session ${sessionId}`);
    if (raw === null) return null;
    const parsed = effectiveConfigSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  }

  private requireAgent(agentId: string): void {
    if (!this.ctx.agents().get(agentId)) throw new IpcFailure('not_found', `no agent ${agentId}`);
  }

  /**
   * A new session (session/new). It is live, as `starting`, from the call on, under `p.sessionId` when the
   * client chose it: closing or cancelling it while the agent starts or answers withdraws it, and a
   * withdrawn session leaves no row behind.
   */
  async create(p: {
    agentId: string;
    hostId?: string | undefined;
    cwd: string;
    additionalDirectories?: string[] | undefined;
    sessionId?: string | undefined;
    container?: ContainerChoice | undefined;
    delegation?: boolean | undefined;
  }): Promise<SessionInfo> {
    if (this.disposed) throw new IpcFailure('unavailable', 'shutting down');
    this.requireAgent(p.agentId);
    const machineId = p.hostId ?? LOCAL_HOST_ID;
    const additionalDirectories = p.additionalDirectories ?? [];
    // The folders are on the machine's host (a container mounts them from there): asked of it (an SSH host is connected first).
    const host = await this.workHost(machineId);
    for (const dir of [p.cwd, ...additionalDirectories]) {
      const problem = await folderProblem(host, dir);
      if (problem) throw new IpcFailure('not_found', machineId === LOCAL_HOST_ID ? problem : `${problem} (on ${hostLabel(machineId)})`);
    }
    const id = p.sessionId ?? randomUUID();
    if (this.live.has(id) || this.ctx.rows().exists(id)) throw new IpcFailure('conflict', `a session ${id} already exists`);
    let hostId = machineId;
    let container: string | undefined;
    if (p.container) {
      if (!this.ctx.placement) throw new IpcFailure('unavailable', 'sessions in containers are not available here');
      if (hostKindOf(machineId) === 'container') throw new IpcFailure('invalid_params', 'a container runs on this machine or an SSH host, not in another container');
      const placed = await this.ctx.placement.place({ sessionId: id, agentId: p.agentId, hostId: machineId, cwd: p.cwd, additionalDirectories, container: p.container });
      hostId = placed.hostId;
      container = placed.stored;
    }
    const rt = this.pool.runtimeFor(p.agentId, p.cwd, hostId);
    this.ctx.rows().insert({ id, agentId: p.agentId, hostId, cwd: p.cwd, status: 'starting', now: Date.now(), ...(container ? { container } : {}) });
    if (p.delegation !== undefined) this.ctx.rows().setDelegation(id, p.delegation);
    const session = new LiveSession(id, rt, this, p.cwd, additionalDirectories);
    this.live.add(session);
    let started = false;
    try {
      // The agent may start slowly (or never): giving up does not wait for it.
      const starting = rt.ensureStarted().then(() => true);
      starting.catch(() => {});
      started = await Promise.race([starting, session.whenWithdrawn().then(() => false)]);
      if (session.withdrawn) throw new IpcFailure('agent_error', 'session/new was cancelled');
      await session.open('new');
    } catch (e) {
      this.live.delete(id);
      session.abandon();
      // Nothing of it exists at the agent (the user gave up, or the agent did not start): nothing is kept.
      if (session.withdrawn || !started) {
        this.forgetUncreated(rt, id);
        if (container) await this.ctx.placement?.abandon(hostId).catch((err: Error) => this.ctx.warn(rt.agentId, id, 'store_error', `could not remove the container of a session never created: ${err.message}`));
      }
      throw e;
    }
    return session.info();
  }

  /** Deletes a session the agent never created, with the messages of its withdrawn session/new. */
  private forgetUncreated(rt: AgentRuntime, id: string): void {
    rt.forgetNewSession(id);
    try {
      // Its messages still queued are written first (the row they belong to must exist until then).
      this.ctx.messageLog()?.flush();
      this.ctx.rows().deleteUncreated(id);
    } catch (e) {
      this.ctx.warn(rt.agentId, id, 'store_error', `could not forget a withdrawn session: ${(e as Error).message}`);
    }
  }

  /** A stored session back on its agent: resumed when the agent can, else loaded (replayed). */
  async reopenSession(sessionId: string): Promise<SessionInfo> {
    const current = this.live.get(sessionId);
    if (current && current.status !== 'failed') return current.info();
    const row = this.ctx.db().prepare('SELECT agent_id, acp_session_id, host_id, cwd, title, archived_at FROM sessions WHERE id = ? AND deleted_at IS NULL').get(sessionId) as
      | { agent_id: string; acp_session_id: string | null; host_id: string; cwd: string; title: string | null; archived_at: number | null }
      | undefined;
    if (!row) throw new IpcFailure('not_found', `no session ${sessionId}`);
    if (!row.acp_session_id) throw new IpcFailure('unavailable', 'the agent never created this session');
    this.requireAgent(row.agent_id);
    // Its host first: a remote session reconnects it (or says why it cannot).
    const host = await this.workHost(row.host_id);
    const rt = this.pool.runtimeFor(row.agent_id, row.cwd, row.host_id);
    await rt.ensureStarted();
    const byCaps = reopenModeOf(rt.capabilities);
    if (!byCaps) throw new IpcFailure('unavailable', 'this agent can neither resume nor load sessions');
    if (await folderProblem(host, row.cwd)) throw new IpcFailure('not_found', `the session's folder is gone: ${row.cwd}`);
    // Reopened to go on with it: an archived session comes out of the archive, at its agent first.
    const unarchiveProblem = row.archived_at !== null ? await unarchiveToReopen(rt, row.acp_session_id) : null;
    if (unarchiveProblem) this.warn(row.agent_id, sessionId, 'archive', unarchiveProblem);
    const session = new LiveSession(sessionId, rt, this, row.cwd, []);
    session.acpSessionId = row.acp_session_id;
    session.forkedFrom = this.ctx.rows().forkedFrom(sessionId);
    // A delegated child stays its parent's: the parent's close or cancel still ends it.
    session.delegatedBy = this.ctx.rows().delegatedBy(sessionId);
    // The thread starts from the stored messages. Resumed: the agent does not replay. Loaded: the replay
    // is dropped when the store has the conversation (else, e.g. an imported session, it is the conversation).
    const log = this.ctx.messageLog();
    const stored = log ? log.read(sessionId) : [];
    const known = hasStoredConversation(stored);
    const { mode, fallback } = await reopenModeByStatus(rt, row.acp_session_id, byCaps, known);
    const thread = mode === 'resume' || known ? threadFromWire(stored, createThread(), livePromptIds(this.db(), sessionId, stored), updateIsValid) : createThread();
    session.seed(thread, row.title);
    if (mode === 'load' && known) rt.skipReplay(sessionId, thread);
    this.live.add(session);
    try {
      await session.open(mode).catch(async (e: unknown) => {
        if (!fallback) throw e;
        rt.skipReplay(sessionId, thread);
        await session.open(fallback);
      });
    } catch (e) {
      this.live.delete(sessionId);
      session.abandon();
      throw e;
    }
    this.ctx.rows().adopt(sessionId);
    if (row.archived_at !== null && this.ctx.rows().unarchive(sessionId)) this.bus.emit('history.changed', { sessionIds: [sessionId], reason: 'unarchive' });
    return session.info();
  }

  /** What the running agents that offer session/status say of these stored sessions (History's open / saved). */
  async heldAtAgents(sessionIds: readonly string[]): Promise<Record<string, AgentHeld>> {
    const stmt = this.ctx.db().prepare('SELECT id, agent_id, acp_session_id, cwd, host_id FROM sessions WHERE id = ? AND deleted_at IS NULL');
    const rows = sessionIds.flatMap((id) => {
      const live = this.live.get(id);
      if (live && live.status !== 'failed' && live.status !== 'closed') return [];
      const row = stmt.get(id) as { id: string; agent_id: string; acp_session_id: string | null; cwd: string; host_id: string } | undefined;
      return row ? [row] : [];
    });
    return heldAtAgents(rows, (agentId, cwd, hostId) =>
      this.pool.runtimesOf(agentId).some((rt) => rt.connected && offersStatus(rt.capabilities)) ? this.pool.runtimeFor(agentId, cwd, hostId) : null,
    );
  }

  /**
   * A new live session the agent forks from an idle one (session/fork): same agent process, folders and MCP
   * servers; the fork goes on from the whole conversation so far (ACP has no fork point). Linked to its
   * parent in the store (history shows both ways).
   */
  async fork(parentId: string): Promise<SessionInfo> {
    if (this.disposed) throw new IpcFailure('unavailable', 'shutting down');
    const parent = this.get(parentId);
    if (!canFork(parent.runtime.capabilities)) throw new IpcFailure('unavailable', 'this agent does not support forking sessions');
    if (parent.acpSessionId === null || parent.status !== 'idle') throw new IpcFailure('conflict', `the session is ${parent.status}: fork it once it is idle`);
    if (!parent.runtime.connected) throw new IpcFailure('unavailable', 'the agent is not running');
    const id = randomUUID();
    this.ctx.rows().insert({ id, agentId: parent.agentId, hostId: parent.runtime.hostId, cwd: parent.cwd, status: 'starting', now: Date.now(), forkedFrom: parent.id });
    const session = new LiveSession(id, parent.runtime, this, parent.cwd, parent.additionalDirectories);
    session.forkSource = parent.acpSessionId;
    session.forkedFrom = this.ctx.rows().forkedFrom(id);
    this.live.add(session);
    try {
      await session.open('fork');
    } catch (e) {
      this.live.delete(id);
      session.abandon();
      throw e;
    }
    return session.info();
  }

  /** The session's folders, for confined access (live session: its roots; stored: its folder). */
  private async sessionFs(sessionId: string): Promise<ConfinedFiles> {
    let roots: readonly string[];
    let host: Host;
    const current = this.live.get(sessionId);
    if (current) {
      roots = [current.cwd, ...current.additionalDirectories];
      host = current.runtime.workHost;
    } else {
      const row = this.ctx.db().prepare('SELECT cwd, host_id FROM sessions WHERE id = ?').get(sessionId) as { cwd: string; host_id: string } | undefined;
      if (!row) throw new IpcFailure('not_found', `no session ${sessionId}`);
      roots = [row.cwd];
      host = await this.workHost(row.host_id);
    }
    try {
      return await host.files(roots);
    } catch {
      throw new IpcFailure('not_found', `the session's folder is gone`);
    }
  }

  /** A file inside a session's roots, for the renderer. */
  async readFile(sessionId: string, path: string): Promise<{ path: string; content: string }> {
    const fs = await this.sessionFs(sessionId);
    try {
      const { real, data } = await fs.readFile(path, { maxBytes: MAX_VIEW_BYTES });
      return { path: real, content: data.toString('utf8') };
    } catch (e) {
      throw ipcFailureOf(e);
    }
  }

  /** Saves text too long for a prompt as a new file in the session's folder (never over an existing one). */
  async attachText(sessionId: string, text: string): Promise<{ path: string }> {
    const session = this.live.get(sessionId);
    if (!session) throw new IpcFailure('not_found', `no live session ${sessionId}`);
    const fs = await this.sessionFs(sessionId);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    for (let n = 0; n < 100; n++) {
      const path = join(session.cwd, `pasted-${stamp}${n ? `-${n}` : ''}.txt`);
      if ((await fs.resolve(path)).exists) continue;
      try {
        const { real } = await fs.writeFile(path, text);
        return { path: real };
      } catch (e) {
        throw ipcFailureOf(e);
      }
    }
    throw new IpcFailure('conflict', 'could not find a free file name in the session folder');
  }

  /** session/list of the agent (when advertised). */
  async listAgentSessions(agentId: string, cwd?: string, cursor?: string) {
    this.requireAgent(agentId);
    const rt = this.pool.runtimeFor(agentId, cwd ?? null);
    await rt.ensureStarted();
    if (!rt.capabilities?.sessionCapabilities?.list) throw new IpcFailure('unavailable', 'this agent does not list its sessions');
    const res = await rt
      .request<ListSessionsResponse>('session/list', { ...(cwd ? { cwd } : {}), ...(cursor ? { cursor } : {}) })
      .catch((e: Error) => {
        throw new IpcFailure('agent_error', e.message);
      });
    return { sessions: Array.isArray(res?.sessions) ? res.sessions : [], nextCursor: typeof res?.nextCursor === 'string' ? res.nextCursor : null };
  }

  /** Closes every live session (`tellAgent: false`: the app quits, its agents are stopped next). */
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const s of this.live.all()) await s.close(false).catch(() => {});
    this.turnEnds.dispose();
    this.statuses.dispose();
    this.turnStartingListeners.clear();
  }
}
