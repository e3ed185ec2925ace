// The one contract client of tests and benchmarks: speaks the browser-mode WebSocket (as the renderer does)
// from Node, for setup steps a UI test does not click through (add agents, create sessions, settings…).
import WebSocket from 'ws';
import type { ClientFrame, ServerFrame } from '../../src/shared/contract';
import type { AppServer } from './app-server';

export interface ContractClient {
  call<T = unknown>(method: string, params: unknown): Promise<T>;
  on(listener: (name: string, payload: unknown) => void): () => void;
  close(): void;
}

export async function connectContract(app: Pick<AppServer, 'port' | 'token' | 'origin'>): Promise<ContractClient> {
  const ws = new WebSocket(`ws://127.0.0.1:${app.port}/ws?token=${app.token}`, { origin: app.origin });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let nextId = 1;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; method: string }>();
  const listeners = new Set<(name: string, payload: unknown) => void>();
  ws.on('message', (raw) => {
    const frame = JSON.parse(raw.toString()) as ServerFrame;
    if (frame.type === 'result') {
      const w = waiting.get(frame.id);
      if (!w) return;
      waiting.delete(frame.id);
      if (frame.result.ok) w.resolve(frame.result.value);
      else w.reject(new Error(`${w.method}: ${frame.result.error.message}`));
    } else if (frame.type === 'events') {
      for (const e of frame.events) for (const l of listeners) l(e.name, e.payload);
    }
  });
  return {
    call<T>(method: string, params: unknown): Promise<T> {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        waiting.set(id, { resolve: resolve as (v: unknown) => void, reject, method });
        ws.send(JSON.stringify({ type: 'invoke', id, method, params } satisfies ClientFrame));
      });
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () => ws.close(),
  };
}

/** Sets one setting on a running app server. */
export async function setSetting(app: Pick<AppServer, 'port' | 'token' | 'origin'>, key: string, value: unknown): Promise<void> {
  const c = await connectContract(app);
  try {
    await c.call('settings.set', { key, value });
  } finally {
    c.close();
  }
}
