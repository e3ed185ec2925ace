import {
  client,
  methods,
  RequestError,
  type AgentCapabilities,
  type ClientConnection,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  type CreateTerminalRequest,
  type CreateTerminalResponse,
  type InitializeRequest,
  type InitializeResponse,
  type ReadTextFileRequest,
  type ReadTextFileResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SendRequestOptions,
  type WriteTextFileRequest,
  type WriteTextFileResponse,
} from '@agentclientprotocol/sdk';
import { existsSync } from 'node:fs';
import type { ThreadState } from '../../../../shared/acp-thread';
import { homedir } from 'node:os';
import { IpcFailure } from '../../../../shared/contract';
import type { AgentAuthStatus, AgentStatus, AgentRuntimeState } from '../../../../shared/contract/agents';
import { methods as unstableMethods } from '@agentclientprotocol/sdk/unstable';
import { authAccountText, authLapsed, parseAcpAuthStatus, parseClaudeAuthStatus } from './auth-status';
import type { AgentLog } from '../connection/agent-log';
import { AgentProcess, type AgentExit, type AgentLaunch } from '../connection/agent-process';
import type { AgentLink, AgentLinkHandlers } from '../connection/agent-link';
import { AgentSocket } from '../connection/agent-socket';
import { MemoryAcpCookieStore } from '@agentclientprotocol/sdk/experimental/ws-client';
import { checkAgentUrl } from '../../../../shared/agent-url';
import { AGENT_TOKEN_NAME, agentTokenScope, isNetworkAgent } from '../../agents/network-agent';
import { authMethodInfo, parseAuthMethods, type ParsedAuthMethod } from '../../agents/auth';
import { FloodGuard, floodLimits } from '../connection/flood-guard';
import { AcpWire, type UpdateItem } from '../connection/acp-wire';
import type { WarningKind } from '../connection/warnings';
import type { AcpOptions } from '../options';
import type { AgentRecord, AgentRepository } from '../../agents/agent-repository';
import type { AgentPrefsRepo } from '../../agents/agent-prefs';
import type { SecretStore } from '../../agents/secret-store';
import { providersScope, replayProviders } from './provider-replay';
import type { MessageLog } from '../../store/message-log';
import type { AgentTerminals } from '../../terminals/agent-terminals';
import type { SettingKey, SettingValue } from '../../../../shared/contract/settings';
import type { Host } from '../../host/host';
import type { Hosts } from '../../host/hosts';
import { LOCAL_HOST_ID, hostLabel, sharesThisMachine } from '../../../../shared/contract/hosts';
import type { HostCommand } from '../../registry/host-launch';

