import { useTabs } from '../../state/tabs';
import { visibleText } from '../../ui/VisibleText';

let asked = false;

/** Present only under Electron (the preload): notifications through Electron's own, not the page's. */
interface ElectronNotify {
  show(title: string, body: string, tag: string | null): void;
  onClick(listener: (tag: string) => void): () => void;
}
declare global {
  interface Window {
    switchboardNotify?: ElectronNotify;
  }
}

const electron = typeof window === 'undefined' ? undefined : window.switchboardNotify;
electron?.onClick((tabId) => {
  if (tabId) useTabs.getState().activate(tabId);
});

/**
 * A desktop notification, only while Switchboard is not focused: under Electron through Electron's own; in a
 * browser through the page's, asking for permission once.
 */
export function desktopNotify(title: string, body: string, tabId: string | null): void {
  if (typeof document === 'undefined' || document.hasFocus()) return;
  if (electron) return electron.show(visibleText(title), visibleText(body.slice(0, 300)), tabId);
  if (typeof Notification === 'undefined') return;
  const show = () => {
    try {
      // The title and body come from agents: their hidden characters are shown as tokens here too.
      const n = new Notification(visibleText(title), { body: visibleText(body.slice(0, 300)), tag: tabId ?? undefined });
      n.onclick = () => {
        window.focus();
        if (tabId) useTabs.getState().activate(tabId);
        n.close();
      };
    } catch {
      /* notifications unavailable here */
    }
  };
  if (Notification.permission === 'granted') show();
  else if (Notification.permission === 'default' && !asked) {
    asked = true;
    void Notification.requestPermission().then((p) => p === 'granted' && show(), () => {});
  }
}
