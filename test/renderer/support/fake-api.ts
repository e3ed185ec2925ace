import { err, events, requests, type EventName, type ParamsOf, type PayloadOf, type RequestName, type Result, type ResultOf } from '@shared/contract';
import type { Api } from '../../../src/renderer/src/ipc/client';

type Handler<N extends RequestName> = (params: ParamsOf<N>) => Result<ResultOf<N>> | Promise<Result<ResultOf<N>>>;

/**
 * The renderer's contract client with the main process replaced by handlers (the edge of the renderer): each
 * request's params are checked against the contract's schema, as the main process checks them, and an event
 * is checked before it reaches the listeners. A request without a handler answers unknown_method.
 */
export class FakeApi implements Api {
  readonly calls: Array<{ name: RequestName; params: unknown }> = [];
  private readonly handlers = new Map<RequestName, (params: never) => Result<unknown> | Promise<Result<unknown>>>();
  private readonly listeners = new Map<string, Set<(payload: unknown) => void>>();

  handle<N extends RequestName>(name: N, handler: Handler<N>): this {
    this.handlers.set(name, handler as (params: never) => Result<unknown>);
    return this;
  }

  call<N extends RequestName>(name: N, params: ParamsOf<N>): Promise<Result<ResultOf<N>>> {
    this.calls.push({ name, params });
    const checked = requests[name].params.safeParse(params);
    if (!checked.success) return Promise.resolve(err('invalid_params', `${name}: ${checked.error.message}`));
    const handler = this.handlers.get(name);
    if (!handler) return Promise.resolve(err('unknown_method', `no handler for ${name} in this test`));
    return Promise.resolve(handler(params as never)) as Promise<Result<ResultOf<N>>>;
  }

  on<N extends EventName>(name: N, listener: (payload: PayloadOf<N>) => void): () => void {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    const l = listener as (payload: unknown) => void;
    set.add(l);
    return () => set.delete(l);
  }

  emit<N extends EventName>(name: N, payload: PayloadOf<N>): void {
    const checked = events[name].payload.safeParse(payload);
    if (!checked.success) throw new Error(`${name}: not a payload of the contract: ${checked.error.message}`);
    for (const l of [...(this.listeners.get(name) ?? [])]) l(payload);
  }

  listening(name: EventName): number {
    return this.listeners.get(name)?.size ?? 0;
  }

  callsOf<N extends RequestName>(name: N): Array<ParamsOf<N>> {
    return this.calls.filter((c) => c.name === name).map((c) => c.params as ParamsOf<N>);
  }
}

/** Lets pending promise callbacks (a handler's answer, the code awaiting it, what that calls next) run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await Promise.resolve();
}
