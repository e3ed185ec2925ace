import type { Session } from 'electron';

/**
 * What the Switchboard page may use: writing to the clipboard (copy buttons). Its notifications go through
 * Electron's Notification (see notifications.ts), never the page's own: one path, not two.
 */
const GRANTED = new Set<string>(['clipboard-sanitized-write']);

const fromApp = (urlOrOrigin: string | undefined, appOrigin: string): boolean =>
  !!urlOrOrigin && (urlOrOrigin === appOrigin || urlOrOrigin.startsWith(`${appOrigin}/`));

/** Whether `permission` is granted to a page at `urlOrOrigin`: only the app's own page, only what it needs. */
export function permissionGranted(permission: string, urlOrOrigin: string | undefined, appOrigin: string): boolean {
  return GRANTED.has(permission) && fromApp(urlOrOrigin, appOrigin);
}

/**
 * Both of Chromium's permission paths: requests (a prompt would be shown) and checks (an API asks
 * whether it already has the permission, e.g. Notification.permission, navigator.permissions.query,
 * device enumeration). Without a check handler every check answers yes.
 */
export function installPermissionHandlers(session: Session, appOrigin: string): void {
  session.setPermissionRequestHandler((_wc, permission, callback, details) => callback(permissionGranted(permission, details.requestingUrl, appOrigin)));
  session.setPermissionCheckHandler((_wc, permission, requestingOrigin) => permissionGranted(permission, requestingOrigin, appOrigin));
  // Device pickers (HID, serial, USB) are never offered.
  session.setDevicePermissionHandler(() => false);
}
