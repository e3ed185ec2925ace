import type { BrowserWindow, IpcMainEvent } from 'electron';
import { describe, expect, it } from 'vitest';
import { installNotifications, type DesktopNotification } from '../../../src/main/electron/notifications';

// Electron itself cannot run here: its ipcMain, Notification and window are stand-ins (the edge of the
// machine); what is checked is what Switchboard asks of them.

function setup(supported = true) {
  const listeners = new Map<string, (event: IpcMainEvent, ...args: unknown[]) => void>();
  const shown: Array<{ title: string; body: string; click(): void; closed: boolean }> = [];
  const sent: Array<[string, unknown]> = [];
  const calls: string[] = [];
  const win = {
    isDestroyed: () => false,
    isMinimized: () => true,
    restore: () => calls.push('restore'),
    show: () => calls.push('show'),
    focus: () => calls.push('focus'),
    webContents: { send: (channel: string, tag: unknown) => sent.push([channel, tag]) },
  } as unknown as BrowserWindow;
  const ipc = { on: (channel: string, l: (event: IpcMainEvent, ...args: unknown[]) => void) => listeners.set(channel, l), removeAllListeners: (c: string) => listeners.delete(c) };
  const make = (o: { title: string; body: string }): DesktopNotification => {
    let onClick = () => {};
    const n = { ...o, click: () => onClick(), closed: false };
    return {
      on: (_e, l) => (onClick = l),
      show: () => shown.push(n),
      close: () => (n.closed = true),
    };
  };
  const handle = installNotifications(ipc, make, () => supported, () => win, 'app://switchboard');
  const send = (url: string, ...args: unknown[]) => listeners.get('sb:notify')?.({ senderFrame: { url } } as unknown as IpcMainEvent, ...args);
  return { shown, sent, calls, send, handle, listeners };
}

describe('desktop notifications under Electron', () => {
  it("the app's page shows one through Electron's Notification; a click brings the window up on the notification's tab", () => {
    const s = setup();
    s.send('app://switchboard/index.html', 'Spend a lot paused by its limit', '3.0k tokens spent', 'inbox');
    expect(s.shown.map((n) => [n.title, n.body])).toEqual([['Spend a lot paused by its limit', '3.0k tokens spent']]);
    s.shown[0]!.click();
    expect(s.calls).toEqual(['restore', 'show', 'focus']);
    expect(s.sent).toEqual([['sb:notification-click', 'inbox']]);
    s.handle.dispose();
    expect(s.shown[0]!.closed).toBe(true);
    expect(s.listeners.has('sb:notify')).toBe(false);
  });

  it('another page, an empty title, or a system without notifications shows nothing; text is bounded and non-text dropped', () => {
    const s = setup();
    s.send('https://evil.example/', 'hi', 'there', null);
    s.send('app://switchboard.evil/', 'hi', 'there', null);
    s.send('app://switchboard/', '', 'no title', null);
    s.send('app://switchboard/', { toString: () => 'object' }, 'x', null);
    expect(s.shown).toEqual([]);
    s.send('app://switchboard/', 'T'.repeat(5000), 'B'.repeat(5000), 42);
    expect(s.shown.map((n) => [n.title.length, n.body.length])).toEqual([[200, 300]]);
    s.shown[0]!.click();
    expect(s.sent).toEqual([['sb:notification-click', '']]);
    const off = setup(false);
    off.send('app://switchboard/', 'hi', 'there', null);
    expect(off.shown).toEqual([]);
  });
});
