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
    // The main process sends the events of one turn together (see src/main/core/base/event-batches.ts).
    const handler = (_e: IpcRendererEvent, batch: Array<{ name: string; payload: unknown }>) => {
      for (const e of batch) listener(e.name, e.payload);
    };
    ipcRenderer.on('sb:events', handler);
    return () => ipcRenderer.removeListener('sb:events', handler);
  },
};

contextBridge.exposeInMainWorld('switchboard', bridge);

/** Desktop notifications through Electron's own (main shows them; a click says which tab to show). */
contextBridge.exposeInMainWorld('switchboardNotify', {
  show(title: string, body: string, tag: string | null): void {
    ipcRenderer.send('sb:notify', String(title).slice(0, 200), String(body).slice(0, 300), tag === null ? '' : String(tag).slice(0, 200));
  },
  onClick(listener: (tag: string) => void): () => void {
    const handler = (_e: IpcRendererEvent, tag: unknown) => listener(typeof tag === 'string' ? tag : '');
    ipcRenderer.on('sb:notification-click', handler);
    return () => ipcRenderer.removeListener('sb:notification-click', handler);
  },
});
