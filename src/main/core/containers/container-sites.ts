/**
 * Where containers can run, and what running them there takes: this machine (the CLI Switchboard ships, its
 * scratch folder, the engine's environment of this process), or an SSH host (the CLI carried there and run
 * by the host's node, a scratch folder in the host's ~/.switchboard-server, the host's own environment for
 * the engine: Podman rootless as the host's user, or the host's Docker; the `api` network's proxy runs there
 * too, host-proxy.ts). A container never runs inside another container.
 */
import { IpcFailure } from '../../../shared/contract';
import { hostKindOf, hostLabel } from '../../../shared/contract/hosts';
import type { Host } from '../host/host';
import type { DevcontainerCli } from './container-lifecycle';
import { carryCli } from './host-cli';

export interface ContainerSite {
  cli: DevcontainerCli;
  scratchDir: string;
  /** The environment of the engine's calls there. */
  engineEnv: Record<string, string>;
  /** How the fence's texts name the machine the container runs on. */
  where: string;
}

export interface LocalSite {
  cli: DevcontainerCli;
  scratchDir: string;
  engineEnv: () => Record<string, string>;
}

export class ContainerSites {
  /** The CLI carried to each SSH host, by host id (a failed carry is tried again next time). */
  private readonly carried = new Map<string, Promise<{ cli: DevcontainerCli; scratchDir: string }>>();

  constructor(private readonly local: LocalSite) {}

  /** Throws (IpcFailure) when a container cannot run on the host at all. */
  check(hostId: string): void {
    const kind = hostKindOf(hostId);
    if (kind === 'local' || kind === 'ssh') return;
    throw new IpcFailure('unavailable', `a container cannot run on ${hostLabel(hostId)}: choose this machine or an SSH host`);
  }

  /** The engine's environment on the host, before anything is carried there. */
  engineEnv(hostId: string): Record<string, string> {
    // An SSH host's engine runs in the host's own environment (its user's PATH, HOME, runtime folder).
    return hostKindOf(hostId) === 'local' ? this.local.engineEnv() : {};
  }

  async site(hostId: string, inner: Host): Promise<ContainerSite> {
    this.check(hostId);
    if (hostKindOf(hostId) === 'local') return { cli: this.local.cli, scratchDir: this.local.scratchDir, engineEnv: this.local.engineEnv(), where: 'this machine' };
    let carried = this.carried.get(hostId);
    if (!carried) {
      carried = carryCli(inner, this.local.cli, hostLabel(hostId));
      carried.catch(() => this.carried.delete(hostId));
      this.carried.set(hostId, carried);
    }
    const { cli, scratchDir } = await carried;
    return { cli, scratchDir, engineEnv: {}, where: `the host ${hostLabel(hostId)}` };
  }
}
