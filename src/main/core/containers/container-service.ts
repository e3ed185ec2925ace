/**
 * Sessions in containers, end to end: where a new session asked to run in a container runs (its host id
 * `container:<session id>@<host id>` and what is stored to make its container again), the connector that
 * brings such a host up (the container made or started with `devcontainer up`, then a ContainerHost on it),
 * the containers' idle stop and their stop at quit, and Settings' list of them.
 *
 * A container runs on this machine or on an SSH host (`container:<key>@ssh:devbox`): there the dev container
 * CLI is carried to the host and run by its node, the engine is the host's, and files stay the host's
 * (container-sites.ts).
 */
import { IpcFailure } from '../../../shared/contract';
import type { ContainerChoice, ContainerRow, FenceView, RepoContainer } from '../../../shared/contract/containers';
import { containerHostId, parseHostId } from '../../../shared/contract/hosts';
import type { Disposable } from '../base/lifecycle';
import type { Host } from '../host/host';
import type { Hosts } from '../host/hosts';
import { ContainerHost } from './container-host';
import { type DevcontainerCli, FenceRefusal, SessionContainers } from './container-lifecycle';
import { type FenceDefaults, readStoredContainer, resolveFence, storeContainer, type StoredContainer } from './container-spec';
import { ConfigError, readRepoConfig, summarizeConfig } from './devcontainer-config';
import { detectEngine, type Engine, type EngineKind } from './engine';
import { engineFacts } from './engine-facts';
import { type EngineFacts, fenceEnforcement, fenceProblems } from './fence';
import { blockedItems, reviewConfig } from './fence-policy';
import { ContainerSites } from './container-sites';
import { SessionContainerHost } from './session-container-host';
import { linkPrograms, outsideFolders } from './agent-programs';
import type { ProgramMount } from './fence';
import { worktreeCommonDir } from './worktree-git';

export interface ContainerServiceDeps {
  hosts: Hosts;
  cli: DevcontainerCli;
  /** A private folder of this machine for the configurations given to the CLI (made by the caller). */
  scratchDir: string;
  /** The environment of the engine's calls on this machine (PATH, CONTAINERS_CONF, DOCKER_HOST…). */
  engineEnv: () => Record<string, string>;
  settings: {
    prefer(): EngineKind;
    defaults(): FenceDefaults;
    defaultImage(): string;
    idleStopMinutes(): number;
    repo(folder: string): { image?: string | undefined; allow?: string[] | undefined };
    allowForRepo(folder: string, ids: readonly string[]): void;
  };
  /** The stored container of the session that made it (by the key of its host id). */
  stored(key: string): string | null;
  /** The host id of a session (undefined: no such session). */
  hostOf(sessionId: string): string | undefined;
  /** A line of the dev container CLI's progress while a session's container is made or started. */
  progress(sessionId: string, line: string): void;
  /** Stops the agents running in a container before it is stopped (so none is restarted as crashed). */
  stopAgentsOn(hostId: string): Promise<void>;
}

interface Live {
  host: SessionContainerHost;
  registration: Disposable;
  lifecycle: SessionContainers;
  /** Turns under way in the container's sessions. */
  busy: number;
  /** Just made or started by `up`: the first agent's start need not ask the engine whether it runs. */
  fresh: boolean;
  /** The scratch folder on the container's host (the programs' links are there). */
  scratchDir: string;
}

export class ContainerService implements Disposable {
  private readonly engines = new Map<string, Promise<Engine>>();
  /** What each engine enforces (`<engine> info` is slow and its answer does not change while it runs). */
  private readonly facts = new WeakMap<Engine, Promise<EngineFacts>>();
  private readonly connecting = new Map<string, Promise<Host>>();
  private readonly live = new Map<string, Live>();
  /** The agent's programs linked as a session was placed, for its first `up` (which need not link them again). */
  private readonly placed = new Map<string, ProgramMount[]>();
  private readonly sites: ContainerSites;
  private readonly idleTimer: NodeJS.Timeout;
  private disposed = false;

  constructor(private readonly deps: ContainerServiceDeps) {
    this.sites = new ContainerSites({ cli: deps.cli, scratchDir: deps.scratchDir, engineEnv: deps.engineEnv });
    deps.hosts.setConnector('container', (id) => this.connect(id));
    this.idleTimer = setInterval(() => void this.stopIdle(), 60_000);
    this.idleTimer.unref();
  }

  // ───────────── placing a new session ─────────────

