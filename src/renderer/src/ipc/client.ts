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

/** One request of the contract, any method, with its params. */
export type AnyRequest = { [N in RequestName]: { name: N; params: ParamsOf<N> } }[RequestName];

const keyOf = (name: string, params: unknown): string => `${name} ${JSON.stringify(params)}`;

/**
 * `early`: requests already sent, with their answers (what the first paint asks for, asked while the page's
 * script still runs). Each answer is taken by the first identical call, and dropped at the first event: an
 * answer older than an event may not show what the event reported, and its consumer, not listening yet,
 * would miss it.
 */
export function createApi(transport: Transport, early: ReadonlyArray<{ request: AnyRequest; answer: Promise<Result<unknown>> }> = []): Api {
  const byName = new Map<string, Set<(payload: unknown) => void>>();
  const prefetched = new Map<string, Promise<Result<unknown>>>();
  for (const { request, answer } of early) prefetched.set(keyOf(request.name, request.params), answer);
  transport.subscribe((name, payload) => {
    prefetched.clear();
    for (const l of byName.get(name) ?? []) l(payload);
  });
  return {
    call(name, params) {
      const key = keyOf(name, params);
      const answer = prefetched.get(key) ?? transport.invoke(name, params);
      prefetched.delete(key);
      return answer as Promise<Result<ResultOf<typeof name>>>;
    },
    on(name, listener) {
      let set = byName.get(name);
      if (!set) byName.set(name, (set = new Set()));
      const l = listener as (payload: unknown) => void;
      set.add(l);
      return () => set.delete(l);
    },
  };
}

/** Connects to the core; `early`: requests asked at once (over a WebSocket: in the socket's address). */
export async function connect(early: readonly AnyRequest[] = []): Promise<Api> {
  const bridge = window.switchboard;
  if (bridge) return createApi(bridge, early.map((request) => ({ request, answer: bridge.invoke(request.name, request.params) })));
  const token = takeToken();
  if (!token) throw new Error('This page needs the address Switchboard printed when it started (it carries a one-time token).');
  const transport = createWsTransport(
    token,
    early.map((r) => ({ method: r.name, params: r.params })),
  );
  await transport.ready;
  return createApi(
    transport,
    early.map((request, i) => ({ request, answer: transport.early[i]! })),
  );
}

/** Unwraps a result for UI code that shows the error itself. */
export async function must<T>(p: Promise<Result<T>>): Promise<T> {
  const r = await p;
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}
