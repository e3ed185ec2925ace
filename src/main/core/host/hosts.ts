import { hostKindOf, type HostKind } from '../../../shared/contract/hosts';
import type { Disposable } from '../base/lifecycle';
import type { Host } from './host';
import { LocalHost } from './local/local-host';

/** Brings up a host that is not connected yet (an SSH host: connects it); rejects with the reason, in words. */
export type HostConnector = (id: string) => Promise<Host>;

/**
 * The hosts sessions can run on, by id: 'local' (this machine), each SSH host while it is connected, each
 * session container while it runs. A host that is not there yet is brought up by the connector of its kind.
 */
export class Hosts {
  readonly local: Host;
  private readonly byId = new Map<string, Host>();
  private readonly connectors = new Map<HostKind, HostConnector>();
  private readonly registered = new Set<(host: Host) => void>();

  constructor(local: Host = new LocalHost()) {
    this.local = local;
    this.byId.set(local.id, local);
  }

  /** The host with this id; throws for an unknown one (a session names its host, so a missing one is a bug or a removed host). */
  get(id: string): Host {
    const host = this.byId.get(id);
    if (!host) throw new Error(`no host "${id}"`);
    return host;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** The other hosts reachable now (connected, or reconnecting), not this machine. */
  remotes(): Host[] {
    return [...this.byId.values()].filter((h) => h !== this.local);
  }

  /** The host, connected first when it is not (through the connector the hosts service sets). */
  async ensure(id: string): Promise<Host> {
    const host = this.byId.get(id);
    if (host) return host;
    const kind = hostKindOf(id);
    const connector = kind ? this.connectors.get(kind) : undefined;
    if (!connector) throw new Error(`the host "${id}" is not connected`);
    return connector(id);
  }

  /** Makes a connected host reachable by its id until the returned disposable is disposed. */
  register(host: Host): Disposable {
    if (host.id === this.local.id) throw new Error('the local host is always there');
    this.byId.set(host.id, host);
    for (const listener of this.registered) listener(host);
    return {
      dispose: () => {
        if (this.byId.get(host.id) === host) this.byId.delete(host.id);
      },
    };
  }

  /** Calls `listener` with each host made reachable from now on (a host that connects for the first time). */
  onRegister(listener: (host: Host) => void): Disposable {
    this.registered.add(listener);
    return { dispose: () => void this.registered.delete(listener) };
  }

  /** Sets (or with null, drops) how hosts of one kind are brought up. */
  setConnector(kind: Exclude<HostKind, 'local'>, connector: HostConnector | null): void {
    if (connector) this.connectors.set(kind, connector);
    else this.connectors.delete(kind);
  }
}
