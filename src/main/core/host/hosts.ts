import type { Host } from './host';
import { LocalHost } from './local/local-host';

/** The hosts sessions can run on, by id: 'local' (this machine) now; SSH hosts and worktrees later. */
export class Hosts {
  readonly local: Host;
  private readonly byId = new Map<string, Host>();

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
}
