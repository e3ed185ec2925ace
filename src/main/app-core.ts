import { mkdtempSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppInfo } from '../shared/contract/app';
import { IpcFailure } from '../shared/contract/failure';
import { replyTo } from '../shared/acp-thread';
import { checkExternalLink } from '../shared/links';
import { AcpServices } from './core/acp/acp-services';
import type { SecretCipher } from './core/agents/secret-store';
import type { Clock } from './core/base/clock';
import { registerShellService } from './core/terminals/shell-service';
import { PtyHost } from './core/terminals/pty-host';
import { StoreService } from './core/store/store-service';
import { BackupService } from './core/store/backup';
import { CompareService } from './core/compare/compare-service';
import { repoSetting, WorktreeService } from './core/worktrees/worktree-service';
import { isInside, realish } from './core/worktrees/folder';
import { CheckpointService } from './core/checkpoints/checkpoint-service';
import { registerChildChanges } from './child-changes-wiring';
import { HistoryService } from './core/history/history-service';
import { markCutTurns } from './core/acp/session/cut-turns';
import { ImportAgentChoice } from './core/history-import/agent-choice';
import { HistoryImportService } from './core/history-import/import-service';
import { RegistryService } from './core/registry/service';
import { SettingsService } from './core/settings/settings-service';
import { McpService } from './core/mcp/mcp-service';
import { Hosts } from './core/host/hosts';
import { HostsService, type SshHostMaker } from './core/remote/hosts-service';
import { hostInstance, SshHost } from './core/host/ssh/ssh-host';
import { MCP_SERVERS_SETTING } from '../shared/contract/mcp';
import { ADDED_HOSTS_SETTING, filesHostId, hostLabel } from '../shared/contract/hosts';
import type { SessionPlacement } from './core/acp/acp-context';
import type { ContainerService } from './core/containers/container-service';
import { programCandidates } from './core/containers/agent-programs';
import { apiHostsFor, type ContainerOptions, type ContainerWiringDeps, makeContainerService, registerContainerRequests } from './containers-wiring';
import { EventBus } from './core/base/event-bus';
import { DisposableStore, type Disposable } from './core/base/lifecycle';
import { Router } from './core/base/router';
import { systemClock } from './core/base/clock';
import { TasksService } from './core/tasks/tasks-service';
import { taskBranchHead, taskSessions, taskWorktrees } from './tasks-wiring';
import { compareSessions } from './compare-wiring';
import { DelegationService } from './core/delegation/delegation-service';
import { delegationContainers, delegationSessions, delegationWorktrees, provideDelegation } from './delegation-wiring';

export interface CoreOptions {
  dataDir: string;
  transport: AppInfo['transport'];
  version: string;
  /** Opens a link in the system browser; the Electron glue passes shell.openExternal. */
  openExternal?: (url: string) => Promise<boolean>;
  /** Encrypts stored secrets; the Electron glue passes one built on safeStorage (default: a 0600 key file). */
  secretCipher?: SecretCipher;
  /** Where work happens (default: this machine only). Tests may put an in-process agent behind the local host's spawn. */
  hosts?: Hosts;
  /** The ssh config file hosts are read from and ssh is run with (`-F`); default SWITCHBOARD_SSH_CONFIG, else ~/.ssh/config. */
  sshConfigFile?: string;
  /** Makes a host's SshHost (tests: a shorter grace); default: one with its ControlMaster socket under the data folder. */
  makeSshHost?: SshHostMaker;
  /** How long after start the daily backup waits (default: backup.ts STARTUP_BACKUP_DELAY_MS). */
  startupBackupDelayMs?: number;
  /** The agents' clock: supervision, flood control, hang and idle timeouts (default: the real time). */
  clock?: Clock;
  /** The user's time zone for schedules and daily limits (default: the system's). */
  timeZone?: string;
  /** false: no folder is snapshotted around turns (tests that are not about checkpoints). Default true. */
  checkpoints?: boolean;
  /** Sessions in containers: the engine's environment and the dev container CLI (tests: their own Podman configuration). */
  containers?: ContainerOptions;
}

