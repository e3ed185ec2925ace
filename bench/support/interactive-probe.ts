// The moment a started app is interactive in the page: the workspace shown and the sidebar's history listing a
// session, after that frame's paint. Used by the start benches (start.ts, history10m.ts) as an init script.

/** What `window.__interactive` resolves with: epoch ms of the page's milestones. */
export interface Interactive {
  at: number;
  navigation: number;
  responseEnd: number;
  domContentLoaded: number;
  socket: number;
}

// Init script: the moment (epoch ms) the sidebar's history first lists a session, after that frame's paint.
export const INTERACTIVE_PROBE = `(() => {
  const now = () => performance.timeOrigin + performance.now();
  const Base = window.WebSocket;
  window.WebSocket = class extends Base {
    constructor(...args) {
      super(...args);
      this.addEventListener('open', () => { window.__socketOpen ||= Math.round(now()); });
    }
  };
  window.__interactive = new Promise((resolve) => {
    const check = () => {
      if (!document.querySelector('[data-testid=workspace]') || !document.querySelector('[data-testid=history-row]')) return;
      mo.disconnect();
      requestAnimationFrame(() => setTimeout(() => {
        const nav = performance.getEntriesByType('navigation')[0];
        const t = (ms) => Math.round(performance.timeOrigin + ms);
        resolve({ at: now(), navigation: Math.round(performance.timeOrigin), responseEnd: t(nav ? nav.responseEnd : 0), domContentLoaded: t(nav ? nav.domContentLoadedEventEnd : 0), socket: window.__socketOpen || 0 });
      }, 0));
    };
    const mo = new MutationObserver(check);
    const start = () => { mo.observe(document.documentElement, { childList: true, subtree: true }); check(); };
    if (document.documentElement) start(); else document.addEventListener('readystatechange', start, { once: true });
  });
})()`;
