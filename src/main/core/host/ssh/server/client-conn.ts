import type { Socket } from 'node:net';
import { frame, type ServerMessage } from '../protocol';

/** Lines said in the daemon's log per connection about answers it dropped (then one in a hundred). */
const MAX_DROP_LINES = 3;

type Watcher = { dispose(): void };

/**
 * One client connection to the daemon, and what belongs to it: the answers (and notes) to the requests it
 * sent, and the watches it started. Request ids and watch numbers are the client's, so they mean nothing on
 * another connection (a new one starts them again): an answer that ends after its connection is gone is
 * dropped, never written to the connection that replaced it, and its watches stop with it (a client that
 * comes back starts them again).
 */
export class ClientConn {
  private ended = false;
  private readonly watches = new Map<number, { token: object; watcher: Watcher | null }>();
  /** Answers dropped because this connection was gone when they were ready. */
  dropped = 0;

  constructor(
    private readonly sock: Socket,
    private readonly isCurrent: (conn: ClientConn) => boolean,
    private readonly log: (line: string) => void,
  ) {}

  get open(): boolean {
    return !this.ended && !this.sock.destroyed && this.isCurrent(this);
  }

  send(msg: ServerMessage): void {
    if (this.open) this.sock.write(frame(msg));
  }

  /** The answer (or a note) to a request this connection sent: to it, or nowhere. */
  answer(msg: Extract<ServerMessage, { t: 'res' | 'note' }>): void {
    if (this.open) {
      this.sock.write(frame(msg));
      return;
    }
    this.dropped++;
    if (this.dropped <= MAX_DROP_LINES || this.dropped % 100 === 0) this.log(`dropped the ${msg.t === 'res' ? 'answer' : 'note'} to request ${msg.id} of a connection that is gone (${this.dropped} so far)`);
  }

  /** Starts watch `w` of this connection (replacing one of the same number); its events go to this connection only. */
  async watch(w: number, start: (onEvent: (ev: unknown) => void) => Promise<Watcher>): Promise<void> {
    const token = {};
    this.watches.get(w)?.watcher?.dispose();
    this.watches.set(w, { token, watcher: null });
    let watcher: Watcher;
    try {
      watcher = await start((ev) => {
        if (this.watches.get(w)?.token === token) this.send({ t: 'watch', w, ev });
      });
    } catch (e) {
      if (this.watches.get(w)?.token === token) this.watches.delete(w);
      throw e;
    }
    const entry = this.watches.get(w);
    // Unwatched, or started again, or the connection ended, while it started.
    if (this.ended || entry?.token !== token) watcher.dispose();
    else entry.watcher = watcher;
  }

  unwatch(w: number): void {
    this.watches.get(w)?.watcher?.dispose();
    this.watches.delete(w);
  }

  destroy(): void {
    this.sock.destroy();
  }

  /** The connection is gone (closed, or replaced by a new one): its watches stop. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    for (const { watcher } of this.watches.values()) watcher?.dispose();
    this.watches.clear();
  }
}