  /** Where a new session in a container runs: checked (engine, configuration, fence) before anything starts. */
  async place(p: { sessionId: string; hostId: string; cwd: string; additionalDirectories: readonly string[]; container: ContainerChoice; apiHosts?: readonly string[]; programs?: readonly string[] }): Promise<{ hostId: string; stored: string }> {
    this.sites.check(p.hostId);
    const inner = await this.deps.hosts.ensure(p.hostId);
    await this.engine(p.hostId, inner).catch((e: Error) => {
      throw new IpcFailure('unavailable', e.message);
    });
    const folders = [p.cwd, ...p.additionalDirectories];
    const commonDir = await worktreeCommonDir(inner, p.cwd);
    const fence = { ...resolveFence(p.container, this.deps.settings.defaults(), folders, p.apiHosts ?? []), ...(commonDir && !folders.some((f) => commonDir === f || commonDir.startsWith(`${f}/`)) ? { readOnly: [commonDir] } : {}) };
    const problems = fenceProblems(fence);
    if (problems.length > 0) throw new IpcFailure('invalid_params', `the fence cannot be used: ${problems.join('; ')}`);
    let source = p.container.source;
    if (source.kind === 'repo') {
      const allowed = new Set([...(this.deps.settings.repo(p.cwd).allow ?? []), ...source.allow]);
      const config = await this.readConfig(inner, p.cwd);
      if (!config) throw new IpcFailure('not_found', `${p.cwd} has no dev container configuration (.devcontainer/devcontainer.json or .devcontainer.json): choose an image`);
      const blocked = blockedItems(reviewConfig(config, p.cwd), allowed);
      if (blocked.length > 0) throw new IpcFailure('forbidden', new FenceRefusal(blocked).message);
      // What the user allowed now is allowed for this repository from now on.
      if (source.allow.length > 0) this.deps.settings.allowForRepo(p.cwd, source.allow);
      source = { kind: 'repo', allow: [...allowed] };
    }
    const programs = await this.programMounts(p.hostId, inner, p.sessionId, outsideFolders(p.programs ?? [], [...folders, ...(fence.readOnly ?? [])]));
    const hostId = containerHostId(p.sessionId, p.hostId);
    if (programs.length > 0) this.placed.set(hostId, programs);
    return { hostId, stored: storeContainer(source, { ...fence, programs }) };
  }

  /** A folder's devcontainer.json as the form shows it before the first start (null: it has none). */
  async repoConfig(hostId: string, folder: string): Promise<RepoContainer | null> {
    const inner = await this.deps.hosts.ensure(hostId);
    const config = await this.readConfig(inner, folder);
    if (!config) return null;
    const summary = summarizeConfig(config);
    const allowed = new Set(this.deps.settings.repo(folder).allow ?? []);
    const s = summary.source;
    const source = s.kind === 'image' ? `image ${s.image}` : s.kind === 'dockerfile' ? `Dockerfile ${s.dockerfile}` : s.kind === 'compose' ? `Docker Compose ${s.files.join(', ')}` : 'nothing (no image nor Dockerfile)';
    return { file: config.file, source, features: summary.features, commands: summary.commands, items: reviewConfig(config, folder).map((i) => ({ ...i, allowed: allowed.has(i.id) })) };
  }

  private async readConfig(inner: Host, folder: string) {
    try {
      return await readRepoConfig(await inner.files([folder]), folder);
    } catch (e) {
      if (e instanceof ConfigError) throw new IpcFailure('invalid_params', e.message);
      throw e;
    }
  }

  // ───────────── bringing a container host up ─────────────

  private connect(id: string): Promise<Host> {
    const current = this.live.get(id);
    if (current) return Promise.resolve(current.host);
    let pending = this.connecting.get(id);
    if (!pending) {
      pending = this.up(id).finally(() => this.connecting.delete(id));
      this.connecting.set(id, pending);
    }
    return pending;
  }

  private async up(id: string): Promise<Host> {
    if (this.disposed) throw new Error('shutting down');
    const a = parseHostId(id);
    if (a?.kind !== 'container') throw new Error(`not a container host: ${id}`);
    const stored = readStoredContainer(this.deps.stored(a.key));
    if (!stored) throw new Error('no container is recorded for this session (or its record is damaged): start a new session');
    const inner = await this.deps.hosts.ensure(a.on);
    const engine = await this.engine(a.on, inner);
    const site = await this.sites.site(a.on, inner);
    const lifecycle = new SessionContainers(inner, engine, site.cli, site.scratchDir);
    const placed = this.placed.get(id);
    this.placed.delete(id);
    const programs = placed ?? (await this.programMounts(a.on, inner, a.key, stored.programs ?? []));
    const { containerId, env } = await this.startContainer(lifecycle, a.key, stored, programs);
    const container = await ContainerHost.open({ inner, engine, containerId, folder: stored.fence.folders[0]!, id, env });
    // The programs mounted need not be copied in.
    const host = new SessionContainerHost(container, inner, engine, [...stored.fence.folders, ...programs.map((m) => m.target)], () => this.ensureRunning(id));
    const live: Live = { host, registration: this.deps.hosts.register(host), lifecycle, busy: 0, fresh: true, scratchDir: site.scratchDir };
    this.live.set(id, live);
    return host;
  }

