import type { BrowserWindow, IpcMainEvent } from 'electron';
import type { Disposable } from '../core/base/lifecycle';

/** What is used of Electron's Notification (a stand-in in tests: Electron does not run there). */
export interface DesktopNotification {
  on(event: 'click', listener: () => void): unknown;
  show(): void;
  close(): void;
}
export type MakeNotification = (options: { title: string; body: string }) => DesktopNotification;

export interface NotificationIpc {
  on(channel: string, listener: (event: IpcMainEvent, ...args: unknown[]) => void): unknown;
  removeAllListeners(channel: string): unknown;
}

const MAX_TITLE = 200;
const MAX_BODY = 300;
const MAX_TAG = 200;
/** Notifications kept alive for their click (Electron forgets a click handler whose notification was collected). */
const KEPT = 20;

const text = (v: unknown, max: number): string => (typeof v === 'string' ? v : '').slice(0, max);

/**
 * Desktop notifications under Electron go through Electron's Notification, asked by the page over `sb:notify`
 * (only from the app's own page; text bounded). A click brings the window up and tells the page which tab to show.
 */
export function installNotifications(ipc: NotificationIpc, make: MakeNotification, supported: () => boolean, getWindow: () => BrowserWindow | null, appOrigin: string): Disposable {
  const kept: DesktopNotification[] = [];
  ipc.on('sb:notify', (event, title, body, tag) => {
    const url = event.senderFrame?.url ?? '';
    if (!url.startsWith(`${appOrigin}/`) || !supported()) return;
    const shownTitle = text(title, MAX_TITLE);
    if (!shownTitle) return;
    const tabId = text(tag, MAX_TAG);
    const n = make({ title: shownTitle, body: text(body, MAX_BODY) });
    n.on('click', () => {
      const win = getWindow();
      if (!win || win.isDestroyed()) return;
      if (win.isMinimized()) win.restore();
      win.show();
      win.focus();
      win.webContents.send('sb:notification-click', tabId);
    });
    kept.push(n);
    if (kept.length > KEPT) kept.shift();
    n.show();
  });
  return {
    dispose() {
      ipc.removeAllListeners('sb:notify');
      for (const n of kept.splice(0)) n.close();
    },
  };
}
