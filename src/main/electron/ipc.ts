import { ipcMain, type BrowserWindow } from 'electron';
import type { AppCore } from '../core/app-core';
import type { Disposable } from '../core/lifecycle';
import { APP_ORIGIN } from './protocol';

/** Electron transport: the same router as the WebSocket, reached through the preload's bridge. */
export function connectIpc(core: AppCore, getWindow: () => BrowserWindow | null): Disposable {
  ipcMain.handle('sb:invoke', (event, method: unknown, params: unknown) => {
    // Only our own page may call the core.
    if (!event.senderFrame || !event.senderFrame.url.startsWith(`${APP_ORIGIN}/`)) {
      return { ok: false, error: { code: 'forbidden', message: 'not the Switchboard window' } };
    }
    return core.router.invoke(method, params);
  });
  const link = core.bus.connect((name, payload) => {
    const win = getWindow();
    if (win && !win.isDestroyed()) win.webContents.send('sb:event', name, payload);
  });
  return {
    dispose() {
      ipcMain.removeHandler('sb:invoke');
      link.dispose();
    },
  };
}