/** A live session as its agent's runtime sees it: where the agent's requests and updates about it go. */
export interface SessionEndpoint {
  readonly id: string;
  requestPermission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> | RequestPermissionResponse;
  readTextFile(params: ReadTextFileRequest): Promise<ReadTextFileResponse>;
  writeTextFile(params: WriteTextFileRequest): Promise<WriteTextFileResponse>;
  createTerminal(params: CreateTerminalRequest): Promise<CreateTerminalResponse>;
  /** `elicitation/create` for this session: answered when the user does (or with cancel, with the turn). */
  createElicitation(params: CreateElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse> | CreateElicitationResponse;
  /** `elicitation/complete`: true when this session had that URL elicitation. */
  completeElicitation(elicitationId: string): boolean;
  /** A run of consecutive `session/update` notifications, already persisted, in wire order. */
  onAgentUpdates(items: UpdateItem[]): void;
  /** The agent process ended; `message` says how. */
  onAgentGone(message: string): void;
  /** The agent announced a child session of this one (`subagent_update`): its Switchboard id, or undefined when refused. */
  openSubagent(childAcpSessionId: string): string | undefined;
  /** A tool call of the running turn is in progress (the hang timeout does not count it). */
  toolInProgress(): boolean;
  /** The agent said its sign-in lapsed (it was signed in, now signed out): `account` is what it was signed in with. */
  onAuthLapsed(account: string | null): void;
}

/** Wraps every request to the agent (the supervisor's hang timeout). */
export interface RequestPolicy {
  watch<R>(rt: AgentRuntime, method: string, params: unknown, send: (signal: AbortSignal) => Promise<R>): Promise<R>;
}

/** What a runtime needs from the service around it. */
export interface RuntimeDeps {
  /** The process's state changed (the pool tells the renderer and its own listeners). */
  statusChanged(status: AgentStatus): void;
  readonly hosts: Pick<Hosts, 'get'>;
  readonly options: AcpOptions;
  readonly terminals: Pick<AgentTerminals, 'output' | 'waitForExit' | 'kill' | 'release'>;
  readonly secrets: Pick<SecretStore, 'names' | 'all'>;
  agents(): Pick<AgentRepository, 'get'>;
  prefs(): Pick<AgentPrefsRepo, 'get'>;
  /** What the agent runs on a remote host (a registry install here is this machine's); throws when it cannot run there. */
  commandOnHost(record: AgentRecord, hostId: string, env: Record<string, string>): Promise<HostCommand>;
  loginEnv(): Promise<Record<string, string>>;
  messageLog(): MessageLog | null;
  setting<K extends SettingKey>(key: K): SettingValue<K>;
  /** Remembers what the agent's `initialize` answered (how its sessions can come back, without starting it). */
  rememberCapabilities(agentId: string, caps: AgentCapabilities): void;
  warn(agentId: string, sessionId: string | null, kind: WarningKind, message: string): void;
  session(id: string): SessionEndpoint | undefined;
  /** The live sessions this runtime (this process) serves. */
  sessionsOf(rt: AgentRuntime): SessionEndpoint[];
}

/** The key of an agent's runtime: the agent, the project folder its process serves (null: its own), and its host. */
export const runtimeKey = (agentId: string, folder: string | null, hostId = LOCAL_HOST_ID): string => {
  const local = folder === null ? agentId : `${agentId}\0${folder}`;
  return hostId === LOCAL_HOST_ID ? local : `${local}\0@${hostId}`;
};

export const CLIENT_INFO = { name: 'switchboard', title: 'Switchboard', version: '0.1.0' };

/**
 * What this client offers every agent. `subagents` is stable ACP (2026-11-20) that the SDK 2.4.0 types
 * still list under unstable only.
 */
export const CLIENT_CAPABILITIES: InitializeRequest['clientCapabilities'] & { subagents: Record<string, never>; plan: Record<string, never> } = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: true,
  auth: { terminal: true },
  session: { configOptions: { boolean: {} }, notices: {}, compaction: {} },
  elicitation: { form: {}, url: {} },
  // ACP subagent sessions: children on this connection, announced with subagent_update (shown under their parent).
  subagents: {},
  // Plans by id (unstable): plan_update / plan_removed, several plans per session edited in place.
  plan: {},
  // Extensions real agents look for: terminal output in tool call _meta (Claude), legacy terminal auth.
  _meta: { terminal_output: true, 'terminal-auth': true },
};

type AgentRequestParams = Parameters<ClientConnection['agent']['request']>;

/**
 * One process of an agent: the process (when running), the SDK connection over the wire tap, and what
 * `initialize` told. By default an agent has one process per project folder (started in that folder: some
 * agents confine their tools to the folder they started in); `folder` null is the agent's own process (its
 * configured working folder, or home), which serves all folders when `agents.processPerFolder` is off.
 * Survives restarts (status, log, bindings reset).
 */
export class AgentRuntime {
  state: AgentRuntimeState = 'stopped';
  error: string | null = null;
  exitCode: number | null = null;
  signal: string | null = null;
  startedAt: number | null = null;
  init: InitializeResponse | null = null;
  authMethods: ParsedAuthMethod[] = [];
  /** What the agent last said of its sign-in (auth/status, auth/status_update, Claude's _auth/status_update). */
  authStatus: AgentAuthStatus | null = null;
  private proc: AgentLink | null = null;
  /** The agent is reached at a URL (launch.command), not started as a process. */
  private network = false;
  /** A network agent's affinity cookies, kept across its reconnects. */
  private readonly cookies = new MemoryAcpCookieStore();
  private wire: AcpWire | null = null;
  private conn: ClientConnection | null = null;
  /** ACP session id → Switchboard session id, for this process. */
  private readonly bindings = new Map<string, string>();
  private starting: Promise<void> | null = null;
  private stopping = false;
  /** stop() was called while the agent was starting: its start ends as stopped, not failed. */
  private stopWhileStarting = false;
  /** Resolves once the last process's exit has been handled (sessions told, status set). */
  exitHandled: Promise<void> = Promise.resolve();
  /** The command line of the running process (terminal auth re-runs it with extra args). */
  launch: AgentLaunch | null = null;
  /** When the agent last wrote to stdout (the supervisor's hang detection). */
  lastActivity = 0;
  /** The agent floods its output and is read slower for now: why, in words (the supervisor shows it). */
  throttled: string | null = null;
  private flood: FloodGuard | null = null;

