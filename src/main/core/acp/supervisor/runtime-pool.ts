import { isNetworkAgent } from '../../agents/network-agent';
import type { AgentCapabilities } from '@agentclientprotocol/sdk';
import { perAgent } from '../../../../shared/contract/settings';
import type { SettingKey, SettingValue } from '../../../../shared/contract/settings';
import type { AgentStatus } from '../../../../shared/contract/agents';
import { Emitter } from '../../base/emitter';
import type { Disposable } from '../../base/lifecycle';
import type { MessageLog } from '../../store/message-log';
import type { AcpContext } from '../acp-context';
import type { WarningKind } from '../connection/warnings';
import type { LiveSession } from '../session/live-session';
import type { LiveSessions } from '../session/live-sessions';
import { AgentSupervisor, type SupervisorHost, type SupervisorOptions } from './supervisor';
import { LOCAL_HOST_ID, sharesThisMachine } from '../../../../shared/contract/hosts';
import { join } from 'node:path';
import type { AgentRecord } from '../../agents/agent-repository';
import { HostBinaries } from '../../registry/host-install';
import { commandOnHost, type HostCommand } from '../../registry/host-launch';
import { AgentRuntime, runtimeKey, type RuntimeDeps } from '../runtimes/agent-runtime';

/** Whether agents get one process per project folder (default) or one for all: a boolean, or { [agentId]: boolean }. */
export const PROCESS_PER_FOLDER_SETTING = 'agents.processPerFolder';

/**
 * The agents' processes: one per agent and project folder (or one per agent), created on first use and kept
 * across restarts, watched by the supervisor. Tells its listeners (and the renderer) when a process's state
 * changes (onStatus).
 */
export class RuntimePool implements RuntimeDeps, SupervisorHost, Disposable {
  private readonly runtimes = new Map<string, AgentRuntime>();
  private readonly statusEvents = new Emitter<AgentStatus>();
  /** A process started, stopped, crashed… (every agent.status the renderer gets). */
  readonly onStatus = this.statusEvents.event;
  readonly supervisor: AgentSupervisor;
  /** Registry binary agents installed on SSH hosts by this app. */
  private readonly hostBinaries = new HostBinaries({ downloadIdleTimeoutMs: 60_000, maxDownloadBytes: 2 * 1024 ** 3 });

  constructor(
    private readonly ctx: AcpContext,
    private readonly live: LiveSessions,
    supervisorOptions: Partial<SupervisorOptions> = {},
  ) {
    this.supervisor = new AgentSupervisor(this, { clock: ctx.options.clock, ...supervisorOptions });
  }

  // ───────────── RuntimeDeps, SupervisorHost ─────────────

  get bus() {
    return this.ctx.bus;
  }
  get hosts() {
    return this.ctx.hosts;
  }
  get options() {
    return this.ctx.options;
  }
  get terminals() {
    return this.ctx.terminals;
  }
  get secrets() {
    return this.ctx.secrets;
  }
  agents() {
    return this.ctx.agents();
  }
  prefs() {
    return this.ctx.prefs();
  }
  async commandOnHost(record: AgentRecord, hostId: string, env: Record<string, string>): Promise<HostCommand> {
    const host = await this.ctx.hosts.ensure(hostId);
    const command = await commandOnHost(record, host, env, {
      agentsDir: join(this.ctx.dataDir, 'agents'),
      binaries: this.hostBinaries,
      onHost: (agentId, id) => this.ctx.setting('agents.onHost')[agentId]?.[id] ?? null,
    });
    await host.prepareProgram?.([command.command, ...command.args]);
    return command;
  }
  loginEnv(): Promise<Record<string, string>> {
    return this.ctx.loginEnv();
  }
  messageLog(): MessageLog | null {
    return this.ctx.messageLog();
  }
  setting<K extends SettingKey>(key: K): SettingValue<K> {
    return this.ctx.setting(key);
  }
  rememberCapabilities(agentId: string, caps: AgentCapabilities): void {
    this.ctx.rememberCapabilities(agentId, caps);
  }
  warn(agentId: string, sessionId: string | null, kind: WarningKind, message: string): void {
    this.ctx.warn(agentId, sessionId, kind, message);
  }
  session(id: string): LiveSession | undefined {
    return this.live.get(id);
  }
  sessionsOf(rt: AgentRuntime): LiveSession[] {
    return this.live.of(rt);
  }
  allSessions(): LiveSession[] {
    return this.live.all();
  }
  terminalRunning(sessionId: string): boolean {
    return this.ctx.terminals.running(sessionId);
  }
  statusChanged(status: AgentStatus): void {
    // The supervisor first: what it concludes (a restart due) is known by the time the renderer hears of it.
    this.statusEvents.fire(status);
    this.ctx.bus.emit('agent.status', status);
  }

