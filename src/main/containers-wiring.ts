/**
 * Sessions in containers, composed: the container service over the app's hosts, settings and sessions table,
 * its requests (containers.*), and the placement the sessions service asks when a session wants a container.
 */
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Router } from './core/base/router';
import type { EventBus } from './core/base/event-bus';
import type { Hosts } from './core/host/hosts';
import type { SettingsService } from './core/settings/settings-service';
import type { DevcontainerCli } from './core/containers/container-lifecycle';
import { ContainerService } from './core/containers/container-service';
import { type AgentLike, agentApiHosts } from './core/containers/api-hosts';

export interface ContainerOptions {
  /** The environment of the engine's calls on this machine. Default: this process's PATH, HOME and engine variables. */
  engineEnv?: Record<string, string>;
  /** How the dev container CLI is run. Default: this process's node (in Electron, the node on PATH) and the CLI it ships. */
  cli?: DevcontainerCli;
}

const ENGINE_VARS = ['PATH', 'HOME', 'USER', 'TMPDIR', 'XDG_RUNTIME_DIR', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'DOCKER_HOST', 'DOCKER_CONFIG', 'DOCKER_CONTEXT', 'CONTAINER_HOST', 'CONTAINERS_CONF', 'CONTAINERS_STORAGE_CONF', 'CONTAINERS_REGISTRIES_CONF'];

function defaultEngineEnv(): Record<string, string> {
  return Object.fromEntries(ENGINE_VARS.flatMap((k) => (process.env[k] !== undefined ? [[k, process.env[k]!]] : [])));
}

function defaultCli(): DevcontainerCli {
  const script = createRequire(import.meta.url).resolve('@devcontainers/cli/devcontainer.js').replace(/app\.asar([/\\])/, 'app.asar.unpacked$1');
  // The packaged app's fuses refuse ELECTRON_RUN_AS_NODE: there, the machine's own node runs the CLI.
  return { node: process.versions.electron ? ['node'] : [process.execPath], script };
}

export interface ContainerWiringDeps {
  dataDir: string;
  hosts: Hosts;
  settings: SettingsService;
  bus: EventBus;
  /** The sessions table: the stored container of a session, and a session's host id. */
  stored(sessionId: string): string | null;
  hostOf(sessionId: string): string | undefined;
  stopAgentsOn(hostId: string): Promise<void>;
  /** An agent as it is started (its command and env, with the user's own env over it), or null. */
  agent(agentId: string): AgentLike | null;
}

/** The allow-list offered for the network "only the agent's API": the agent's API hosts and Settings' extra ones. */
export function apiHostsFor(deps: Pick<ContainerWiringDeps, 'agent' | 'settings'>, agentId: string): string[] {
  const agent = deps.agent(agentId);
  return [...new Set([...(agent ? agentApiHosts(agent) : []), ...deps.settings.get('containers.allowHosts')])].slice(0, 50);
}

export function makeContainerService(deps: ContainerWiringDeps, options: ContainerOptions = {}): ContainerService {
  const { settings } = deps;
  const scratchDir = join(deps.dataDir, 'containers');
  mkdirSync(scratchDir, { recursive: true, mode: 0o700 });
  return new ContainerService({
    scratchDir,
    hosts: deps.hosts,
    cli: options.cli ?? defaultCli(),
    engineEnv: () => options.engineEnv ?? defaultEngineEnv(),
    settings: {
      prefer: () => settings.get('containers.engine'),
      defaults: () => ({ network: settings.get('containers.network'), memoryMiB: settings.get('containers.memoryMiB'), cpus: settings.get('containers.cpus') }),
      defaultImage: () => settings.get('containers.defaultImage'),
      idleStopMinutes: () => settings.get('containers.idleStopMinutes'),
      repo: (folder) => settings.get('containers.repos')[folder] ?? {},
      allowForRepo: (folder, ids) => {
        const repos = settings.get('containers.repos');
        const current = repos[folder] ?? {};
        const allow = [...new Set([...(current.allow ?? []), ...ids])].slice(0, 50);
        settings.set({ key: 'containers.repos', value: { ...repos, [folder]: { ...current, allow } } });
      },
    },
    stored: deps.stored,
    hostOf: deps.hostOf,
    progress: (sessionId, line) => deps.bus.emit('containers.progress', { sessionId, line }),
    stopAgentsOn: deps.stopAgentsOn,
  });
}

export function registerContainerRequests(router: Router, service: ContainerService, apiHosts: (agentId: string) => string[]): void {
  router.handle('containers.engine', ({ hostId }) => service.engineStatus(hostId));
  router.handle('containers.apiHosts', ({ agentId }) => ({ hosts: apiHosts(agentId) }));
  router.handle('containers.repoConfig', async ({ hostId, folder }) => ({ config: await service.repoConfig(hostId, folder) }));
  router.handle('containers.list', async ({ hostId }) => ({ containers: await service.list(hostId) }));
  router.handle('containers.stop', async ({ hostId, id }) => {
    await service.stop(hostId, id);
    return {};
  });
  router.handle('containers.remove', async ({ hostId, id }) => {
    await service.remove(hostId, id);
    return {};
  });
  router.handle('containers.fence', async ({ sessionId }) => ({ fence: await service.fenceOf(sessionId) }));
}