  /** The container made or started, with the environment its processes need (the `api` network's proxy). */
  private async startContainer(lifecycle: SessionContainers, key: string, stored: StoredContainer, programs: readonly ProgramMount[]): Promise<{ containerId: string; env: Record<string, string> }> {
    const source = stored.source.kind === 'repo' ? { kind: 'repo' as const, allowed: new Set(stored.source.allow) } : stored.source;
    const fence = programs.length > 0 ? { ...stored.fence, programs } : stored.fence;
    const up = await lifecycle.up({ sessionId: key, fence, source }, (line) => this.deps.progress(key, line.slice(0, 2000)));
    return { containerId: up.containerId, env: up.env };
  }

  /** Before an agent starts in it: the container started again if it was stopped (idle, or from outside). */
  private async ensureRunning(id: string): Promise<void> {
    const live = this.live.get(id);
    const a = parseHostId(id);
    if (!live || a?.kind !== 'container') return;
    if (live.fresh) {
      live.fresh = false;
      return;
    }
    if ((await live.lifecycle.state(live.host.container.containerId)) === 'running') return;
    const stored = readStoredContainer(this.deps.stored(a.key));
    if (!stored) throw new Error('no container is recorded for this session');
    const inner = await this.deps.hosts.ensure(a.on);
    const programs = await linkPrograms(inner, programsDir(live.scratchDir, a.key), stored.programs ?? []);
    const { containerId, env } = await this.startContainer(live.lifecycle, a.key, stored, programs);
    if (containerId !== live.host.container.containerId) {
      // Made anew (it was removed): the same host (the one the session's agent holds) goes on in the new container.
      const engine = await this.engine(a.on, inner);
      live.host.moveTo(await ContainerHost.open({ inner, engine, containerId, folder: stored.fence.folders[0]!, id, env }));
    }
  }

  /** The agent's programs (absolute files on the host below) linked for the session's container to mount. */
  private async programMounts(hostId: string, inner: Host, key: string, files: readonly string[]): Promise<ProgramMount[]> {
    if (files.length === 0 || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/.test(key)) return [];
    const site = await this.sites.site(hostId, inner);
    return linkPrograms(inner, programsDir(site.scratchDir, key), files);
  }

  private engine(hostId: string, inner: Host): Promise<Engine> {
    const prefer = this.deps.settings.prefer();
    const key = `${hostId}\0${prefer}`;
    let engine = this.engines.get(key);
    if (!engine) {
      engine = detectEngine(inner, { env: this.sites.engineEnv(hostId), prefer });
      engine.catch(() => this.engines.delete(key));
      this.engines.set(key, engine);
    }
    return engine;
  }

  private forget(id: string): void {
    const live = this.live.get(id);
    if (!live) return;
    this.live.delete(id);
    live.registration.dispose();
    void live.lifecycle.dispose();
  }

  // ───────────── the engine, the fence, the list ─────────────

  async engineStatus(hostId: string): Promise<{ hostId: string; engine: string | null; problem: string | null }> {
    try {
      this.sites.check(hostId);
      const engine = await this.engine(hostId, await this.deps.hosts.ensure(hostId));
      return { hostId, engine: `${engine.kind} ${engine.version}`, problem: null };
    } catch (e) {
      return { hostId, engine: null, problem: (e as Error).message };
    }
  }

