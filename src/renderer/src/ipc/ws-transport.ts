import { err, type ClientFrame, type Result, type ServerFrame, type Transport } from '@shared/contract';

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

/** Browser mode: the contract over a WebSocket to the main-process core on 127.0.0.1. */
export function createWsTransport(token: string): Transport & { ready: Promise<void> } {
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws?token=${encodeURIComponent(token)}`;
  const socket = new WebSocket(url);
  const pending = new Map<number, (r: Result<unknown>) => void>();
  const listeners = new Set<(name: string, payload: unknown) => void>();
  let nextId = 1;
  let closed = false;

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
    for (const l of listeners) l('app.notice', { level: 'error', message: 'Disconnected from the Switchboard core. Restart it and reload this page.' });
  });

  return {
    ready,
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
