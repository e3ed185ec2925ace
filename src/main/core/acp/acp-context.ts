import type { ContainerChoice } from '../../../shared/contract/containers';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { AgentCapabilities } from '@agentclientprotocol/sdk';
import type { SettingKey, SettingValue } from '../../../shared/contract/settings';
import { AgentCapabilitiesRepo } from '../agents/agent-capabilities';
import { AgentPrefsRepo } from '../agents/agent-prefs';
import { AgentRepository } from '../agents/agent-repository';
import { DbSecretStore, KeyFileCipher, type SecretCipher, type SecretStore } from '../agents/secret-store';
import type { EventBus } from '../base/event-bus';
import type { Disposable } from '../base/lifecycle';
import type { Hosts } from '../host/hosts';
import { McpServers, type McpSelection } from '../mcp/mcp-servers';
import { loginShellEnv } from '../platform/shell-env';
import type { SettingsReader } from '../settings/settings-service';
import type { Db } from '../store/database';
import { MessageLog } from '../store/message-log';
import type { StoreService } from '../store/store-service';
import { AgentTerminals } from '../terminals/agent-terminals';
import type { PtyHost } from '../terminals/pty-host';
import { AgentLog } from './connection/agent-log';
import { WarningLimiter, type WarningKind } from './connection/warnings';
import { DEFAULT_ACP_OPTIONS, type AcpOptions } from './options';
import { PermissionRules } from './session/permission-rules';
import { SessionRows } from './session/session-rows';

/** The part of StoreService the ACP services use (benchmarks pass a plain database). */
export type AcpStore = Pick<StoreService, 'db' | 'available'>;

/** What the ACP services need from AppCore. */
export interface AcpCoreDeps {
  bus: EventBus;
  store: AcpStore;
  settings: SettingsReader;
  ptys: PtyHost;
  /** Where agents run and sessions' files are (a session's host is its runtime's). */
  hosts: Hosts;
  options: { dataDir: string };
  /** Where a session asked to run in a container runs (absent: containers are not available). */
  placement?: SessionPlacement;
}

/** A new session's place when it asked for a container: its host id, and what is stored to make it again. */
export interface SessionPlacement {
  place(p: { sessionId: string; agentId: string; hostId: string; cwd: string; additionalDirectories: readonly string[]; container: ContainerChoice }): Promise<{ hostId: string; stored: string }>;
  /** The session was never created (its agent did not start, or the user gave up): its container is removed. */
  abandon(hostId: string): Promise<void>;
}

export interface AcpContextOptions extends Partial<AcpOptions> {
  /** Electron: a safeStorage-backed cipher. Default: AES-256-GCM with a key file in the data dir. */
  secretCipher?: SecretCipher;
  /** The app's one MessageLog (there must be one per database). Default: created here on first use. */
  messageLog?: () => MessageLog | null;
  /** Called when the context creates its MessageLog (first use, and again after a store reset): attach indexers here. */
  onMessageLog?: (log: MessageLog) => Disposable | void;
  /** The environment agents and terminals start from. Default: the login shell's. */
  loginEnv?: () => Promise<Record<string, string>>;
}

/** Commits of agents' messages are at least this far apart under load (one transaction for all agents). */
const MESSAGE_GROUP_MS = 4;

const safeFileName = (id: string): string =>
  `${id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80)}-${createHash('sha256').update(id).digest('hex').slice(0, 8)}`;

/**
 * What the agents service, the sessions service and the runtime pool share: the store's repositories, the
 * message log, settings, secrets, MCP servers, agent terminals, each agent's log and its warnings.
 */
export class AcpContext implements Disposable {
  readonly bus: EventBus;
  readonly hosts: Hosts;
  readonly options: AcpOptions;
  readonly dataDir: string;
  readonly terminals: AgentTerminals;
  readonly secrets: SecretStore;
  /** Read here at session/new; written by the MCP service (core/mcp) through the same setting and secrets. */
  readonly mcp: McpServers;
  readonly placement: SessionPlacement | undefined;
  private readonly store: AcpStore;
  private readonly settings: SettingsReader;
  private readonly logs = new Map<string, AgentLog>();
  private readonly limiter = new WarningLimiter();
  private ownLog: { db: Db; log: MessageLog; attached: Disposable | void } | null = null;
  private readonly externalLog: (() => MessageLog | null) | undefined;
  private readonly onMessageLog: ((log: MessageLog) => Disposable | void) | undefined;
  private readonly loginEnvFn: () => Promise<Record<string, string>>;

  constructor(deps: AcpCoreDeps, options: AcpContextOptions = {}) {
    this.bus = deps.bus;
    this.hosts = deps.hosts;
    this.placement = deps.placement;
    this.store = deps.store;
    this.settings = deps.settings;
    this.dataDir = deps.options.dataDir;
    this.options = {
      maxLineBytes: options.maxLineBytes ?? DEFAULT_ACP_OPTIONS.maxLineBytes,
      initializeTimeoutMs: options.initializeTimeoutMs ?? DEFAULT_ACP_OPTIONS.initializeTimeoutMs,
      stopGraceMs: options.stopGraceMs ?? DEFAULT_ACP_OPTIONS.stopGraceMs,
      clock: options.clock ?? DEFAULT_ACP_OPTIONS.clock,
    };
    this.externalLog = options.messageLog;
    this.onMessageLog = options.onMessageLog;
    this.loginEnvFn = options.loginEnv ?? (() => loginShellEnv());
    this.terminals = new AgentTerminals(deps.ptys, deps.bus);
    this.secrets = new DbSecretStore(() => this.db(), options.secretCipher ?? new KeyFileCipher(join(this.dataDir, 'secret.key')));
    this.mcp = new McpServers(
      {
        read: () => this.setting('mcp.servers'),
        write: () => {
          throw new Error('the ACP services do not write MCP servers');
        },
      },
      this.secrets,
    );
  }

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
  mcpFor(agentId: string, capabilities: AgentCapabilities | null): McpSelection {
    return this.mcp.forAgent(agentId, capabilities);
  }

  /** Remembers what the agent's `initialize` answered (how its sessions can come back, without starting it). */
  rememberCapabilities(agentId: string, caps: AgentCapabilities): void {
    try {
      this.capabilitiesRepo().set(agentId, caps);
    } catch (e) {
      this.agentLog(agentId).write('note', `could not store the agent's capabilities: ${(e as Error).message}`);
    }
  }

  /** Names of the variables Switchboard sets on the agent's process. */
  agentEnvKeys(agentId: string): string[] {
    const record = this.agents().get(agentId);
    const prefs = this.prefs().get(agentId);
    return [...new Set([...Object.keys(record?.env ?? {}), ...Object.keys(prefs.env), ...this.secrets.names(agentId)])].sort();
  }

  agentLog(agentId: string): AgentLog {
    let log = this.logs.get(agentId);
    if (!log) {
      log = new AgentLog(join(this.dataDir, 'logs', 'agents', `${safeFileName(agentId)}.log`));
      this.logs.set(agentId, log);
    }
    return log;
  }

  /** Into the agent's log, and to the renderer unless the same warning came too often. */
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

  async dispose(): Promise<void> {
    await this.terminals.dispose();
    this.ownLog?.log.flush();
    void this.ownLog?.attached?.dispose();
    for (const log of this.logs.values()) log.dispose();
  }
}