/**
 * The main process below the Electron glue: services, the store and the request router.
 * Plain Node; the Electron glue and the WebSocket server are two ways to reach it.
 */
export class AppCore implements Disposable {
  readonly router = new Router();
  readonly bus = new EventBus();
  readonly store: StoreService;
  /** The typed settings (src/shared/contract/settings.ts); services read them live. */
  readonly settings: SettingsService;
  /** Where work happens: 'local' (this machine) and the SSH hosts connected; a session's host is its agent runtime's. */
  readonly hosts: Hosts;
  /** Settings → Hosts: the SSH hosts, their connections and their state. */
  readonly remoteHosts: HostsService;
  readonly ptys: PtyHost;
  /** Session history; a MessageLog is indexed once passed to history.attach(log). */
  readonly history: HistoryService;
  readonly backups: BackupService;
  /** The ACP Registry: installed agents become rows of the agents table. */
  readonly registry: RegistryService;
  /** Snapshots of session folders before and after every turn. */
  readonly checkpoints: CheckpointService;
  /** The ACP client: agents, sessions, and the agents' processes. */
  readonly acp: AcpServices;
  /** The agents' own histories, imported into History (History → Import). */
  readonly historyImport: HistoryImportService;
  /** Worktree sessions: a session's own worktree and branch, and the way back (commit, merge, push, PR). */
  readonly worktrees: WorktreeService;
  /** Sessions in containers: their containers made, started, listed, stopped at idle and at quit. */
  readonly containers: ContainerService;
  /** Where a session that asked for a container runs (the ACP services ask it). */
  readonly placement: SessionPlacement;
  /** Tasks: queued and scheduled runs, the spend guard, and the Inbox they end in. */
  readonly tasks: TasksService;
  /** Delegation: Switchboard's MCP server that lets an agent start, read and steer other agents' sessions. */
  readonly delegation: DelegationService;
  private readonly disposables = new DisposableStore();

