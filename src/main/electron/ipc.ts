import { ipcMain, type BrowserWindow } from 'electron';
import type { AppCore } from '../app-core';
import { batchEvents } from '../core/base/event-batches';
import type { Disposable } from '../core/base/lifecycle';
import { APP_ORIGIN } from './protocol';

/** Electron transport: the same router as the WebSocket, reached through the preload's bridge. */
export function connectIpc(core: AppCore, getWindow: () => BrowserWindow | null): Disposable {
  // Events of one event-loop turn go in one IPC message, as over the WebSocket.
  const events = batchEvents(
    core.bus,
    (name, payload) => ({ name, payload }),
    (batch) => {
      const win = getWindow();
      if (win && !win.isDestroyed()) win.webContents.send('sb:events', batch);
    },
  );
  ipcMain.handle('sb:invoke', async (event, method: unknown, params: unknown) => {
    // Only our own page may call the core.
    if (!event.senderFrame || !event.senderFrame.url.startsWith(`${APP_ORIGIN}/`)) {
      return { ok: false, error: { code: 'forbidden', message: 'not the Switchboard window' } };
    }
    const result = await core.router.invoke(method, params);
    // The events the request caused reach the page before its answer.
    events.flush();
    return result;
  });
  return {
    dispose() {
      ipcMain.removeHandler('sb:invoke');
      events.dispose();
    },
  };
}
