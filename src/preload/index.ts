import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { isRequestName, type Result, type Transport } from '../shared/contract';

/**
 * The only thing the renderer gets: the contract's invoke/subscribe. No Node, no ipcRenderer, no
 * arbitrary channels; method names outside the contract are refused here and again in main.
 */
const bridge: Transport = {
  invoke(method: string, params: unknown): Promise<Result<unknown>> {
    if (!isRequestName(method)) {
      return Promise.resolve({ ok: false, error: { code: 'unknown_method', message: `unknown method: ${String(method).slice(0, 200)}` } });
    }
    return ipcRenderer.invoke('sb:invoke', method, params) as Promise<Result<unknown>>;
  },
  subscribe(listener: (name: string, payload: unknown) => void): () => void {
    const handler = (_e: IpcRendererEvent, name: string, payload: unknown) => listener(name, payload);
    ipcRenderer.on('sb:event', handler);
    return () => ipcRenderer.removeListener('sb:event', handler);
  },
};

contextBridge.exposeInMainWorld('switchboard', bridge);
