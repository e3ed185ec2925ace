import type { EventName, ParamsOf, PayloadOf, RequestName, Result, ResultOf, Transport } from '@shared/contract';
import { createWsTransport, takeToken } from './ws-transport';

declare global {
  interface Window {
    /** Present only under Electron: the preload's contract bridge. */
    switchboard?: Transport;
  }
}

/** The typed contract client. The renderer uses only this; it does not know which transport carries it. */
export interface Api {
  call<N extends RequestName>(name: N, params: ParamsOf<N>): Promise<Result<ResultOf<N>>>;
  on<N extends EventName>(name: N, listener: (payload: PayloadOf<N>) => void): () => void;
}

export function createApi(transport: Transport): Api {
  const byName = new Map<string, Set<(payload: unknown) => void>>();
  transport.subscribe((name, payload) => {
    for (const l of byName.get(name) ?? []) l(payload);
  });
  return {
    call: (name, params) => transport.invoke(name, params) as Promise<Result<ResultOf<typeof name>>>,
    on(name, listener) {
      let set = byName.get(name);
      if (!set) byName.set(name, (set = new Set()));
      const l = listener as (payload: unknown) => void;
      set.add(l);
      return () => set.delete(l);
    },
  };
}

export async function connect(): Promise<Api> {
  if (window.switchboard) return createApi(window.switchboard);
  const token = takeToken();
  if (!token) throw new Error('This page needs the address Switchboard printed when it started (it carries a one-time token).');
  const transport = createWsTransport(token);
  await transport.ready;
  return createApi(transport);
}

/** Unwraps a result for UI code that shows the error itself. */
export async function must<T>(p: Promise<Result<T>>): Promise<T> {
  const r = await p;
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}
