import { BrowserWindow, type WebContents } from 'electron';
import { join } from 'node:path';
import { APP_ORIGIN } from './protocol';

/**
 * The app window: sandboxed renderer, context isolation, no Node, no navigation, no popups. Its title
 * follows the page's (the renderer sets it: the active tab, then the app's name).
 */
export function createMainWindow(preloadDir: string, iconPath: string): BrowserWindow {
  const win = new BrowserWindow({
    width: 1400,
    height: 900,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Switchboard',
    // Linux and Windows show it in the title bar and task bar (macOS takes the bundle's .icns).
    icon: iconPath,
    backgroundColor: '#1e1f22',
    webPreferences: {
      preload: join(preloadDir, 'index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      spellcheck: false,
      disableBlinkFeatures: 'Auxclick',
    },
  });
  hardenContents(win.webContents);
  win.once('ready-to-show', () => win.show());
  void win.loadURL(`${APP_ORIGIN}/index.html`);
  return win;
}

export function hardenContents(contents: WebContents): void {
  contents.on('will-navigate', (e, url) => {
    if (!url.startsWith(`${APP_ORIGIN}/`)) e.preventDefault();
  });
  contents.on('will-redirect', (e) => e.preventDefault());
  contents.on('will-attach-webview', (e) => e.preventDefault());
  // Nothing opens a window: links go through app.openExternal after the user confirmed them in the app.
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}
