/**
 * Containers of sessions, made by the Dev Container reference implementation (`@devcontainers/cli`) on a host
 * with its engine, fenced, labelled, listed, stopped and removed. A container Switchboard did not make (without
 * the `switchboard.managed=1` label) is never touched.
 *
 *   const containers = new SessionContainers(host, engine, cli, scratchDir);
 *   const up = await containers.up({ sessionId, fence, source: { kind: 'repo', allowed } });
 *   const box = await ContainerHost.open({ inner: host, engine, containerId: up.containerId, folder, env: up.env });
 *
 * `up` is idempotent: it finds the session's container again (by its label), starts it when it stopped, and
 * (network `api`) starts its proxy and relay again; call it before each use after a restart or an idle stop.
 */
import path from 'node:path';
import type { Host } from '../host/host';
import { ConfigError, type DevcontainerJson, readRepoConfig } from './devcontainer-config';
import type { Engine } from './engine';
import { type GuardConfig, writeEngineGuard } from './engine-guard';
import { type Fence, fenceProblems } from './fence';
import { blockedItems, fencedConfig, guardConfig, reviewConfig } from './fence-policy';
import { ApiProxy, type ContainerProxy, proxyEnv } from './api-proxy';
import { HostApiProxy } from './host-proxy';
import { upFailure } from './cli-failure';
import { lastLine, runOnHost } from './run';

export const MANAGED_LABEL = 'switchboard.managed';
export const SESSION_LABEL = 'switchboard.session';

/**
 * How the dev container CLI is run on the host: node (e.g. `[process.execPath]` with `ELECTRON_RUN_AS_NODE=1`
 * in `env` inside Electron), and the CLI's `devcontainer.js` there. The engine guard runs with the same node.
 */
export interface DevcontainerCli {
  node: readonly string[];
  script: string;
  env?: Record<string, string>;
}

export type ContainerSource =
  /** The folder's devcontainer.json; `allowed`: the ids (fence-policy.ts) the user allowed for this repository. */
  | { kind: 'repo'; allowed: ReadonlySet<string> }
  /** Just an image (the folder's devcontainer.json, if any, is not used). */
  | { kind: 'image'; image: string };

export interface ContainerSpec {
  /** The session's id: the container is found again by it. */
  sessionId: string;
  fence: Fence;
  source: ContainerSource;
}

export interface UpResult {
  containerId: string;
  remoteUser: string;
  /** Environment every process in the container needs (the proxy's, in the `api` mode): ContainerHost's `env`. */
  env: Record<string, string>;
}

export interface ContainerInfo {
  id: string;
  name: string;
  sessionId: string;
  state: 'running' | 'stopped' | 'other';
  /** Bytes the container wrote on top of its image (null when the engine does not say). */
  sizeBytes: number | null;
  image: string;
}

