import { createContext, useContext, useEffect } from 'react';
import type { EventName, PayloadOf } from '@shared/contract';
import type { Api } from '../ipc/client';

export const ApiContext = createContext<Api | null>(null);

export function useApi(): Api {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside ApiContext');
  return api;
}

/** Subscribes to a contract event for the component's lifetime. */
export function useEvent<N extends EventName>(name: N, listener: (payload: PayloadOf<N>) => void, deps: unknown[] = []): void {
  const api = useApi();
  useEffect(() => api.on(name, listener), [api, name, ...deps]);
}
