import { app, Menu, shell, type MenuItemConstructorOptions } from 'electron';

/**
 * The application menu with the usual roles (on macOS the app menu and the Edit menu are what make copy,
 * paste and select-all work in the window), and About: version, Electron, Chromium, Node, the data folder.
 */
export function installAppMenu(options: { dataDir: string; iconPath: string }): void {
  const isMac = process.platform === 'darwin';
  const { electron, chrome, node } = process.versions;
  app.setAboutPanelOptions({
    applicationName: 'Switchboard',
    applicationVersion: app.getVersion(),
    version: `Electron ${electron ?? '?'}, Chromium ${chrome ?? '?'}, Node ${node}`,
    credits: `Electron ${electron ?? '?'}\nChromium ${chrome ?? '?'}\nNode ${node}\n\nData folder: ${options.dataDir}`,
    copyright: `Data folder: ${options.dataDir}`,
    iconPath: options.iconPath,
  });
  const help: MenuItemConstructorOptions = {
    role: 'help',
    submenu: [
      ...(isMac ? [] : [{ role: 'about' as const, label: 'About Switchboard' }]),
      { label: 'Open the Data Folder', click: () => void shell.openPath(options.dataDir) },
    ],
  };
  Menu.setApplicationMenu(
    Menu.buildFromTemplate([
      ...(isMac ? [{ role: 'appMenu' as const }] : []),
      { role: 'fileMenu' },
      { role: 'editMenu' },
      { role: 'viewMenu' },
      { role: 'windowMenu' },
      help,
    ]),
  );
}