  /** The fence of a session in a container, each setting said as enforced or not by its engine. */
  async fenceOf(sessionId: string): Promise<FenceView | null> {
    const hostId = this.deps.hostOf(sessionId);
    const a = hostId ? parseHostId(hostId) : null;
    if (a?.kind !== 'container') return null;
    const stored = readStoredContainer(this.deps.stored(a.key));
    if (!stored) return null;
    const inner = await this.deps.hosts.ensure(a.on);
    const engine = await this.engine(a.on, inner);
    let known = this.facts.get(engine);
    if (!known) {
      known = engineFacts(inner, engine);
      this.facts.set(engine, known);
      // An engine that did not answer is asked again next time.
      void known.then((f) => f.cgroupVersion === 'unknown' && this.facts.delete(engine));
    }
    const facts = await known;
    const { where } = await this.sites.site(a.on, inner);
    const programs = (stored.programs ?? []).map((target) => ({ source: target, target }));
    return {
      network: stored.fence.network,
      allowHosts: stored.fence.network === 'api' ? [...stored.fence.allowHosts] : [],
      memoryMiB: Math.round(stored.fence.memoryBytes / 1024 ** 2),
      cpus: stored.fence.cpus,
      engine: `${engine.kind} ${engine.version}${facts.rootless ? ' (rootless)' : ''}`,
      settings: fenceEnforcement({ ...stored.fence, programs }, facts, where),
    };
  }

  async list(hostId: string): Promise<ContainerRow[]> {
    const lifecycle = await this.lifecycleOn(hostId);
    return (await lifecycle.list()).map((c) => ({ hostId, ...c }));
  }

  async stop(hostId: string, containerId: string): Promise<void> {
    const lifecycle = await this.lifecycleOn(hostId);
    await this.releaseContainer(containerId);
    await lifecycle.stop(containerId);
  }

  async remove(hostId: string, containerId: string): Promise<void> {
    const lifecycle = await this.lifecycleOn(hostId);
    await this.releaseContainer(containerId);
    await lifecycle.remove(containerId);
  }

  private async lifecycleOn(hostId: string): Promise<SessionContainers> {
    this.sites.check(hostId);
    const inner = await this.deps.hosts.ensure(hostId);
    const engine = await this.engine(hostId, inner);
    const site = await this.sites.site(hostId, inner);
    return new SessionContainers(inner, engine, site.cli, site.scratchDir);
  }

  /** The agents in a container stopped and its host forgotten (the next start makes it again). */
  private async releaseContainer(containerId: string): Promise<void> {
    for (const [id, live] of this.live) {
      if (live.host.container.containerId !== containerId && !live.host.container.containerId.startsWith(containerId)) continue;
      await this.deps.stopAgentsOn(id).catch(() => {});
      this.forget(id);
    }
  }

  /** A session that was never created: its container (if it was made) removed, its host forgotten. */
  async abandon(id: string): Promise<void> {
    const a = parseHostId(id);
    if (a?.kind !== 'container') return;
    await this.connecting.get(id)?.catch(() => {});
    const live = this.live.get(id);
    this.placed.delete(id);
    this.forget(id);
    const lifecycle = live?.lifecycle ?? (await this.lifecycleOn(a.on));
    const found = await lifecycle.find(a.key);
    if (found) await lifecycle.remove(found.id);
  }

  // ───────────── idle stop and quit ─────────────

  turnStarted(hostId: string): void {
    const live = this.live.get(hostId);
    if (live) live.busy++;
  }

  turnEnded(hostId: string): void {
    const live = this.live.get(hostId);
    if (!live) return;
    live.busy = Math.max(0, live.busy - 1);
    live.host.lastUsed = Date.now();
  }

  /** Stops the containers idle for longer than the setting: their agents first, then the container. */
  async stopIdle(now = Date.now()): Promise<string[]> {
    const minutes = this.deps.settings.idleStopMinutes();
    if (minutes <= 0 || this.disposed) return [];
    const stopped: string[] = [];
    for (const [id, live] of [...this.live]) {
      if (live.busy > 0 || now - live.host.lastUsed < minutes * 60_000) continue;
      await this.deps.stopAgentsOn(id).catch(() => {});
      this.forget(id);
      await live.lifecycle.stop(live.host.container.containerId).catch(() => {});
      stopped.push(id);
    }
    return stopped;
  }

  /** Quitting: Switchboard's running containers are stopped (not removed: their sessions reopen later). */
  async dispose(): Promise<void> {
    this.disposed = true;
    clearInterval(this.idleTimer);
    this.deps.hosts.setConnector('container', null);
    const all = [...this.live.values()];
    this.live.clear();
    await Promise.all(
      all.map(async (live) => {
        live.registration.dispose();
        await live.lifecycle.stop(live.host.container.containerId).catch(() => {});
        await live.lifecycle.dispose();
      }),
    );
  }
}

/** Where a session's program links are, in the scratch folder of its container's host. */
function programsDir(scratchDir: string, key: string): string {
  return `${scratchDir}/${key}.programs`;
}