  constructor(
    readonly agentId: string,
    private readonly host: RuntimeDeps,
    readonly log: AgentLog,
    private readonly policy: RequestPolicy | null = null,
    readonly folder: string | null = null,
    /** The host its process runs on. */
    readonly hostId = LOCAL_HOST_ID,
  ) {}

  /** Where the agent's process runs: its sessions' files, terminals and git are there too. */
  get workHost(): Host {
    return this.host.hosts.get(this.hostId);
  }

  get key(): string {
    return runtimeKey(this.agentId, this.folder, this.hostId);
  }

  get capabilities(): AgentCapabilities | null {
    return this.init?.agentCapabilities ?? null;
  }

  get pid(): number | null {
    return this.proc?.pid ?? null;
  }

  /** The agent waits for this client to answer one of its requests (a permission, a terminal…). */
  get waitingOnClient(): boolean {
    return (this.wire?.pendingAgentRequests ?? 0) > 0;
  }

  get connected(): boolean {
    return this.state === 'running' && this.conn !== null && !this.conn.signal.aborted;
  }

  status(): AgentStatus {
    let stored: Set<string>;
    try {
      stored = new Set(this.host.secrets.names(this.agentId));
    } catch {
      stored = new Set();
    }
    return {
      agentId: this.agentId,
      state: this.state,
      pid: this.proc?.pid ?? null,
      error: this.error,
      exitCode: this.exitCode,
      signal: this.signal,
      protocolVersion: this.init?.protocolVersion ?? null,
      agentInfo: this.init?.agentInfo ?? null,
      capabilities: this.capabilities,
      authMethods: this.authMethods.map((m) => authMethodInfo(m, stored)),
      canLogout: Boolean(this.capabilities?.auth?.logout),
      auth: this.authStatus,
      startedAt: this.startedAt,
      folder: this.folder,
      ...(this.hostId === LOCAL_HOST_ID ? {} : { hostId: this.hostId }),
    };
  }

  private setState(state: AgentRuntimeState, error: string | null = null): void {
    this.state = state;
    this.error = error;
    this.host.statusChanged(this.status());
  }

  // ───────────── sessions ─────────────

  /**
   * Routes the ACP session's requests and updates to `sessionId`. Refused (false) when the id is another
   * open session's: an agent that answers session/new or session/fork with an id it gave before must not
   * take that session's conversation.
   */
  bind(acpSessionId: string, sessionId: string): boolean {
    const other = this.bindings.get(acpSessionId);
    if (other !== undefined && other !== sessionId && this.host.session(other)) return false;
    this.bindings.set(acpSessionId, sessionId);
    return true;
  }

  /**
   * Binds a session about to be resumed or loaded, and hands it what its agent sent for it before any session was
   * bound: an agent a previous Switchboard left on its host (killed mid-reply) is taken back with what it wrote
   * meanwhile, the rest of that session's conversation.
   */
  bindReopened(acpSessionId: string, sessionId: string): boolean {
    const bound = this.bind(acpSessionId, sessionId);
    if (bound) this.wire?.claimHeld(acpSessionId, sessionId);
    return bound;
  }

  unbind(acpSessionId: string): void {
    this.bindings.delete(acpSessionId);
  }

  /** The live session an agent request names; unknown → -32002 to the agent. */
  sessionFor(acpSessionId: unknown): SessionEndpoint {
    const id = typeof acpSessionId === 'string' ? this.bindings.get(acpSessionId) : undefined;
    const session = id !== undefined ? this.host.session(id) : undefined;
    if (!session) throw RequestError.sessionNotFound(String(acpSessionId).slice(0, 200));
    return session;
  }

  expectNewSession(sessionId: string): void {
    this.wire?.expectNewSession(sessionId);
  }

  /** A session withdrawn before the agent created it (see AcpWire.forgetNewSession). */
  forgetNewSession(sessionId: string): void {
    this.wire?.forgetNewSession(sessionId);
  }

