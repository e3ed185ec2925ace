import { app, BrowserWindow, dialog, ipcMain, Notification, session, shell } from 'electron';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppCore } from '../app-core';
import { acquireInstanceLock, InstanceLockedError, type InstanceLock } from '../core/platform/instance-lock';
import { connectIpc } from './ipc';
import { installNotifications } from './notifications';
import { installPermissionHandlers } from './permissions';
import { APP_ORIGIN, registerAppScheme, serveRenderer } from './protocol';
import { safeStorageCipher } from './safe-storage-cipher';
import { installAppMenu } from './menu';
import { createMainWindow } from './window';

// The Electron glue: window, menu, protocol, IPC. Everything else is plain Node in AppCore.
const here = dirname(fileURLToPath(import.meta.url));
registerAppScheme();

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  let win: BrowserWindow | null = null;
  let core: AppCore | null = null;

  app.on('second-instance', () => {
    if (!win) return;
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  });

  app.on('web-contents-created', (_e, contents) => {
    contents.on('will-attach-webview', (ev) => ev.preventDefault());
  });

  let lock: InstanceLock | null = null;
  void app.whenReady().then(() => {
    // Electron's lock keeps out a second desktop app; the data folder's keeps out browser mode on the same data.
    try {
      lock = acquireInstanceLock(app.getPath('userData'), 'electron');
    } catch (e) {
      if (!(e instanceof InstanceLockedError)) throw e;
      dialog.showErrorBox('Switchboard is already running', e.message);
      app.exit(2);
      return;
    }
    app.on('will-quit', () => lock?.release());
    // No permissions (camera, geolocation…) for anything the renderer shows: its notifications go through Electron's.
    installPermissionHandlers(session.defaultSession, APP_ORIGIN);
    serveRenderer(join(here, '../renderer'));
    core = new AppCore({
      dataDir: app.getPath('userData'),
      transport: 'electron',
      version: app.getVersion(),
      openExternal: async (url) => {
        await shell.openExternal(url);
        return true;
      },
      secretCipher: safeStorageCipher(),
    });
    connectIpc(core, () => win);
    installNotifications(ipcMain, (o) => new Notification(o), () => Notification.isSupported(), () => win, APP_ORIGIN);
    const iconPath = join(here, '../../resources/icons/512x512.png');
    installAppMenu({ dataDir: app.getPath('userData'), iconPath });
    win = createMainWindow(join(here, '../preload'), iconPath);
    win.on('closed', () => (win = null));
  });

  let quitting = false;
  app.on('before-quit', (e) => {
    if (quitting || !core) return;
    // Stop every agent and terminal before exiting: no orphans.
    e.preventDefault();
    quitting = true;
    void core.dispose().finally(() => app.quit());
  });

  app.on('window-all-closed', () => app.quit());
}