/** Something in the repository's configuration is in the way (refused, or not allowed yet): listed by name. */
export class FenceRefusal extends Error {
  constructor(readonly items: ReturnType<typeof reviewConfig>) {
    super(`the dev container configuration asks for what would lower the fence: ${items.map((i) => `${i.key} (${i.why}${i.verdict === 'ask' ? '; needs your allowance' : '; refused'})`).join('; ')}`);
    this.name = 'FenceRefusal';
  }
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export class SessionContainers {
  /** The `api` mode's proxies, by session id. */
  private readonly proxies = new Map<string, ContainerProxy>();
  /** The `up` under way per session: a second waits for it (two at once could make two containers). */
  private readonly ups = new Map<string, Promise<unknown>>();

  constructor(
    private readonly host: Host,
    private readonly engine: Engine,
    private readonly cli: DevcontainerCli,
    /** A private folder on the host for the configurations given to the CLI (never the session folder). */
    private readonly scratchDir: string,
  ) {}

  /**
   * Makes (or finds and starts) the session's container. Nothing of the repository's configuration runs
   * before its fence-lowering settings are allowed (FenceRefusal otherwise); a syntax error is a ConfigError.
   */
  async up(spec: ContainerSpec, onLog?: (line: string) => void): Promise<UpResult> {
    const before = this.ups.get(spec.sessionId) ?? Promise.resolve();
    const mine = before.catch(() => undefined).then(() => this.upNow(spec, onLog));
    this.ups.set(spec.sessionId, mine);
    try {
      return await mine;
    } finally {
      if (this.ups.get(spec.sessionId) === mine) this.ups.delete(spec.sessionId);
    }
  }

  private async upNow(spec: ContainerSpec, onLog?: (line: string) => void): Promise<UpResult> {
    if (!SESSION_ID.test(spec.sessionId)) throw new Error(`not a session id: ${JSON.stringify(spec.sessionId).slice(0, 80)}`);
    const problems = fenceProblems(spec.fence);
    if (problems.length > 0) throw new Error(`the fence cannot be used: ${problems.join('; ')}`);
    const folder = spec.fence.folders[0]!;
    const net = spec.fence.network === 'api' ? await this.proxyFor(spec) : null;
    const fence = net ? { ...spec.fence, folders: [...spec.fence.folders, net.dir] } : spec.fence;
    let config: DevcontainerJson;
    let guard: GuardConfig;
    if (spec.source.kind === 'repo') {
      const repo = await readRepoConfig(await this.host.files([folder]), folder);
      if (!repo) throw new ConfigError(path.posix.join(folder, '.devcontainer/devcontainer.json'), 'not found: the folder has no dev container configuration; choose an image');
      const blocked = blockedItems(reviewConfig(repo, folder), spec.source.allowed);
      if (blocked.length > 0) throw new FenceRefusal(blocked);
      config = fencedConfig(repo, fence, spec.source.allowed);
      guard = guardConfig(repo, fence, spec.source.allowed, this.engine.path);
    } else {
      config = fencedConfig(null, fence, new Set(), spec.source.image);
      guard = guardConfig(null, fence, new Set(), this.engine.path);
    }
    const scratch = await this.host.files([this.scratchDir]);
    const file = path.posix.join(this.scratchDir, `${spec.sessionId}.devcontainer.json`);
    await scratch.writeFile(file, JSON.stringify(config, null, 2));
    const enginePath = await writeEngineGuard(scratch, this.scratchDir, spec.sessionId, this.cli.node, guard);
    const argv = [
      ...this.cli.node,
      this.cli.script,
      'up',
      '--docker-path', enginePath,
      '--workspace-folder', folder,
      '--override-config', file,
      '--id-label', `${SESSION_LABEL}=${spec.sessionId}`,
      '--id-label', `${MANAGED_LABEL}=1`,
      '--mount-workspace-git-root', 'false',
      '--log-format', 'text',
    ];
    const result = await runOnHost(this.host, argv, { env: { ...this.engine.env, ...this.cli.env }, cwd: this.scratchDir, ...(onLog ? { onStderrLine: onLog } : {}) });
    const outcome = parseOutcome(result.stdout);
    if (result.error !== null) throw new Error(`the dev container CLI could not be started: ${result.error}`);
    if (!outcome || outcome.outcome !== 'success' || typeof outcome.containerId !== 'string') {
      const refused = /Switchboard refused to run the engine: [^\n]*/.exec(result.stderr)?.[0];
      if (refused) throw new Error(`the container could not be made: ${refused.slice(0, 500)}`);
      const said = typeof outcome?.message === 'string' && outcome.message ? upFailure(outcome.message, result.stderr) : lastLine(result.stderr);
      throw new Error(`the container could not be made: ${said || `the dev container CLI ended with ${result.code ?? result.signal}`}`);
    }
    const containerId = outcome.containerId;
    if (net) await this.startRelay(containerId, net);
    return { containerId, remoteUser: typeof outcome.remoteUser === 'string' ? outcome.remoteUser : 'root', env: net ? proxyEnv() : {} };
  }

  /** Closes the proxies of the `api` mode (their containers reach nothing until `up` again). */
  async dispose(): Promise<void> {
    const all = [...this.proxies.values()];
    this.proxies.clear();
    await Promise.all(all.map((p) => p.close()));
  }

  /** The proxy runs where the engine does: in this process for this machine, as a process of an SSH host there (host-proxy.ts). */
  private async proxyFor(spec: ContainerSpec): Promise<ContainerProxy> {
    const old = this.proxies.get(spec.sessionId);
    if (old) await old.close();
    const files = await this.host.files([this.scratchDir]);
    const dir = path.posix.join(this.scratchDir, `${spec.sessionId}.net`);
    const proxy = this.host.id === 'local' ? await ApiProxy.start(files, dir, spec.fence.allowHosts) : await HostApiProxy.start(this.host, this.cli.node, files, dir, spec.fence.allowHosts);
    this.proxies.set(spec.sessionId, proxy);
    return proxy;
  }

  /** Starts the relay to the proxy inside the container, once it listens (one running already is kept): one exec. */
  private async startRelay(containerId: string, proxy: ContainerProxy): Promise<void> {
    const r = await runOnHost(this.host, [this.engine.path, 'exec', containerId, '/bin/sh', '-c', 'command -v node >/dev/null 2>&1 || exit 127; exec node "$1"', 'sh', proxy.relayScript], { env: this.engine.env, timeoutMs: 60_000 });
    if (r.code === 127) throw new Error('the network mode "only the agent\'s API" needs node in the container (for its relay to the proxy): choose an image with node 20+, or add the node feature');
    if (r.code !== 0) throw new Error(`the relay to the proxy could not be started in the container: ${lastLine(r.stdout) || lastLine(r.stderr) || `exit ${r.code}`}`);
  }

  /** Switchboard's containers on this host (running and stopped), with their size. */
  async list(): Promise<ContainerInfo[]> {
    const ids = await this.engineRun(['ps', '-a', '-q', '--no-trunc', '--filter', `label=${MANAGED_LABEL}=1`]);
    const list = ids.split('\n').map((s) => s.trim()).filter(Boolean);
    if (list.length === 0) return [];
    const raw = await this.inspectEach(list);
    return raw.map(toInfo).filter((c): c is ContainerInfo => c !== null);
  }

  /** `inspect --size` of containers listed a moment ago: one removed since (by the user, another session) is left out. */
  private async inspectEach(ids: string[]): Promise<unknown[]> {
    const all = await runOnHost(this.host, [this.engine.path, 'inspect', '--size', ...ids], { env: this.engine.env, timeoutMs: 60_000 });
    if (all.code === 0) return JSON.parse(all.stdout) as unknown[];
    const out: unknown[] = [];
    for (const id of ids) {
      const one = await runOnHost(this.host, [this.engine.path, 'inspect', '--size', id], { env: this.engine.env, timeoutMs: 60_000 });
      if (one.code === 0) out.push(...(JSON.parse(one.stdout) as unknown[]));
      else if (!/no such (object|container)/i.test(one.stderr)) throw new Error(`${this.engine.kind} inspect failed: ${lastLine(one.stderr) || `exit ${one.code}`}`);
    }
    return out;
  }

  /** The session's container, or null. */
  async find(sessionId: string): Promise<ContainerInfo | null> {
    return (await this.list()).find((c) => c.sessionId === sessionId) ?? null;
  }

  /** Whether a container (by its id) runs, in one engine call (`find` lists them all, with their sizes); null: gone. */
  async state(id: string): Promise<ContainerInfo['state'] | null> {
    const r = await runOnHost(this.host, [this.engine.path, 'inspect', '--type', 'container', '--format', '{{.State.Status}}', id], { env: this.engine.env, timeoutMs: 60_000, maxStdout: 4096 });
    return r.code === 0 ? stateOf(r.stdout.trim()) : null;
  }

  /** Stops a container of Switchboard's (a session's next `up` starts it again). */
  async stop(id: string): Promise<void> {
    const found = await this.managed(id);
    await this.closeProxy(found.sessionId);
    await this.engineRun(['stop', '--time', '5', found.id]);
  }

  async remove(id: string): Promise<void> {
    const found = await this.managed(id);
    await this.closeProxy(found.sessionId);
    await this.engineRun(['rm', '--force', found.id]);
  }

  private async closeProxy(sessionId: string): Promise<void> {
    const proxy = this.proxies.get(sessionId);
    this.proxies.delete(sessionId);
    await proxy?.close();
  }

  /** The container when it is one of Switchboard's; throws otherwise (a container the user made is never touched). */
  private async managed(id: string): Promise<ContainerInfo> {
    const found = (await this.list()).find((c) => c.id === id || c.name === id);
    if (!found) throw new Error(`"${id.slice(0, 80)}" is not a container Switchboard made: it is left alone`);
    return found;
  }

  private async engineRun(args: string[]): Promise<string> {
    const r = await runOnHost(this.host, [this.engine.path, ...args], { env: this.engine.env, timeoutMs: 120_000 });
    if (r.code !== 0) throw new Error(`${this.engine.kind} ${args[0]} failed: ${lastLine(r.stderr) || r.error || `exit ${r.code ?? r.signal}`}`);
    return r.stdout;
  }
}

function parseOutcome(stdout: string): Record<string, unknown> | null {
  for (const line of stdout.split('\n').reverse()) {
    if (!line.trim().startsWith('{')) continue;
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      /* not the outcome line */
    }
  }
  return null;
}

function toInfo(raw: unknown): ContainerInfo | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const r = raw as { Id?: unknown; Name?: unknown; State?: { Status?: unknown }; Config?: { Labels?: Record<string, unknown>; Image?: unknown }; ImageName?: unknown; SizeRw?: unknown };
  const labels = r.Config?.Labels ?? {};
  if (labels[MANAGED_LABEL] !== '1' || typeof r.Id !== 'string') return null;
  return {
    id: r.Id,
    name: String(r.Name ?? '').replace(/^\//, ''),
    sessionId: String(labels[SESSION_LABEL] ?? ''),
    state: stateOf(String(r.State?.Status ?? '')),
    sizeBytes: typeof r.SizeRw === 'number' ? r.SizeRw : null,
    image: String(r.ImageName ?? r.Config?.Image ?? ''),
  };
}

function stateOf(status: string): ContainerInfo['state'] {
  return status === 'running' ? 'running' : ['exited', 'stopped', 'created', 'configured'].includes(status) ? 'stopped' : 'other';
}
