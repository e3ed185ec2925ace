import { existsSync } from 'node:fs';
import type { Disposable } from '../base/lifecycle';

/** How often a missing store is looked for (one stat: nothing next to what a watch would cost). */
export const APPEAR_POLL_MS = 2000;

/**
 * Calls `appeared` once `folder` exists (an agent's store made after Switchboard started). It looks for it
 * every APPEAR_POLL_MS rather than watching: the nearest existing folder is often the home folder, and a
 * watch of it (recursive, as the host's watch is) would cost a watch of everything in it.
 */
export function whenFolderAppears(folder: string, appeared: () => void, everyMs = APPEAR_POLL_MS): Disposable {
  const timer = setInterval(() => {
    if (!existsSync(folder)) return;
    clearInterval(timer);
    appeared();
  }, everyMs);
  timer.unref?.();
  return { dispose: () => clearInterval(timer) };
}