  constructor(readonly options: CoreOptions) {
    this.hosts = options.hosts ?? new Hosts();
    this.store = this.disposables.add(new StoreService(options.dataDir));
    this.settings = this.disposables.add(new SettingsService(this.store, this.bus));
    this.settings.register(this.router);
    this.remoteHosts = this.disposables.add(
      new HostsService({
        router: this.router,
        bus: this.bus,
        hosts: this.hosts,
        configFile: options.sshConfigFile ?? process.env.SWITCHBOARD_SSH_CONFIG ?? null,
        added: { read: () => this.settings.get(ADDED_HOSTS_SETTING), write: async (value) => void this.settings.set({ key: ADDED_HOSTS_SETTING, value }) },
        // Named after the data folder (the runtime folder may be a fresh temp one): a restarted Switchboard joins its helper there.
        makeHost: options.makeSshHost ?? ((c) => new SshHost({ ...c, runtimeDir: sshRuntimeDir(options.dataDir), instance: hostInstance(options.dataDir, c.id) })),
      }),
    ).register();
    this.ptys = this.disposables.add(new PtyHost(this.hosts.local));
    // Before the ACP services: disposed after them (their sessions closed first), its containers then stopped.
    const containerDeps: ContainerWiringDeps = {
      dataDir: options.dataDir,
      hosts: this.hosts,
      settings: this.settings,
      bus: this.bus,
      stored: (key) => this.acp.context.rows().container(key),
      hostOf: (id) => this.acp.context.rows().hostOf(id),
      stopAgentsOn: (hostId) => this.acp.sessions.park(hostId),
      agent: (agentId) => {
        const record = this.acp.context.agents().get(agentId);
        return record ? { ...record, env: { ...record.env, ...this.acp.context.prefs().get(agentId).env } } : null;
      },
    };
    this.containers = this.disposables.add(makeContainerService(containerDeps, options.containers));
    const apiHosts = (agentId: string) => apiHostsFor(containerDeps, agentId);
    this.placement = { place: (p) => this.containers.place({ ...p, apiHosts: apiHosts(p.agentId), programs: programCandidates(containerDeps.agent(p.agentId)) }), abandon: (hostId) => this.containers.abandon(hostId) };
    registerContainerRequests(this.router, this.containers, apiHosts);
    this.registerAppRequests();
    registerShellService(this.router, this.bus, this.ptys, this.hosts);
    this.checkpoints = this.disposables.add(new CheckpointService(this.store, this.bus, options.dataDir, {
          host: this.hosts.local,
          hosts: (id) => (this.hosts.has(id) ? this.hosts.get(id) : undefined),
          settings: this.settings,
        }));
    this.checkpoints.register(this.router);
    // A restore cut short by the last exit is finished now, and the user told (issue 25.7).
    void this.checkpoints.recoverInterrupted().catch((e: unknown) => console.error('finishing interrupted restores failed:', e));
    // One MessageLog for the store; the history index is attached to it when it is first used.
    const acp = this.own(
      new AcpServices(this, {
        onMessageLog: (log) => this.history.attach(log),
        ...(options.secretCipher ? { secretCipher: options.secretCipher } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
      }).register(this.router),
    );
    this.acp = acp;
    // Checkpoints snapshot the session's folders before (the prompt waits) and after every turn, those
    // ended by the sessions closing at quit too (the sessions service drops its listeners after that).
    // A session on an SSH host has its folders snapshotted on that host, by its helper (checkpoint-sites.ts).
    if (options.checkpoints !== false) {
      // A session in a container has its folders snapshotted by the host that owns them (its bind mount's).
      acp.sessions.onTurnStarting((turn) => {
        this.containers.turnStarted(turn.hostId);
        return this.checkpoints.turnStarting({ ...turn, hostId: filesHostId(turn.hostId) });
      });
      acp.sessions.onTurnEnded((turn) => {
        this.containers.turnEnded(turn.hostId);
        return this.checkpoints.turnEnded({ ...turn, hostId: filesHostId(turn.hostId) });
      });
      // While a session is open its folders are watched (snapshots read only what changed), the first snapshot taken in the background.
      acp.sessions.onStatusChanged((s) => {
        if (s.status === 'closed') this.checkpoints.sessionClosed(s.id);
        else void this.checkpoints.sessionOpened(s.id, [s.cwd, ...s.additionalDirectories], filesHostId(s.hostId));
      });
    } else {
      acp.sessions.onTurnStarting((turn) => this.containers.turnStarted(turn.hostId));
      acp.sessions.onTurnEnded((turn) => this.containers.turnEnded(turn.hostId));
    }
    new McpService({
      router: this.router,
      bus: this.bus,
      host: this.hosts.local,
      settings: { read: () => this.settings.get(MCP_SERVERS_SETTING), write: (value) => void this.settings.set({ key: MCP_SERVERS_SETTING, value }) },
      secrets: acp.context.secrets,
      agents: () => acp.agents.list().map((a) => ({ id: a.id, name: a.name, capabilities: a.status.capabilities ?? acp.agents.knownCapabilities(a.id) })),
      loginEnv: () => acp.context.loginEnv(),
    }).register();
    this.history = this.disposables.add(new HistoryService(this.store, this.bus));
    // Turns the last stop cut short are marked so, before any session runs or is read.
    if (this.store.available) {
      const log = this.acp.context.messageLog();
      try {
        if (log) markCutTurns(this.store.db, log);
      } catch (e) {
        console.error('marking the turns cut by the last stop failed:', e);
      }
    }
    this.history.register(this.router);
    registerChildChanges(this.router, this.checkpoints, this.history);
    this.history.start();
    this.disposables.add(this.history.onRenamed((id) => acp.sessions.renamed(id)));
    this.disposables.add(this.checkpoints.onTurnRecorded((turn, nextStartedAt) => this.history.recordTurnChanges(turn, nextStartedAt)));
    const importAgents = new ImportAgentChoice({
      db: () => this.store.db,
      agents: () => acp.agents.list(),
      chosen: () => this.settings.get('history.importAgents'),
      remember: (source, agentId) => void this.settings.set({ key: 'history.importAgents', value: { ...this.settings.get('history.importAgents'), [source]: agentId } }),
      isLive: (id) => {
        const status = acp.sessions.session(id)?.status;
        return status !== undefined && status !== 'closed' && status !== 'failed';
      },
      bus: this.bus,
    });
    importAgents.register(this.router);
    this.historyImport = this.disposables.add(
      new HistoryImportService({
        db: () => this.store.db,
        log: () => acp.context.messageLog(),
        bus: this.bus,
        home: homedir(),
        env: process.env,
        keep: () => this.settings.get('history.importKeep'),
        agentFor: (source) => importAgents.agentFor(source),
        deleteSessions: (ids) => void this.history.delete(ids),
        bulk: () => this.history.bulkWrite(),
        watch: (root, onEvent, watchOptions) => this.hosts.local.watch(root, onEvent, watchOptions),
        remoteHosts: async () => this.hosts.remotes().filter((host) => host.helperCall).map((host) => ({ id: host.id, label: hostLabel(host.id), host })),
      }),
    );
    this.historyImport.register(this.router);
    // A host that connects (or reconnects) has its kept-up stores rescanned (and watched there).
    this.disposables.add(this.hosts.onRegister((host) => this.historyImport.hostChanged(host.id)));
    this.disposables.add(this.remoteHosts.onConnected((hostId) => this.historyImport.hostChanged(hostId)));
    this.disposables.add(this.settings.onChange((e) => e.key === 'history.importKeep' && this.historyImport.keepUp()));
    // After the window is up: a rescan of the stores kept up reads only what changed.
    setTimeout(() => this.historyImport.keepUp(), 2000).unref();
    this.backups = this.disposables.add(new BackupService(this.store, options.dataDir, { keep: () => this.settings.get('history.backupsKept') }));
    this.backups.register(this.router);
    this.registry = this.disposables.add(
      new RegistryService({ dataDir: options.dataDir, store: this.store, settings: this.settings, router: this.router, bus: this.bus, host: this.hosts.local }),
    );
    this.worktrees = this.disposables.add(
      new WorktreeService({
        store: this.store,
        bus: this.bus,
        host: this.hosts.local,
        remote: (hostId) => this.hosts.ensure(hostId),
        dataDir: options.dataDir,
        settings: { folder: () => this.settings.get('worktrees.folder'), repo: (repo) => repoSetting(this.settings.get('worktrees.repos'), repo) },
        env: () => Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
        sessions: {
          cwdOf: (id) => acp.sessions.session(id)?.cwd ?? null,
          openFolders: () => acp.sessions.list().filter((s) => s.status !== 'closed').flatMap((s) => [s.cwd, ...s.additionalDirectories]),
          prompt: (id, blocks) => acp.sessions.prompt(id, blocks),
          onTurnEnded: (listener) => acp.sessions.onTurnEnded(listener),
          replyTo: (id, promptId) => {
            const thread = acp.sessions.session(id)?.snapshot().thread;
            return thread ? replyTo(thread.entries, promptId) : null;
          },
        },
        // A removed worktree: the sessions working in it end (a prompt there would fail inside the agent), and
        // it leaves the recent folders (the new-session form and Compare start from the first of them).
        onRemoved: (path) => {
          const gone = realish(path);
          for (const s of acp.sessions.list()) {
            if (s.status !== 'closed' && isInside(realish(s.cwd), gone)) void acp.sessions.session(s.id)?.close().catch(() => undefined);
          }
          const recent = this.settings.get('sessions.recentFolders');
          const kept = recent.filter((f) => !isInside(realish(f), gone));
          if (kept.length !== recent.length) this.settings.set({ key: 'sessions.recentFolders', value: kept });
        },
      }),
    ).register(this.router);
    // A worktree's setup command (npm ci…) holds back the prompts of the sessions working there until it ends.
    this.disposables.add(acp.sessions.holdFolders((cwd) => this.worktrees.setup.holdFor(cwd)));
    this.delegation = this.disposables.add(
      new DelegationService({
        db: () => this.store.db,
        host: this.hosts.local,
        hosts: (hostId) => this.hosts.ensure(hostId),
        containers: delegationContainers(this.containers, () => this.settings.get('containers.defaultImage'), (id) => this.acp.context.rows().container(id)),
        dataDir: options.dataDir,
        sessions: this.disposables.add(delegationSessions(acp, (child, parent) => this.tasks.coverChild(child, parent))),
        worktrees: delegationWorktrees(this.worktrees, (machineId) => this.hosts.ensure(machineId)),
        settings: {
          agents: () => this.settings.get('delegation.agents'),
          descriptions: () => this.settings.get('delegation.descriptions'),
          maxDepth: () => this.settings.get('delegation.maxDepth'),
          maxChildren: () => this.settings.get('delegation.maxChildren'),
        },
      }),
    );
    this.disposables.add(provideDelegation(acp, this.delegation));
    this.disposables.add(new CompareService(this.store, this.bus, compareSessions(acp), this.worktrees, this.hosts.local, (id, limits) => void this.tasks.guardSession(id, limits))).register(this.router);
    this.tasks = this.disposables.add(
      new TasksService({
        db: () => this.store.db,
        bus: this.bus,
        clock: options.clock ?? systemClock,
        ...(options.timeZone ? { timeZone: () => options.timeZone! } : {}),
        settings: {
          concurrency: () => this.settings.get('tasks.concurrency'),
          dailyLimits: () => this.settings.get('tasks.dailyLimits'),
          prices: () => this.settings.get('tasks.prices'),
        },
        sessions: taskSessions(acp),
        worktrees: taskWorktrees(this.worktrees),
        branchHead: taskBranchHead(this.hosts),
      }),
    ).register(this.router);
    if (this.store.available) this.tasks.start();
    this.disposables.add(this.settings.onChange((e) => (e.key === 'tasks.concurrency' || e.key === 'tasks.dailyLimits') && this.tasks.queue.pump()));
    // Off the start-up path: the daily copy of a large store takes seconds.
    void this.backups.scheduleStartupBackup(options.startupBackupDelayMs);
  }

  private registerAppRequests(): void {
    const { router, store, options } = this;
    router.handle('app.info', () => ({
      version: options.version,
      transport: options.transport,
      platform: process.platform,
      dataDir: options.dataDir,
      homeDir: homedir(),
      store: store.status,
      versions: { node: process.versions.node, electron: process.versions.electron ?? null, chrome: process.versions.chrome ?? null },
    }));
    router.handle('app.resetStore', () => {
      if (store.status.ok) throw new IpcFailure('conflict', 'the store is healthy: there is nothing to reset, and nothing was moved');
      return store.reset();
    });
    // The contract admits http(s) only; checked again here, and the normalised URL is the one opened.
    router.handle('app.openExternal', async ({ url }) => {
      const link = checkExternalLink(url);
      if (!link.ok) throw new IpcFailure('forbidden', `not opened: ${link.reason}`);
      return { opened: options.openExternal ? await options.openExternal(link.url) : false };
    });
  }

  /** Registers a resource to be released when the app quits. */
  own<T extends Disposable>(d: T): T {
    return this.disposables.add(d);
  }

  dispose(): Promise<void> {
    return this.disposables.dispose();
  }
}

let runtimeDir: string | null = null;
/** Where ControlMaster sockets go: a Unix socket path holds ~100 bytes, so a long data folder gives way to a private temp folder. */
function sshRuntimeDir(dataDir: string): string {
  const inData = join(dataDir, 'ssh');
  if (inData.length <= 70) return inData;
  runtimeDir ??= mkdtempSync(join(tmpdir(), 'sb-ssh-'));
  return runtimeDir;
}
