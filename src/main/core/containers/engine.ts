/**
 * The container engine of a host: Docker or Podman, found by running `<engine> version` through the host (so an
 * SSH host's engine is found on that host). A missing or stopped engine is one sentence saying what to install
 * or start.
 */
import { hostLabel } from '../../../shared/contract/hosts';
import type { Host } from '../host/host';
import { lastLine, runOnHost } from './run';

export type EngineKind = 'docker' | 'podman';

export interface Engine {
  kind: EngineKind;
  /** The command that runs it on its host (a name found on PATH, or an absolute path). */
  path: string;
  /** Its version, as it says it (the server's for Docker). */
  version: string;
  /** The environment every call of the engine gets (PATH, CONTAINERS_CONF, DOCKER_HOST…): no secrets. */
  env: Record<string, string>;
}

export type EngineProblemKind = 'missing' | 'stopped' | 'failed';

/** Why an engine cannot be used, in one sentence (`message`). */
export class EngineError extends Error {
  constructor(
    readonly kind: EngineProblemKind,
    readonly engine: EngineKind,
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

export interface EngineSearch {
  /** The environment the engine runs with (PATH to find it, CONTAINERS_CONF, DOCKER_HOST, CONTAINER_HOST…). */
  env: Record<string, string>;
  /** Commands to try per engine. Default: `docker` and `podman` on PATH. */
  paths?: Partial<Record<EngineKind, string>>;
  /** Which engine wins when both work. Default: Podman (no daemon running as root behind the containers). */
  prefer?: EngineKind;
}

const NAMES: Record<EngineKind, string> = { docker: 'Docker', podman: 'Podman' };

const INSTALL: Record<EngineKind, string> = {
  docker: 'install Docker (Docker Desktop, or docker.io from your distribution)',
  podman: 'install Podman (the podman package of your distribution, or Podman Desktop)',
};

const START: Record<EngineKind, string> = {
  docker: 'start Docker (Docker Desktop, or `systemctl start docker`)',
  podman: 'start Podman (`podman machine start` where it runs in a virtual machine, or its service)',
};

/** Runs `<engine> version` and says what it is, or throws an EngineError saying why it cannot be used. */
export async function probeEngine(host: Host, kind: EngineKind, path: string, env: Record<string, string>): Promise<Engine> {
  const format = kind === 'docker' ? '{{.Server.Version}}' : '{{.Client.Version}}';
  const result = await runOnHost(host, [path, 'version', '--format', format], { env, timeoutMs: 30_000, maxStdout: 64 * 1024 });
  if (result.error !== null || result.code === 127 || result.code === 126) {
    throw new EngineError('missing', kind, `${NAMES[kind]} was not found on ${hostName(host)} (${path}): ${INSTALL[kind]}.`);
  }
  const version = result.stdout.trim().split('\n')[0]?.trim() ?? '';
  if (result.code === 0 && /^\d[\w.+~-]*$/.test(version)) return { kind, path: await absolutePath(host, path, env), version, env };
  const said = lastLine(result.stderr) || lastLine(result.stdout);
  if (/cannot connect|is the docker daemon running|unable to connect|connection refused|no such file or directory.*sock/i.test(result.stderr)) {
    throw new EngineError('stopped', kind, `${NAMES[kind]} is installed on ${hostName(host)} but not running: ${START[kind]}.${said ? ` (It said: ${said})` : ''}`);
  }
  throw new EngineError('failed', kind, `${NAMES[kind]} on ${hostName(host)} does not work (exit ${result.code ?? result.signal}): ${said || 'it said nothing'}.`);
}

/**
 * The engine to use on `host`: the preferred one when both work, else the one that works. Throws the
 * preferred engine's problem (or the one of the engine that is installed) when none works.
 */
export async function detectEngine(host: Host, search: EngineSearch): Promise<Engine> {
  const prefer = search.prefer ?? 'podman';
  const order: EngineKind[] = prefer === 'podman' ? ['podman', 'docker'] : ['docker', 'podman'];
  const probes = await Promise.allSettled(order.map((kind) => probeEngine(host, kind, search.paths?.[kind] ?? kind, search.env)));
  for (const p of probes) if (p.status === 'fulfilled') return p.value;
  const errors = probes.map((p) => (p.status === 'rejected' ? p.reason : null)).filter((e): e is EngineError => e instanceof EngineError);
  const installed = errors.find((e) => e.kind !== 'missing');
  if (installed) throw installed;
  if (errors.length === order.length) {
    throw new EngineError('missing', prefer, `No container engine was found on ${hostName(host)}: install Podman or Docker.`);
  }
  throw probes.map((p) => (p.status === 'rejected' ? p.reason : null)).find(Boolean) as Error;
}

/** The engine's absolute path: a process given another PATH (the container's) still starts the same engine. */
async function absolutePath(host: Host, command: string, env: Record<string, string>): Promise<string> {
  if (command.startsWith('/')) return command;
  const r = await runOnHost(host, ['/bin/sh', '-c', 'command -v -- "$1"', 'sh', command], { env, timeoutMs: 10_000, maxStdout: 4096 });
  const found = r.stdout.trim();
  return r.code === 0 && found.startsWith('/') ? found : command;
}

function hostName(host: Host): string {
  return host.id === 'local' ? 'this machine' : `the host ${hostLabel(host.id)}`;
}
