import { randomUUID, createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { AgentCapabilities, ListSessionsResponse } from '@agentclientprotocol/sdk';
import { createThread, threadFromWire } from '../../../shared/acp-thread';
import { IpcFailure } from '../../../shared/contract';
import { perAgent } from '../../../shared/contract/settings';
import type { AgentSummary } from '../../../shared/contract/agents';
import { AgentRepository, type AgentRecord } from '../agents/agent-repository';
import type { EventBus } from '../base/event-bus';
import type { Disposable } from '../base/lifecycle';
import type { Router } from '../base/router';
import { loginShellEnv } from '../platform/shell-env';
import type { Db } from '../store/database';
import { MessageLog } from '../store/message-log';
import type { StoreService } from '../store/store-service';
import type { SettingsReader } from '../settings/settings-service';
import type { SettingKey, SettingValue } from '../../../shared/contract/settings';
import type { PtyHost } from '../terminals/pty-host';
import { AgentLog } from './connection/agent-log';
import { AgentPrefsRepo } from '../agents/agent-prefs';
import { AgentCapabilitiesRepo } from '../agents/agent-capabilities';
import { AgentRuntime, runtimeKey } from './agent-runtime';
import { FsRefusal } from '../host/files';
import { ConfinedFs } from '../host/local/confined-fs';
import { DEFAULT_ACP_OPTIONS, type AcpOptions } from './options';
import type { RuntimeDeps } from './agent-runtime';
import { LiveSession, type SessionHost } from './session/live-session';
import type { TurnObserver } from './turn-observer';
import { hasStoredConversation, registerRestoreHandlers, reopenModeOf } from './session/restore';
import { canFork } from './session/fork';
import { PermissionRules } from './session/permission-rules';
import { DbSecretStore, KeyFileCipher, type SecretCipher, type SecretStore } from '../agents/secret-store';
import { SessionRows } from './session/session-rows';
import { AgentTerminals } from '../terminals/agent-terminals';
import { WarningLimiter, type WarningKind } from './connection/warnings';
import { AgentSupervisor } from './supervisor/supervisor';
import { McpServers } from '../mcp/mcp-servers';
import { effectiveConfigSchema, type EffectiveConfig } from '../../../shared/contract/session-config';

/** The part of StoreService the service uses (benchmarks pass a plain database). */
export type AcpStore = Pick<StoreService, 'db' | 'available'>;

/** What the service needs from AppCore. */
export interface AcpCoreDeps {
  router: Router;
  bus: EventBus;
  store: AcpStore;
  settings: SettingsReader;
  ptys: PtyHost;
  options: { dataDir: string };
}

export interface AcpServiceOptions extends Partial<AcpOptions> {
  /** Electron: a safeStorage-backed cipher. Default: AES-256-GCM with a key file in the data dir. */
  secretCipher?: SecretCipher;
  /** The app's one MessageLog (there must be one per database). Default: created here on first use. */
  messageLog?: () => MessageLog | null;
  /** Called when this service creates its MessageLog (first use, and again after a store reset): attach indexers here. */
  onMessageLog?: (log: MessageLog) => Disposable | void;
  /** The environment agents and terminals start from. Default: the login shell's. */
  loginEnv?: () => Promise<Record<string, string>>;
  /** Told when each prompt turn starts and ends (checkpoints). */
  turnObserver?: TurnObserver;
}

/** Whether agents get one process per project folder (default) or one for all: a boolean, or { [agentId]: boolean }. */
export const PROCESS_PER_FOLDER_SETTING = 'agents.processPerFolder';

/** Largest file sessions.readFile returns. */
const MAX_VIEW_BYTES = 8 * 1024 * 1024;

/** A confined-file refusal as the renderer's error (other errors pass through). */
function ipcFailureOf(e: unknown): unknown {
  if (!(e instanceof FsRefusal)) return e;
  const code = e.reason === 'outside' ? 'forbidden' : e.reason === 'not_found' ? 'not_found' : e.reason === 'changed' ? 'conflict' : 'invalid_params';
  return new IpcFailure(code, e.message);
}

const safeFileName = (id: string): string =>
  `${id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80)}-${createHash('sha256').update(id).digest('hex').slice(0, 8)}`;

/**
 * The ACP client core: agent processes, their sessions, and every request the renderer makes about them.
 * Knows nothing of the UI: it speaks the contract in src/shared/contract/sessions.ts.
 */
/** Commits of agents' messages are at least this far apart under load (one transaction for all agents). */
const MESSAGE_GROUP_MS = 4;

export class AcpService implements Disposable, RuntimeDeps, SessionHost {
  readonly bus: EventBus;
  readonly options: AcpOptions;
  readonly dataDir: string;
  readonly terminals: AgentTerminals;
  readonly secrets: SecretStore;
  readonly turnObserver: TurnObserver | undefined;
  /** Read here at session/new; written by the MCP service (core/mcp) through the same setting and secrets. */
  readonly mcp: McpServers;
  private readonly store: AcpStore;
  private readonly settings: SettingsReader;
  private readonly runtimes = new Map<string, AgentRuntime>();
  private readonly logs = new Map<string, AgentLog>();
  private readonly sessions = new Map<string, LiveSession>();
  private readonly limiter = new WarningLimiter();
  private ownLog: { db: Db; log: MessageLog; attached: Disposable | void } | null = null;
  private readonly externalLog: (() => MessageLog | null) | undefined;
  private readonly onMessageLog: ((log: MessageLog) => Disposable | void) | undefined;
  private readonly loginEnvFn: () => Promise<Record<string, string>>;
  private disposed = false;
  readonly supervisor: AgentSupervisor;

  constructor(deps: AcpCoreDeps, options: AcpServiceOptions = {}) {
    this.bus = deps.bus;
    this.store = deps.store;
    this.settings = deps.settings;
    this.dataDir = deps.options.dataDir;
    this.options = {
      maxLineBytes: options.maxLineBytes ?? DEFAULT_ACP_OPTIONS.maxLineBytes,
      initializeTimeoutMs: options.initializeTimeoutMs ?? DEFAULT_ACP_OPTIONS.initializeTimeoutMs,
      stopGraceMs: options.stopGraceMs ?? DEFAULT_ACP_OPTIONS.stopGraceMs,
      agentHost: options.agentHost ?? DEFAULT_ACP_OPTIONS.agentHost,
      clock: options.clock ?? DEFAULT_ACP_OPTIONS.clock,
    };
    this.externalLog = options.messageLog;
    this.turnObserver = options.turnObserver;
    this.onMessageLog = options.onMessageLog;
    this.loginEnvFn = options.loginEnv ?? (() => loginShellEnv());
    this.terminals = new AgentTerminals(deps.ptys, deps.bus);
    this.secrets = new DbSecretStore(() => this.db(), options.secretCipher ?? new KeyFileCipher(join(this.dataDir, 'secret.key')));
    this.mcp = new McpServers(
      {
        read: () => this.setting('mcp.servers'),
        write: () => {
          throw new Error('the ACP service does not write MCP servers');
        },
      },
      this.secrets,
    );
    registerHandlers(deps.router, this);
    this.supervisor = new AgentSupervisor(this, { clock: this.options.clock });
    deps.router.handle('agents.metrics', () => ({ agents: this.supervisor.metrics() }));
  }

  /** Every agent runtime created so far (the supervisor watches them). */
  allRuntimes(): AgentRuntime[] {
    return [...this.runtimes.values()];
  }

  // ───────────── RuntimeDeps, SessionHost ─────────────

  db(): Db {
    return this.store.db;
  }

  messageLog(): MessageLog | null {
    if (this.externalLog) return this.externalLog();
    if (!this.store.available) return null;
    const db = this.store.db;
    if (this.ownLog?.db !== db) {
      this.ownLog?.log.flush();
      void this.ownLog?.attached?.dispose();
      const log = new MessageLog(db, { groupMs: MESSAGE_GROUP_MS });
      this.ownLog = { db, log, attached: this.onMessageLog?.(log) };
    }
    return this.ownLog.log;
  }

  agents(): AgentRepository {
    return new AgentRepository(this.db());
  }
  capabilitiesRepo(): AgentCapabilitiesRepo {
    return new AgentCapabilitiesRepo(this.db());
  }
  rememberCapabilities(agentId: string, caps: AgentCapabilities): void {
    try {
      this.capabilitiesRepo().set(agentId, caps);
    } catch (e) {
      this.agentLog(agentId).write('note', `could not store the agent's capabilities: ${(e as Error).message}`);
    }
  }
  /** The capabilities of the running agent, else those its last start reported (null: never started). */
  knownCapabilities(agentId: string): AgentCapabilities | null {
    const rt = this.runtimesOf(agentId).find((r) => r.connected);
    if (rt) return rt.capabilities;
    try {
      return this.capabilitiesRepo().get(agentId);
    } catch {
      return null;
    }
  }
  prefs(): AgentPrefsRepo {
    return new AgentPrefsRepo(this.db());
  }
  rules(): PermissionRules {
    return new PermissionRules(this.db());
  }
  rows(): SessionRows {
    return new SessionRows(this.db());
  }
  setting<K extends SettingKey>(key: K): SettingValue<K> {
    return this.settings.get(key);
  }
  loginEnv(): Promise<Record<string, string>> {
    return this.loginEnvFn();
  }
  mcpFor(agentId: string, capabilities: AgentRuntime['capabilities']) {
    return this.mcp.forAgent(agentId, capabilities);
  }
  agentEnvKeys(agentId: string): string[] {
    const record = this.agents().get(agentId);
    const prefs = this.prefs().get(agentId);
    return [...new Set([...Object.keys(record?.env ?? {}), ...Object.keys(prefs.env), ...this.secrets.names(agentId)])].sort();
  }
  recordConfig(sessionId: string, config: EffectiveConfig): void {
    this.rows().setEffectiveConfig(sessionId, JSON.stringify(config));
  }
  effectiveConfig(sessionId: string): EffectiveConfig | null {
    const raw = this.rows().effectiveConfig(sessionId);
    if (raw === undefined) throw new IpcFailure('not_found', `no session ${sessionId}`);
    if (raw === null) return null;
    const parsed = effectiveConfigSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  }
  session(id: string): LiveSession | undefined {
    return this.sessions.get(id);
  }
  sessionsOfAgent(agentId: string): LiveSession[] {
    return [...this.sessions.values()].filter((s) => s.agentId === agentId);
  }
  sessionsOf(rt: AgentRuntime): LiveSession[] {
    return [...this.sessions.values()].filter((s) => s.runtime === rt);
  }
  forgetSession(id: string): void {
    this.sessions.delete(id);
  }

  warn(agentId: string, sessionId: string | null, kind: WarningKind, message: string): void {
    this.agentLog(agentId).write('warning', `${kind}${sessionId ? ` [${sessionId}]` : ''}: ${message}`);
    const verdict = this.limiter.check(`${agentId}\0${sessionId ?? ''}\0${kind}`);
    if (verdict === 'drop') return;
    const ts = Date.now();
    if (verdict === 'suppress') {
      this.bus.emit('session.warning', { sessionId, agentId, kind: 'suppressed', message: `more "${kind}" warnings from this agent are only in its log`, ts });
      return;
    }
    this.bus.emit('session.warning', { sessionId, agentId, kind, message, ts });
  }

  // ───────────── agents ─────────────

  agentLog(agentId: string): AgentLog {
    let log = this.logs.get(agentId);
    if (!log) {
      log = new AgentLog(join(this.dataDir, 'logs', 'agents', `${safeFileName(agentId)}.log`));
      this.logs.set(agentId, log);
    }
    return log;
  }

  /** The agent's own process (its working folder, or home): sign-in, session lists, starting it by hand. */
  runtime(agentId: string): AgentRuntime {
    return this.runtimeIn(agentId, null);
  }

  private runtimeIn(agentId: string, folder: string | null): AgentRuntime {
    const key = runtimeKey(agentId, folder);
    let rt = this.runtimes.get(key);
    if (!rt) {
      rt = new AgentRuntime(agentId, this, this.agentLog(agentId), this.supervisor, folder);
      this.runtimes.set(key, rt);
    }
    return rt;
  }

  /**
   * The process that serves the agent's sessions in `cwd`: by default one per agent and project folder,
   * started in that folder (some agents confine their tools to the folder they started in), as other ACP
   * clients do. One process for all folders when the setting `agents.processPerFolder` says so for this
   * agent (false, or { [agentId]: false }), or when the agent has a working folder of its own.
   */
  runtimeFor(agentId: string, cwd: string | null): AgentRuntime {
    if (cwd === null || !this.processPerFolder(agentId)) return this.runtime(agentId);
    return this.runtimeIn(agentId, cwd);
  }

  private processPerFolder(agentId: string): boolean {
    if (this.agents().get(agentId)?.cwd) return false;
    const v = this.setting(PROCESS_PER_FOLDER_SETTING);
    return typeof v === 'boolean' ? v : perAgent(v, agentId, true);
  }

  runtimesOf(agentId: string): AgentRuntime[] {
    return [...this.runtimes.values()].filter((rt) => rt.agentId === agentId);
  }

  /** A process of the agent by its key (the supervisor restarts one process). */
  runtimeByKey(key: string): AgentRuntime | undefined {
    return this.runtimes.get(key);
  }

  private record(agentId: string): AgentRecord {
    const record = this.agents().get(agentId);
    if (!record) throw new IpcFailure('not_found', `no agent ${agentId}`);
    return record;
  }

  summary(record: AgentRecord): AgentSummary {
    const prefs = this.prefs().get(record.id);
    return {
      id: record.id,
      name: record.name,
      source: record.source,
      command: record.command,
      args: record.args,
      env: record.env,
      cwd: record.cwd,
      version: record.version,
      registryId: record.registryId,
      overrides: { args: prefs.args, env: prefs.env },
      compat: prefs.compat,
      storedSecrets: this.secrets.names(record.id),
      status: this.runtime(record.id).status(),
      folderProcesses: this.runtimesOf(record.id)
        .filter((rt) => rt.folder !== null)
        .map((rt) => rt.status()),
    };
  }

  listAgents(): AgentSummary[] {
    return this.agents()
      .list()
      .map((r) => this.summary(r));
  }

  addCustom(p: { name: string; command: string; args: string[]; env: Record<string, string>; cwd: string | null }): AgentSummary {
    const record = this.agents().upsert({
      id: `custom-${randomUUID()}`,
      name: p.name,
      source: 'custom',
      command: p.command,
      args: p.args,
      env: p.env,
      cwd: p.cwd,
      version: null,
      registryId: null,
    });
    return this.summary(record);
  }

  updateAgent(p: {
    agentId: string;
    name?: string;
    command?: string;
    cwd?: string | null;
    args?: string[] | null;
    env?: Record<string, string>;
    compat?: Partial<AgentSummary['compat']>;
  }): AgentSummary {
    const record = this.record(p.agentId);
    const prefs = this.prefs().get(record.id);
    if (record.source === 'custom') {
      this.agents().upsert({
        ...record,
        name: p.name ?? record.name,
        command: p.command ?? record.command,
        cwd: p.cwd === undefined ? record.cwd : p.cwd,
        args: p.args === undefined ? record.args : (p.args ?? []),
        env: p.env ?? record.env,
      });
    } else {
      if (p.name !== undefined || p.command !== undefined || p.cwd !== undefined) {
        throw new IpcFailure('forbidden', 'only args, env and compat can be changed for an installed agent');
      }
      if (record.source === 'registry' && (p.args !== undefined || p.env !== undefined)) {
        // The registry keeps its own overrides (they survive updates and rollbacks) and writes the agents row.
        throw new IpcFailure('forbidden', 'change the args and env of a registry agent with registry.setOverrides');
      }
      if (p.args !== undefined) prefs.args = p.args;
      if (p.env !== undefined) prefs.env = p.env;
    }
    if (p.compat) prefs.compat = { ...prefs.compat, ...p.compat };
    this.prefs().set(record.id, prefs);
    return this.summary(this.record(record.id));
  }

  async removeAgent(agentId: string): Promise<void> {
    this.record(agentId);
    for (const s of this.sessionsOfAgent(agentId)) await s.close();
    for (const rt of this.runtimesOf(agentId)) {
      await rt.stop();
      this.runtimes.delete(rt.key);
    }
    this.agents().remove(agentId);
    this.prefs().remove(agentId);
    this.capabilitiesRepo().remove(agentId);
    this.secrets.delete(agentId);
    this.rules().removeAgent(agentId);
  }

  async startAgent(agentId: string) {
    this.record(agentId);
    const rt = this.runtime(agentId);
    await rt.ensureStarted();
    return rt.status();
  }

  /** Restarts the agent's processes that run or serve sessions (its own process when none does). */
  async restartAgent(agentId: string): Promise<{ resumedSessions: string[] }> {
    this.record(agentId);
    const busy = this.runtimesOf(agentId).filter((rt) => rt.connected || rt.state === 'starting' || this.sessionsOf(rt).length > 0);
    const resumedSessions: string[] = [];
    for (const rt of busy.length > 0 ? busy : [this.runtime(agentId)]) resumedSessions.push(...(await this.restartRuntime(rt)));
    return { resumedSessions };
  }

  /** Restarts one process of an agent and brings back its sessions that failed or never started. */
  async restartRuntime(rt: AgentRuntime): Promise<string[]> {
    await rt.stop();
    await rt.ensureStarted();
    const resumed: string[] = [];
    for (const s of this.sessionsOf(rt)) {
      if (s.status === 'failed' || (s.status === 'auth_required' && s.acpSessionId === null)) {
        if (await s.reopen()) resumed.push(s.id);
      }
    }
    return resumed;
  }

  async authenticate(p: { agentId: string; methodId: string; values?: Record<string, string>; cols?: number; rows?: number }) {
    this.record(p.agentId);
    // The processes whose sessions wait for sign-in (else the agent's own): each is told.
    const waiting = this.runtimesOf(p.agentId).filter((r) => this.sessionsOf(r).some((x) => x.status === 'auth_required'));
    const targets = waiting.length > 0 ? waiting : [this.runtime(p.agentId)];
    const rt = targets[0]!;
    await rt.ensureStarted();
    const method = rt.authMethods.find((m) => m.id === p.methodId);
    if (!method) throw new IpcFailure('not_found', `the agent offers no authentication method ${p.methodId}`);
    const authenticateAll = async () => {
      for (const t of targets) {
        await t.ensureStarted();
        await t.request('authenticate', { methodId: method.id }).catch((e: Error) => {
          throw new IpcFailure('agent_error', `authentication failed: ${e.message}`);
        });
      }
    };
    switch (method.type) {
      case 'agent':
        await authenticateAll();
        await this.afterAuthentication(p.agentId);
        return { kind: 'authenticated' as const };
      case 'env_var': {
        const values = p.values ?? {};
        const stored = new Set(this.secrets.names(p.agentId));
        for (const v of method.vars) {
          if (!v.optional && !values[v.name] && !stored.has(v.name)) throw new IpcFailure('invalid_params', `a value for ${v.name} is needed`);
        }
        const allowed = new Set(method.vars.map((v) => v.name));
        for (const [name, value] of Object.entries(values)) {
          if (!allowed.has(name)) throw new IpcFailure('invalid_params', `${name} is not a variable of this method`);
          if (value) this.secrets.set(p.agentId, name, value);
        }
        // Environment variables are read at start: restart with them, then authenticate.
        for (const t of targets) await this.restartRuntime(t);
        await authenticateAll();
        await this.afterAuthentication(p.agentId);
        return { kind: 'authenticated' as const };
      }
      case 'terminal': {
        const launch = rt.launch;
        if (!launch) throw new IpcFailure('unavailable', 'the agent is not running');
        const args = [...launch.args, ...method.args];
        const terminalId = this.terminals.createAuth(
          p.agentId,
          { command: launch.command, args, env: { ...launch.env, ...method.env, TERM: 'xterm-256color' }, cwd: launch.cwd, cols: p.cols, rows: p.rows },
          (exit) => {
            if (exit.exitCode === 0) {
              void this.restartAgent(p.agentId)
                .then(() => this.afterAuthentication(p.agentId))
                .catch((e: Error) => this.warn(p.agentId, null, 'store_error', `restart after authentication failed: ${e.message}`));
            } else {
              this.agentLog(p.agentId).write('note', `terminal authentication ended with ${exit.exitCode ?? exit.signal}`);
            }
          },
        );
        return { kind: 'terminal' as const, terminalId, command: launch.command, args };
      }
    }
  }

  private async afterAuthentication(agentId: string): Promise<void> {
    for (const s of this.sessionsOfAgent(agentId)) await s.retryAfterAuth();
  }

  async logout(agentId: string): Promise<void> {
    this.record(agentId);
    const running = this.runtimesOf(agentId).filter((rt) => rt.connected);
    for (const rt of running) {
      if (!rt.capabilities?.auth?.logout) continue;
      await rt.request('logout', {}).catch((e: Error) => {
        throw new IpcFailure('agent_error', `logout failed: ${e.message}`);
      });
    }
    if (this.secrets.delete(agentId) > 0 && running.length > 0) await this.restartAgent(agentId);
  }

  // ───────────── sessions ─────────────

  listLive() {
    return [...this.sessions.values()].map((s) => s.info());
  }

  live(sessionId: string): LiveSession {
    const s = this.sessions.get(sessionId);
    if (!s) throw new IpcFailure('not_found', `no live session ${sessionId}`);
    return s;
  }

  /**
   * A new session (session/new). It is live, as `starting`, from the call on, under `p.sessionId` when the
   * client chose it: closing or cancelling it while the agent starts or answers withdraws it, and a
   * withdrawn session leaves no row behind.
   */
  async createSession(p: { agentId: string; cwd: string; additionalDirectories: string[]; sessionId?: string | undefined }) {
    if (this.disposed) throw new IpcFailure('unavailable', 'shutting down');
    this.record(p.agentId);
    for (const dir of [p.cwd, ...p.additionalDirectories]) {
      if (!isAbsolute(dir) || !existsSync(dir) || !statSync(dir).isDirectory()) throw new IpcFailure('not_found', `no such folder: ${dir}`);
    }
    const id = p.sessionId ?? randomUUID();
    if (this.sessions.has(id) || this.rows().exists(id)) throw new IpcFailure('conflict', `a session ${id} already exists`);
    const rt = this.runtimeFor(p.agentId, p.cwd);
    this.rows().insert({ id, agentId: p.agentId, cwd: p.cwd, status: 'starting', now: Date.now() });
    const session = new LiveSession(id, rt, this, p.cwd, p.additionalDirectories);
    this.sessions.set(id, session);
    let started = false;
    try {
      // The agent may start slowly (or never): giving up does not wait for it.
      const starting = rt.ensureStarted().then(() => true);
      starting.catch(() => {});
      started = await Promise.race([starting, session.whenWithdrawn().then(() => false)]);
      if (session.withdrawn) throw new IpcFailure('agent_error', 'session/new was cancelled');
      await session.open('new');
    } catch (e) {
      this.sessions.delete(id);
      session.abandon();
      // Nothing of it exists at the agent (the user gave up, or the agent did not start): nothing is kept.
      if (session.withdrawn || !started) this.forgetUncreated(rt, id);
      throw e;
    }
    return session.info();
  }

  /** Deletes a session the agent never created, with the messages of its withdrawn session/new. */
  private forgetUncreated(rt: AgentRuntime, id: string): void {
    rt.forgetNewSession(id);
    try {
      // Its messages still queued are written first (the row they belong to must exist until then).
      this.messageLog()?.flush();
      this.rows().deleteUncreated(id);
    } catch (e) {
      this.warn(rt.agentId, id, 'store_error', `could not forget a withdrawn session: ${(e as Error).message}`);
    }
  }

  /** The session's folders, for confined access (live session: its roots; stored: its folder). */
  private async sessionFs(sessionId: string): Promise<ConfinedFs> {
    let roots: readonly string[];
    const live = this.sessions.get(sessionId);
    if (live) {
      roots = [live.cwd, ...live.additionalDirectories];
    } else {
      const row = this.db().prepare('SELECT cwd FROM sessions WHERE id = ?').get(sessionId) as { cwd: string } | undefined;
      if (!row) throw new IpcFailure('not_found', `no session ${sessionId}`);
      roots = [row.cwd];
    }
    try {
      return await ConfinedFs.open(roots);
    } catch {
      throw new IpcFailure('not_found', `the session's folder is gone`);
    }
  }

  /** A stored session back on its agent: resumed when the agent can, else loaded (replayed). */
  async reopenSession(sessionId: string) {
    const live = this.sessions.get(sessionId);
    if (live && live.status !== 'failed') return live.info();
    const row = this.db().prepare('SELECT agent_id, acp_session_id, cwd, title FROM sessions WHERE id = ? AND deleted_at IS NULL').get(sessionId) as
      | { agent_id: string; acp_session_id: string | null; cwd: string; title: string | null }
      | undefined;
    if (!row) throw new IpcFailure('not_found', `no session ${sessionId}`);
    if (!row.acp_session_id) throw new IpcFailure('unavailable', 'the agent never created this session');
    this.record(row.agent_id);
    const rt = this.runtimeFor(row.agent_id, row.cwd);
    await rt.ensureStarted();
    const mode = reopenModeOf(rt.capabilities);
    if (!mode) throw new IpcFailure('unavailable', 'this agent can neither resume nor load sessions');
    if (!existsSync(row.cwd)) throw new IpcFailure('not_found', `the session's folder is gone: ${row.cwd}`);
    const session = new LiveSession(sessionId, rt, this, row.cwd, []);
    session.acpSessionId = row.acp_session_id;
    session.forkedFrom = this.rows().forkedFrom(sessionId);
    // The thread starts from the stored messages. Resumed: the agent does not replay. Loaded: the replay
    // is dropped when the store has the conversation (else, e.g. an imported session, it is the conversation).
    const log = this.messageLog();
    const stored = log ? log.read(sessionId) : [];
    const known = hasStoredConversation(stored);
    const thread = mode === 'resume' || known ? threadFromWire(stored) : createThread();
    session.seed(thread, row.title);
    if (mode === 'load' && known) rt.skipReplay(sessionId, thread);
    this.sessions.set(sessionId, session);
    try {
      await session.open(mode);
    } catch (e) {
      this.sessions.delete(sessionId);
      session.abandon();
      throw e;
    }
    return session.info();
  }

  /**
   * A new live session the agent forks from an idle one (session/fork): same agent process, folders and MCP
   * servers; the fork goes on from the whole conversation so far (ACP has no fork point). Linked to its
   * parent in the store (history shows both ways).
   */
  async forkSession(parentId: string) {
    if (this.disposed) throw new IpcFailure('unavailable', 'shutting down');
    const parent = this.live(parentId);
    if (!canFork(parent.runtime.capabilities)) throw new IpcFailure('unavailable', 'this agent does not support forking sessions');
    if (parent.acpSessionId === null || parent.status !== 'idle') throw new IpcFailure('conflict', `the session is ${parent.status}: fork it once it is idle`);
    if (!parent.runtime.connected) throw new IpcFailure('unavailable', 'the agent is not running');
    const id = randomUUID();
    this.rows().insert({ id, agentId: parent.agentId, cwd: parent.cwd, status: 'starting', now: Date.now(), forkedFrom: parent.id });
    const session = new LiveSession(id, parent.runtime, this, parent.cwd, parent.additionalDirectories);
    session.forkSource = parent.acpSessionId;
    session.forkedFrom = this.rows().forkedFrom(id);
    this.sessions.set(id, session);
    try {
      await session.open('fork');
    } catch (e) {
      this.sessions.delete(id);
      session.abandon();
      throw e;
    }
    return session.info();
  }

  /** A file inside a session's roots, for the renderer. */
  async readSessionFile(sessionId: string, path: string): Promise<{ path: string; content: string }> {
    const fs = await this.sessionFs(sessionId);
    try {
      const { real, data } = await fs.readFile(path, { maxBytes: MAX_VIEW_BYTES });
      return { path: real, content: data.toString('utf8') };
    } catch (e) {
      throw ipcFailureOf(e);
    }
  }

  /** session/list of the agent (when advertised). */
  async listAgentSessions(agentId: string, cwd?: string, cursor?: string) {
    this.record(agentId);
    const rt = this.runtimeFor(agentId, cwd ?? null);
    await rt.ensureStarted();
    if (!rt.capabilities?.sessionCapabilities?.list) throw new IpcFailure('unavailable', 'this agent does not list its sessions');
    const res = await rt
      .request<ListSessionsResponse>('session/list', { ...(cwd ? { cwd } : {}), ...(cursor ? { cursor } : {}) })
      .catch((e: Error) => {
        throw new IpcFailure('agent_error', e.message);
      });
    return { sessions: Array.isArray(res?.sessions) ? res.sessions : [], nextCursor: typeof res?.nextCursor === 'string' ? res.nextCursor : null };
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.supervisor.dispose();
    for (const s of [...this.sessions.values()]) await s.close(false).catch(() => {});
    await Promise.all([...this.runtimes.values()].map((rt) => rt.stop().catch(() => {})));
    await this.terminals.dispose();
    this.ownLog?.log.flush();
    void this.ownLog?.attached?.dispose();
    for (const log of this.logs.values()) log.dispose();
  }
}

function registerHandlers(router: Router, acp: AcpService): void {
  router.handle('agents.list', () => ({ agents: acp.listAgents() }));
  router.handle('agents.addCustom', (p) => acp.addCustom(p));
  router.handle('agents.update', (p) => acp.updateAgent(p));
  router.handle('agents.remove', async ({ agentId }) => {
    await acp.removeAgent(agentId);
    return {};
  });
  router.handle('agents.start', ({ agentId }) => acp.startAgent(agentId));
  router.handle('agents.stop', async ({ agentId }) => {
    await Promise.all(acp.runtimesOf(agentId).map((rt) => rt.stop()));
    return {};
  });
  router.handle('agents.restart', async ({ agentId }) => {
    const { resumedSessions } = await acp.restartAgent(agentId);
    return { status: acp.runtime(agentId).status(), resumedSessions };
  });
  router.handle('agents.log', ({ agentId, maxBytes }) => {
    const log = acp.agentLog(agentId);
    return { ...log.tail(maxBytes ?? 256 * 1024), path: log.path };
  });
  router.handle('agents.authenticate', (p) => acp.authenticate(p));
  router.handle('agents.logout', async ({ agentId }) => {
    await acp.logout(agentId);
    return {};
  });

  router.handle('sessions.create', (p) => acp.createSession(p));
  router.handle('sessions.fork', ({ sessionId }) => acp.forkSession(sessionId));
  router.handle('sessions.prompt', ({ sessionId, prompt }) => acp.live(sessionId).prompt(prompt));
  router.handle('sessions.cancel', ({ sessionId, clearQueue }) => {
    acp.live(sessionId).cancel(clearQueue);
    return {};
  });
  router.handle('sessions.setMode', async ({ sessionId, modeId }) => {
    await acp.live(sessionId).setMode(modeId);
    return {};
  });
  router.handle('sessions.setConfigOption', async ({ sessionId, configId, value }) => ({
    configOptions: await acp.live(sessionId).setConfigOption(configId, value),
  }));
  router.handle('sessions.respondElicitation', (p) => {
    acp.live(p.sessionId).respondElicitation(p.requestId, p.action, p.action === 'accept' ? p.content : undefined);
    return {};
  });
  router.handle('sessions.respondPermission', (p) => {
    acp.live(p.sessionId).respondPermission(p.requestId, p.outcome === 'selected' ? { outcome: 'selected', optionId: p.optionId, confirmMismatch: p.confirmMismatch === true } : { outcome: 'cancelled' });
    return {};
  });
  router.handle('sessions.queue.list', ({ sessionId }) => ({ items: acp.live(sessionId).queueItems() }));
  router.handle('sessions.queue.update', ({ sessionId, itemId, prompt }) => ({ items: acp.live(sessionId).updateQueued(itemId, prompt) }));
  router.handle('sessions.queue.remove', ({ sessionId, itemId }) => ({ items: acp.live(sessionId).removeQueued(itemId) }));
  router.handle('sessions.queue.move', ({ sessionId, itemId, toIndex }) => ({ items: acp.live(sessionId).moveQueued(itemId, toIndex) }));
  router.handle('sessions.queue.clear', ({ sessionId }) => ({ items: acp.live(sessionId).clearQueue() }));
  router.handle('sessions.close', async ({ sessionId }) => {
    await acp.live(sessionId).close();
    return {};
  });
  router.handle('sessions.state', ({ sessionId, tail }) => acp.live(sessionId).snapshot(tail));
  router.handle('sessions.entries', ({ sessionId, from, count }) => acp.live(sessionId).entries(from, count));
  router.handle('sessions.toolIndex', ({ sessionId }) => acp.live(sessionId).toolIndex());
  router.handle('sessions.effectiveConfig', ({ sessionId }) => ({ config: acp.effectiveConfig(sessionId) }));
  router.handle('sessions.reopen', ({ sessionId }) => acp.reopenSession(sessionId));
  registerRestoreHandlers(router, acp);
  router.handle('agents.listSessions', ({ agentId, cwd, cursor }) => acp.listAgentSessions(agentId, cwd, cursor));
  router.handle('sessions.live', () => ({ sessions: acp.listLive() }));
  router.handle('sessions.mentionSearch', ({ sessionId, query, limit }) => acp.live(sessionId).mentionSearch(query, limit));
  router.handle('sessions.readFile', ({ sessionId, path }) => acp.readSessionFile(sessionId, path));
  router.handle('permissionRules.list', ({ agentId }) => ({ rules: acp.rules().list(agentId) }));
  router.handle('permissionRules.set', ({ agentId, toolKind, decision }) => {
    if (!acp.agents().get(agentId)) throw new IpcFailure('not_found', `no agent ${agentId}`);
    const rules = acp.rules();
    rules.set(agentId, toolKind, decision);
    return { rule: rules.find(agentId, toolKind)! };
  });
  router.handle('permissionRules.remove', ({ id }) => {
    if (!acp.rules().remove(id)) throw new IpcFailure('not_found', `no permission rule ${id}`);
    return {};
  });
  router.handle('agentTerminal.snapshot', ({ terminalId }) => acp.terminals.snapshot(terminalId));
  router.handle('agentTerminal.write', ({ terminalId, data }) => {
    acp.terminals.write(terminalId, data);
    return {};
  });
  router.handle('agentTerminal.resize', ({ terminalId, cols, rows }) => {
    acp.terminals.resize(terminalId, cols, rows);
    return {};
  });
  router.handle('agentTerminal.kill', ({ terminalId }) => {
    acp.terminals.killAuth(terminalId);
    return {};
  });
}

/** Builds the ACP client service on an AppCore and registers its requests. Own the result (core.own). */
export function registerAcpService(core: AcpCoreDeps, options: AcpServiceOptions = {}): AcpService {
  return new AcpService(core, options);
}
