import { hostKindOf } from '../../../shared/contract/hosts';
import type { Disposable } from '../base/lifecycle';
import type { Host } from '../host/host';
import { placeServer, startRelay, type LineAnswerer, type RelayLink } from './relay-link';

/**
 * Where the delegation server's file is kept on a host, as a sh word. On an SSH host: beside the helper, in
 * ~/.switchboard-server (this user's alone, mode 0700). In a container: its own /tmp, which no one outside it
 * shares (the fence mounts only the session's folders), never a mounted folder.
 */
const SERVER_DIR = { ssh: '"$HOME/.switchboard-server/delegation"', container: '/tmp/.switchboard-delegation' } as const;

/**
 * The relays of the sessions whose agents run away from this machine (an SSH host, a container): one per session,
 * started when its delegation server is given (session/new, resume, load) and stopped when it is closed. Its
 * channel is the host's own stream to the core (see relay.ts): a container's through its engine's exec stdio, so
 * nothing is mounted into it and nothing in it listens beyond its own /tmp; an SSH host's through the helper's
 * connection, so nothing listens on a network port of the host.
 */
export class SessionRelays implements Disposable {
  private readonly links = new Map<string, RelayLink>();

  constructor(
    private readonly hosts: (hostId: string) => Promise<Host>,
    private readonly answer: LineAnswerer,
  ) {}

  /** The session's relay on `hostId`, a new one (its previous one is stopped); `local`: the delegation server's file here. */
  async open(sessionId: string, hostId: string, local: string): Promise<RelayLink> {
    this.close(sessionId);
    const kind = hostKindOf(hostId);
    if (kind !== 'ssh' && kind !== 'container') throw new Error(`the host ${hostId} is not an SSH host nor a container`);
    const host = await this.hosts(hostId);
    const file = await placeServer(host, local, SERVER_DIR[kind]);
    const link = await startRelay(host, file, this.answer);
    this.links.set(sessionId, link);
    void link.ended.then(() => void (this.links.get(sessionId) === link && this.links.delete(sessionId)));
    return link;
  }

  close(sessionId: string): void {
    this.links.get(sessionId)?.dispose();
    this.links.delete(sessionId);
  }

  dispose(): void {
    for (const link of this.links.values()) link.dispose();
    this.links.clear();
  }
}