  // ───────────── the pool ─────────────

  /** Every agent process created so far (the supervisor watches them). */
  allRuntimes(): AgentRuntime[] {
    return [...this.runtimes.values()];
  }

  /** The agent's own process (its working folder, or home): sign-in, session lists, starting it by hand. */
  runtime(agentId: string): AgentRuntime {
    return this.runtimeIn(agentId, null);
  }

  private runtimeIn(agentId: string, folder: string | null, hostId = LOCAL_HOST_ID): AgentRuntime {
    const key = runtimeKey(agentId, folder, hostId);
    let rt = this.runtimes.get(key);
    if (!rt) {
      rt = new AgentRuntime(agentId, this, this.ctx.agentLog(agentId), this.supervisor, folder, hostId);
      this.runtimes.set(key, rt);
    }
    return rt;
  }

  /**
   * The process that serves the agent's sessions in `cwd`: by default one per agent and project folder,
   * started in that folder (some agents confine their tools to the folder they started in), as other ACP
   * clients do. One process for all folders when the setting `agents.processPerFolder` says so for this
   * agent (false, or { [agentId]: false }), when the agent has a working folder of its own, or is reached at a URL. On a remote
   * host there is always one process per folder (the agent's working folder and home are this machine's).
   */
  runtimeFor(agentId: string, cwd: string | null, hostId = LOCAL_HOST_ID): AgentRuntime {
    if (!sharesThisMachine(hostId) && cwd !== null) return this.runtimeIn(agentId, cwd, hostId);
    if (cwd === null || !this.processPerFolder(agentId)) return this.runtime(agentId);
    return this.runtimeIn(agentId, cwd);
  }

  private processPerFolder(agentId: string): boolean {
    const record = this.ctx.agents().get(agentId);
    // A network agent is one connection, whatever the folder (it runs where its URL points).
    if (record?.cwd || (record && isNetworkAgent(record))) return false;
    const v = this.ctx.setting(PROCESS_PER_FOLDER_SETTING);
    return typeof v === 'boolean' ? v : perAgent(v, agentId, true);
  }

  runtimesOf(agentId: string): AgentRuntime[] {
    return [...this.runtimes.values()].filter((rt) => rt.agentId === agentId);
  }

  /** A process of the agent by its key (the supervisor restarts one process). */
  runtimeByKey(key: string): AgentRuntime | undefined {
    return this.runtimes.get(key);
  }

  /** The capabilities of the running agent, else those its last start reported (null: never started). */
  knownCapabilities(agentId: string): AgentCapabilities | null {
    const rt = this.runtimesOf(agentId).find((r) => r.connected);
    if (rt) return rt.capabilities;
    try {
      return this.ctx.capabilitiesRepo().get(agentId);
    } catch {
      return null;
    }
  }

  /** Stops and forgets every process of the agent (it is being removed). */
  async remove(agentId: string): Promise<void> {
    for (const rt of this.runtimesOf(agentId)) {
      await rt.stop();
      this.runtimes.delete(rt.key);
    }
  }

  /** Restarts one process of an agent and brings back its sessions that failed or never started. */
  async restartRuntime(rt: AgentRuntime): Promise<string[]> {
    await rt.stop();
    await rt.ensureStarted();
    const resumed: string[] = [];
    for (const s of this.live.of(rt)) {
      if (s.status === 'failed' || (s.status === 'auth_required' && s.acpSessionId === null)) {
        if (await s.reopen()) resumed.push(s.id);
      }
    }
    return resumed;
  }

  async dispose(): Promise<void> {
    this.supervisor.dispose();
    this.statusEvents.dispose();
    await Promise.all([...this.runtimes.values()].map((rt) => rt.stop().catch(() => {})));
  }
}