  /** Call right before session/load of a session already stored (`stored`): its replay is dropped (see AcpWire.skipReplay). */
  skipReplay(sessionId: string, stored: ThreadState): void {
    this.wire?.skipReplay(sessionId, stored);
  }

  /** Resolves once a loaded session's replay has gone quiet (see AcpWire.replayQuiet). */
  replayQuiet(sessionId: string): Promise<void> {
    return this.wire?.replayQuiet(sessionId) ?? Promise.resolve();
  }

  request<R = unknown>(method: string, params: unknown, options?: SendRequestOptions): Promise<R> {
    if (!this.conn || !this.connected) return Promise.reject(new IpcFailure('unavailable', 'the agent is not running'));
    const conn = this.conn;
    const send = (signal?: AbortSignal) =>
      (conn.agent.request as (...a: AgentRequestParams) => Promise<unknown>)(
        method as never,
        params as never,
        signal
          ? { ...options, stopWaitingOnCancel: true, cancellationSignal: options?.cancellationSignal ? AbortSignal.any([options.cancellationSignal, signal]) : signal }
          : options,
      ) as Promise<R>;
    return this.policy ? this.policy.watch(this, method, params, send) : send();
  }

  notify(method: string, params: unknown): Promise<void> {
    if (!this.conn || !this.connected) return Promise.resolve();
    return (this.conn.agent.notify as (m: string, p: unknown) => Promise<void>)(method, params).catch(() => {});
  }

  /** A notification of Switchboard's own (not the user's): sent now, or dropped when the host cannot be reached. */
  notifyNowOrNever(method: string, params: Record<string, unknown>): void {
    if (this.wire && this.connected && this.hostReachable()) this.wire.notifyNowOrNever(method, params);
  }

  /** Whether the agent's host can be reached now (false while an SSH host reconnects). */
  hostReachable(): boolean {
    try {
      return this.workHost.isConnected?.() ?? true;
    } catch {
      return false;
    }
  }

  // ───────────── lifecycle ─────────────

