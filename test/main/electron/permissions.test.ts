import type { Session } from 'electron';
import { describe, expect, it } from 'vitest';
import { installPermissionHandlers } from '../../../src/main/electron/permissions';

// Electron itself cannot run here: the handlers are installed on a stand-in for the session (the edge of
// the machine) and asked what Chromium would ask.
type CheckHandler = (wc: null, permission: string, origin: string, details: object) => boolean;
type RequestHandler = (wc: null, permission: string, cb: (granted: boolean) => void, details: { requestingUrl: string }) => void;

function installed() {
  let check: CheckHandler | null = null;
  let request: RequestHandler | null = null;
  let device: (() => boolean) | null = null;
  const session = {
    setPermissionCheckHandler: (h: CheckHandler) => (check = h),
    setPermissionRequestHandler: (h: RequestHandler) => (request = h),
    setDevicePermissionHandler: (h: () => boolean) => (device = h),
  };
  installPermissionHandlers(session as unknown as Session, 'app://switchboard');
  return {
    check: (permission: string, origin: string) => check!(null, permission, origin, {}),
    request: (permission: string, url: string) => {
      let granted: boolean | null = null;
      request!(null, permission, (g) => (granted = g), { requestingUrl: url });
      return granted;
    },
    device: () => device!(),
  };
}

describe('Electron permissions', () => {
  const h = installed();

  it('answers permission checks, not only requests: nothing but clipboard writes, for the app only (notifications go through Electron’s own)', () => {
    expect(h.check('clipboard-sanitized-write', 'app://switchboard')).toBe(true);
    for (const p of ['notifications', 'media', 'geolocation', 'clipboard-read', 'hid', 'serial', 'usb', 'openExternal', 'fileSystem', 'unknown']) {
      expect(h.check(p, 'app://switchboard'), p).toBe(false);
    }
    for (const origin of ['https://evil.example', 'app://switchboard.evil', 'app://other', 'file://', 'null', '']) {
      expect(h.check('clipboard-sanitized-write', origin), origin).toBe(false);
    }
    expect(h.device()).toBe(false);
  });

  it('grants requests by the same rule', () => {
    expect(h.request('clipboard-sanitized-write', 'app://switchboard/index.html')).toBe(true);
    expect(h.request('notifications', 'app://switchboard/index.html')).toBe(false);
    expect(h.request('media', 'app://switchboard/index.html')).toBe(false);
    expect(h.request('clipboard-sanitized-write', 'https://evil.example/')).toBe(false);
    expect(h.request('clipboard-sanitized-write', 'app://switchboard.evil/')).toBe(false);
  });
});
