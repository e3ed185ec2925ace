import type { ClientFrame, ServerFrame, Transport } from '@shared/contract';
import { err, type Result } from '@shared/contract/result';
import { setConnected } from './connection';

const TOKEN_KEY = 'switchboard.token';

/** Takes the launch token from the URL fragment (never sent to the server in a request line) and hides it. */
export function takeToken(): string | null {
  const match = /(?:^#|&)token=([0-9a-f]+)/.exec(location.hash);
  if (match) {
    sessionStorage.setItem(TOKEN_KEY, match[1]!);
    history.replaceState(null, '', location.pathname + location.search);
    return match[1]!;
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

/** How often a lost connection is tried again. */
const RECONNECT_MS = 1500;

/**
 * Browser mode: the contract over a WebSocket to the main-process core on 127.0.0.1. When the server goes
 * away, the page says so (useConnection) and tries again; once the server is back, the page reloads, so that
 * every view starts again from the core's state (its sessions, its agents) rather than from what it missed.
 */
/**
 * `early`: requests put in the socket's address, which the server answers (ids 1…n) as soon as it accepts
 * the socket, while the page's script still runs; their answers are `early` of the transport, in order.
 */
export function createWsTransport(
  token: string,
  early: ReadonlyArray<{ method: string; params: unknown }> = [],
): Transport & { ready: Promise<void>; early: Array<Promise<Result<unknown>>> } {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws?token=${encodeURIComponent(token)}`;
  const pending = new Map<number, (r: Result<unknown>) => void>();
  const listeners = new Set<(name: string, payload: unknown) => void>();
  const earlyAnswers = early.map((_, i) => new Promise<Result<unknown>>((resolve) => pending.set(i + 1, resolve)));
  let nextId = early.length + 1;
  let closed = false;
  const socket = new WebSocket(early.length > 0 ? `${url}&early=${encodeURIComponent(JSON.stringify(early))}` : url);

  const ready = new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve());
    socket.addEventListener('error', () => reject(new Error('could not connect to the Switchboard core')));
  });

  socket.addEventListener('message', (ev) => {
    const frame = JSON.parse(String(ev.data)) as ServerFrame;
    if (frame.type === 'result') {
      pending.get(frame.id)?.(frame.result);
      pending.delete(frame.id);
    } else if (frame.type === 'events') {
      for (const e of frame.events) for (const l of listeners) l(e.name, e.payload);
    }
  });

  socket.addEventListener('close', () => {
    closed = true;
    for (const resolve of pending.values()) resolve(err('unavailable', 'the connection to the Switchboard core was lost'));
    pending.clear();
    setConnected(false);
    retry();
  });

  /** Tries the server again until it answers, then reloads the page on it. */
  const retry = () => {
    setTimeout(() => {
      const probe = new WebSocket(url);
      let back = false;
      probe.addEventListener('open', () => {
        back = true;
        probe.close();
        location.reload();
      });
      probe.addEventListener('close', () => !back && retry());
    }, RECONNECT_MS);
  };

  return {
    ready,
    early: earlyAnswers,
    async invoke(method, params) {
      await ready;
      if (closed) return err('unavailable', 'the connection to the Switchboard core was lost');
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        socket.send(JSON.stringify({ type: 'invoke', id, method, params } satisfies ClientFrame));
      });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