  ensureStarted(): Promise<void> {
    if (this.connected) return Promise.resolve();
    if (!this.starting) this.stopWhileStarting = false;
    this.starting ??= this.start().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async buildLaunch(): Promise<AgentLaunch> {
    const record = this.host.agents().get(this.agentId);
    if (!record) throw new IpcFailure('not_found', `no agent ${this.agentId}`);
    this.network = isNetworkAgent(record);
    if (this.network) {
      if (this.hostId !== LOCAL_HOST_ID) {
        throw new IpcFailure('invalid_params', `${record.name} is reached at its URL: it cannot be started on ${hostLabel(this.hostId)} (open the session on this machine)`);
      }
      const url = checkAgentUrl(record.command);
      if (!url.ok) throw new IpcFailure('invalid_params', `${record.name}'s URL is refused: ${url.error}`);
      return { command: url.url.href, args: [], env: {}, cwd: record.cwd ?? homedir() };
    }
    const prefs = this.host.prefs().get(this.agentId);
    // This machine's login environment is this machine's: an agent on a remote host gets the host's own
    // (its helper's). A remote runtime always serves one folder (the pool makes it so).
    const base = sharesThisMachine(this.hostId) ? await this.host.loginEnv() : {};
    const secrets = this.host.secrets.all(this.agentId);
    const env: Record<string, string> = { ...base, ...record.env, ...prefs.env, ...secrets };
    const args = prefs.args ?? record.args;
    if (sharesThisMachine(this.hostId)) return { command: record.command, args, env, cwd: this.folder ?? record.cwd ?? homedir() };
    const onHost = await this.host.commandOnHost({ ...record, args }, this.hostId, env);
    return { command: onHost.command, args: onHost.args, env: { ...env, ...onHost.env, ...secrets }, cwd: this.folder ?? record.cwd ?? homedir() };
  }

  /** The providers the user chose, given to this new process before any session (see provider-replay.ts). */
  private async replayProviders(): Promise<void> {
    if ((this.capabilities as { providers?: unknown } | null)?.providers == null) return;
    const stored = this.host.secrets.all(providersScope(this.agentId));
    if (Object.keys(stored).length === 0) return;
    const conn = this.conn!;
    for (const problem of await replayProviders((method, params) => conn.agent.request(method as never, params as never), stored)) {
      this.log.write('warning', problem);
      this.host.warn(this.agentId, null, 'settings', problem);
    }
  }

  private async start(): Promise<void> {
    await this.exitHandled;
    this.stopping = false;
    this.init = null;
    this.authStatus = null;
    this.exitCode = null;
    this.signal = null;
    this.bindings.clear();
    this.setState('starting');
    let launch: AgentLaunch;
    try {
      launch = await this.buildLaunch();
    } catch (e) {
      this.setState('failed', (e as Error).message);
      throw e;
    }
    this.launch = launch;
    let reader: AgentLink | null = null;
    const wire = new AcpWire(
      { write: (data) => this.proc?.write(data) ?? Promise.reject(new Error('not running')), writeNowOrNever: (data) => this.proc?.writeNowOrNever(data) },
      () => this.host.messageLog(),
      this.log,
      {
        sessionOf: (acpId) => this.bindings.get(acpId),
        bindSession: (acpId, sessionId) => this.bind(acpId, sessionId),
        onUpdates: (sessionId, items) => this.host.session(sessionId)?.onAgentUpdates(items),
        onWarning: (sessionId, kind, message) => this.host.warn(this.agentId, sessionId, kind, message),
        announceChild: (sessionId, childAcpId) => {
          const childId = this.host.session(sessionId)?.openSubagent(childAcpId);
          if (childId !== undefined) this.bind(childAcpId, childId);
        },
        readAhead: (full) => (full ? reader?.pauseStdout('read-ahead') : reader?.resumeStdout('read-ahead')),
      },
      this.host.options.maxLineBytes,
    );
    this.wire = wire;
    let exitDone!: () => void;
    this.exitHandled = new Promise((r) => (exitDone = r));
    const flood = new FloodGuard(() => floodLimits({ get: (key) => this.host.setting(key) }), {
      pause: () => proc.pauseStdout('flood'),
      resume: () => proc.resumeStdout('flood'),
      throttled: (rate) => {
        const limits = flood.current;
        this.throttled =
          `the agent wrote ${rate.toLocaleString('en-US')} messages a second for ${limits.seconds} s (more than ${limits.perSecond.toLocaleString('en-US')}); ` +
          `Switchboard reads its output at ${limits.throttlePerSecond.toLocaleString('en-US')} a second until it calms down, so that the other agents and the window stay responsive. Nothing is dropped: its output arrives late.`;
        this.log.write('note', `flood control: ${rate}/s for ${limits.seconds} s; reading at ${limits.throttlePerSecond}/s`);
        this.host.warn(this.agentId, null, 'flooding', this.throttled);
      },
      released: () => {
        this.throttled = null;
        this.log.write('note', 'flood control: the agent calmed down; reading at full speed again');
      },
    }, this.host.options.clock);
    this.flood?.dispose();
    this.flood = flood;
    this.throttled = null;
    const handlers: AgentLinkHandlers = {
      onStdout: (chunk) => {
        this.lastActivity = this.host.options.clock.now();
        flood.take(wire.receive(chunk));
      },
      onStdoutEnd: () => wire.end(),
      onExit: (exit) => void this.onExit(proc, wire, exit).finally(exitDone),
    };
    const proc: AgentLink = this.network ? this.connectTo(launch.command, handlers) : new AgentProcess(this.workHost, launch, this.log, handlers);
    this.proc = proc;
    reader = proc;
    if (this.stopWhileStarting) {
      // Stopped while its launch was being prepared.
      this.stopping = true;
      void proc.stop(this.host.options.stopGraceMs);
    }
    this.conn = this.clientApp().connect(wire.stream);
    const initRequest: InitializeRequest = { protocolVersion: 1, clientCapabilities: CLIENT_CAPABILITIES, clientInfo: CLIENT_INFO };
    try {
      const init = await withTimeout(
        this.conn.agent.request(methods.agent.initialize, initRequest),
        this.host.options.initializeTimeoutMs,
        `the agent did not answer initialize within ${Math.round(this.host.options.initializeTimeoutMs / 1000)} s`,
      );
      if (init.protocolVersion !== 1) {
        throw new Error(`the agent speaks ACP protocol version ${String(init.protocolVersion)}; Switchboard supports 1`);
      }
      this.init = init;
      this.host.rememberCapabilities(this.agentId, init.agentCapabilities ?? {});
      this.authMethods = parseAuthMethods((init as { authMethods?: unknown }).authMethods);
      await this.replayProviders();
      this.startedAt = Date.now();
      this.setState('running');
      if ((this.capabilities?.auth as { status?: unknown } | undefined)?.status) void this.askAuthStatus();
    } catch (e) {
      const exit = proc.exit;
      const message = exit
        ? exit.error
          ? this.network
            ? exit.error
            : describeSpawnFailure(launch, exit, this.hostId)
          : `the agent exited during start-up (${describeExit(exit)}); see its log`
        : e instanceof RequestError
          ? `initialize failed: ${e.message}`
          : (e as Error).message;
      if (this.stopWhileStarting) {
        this.log.write('note', 'stopped while starting');
        await this.exitHandled;
        this.setState('stopped');
        throw new IpcFailure('agent_error', 'the agent was stopped while it was starting');
      }
      this.log.write('note', `start failed: ${message}`);
      this.stopping = true;
      await proc.stop(this.host.options.stopGraceMs);
      await this.exitHandled;
      this.setState('failed', message);
      throw new IpcFailure('agent_error', message);
    }
  }

  /** A network agent's connection, with its stored token (agent-socket.ts). */
  private connectTo(url: string, handlers: AgentLinkHandlers): AgentLink {
    const token = this.host.secrets.all(agentTokenScope(this.agentId))[AGENT_TOKEN_NAME] ?? null;
    const options = { url, token, maxMessageBytes: this.host.options.maxLineBytes, connectTimeoutMs: this.host.options.initializeTimeoutMs, cookies: this.cookies };
    return new AgentSocket(options, this.log, handlers);
  }

  private async onExit(proc: AgentLink, wire: AcpWire, exit: AgentExit): Promise<void> {
    // Everything the agent wrote before it died is handed on first.
    await wire.drained();
    this.conn?.close();
    if (this.proc !== proc) return;
    this.flood?.dispose();
    this.flood = null;
    this.throttled = null;
    this.proc = null;
    this.conn = null;
    this.wire = null;
    this.exitCode = exit.code;
    this.signal = exit.signal;
    const expected = this.stopping;
    const message = expected
      ? 'the agent was stopped'
      : this.network && exit.error
        ? exit.error
        : `the agent exited unexpectedly (${describeExit(exit)})`;
    for (const session of this.host.sessionsOf(this)) session.onAgentGone(message);
    this.bindings.clear();
    if (this.state === 'starting') return; // start() reports the failure
    if (expected) this.setState('stopped');
    else this.setState(exit.error ? 'failed' : 'exited', message);
  }

  async stop(): Promise<void> {
    if (this.starting) {
      // An agent still starting (one that never answers initialize) is ended now, not after the timeout.
      this.stopWhileStarting = true;
      const starting = this.proc;
      if (starting) {
        this.stopping = true;
        await starting.stop(this.host.options.stopGraceMs);
      }
      await this.starting?.catch(() => {});
    }
    const proc = this.proc;
    if (!proc) return;
    this.stopping = true;
    await proc.stop(this.host.options.stopGraceMs);
    await this.exitHandled;
  }

  /** `auth/status` (advertised as auth.status): what the agent says of its sign-in now. */
  async askAuthStatus(): Promise<void> {
    try {
      this.heardAuthStatus(parseAcpAuthStatus(await this.request(unstableMethods.agent.auth.status, {})));
    } catch (e) {
      this.log.write('note', `auth/status failed: ${(e as Error).message}`);
    }
  }

  private heardAuthStatus(next: AgentAuthStatus | null): void {
    if (!next) {
      this.log.write('note', 'an auth status the agent sent has no state Switchboard can read; ignored');
      return;
    }
    const before = this.authStatus;
    this.authStatus = next;
    this.host.statusChanged(this.status());
    if (authLapsed(before, next)) for (const session of this.host.sessionsOf(this)) session.onAuthLapsed(authAccountText(before));
  }

  private clientApp() {
    const host = this.host;
    const agentId = this.agentId;
    return client({ name: 'switchboard' })
      .onRequest(methods.client.session.requestPermission, (ctx) => this.sessionFor(ctx.params.sessionId).requestPermission(ctx.params, ctx.signal))
      .onRequest(methods.client.fs.readTextFile, (ctx) => this.sessionFor(ctx.params.sessionId).readTextFile(ctx.params))
      .onRequest(methods.client.fs.writeTextFile, (ctx) => this.sessionFor(ctx.params.sessionId).writeTextFile(ctx.params))
      .onRequest(methods.client.terminal.create, (ctx) => this.sessionFor(ctx.params.sessionId).createTerminal(ctx.params))
      .onRequest(methods.client.terminal.output, (ctx) => {
        const s = this.sessionFor(ctx.params.sessionId);
        return host.terminals.output(ctx.params.terminalId, s.id);
      })
      .onRequest(methods.client.terminal.waitForExit, (ctx) => {
        const s = this.sessionFor(ctx.params.sessionId);
        return host.terminals.waitForExit(ctx.params.terminalId, s.id, ctx.signal);
      })
      .onRequest(methods.client.terminal.kill, (ctx) => {
        const s = this.sessionFor(ctx.params.sessionId);
        host.terminals.kill(ctx.params.terminalId, s.id);
        return {};
      })
      .onRequest(methods.client.terminal.release, async (ctx) => {
        const s = this.sessionFor(ctx.params.sessionId);
        await host.terminals.release(ctx.params.terminalId, s.id);
        return {};
      })
      .onRequest(methods.client.elicitation.create, (ctx) => {
        const params = ctx.params as CreateElicitationRequest & { sessionId?: unknown };
        if (typeof params.sessionId !== 'string') {
          throw RequestError.invalidParams(undefined, 'Switchboard shows elicitations in a session: this one names no sessionId (request-scoped elicitations are not supported)');
        }
        return this.sessionFor(params.sessionId).createElicitation(ctx.params, ctx.signal);
      })
      .onNotification(methods.client.elicitation.complete, (ctx) => {
        const id = ctx.params.elicitationId;
        // Unknown and already completed ids are ignored, as the protocol asks.
        if (!host.sessionsOf(this).some((s) => s.completeElicitation(id))) this.log.write('note', `elicitation/complete for an unknown elicitation: ${String(id).slice(0, 200)}`);
      })
      .onRequest('*', (ctx) => {
        // Trap 3: unknown requests (Qwen's craft/drainMidTurnQueue…) get -32601 and the session goes on.
        this.log.write('note', `unknown request from the agent: ${ctx.method}`);
        host.warn(agentId, null, 'unknown_request', `the agent called ${ctx.method.slice(0, 200)}, which Switchboard does not implement`);
        throw RequestError.methodNotFound(ctx.method);
      })
      .onNotification('*', (ctx) => {
        if (ctx.method === unstableMethods.client.auth.statusUpdate) return this.heardAuthStatus(parseAcpAuthStatus(ctx.params));
        // Claude Agent 0.101 reports its sign-in with an extension of its own (the same, before the RFD landed).
        if (ctx.method === '_auth/status_update') return this.heardAuthStatus(parseClaudeAuthStatus(ctx.params));
        this.log.write('note', `ignored notification from the agent: ${ctx.method}`);
      });
  }
}

/**
 * The process never started: say so in words (not "exited"), with what to change. On a remote host the words
 * name it: a custom agent's command must be a program there, not here.
 */
export function describeSpawnFailure(launch: AgentLaunch, exit: AgentExit, hostId: string = LOCAL_HOST_ID): string {
  const local = sharesThisMachine(hostId);
  const on = local ? '' : ` on ${hostLabel(hostId)}`;
  if (exit.errorCode === 'ENOENT') {
    // A remote host's folder is not looked at here (its host reports a missing folder in its own words).
    if (local && !existsSync(launch.cwd)) return `could not start: its working folder does not exist (${launch.cwd})`;
    const hint = /\s/.test(launch.command.trim()) ? '; the Command field holds a whole command line: put the program in Command and the rest in Arguments' : '';
    const there = local ? '' : ` (install it there, or change the agent's command to the program's path there)`;
    return `could not start: no such program "${launch.command}"${on}${there}${hint}`;
  }
  if (exit.errorCode === 'EACCES') return `could not start: "${launch.command}"${on} is not allowed to run (is it executable?)`;
  return `could not start: ${exit.error ?? 'the process did not start'}`;
}

export function describeExit(exit: AgentExit): string {
  if (exit.error) return exit.error;
  if (exit.signal) return `signal ${exit.signal}`;
  return `exit code ${exit.code}`;
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
